"""Read and extract every document once: from the cache when unchanged, in parallel when it pays.

What `read` and `extract` make of a document depends only on its bytes, its path, the
limits and the code and knowledge tables that read it. Includes are not inlined (the
builder checks them across documents), so an include's content is not part of the key.
That makes the key of `entry_key` complete: a cached entry is exactly what a fresh parse
would give.
"""

from __future__ import annotations

import functools
import hashlib
import multiprocessing
import pickle
import sys
from collections.abc import Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from importlib import metadata, resources
from pathlib import Path

from pipeline import knowledge
from pipeline.records import Diagnostic, Document, Extraction, compact
from pipeline.runner.cache import Cache
from pipeline.runner.pool import cores
from pipeline.stages.extract import extract
from pipeline.stages.read import Limits, discover, load_bytes, parse_bytes

MIN_PARALLEL = 64
"""Below this many documents to parse, starting worker processes costs more than it saves."""


@dataclass(frozen=True, slots=True)
class Input:
    """One file under the sources folder, as bytes: what the cache key and the parse start from."""

    path: str
    data: bytes | None
    diagnostics: tuple[Diagnostic, ...]

    @property
    def sha256(self) -> str | None:
        return hashlib.sha256(self.data).hexdigest() if self.data is not None else None


@compact
@dataclass(frozen=True, slots=True)
class Parsed:
    """A document read and extracted; `extraction` is None when the markdown could not be walked."""

    path: str
    document: Document | None
    extraction: Extraction | None
    diagnostics: tuple[Diagnostic, ...]


def survey(root: Path, limits: Limits) -> tuple[list[Input], list[Diagnostic]]:
    """Every document file's bytes, in sorted path order, and what discovery found wrong."""
    paths, diagnostics = discover(root)
    inputs = []
    for path in paths:
        rel, data, diags = load_bytes(path, root, limits)
        inputs.append(Input(rel, data, tuple(diags)))
    return inputs, diagnostics


SHAPING_DISTRIBUTIONS = ("markdown-it-py", "mdit-py-plugins", "PyYAML", "ftfy", "pandas", "pyarrow", "pandera")
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


def entry_key(item: Input, limits: Limits) -> str:
    assert item.data is not None, "only readable inputs are cached"
    digest = hashlib.sha256()
    for part in (code_fingerprint(), repr(limits), item.path):
        digest.update(part.encode())
        digest.update(b"\0")
    digest.update(item.data)
    return digest.hexdigest()


def parse_one(path: str, data: bytes, limits: Limits) -> Parsed:
    """Read and extract one document; never raises on bad input."""
    doc, diags = parse_bytes(path, data, limits)
    if doc is None:
        return Parsed(path, None, None, tuple(diags))
    try:
        ex = extract(doc, knowledge.load(), limits)
    except RecursionError:
        diags.append(
            Diagnostic("error", "markdown-too-deep", path, None, "markdown nests too deeply to parse; document skipped")
        )
        return Parsed(path, doc, None, tuple(diags))
    return Parsed(path, doc, ex, tuple(diags))


def _parse_job(job: tuple[str, bytes, Limits, Path | None, str]) -> tuple[bytes, int]:
    """In a worker: the parse, pickled once here for both the trip back and the cache entry,
    which the worker writes itself (the main process has only to load what comes back), and
    how many cache writes failed."""
    path, data, limits, folder, key = job
    payload = pickle.dumps(parse_one(path, data, limits), protocol=pickle.HIGHEST_PROTOCOL)
    if folder is None:
        return payload, 0
    cache = Cache(folder)
    cache.put_pickled(key, payload)
    return payload, cache.stats.write_errors


def parse_all(
    inputs: Iterable[Input],
    limits: Limits,
    cache: Cache | None = None,
    workers: int | None = None,
) -> Iterator[Parsed]:
    """Each input parsed, in input order. Cache hits are loaded here; misses are parsed in
    `workers` processes (default: one per core) when there are at least MIN_PARALLEL of them."""
    items = list(inputs)
    done: dict[int, Parsed] = {}
    todo: list[tuple[int, str]] = []
    for i, item in enumerate(items):
        if item.data is None:
            done[i] = Parsed(item.path, None, None, item.diagnostics)
            continue
        key = entry_key(item, limits)
        hit = cache.get(key) if cache else None
        if isinstance(hit, Parsed) and hit.path == item.path:
            done[i] = hit
        else:
            todo.append((i, key))
    folder = cache.folder if cache else None
    jobs = [(items[i].path, items[i].data or b"", limits, folder, key) for i, key in todo]
    count = cores(workers)
    fresh: Iterator[Parsed | tuple[bytes, int]]
    pool: ProcessPoolExecutor | None = None
    if count > 1 and len(jobs) >= MIN_PARALLEL:
        # fork: workers inherit the loaded code and knowledge tables, and a caller's script
        # without a __main__ guard is not run again in each worker (as spawn would).
        context = multiprocessing.get_context("fork")
        pool = ProcessPoolExecutor(count, mp_context=context)
        fresh = pool.map(_parse_job, jobs, chunksize=max(1, min(64, len(jobs) // (count * 8))))
    else:
        fresh = (parse_one(path, data, limits) for path, data, limits, _, _ in jobs)
    try:
        pending = iter(todo)
        for i in range(len(items)):
            if i not in done:
                _, key = next(pending)
                result = next(fresh)
                if isinstance(result, tuple):  # from a worker, which wrote the cache entry
                    payload, write_errors = result
                    if cache:
                        cache.stats.write_errors += write_errors
                    result = pickle.loads(payload)
                elif cache:
                    cache.put(key, result)
                done[i] = result
            yield done.pop(i)
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
