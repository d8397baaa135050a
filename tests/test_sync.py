"""`sync`: the Learn pages under sources/ are pinned to the docs repositories they are copies of.

Every git repository here is made by the test in a temporary folder, laid out like the upstream
repository and filled with real pages of the shipped sources; nothing talks to a remote. Git runs
with a temporary HOME, no system configuration and a fixed author, as on a clean CI machine.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from pipeline.cli import main
from pipeline.sync import (
    LOCK_FILE,
    UPSTREAM_FILE,
    Failed,
    Locked,
    Repository,
    load_upstream,
    lock_text,
    read_lock,
)

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ROOT / "sources"
COMPUTE = "MicrosoftDocs/azure-compute-docs"
COMPUTE_FOLDER = "azure-docs/azure-compute-docs"

GPU = "articles/virtual-machines/sizes/gpu-accelerated"
NDV2_PAGE = f"{GPU}/ndv2-series.md"
NDV2_SPECS = f"{GPU}/includes/ndv2-series-specs.md"
ND_PAGE = f"{GPU}/nd-series.md"
NDV2_ROW = "| Standard_ND40rs_v2 | 40 | 672 |"
NDV2_ROW_LINE = 41
NOT_TAKEN = ("README.md", "articles/virtual-machines/sizes/general-purpose/dv5-series.md")
"""Files of the upstream repository that no glob of upstream.toml takes."""


# ------------------------------------------------------------------------------ helpers


@pytest.fixture(autouse=True)
def clean_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Git as on a fresh CI machine: no system or user configuration, a fixed author."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    for role in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{role}_NAME", "Docs Writer")
        monkeypatch.setenv(f"GIT_{role}_EMAIL", "writer@example.com")


def git(repo: Path, *args: str) -> str:
    proc = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True)
    return proc.stdout.strip()


def page(path: str) -> bytes:
    """A real page of the shipped sources, by its path in azure-compute-docs."""
    return (SOURCES / COMPUTE_FOLDER / path).read_bytes()


def commit(repo: Path, files: dict[str, bytes | None], message: str) -> str:
    """Write (or, for None, delete) `files` in `repo` and commit them; the new commit's hash."""
    for path, data in files.items():
        target = repo / path
        if data is None:
            git(repo, "rm", "-q", path)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            git(repo, "add", path)
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD")


def make_upstream(folder: Path) -> tuple[Path, str, str]:
    """azure-compute-docs with the ND and NDv2 pages in two commits, and files no glob takes.

    Returns the repository, the commit of the NDv2 pages and the later commit of the ND page."""
    repo = folder / "azure-compute-docs"
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "uploadpack.allowFilter", "true")
    ndv2 = commit(
        repo,
        {NDV2_PAGE: page(NDV2_PAGE), NDV2_SPECS: page(NDV2_SPECS), **{p: b"not a GPU page\n" for p in NOT_TAKEN}},
        "NDv2 pages",
    )
    nd = commit(repo, {ND_PAGE: page(ND_PAGE)}, "ND page")
    return repo, ndv2, nd


def edit(data: bytes, old: str, new: str) -> bytes:
    assert data.count(old.encode()) == 1
    return data.replace(old.encode(), new.encode())


def fresh_sources(folder: Path) -> Path:
    """A sources folder with the shipped upstream.toml and registry and no Learn page yet."""
    sources = folder / "sources"
    sources.mkdir(parents=True)
    for name in (UPSTREAM_FILE, "registry.toml"):
        shutil.copyfile(SOURCES / name, sources / name)
    return sources


def tree(folder: Path) -> dict[str, bytes]:
    """Every file below `folder` with its bytes."""
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def pipeline(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pipeline", *args], cwd=ROOT, capture_output=True, text=True, check=False, env=env
    )


def sync(repo: Path | str, sources: Path, *options: str) -> subprocess.CompletedProcess[str]:
    return pipeline("sync", "--from", str(repo), "--sources", str(sources), *options)


def doc(path: str) -> str:
    return f"{COMPUTE_FOLDER}/{path}"


@pytest.fixture
def upstream(tmp_path: Path) -> tuple[Path, str, str]:
    return make_upstream(tmp_path / "upstream")


@pytest.fixture
def synced(tmp_path: Path, upstream: tuple[Path, str, str]) -> Path:
    """Sources synced once from `upstream`."""
    sources = fresh_sources(tmp_path)
    proc = sync(upstream[0], sources)
    assert proc.returncode == 0, proc.stderr
    return sources


# ------------------------------------------------------------------------------ the shipped upstream.toml and lock


def learn_pages() -> list[str]:
    return sorted(p.relative_to(SOURCES).as_posix() for p in (SOURCES / "azure-docs").rglob("*") if p.is_file())


def test_upstream_toml_names_the_two_docs_repositories() -> None:
    repos = load_upstream(SOURCES)
    assert not isinstance(repos, Failed)
    assert [(r.name, r.url, r.folder) for r in repos] == [
        (COMPUTE, "https://github.com/MicrosoftDocs/azure-compute-docs.git", COMPUTE_FOLDER),
        ("MicrosoftDocs/azure-docs", "https://github.com/MicrosoftDocs/azure-docs.git", "azure-docs/azure-docs"),
    ]
    # What a sparse checkout of each needs.
    assert [r.folders() for r in repos] == [
        (GPU, "articles/virtual-machines/sizes/lifecycle/retirement"),
        ("articles/virtual-machines", "includes"),
    ]


def test_every_learn_page_of_the_sources_is_taken_by_its_repository_globs() -> None:
    repos = load_upstream(SOURCES)
    assert not isinstance(repos, Failed)
    pages = learn_pages()
    assert len(pages) == 79
    for path in pages:
        [repo] = [r for r in repos if path.startswith(r.folder + "/")]
        assert repo.takes(path.removeprefix(repo.folder + "/")), path


def test_the_lock_lists_every_learn_page_with_its_last_commit_and_hash() -> None:
    locked = read_lock(SOURCES)
    assert not isinstance(locked, Failed)
    assert [f.document for f in locked] == learn_pages()
    for f in locked:
        folder = COMPUTE_FOLDER if f.repository == COMPUTE else "azure-docs/azure-docs"
        assert f.document == f"{folder}/{f.path}"
        assert re.fullmatch(r"[0-9a-f]{40}", f.commit), f
        assert f.sha256 == hashlib.sha256((SOURCES / f.document).read_bytes()).hexdigest(), f.document
    ndv2 = next(f for f in locked if f.document == doc(NDV2_PAGE))
    assert ndv2.url == f"https://github.com/{COMPUTE}/blob/1dc6d3b8a9340908bc53610bc739534ec59b56d0/{NDV2_PAGE}"


def test_the_shipped_lock_is_in_the_form_sync_writes() -> None:
    """Sorted by document, one entry per file: a sync that changes nothing rewrites the same bytes."""
    locked = read_lock(SOURCES)
    assert not isinstance(locked, Failed)
    assert lock_text(locked) == (SOURCES / LOCK_FILE).read_text(encoding="utf-8")


# ------------------------------------------------------------------------------ globs and the lock's text


@pytest.mark.parametrize(
    ("glob", "path", "taken"),
    [
        (f"{GPU}/**/*.md", f"{GPU}/ndv2-series.md", True),
        (f"{GPU}/**/*.md", f"{GPU}/includes/ndv2-series-specs.md", True),
        (f"{GPU}/**/*.md", f"{GPU}/media/ndv2.png", False),
        (f"{GPU}/**/*.md", "articles/virtual-machines/sizes/ndv2-series.md", False),
        ("articles/virtual-machines/n[cdgv]*-series.md", "articles/virtual-machines/ncv3-series.md", True),
        ("articles/virtual-machines/n[cdgv]*-series.md", "articles/virtual-machines/np-series.md", False),
        ("articles/virtual-machines/n[cdgv]*-series.md", "articles/virtual-machines/nd/x-series.md", False),
        ("articles/*.md", "articles/virtual-machines/nc-series.md", False),
        ("articles/nc?-series.md", "articles/ncv-series.md", True),
        ("articles/[!x]-series.md", "articles/n-series.md", True),
        ("articles/[!x]-series.md", "articles/x-series.md", False),
        ("includes/sizes-table-defs.md", "includes/sizes-table-defs.md", True),
        ("includes/sizes-table-defs.md", "includes/sizes-table-defs.md.bak", False),
    ],
)
def test_globs_read_as_in_gitignore(glob: str, path: str, taken: bool) -> None:
    repo = Repository(COMPUTE, "https://example.com/r.git", COMPUTE_FOLDER, (glob,))
    assert repo.takes(path) is taken


@pytest.mark.parametrize(
    "path",
    ["articles/nvcadbA10M5+serbes.md", 'articles/a "quoted" name.md', "articles/back\\slash.md", "articles/été.md"],
)
def test_the_lock_reads_back_what_it_wrote(tmp_path: Path, path: str) -> None:
    files = (
        Locked(f"{COMPUTE_FOLDER}/{path}", COMPUTE, path, "a" * 40, "b" * 64),
        Locked("azure-docs/azure-docs/includes/x.md", "MicrosoftDocs/azure-docs", "includes/x.md", "c" * 40, "d" * 64),
    )
    (tmp_path / LOCK_FILE).write_text(lock_text(reversed(files)), encoding="utf-8")
    assert read_lock(tmp_path) == files


# ------------------------------------------------------------------------------ what a sync does


def test_a_first_sync_takes_the_pages_the_globs_name_with_each_ones_last_commit(
    tmp_path: Path, upstream: tuple[Path, str, str]
) -> None:
    repo, ndv2, nd = upstream
    sources = fresh_sources(tmp_path)
    proc = sync(repo, sources)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [
        f"{COMPUTE} at {nd[:7]} (HEAD): 3 added",
        f"  added    {doc(NDV2_SPECS)}  none -> {ndv2[:7]}",
        f"  added    {doc(ND_PAGE)}  none -> {nd[:7]}",
        f"  added    {doc(NDV2_PAGE)}  none -> {ndv2[:7]}",
        f"wrote {sources}/ and {sources}/{LOCK_FILE}",
    ]
    for path in (NDV2_PAGE, NDV2_SPECS, ND_PAGE):
        assert (sources / doc(path)).read_bytes() == page(path)
    for path in NOT_TAKEN:
        assert not (sources / doc(path)).exists()
    assert read_lock(sources) == tuple(
        Locked(doc(path), COMPUTE, path, last, hashlib.sha256(page(path)).hexdigest())
        for path, last in sorted([(ND_PAGE, nd), (NDV2_SPECS, ndv2), (NDV2_PAGE, ndv2)], key=lambda p: doc(p[0]))
    )


def test_a_second_sync_with_nothing_new_writes_nothing(synced: Path, upstream: tuple[Path, str, str]) -> None:
    before = tree(synced)
    lock_written = (synced / LOCK_FILE).stat().st_mtime_ns
    proc = sync(upstream[0], synced)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == f"{COMPUTE} at {upstream[2][:7]} (HEAD): up to date (3 files)\n"
    assert tree(synced) == before
    assert (synced / LOCK_FILE).stat().st_mtime_ns == lock_written


def test_a_sync_replaces_changed_pages_and_removes_pages_gone_upstream(
    synced: Path, upstream: tuple[Path, str, str]
) -> None:
    repo, ndv2, nd = upstream
    changed = commit(repo, {NDV2_PAGE: edit(page(NDV2_PAGE), NDV2_ROW, "| Standard_ND40rs_v2 | 40 | 700 |")}, "700")
    gone = commit(repo, {ND_PAGE: None}, "ND retired")
    proc = sync(repo, synced)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[:3] == [
        f"{COMPUTE} at {gone[:7]} (HEAD): 1 changed, 1 removed",
        f"  removed  {doc(ND_PAGE)}  {nd[:7]} -> none",
        f"  changed  {doc(NDV2_PAGE)}  {ndv2[:7]} -> {changed[:7]}",
    ]
    assert not (synced / doc(ND_PAGE)).exists()
    assert b"| Standard_ND40rs_v2 | 40 | 700 |" in (synced / doc(NDV2_PAGE)).read_bytes()
    locked = read_lock(synced)
    assert not isinstance(locked, Failed)
    assert [(f.path, f.commit) for f in locked] == [(NDV2_SPECS, ndv2), (NDV2_PAGE, changed)]


def test_the_last_page_of_a_folder_takes_the_folder_with_it(synced: Path, upstream: tuple[Path, str, str]) -> None:
    repo = upstream[0]
    commit(repo, {NDV2_SPECS: None}, "specs inlined")
    assert sync(repo, synced).returncode == 0
    assert not (synced / doc(f"{GPU}/includes")).exists()


def test_a_page_edited_by_hand_is_put_back(synced: Path, upstream: tuple[Path, str, str]) -> None:
    (synced / doc(NDV2_PAGE)).write_bytes(b"edited\n")
    proc = sync(upstream[0], synced)
    ndv2 = upstream[1][:7]
    assert f"  changed  {doc(NDV2_PAGE)}  {ndv2} -> {ndv2}" in proc.stdout.splitlines()
    assert (synced / doc(NDV2_PAGE)).read_bytes() == page(NDV2_PAGE)


def test_ref_takes_the_pages_as_they_were_at_an_older_commit(synced: Path, upstream: tuple[Path, str, str]) -> None:
    repo, ndv2, nd = upstream
    proc = sync(repo, synced, "--ref", ndv2)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[:2] == [
        f"{COMPUTE} at {ndv2[:7]} ({ndv2}): 1 removed",
        f"  removed  {doc(ND_PAGE)}  {nd[:7]} -> none",
    ]


def test_a_git_url_is_cloned_first(tmp_path: Path, upstream: tuple[Path, str, str]) -> None:
    sources = fresh_sources(tmp_path)
    proc = sync(f"file://{upstream[0]}", sources, "--ref", "main")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(f"{COMPUTE} at {upstream[2][:7]} (main): 3 added\n")
    assert read_lock(sources) == read_lock(sync_locally(tmp_path, upstream[0]))


def sync_locally(folder: Path, repo: Path) -> Path:
    sources = fresh_sources(folder / "local")
    assert sync(repo, sources).returncode == 0
    return sources


def test_a_sync_keeps_the_other_repositorys_files_and_lock_entries(
    synced: Path, upstream: tuple[Path, str, str], tmp_path: Path
) -> None:
    other = tmp_path / "other" / "azure-docs"
    other.mkdir(parents=True)
    git(other, "init", "-q", "-b", "main")
    table_defs = "includes/virtual-machines-common-sizes-table-defs.md"
    shipped = (SOURCES / "azure-docs/azure-docs" / table_defs).read_bytes()
    old_docs = commit(other, {table_defs: shipped}, "table defs")
    assert sync(other, synced).returncode == 0
    commit(upstream[0], {ND_PAGE: None}, "ND retired")
    assert sync(upstream[0], synced).returncode == 0
    locked = read_lock(synced)
    assert not isinstance(locked, Failed)
    assert [(f.repository, f.path, f.commit) for f in locked if f.repository != COMPUTE] == [
        ("MicrosoftDocs/azure-docs", table_defs, old_docs)
    ]
    assert (synced / "azure-docs/azure-docs" / table_defs).read_bytes() == shipped


def test_a_shallow_clone_that_cannot_tell_each_pages_last_commit_is_refused(
    tmp_path: Path, upstream: tuple[Path, str, str]
) -> None:
    shallow = tmp_path / "shallow" / "azure-compute-docs"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{upstream[0]}", str(shallow)], check=True)
    proc = sync(shallow, fresh_sources(tmp_path))
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"error: {shallow} is a shallow clone too shallow to tell which commit last changed")


# ------------------------------------------------------------------------------ errors


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        (None, "upstream.toml not found"),
        ("[[repository]\n", "upstream.toml is not valid TOML"),
        ("title = 'no repositories'\n", "upstream.toml lists no [[repository]]"),
        (
            '[[repository]]\nname = "azure-compute-docs"\nurl = "u"\nfolder = "f"\npaths = ["*.md"]\n',
            "repository 1 needs a name of the form owner/repository",
        ),
        (
            f'[[repository]]\nname = "{COMPUTE}"\nurl = "u"\nfolder = "../elsewhere"\npaths = ["*.md"]\n',
            "repository 1 needs a folder below the sources folder",
        ),
        (
            f'[[repository]]\nname = "{COMPUTE}"\nurl = "u"\nfolder = "f"\npaths = []\n',
            "repository 1 needs paths: a list of globs",
        ),
    ],
)
def test_an_unusable_upstream_toml_is_one_error_line(
    tmp_path: Path, upstream: tuple[Path, str, str], toml: str | None, message: str
) -> None:
    sources = fresh_sources(tmp_path)
    (sources / UPSTREAM_FILE).unlink()
    if toml is not None:
        (sources / UPSTREAM_FILE).write_text(toml, encoding="utf-8")
    proc = sync(upstream[0], sources)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.startswith("error: ") and proc.stderr.count("\n") == 1
    assert message in proc.stderr


ENTRY = f'[[file]]\ndocument = "{COMPUTE_FOLDER}/a.md"\nrepository = "{COMPUTE}"\npath = "a.md"\n'


@pytest.mark.parametrize(
    ("lock", "message"),
    [
        ("[[file]\n", "upstream.lock is not valid TOML"),
        (f'{ENTRY}commit = "{"a" * 40}"\n', "upstream.lock: file 1 needs document, repository, path, commit, sha256"),
        (
            f'{ENTRY}commit = "aaaaaaa"\nsha256 = "{"b" * 64}"\n',
            "upstream.lock: file 1 needs a 40-hex commit and a 64-hex sha256",
        ),
        (2 * f'{ENTRY}commit = "{"a" * 40}"\nsha256 = "{"b" * 64}"\n', "upstream.lock lists a document twice"),
    ],
)
def test_an_unreadable_lock_stops_the_sync_with_one_error_line(
    tmp_path: Path, upstream: tuple[Path, str, str], lock: str, message: str
) -> None:
    sources = fresh_sources(tmp_path)
    (sources / LOCK_FILE).write_text(lock, encoding="utf-8")
    proc = sync(upstream[0], sources)
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"error: {sources}/{message}") and proc.stderr.count("\n") == 1
    assert (sources / LOCK_FILE).read_text(encoding="utf-8") == lock


@pytest.mark.parametrize(
    ("repo", "options", "message"),
    [
        ("missing/azure-compute-docs", (), "missing/azure-compute-docs is not a git repository (no such folder)"),
        ("plain/azure-compute-docs", (), "plain/azure-compute-docs is not a git repository"),
        ("elsewhere/azure-sdk/azure-compute-docs", (), "is not the top folder of a git repository"),
        ("elsewhere/azure-sdk", (), "azure-sdk is not a repository listed in "),
        ("upstream/azure-compute-docs", ("--ref", "no-such-branch"), "unknown ref 'no-such-branch'"),
        ("file:///nowhere/azure-compute-docs", (), "could not clone file:///nowhere/azure-compute-docs"),
    ],
)
def test_a_repository_sync_cannot_use_is_one_error_line(
    tmp_path: Path, upstream: tuple[Path, str, str], repo: str, options: tuple[str, ...], message: str
) -> None:
    (tmp_path / "plain/azure-compute-docs").mkdir(parents=True)
    (tmp_path / "elsewhere/azure-sdk/azure-compute-docs").mkdir(parents=True)
    git(tmp_path / "elsewhere/azure-sdk", "init", "-q")
    sources = fresh_sources(tmp_path)
    before = tree(sources)
    where = repo if "://" in repo else str(tmp_path / repo)
    proc = sync(where, sources, *options)
    assert proc.returncode == 2
    assert proc.stderr.startswith("error: ") and proc.stderr.count("\n") == 1
    assert message in proc.stderr
    assert tree(sources) == before


def test_without_git_on_the_path_sync_says_so(tmp_path: Path, upstream: tuple[Path, str, str]) -> None:
    empty = tmp_path / "bin"
    empty.mkdir()
    sources = fresh_sources(tmp_path)
    no_git = {**os.environ, "PATH": str(empty)}
    proc = pipeline("sync", "--from", str(upstream[0]), "--sources", str(sources), env=no_git)
    assert proc.returncode == 2
    assert proc.stderr == "error: git is not installed or not on PATH (sync runs the git command line)\n"


# ------------------------------------------------------------------------------ a sync that fails or is killed


def update_upstream(upstream: tuple[Path, str, str]) -> None:
    """One page changed, one gone: what the interrupted syncs below were doing."""
    repo = upstream[0]
    commit(repo, {NDV2_PAGE: edit(page(NDV2_PAGE), NDV2_ROW, "| Standard_ND40rs_v2 | 40 | 700 |")}, "700")
    commit(repo, {ND_PAGE: None}, "ND retired")


def leftovers(sources: Path) -> list[str]:
    return sorted(p.name for p in sources.parent.glob(f".{sources.name}.*-*"))


def test_a_write_that_fails_while_staging_leaves_the_sources_as_they_were(
    synced: Path, upstream: tuple[Path, str, str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    update_upstream(upstream)
    before = tree(synced)

    def disk_full(self: Path, data: bytes) -> int:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Path, "write_bytes", disk_full)
    assert main(["sync", "--from", str(upstream[0]), "--sources", str(synced)]) == 2
    assert capsys.readouterr().err == (
        f"error: sync failed ([Errno 28] No space left on device); {synced}/ was left as it was\n"
    )
    assert tree(synced) == before
    assert leftovers(synced) == []


def test_a_swap_that_fails_between_its_two_renames_is_undone_at_once(
    synced: Path, upstream: tuple[Path, str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the folders cannot be exchanged in one step, the old one is moved aside first."""
    update_upstream(upstream)
    before = tree(synced)
    rename = os.rename

    def fail_moving_the_new_folder_in(src: str | Path, dst: str | Path) -> None:
        if Path(src).name.startswith(f".{synced.name}.new-"):
            raise OSError(5, "Input/output error")
        rename(src, dst)

    monkeypatch.setattr("pipeline.outputs.write._exchange", lambda a, b: False)
    monkeypatch.setattr(os, "rename", fail_moving_the_new_folder_in)
    assert main(["sync", "--from", str(upstream[0]), "--sources", str(synced)]) == 2
    assert tree(synced) == before
    assert leftovers(synced) == []


KILLED = """
import os, signal, sys
from pathlib import Path
import pipeline.sync, pipeline.outputs.write

def die(*args):
    os.kill(os.getpid(), signal.SIGKILL)

if sys.argv[1] == "before-the-swap":
    pipeline.sync.swap_in = die
else:  # between the two renames of a swap that cannot exchange the folders in one step
    pipeline.outputs.write._exchange = lambda a, b: False
    rename = os.rename
    os.rename = lambda src, dst: die() if ".new-" in Path(src).name else rename(src, dst)
from pipeline.cli import main
sys.exit(main(sys.argv[2:]))
"""


def killed_sync(at: str, repo: Path, sources: Path) -> None:
    command = [sys.executable, "-c", KILLED, at, "sync", "--from", str(repo), "--sources", str(sources)]
    # A killed sync cannot remove its work folder: keep it in the test's folder, not the system's.
    tmp = sources.parent / "tmp"
    tmp.mkdir(exist_ok=True)
    env = {**os.environ, "TMPDIR": str(tmp)}
    proc = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    assert proc.returncode == -signal.SIGKILL, proc.stderr


def test_a_sync_killed_before_the_swap_leaves_the_sources_as_they_were(
    synced: Path, upstream: tuple[Path, str, str]
) -> None:
    update_upstream(upstream)
    before = tree(synced)
    killed_sync("before-the-swap", upstream[0], synced)
    assert tree(synced) == before
    assert [name.rsplit("-", 1)[0] for name in leftovers(synced)] == [f".{synced.name}.new"]
    # The next sync clears what the killed one left and does the work.
    proc = sync(upstream[0], synced)
    assert proc.returncode == 0, proc.stderr
    assert "1 changed, 1 removed" in proc.stdout
    assert leftovers(synced) == []


def test_a_sync_killed_between_the_two_renames_is_put_back_by_the_next_one(
    synced: Path, upstream: tuple[Path, str, str]
) -> None:
    ndv2_and_nd = upstream[2]
    update_upstream(upstream)
    before = tree(synced)
    killed_sync("between-the-renames", upstream[0], synced)
    assert not synced.exists()  # killed with the old folder moved aside and the new one not yet in
    proc = sync(upstream[0], synced, "--ref", ndv2_and_nd)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.endswith(": up to date (3 files)\n")
    assert tree(synced) == before


# ------------------------------------------------------------------------------ the scheduled CI job, end to end


WORKFLOW = ROOT / ".github/workflows/upstream.yml"


def test_the_scheduled_workflow_clones_each_repository_sparsely_syncs_builds_and_reports_drift() -> None:
    workflow = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    triggers = workflow.get("on", workflow.get(True))  # YAML 1.1 reads a bare `on` as true
    assert set(triggers) == {"schedule", "workflow_dispatch"}
    assert triggers["schedule"][0]["cron"].split()[2:] == ["*", "*", "1"], "weekly"
    run = "\n".join(step.get("run", "") for job in workflow["jobs"].values() for step in job["steps"])
    repos = load_upstream(SOURCES)
    assert not isinstance(repos, Failed)
    for r in repos:
        clone = f'"$RUNNER_TEMP/{r.short_name}"'
        assert f"git clone --filter=blob:none --sparse {r.url} {clone}" in run
        assert f"git -C {clone} sparse-checkout set {' '.join(r.folders())}\n" in run
        assert f"python -m pipeline sync --from {clone}\n" in run
    assert "make build" in run
    assert "python -m pipeline drift --format markdown" in run and "$GITHUB_STEP_SUMMARY" in run


def ci_clone(repo: Path, into: Path) -> Path:
    """What the workflow does: a clone without blobs, checked out only in the folders synced."""
    clone = into / repo.name
    subprocess.run(["git", "clone", "-q", "--filter=blob:none", "--sparse", f"file://{repo}", str(clone)], check=True)
    repos = load_upstream(SOURCES)
    assert not isinstance(repos, Failed)
    [folders] = [r.folders() for r in repos if r.short_name == repo.name]
    git(clone, "sparse-checkout", "set", *folders)
    return clone


def test_upstream_drift_fails_the_job_and_names_the_value_and_the_commit(
    tmp_path: Path, upstream: tuple[Path, str, str]
) -> None:
    repo, ndv2, _ = upstream
    sources = fresh_sources(tmp_path)
    committed = tmp_path / "output"
    assert sync(ci_clone(repo, tmp_path / "week1"), sources).returncode == 0
    assert pipeline("build", "--sources", str(sources), "--out", str(committed)).returncode == 0
    assert pipeline("drift", "--sources", str(sources), "--against", str(committed)).returncode == 0

    new = commit(repo, {NDV2_PAGE: edit(page(NDV2_PAGE), NDV2_ROW, "| Standard_ND40rs_v2 | 40 | 700 |")}, "700")
    proc = sync(ci_clone(repo, tmp_path / "week2"), sources)
    assert f"  changed  {doc(NDV2_PAGE)}  {ndv2[:7]} -> {new[:7]}" in proc.stdout.splitlines()
    drift = pipeline("drift", "--sources", str(sources), "--against", str(committed))
    assert drift.returncode == 1, drift.stderr
    moved = f"commit {ndv2[:7]} -> {new[:7]}"
    claim = next(line for line in drift.stdout.splitlines() if "Standard_ND40rs_v2 memory_gib: 672 -> 700" in line)
    assert f"[{doc(NDV2_PAGE)}:{NDV2_ROW_LINE}, {moved}]" in claim
    fact = next(line for line in drift.stdout.splitlines() if "memory_gib: 672 GiB -> 700 GiB" in line)
    assert fact.startswith("  changed     Standard_ND40rs_v2 memory_gib") and moved in fact
    document = next(line for line in drift.stdout.splitlines() if line.startswith(f"  changed     {doc(NDV2_PAGE)}:"))
    assert moved in document
    markdown = pipeline("drift", "--sources", str(sources), "--against", str(committed), "--format", "markdown")
    assert markdown.returncode == 1
    row = "| changed | Standard\\_ND40rs\\_v2 memory\\_gib | 672 | 700 | "
    escaped = moved.replace(">", "&gt;")  # Markdown shows it as >; no document text becomes markup
    assert any(line.startswith(row) and escaped in line for line in markdown.stdout.splitlines())

    gone = commit(repo, {ND_PAGE: None}, "ND retired")
    proc = sync(ci_clone(repo, tmp_path / "week3"), sources)
    assert f"  removed  {doc(ND_PAGE)}  {upstream[2][:7]} -> none" in proc.stdout.splitlines()
    assert proc.stdout.startswith(f"{COMPUTE} at {gone[:7]} (HEAD): 1 removed\n")
    assert not (sources / doc(ND_PAGE)).exists()
    drift = pipeline("drift", "--sources", str(sources), "--against", str(committed))
    assert f"  removed     {doc(ND_PAGE)}: " in drift.stdout
