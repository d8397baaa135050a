"""`sync(repo, sources)`: take the documentation files upstream.toml names from a git repository.

`sources/upstream.toml` lists the upstream repositories: each one's name, git URL, the globs of
the files to take and the folder below `sources/` they are kept in, at their repository paths.
`sources/upstream.lock` records, for every file taken, its repository, its path there, the last
commit that changed it and the SHA-256 of its bytes: where a permalink to it points.

Everything goes through the `git` command line (`ls-tree`, `cat-file`, `log`): no library to
install, and it is what a maintainer and a CI runner already have. The new files and the new lock
are written into a copy of the sources folder that is swapped in only when complete (as the
output folder is, see `pipeline.outputs.write`), so a sync that fails or is killed leaves the sources and
the lock as they were.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import tempfile
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any, Literal

from pipeline.outputs.write import OutputLocked, output_lock, recover, staging_folder, swap_in

UPSTREAM_FILE = "upstream.toml"
LOCK_FILE = "upstream.lock"
SHORT = 7
"""Digits of a commit shown to people, as `git log --oneline` shows them."""

_COMMIT = re.compile(r"[0-9a-f]{40}")
_NAME = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+")
_WILDCARDS = frozenset("*?[")


@dataclass(frozen=True, slots=True)
class Failed:
    """Why a sync could not be done, as one line for the person who asked for it."""

    message: str


@dataclass(frozen=True, slots=True)
class Repository:
    """One upstream repository of upstream.toml."""

    name: str
    """owner/name on GitHub, e.g. MicrosoftDocs/azure-compute-docs."""
    url: str
    folder: str
    """Folder below the sources folder the files are kept in, at their repository paths."""
    paths: tuple[str, ...]
    """Globs of repository paths: `*` and `?` stay within a folder, `**/` crosses folders."""

    @property
    def short_name(self) -> str:
        """The name after the owner: what a clone's folder or URL ends with."""
        return self.name.rpartition("/")[2]

    def takes(self, path: str) -> bool:
        """Whether the repository path `path` matches one of the globs."""
        return any(_glob(p).fullmatch(path) for p in self.paths)

    def folders(self) -> tuple[str, ...]:
        """The folders the globs lie in (what a sparse checkout needs), none inside another."""
        found = sorted({_folder(p) for p in self.paths})
        return tuple(f for f in found if not any(f != o and (o == "" or f.startswith(o + "/")) for o in found))


@dataclass(frozen=True, slots=True)
class Locked:
    """One file taken from upstream, as upstream.lock records it."""

    document: str
    """Path below the sources folder: the `document` of the documents table."""
    repository: str
    path: str
    """Path in the repository."""
    commit: str
    """The last commit that changed the file."""
    sha256: str

    @property
    def url(self) -> str:
        """Permalink to the file as it is at `commit`."""
        return f"https://github.com/{self.repository}/blob/{self.commit}/{self.path}"


@dataclass(frozen=True, slots=True)
class FileChange:
    """A file that a sync added, changed or removed, with the commits before and after."""

    kind: Literal["added", "changed", "removed"]
    document: str
    old_commit: str | None
    new_commit: str | None

    def __str__(self) -> str:
        return f"{self.kind:<8} {self.document}  {short(self.old_commit)} -> {short(self.new_commit)}"


@dataclass(frozen=True, slots=True)
class Synced:
    """What a sync did: the repository, the commit it was taken at and every file it changed."""

    repository: Repository
    ref: str
    commit: str
    files: int
    changes: tuple[FileChange, ...]

    def summary(self) -> str:
        head = f"{self.repository.name} at {short(self.commit)} ({self.ref})"
        if not self.changes:
            return f"{head}: up to date ({self.files} files)\n"
        counts = ", ".join(f"{n} {kind}" for kind in ("added", "changed", "removed") if (n := self.count(kind)))
        return f"{head}: {counts}\n" + "".join(f"  {c}\n" for c in self.changes)

    def count(self, kind: str) -> int:
        return sum(c.kind == kind for c in self.changes)


def short(commit: str | None) -> str:
    return commit[:SHORT] if commit else "none"


# ------------------------------------------------------------------------------ upstream.toml and the lock


def load_upstream(sources: Path) -> tuple[Repository, ...] | Failed:
    """The repositories of `sources/upstream.toml`, or why it cannot be used."""
    path = sources / UPSTREAM_FILE
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return Failed(f"{path} not found: it lists the upstream repositories to sync from")
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        return Failed(f"{path} is not valid TOML: {exc}")
    entries = data.get("repository")
    if not isinstance(entries, list) or not entries:
        return Failed(f"{path} lists no [[repository]]")
    repos: list[Repository] = []
    for i, raw in enumerate(entries, start=1):
        problem = _invalid_repository(raw)
        if problem:
            return Failed(f"{path}: repository {i} {problem}")
        repos.append(Repository(raw["name"], raw["url"], raw["folder"].strip("/"), tuple(raw["paths"])))
    for field in ("short_name", "folder"):
        values = [getattr(r, field) for r in repos]
        if len(set(values)) < len(values):
            return Failed(f"{path}: two repositories have the same {field.replace('_', ' ')}")
    folders = [r.folder for r in repos]
    if any(a.startswith(b + "/") for a in folders for b in folders):
        return Failed(f"{path}: one repository's folder is inside another's")
    return tuple(repos)


def _invalid_repository(raw: Any) -> str | None:
    if not isinstance(raw, dict):
        return "is not a table"
    name, url, folder, paths = (raw.get(k) for k in ("name", "url", "folder", "paths"))
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        return "needs a name of the form owner/repository"
    if not isinstance(url, str) or not url:
        return "needs a git url"
    if not isinstance(folder, str) or not _relative(folder.strip("/")):
        return "needs a folder below the sources folder (relative, no '..')"
    if not isinstance(paths, list) or not paths or not all(isinstance(p, str) and _relative(p) for p in paths):
        return "needs paths: a list of globs relative to the repository root"
    return None


def _relative(path: str) -> bool:
    parts = path.split("/")
    return bool(path) and not path.startswith("/") and all(p not in ("", ".", "..") for p in parts)


def _glob(pattern: str) -> re.Pattern[str]:
    """A glob as a regular expression over repository paths (as in .gitignore files)."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:[^/]+/)*")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        elif pattern[i] == "[" and (end := pattern.find("]", i + 2)) != -1:
            out.append(_char_class(pattern[i + 1 : end]))
            i = end + 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out))


def _char_class(body: str) -> str:
    """`[...]` of a glob (`!` negates, `-` makes a range, neither matches `/`) as a regular expression."""
    negate = body.startswith("!")
    inner = body[1:] if negate else body
    for special in "\\[]^":
        inner = inner.replace(special, "\\" + special)
    return f"[^{inner}/]" if negate else f"[{inner}]"


def _folder(pattern: str) -> str:
    """The folders of a glob before its first wildcard: `a/b/**/*.md` -> `a/b`."""
    parts = pattern.split("/")[:-1]
    literal = []
    for part in parts:
        if _WILDCARDS & set(part):
            break
        literal.append(part)
    return "/".join(literal)


def read_lock(sources: Path) -> tuple[Locked, ...] | Failed:
    """Every file upstream.lock lists (none when there is no lock yet), or why it cannot be read
    (a sentence that starts with the lock's file name)."""
    try:
        data = tomllib.loads((sources / LOCK_FILE).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return ()
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        return Failed(f"{LOCK_FILE} is not valid TOML: {exc}")
    files: list[Locked] = []
    for i, raw in enumerate(data.get("file", []), start=1):
        values = [str(raw[k]) for k in _LOCK_KEYS if isinstance(raw, dict) and isinstance(raw.get(k), str) and raw[k]]
        if len(values) < len(_LOCK_KEYS):
            return Failed(f"{LOCK_FILE}: file {i} needs {', '.join(_LOCK_KEYS)}")
        entry = Locked(*values)
        if not _COMMIT.fullmatch(entry.commit) or not re.fullmatch(r"[0-9a-f]{64}", entry.sha256):
            return Failed(f"{LOCK_FILE}: file {i} needs a 40-hex commit and a 64-hex sha256")
        files.append(entry)
    if len({f.document for f in files}) < len(files):
        return Failed(f"{LOCK_FILE} lists a document twice")
    return tuple(files)


_LOCK_KEYS = ("document", "repository", "path", "commit", "sha256")

_LOCK_HEADER = """\
# Written by `python -m pipeline sync`; review it like any lock file, do not edit it by hand.
# One [[file]] per file taken from upstream (see upstream.toml), sorted by document: its path
# below sources/, its repository, its path there, the last commit that changed it and the
# SHA-256 of its bytes. A build fills the documents table's permalinks from it.
"""


def lock_text(files: Iterable[Locked]) -> str:
    """upstream.lock's text: stable, sorted by document, one entry per file."""
    blocks = [
        "[[file]]\n" + "".join(f"{k} = {_toml_string(getattr(f, k))}\n" for k in _LOCK_KEYS)
        for f in sorted(files, key=lambda f: f.document)
    ]
    return _LOCK_HEADER + "".join("\n" + b for b in blocks)


def _toml_string(text: str) -> str:
    """A TOML basic string."""
    out = []
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def permalinks(sources: Path) -> tuple[dict[str, Locked], str | None]:
    """What a build needs of the lock: each listed document's entry, and a problem with the lock if any."""
    files = read_lock(sources)
    if isinstance(files, Failed):
        return {}, files.message
    return {f.document: f for f in files}, None


# ------------------------------------------------------------------------------ git


@dataclass(frozen=True, slots=True)
class _Git:
    """The git command line, run in one repository."""

    repo: Path
    label: str
    """The repository as the person named it (a URL, or the folder given)."""

    def run(self, *args: str) -> bytes | Failed:
        env = {**os.environ, "GIT_LITERAL_PATHSPECS": "1", "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"}
        try:
            proc = subprocess.run(["git", "-C", str(self.repo), *args], capture_output=True, env=env, check=False)
        except FileNotFoundError:
            return Failed("git is not installed or not on PATH (sync runs the git command line)")
        if proc.returncode != 0:
            said = proc.stderr.decode("utf-8", "replace").strip().splitlines()
            fatal = [line for line in said if line.startswith(("fatal:", "error:"))] or said
            return Failed(f"git {args[0]} failed in {self.label}: {fatal[0] if fatal else f'exit {proc.returncode}'}")
        return proc.stdout

    def text(self, *args: str) -> str | Failed:
        out = self.run(*args)
        return out if isinstance(out, Failed) else out.decode("utf-8", "surrogateescape").strip()


def _is_url(repo: str) -> bool:
    return "://" in repo or bool(re.match(r"^[\w.-]+@[\w.-]+:", repo))


def _repository_name(repo: str) -> str:
    last = repo.rstrip("/").rpartition("/")[2].rpartition(":")[2] if _is_url(repo) else Path(repo).resolve().name
    return last.removesuffix(".git")


def _open(repo: str, workdir: Path, folders: Sequence[str]) -> _Git | Failed:
    """A local repository to read: `repo` itself, or a clone of the URL into `workdir`.

    A URL is cloned without blobs (`--filter=blob:none`), keeping every commit and tree so that
    each file's last commit can be found, and sparsely, so that only the folders synced are fetched."""
    if shutil.which("git") is None:
        return Failed("git is not installed or not on PATH (sync runs the git command line)")
    if _is_url(repo):
        clone = workdir / "clone"
        cloned = _Git(workdir, repo).run("clone", "--quiet", "--filter=blob:none", "--sparse", "--", repo, str(clone))
        if isinstance(cloned, Failed):
            return Failed(f"could not clone {repo}: {cloned.message.partition(': fatal: ')[2] or cloned.message}")
        git = _Git(clone, repo)
        everything = "" in folders
        checked_out = git.run("sparse-checkout", *(["disable"] if everything else ["set", "--", *folders]))
        return checked_out if isinstance(checked_out, Failed) else git
    path = Path(repo)
    if not path.is_dir():
        return Failed(f"{repo} is not a git repository (no such folder)")
    git = _Git(path, repo)
    bare = git.text("rev-parse", "--is-bare-repository")
    if isinstance(bare, Failed):
        return Failed(f"{repo} is not a git repository")
    top = git.text("rev-parse", "--absolute-git-dir" if bare == "true" else "--show-toplevel")
    if isinstance(top, Failed) or Path(top).resolve() != path.resolve():
        return Failed(f"{repo} is not the top folder of a git repository")
    return git


def _resolve(git: _Git, ref: str) -> str | Failed:
    for candidate in (ref, f"origin/{ref}"):
        if not candidate.startswith("-"):
            found = git.text("rev-parse", "--verify", "--quiet", f"{candidate}^{{commit}}")
            if not isinstance(found, Failed) and _COMMIT.fullmatch(found):
                return found
    return Failed(f"unknown ref {ref!r} in {git.label}")


@dataclass(frozen=True, slots=True)
class _Upstream:
    """A repository's files at one commit: what the sources folder and the lock should hold."""

    files: tuple[Locked, ...]
    data: Mapping[str, bytes]
    """Bytes by document."""


def _snapshot(git: _Git, repo: Repository, commit: str) -> _Upstream | Failed:
    folders = repo.folders()
    listing = git.run("ls-tree", "-r", "-z", "--full-tree", commit, "--", *([] if "" in folders else folders))
    if isinstance(listing, Failed):
        return listing
    shallow = _shallow_commits(git)
    if isinstance(shallow, Failed):
        return shallow
    files: list[Locked] = []
    data: dict[str, bytes] = {}
    for record in listing.split(b"\0"):
        if not record:
            continue
        meta, _, raw_path = record.partition(b"\t")
        mode, kind, oid = meta.decode().split()
        path = raw_path.decode("utf-8", "surrogateescape")
        if kind != "blob" or mode not in ("100644", "100755") or not repo.takes(path):
            continue
        blob = git.run("cat-file", "blob", oid)
        if isinstance(blob, Failed):
            return blob
        last = git.text("log", "-1", "--format=%H", commit, "--", path)
        if isinstance(last, Failed):
            return last
        if last in shallow:
            return Failed(
                f"{git.label} is a shallow clone too shallow to tell which commit last changed {path}: "
                "deepen it (git fetch --unshallow) or clone with --filter=blob:none and no --depth"
            )
        document = f"{repo.folder}/{path}"
        files.append(Locked(document, repo.name, path, last, hashlib.sha256(blob).hexdigest()))
        data[document] = blob
    return _Upstream(tuple(files), data)


def _shallow_commits(git: _Git) -> frozenset[str] | Failed:
    """The commits a shallow clone's history is cut at (none for a complete clone)."""
    shallow = git.text("rev-parse", "--git-path", "shallow")
    if isinstance(shallow, Failed):
        return shallow
    path = Path(shallow) if Path(shallow).is_absolute() else git.repo / shallow
    return frozenset(path.read_text().split()) if path.is_file() else frozenset()


# ------------------------------------------------------------------------------ sync


def sync(repo: str, sources: Path, ref: str | None = None) -> Synced | Failed:
    """Make `sources` hold the files upstream.toml takes from `repo` (a git URL or a local clone)
    as they are at `ref` (default: its HEAD), and upstream.lock list them.

    Files that changed upstream are replaced, new ones added, those gone upstream removed, a
    file edited by hand put back. Nothing is written when nothing changed; otherwise the new
    sources folder is staged beside the old one and swapped in whole. A sync killed between
    the two renames of a swap is put back by the next one."""
    sources = Path(sources)
    if not sources.is_dir() and not any(sources.parent.glob(f".{sources.name}.old-*")):
        return Failed(f"{sources} is not a folder")
    try:
        with output_lock(sources), tempfile.TemporaryDirectory(prefix="pipeline-sync-") as tmp:
            recover(sources)
            return _sync(repo, sources, ref or "HEAD", Path(tmp))
    except OutputLocked as exc:
        return Failed(str(exc))


def _sync(repo: str, sources: Path, ref: str, workdir: Path) -> Synced | Failed:
    repos = load_upstream(sources)
    if isinstance(repos, Failed):
        return repos
    name = _repository_name(repo)
    chosen = next((r for r in repos if r.short_name == name), None)
    if chosen is None:
        listed = ", ".join(r.name for r in repos)
        return Failed(f"{repo}: {name} is not a repository listed in {sources / UPSTREAM_FILE} ({listed})")
    locked = read_lock(sources)
    if isinstance(locked, Failed):
        return Failed(f"{sources}/{locked.message}")
    git = _open(repo, workdir, chosen.folders())
    if isinstance(git, Failed):
        return git
    commit = _resolve(git, ref)
    if isinstance(commit, Failed):
        return commit
    upstream = _snapshot(git, chosen, commit)
    if isinstance(upstream, Failed):
        return upstream
    changes = _changes(sources, chosen, locked, upstream)
    if changes:
        kept = [f for f in locked if f.repository != chosen.name]
        _swap(sources, changes, upstream, lock_text([*kept, *upstream.files]))
    return Synced(chosen, ref, commit, len(upstream.files), tuple(changes))


def _changes(sources: Path, repo: Repository, locked: Sequence[Locked], upstream: _Upstream) -> list[FileChange]:
    before = {f.document: f for f in locked if f.repository == repo.name}
    after = {f.document: f for f in upstream.files}
    out: list[FileChange] = []
    for doc in sorted(before.keys() | after.keys()):
        old, new = before.get(doc), after.get(doc)
        old_commit = old.commit if old else None
        if new is None:
            out.append(FileChange("removed", doc, old_commit, None))
        elif old is None:
            out.append(FileChange("added", doc, None, new.commit))
        elif old != new or _sha256(sources / doc) != new.sha256:
            out.append(FileChange("changed", doc, old_commit, new.commit))
    return out


def _sha256(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def _swap(sources: Path, changes: Sequence[FileChange], upstream: _Upstream, lock: str) -> None:
    """Write the changes into a copy of `sources` and swap it in; on any failure `sources` stays as it was."""
    stage = staging_folder(sources)
    try:
        shutil.copytree(sources, stage, symlinks=True, dirs_exist_ok=True)
        for change in changes:
            target = stage / PurePosixPath(change.document)
            if change.kind == "removed":
                target.unlink(missing_ok=True)
                _prune(target.parent, stage)
            else:
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(upstream.data[change.document])
        (stage / LOCK_FILE).write_text(lock, encoding="utf-8", newline="\n")
        swap_in(stage, sources)
    except BaseException:
        recover(sources)
        shutil.rmtree(stage, ignore_errors=True)
        raise


def _prune(folder: Path, root: Path) -> None:
    """Remove `folder` and its parents up to `root` while they are empty."""
    while folder != root and root in folder.parents and not any(folder.iterdir()):
        folder.rmdir()
        folder = folder.parent
