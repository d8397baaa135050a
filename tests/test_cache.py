"""The parse cache: whole entries or none, and a damaged entry is noticed, never trusted."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.cache import MAGIC, Cache

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
