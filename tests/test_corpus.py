"""The corpus generator: deterministic, realistic in shape, and readable by the pipeline end to end."""

from __future__ import annotations

import re
import subprocess
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path
from random import Random

import pytest
import yaml

from bench import corpus
from pipeline import knowledge
from pipeline.knowledge.names import parse_series, parse_size, series_key
from pipeline.runner import compute
from pipeline.stages.extract import resolve_include
from pipeline.stages.read import parse_date

_SIZE_ROW = re.compile(r"^\| (Standard_\S+) \|", re.MULTILINE)
_INCLUDE = re.compile(r"\[!INCLUDE \[[^\]]*\]\(([^)]*)\)\]")


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _front_matter(path: Path) -> dict[str, object]:
    text = path.read_text(encoding="utf-8")
    assert text.startswith("---\n"), path
    block = text.split("\n---\n", 1)[0].removeprefix("---\n")
    loaded = yaml.safe_load(block)
    assert isinstance(loaded, dict)
    return loaded


def _official_sizes(root: Path) -> list[str]:
    """Size names as the official tables print them, read back from the files, each once."""
    names: dict[str, None] = {}
    for page in sorted(root.glob("official-*/*.md")):
        names.update(dict.fromkeys(_SIZE_ROW.findall(page.read_text(encoding="utf-8"))))
    return list(names)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A mid-sized corpus shared by the shape tests."""
    root = tmp_path_factory.mktemp("corpus")
    corpus.generate(400, root, seed=7)
    return root


# ------------------------------------------------------------------------ determinism and size


def test_same_seed_gives_identical_bytes(tmp_path: Path) -> None:
    a = corpus.generate(60, tmp_path / "a", seed=3)
    b = corpus.generate(60, tmp_path / "b", seed=3)
    assert [p.relative_to(tmp_path / "a") for p in a] == [p.relative_to(tmp_path / "b") for p in b]
    assert _files(tmp_path / "a") == _files(tmp_path / "b")


def test_different_seed_gives_a_different_corpus(tmp_path: Path) -> None:
    corpus.generate(60, tmp_path / "a", seed=3)
    corpus.generate(60, tmp_path / "b", seed=4)
    assert _files(tmp_path / "a") != _files(tmp_path / "b")


def test_paths_are_returned_sorted_and_exist(tmp_path: Path) -> None:
    paths = corpus.generate(25, tmp_path)
    assert paths == sorted(paths)
    assert all(p.is_file() and tmp_path in p.parents for p in paths)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 10, 31, 100, 257])
def test_document_count_is_within_two_of_n(tmp_path: Path, n: int) -> None:
    paths = corpus.generate(n, tmp_path)
    assert abs(len(paths) - n) <= 2
    on_disk = [p for p in tmp_path.rglob("*") if p.suffix in (".md", ".txt")]
    assert len(on_disk) == len(paths)


def test_zero_documents_writes_nothing(tmp_path: Path) -> None:
    assert corpus.generate(0, tmp_path / "none") == []


def test_mix_follows_the_requested_shares(built: Path) -> None:
    count = Counter(p.relative_to(built).parts[0] for p in built.rglob("*") if p.suffix in (".md", ".txt"))
    total = sum(count.values())
    assert abs(count["official-old"] / total - 0.45) < 0.03
    assert abs(count["official-new"] / total - 0.35) < 0.03
    assert abs(count["third-party"] / total - 0.20) < 0.03
    assert len(list((built / "official-new" / "includes").glob("*-series-specs.md"))) == len(
        list((built / "official-new").glob("*-series.md"))
    )


# ------------------------------------------------------------------------ realistic shape


def test_every_official_page_has_an_ms_date_from_2019_to_2026(built: Path) -> None:
    pages = sorted(built.glob("**/*.md"))
    assert pages
    years = set()
    for page in pages:
        meta = _front_matter(page)
        assert any(str(k).startswith("ms.") for k in meta), page
        date = parse_date(meta.get("ms.date"))
        assert date is not None, page
        years.add(date.year)
    assert min(years) >= 2019 and max(years) <= 2026
    assert len(years) >= 6


def test_third_party_pages_have_no_or_tags_only_front_matter(built: Path) -> None:
    pages = sorted((built / "third-party").glob("*.txt"))
    assert pages
    for page in pages:
        text = page.read_text(encoding="utf-8")
        if text.startswith("---\n"):
            assert set(_front_matter(page)) == {"tags"}
        assert "| Instance Type | vCPUs | Memory | GPUs     | GPU Memory | Network    |" in text


@pytest.mark.parametrize("folder", ["official-new", "official-old"])
def test_includes_resolve_to_files_that_exist(built: Path, folder: str) -> None:
    pages = sorted((built / folder).glob("*.md"))
    assert pages
    for page in pages:
        rel = page.relative_to(built).as_posix()
        targets = _INCLUDE.findall(page.read_text(encoding="utf-8"))
        assert targets, page
        for target in targets:
            resolved, problem = resolve_include(rel, target)
            assert problem is None and resolved is not None
            assert (built / resolved).is_file(), f"{rel}: {target}"
        if folder == "official-new":
            assert any(t.startswith("./includes/") and t.endswith("-series-specs.md") for t in targets)


def test_series_and_sizes_never_repeat_across_the_corpus(built: Path) -> None:
    keys = []
    for page in sorted(built.glob("official-*/*.md")):
        title = _front_matter(page)["title"]
        series = parse_series(str(title))
        assert series is not None, title
        keys.append(series.key)
    assert len(keys) == len(set(keys))
    per_page = [set(_SIZE_ROW.findall(p.read_text(encoding="utf-8"))) for p in sorted(built.glob("official-*/*.md"))]
    assert sum(len(sizes) for sizes in per_page) == len(set().union(*per_page))


def test_series_stay_unique_past_the_end_of_the_naming_space(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    small = corpus.naming_space()[:3]
    monkeypatch.setattr(corpus, "naming_space", lambda: small)
    corpus.generate(40, tmp_path)
    titles = [str(_front_matter(p)["title"]) for p in sorted(tmp_path.glob("official-*/*.md"))]
    keys = [s.key for t in titles if (s := parse_series(t))]
    assert len(keys) == len(titles) == len(set(keys)) > len(small)


def test_sizes_follow_the_naming_convention(built: Path) -> None:
    counts: Counter[str] = Counter()
    for name in _official_sizes(built):
        parsed = parse_size(name)
        assert parsed is not None and parsed.canonical == name
        assert 4 <= parsed.vcpus <= 192
        assert set(parsed.features) <= set(corpus.FEATURE_LETTERS)
        counts[parsed.family] += 1
    assert set(counts) == set(corpus.FAMILIES)


def test_every_series_name_in_the_naming_space_parses_back() -> None:
    """Older and newer spellings of every series name read back to one series key."""
    template = corpus._series(Random(0), corpus.naming_space()[0], corpus.NEW_DATES)
    for family, features, accel, version in corpus.naming_space():
        s = replace(template, family=family, features=features, accelerator=accel, version=version)
        old, new = parse_series(f"{s.old_name}-series"), parse_series(f"{s.new_name} sizes series")
        assert old is not None and new is not None, s.new_name
        assert old.key == new.key == series_key(s.new_name), s.new_name


def test_size_names_parse_back_with_and_without_feature_letters() -> None:
    rng = Random(1)
    for combo in corpus.naming_space()[::5]:
        s = corpus._series(rng, combo, corpus.NEW_DATES)
        for z in s.sizes:
            parsed = parse_size(z.name)
            assert parsed is not None and parsed.canonical == z.name
            assert (parsed.family, parsed.vcpus, parsed.features) == (s.family, z.vcpus, s.features)
            short = parse_size(z.short_name(s.features))
            assert short is not None and short.features == "" and short.vcpus == z.vcpus


def test_gpu_models_and_memory_agree_with_the_knowledge_tables() -> None:
    know = knowledge.load()
    for gpu in corpus.GPUS.values():
        model = know.gpu(gpu.name)
        assert model is not None, gpu.name
        assert set(gpu.memory_gib) <= {int(m) for m in model.memory_gib}
        assert [m.name for m in know.find_gpus(gpu.long_name)] == [gpu.name]


def test_partitioned_gpus_and_memory_per_vcpu_are_present(built: Path) -> None:
    text = "\n".join(p.read_text(encoding="utf-8") for p in sorted(built.glob("official-new/*.md")))
    assert re.search(r"\| Standard_\S+ \| 1/4 \| \d+ \|", text)
    assert re.search(r"\| Standard_\S+ \| 1/2 \| \d+ \|", text)
    assert re.search(r"\| [\d,]+ / [\d,]+ \|", "\n".join(p.read_text() for p in built.glob("official-old/*.md")))


def test_third_party_pages_drop_feature_letters_and_name_wrong_gpus(built: Path) -> None:
    text = "\n".join(p.read_text(encoding="utf-8") for p in sorted((built / "third-party").glob("*.txt")))
    rows = re.findall(r"^\| (\S+) +\| \d+ \| \d+ GB \| (\S+) x (\w+)", text, re.MULTILINE)
    names = [r[0].replace("\\_", "_") for r in rows]
    official = set(_official_sizes(built))
    assert any(f"Standard_{n}" in official for n in names)
    assert any(f"Standard_{n}" not in official for n in names)
    assert any(re.search(r"\| \d+ x \w+ \d+ GB \|", line) for line in text.splitlines())


# ------------------------------------------------------------------------ the pipeline reads it


def test_pipeline_reads_a_generated_corpus_end_to_end(tmp_path: Path) -> None:
    corpus.generate(30, tmp_path, seed=0)
    result, frames = compute(tmp_path)
    errors = [d for d in result.diagnostics if d.severity == "error"]
    assert errors == []
    official = _official_sizes(tmp_path)
    assert official
    rows = frames["vm_sizes"]
    assert set(official) <= set(rows["size"])
    assert (rows.set_index("size").loc[official, "status"] != "unverified").all()
    document_of = {c.claim_id: c.document for c in result.claims}
    won_over_third_party = [
        f
        for f in result.facts
        if f.status == "resolved"
        and f.document.startswith("official-")
        and any(document_of.get(c, "").startswith("third-party/") for c in f.contradicting)
    ]
    assert won_over_third_party
    kinds = dict(zip(frames["documents"]["document"], frames["documents"]["kind"], strict=True))
    assert {k for d, k in kinds.items() if d.startswith(("official-", "includes/"))} == {"official_spec"}
    assert {k for d, k in kinds.items() if d.startswith("third-party/")} == {"third_party"}


def test_command_line_writes_a_corpus(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert corpus.main(["12", str(tmp_path / "cli"), "--seed", "5"]) == 0
    assert "wrote 12 documents" in capsys.readouterr().out
    assert _files(tmp_path / "cli") == _files(_generate(tmp_path / "api", 12, 5))


def _generate(dest: Path, n: int, seed: int) -> Path:
    corpus.generate(n, dest, seed)
    return dest


def test_module_runs_as_a_script(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bench.corpus", "8", str(tmp_path / "cli"), "--seed", "1"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert len([p for p in (tmp_path / "cli").rglob("*") if p.suffix in (".md", ".txt")]) == 8
    # Another process has another string-hash seed: nothing may depend on it.
    assert _files(tmp_path / "cli") == _files(_generate(tmp_path / "api", 8, 1))
