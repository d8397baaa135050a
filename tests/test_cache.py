"""The parse cache: whole entries or none, and a damaged entry is noticed, never trusted."""

from __future__ import annotations

import pickle
import struct
import sys
import types
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest

from pipeline.runner.cache import MAGIC, MEMO_SHARDS, Cache, digest

KEY = "ab" + "0" * 62


def test_a_stored_value_comes_back(tmp_path: Path) -> None:
    cache = Cache(tmp_path)
    cache.put(KEY, {"claims": (1, 2, 3)})
    assert Cache(tmp_path).get(KEY) == {"claims": (1, 2, 3)}
    assert (tmp_path / "ab" / f"{KEY}.pickle").read_bytes().startswith(MAGIC)


def test_a_missing_entry_is_a_miss(tmp_path: Path) -> None:
    cache = Cache(tmp_path)
    assert cache.get(KEY) is None
    assert (cache.stats.hits, cache.stats.misses, cache.stats.corrupt) == (0, 1, 0)


@pytest.mark.parametrize(
    ("damage", "why"),
    [
        (lambda blob: blob[:-1] + bytes([blob[-1] ^ 1]), "one bit flipped in the payload"),
        (lambda blob: blob[: len(blob) // 2], "truncated mid-write by a crash"),
        (lambda blob: b"", "empty file"),
        (lambda blob: b"not a cache entry at all", "foreign file"),
    ],
)
def test_a_damaged_entry_is_detected_and_removed(tmp_path: Path, damage: object, why: str) -> None:
    Cache(tmp_path).put(KEY, list(range(100)))
    entry = tmp_path / "ab" / f"{KEY}.pickle"
    entry.write_bytes(damage(entry.read_bytes()))  # type: ignore[operator]
    cache = Cache(tmp_path)
    assert cache.get(KEY) is None, why
    assert cache.stats.corrupt == 1
    assert not entry.exists()


def test_an_entry_of_another_format_is_stale_not_damaged(tmp_path: Path) -> None:
    """What an earlier version of the code wrote (there, a SHA-256 where the length and CRC-32
    are now) is a miss, removed, and not counted as damage."""
    entry = tmp_path / "ab" / f"{KEY}.pickle"
    entry.parent.mkdir()
    entry.write_bytes(b"pipeline-cache 1\n" + bytes(32) + b"payload")
    cache = Cache(tmp_path)
    assert cache.get(KEY) is None
    assert (cache.stats.misses, cache.stats.corrupt) == (1, 0)
    assert not entry.exists()


def test_an_entry_holds_its_payload_length_and_crc32(tmp_path: Path) -> None:
    Cache(tmp_path).put(KEY, "x")
    blob = (tmp_path / "ab" / f"{KEY}.pickle").read_bytes()
    payload = blob[len(MAGIC) + 12 :]
    assert blob[len(MAGIC) : len(MAGIC) + 12] == struct.pack("<QI", len(payload), zlib.crc32(payload))
    assert pickle.loads(payload) == "x"


def test_an_unwritable_cache_does_not_stop_the_build(tmp_path: Path) -> None:
    blocker = tmp_path / "cache"
    blocker.write_text("a file where the cache folder should be")
    cache = Cache(blocker)
    cache.put(KEY, 1)
    assert cache.stats.write_errors == 1
    assert cache.get(KEY) is None


def test_no_temporary_file_is_left_behind(tmp_path: Path) -> None:
    Cache(tmp_path).put(KEY, "x")
    assert [p.name for p in (tmp_path / "ab").iterdir()] == [f"{KEY}.pickle"]


# ------------------------------------------------------------------------------- memos

VERSION = "code-1"


def test_a_memo_gives_back_what_the_last_build_put(tmp_path: Path) -> None:
    memo = Cache(tmp_path).memo("normalize", VERSION)
    assert memo.get("doc-a") is None
    memo.put("doc-a", ("claims of a",))
    memo.save()
    again = Cache(tmp_path).memo("normalize", VERSION)
    assert again.get("doc-a") == ("claims of a",)
    assert (again.hits, again.misses) == (1, 0)


def test_a_memo_keeps_only_what_the_last_build_used(tmp_path: Path) -> None:
    first = Cache(tmp_path).memo("reconcile", VERSION)
    first.put("kept", 1)
    first.put("dropped", 2)
    first.save()
    second = Cache(tmp_path).memo("reconcile", VERSION)
    assert second.get("kept") == 1
    second.put("new", 3)
    second.save()
    third = Cache(tmp_path).memo("reconcile", VERSION)
    assert [third.get(k) for k in ("kept", "dropped", "new")] == [1, None, 3]


class _Record:
    """A record as other code pickled it: its class, then its two fields."""

    def __init__(self, a: int, b: int) -> None:
        self.fields = (a, b)

    def __reduce__(self) -> tuple[type, tuple[int, int]]:
        return (type(self), self.fields)


@pytest.mark.parametrize(
    ("module", "now"),
    [
        ("pipeline.runner.cache", None),  # moved to another module: AttributeError
        ("pipeline.runner.gone", None),  # its module gone: ImportError
        ("pipeline.runner.cache", lambda a: None),  # its fields changed: TypeError
    ],
    ids=["its class moved", "its module gone", "its fields changed"],
)
def test_an_entry_other_code_pickled_is_stale_not_damaged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, module: str, now: Callable[..., None] | None
) -> None:
    """An intact entry (its CRC-32 holds) that this code cannot load was pickled by other code: a
    record since moved, or its module gone, or its fields changed. A miss, removed, and not
    counted as damage (the first build after such a change said "128 damaged entries rebuilt")."""
    record = type("_Record", (_Record,), {"__module__": module, "__qualname__": "_Record"})
    with monkeypatch.context() as m:
        m.setitem(sys.modules, module, sys.modules.get(module) or types.ModuleType(module))
        m.setattr(sys.modules[module], "_Record", record, raising=False)
        Cache(tmp_path).put(KEY, record(1, 2))
    if now is not None:
        monkeypatch.setattr(sys.modules[module], "_Record", type("_Record", (), {"__init__": now}), raising=False)
    cache = Cache(tmp_path)
    assert cache.get(KEY) is None
    assert (cache.stats.misses, cache.stats.corrupt) == (1, 0)
    assert not (tmp_path / "ab" / f"{KEY}.pickle").exists()


def test_a_memo_of_other_code_is_not_used(tmp_path: Path) -> None:
    memo = Cache(tmp_path).memo("normalize", VERSION)
    memo.put("doc-a", 1)
    memo.save()
    assert Cache(tmp_path).memo("normalize", "code-2").get("doc-a") is None


def test_a_damaged_memo_is_an_empty_one(tmp_path: Path) -> None:
    memo = Cache(tmp_path).memo("normalize", VERSION)
    memo.put("doc-a", list(range(1000)))
    memo.save()
    entry = max(tmp_path.glob("*/memo-normalize-*.pickle"), key=lambda p: p.stat().st_size)
    entry.write_bytes(entry.read_bytes()[:-10])
    cache = Cache(tmp_path)
    assert cache.memo("normalize", VERSION).get("doc-a") is None
    assert cache.stats.corrupt == 1 and not entry.exists()


def test_a_memo_rewrites_only_the_files_whose_entries_changed(tmp_path: Path) -> None:
    memo = Cache(tmp_path).memo("normalize", VERSION)
    for i in range(500):
        memo.put(f"doc-{i}", i)
    memo.save()
    files = {p: p.stat().st_ino for p in tmp_path.glob("*/memo-normalize-*.pickle")}
    assert len(files) == MEMO_SHARDS
    again = Cache(tmp_path).memo("normalize", VERSION)
    for i in range(500):
        assert again.get(f"doc-{i}") == i
    again.put("doc-500", 500)
    again.save()
    rewritten = [p for p, inode in files.items() if p.stat().st_ino != inode]
    assert len(rewritten) == 1
    assert Cache(tmp_path).memo("normalize", VERSION).get("doc-500") == 500


def test_memo_reads_are_not_counted_as_parsed_documents(tmp_path: Path) -> None:
    cache = Cache(tmp_path)
    memo = cache.memo("normalize", VERSION)
    memo.get("doc-a")
    memo.put("doc-a", 1)
    memo.save()
    assert (cache.stats.hits, cache.stats.misses) == (0, 0)
    assert cache.stats.reused == {"normalize": (0, 1)}


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        (("x" * 3, "x" * 3), ("xxx", "".join(["x", "xx"])), True),  # shared objects or not
        ([1.0, None], [1.0, None], True),
        ([1.0], [1], False),  # 1.0 and 1 are different values, though equal in Python
        ({"a": 1, "b": 2}, {"b": 2, "a": 1}, False),  # dicts digest in their order: callers sort
    ],
)
def test_a_digest_depends_on_values_only(a: object, b: object, same: bool) -> None:
    assert (digest(a) == digest(b)) is same


def test_writing_a_memo_changes_nothing_the_build_reads_and_says_what_failed(tmp_path: Path) -> None:
    """`write` runs in a forked process beside the build: its count of failed writes is all
    the build learns of it, and the memo's own counts were taken before (`count`)."""
    memo = Cache(tmp_path).memo("reconcile", VERSION)
    memo.put("entity-a", 1)
    memo.count()
    assert memo.cache.stats.reused == {"reconcile": (0, 0)}
    assert memo.write() == 0
    assert Cache(tmp_path).memo("reconcile", VERSION).get("entity-a") == 1
    blocker = tmp_path / "blocked"
    blocker.write_text("a file where the cache folder should be")
    blocked = Cache(blocker).memo("reconcile", VERSION)
    blocked.put("entity-a", 1)
    assert blocked.write() == 1, "the one shard that holds the one entry (an empty one is not written)"
    assert blocked.cache.stats.write_errors == 0, "write() leaves the counting to its caller"
    blocked.save()
    assert blocked.cache.stats.write_errors == 1


def test_a_build_in_a_process_of_another_hash_seed_reuses_what_the_last_one_kept(tmp_path: Path) -> None:
    # Each build is a process of its own, and each process has its own string-hash seed: a memo
    # key that pickled a set (the knowledge's pattern attributes did once) missed every time.
    import os
    import shutil
    import subprocess

    root = Path(__file__).resolve().parents[1]
    sources = tmp_path / "sources"
    shutil.copytree(root / "sources", sources)

    def build(seed: str) -> str:
        env = {**os.environ, "PYTHONHASHSEED": seed}
        command = [sys.executable, "-m", "pipeline", "build", "--sources", str(sources), "--out", str(tmp_path / "out")]
        done = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True, check=False)
        assert done.returncode == 0, done.stderr
        return done.stdout

    first = build("1")
    documents = int(first.split("documents: ")[1].split()[0])
    page = sources / "azure-docs/azure-docs/articles/virtual-machines/ndv2-series.md"
    text = page.read_text(encoding="utf-8")
    row = "| Standard_ND40rs_v2 | 40 | 672 |"
    assert row in text
    page.write_text(text.replace(row, row.replace("672", "673")), encoding="utf-8")
    again = build("2")
    assert f"parse cache: {documents - 1} unchanged document(s) reused, 1 parsed" in again
    assert f"normalize: {documents - 1} of {documents} documents' claims reused" in again
    # And the decisions of the buckets whose inputs the edit did not touch (the shipped sources
    # have a value off its series' pattern, which each bucket's key reads).
    decided = next(line for line in again.splitlines() if line.startswith("reconcile: "))
    assert int(decided.split()[1]) > 0, decided
