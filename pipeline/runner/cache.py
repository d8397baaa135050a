"""What a build keeps for the next one: parsed documents, and each later stage's results.

Entries are files named by a key, written to a temporary name and renamed into place, so an
interrupted build leaves whole entries or none. Each entry carries its payload's length and
CRC-32: a truncated or altered entry is detected, removed and rebuilt, never trusted. The cache
is an optimisation only; when its folder cannot be written the build goes on without it.

A `Memo` is one stage's results (a document's parse, its claims, an entity's decisions), each
under a digest of everything it was computed from (for a parse, `documents.entry_key`), kept in
a few large entries rather than one per result: a build reads it in a few reads, and an edit
rewrites only the entries it touched. Every memo and the build key are of one version of the
code (`code_fingerprint`): other code keeps other entries.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import pickle
import struct
import sys
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import metadata, resources
from pathlib import Path
from typing import Any

MAGIC = b"pipeline-cache 2\n"
_FORMATS = b"pipeline-cache "
"""How every version of the format begins: an entry of another version is stale, not damaged."""
_HEAD = struct.Struct("<QI")
"""The payload's length and CRC-32. The check is against damage (a torn write, a flipped bit, a
file put there by hand), which CRC-32 is made for, not against an adversary: at 3 GB/s it is
eight times as fast as the SHA-256 it replaced, which took 0.8 s of every rebuild's CPU at
10,000 documents to check 310 MB of memos."""


@dataclass
class CacheStats:
    """What the cache did during one build, for the CLI summary and the benchmark."""

    hits: int = 0
    misses: int = 0
    corrupt: int = 0
    write_errors: int = 0
    reused: dict[str, tuple[int, int]] = field(default_factory=dict)
    """Per memo (`parse`, `normalize`): how many results were reused, of how many."""
    lost: list[str] = field(default_factory=list)
    """Memos not saved at all, each with why (its writer's process died)."""


class Cache:
    """A folder of checksummed pickles; it only ever holds what this program wrote."""

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        self.stats = CacheStats()

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.pickle"

    def get(self, key: str) -> Any | None:
        """The stored value, or None when there is none or it is damaged (then it is removed)."""
        value = self.load(key)
        if value is None:
            self.stats.misses += 1
        else:
            self.stats.hits += 1
        return value

    def load(self, key: str) -> Any | None:
        """`get` without counting a hit or a miss: for entries that are not parsed documents."""
        path = self._path(key)
        try:
            blob = path.read_bytes()
        except OSError:
            return None
        head = len(MAGIC) + _HEAD.size
        payload = memoryview(blob)[head:]
        if not blob.startswith(MAGIC):
            # Written by another version of this code: stale. Anything else: damage.
            self._drop(path, damaged=not blob.startswith(_FORMATS))
            return None
        if len(blob) < head or _HEAD.unpack_from(blob, len(MAGIC)) != (len(payload), zlib.crc32(payload)):
            self._drop(path, damaged=True)
            return None
        try:
            return pickle.loads(payload)
        except Exception:
            # Intact (its CRC-32 holds) yet unloadable: pickled by other code, a record since
            # moved to another module or given other fields, or another Python. Stale, as an
            # entry of another format is, not damage: a memo checks its code's version only once
            # loaded, and the first build after the runner's modules were split counted every
            # memo entry as damaged.
            self._drop(path, damaged=False)
            return None

    def _drop(self, path: Path, *, damaged: bool) -> None:
        """Remove an entry that is not used, counting it in the stats when it was `damaged`
        rather than stale."""
        if damaged:
            self.stats.corrupt += 1
        with contextlib.suppress(OSError):
            path.unlink()

    def put(self, key: str, value: Any) -> None:
        if not self._store(key, pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)):
            self.stats.write_errors += 1

    def _store(self, key: str, payload: bytes) -> bool:
        """Write one entry whole or not at all; whether it was written."""
        path = self._path(key)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with open(tmp, "wb") as f:
                f.write(MAGIC + _HEAD.pack(len(payload), zlib.crc32(payload)) + payload)
            os.replace(tmp, path)
        except OSError:
            with contextlib.suppress(OSError):
                tmp.unlink()
            return False
        return True

    def memo(self, name: str, version: str) -> Memo:
        """The results `name` kept by the last build, when it ran the same code (`version`)."""
        return Memo(self, name, version)


class _Hashing:
    """A file that only hashes what is written to it."""

    def __init__(self) -> None:
        # BLAKE2b, a cryptographic hash as SHA-256 is, at twice its speed on this project's
        # machines (no SHA extensions): keys digest every claim's values (31 MB pickled: 0.30
        # -> 0.15 s). 32 bytes, as before: a key is still 64 hexadecimal digits.
        self.hash = hashlib.blake2b(digest_size=32)

    def write(self, data: bytes) -> int:
        self.hash.update(data)
        return len(data)


def digest(*values: object) -> str:
    """BLAKE2b of `values` by their pickled form, without pickle's memo (`fast`): equal values
    then give equal bytes whether or not they share objects, which unpickled ones often do not."""
    sink = _Hashing()
    pickler = pickle.Pickler(sink, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.fast = True
    for value in values:
        pickler.dump(value)
    return sink.hash.hexdigest()


MEMO_SHARDS = 64
"""Files a memo is kept in: an edit of a few documents rewrites a few of them, not all."""


class Memo:
    """One stage's results under digests of their inputs. `get` reuses a result whose inputs
    did not change; `save` keeps what this build used or computed, so the memo never outgrows
    the corpus, and the whole memo is dropped when the code that computed it changed."""

    def __init__(self, cache: Cache, name: str, version: str) -> None:
        self.cache = cache
        self.name = name
        self.version = version
        self._stored: list[dict[str, Any] | None] = []
        for shard in range(MEMO_SHARDS):
            stored = cache.load(self._entry(shard))
            if isinstance(stored, tuple) and len(stored) == 2 and stored[0] == version and isinstance(stored[1], dict):
                self._stored.append(stored[1])
            else:  # none yet, damaged, or computed by other code
                self._stored.append(None)
        self._kept: list[dict[str, Any]] = [{} for _ in range(MEMO_SHARDS)]
        self._replaced: set[int] = set()
        self.hits = self.misses = 0
        self.pack: Callable[[dict[str, Any]], dict[str, Any]] | None = None
        """What the stage makes of a shard's entries before they are written, if anything (the
        same keys): the normalize memo keeps a shard's claims in one pickle of their own."""

    def _entry(self, shard: int) -> str:
        return f"memo-{self.name}-{shard:02d}"

    @staticmethod
    def _shard(key: str) -> int:
        return zlib.crc32(key.encode()) % MEMO_SHARDS

    def get(self, key: str) -> Any | None:
        shard = self._shard(key)
        stored = self._stored[shard]
        if stored is not None and key in stored:
            self.hits += 1
            value = self._kept[shard][key] = stored[key]
            return value
        self.misses += 1
        return None

    def stored(self) -> bool:
        """Whether the last build left results here (none after a change of code)."""
        return any(self._stored)

    def put(self, key: str, value: Any) -> None:
        shard = self._shard(key)
        stored = self._stored[shard]
        if stored is not None and key in stored and stored[key] is not value:
            self._replaced.add(shard)  # same key, new value: written though the keys are the same
        self._kept[shard][key] = value

    def save(self) -> None:
        """Count what was reused, and write what changed (`write`)."""
        self.count()
        self.cache.stats.write_errors += self.write()

    def count(self) -> None:
        """Record in the cache's stats how many results this build reused."""
        self.cache.stats.reused[self.name] = (self.hits, self.hits + self.misses)

    def release(self) -> None:
        """Let go of every result held: once `write` runs in a forked process (which has its own
        copy), the build needs none of them, and some (an entity's decisions before the last
        touches) are held by nothing else."""
        self._stored = [None] * MEMO_SHARDS
        self._kept = [{} for _ in range(MEMO_SHARDS)]

    def write(self) -> int:
        """Write each shard whose entries differ from the stored ones (by key: a key is a digest
        of the inputs, so the same key always holds the same value); the writes that failed.

        Only writes files, and changes nothing a caller reads: the runner calls it in a forked
        process beside the build."""
        failed = 0
        for shard, (stored, kept) in enumerate(zip(self._stored, self._kept, strict=True)):
            if (
                (stored is None and kept)
                or (stored is not None and stored.keys() != kept.keys())
                or shard in self._replaced
            ):
                packed = self.pack(kept) if self.pack is not None else kept
                payload = pickle.dumps((self.version, packed), protocol=pickle.HIGHEST_PROTOCOL)
                failed += not self.cache._store(self._entry(shard), payload)
        return failed


SHAPING_DISTRIBUTIONS = (
    "markdown-it-py",
    "markdown-it-pyrs",
    "mdit-py-plugins",
    "PyYAML",
    "ftfy",
    "pandas",
    "pyarrow",
    "pandera",
)
"""Libraries whose version can change what a build writes (a parse, a CSV's bytes)."""


@functools.lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """SHA-256 of the pipeline's own code and knowledge tables, the Python version and the versions
    of the libraries that shape the output: any change there invalidates the cache and the build key."""
    digest = hashlib.sha256()
    digest.update(sys.version.encode())
    for name in SHAPING_DISTRIBUTIONS:
        try:
            digest.update(f"{name}=={metadata.version(name)}\n".encode())
        except metadata.PackageNotFoundError:
            digest.update(f"{name} missing\n".encode())
    root = Path(str(resources.files("pipeline")))
    for path in sorted(p for p in root.rglob("*") if p.suffix in (".py", ".toml") and "__pycache__" not in p.parts):
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()
