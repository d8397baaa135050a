"""Parsing once: a cached or parallel parse is exactly what a fresh, serial parse gives."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from pipeline.runner import Settings, compute, documents
from pipeline.runner import settings as runner_settings
from pipeline.runner.cache import MEMO_SHARDS, Cache
from pipeline.runner.documents import Input, entry_key, parse_all, survey, with_statements
from pipeline.runner.pool import beside, helpers_watched
from pipeline.stages.read import Limits

SOURCES = Path(__file__).resolve().parent.parent / "sources"


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    """The shipped seeds and Microsoft Learn pages: real documents of every shape."""
    dest = tmp_path / "sources"
    shutil.copytree(SOURCES, dest)
    return dest


def _parse(root: Path, cache: Cache | None = None, workers: int = 1) -> list[documents.Parsed]:
    """Each document's parse, its statements loaded where the cache kept them apart."""
    inputs, _ = survey(root, Limits())
    return [_whole(p) for p in parse_all(inputs, Settings(workers=workers), cache)]


def _whole(parsed: documents.Parsed) -> documents.Parsed:
    if parsed.extraction is None or parsed.statements is None:
        return parsed
    loaded = with_statements(parsed.extraction, {parsed.path: parsed.statements})
    return replace(parsed, extraction=loaded, statements=None)


def test_a_cached_parse_equals_a_fresh_one(corpus: Path, tmp_path: Path) -> None:
    fresh = _parse(corpus)
    cache = Cache(tmp_path / "cache")
    first = _parse(corpus, cache)
    assert (cache.stats.hits, cache.stats.misses) == (0, len(fresh))
    second = _parse(corpus, Cache(tmp_path / "cache"))
    assert first == fresh and second == fresh
    nd = next(p for p in second if p.path.endswith("gpu-accelerated/nd-series.md"))
    assert nd.extraction is not None and any(
        (s.subject, s.column, s.raw_text, s.line) == ("Standard_ND24rs", "Memory (GB)", "448", 38)
        for s in nd.extraction.statements
    )


def test_a_cached_parse_keeps_its_statements_apart_until_they_are_needed(corpus: Path, tmp_path: Path) -> None:
    """A build normalizes again only the documents whose claims its memo does not hold, and only
    they need their statements: the others come without them, pickled beside (loading all of
    them was most of loading the parse memo). What finding copies and the shared context read
    of a document comes with it."""
    inputs, _ = survey(corpus, Limits())
    list(parse_all(inputs, Settings(), Cache(tmp_path / "cache")))
    [nd] = [
        p
        for p in parse_all(inputs, Settings(), Cache(tmp_path / "cache"))
        if p.path.endswith("gpu-accelerated/nd-series.md")
    ]
    assert nd.extraction is not None and nd.extraction.statements == () and nd.statements is not None
    assert nd.contribution is not None and len(nd.cells) > 0
    statements = with_statements(nd.extraction, {nd.path: nd.statements}).statements
    assert ("Standard_ND24rs", "Memory (GB)", "448", 38) in [
        (s.subject, s.column, s.raw_text, s.line) for s in statements
    ]
    [fresh] = [p for p in parse_all(inputs, Settings()) if p.path == nd.path]
    assert fresh.extraction is not None and fresh.extraction.statements == statements and fresh.statements is None
    assert fresh.cells == nd.cells


def test_only_the_changed_document_is_parsed_again(corpus: Path, tmp_path: Path) -> None:
    _parse(corpus, Cache(tmp_path / "cache"))
    page = corpus / "seeds" / "seed-ndv2-series-2020.txt"
    page.write_text(page.read_text().replace("672", "673", 1))
    cache = Cache(tmp_path / "cache")
    parsed = _parse(corpus, cache)
    assert cache.stats.misses == 1 and cache.stats.hits == len(parsed) - 1
    assert parsed == _parse(corpus)


def test_parsing_in_worker_processes_gives_the_same_documents_in_the_same_order(
    corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(runner_settings, "MIN_PARALLEL", 1)
    assert _parse(corpus, workers=2) == _parse(corpus, workers=1)


@pytest.mark.parametrize(("least", "forked"), [(1, ["parse workers"]), (64, [])])
def test_the_parse_forks_its_workers_where_the_settings_say_a_fork_pays(
    least: int, forked: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Five documents to parse: workers are forked when the build's own threshold
    (`settings.MIN_PARALLEL`) is at most that, else they are parsed here."""
    monkeypatch.setattr(runner_settings, "MIN_PARALLEL", least)
    with helpers_watched() as helpers:
        compute(SOURCES / "seeds", Settings(workers=2))
    assert [what for what, _, _ in helpers if what == "parse workers"] == forked


def test_the_parse_workers_say_their_own_peak_not_an_earlier_childs(
    corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The parse workers' peak memory is the largest worker's own, which each says as it exits;
    their CPU is what the children waited for while the pool ran. What `wait4` keeps of the
    children is the largest of all this process ever waited for: in a process that built before,
    a larger earlier child (here one that held 300 MB more) would be named as the workers'."""
    monkeypatch.setattr(runner_settings, "MIN_PARALLEL", 1)
    with beside(lambda: len(b"x" * 300_000_000), parallel=True) as large:
        pass
    assert large.peak is not None and large.result() == 300_000_000
    with helpers_watched() as helpers:
        _parse(corpus, workers=2)
    [(what, peak, cpu)] = helpers
    assert what == "parse workers" and cpu > 0.05
    assert 10 * 2**20 < peak < large.peak - 200_000_000, "a worker holds its parent's pages and a parse, not 300 MB"


def test_a_corrupt_entry_is_parsed_again(corpus: Path, tmp_path: Path) -> None:
    """The parses are kept in a few checksummed files: a damaged one costs the parses it held."""
    _parse(corpus, Cache(tmp_path / "cache"))
    entry = max((tmp_path / "cache").rglob("memo-parse-*.pickle"), key=lambda p: p.stat().st_size)
    entry.write_bytes(entry.read_bytes()[:-10])
    cache = Cache(tmp_path / "cache")
    assert _parse(corpus, cache) == _parse(corpus)
    assert cache.stats.corrupt == 1 and 1 <= cache.stats.misses < len(_parse(corpus)) // 4
    again = Cache(tmp_path / "cache")
    _parse(corpus, again)
    assert (again.stats.corrupt, again.stats.misses) == (0, 0), "the damaged file was written anew"


@pytest.mark.parametrize(
    ("change", "why"),
    [
        (lambda i: Input(i.path, (i.data or b"") + b"\n", i.diagnostics), "the document's bytes"),
        (lambda i: Input("elsewhere/" + i.path, i.data, i.diagnostics), "its path (line of diagnostics)"),
    ],
)
def test_the_key_covers_what_the_parse_depends_on(change: object, why: str) -> None:
    item = Input("a/page.md", b"# ND series\n", ())
    assert entry_key(change(item), Limits()) != entry_key(item, Limits()), why  # type: ignore[operator]
    assert entry_key(item, Limits(max_table_rows=10)) != entry_key(item, Limits()), "the limits"


def test_without_a_cache_no_input_is_hashed_for_a_key(corpus: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A parse key hashes the input's bytes: a build that keeps no memo has no use for one."""
    inputs, _ = survey(corpus, Limits())
    monkeypatch.setattr(documents, "entry_key", lambda *_: pytest.fail("a key was made"))
    assert [p.path for p in parse_all(inputs, Settings())] == [i.path for i in inputs]


def test_the_key_covers_the_code(monkeypatch: pytest.MonkeyPatch) -> None:
    item = Input("a/page.md", b"# ND series\n", ())
    before = entry_key(item, Limits())
    monkeypatch.setattr(documents, "code_fingerprint", lambda: "another version of the pipeline")
    assert entry_key(item, Limits()) != before


def test_a_build_from_the_cache_has_the_same_tables(corpus: Path, tmp_path: Path) -> None:
    _, cold = compute(corpus, Settings(), cache=Cache(tmp_path / "cache"))
    cache = Cache(tmp_path / "cache")
    _, warm = compute(corpus, Settings(), cache=cache)
    assert cache.stats.hits > 20 and cache.stats.misses == 0
    for name, frame in cold.items():
        assert frame.equals(warm[name]), name


def test_the_parses_of_worker_processes_are_kept_for_the_next_build_in_a_few_files(
    corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each worker pickles its parse for the trip back; those bytes are what the cache keeps,
    in MEMO_SHARDS files rather than one per document (creating a small file can cost more than
    the parse)."""
    monkeypatch.setattr(runner_settings, "MIN_PARALLEL", 1)
    first = Cache(tmp_path / "cache")
    fresh = _parse(corpus, first, workers=2)
    assert (first.stats.misses, first.stats.write_errors) == (len(fresh), 0)
    files = list((tmp_path / "cache").rglob("*.pickle"))
    assert len(files) <= MEMO_SHARDS < len(fresh) and all(f.name.startswith("memo-parse-") for f in files)
    again = Cache(tmp_path / "cache")
    assert _parse(corpus, again, workers=2) == fresh
    assert (again.stats.hits, again.stats.misses) == (len(fresh), 0)
