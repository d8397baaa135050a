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
import os
import pickle
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from importlib import metadata, resources
from pathlib import Path

from pipeline import knowledge
from pipeline.records import Diagnostic, Document, Extraction, compact
from pipeline.runner.cache import Cache, Memo
from pipeline.runner.pool import cores, ended_children, watched, worker_started
from pipeline.stages.copies import table_cells
from pipeline.stages.extract import extract
from pipeline.stages.normalize import Contribution, contribution
from pipeline.stages.read import Limits, listing, load_bytes, parse_bytes

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
    contribution: Contribution | None = None
    """What the extraction adds to normalize's shared context, made on the worker's core and
    kept with the parse: a build joins these rather than read every statement again."""
    cells: bytes = b""
    """Its table cells as finding copies compares them (`copies.table_cells`), made likewise."""
    statements: bytes | None = None
    """The extraction's statements, pickled, where the parse memo gave the extraction without
    them (`with_statements`): a build needs the statements of only the documents it normalizes
    again, and loading all of them was most of loading the memo (0.7 of 0.8 s at 10,000)."""


def survey(root: Path, limits: Limits) -> tuple[list[Input], list[Diagnostic]]:
    """Every document file's bytes, in sorted path order, and what discovery found wrong."""
    found, diagnostics = listing(root)
    inputs = []
    for rel, path in found:
        rel, data, diags = load_bytes(path, root, limits, rel)
        inputs.append(Input(rel, data, tuple(diags)))
    return inputs, diagnostics


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
    return Parsed(path, doc, ex, tuple(diags), contribution(ex, knowledge.load()), table_cells(ex))


def _parse_job(job: tuple[str, bytes, Limits]) -> Packed:
    """In a worker: the parse, pickled once here, for both the trip back and the cache."""
    return _packed(parse_one(*job))


Packed = tuple[bytes, bytes]
"""A parse as the memo keeps it (`_packed`)."""


def _packed(parsed: Parsed) -> Packed:
    """The parse without its statements, and its statements, each pickled: a build loads the
    statements of a document only where it normalizes the document again."""
    ex = parsed.extraction
    if ex is None:
        return pickle.dumps(parsed, protocol=pickle.HIGHEST_PROTOCOL), b""
    light = replace(parsed, extraction=replace(ex, statements=()))
    return (
        pickle.dumps(light, protocol=pickle.HIGHEST_PROTOCOL),
        pickle.dumps(ex.statements, protocol=pickle.HIGHEST_PROTOCOL),
    )


def _unpacked(packed: Packed, whole: bool) -> Parsed:
    """`_packed`'s parse, its statements loaded (`whole`) or kept pickled (`Parsed.statements`)."""
    light, statements = packed
    parsed: Parsed = pickle.loads(light)
    if parsed.extraction is None:
        return parsed
    if whole:
        return replace(parsed, extraction=with_statements(parsed.extraction, {parsed.path: statements}))
    return replace(parsed, statements=statements)


def with_statements(ex: Extraction, statements: Mapping[str, bytes]) -> Extraction:
    """`ex` with its statements, where the parse memo kept them apart (`statements`, by path)."""
    kept = statements.get(ex.document.path)
    return ex if kept is None else replace(ex, statements=pickle.loads(kept))


PARSE_MEMO = "parse"
"""The cache's memo of parsed documents: a few large files, not one per document, which on
some file systems cost a millisecond each to create, more than most parses take."""


def parse_all(
    inputs: Iterable[Input],
    limits: Limits,
    cache: Cache | None = None,
    workers: int | None = None,
    *,
    keep: Callable[[Memo], None] | None = None,
    keys: Mapping[str, str] | None = None,
) -> Iterator[Parsed]:
    """Each input parsed, in input order. Cache hits are loaded here; misses are parsed in
    `workers` processes (default: one per core) when there are at least MIN_PARALLEL of them.
    Once the last is yielded, the cache's memo of parses is saved, or handed to `keep` (the
    runner saves it beside the rest of the build). `keys` are the inputs' `entry_key`s where
    the caller has them already."""
    items = list(inputs)
    readable = any(item.data is not None for item in items)
    memo = cache.memo(PARSE_MEMO, code_fingerprint()) if cache and readable else None
    done: dict[int, Parsed] = {}
    todo: list[tuple[int, str]] = []
    for i, item in enumerate(items):
        if item.data is None:
            done[i] = Parsed(item.path, None, None, item.diagnostics)
            continue
        key = keys[item.path] if keys and item.path in keys else entry_key(item, limits)
        hit = _loaded(memo.get(key)) if memo else None
        if isinstance(hit, Parsed) and hit.path == item.path:
            done[i] = hit
        else:
            todo.append((i, key))
        if cache:
            if i in done:
                cache.stats.hits += 1
            else:
                cache.stats.misses += 1
    jobs = [(items[i].path, items[i].data or b"", limits) for i, _ in todo]
    count = cores(workers)
    fresh: Iterator[Parsed | Packed]
    pool: ProcessPoolExecutor | None = None
    before = ended_children()
    if count > 1 and len(jobs) >= MIN_PARALLEL:
        # fork: workers inherit the loaded code and knowledge tables, and a caller's script
        # without a __main__ guard is not run again in each worker (as spawn would).
        context = multiprocessing.get_context("fork")
        peak = context.Value("q", 0)  # the largest worker's peak memory, which each says as it exits
        pool = ProcessPoolExecutor(count, mp_context=context, initializer=worker_started, initargs=(os.getpid(), peak))
        fresh = pool.map(_parse_job, jobs, chunksize=max(1, min(64, len(jobs) // (count * 8))))
    else:
        fresh = (parse_one(*job) for job in jobs)
    try:
        pending = iter(todo)
        for i in range(len(items)):
            if i not in done:
                _, key = next(pending)
                result = next(fresh)
                if isinstance(result, tuple):  # from a worker
                    packed, result = result, _unpacked(result, whole=True)
                    if memo:
                        memo.put(key, packed)
                elif memo:
                    memo.put(key, _packed(result))
                done[i] = result
            yield done.pop(i)
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)  # waits for the workers: their CPU is counted
            # No other process of the build ends while the pool runs: what ended is the workers.
            watched("parse workers", peak.value, ended_children() - before)
    if memo and keep:
        keep(memo)
    elif memo:
        memo.save()


def _loaded(payload: object) -> object:
    """A parse the memo kept (`_packed`, as its worker sent it), its statements still pickled;
    None where it does not load."""
    if not (isinstance(payload, tuple) and len(payload) == 2 and all(isinstance(p, bytes) for p in payload)):
        return None
    try:
        return _unpacked(payload, whole=False)
    except Exception:  # checksummed with its shard, yet unloadable: damage, parsed again
        return None
