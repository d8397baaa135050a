"""The read -> extract step (`read`): every document read and extracted once, from the cache when
unchanged, in parallel when it pays, and classified by the source registry.

What `read` and `extract` make of a document depends only on its bytes, its path, the
limits and the code and knowledge tables that read it. Includes are not inlined (the
builder checks them across documents), so an include's content is not part of the key.
That makes the key of `entry_key` complete: a cached entry is exactly what a fresh parse
would give.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import pickle
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path

from pipeline import knowledge
from pipeline.knowledge.registry import Source, classify, load_registry
from pipeline.records import Diagnostic, Document, Extraction, Metadata, compact
from pipeline.runner.cache import Cache, Memo, code_fingerprint
from pipeline.runner.pool import cores, ended_children, watched, worker_started
from pipeline.runner.reuse import Store
from pipeline.runner.settings import Settings
from pipeline.stages.copies import table_cells
from pipeline.stages.extract import extract
from pipeline.stages.normalize import Contribution, contribution, source_family
from pipeline.stages.read import Limits, listing, load_bytes, parse_bytes
from pipeline.sync import LOCK_FILE, Locked, permalinks


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
    settings: Settings,
    cache: Cache | None = None,
    *,
    keep: Callable[[Memo], None] | None = None,
    keys: Mapping[str, str] | None = None,
) -> Iterator[Parsed]:
    """Each input parsed, in input order. Cache hits are loaded here; misses are parsed in
    `settings.workers` processes (default: one per core) when there are enough of them to pay
    for the fork (`Settings.splits`) and the system forks. Once the last is yielded, the cache's memo of parses is
    saved, or handed to `keep` (the runner saves it beside the rest of the build). `keys` are
    the inputs' `entry_key`s where the caller has them already; without a cache, none is made
    (hashing every input's bytes for nothing)."""
    items, limits = list(inputs), settings.limits
    readable = any(item.data is not None for item in items)
    memo = cache.memo(PARSE_MEMO, code_fingerprint()) if cache and readable else None
    done: dict[int, Parsed] = {}
    todo: list[tuple[int, str | None]] = []
    for i, item in enumerate(items):
        if item.data is None:
            done[i] = Parsed(item.path, None, None, item.diagnostics)
            continue
        key = None
        if memo:
            key = keys[item.path] if keys and item.path in keys else entry_key(item, limits)
        hit = _loaded(memo.get(key)) if memo and key else None
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
    fresh: Iterator[Parsed | Packed]
    pool: ProcessPoolExecutor | None = None
    before = ended_children()
    # fork, where there is one: workers inherit the loaded code and knowledge tables, and a
    # caller's script without a __main__ guard is not run again in each worker (as spawn would).
    if settings.splits(len(jobs)) and "fork" in multiprocessing.get_all_start_methods():
        count = cores(settings.workers)
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
                    if memo and key:
                        memo.put(key, packed)
                elif memo and key:
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


# ------------------------------------------------------------------------------ the step


@dataclass(frozen=True, slots=True)
class Listed:
    """A document as the documents table lists it: what a build keeps of one once it is read,
    its text let go (the table says how many lines it has)."""

    path: str
    sha256: str
    encoding: str
    metadata: Metadata
    family: str
    lines: int
    subject: str | None


@dataclass(frozen=True, slots=True)
class Corpus:
    """The documents read, as the steps after reading see them."""

    listed: tuple[Listed, ...]
    documents: tuple[Document, ...]
    """The documents themselves, for a caller that keeps the records (`runner.compute`)."""
    sources: Mapping[str, Source]
    """Each document's source as the registry classifies it; once normalized, with the document
    each copies (`runner.normalizing.normalize`)."""
    upstream: Mapping[str, Locked]
    diagnostics: tuple[Diagnostic, ...]


@dataclass(frozen=True, slots=True)
class Statements:
    """What normalize reads of the documents, handed to it: the build lets it go once the
    claims are made (it is most of a large build's memory by then)."""

    extractions: list[Extraction]
    contributions: dict[str, Contribution]
    """Each document's part of normalize's shared context, made where it was parsed."""
    cells: dict[str, bytes]
    """Each document's table cells, as finding copies compares them."""
    statements: dict[str, bytes]
    """The statements of the documents whose extraction the parse memo gave without them."""
    keys: dict[str, str]
    """Each document's parse key (`entry_key`): the parse memo and the normalize memo both use it."""


def read(
    sources: Path,
    settings: Settings,
    store: Store,
    inputs: list[Input],
    found: Sequence[Diagnostic] = (),
    *,
    records: bool = True,
    progress: Callable[[str], None] | None = None,
) -> tuple[Corpus, Statements]:
    """read -> extract: every document under `sources` (its bytes `inputs` and what finding them
    `found` wrong, as `survey` gave them: the list is emptied once they are parsed), its parse
    from the store's memo when unchanged, each classified by the registry, with the upstream
    lock's permalinks. Without `records`, the corpus lists the documents (`Listed`) but does
    not keep them."""
    diagnostics: list[Diagnostic] = []
    if not sources.is_dir():
        diagnostics.append(
            Diagnostic(
                "error", "sources-missing", str(sources), None, "sources folder does not exist or is not a folder"
            )
        )
    diagnostics.extend(found)
    documents: list[Document] = []
    parsed = Statements([], {}, {}, {}, {})
    if store.cache is not None:
        parsed.keys.update((i.path, entry_key(i, settings.limits)) for i in inputs if i.data is not None)
    for one in parse_all(inputs, settings, store.cache, keep=store.keep, keys=parsed.keys):
        diagnostics.extend(one.diagnostics)
        if one.document is None:
            continue
        documents.append(one.document)
        if one.extraction is not None:
            parsed.extractions.append(one.extraction)
            diagnostics.extend(one.extraction.diagnostics)
            parsed.cells[one.path] = one.cells
        if one.contribution is not None:
            parsed.contributions[one.path] = one.contribution
        if one.statements is not None:
            parsed.statements[one.path] = one.statements
        if progress and len(documents) % 100 == 0:
            progress(f"read {len(documents)} documents")
    inputs.clear()
    diagnostics.extend(_include_diagnostics(parsed.extractions, {d.path for d in documents}))
    entries, found = load_registry(sources) if sources.is_dir() else ([], [])
    diagnostics.extend(found)
    upstream, lock_problem = permalinks(sources) if sources.is_dir() else ({}, None)
    if lock_problem:
        diagnostics.append(Diagnostic("error", "upstream-lock-invalid", LOCK_FILE, None, lock_problem))
    classified: dict[str, Source] = {}
    for d in documents:
        classified[d.path], problem = classify(d, entries)
        if problem:
            diagnostics.append(problem)
    subjects = {ex.document.path: ex.subject for ex in parsed.extractions}
    listed = tuple(
        Listed(
            d.path,
            d.sha256,
            d.encoding,
            d.metadata,
            source_family(d).name,
            d.text.count("\n") + 1,
            subjects.get(d.path),
        )
        for d in documents
    )
    corpus = Corpus(listed, tuple(documents) if records else (), classified, upstream, tuple(diagnostics))
    return corpus, parsed


def _include_diagnostics(extractions: Sequence[Extraction], paths: set[str]) -> list[Diagnostic]:
    """Includes whose target is missing, and includes that close a cycle (a -> b -> a).

    Includes are never inlined (each file is read once, as itself), so a cycle cannot hang
    a build; it is still reported because the pages are wrong."""
    out = []
    graph: dict[str, list[tuple[str, int]]] = defaultdict(list)
    for ex in extractions:
        for inc in ex.includes:
            if inc.resolved is None:
                continue
            if inc.resolved not in paths:
                out.append(
                    Diagnostic(
                        "warning",
                        "include-missing",
                        inc.document,
                        inc.line,
                        f"[!INCLUDE] target {inc.target!r} is not in the sources folder",
                    )
                )
            else:
                graph[inc.document].append((inc.resolved, inc.line))
    state: dict[str, int] = {}
    for root in sorted(graph):
        if state.get(root):
            continue
        stack: list[tuple[str, int]] = [(root, 0)]
        path: list[str] = []
        while stack:
            node, i = stack.pop()
            if i == 0:
                state[node] = 1
                path.append(node)
            edges = sorted(graph.get(node, ()))
            if i < len(edges):
                stack.append((node, i + 1))
                target, line = edges[i]
                if state.get(target) == 1:
                    cycle = [*path[path.index(target) :], target]
                    out.append(
                        Diagnostic("warning", "include-cycle", node, line, "[!INCLUDE] cycle: " + " -> ".join(cycle))
                    )
                elif not state.get(target):
                    stack.append((target, 0))
            else:
                state[node] = 2
                path.pop()
    return out
