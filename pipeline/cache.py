"""Parsed documents kept between builds, so an unchanged document is never parsed twice.

Entries are files named by a content key (see `parse.entry_key`), written to a temporary
name and renamed into place, so an interrupted build leaves whole entries or none. Each
entry carries a checksum of its payload: a truncated or altered entry is detected, removed
and rebuilt, never trusted. The cache is an optimisation only; when its folder cannot be
written the build goes on without it.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MAGIC = b"pipeline-cache 1\n"
_DIGEST = 32


@dataclass
class CacheStats:
    """What the cache did during one build, for the CLI summary and the benchmark."""

    hits: int = 0
    misses: int = 0
    corrupt: int = 0
    write_errors: int = 0


class Cache:
    """A folder of checksummed pickles; it only ever holds what this program wrote."""

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        self.stats = CacheStats()

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.pickle"

    def get(self, key: str) -> Any | None:
        """The stored value, or None when there is none or it is damaged (then it is removed)."""
        path = self._path(key)
        try:
            blob = path.read_bytes()
        except OSError:
            self.stats.misses += 1
            return None
        head = len(MAGIC) + _DIGEST
        payload = blob[head:]
        if blob[: len(MAGIC)] != MAGIC or blob[len(MAGIC) : head] != hashlib.sha256(payload).digest():
            self._corrupt(path)
            return None
        try:
            value = pickle.loads(payload)
        except Exception:  # checksummed yet unloadable (another Python, say): damage, not a bug
            self._corrupt(path)
            return None
        self.stats.hits += 1
        return value

    def _corrupt(self, path: Path) -> None:
        self.stats.corrupt += 1
        self.stats.misses += 1
        with contextlib.suppress(OSError):
            path.unlink()

    def put(self, key: str, value: Any) -> None:
        self.put_pickled(key, pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))

    def put_pickled(self, key: str, payload: bytes) -> None:
        """Store a value already pickled (by a worker process, which had to pickle it anyway)."""
        path = self._path(key)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with open(tmp, "wb") as f:
                f.write(MAGIC + hashlib.sha256(payload).digest() + payload)
            os.replace(tmp, path)
        except OSError:
            self.stats.write_errors += 1
            with contextlib.suppress(OSError):
                tmp.unlink()
