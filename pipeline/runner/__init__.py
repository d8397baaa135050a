"""`build(sources, out)`: read -> extract -> normalize -> aliases -> reconcile -> write.

The runner wires the stages (`pipeline.stages`, pure functions of their inputs) together, turns
their records into table rows, and owns what they need not know: the content-hash cache of
parsed documents and of each document's claims and each entity's decisions (`cache`), and the
second process that shares a stage's work (`pool`).
"""

from __future__ import annotations

import contextlib
import csv
import datetime as dt
import hashlib
import importlib
import json
import os
import pickle
import shutil
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from functools import partial
from multiprocessing.connection import Connection
from operator import attrgetter, itemgetter
from pathlib import Path
from typing import Any, TypeVar

from pipeline import knowledge
from pipeline.knowledge.names import parse_size, series_key
from pipeline.knowledge.registry import AUTHORITATIVE, REGISTRY_FILE, Source, classify, load_registry
from pipeline.outputs import schema
from pipeline.outputs.write import (
    Digests,
    Previous,
    Stamp,
    by_column,
    file_sha256,
    frame,
    output_lock,
    read_frame,
    recover,
    staging_folder,
    swap_in,
    sync_file,
    write_json,
    write_table,
)
from pipeline.records import (
    BuildResult,
    Claim,
    ContractViolation,
    Diagnostic,
    Document,
    Extraction,
    Mention,
    Price,
    values_of,
)
from pipeline.runner.cache import Cache, Memo, digest
from pipeline.runner.documents import (
    MIN_PARALLEL,
    Input,
    code_fingerprint,
    entry_key,
    parse_all,
    survey,
    with_statements,
)
from pipeline.runner.pool import (
    Beside,
    HelperDied,
    arrow_pool,
    beside,
    collector_paused,
    cores,
    give_back,
    helper_peaks,
    peak_rss,
)
from pipeline.stages.aliases import resolve as resolve_aliases
from pipeline.stages.calibrate import Label, expected_calibration_error, reliability
from pipeline.stages.calibrate import labels as calibrate_labels
from pipeline.stages.copies import find_copies
from pipeline.stages.normalize import (
    Contribution,
    DocumentClaims,
    Normalized,
    gather,
    gather_claims,
    normalize_document,
    provenance_order,
    source_family,
)
from pipeline.stages.normalize import context as normalize_context
from pipeline.stages.read import Limits
from pipeline.stages.reconcile import (
    NAME_CONVENTION,
    SIBLING,
    Conflict,
    Fact,
    Failure,
    Link,
    NameRules,
    Plan,
    Reconciled,
    Shape,
    Siblings,
    buckets,
    decide,
    divide,
    finish,
    forget,
    last_checks,
    let_go,
    merge,
    name_rules,
    plan,
    rates_read,
    reads,
    reconcile,
    rule_made,
    shape,
    sibling_claims,
)
from pipeline.sync import LOCK_FILE, Locked, permalinks

Progress = Callable[[str], None]
PIPELINE_VERSION = "0.1.0"
NORMALIZE_SHARE = 0.58
"""The share of the documents to normalize that the build process keeps when it forks a
second one for the rest: the forked one also pickles its claims, which costs it more than
loading them costs the build (at 10,000 documents, 0.58 took 6.0 s where halves took 6.7)."""
DECIDE_SHARE = 0.53
"""The share of the entities' work (`reconcile.divide`) the build process keeps when a forked
one decides the rest: the forked one also pickles its facts and sizes for the trip back. At
10,000 documents, with halves the build waited 1.57-1.75 s for the other's answer (three cold
builds), with 0.53 0.36-0.40 s, which is the answer's trip; reconcile took 12.63 s, now 12.02 s
(means of three)."""


@dataclass(frozen=True, slots=True)
class Settings:
    """Knobs a maintainer may turn; the defaults suit the shipped corpus."""

    limits: Limits = field(default_factory=Limits)
    workers: int | None = None
    """Processes that parse documents (default: one per core); 1 parses in this process."""
    incremental: bool = True
    """Keep parsed documents in a cache, and leave `out` alone when neither the documents,
    the settings nor the pipeline changed since it was built."""
    cache_dir: Path | None = None
    """Where the cache lives (default: `.pipeline-cache` beside the output folder)."""
    stale_after_days: int = 730
    """A fact whose only support is this much older than another document about the same
    entity is flagged stale."""


def build(
    sources: Path, out: Path, *, settings: Settings = Settings(), progress: Progress | None = None
) -> BuildResult:
    """Build every table from the documents under `sources` into `out`, atomically.

    Beside the tables, `out` gets `report.html` (for people), `SCHEMA.md` and `datapackage.json`
    (the data dictionary), all listed with their hashes in `manifest.json`. The tables are
    checked against their contracts (`pipeline.outputs.contracts`) while they are written into a
    staging folder: a build whose data would break them raises `ContractViolation` listing
    every violation, the staging folder is removed, and `out` stays as it was."""
    sources = Path(sources)
    out = Path(out)
    clock = Clock()
    with helper_peaks() as helpers, output_lock(out):
        recover(out)
        inputs, found, key = _survey(sources, settings)
        clock.lap("survey")
        cache = Cache(settings.cache_dir or out.parent / CACHE_FOLDER) if settings.incremental else None
        # The digests of the output's files the last build recorded: those whose stamps are as
        # recorded are not read again, here or where the build takes them (`write.Digests`).
        digests = _recorded(cache, out) if cache else Digests()
        if cache and (previous := _unchanged(out, key, cores(settings.workers), digests)) is not None:
            _record(cache, out, digests)
            return replace(previous, timings=clock.laps, peaks=clock.peaks)  # forked nothing
        # Imported here, not at the top: only a build that has something to do needs them
        # (`_write`). The contracts (pandera, 0.19 s of importing) are imported by the processes
        # that check the tables, beside this one's work, unless this one checks them itself.
        for name in ("dictionary", "report"):
            importlib.import_module(f"pipeline.outputs.{name}")

        stage = staging_folder(out)
        # A table the build replaces with the same table keeps its files (`Previous`, `_Reuse`).
        reuse = _Reuse.of(cache, out, stage, cores(settings.workers), digests) if cache else None
        clock.lap("imports")
        # Every record is in the frames: the result keeps only the summary. The memos are
        # written while the tables are: the build waits for them last. Arrow's allocator gives
        # back what the tables free (`arrow_pool`).
        try:
            with arrow_pool(), contextlib.ExitStack() as saving:
                result, frames = compute(
                    sources,
                    settings,
                    progress,
                    cache=cache,
                    inputs=inputs,
                    found=found,
                    clock=clock,
                    records=False,
                    saving=saving,
                    reuse=reuse,
                    stage=stage,
                )
                outputs = _write(sources, out, stage, settings, clock, result, frames, key, reuse)
                if cache and reuse:
                    reuse.keep(cache, out, outputs)
        except BaseException:
            shutil.rmtree(stage, ignore_errors=True)  # gone already when it was swapped in
            raise
        clock.lap("cache saved, waited for")
    return replace(
        result, cache=cache.stats if cache else None, timings=clock.laps, peaks=clock.peaks, helpers=tuple(helpers)
    )


def _write(
    sources: Path,
    out: Path,
    stage: Path,
    settings: Settings,
    clock: Clock,
    result: BuildResult,
    frames: dict[str, Any],
    key: str,
    reuse: _Reuse | None,
) -> dict[str, Any]:
    """The tables, the report and the documentation into the staging folder `stage`, checked
    against their contracts, then swapped in for `out`; the manifest's outputs. A table
    `_Taken` from the output replaced (`reuse`) is in `stage` already; the page is linked from
    there too when it would be made from what made the last one (`_page_key`)."""
    from concurrent.futures import ThreadPoolExecutor

    from pipeline.outputs import dictionary, report

    previous = reuse.previous if reuse else None
    cols = schema.tables()
    taken = [name for name, table in frames.items() if isinstance(table, _Taken)]
    # The claims table may be made and written by a process of its own: the report reads the
    # rows it shows, and the contracts check the rest.
    apart = frames["claims"] if isinstance(frames.get("claims"), _ClaimsApart) else None
    if apart is not None:
        frames["claims"] = apart.shown
    # The contracts check the tables made here; those taken passed them when they were made.
    tables = [name for name in schema.tables() if name not in taken and not (apart and name == "claims")]
    page_taken = False
    try:
        page_inputs = _page_inputs(frames)
        # What the page reads of the tables made here, by content; of the others, their files' digests.
        small = {n: _content(df) for n, df in page_inputs.items() if n not in TAKEN_TABLES} if reuse else {}
        if reuse and previous and reuse.page and len(taken) == len(TAKEN_TABLES):
            page = _page_key({n: previous.outputs[n].get("parquet_sha256") for n in TAKEN_TABLES}, small)
            page_taken = page == reuse.page[0] and previous.take("report.html", reuse.page[1], stage)
        here = os.getpid()

        def check() -> list[str]:
            from pipeline.outputs import contracts

            return contracts.validate(frames, between=give_back, tables=None if apart is None and not taken else tables)

        def document() -> None:
            if not page_taken:
                # In a forked process, the frames are its own copy: the report lets them go once
                # it has read them, and the process gives their memory back.
                mine = os.getpid() != here
                shown = _read_back(stage, page_inputs, taken)
                if mine:
                    frames.clear()
                    page_inputs.clear()
                report.write_report(shown, stage / "report.html", consume=mine)
            (stage / "SCHEMA.md").write_text(dictionary.schema_markdown(), encoding="utf-8", newline="\n")
            write_json(stage / "datapackage.json", dictionary.datapackage())

        # The contracts and the report only read the frames, so on a second core they run
        # beside the writing of the tables, which they do not need, each in a process of its
        # own: the report no longer waits for the contracts, which the writing left a core for
        # (at 10,000 documents, one change: writing and waiting 2.83-2.97 -> 2.53-2.67 s). A
        # page whose tables break their contract is not kept: the staging folder goes.
        parallel = _splits(settings, result.tables.get("documents", 0))
        with (
            beside(check, parallel=parallel, what="contracts") as checked,
            beside(document, parallel=parallel and not page_taken, what="report"),
            ThreadPoolExecutor(max_workers=1) as syncing,
        ):
            if not parallel:
                clock.lap("contracts and report")  # run first, here
            # The contracts and the report have their copy of the frames (or are done): each
            # table's columns are let go as they are written, but the documents' for the manifest.
            for name in list(frames):
                df = frames[name] if name == "documents" else frames.pop(name)
                if name in tables:
                    write_table(df, cols[name], name, stage, consume=name != "documents", previous=previous)
                    # On disk while the next is written: the swap then finds it synced (at 10,000
                    # documents, the swap's syncing took 0.19 s). A failure here is met again
                    # there, where it fails the build.
                    for file in _table_files(name):
                        syncing.submit(sync_file, stage / file)
                del df
            clock.lap("write tables")
        if parallel and page_taken:
            clock.lap("contracts, waited for (they ran beside the writing; the page was taken)")
        elif parallel:
            clock.lap("contracts and report, waited for (they ran beside the writing)")
        violations = checked.result()
        if apart is not None:
            problems, hashes = apart.result()
            violations = problems + violations
            if previous is not None:
                previous.hashes.update(hashes)
            clock.lap("claims table, waited for (it was written beside the others)")
        if violations:
            raise ContractViolation(violations)
        listing = manifest(
            sources,
            result,
            frames["documents"],
            stage,
            key,
            previous.hashes if previous else None,
            cores(settings.workers),
            reuse.digests if reuse else None,
        )
        write_json(stage / "manifest.json", listing)
        if reuse is not None:
            made = {n: listing["outputs"][n]["parquet_sha256"] for n in TAKEN_TABLES}
            reuse.made_page = (_page_key(made, small), listing["documentation"]["report.html"]["sha256"])
    except BaseException:
        if apart is not None:  # before its folder goes
            apart.stop()
        shutil.rmtree(stage, ignore_errors=True)
        raise
    swap_in(stage, out)
    clock.lap("manifest and swap")
    return dict(listing["outputs"])


def _page_inputs(frames: Mapping[str, Any]) -> dict[str, Any]:
    """The frames as the report is given them: of the documents, only the columns it reads
    (`report.READS`), so that what made a page is known by what it shows."""
    from pipeline.outputs.report import READS

    documents = frames["documents"]
    return {**frames, "documents": documents[[c for c in documents.columns if c in READS["documents"]]]}


def _content(df: Any) -> str:
    """A digest of a frame's columns, dtypes and values (as Python values: the bytes of its
    buffers may differ where the values do not)."""
    return digest([str(c) for c in df.columns], [str(t) for t in df.dtypes], [df[c].tolist() for c in df.columns])


def _page_key(tables: Mapping[str, object], small: Mapping[str, str]) -> str:
    """A digest of all a page is made from: the code, the Parquet files' digests of the tables
    the stages after normalize make, and the others' content (`_page_inputs`)."""
    return digest(code_fingerprint(), sorted(tables.items()), sorted(small.items()))


def _read_back(stage: Path, frames: Mapping[str, Any], taken: Sequence[str]) -> dict[str, Any]:
    """The frames the report reads, with the tables `taken` read back from their files in
    `stage`, only the columns the report reads (`report.READS`), and of the claims only those
    some conflict cites, as `_ClaimsApart.shown` keeps them."""
    from pipeline.outputs.report import READS

    back = dict(frames)

    def read(name: str, where: tuple[str, set[str]] | None = None) -> Any:
        columns = [c for c in schema.tables()[name] if c.name in READS.get(name, (c.name,))]
        return read_frame(stage / f"{name}.parquet", columns, where)

    for name in taken:
        if name != "claims":
            back[name] = read(name)
    if "claims" in taken:
        cited = {i for ids in back["conflicts"]["claims"].dropna() for i in ids.split(" ")}
        back["claims"] = read("claims", ("claim_id", cited))
    return back


class Clock:
    """Seconds between the steps of one build, and the build process's peak memory when each
    ended: each `lap` ends the step it names."""

    def __init__(self) -> None:
        self.started = self._last = time.perf_counter()
        self.laps: tuple[tuple[str, float], ...] = ()
        self.peaks: tuple[tuple[str, int], ...] = ()

    def lap(self, step: str) -> None:
        now = time.perf_counter()
        self.laps += ((step, round(now - self._last, 4)),)
        # Linux keeps a process's memory counts per CPU and sums them now and then: a reading of
        # the peak so far can come out a few hundred kB below the one before it.
        before = self.peaks[-1][1] if self.peaks else 0
        self.peaks += ((step, max(peak_rss(), before)),)
        self._last = now


CACHE_FOLDER = ".pipeline-cache"
DOCUMENTATION = ("SCHEMA.md", "datapackage.json", "report.html")


def unchanged(sources: Path, out: Path, settings: Settings = Settings()) -> BuildResult | None:
    """The summary of `out` when a build of `sources` would write exactly what it holds: the
    same inputs, settings, code and libraries (the build key), every file as the manifest lists
    it. Builds are deterministic, so that is a complete answer without building; None otherwise."""
    return _unchanged(Path(out), _survey(Path(sources), settings)[2], cores(settings.workers))


def _survey(sources: Path, settings: Settings) -> tuple[list[Input], list[Diagnostic], str]:
    inputs, found = survey(sources, settings.limits) if sources.is_dir() else ([], [])
    return inputs, found, build_key(sources, inputs, found, settings)


SIDE_INPUTS = (REGISTRY_FILE, LOCK_FILE)
"""Files of the sources folder that are not documents but shape the tables: the source registry
and the upstream lock (each document's commit and permalink)."""


def build_key(sources: Path, inputs: Sequence[Input], found: Sequence[Diagnostic], settings: Settings) -> str:
    """One hash of everything a build's output depends on: each file's path and bytes, the
    registry and the upstream lock, what discovery reported, the settings that shape the data and
    the pipeline's code."""
    digest = hashlib.sha256()
    shaping = replace(settings, workers=None, incremental=True, cache_dir=None)
    for part in (code_fingerprint(), repr(shaping), repr(sorted(found, key=repr))):
        digest.update(part.encode() + b"\0")
    for item in inputs:
        digest.update(f"{item.path}\0{item.sha256}\0{item.diagnostics!r}\0".encode())
    for name in SIDE_INPUTS:
        if (sources / name).is_file():
            data = (sources / name).read_bytes()
            digest.update(f"{name}\0{len(data)}\0".encode() + data)
    return digest.hexdigest()


def _unchanged(out: Path, key: str, threads: int = 1, digests: Digests | None = None) -> BuildResult | None:
    """The previous build's summary when `out` was built from exactly these inputs and every
    file the manifest lists is still there, unaltered (hashed by `threads` threads, `_digests`,
    but for those whose stamps vouch for their `digests`); otherwise None (build again)."""
    try:
        listing = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
        if listing.get("build_key") != key:
            return None
        listed = _files_of(listing["outputs"], listing["outputs"])
        listed |= {name: entry["sha256"] for name, entry in listing["documentation"].items()}
        if _digests(out, list(listed), threads, digests) != listed:
            return None
        with open(out / "diagnostics.csv", encoding="utf-8", newline="") as f:
            diagnostics = tuple(
                Diagnostic(r["severity"], r["code"], r["document"], int(r["line"]) if r["line"] else None, r["message"])  # type: ignore[arg-type]
                for r in csv.DictReader(f)
            )
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    tables = {name: int(entry["rows"]) for name, entry in listing["outputs"].items()}
    return BuildResult(documents=(), claims=(), diagnostics=diagnostics, tables=tables, up_to_date=True)


@collector_paused()
def compute(
    sources: Path,
    settings: Settings = Settings(),
    progress: Progress | None = None,
    *,
    cache: Cache | None = None,
    inputs: list[Input] | None = None,
    found: Sequence[Diagnostic] = (),
    clock: Clock | None = None,
    records: bool = True,
    saving: contextlib.ExitStack | None = None,
    reuse: _Reuse | None = None,
    stage: Path | None = None,
) -> tuple[BuildResult, dict[str, Any]]:
    """Everything but the writing: the result and one DataFrame per table.

    `inputs` are the files' bytes when the caller has already read them (see `survey`): the
    list is emptied once they are parsed, so that the bytes (26 MB at 10,000 documents) are not
    held through the build. `cache` keeps parsed documents between builds. Without `records`,
    the result holds only the summary and the tables are the records (which spares the memory
    of holding both), and with a second core and the folder the tables go to (`stage`) the
    claims table is made, checked and written there by a process of its own: its entry is then
    a `_ClaimsApart`. The memos are written by forked processes while the build goes on, and
    waited for once the tables are made, or when the caller closes `saving` (on an error, they
    are stopped: an entry is written whole or not at all). With `reuse` (a build that keeps no
    records, with a cache), the tables the stages after normalize make are taken from the
    output the build replaces when those stages would read what made them (`_Reuse`): their
    entries are then `_Taken`."""
    with contextlib.ExitStack() as own:
        return _compute(
            sources,
            settings,
            progress,
            cache,
            inputs,
            found,
            clock,
            own if saving is None else saving,
            records,
            reuse,
            stage,
        )


def _compute(
    sources: Path,
    settings: Settings,
    progress: Progress | None,
    cache: Cache | None,
    inputs: list[Input] | None,
    found: Sequence[Diagnostic],
    clock: Clock | None,
    saving: contextlib.ExitStack,
    records: bool,
    reuse: _Reuse | None,
    stage: Path | None,
) -> tuple[BuildResult, dict[str, Any]]:
    diagnostics: list[Diagnostic] = []
    if not sources.is_dir():
        diagnostics.append(
            Diagnostic(
                "error", "sources-missing", str(sources), None, "sources folder does not exist or is not a folder"
            )
        )
    documents: list[Document] = []
    extractions: list[Extraction] = []
    contributions: dict[str, Contribution] = {}
    cells: dict[str, bytes] = {}
    # The statements of documents whose parse the memo gave, pickled: loaded only for those
    # normalized again.
    statements: dict[str, bytes] = {}
    know = knowledge.load()
    saved: list[Beside[int]] = []
    read = 0  # documents read: whether a memo is saved by a forked process (`keep`)

    if cache:  # once every memo is written (the callbacks run last-in first-out)
        saving.callback(lambda: setattr(cache.stats, "write_errors", cache.stats.write_errors + _failed(saved)))

    def keep(memo: Memo, fill: Callable[[], None] | None = None) -> None:
        saved.append(_save_beside(memo, _splits(settings, read), saving, fill))

    content: dict[str, str] = {}
    if sources.is_dir():
        if inputs is None:
            inputs, found = survey(sources, settings.limits)
        diagnostics.extend(found)
        # Each document's parse key, once: the parse memo and the normalize memo both use it.
        content = {i.path: entry_key(i, settings.limits) for i in inputs if i.data is not None} if cache else {}
        for parsed in parse_all(inputs, settings.limits, cache, settings.workers, keep=keep, keys=content):
            diagnostics.extend(parsed.diagnostics)
            if parsed.document is None:
                continue
            documents.append(parsed.document)
            read += 1
            if parsed.extraction is not None:
                extractions.append(parsed.extraction)
                diagnostics.extend(parsed.extraction.diagnostics)
                cells[parsed.path] = parsed.cells
            if parsed.contribution is not None:
                contributions[parsed.path] = parsed.contribution
            if parsed.statements is not None:
                statements[parsed.path] = parsed.statements
            if progress and len(documents) % 100 == 0:
                progress(f"read {len(documents)} documents")
        inputs.clear()
    lap = clock.lap if clock else lambda step: None
    lap("read and extract")
    diagnostics.extend(_include_diagnostics(extractions, {d.path for d in documents}))
    entries, reg_diags = load_registry(sources) if sources.is_dir() else ([], [])
    diagnostics.extend(reg_diags)
    upstream, lock_problem = permalinks(sources) if sources.is_dir() else ({}, None)
    if lock_problem:
        diagnostics.append(Diagnostic("error", "upstream-lock-invalid", LOCK_FILE, None, lock_problem))
    sources_by_doc: dict[str, Source] = {}
    for d in documents:
        src, diag = classify(d, entries)
        sources_by_doc[d.path] = src
        if diag:
            diagnostics.append(diag)
    if progress:
        progress(f"read {len(documents)} documents; normalizing")
    split = _splits(settings, len(extractions))
    # The copies are found from the extractions alone, on the second core while the documents
    # are normalized here (as the normalize memo is loaded, or beside the other half).
    finding = partial(find_copies, extractions, sources_by_doc, cells)
    with beside(finding, parallel=split, what="finding copies") as copied:
        # Each later stage reuses what the last build computed from the same inputs; the memos
        # are saved as soon as a stage ends, so an interrupted build keeps what it got done.
        memo = cache.memo("normalize", code_fingerprint()) if cache else None
        stated: dict[str, Mapping[str, str]] = {}
        normalizing = run_normalize(extractions, know, split, memo, content, stated, contributions, statements)
        norm = normalizing.head
        del contributions, statements, finding, cells
    copies, copy_diags = copied.result()
    if memo:
        keep(memo)
    lap("normalize")
    # The statements are all in claims now; what the tables still need of them is the subject.
    subjects = {ex.document.path: ex.subject for ex in extractions}
    del extractions
    diagnostics.extend(norm.diagnostics)
    diagnostics.extend(copy_diags)
    sources_by_doc = {path: replace(src, copy_of=copies.get(path)) for path, src in sources_by_doc.items()}
    prices = _price_rows(norm.prices, sources_by_doc)
    decided_key = None
    if reuse is not None and cache is not None and stated and not records:
        decided_key = _decided_key(stated, norm, sources_by_doc, upstream, settings)
        if (before := _taken(cache, reuse, decided_key)) is not None:
            lap("reconciled tables taken from the output replaced")
            diagnostics = _sorted_diagnostics([*diagnostics, *before.diagnostics])
            table = _documents_frame(documents, subjects, before.claims_per_document, sources_by_doc, upstream)
            small = _small_tables(table, prices, diagnostics, before.labels)
            small.update((name, _Taken(rows)) for name, (rows, _, _) in before.tables.items())
            frames = {name: small.pop(name) for name in TABLE_ORDER}
            lap("tables")
            summary = BuildResult(documents=(), claims=(), diagnostics=tuple(diagnostics), labels=before.labels)
            return replace(summary, tables=_rows_of(frames)), frames
    norm = normalizing.whole()
    del normalizing
    if progress:
        progress(f"read {len(documents)} documents; reconciling {len(norm.claims)} claims")
    resolved, aliases, alias_diags = resolve_aliases(
        norm.claims, sources_by_doc, (m.written for m in norm.mentions if m.size)
    )
    after = list(alias_diags)  # what the stages after normalize say, kept for the next build (`_Decided`)
    suspects = {a.name: (a.size, a.why) for a in aliases if not a.certain}
    lap("aliases")
    # The sizes' values from their siblings and the claims their names make each read every
    # claim, and neither needs the other: on a second core, side by side.
    with beside(partial(sibling_claims, resolved, sources_by_doc, know), parallel=split, what="sizes' siblings") as sib:
        names = name_rules(resolved, sources_by_doc, know)
    siblings = sib.result()
    claims = tuple(sorted((*resolved, *rule_made(names, siblings)), key=provenance_order))
    # Every claim is known: the documents' table is made now, and without the records their
    # text is let go before the memory of deciding is needed.
    per_document = Counter(c.document for c in claims)
    documents_table = _documents_frame(documents, subjects, per_document, sources_by_doc, upstream)
    kept_documents = tuple(documents) if records else ()
    del documents
    decisions = cache.memo("reconcile", code_fingerprint()) if cache and not records else None
    moved = sorted((a.name, a.size, a.why) for a in aliases if a.certain)
    # Where decisions are kept, their buckets' keys are made on the second core while the plan
    # is made here: they read what the buckets do (`reconcile.shape`), not the plan's votes.
    early = bool(split and decisions is not None and decisions.stored())
    # A build that keeps no records has the claims table made, checked and written by a process
    # of its own from now on (`_ClaimsApart`), forked before the plan is made here: at 10,000
    # documents its 1.2 s of making the table then fill what making the plan left of the second
    # core. Where the keys take that core, it makes the table once the plan and the keys are
    # made: beside both, it made each take half as long again (one value changed: the plan
    # 0.69 -> 1.05 s).
    # A build that keeps the records makes it beside the deciding, below, while the other part
    # is decided on the second core.
    apart = _ClaimsApart.fork(claims, documents_table, saving, wait=early) if split and stage and not records else None
    keying = partial(
        _early_keys,
        resolved,
        sources_by_doc,
        names,
        siblings,
        suspects,
        settings.stale_after_days,
        stated,
        moved,
        prices,
    )
    keyed: Beside[dict[int, str]] | None = None
    try:
        with beside(keying, what="keys of the buckets") if early else contextlib.nullcontext() as keyed:
            # Not memoized: the bench showed that loading an entity's decisions and computing the
            # key that finds them cost more than deciding it (at 10,000 documents, a build reusing
            # every decision reconciled in 17.9 s, one deciding all in 16.7 s).
            planned = plan(
                resolved,
                sources_by_doc,
                know,
                settings.stale_after_days,
                suspects=suspects,
                names=names,
                siblings=siblings,
            )
    except HelperDied:  # its process was killed (memory, say) once the plan was made: keyed here
        keyed = None
    if apart is not None and early:
        apart.start()
    del names, siblings, sib, keying
    claims_table: Any = None
    bucket_of = buckets(planned, RECONCILE_BUCKETS)
    named = _Named.of(claims, prices)

    def part(p: Plan, entities: frozenset[str] | None, divided: bool = False) -> _Part:
        """The entities decided and finished a few buckets at a time (`_chunks`), their votes
        and facts let go once their rows are made: the objects of a few buckets are held at
        once, not those of all. Each of two `divided` parts holds its facts' text encoded
        (`_compact`) until the two are joined."""
        recs: list[Reconciled] = []
        frames: list[Any] = []
        sizes: list[Any] = []
        members: list[tuple[str, str]] = []
        rates: dict[str, tuple[tuple[tuple[str, str], float], ...]] = {}
        failures: list[Failure] = []
        for chunk in _chunks(bucket_of, entities):
            decided = decide(p, chunk)
            rec = finish(p, decided, chunk)
            forget(p, decided, chunk)
            recs.append(rec if records else replace(rec, facts=()))
            frames.append(_facts_frame(rec.facts))
            sizes.append(_sizes_frame(_vm_size_rows(rec, named, sources_by_doc)))
            members += _series_members(rec.facts)
            if decisions is not None:
                rates.update(rates_read(p, rec.facts))
                failures += decided.failures
            del decided, rec
        facts = _in_order(frames, ["entity", "attribute"]) if frames else _facts_frame(())
        return _Part(
            replace(merge(p, recs), name_claims=()),
            _compact(facts) if divided else facts,
            _in_order(sizes, ["size"]) if sizes else _sizes_frame([]),
            members,
            rates,
            failures,
        )

    # A build keeps each bucket's decisions (`reconcile.buckets`), keyed by all they read: the
    # next build decides again only the buckets whose inputs changed.
    kept: dict[int, _Part] = {}
    keys: dict[int, str] = {}
    if decisions is not None:
        key_all = partial(_bucket_keys, planned, bucket_of, stated, moved, sources_by_doc, prices)
        # With nothing kept (a first build, or new code), the keys are made where the memo is saved.
        keys = keyed.result() if keyed is not None else key_all() if decisions.stored() else {}
        hits = {b: hit for b, key in keys.items() if isinstance(hit := decisions.get(key), _Part)}
        kept = {b: hit for b, hit in hits.items() if _still_holds(hit, planned.rules)}
        # A bucket whose rates moved is decided again: a miss, though its key matched.
        decisions.hits -= len(hits) - len(kept)
        decisions.misses += len(hits) - len(kept)
        del hits
    todo = frozenset(e for e, b in bucket_of.items() if b not in kept) if kept else None
    # The entities are decided in two parts, the second on the second core, each with the
    # facts' rows and the vm_sizes rows of its entities: the facts are made in the process that
    # decided them and only their table travels. That table waits in the pipe until this
    # process has decided its part and let go of the plan: read as it came, it was held beside
    # the votes of this part (at 10,000 documents, the build's peak in this step 989-1,024 MB in
    # two runs, 976-982 MB waiting, in the same time).
    if split and (todo is None or len(todo) * 8 >= len(planned.kinds)):
        shares = (DECIDE_SHARE, 1 - DECIDE_SHARE)
        mine, theirs = divide(planned, shares, todo, besides=0.0 if apart else CLAIMS_TABLE_WORK)
        with beside(
            partial(part, planned, theirs, True), parallel=True, what="deciding the other part of the entities"
        ) as other:
            ours = part(planned, mine, True)
            claims_table = None if apart else _claims_frame(claims)
            let_go(planned)  # before the other part's answer is read
        parts = [ours, other.result()]
        del ours, other
    else:  # a small build, or a few buckets to decide again
        parts = [part(planned, todo)] if todo is None or todo else []
        let_go(planned)
        claims_table = None if apart else _claims_frame(claims)
    if decisions is not None:
        memo = decisions
        decided = set(bucket_of.values()) if todo is None else {bucket_of[e] for e in todo}
        # What the memo's process reads, let go here once it has its copy: the writing is
        # waited for at the end of the build, and the plan and the parts are large.
        held = [(list(parts), keys, key_all)]

        def fill() -> None:
            fresh, made, make = held.pop()
            made = made or make()
            for b, piece in _by_bucket(fresh, bucket_of, decided):
                memo.put(made[b], piece)

        keep(decisions, fill)
        held.clear()
        del key_all
        parts.extend(kept.values())  # their facts still packed, unpacked a column at a time
        del kept
    rec = merge(planned, [x.rec for x in parts])
    del planned
    # The parts' rows, each list all that holds its frames (`_in_order` lets them go).
    members = sorted(m for x in parts for m in x.members)
    facts_parts, sizes_parts = [x.facts for x in parts], [x.sizes for x in parts]
    del parts
    lap("reconcile, with the facts and claims tables")
    labels = _calibration_labels(resolved, rec, sources_by_doc, know, settings)
    lap("calibration labels")
    sizes = _in_order(sizes_parts, ["size"]) if sizes_parts else _sizes_frame([])
    del sizes_parts
    built = set(sizes["size"]) | {a.name for a in aliases if a.certain}
    after += _not_built(norm.mentions, built, members)
    diagnostics = _sorted_diagnostics([*diagnostics, *after])
    if reuse is not None and decided_key is not None:
        reuse.decided = _Decided(decided_key, tuple(after), dict(per_document), tuple(labels))
    result = BuildResult(
        documents=kept_documents,
        claims=claims if records else (),
        diagnostics=tuple(diagnostics),
        facts=rec.facts,
        conflicts=rec.conflicts if records else (),
        links=rec.links if records else (),
        labels=tuple(labels),
    )
    # When the caller does not keep the records, those a table was made from are let go as
    # soon as it is made.
    if apart is not None:
        assert stage is not None, "a claims table is made apart only where it has a folder to go to"
        previous = reuse.previous if reuse else None
        apart.decided(claims, rec.checks, {i for c in rec.conflicts for i in c.claims}, stage, previous)
        made: dict[str, Any] = {"claims": apart}
    else:
        claims_table["checks_failed"] = _checks_column(claims, rec.checks)
        made = {"claims": claims_table}
    if not records:
        # The claims' records go before the parts' facts are joined: a build that loaded most
        # of them from the memo holds them in pages of their own, handed back here.
        del norm, resolved
        claims = ()
        give_back()
    made["facts"] = _in_order(facts_parts, ["entity", "attribute"])
    del facts_parts
    made["vm_sizes"] = sizes
    del sizes
    made["conflicts"] = _conflicts_frame(rec.conflicts, upstream)
    made.update(_small_tables(documents_table, prices, diagnostics, labels))
    frames = {name: made.pop(name) for name in TABLE_ORDER}
    lap("tables")
    return replace(result, tables=_rows_of(frames)), frames


TABLE_ORDER = ("documents", "claims", "vm_sizes", "facts", "conflicts", "prices", "diagnostics", "calibration")
"""The tables in the order a build writes them."""

TAKEN_TABLES = ("claims", "vm_sizes", "facts", "conflicts")
"""The tables the stages after normalize make: what a build may take from the output it
replaces (`_Reuse`). The others are cheap to make again, and the documents' and the
diagnostics' depend on more than those stages read."""


def _small_tables(
    documents: Any, prices: Sequence[Mapping[str, Any]], diagnostics: Sequence[Diagnostic], labels: Sequence[Label]
) -> dict[str, Any]:
    """The tables made the same way whether the others are made or taken."""
    cols = schema.tables()
    return {
        "documents": documents,
        "prices": frame(by_column(prices, cols["prices"]), cols["prices"]),
        "diagnostics": frame(
            _columns(diagnostics, Diagnostic, cols["diagnostics"]), cols["diagnostics"], len(diagnostics)
        ),
        "calibration": frame(by_column(calibration_rows(labels), schema.CALIBRATION), schema.CALIBRATION),
    }


def _rows_of(frames: Mapping[str, Any]) -> dict[str, int]:
    """Each table's rows, for the result: a table made apart or taken says how many it has."""
    return {k: v.rows if isinstance(v, (_ClaimsApart, _Taken)) else len(v) for k, v in frames.items()}


def _sorted_diagnostics(diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    """Each diagnostic once, by document, line, code, message and severity: the whole record,
    so that the order never falls to how a set happens to iterate."""
    return sorted(set(diagnostics), key=lambda d: (d.document, d.line or 0, d.code, d.message, d.severity))


@dataclass(frozen=True, slots=True)
class _Taken:
    """A table taken whole from the output the build replaces (`_Reuse`): its files are linked
    into the new output, and what reads the table reads them."""

    rows: int


@dataclass(frozen=True, slots=True)
class _Decided:
    """What the stages after normalize gave besides their tables (`TAKEN_TABLES`), under the
    digest of all they read (`key`, `_decided_key`), with each table's rows and its files'
    digests once written (`tables`: rows, CSV, Parquet). The cache keeps the last build's."""

    key: str
    diagnostics: tuple[Diagnostic, ...]
    claims_per_document: Mapping[str, int]
    """The rules' claims too: the documents table counts them."""
    labels: tuple[Label, ...]
    tables: Mapping[str, tuple[int, str, str]] = field(default_factory=dict)


DECIDED_ENTRY = "decided"
"""The cache entry that holds the last build's `_Decided`, one per output folder (`_Reuse.name`)."""

PAGE_ENTRY = "page"
"""The cache entry that holds the last build's page, one per output folder: its `_page_key`
and the digest of its report.html."""

STAMPS_ENTRY = "stamps"
"""The cache entry that holds the digests of an output folder's files, each with the stamp that
vouches for it (`write.Digests`), one per output folder: a build that finds a file's stamp as
recorded there does not read it again (at 10,000 documents, 419 MB: about 0.9 s on two cores)."""


def _out_name(out: Path) -> str:
    """The output folder's name in its cache entries: the default cache is shared by every
    output folder beside it, and each keeps what its own last build made."""
    return hashlib.sha256(os.fsencode(out.resolve())).hexdigest()[:16]


def _recorded(cache: Cache, out: Path) -> Digests:
    """The digests of `out`'s files as the last build recorded them (`STAMPS_ENTRY`); none when
    there is no record or it is not one."""
    known = cache.load(f"{STAMPS_ENTRY}-{_out_name(out)}")
    if isinstance(known, dict) and all(_is_vouched(name, v) for name, v in known.items()):
        return Digests(known)
    return Digests()


def _is_vouched(name: object, v: object) -> bool:
    """Whether a record's entry is a file's name with a stamp and a digest (`Vouched`)."""
    if not (isinstance(name, str) and isinstance(v, tuple) and len(v) == 2):
        return False
    return isinstance(v[0], Stamp) and isinstance(v[1], str)


def _record(cache: Cache, out: Path, digests: Digests, listed: Collection[str] | None = None) -> None:
    """Record for the next build the digests this one vouched for (of the files `listed`, when
    given), unless they are those recorded already: each whose file in `out` still has the
    stamp it had when it was read, so that a change since (by hand, while the build ran) is
    read by the next build."""
    vouched = {
        name: (stamp, sha)
        for name, (stamp, sha) in digests.vouched.items()
        if (listed is None or name in listed) and Stamp.of(out / name) == stamp
    }
    if vouched != digests.known:
        cache.put(f"{STAMPS_ENTRY}-{_out_name(out)}", vouched)


@dataclass
class _Reuse:
    """What `build`, `compute` and `_write` share about the output a build replaces (`previous`).
    When the stages after normalize would read all that made that output's tables
    (`_Decided.key` in the cache, and the same files), the tables are taken from there, each
    file checked against the digest the cache and the manifest list; otherwise `decided` is what
    this build's tables were made with, which the build keeps in the cache once they are
    written. An edit that changes no claim (one that moves no statement: a word of prose, a
    title, lines after the last statement) then decides nothing again; if it changes nothing the
    page shows either, the page is taken too (`page`)."""

    previous: Previous | None
    stage: Path
    """The folder this build writes into, where the tables taken are linked."""
    threads: int
    name: str
    """The output folder's, in the names of its cache entries: the default cache is shared by
    every output folder beside it, and each keeps what its own last build made."""
    digests: Digests
    """The digests of the output folder's files the last build recorded, and those of this
    build's files (`STAMPS_ENTRY`)."""
    page: tuple[str, str] | None = None
    """The last build's page (`PAGE_ENTRY`)."""
    decided: _Decided | None = None
    """What this build made its tables with, when it made them."""
    made_page: tuple[str, str] | None = None
    """This build's page, once written."""

    @classmethod
    def of(cls, cache: Cache, out: Path, stage: Path, threads: int, digests: Digests) -> _Reuse:
        name = _out_name(out)
        page = cache.load(f"{PAGE_ENTRY}-{name}")
        if not (isinstance(page, tuple) and len(page) == 2 and all(isinstance(k, str) for k in page)):
            page = None
        return cls(Previous.of(out, code_fingerprint(), digests), stage, threads, name, digests, page)

    def keep(self, cache: Cache, out: Path, outputs: Mapping[str, Any]) -> None:
        """What the next build may take, now that this one's files are known."""
        _record(cache, out, self.digests, {*_files_of(outputs, outputs), *DOCUMENTATION})
        if self.decided:
            tables = {n: _as_listed(outputs[n]) for n in TAKEN_TABLES}
            cache.put(f"{DECIDED_ENTRY}-{self.name}", replace(self.decided, tables=tables))
        if self.made_page and self.made_page != self.page:
            cache.put(f"{PAGE_ENTRY}-{self.name}", self.made_page)


def _as_listed(entry: Mapping[str, Any]) -> tuple[Any, Any, Any]:
    """A table's entry in a manifest's outputs: its rows and its CSV's and Parquet file's digests."""
    return (entry.get("rows"), entry.get("sha256"), entry.get("parquet_sha256"))


def _files_of(outputs: Mapping[str, Mapping[str, Any]], names: Iterable[str]) -> dict[str, str]:
    """The files of the tables `names`, by file name, with the digests a manifest's outputs list."""
    return {f"{n}.{suffix}": outputs[n][key] for n in names for suffix, key in SUFFIX_DIGEST}


SUFFIX_DIGEST = (("csv", "sha256"), ("parquet", "parquet_sha256"))
"""A table's two files, and the manifest key of each one's digest."""


def _table_files(name: str) -> tuple[str, ...]:
    """The files a table is written as (`write_table`): its CSV and its Parquet file."""
    return tuple(f"{name}.{suffix}" for suffix, _ in SUFFIX_DIGEST)


def _decided_key(
    stated: Mapping[str, Mapping[str, str]],
    norm: Normalized,
    sources: Mapping[str, Source],
    upstream: Mapping[str, Locked],
    settings: Settings,
) -> str:
    """A digest of all the stages after normalize read: each document's claims by their digests
    in the normalize memo (`stated`), the sizes mentioned, the prices, every document's source
    as classified (its copies found), the upstream lock, the setting they use and the code."""
    claims = sorted((path, sorted(by_entity.items())) for path, by_entity in stated.items())
    return digest(
        code_fingerprint(),
        settings.stale_after_days,
        claims,
        norm.mentions,
        norm.prices,
        sorted(sources.items()),
        sorted(upstream.items()),
    )


def _taken(cache: Cache, reuse: _Reuse, key: str) -> _Decided | None:
    """The last build's `_Decided` when its key is `key` and the output it replaces holds its
    tables, each file as the cache and that output's manifest list it: then the files are
    linked into the staging folder, each checked there (`Previous.take`), their digests known
    for the manifest. None otherwise, and the staging folder holds none of them."""
    previous = reuse.previous
    kept = cache.load(f"{DECIDED_ENTRY}-{reuse.name}")
    if previous is None or not isinstance(kept, _Decided) or kept.key != key or set(kept.tables) != set(TAKEN_TABLES):
        return None
    if any(_as_listed(previous.outputs.get(name, {})) != kept.tables[name] for name in TAKEN_TABLES):
        return None
    listed = _files_of(previous.outputs, TAKEN_TABLES)
    taken = _each(sorted(listed), reuse.threads, lambda file: previous.take(file, listed[file], reuse.stage))
    if all(taken):
        return kept
    for file in listed:
        (reuse.stage / file).unlink(missing_ok=True)
        previous.hashes.pop(file, None)  # not in the staging folder: no digest for the manifest
    return None


class _ClaimsApart:
    """The claims table made, checked against its contract and written by a forked process, so
    that the build process never holds it: at 10,000 documents it is 171 MiB of Arrow, which the
    build's peak and every process forked after it (the report's, the memos' savers) counted.
    The process is forked once the claims are known, and waits for what only reconciling tells:
    the checks each claim fails (`decided`). It writes the table into the staging folder then,
    while the build makes the other tables (at 10,000 documents, one value changed, a core was
    idle there), not once the build writes them. The build keeps the rows the report shows,
    the claims some conflict cites (`shown`)."""

    def __init__(self, claims: Sequence[Claim], documents: Any, stack: contextlib.ExitStack, wait: bool) -> None:
        import multiprocessing

        self.rows = len(claims)
        self.shown: Any = None
        orders, self._orders = multiprocessing.Pipe(duplex=False)
        self._stack = stack.enter_context(contextlib.ExitStack())
        made = partial(_claims_apart, claims, documents, orders, self._orders, os.getpid(), wait)
        self._made = self._stack.enter_context(beside(made, what="claims table"))
        # Closed before the block waits for the answer: a process left without its orders (the
        # build failed first) then reads their end and stops.
        self._stack.callback(self._orders.close)
        orders.close()

    @classmethod
    def fork(
        cls, claims: Sequence[Claim], documents: Any, stack: contextlib.ExitStack, *, wait: bool = False
    ) -> _ClaimsApart | None:
        """None when no process could be forked (`beside` then ran the work here, where it
        does nothing): the build makes the table itself. With `wait`, the process makes the
        table once told to (`start`), not at once."""
        apart = cls(claims, documents, stack, wait)
        if apart._made.done:
            apart._stack.close()
            return None
        return apart

    def start(self) -> None:
        """Make the table now (a process forked to `wait`)."""
        self._orders.send(None)

    def decided(
        self,
        claims: Sequence[Claim],
        checks: Mapping[str, tuple[str, ...]],
        cited: set[str],
        folder: Path,
        previous: Previous | None,
    ) -> None:
        """The checks each claim fails, to the process (which makes the table's last column),
        with the folder to write the table into and the output it replaces; the rows of the
        claims `cited`, kept here for the report."""
        self._orders.send(checks)
        self._orders.send((folder, previous))
        shown = [c for c in claims if c.claim_id in cited]
        self.shown = _claims_frame(shown)
        self.shown["checks_failed"] = _checks_column(shown, checks)

    def result(self) -> tuple[list[str], dict[str, str]]:
        """The claims table's broken promises, and the hashes of its files that `previous`
        knows (`Previous.take_csv`), once they are written."""
        self._stack.close()
        return self._made.result()

    def stop(self) -> None:
        """The process ended where it is, unanswered: the build failed, and its folder goes.
        (`beside`'s block ends with an error, which stops its process rather than wait.)"""
        failed = HelperDied("the build failed before the claims table was written")
        self._stack.__exit__(type(failed), failed, None)


def _claims_apart(
    claims: Sequence[Claim], documents: Any, orders: Connection, theirs: Connection, build: int, wait: bool
) -> tuple[list[str], dict[str, str]]:
    if os.getpid() == build:  # not forked: its orders would never come
        return [], {}
    from pipeline.outputs import contracts

    theirs.close()  # the build's end: only the build may hold it open
    if wait:
        orders.recv()
    table = _claims_frame(claims)
    table["checks_failed"] = _checks_column(claims, orders.recv())
    problems = contracts.validate({"documents": documents, "claims": table}, give_back, tables=("claims",))
    folder, previous = orders.recv()
    write_table(table, schema.CLAIMS, "claims", folder, consume=True, previous=previous)
    own = _table_files("claims")
    for file in own:  # on disk before the build swaps the output in, which syncs them again
        sync_file(folder / file)
    # Only the claims table's files: the rest of its copy of the digests is the build's.
    return problems, {file: sha for file, sha in (previous.hashes if previous else {}).items() if file in own}


RECONCILE_BUCKETS = 32
"""Buckets of entities whose decisions a build keeps for the next (`reconcile.buckets`): an edit
decides again the few whose inputs it changed, and the rows of the others are loaded."""
BUCKETS_AT_ONCE = 4
"""Buckets a process decides and finishes at a time (`part`), letting go of their votes and
facts before the next: at 10,000 documents the process deciding half of the entities (before
`DECIDE_SHARE`) peaked at 1,070 MiB where it took 1,237 MiB deciding them at once, for about 0.4 s
more of reconcile (one bucket at a time: 1,048 MiB, 1.2 s more)."""


def _early_keys(
    claims: Sequence[Claim],
    sources: Mapping[str, Source],
    names: NameRules,
    siblings: Siblings,
    suspects: Mapping[str, tuple[str, str]],
    stale_after_days: int,
    stated: Mapping[str, Mapping[str, str]],
    moved: Sequence[tuple[str, str, str]],
    prices: Sequence[Mapping[str, Any]],
) -> dict[int, str]:
    """`_bucket_keys` before the plan is made, from its shape, which is all they read of it."""
    shaped = shape(claims, sources, names, siblings, stale_after_days=stale_after_days, suspects=suspects)
    return _bucket_keys(shaped, buckets(shaped, RECONCILE_BUCKETS), stated, moved, sources, prices)


def _bucket_keys(
    p: Plan | Shape,
    bucket_of: Mapping[str, int],
    stated: Mapping[str, Mapping[str, str]],
    moved: Sequence[tuple[str, str, str]],
    sources: Mapping[str, Source],
    prices: Sequence[Mapping[str, Any]],
) -> dict[int, str]:
    """Each bucket's key: a digest of all that deciding and finishing its entities reads
    (`reconcile.reads`), their prices, the rule-made claims about them, and the claims the
    documents that state them state about them. Those are given by their digests in the
    normalize memo (`stated`, by the entity each names), with the claims moved to another name
    by the certain aliases (`moved`): hashing every claim in every build cost more than
    deciding what changed, and a whole document's key would decide again every entity it
    states after an edit of one of them."""
    shared, series, own = reads(p)
    into = {name: size for name, size, _ in moved}
    cited: dict[str, set[str]] = defaultdict(set)
    # A document the memo did not key (none did without a cache) stands for itself by its claims.
    unkeyed: dict[tuple[str, str], list[Claim]] = defaultdict(list)
    for c in p.claims:
        cited[c.entity].add(c.document)
        if c.document not in stated:
            unkeyed[c.document, c.entity].append(c)
    made: dict[str, list[Claim]] = defaultdict(list)
    for c in p.name_claims:
        made[c.entity].append(c)
    priced: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for row in prices:
        priced[row["size"]].append(row)
    citing = {d for docs in cited.values() for d in docs}
    about: dict[tuple[str, str], list[tuple[str, str]]] = defaultdict(list)
    for d in citing & stated.keys():
        for named, said in sorted(stated[d].items()):
            about[d, into.get(named, named)].append((named, said))
    of_source = {d: digest(sources.get(d)) for d in citing}

    def said_of(d: str, entity: str) -> object:
        if d not in stated:
            return unkeyed[d, entity]
        # A claim no alias moved under a name an alias moves (not a size's): the whole document.
        return about.get((d, entity)) or sorted(stated[d].items())

    def read_of(entity: str) -> list[tuple[str, object, str]]:
        return [(d, said_of(d, entity), of_source[d]) for d in sorted(cited.get(entity, ()))]

    # The series' claims by their documents' digests, like an entity's: pickling the 132,000
    # claims of 10,000 documents' series for every build cost 0.3 s.
    base = digest(code_fingerprint(), shared, moved, [(s, read_of(s), made.get(s, [])) for s in series])
    inputs: dict[int, list[object]] = defaultdict(list)
    for entity in sorted(bucket_of):
        inputs[bucket_of[entity]].append((own[entity], read_of(entity), made.get(entity, []), priced.get(entity, [])))
    return {b: digest(base, bucket) for b, bucket in inputs.items()}


def _still_holds(kept: _Part, rules: Mapping[tuple[str, str], float]) -> bool:
    """Whether a bucket's kept decisions hold in this build: its key matched, and every rate of
    the rules' agreement that its confidences read is the same."""
    return isinstance(kept.facts, _Packed) and all(
        rules.get(rule, 0.0) == rate for read in kept.rates.values() for rule, rate in read
    )


def _by_bucket(
    parts: Sequence[_Part], bucket_of: Mapping[str, int], decided: Iterable[int]
) -> Iterator[tuple[int, _Part]]:
    """The parts' rows regrouped by bucket, one for each bucket `decided` (an empty one too: it
    is kept as decided, not as missing), its facts packed (`_Packed`) one bucket at a time. A
    claim checked for keys of a bucket keeps the checks of its last one there, as `merge`
    keeps the last of all the buckets."""
    import numpy as np
    import pandas as pd

    rows_of: list[tuple[Any, Any]] = []
    sizes_of: list[tuple[Any, Any]] = []
    conflicts: dict[int, list[Conflict]] = defaultdict(list)
    links: dict[int, list[Link]] = defaultdict(list)
    failures: dict[int, list[Failure]] = defaultdict(list)
    members: dict[int, list[tuple[str, str]]] = defaultdict(list)
    rates: dict[int, dict[str, tuple[tuple[tuple[str, str], float], ...]]] = defaultdict(dict)
    for part in parts:
        for entity, read in part.rates.items():
            rates[bucket_of[entity]][entity] = read
        rec = part.rec
        rows_of.append((part.facts, _buckets_of_rows(part.facts["entity"], bucket_of)))
        sizes_of.append((part.sizes, _buckets_of_rows(part.sizes["size"], bucket_of)))
        for c in rec.conflicts:
            conflicts[bucket_of[c.entity]].append(c)
        for lk in rec.links:
            links[bucket_of[lk.entity]].append(lk)
        # Each bucket keeps the checks of its own last key for a claim: a series' claim is
        # checked for sizes in several buckets, and any of them may be decided again alone.
        for failure in part.failures:
            failures[bucket_of[failure[1][1][0]]].append(failure)
        for size, series in part.members:
            members[bucket_of[size]].append((size, series))
    for b in sorted(set(decided)):
        # Plain text, as kept: a column one part encoded (`_compact`) and another did not
        # would join as Python objects.
        facts = pd.concat(
            [_decoded(rows.take(np.flatnonzero(of_row == b))) for rows, of_row in rows_of], ignore_index=True
        )
        sizes = pd.concat([rows.take(np.flatnonzero(of_row == b)) for rows, of_row in sizes_of], ignore_index=True)
        yield (
            b,
            _Part(
                Reconciled((), tuple(conflicts[b]), tuple(links[b]), (), *last_checks(failures[b])),
                _Packed.of(facts),
                sizes,
                members[b],
                rates[b],
            ),
        )


def _buckets_of_rows(names: Any, bucket_of: Mapping[str, int]) -> Any:
    """The bucket of each row whose entity `names` (a column) gives, as a numpy array: each
    distinct name looked up once, since the facts hold an entity's name for each attribute."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    column = _one_array(names.array)
    encoded = column if pa.types.is_dictionary(column.type) else pc.dictionary_encode(column)  # `_compact`
    of_name = np.array([bucket_of[name] for name in encoded.dictionary.to_pylist()], dtype=np.int64)
    return of_name[encoded.indices.to_numpy(zero_copy_only=False)]


@dataclass(frozen=True, slots=True)
class _Packed:
    """A DataFrame's columns, each pickled and compressed (zstd): a kept bucket's facts take a
    tenth of the room on disk and in the process that saves them, and a build that joins the
    kept buckets' facts unpacks one column of them at a time (`_in_order`), not every bucket's
    whole table at once."""

    columns: tuple[str, ...]
    data: tuple[bytes, ...]
    sizes: tuple[int, ...]

    @classmethod
    def of(cls, frame: Any) -> _Packed:
        import pyarrow as pa

        raws = [pickle.dumps(frame[name], protocol=pickle.HIGHEST_PROTOCOL) for name in frame.columns]
        data = tuple(pa.compress(raw, codec="zstd", asbytes=True) for raw in raws)
        return cls(tuple(frame.columns), data, tuple(len(raw) for raw in raws))

    def column(self, name: str) -> Any:
        import pyarrow as pa

        i = self.columns.index(name)
        return pickle.loads(pa.decompress(self.data[i], decompressed_size=self.sizes[i], codec="zstd", asbytes=True))

    def frame(self) -> Any:
        import pandas as pd

        return pd.DataFrame({name: self.column(name) for name in self.columns}, columns=list(self.columns), copy=False)


CLAIMS_TABLE_WORK = 0.08
"""What making the claims table costs, as a share of deciding every entity (their claims and
inherited votes, `divide`): a build that keeps its records (`compute`) makes it while a forked
process decides the other part, so its own part is smaller by it: 49% of the deciding
(`DECIDE_SHARE` of it and the table). A build that keeps none has it made by a process of its
own (`_ClaimsApart`)."""


@dataclass(frozen=True, slots=True)
class _Part:
    """What a part of the entities (`divide`) gives the tables, made where it was decided."""

    rec: Reconciled
    """Its facts only when the caller keeps the records: else they are in `facts`."""
    facts: Any
    """The rows of the facts table, as a DataFrame: its text encoded where one of two parts
    holds it (`_compact`), or a kept bucket's `_Packed` columns."""
    sizes: Any
    """Its rows of vm_sizes, as a DataFrame in size order: as Python dicts, the rows of both
    parts were held at once in the build process (20 MB more at 10,000 documents)."""
    members: list[tuple[str, str]]
    """(size, series) for each size whose series is known (`_not_built`)."""
    rates: Mapping[str, tuple[tuple[tuple[str, str], float], ...]] = field(default_factory=dict)
    """The rules' agreement its entities' confidences read (`reconcile.rates_read`), when kept."""
    failures: Sequence[Failure] = ()
    """Every check its keys failed (`Decided.failures`), when kept: split by bucket."""


def _chunks(bucket_of: Mapping[str, int], entities: frozenset[str] | None) -> list[frozenset[str]]:
    """The entities (every one, without `entities`) by runs of `BUCKETS_AT_ONCE` buckets, in
    the buckets' order."""
    of: dict[int, set[str]] = defaultdict(set)
    for entity in bucket_of if entities is None else entities:
        of[bucket_of[entity] // BUCKETS_AT_ONCE].add(entity)
    return [frozenset(of[b]) for b in sorted(of)]


def _series_members(facts: Iterable[Fact]) -> list[tuple[str, str]]:
    return [
        (f.entity, f.value_text) for f in facts if f.entity_kind == "size" and f.attribute == "series" and f.value_text
    ]


def _in_order(parts: list[Any], by: list[str]) -> Any:
    """The rows of frames with the same columns as one frame sorted by the `by` columns (text,
    compared as Python compares it); each part is already in that order. Made a column at a
    time, each part's column let go once it is in the whole: the parts are not copied at once.
    The list should be all that holds its frames: each is replaced there by its columns, which
    are let go as they are joined. A part may be a kept bucket's `_Packed` frame, whose columns
    are unpacked one at a time. A text column a part holds encoded (`_compact`) is plain in
    the whole."""
    import pandas as pd
    import pyarrow as pa
    import pyarrow.compute as pc

    def column(part: Any, name: str) -> Any:
        # A part at a time: joining the parts' encoded chunks first would unify their
        # dictionaries, a hash of every value (in a trial with two parts of 320,000 reasons,
        # 200,000 of them distinct: 115 MiB more).
        return _decoded(part.column(name) if isinstance(part, _Packed) else part[name]).array

    if len(parts) == 1:
        return _decoded(parts[0].frame() if isinstance(parts[0], _Packed) else parts[0])
    columns = list(parts[0].columns)
    # Each frame's columns by name, in its place in the list: a column is let go once it is in
    # the whole. Deleting the frames' columns one at a time cost pandas more than joining them
    # (at 10,000 documents, one change: 28 parts of vm_sizes' 52 columns, a third of the time).
    # The sort keys are decoded here, once: they are read for the order and joined after.
    for i, part in enumerate(parts):
        if not isinstance(part, _Packed):
            parts[i] = {name: _decoded(part[name]) if name in by else part[name] for name in part.columns}
        del part  # nor does the loop hold the last frame
    keys = pa.table({name: pa.chunked_array([pa.array(column(part, name)) for part in parts]) for name in by})
    order = pc.sort_indices(keys, sort_keys=[(name, "ascending") for name in by]).to_numpy()
    del keys
    # Parts that follow each other (the two parts of a divided reconcile) are joined as they are.
    ordered = bool((order[1:] > order[:-1]).all())
    whole: dict[str, Any] = {}
    for name in columns:
        # Joined and put in order as arrays, not as Series: pandas' concat and take of a
        # Series make and check an index for each column (at 10,000 documents, the facts of
        # 32 buckets: 0.95-1.09 -> 0.70-0.87 s).
        arrays = [column(part, name) for part in parts]
        for part in parts:
            if isinstance(part, dict):
                del part[name]
        joined = type(arrays[0])._concat_same_type(arrays)  # pandas' extension array interface
        del arrays
        if isinstance(joined, pd.arrays.ArrowStringArray):
            # One chunk before the rows are put in order: Arrow takes from a column of many
            # chunks by joining them first, a copy beside the parts' own. The parts' chunks
            # go here, before the take: not three copies of the column at once, but two.
            joined = _one_array(joined)
        # The parts' columns were unpickled into the C heap, the whole is made in Arrow's pool:
        # what the parts free is handed back as it goes, or the two would add up (10,000
        # documents, one change: the build's peak 1,532 -> 1,407 MiB).
        give_back()
        if isinstance(joined, pa.Array):
            joined = pd.arrays.ArrowStringArray(joined if ordered else joined.take(order))
        elif not ordered:
            joined = joined.take(order)
        whole[name] = pd.Series(joined, name=name, copy=False)
        del joined
    # Not copied again: a frame made from a dict copies its columns unless told not to (the
    # masked numbers of facts, 41 MiB at 10,000 documents).
    return pd.DataFrame(whole, columns=columns, copy=False)


def _compact(frame: Any) -> Any:
    """`frame`, each text column whose values repeat (its dictionary encoding at most
    `ENCODED_AT_MOST` of its size) dictionary-encoded in place. The facts of each of two parts
    wait, encoded, until they are joined (`_in_order`), the other part's having come through
    the pipe: at 10,000 documents the facts' text is 178 MB plain and 67 MB encoded (the
    reasons 69 MB and 25 MB), and the other part's plain table, arriving, made the build's peak."""
    import pandas as pd
    import pyarrow.compute as pc

    if frame.empty:
        return frame
    for name in frame.columns:
        if isinstance(array := frame[name].array, pd.arrays.ArrowStringArray):
            plain = _one_array(array)
            coded = pc.dictionary_encode(plain)
            if coded.nbytes <= ENCODED_AT_MOST * plain.nbytes:
                frame[name] = pd.Series(pd.arrays.ArrowExtensionArray(coded), index=frame.index, copy=False)
    return frame


ENCODED_AT_MOST = 0.5
"""The share of its plain size that a text column's dictionary encoding may take for
`_compact` to keep it encoded: a column of mostly distinct values (claim ids) stays plain."""


def _is_encoded(array: Any) -> bool:
    """Whether a pandas array is a text column `_compact` encoded (Arrow's dictionary type)."""
    import pandas as pd
    import pyarrow as pa

    return isinstance(array.dtype, pd.ArrowDtype) and pa.types.is_dictionary(array.dtype.pyarrow_dtype)


def _decoded(data: Any) -> Any:
    """A frame or Series with every encoded text column (`_compact`) plain again."""
    import pandas as pd
    import pyarrow as pa

    if isinstance(data, pd.Series):
        if not _is_encoded(data.array):
            return data
        plain = pa.array(data.array).cast(pa.large_string())  # chunk by chunk, if several
        return pd.Series(pd.arrays.ArrowStringArray(plain), index=data.index, name=data.name, copy=False)
    if not any(_is_encoded(data[name].array) for name in data.columns):
        return data
    return pd.DataFrame({name: _decoded(data[name]) for name in data.columns}, columns=list(data.columns), copy=False)


def _one_array(text: Any) -> Any:
    """The Arrow array of a text column's pandas array: its chunks joined if it has several,
    as it is if it has one (pandas gives a one-chunk array without a copy; joining one chunk
    would copy it). A column joined from parts is a chunk per part, which writing joins
    (`write._arrow_table`: a table's bytes must not depend on how it was put together) while
    every table is held; joined where the parts are, before the other tables are made, the copy
    of the longest (facts.reason, 70 MB at 10,000 documents) costs that much less at the peak."""
    import pyarrow as pa

    array = pa.array(text)
    return array.combine_chunks() if isinstance(array, pa.ChunkedArray) else array


def _not_built(mentions: Sequence[Mention], built: set[str], series_of: Iterable[tuple[str, str]]) -> list[Diagnostic]:
    """A table row whose first cell names a size that is not a row of vm_sizes: said once per
    row, with why, so that no size is dropped in silence. A row that names a series where a
    size belongs says which sizes it most likely means; `series_of` are (size, its series)."""
    members: dict[str, list[str]] = defaultdict(list)
    for size, series in series_of:
        members[series_key(series)].append(size)
    out = []
    for m in mentions:
        key = series_key(m.written) if m.size is None else None
        if key and members.get(key):
            sizes = sorted(members[key])
            means = sizes[0] if len(sizes) == 1 else f"one of {', '.join(sizes)}"
            message = (
                f"{m.written!r} names the series {m.written.strip()} where a size name belongs; it most likely "
                f"means {means}; the row's values are not read"
            )
            out.append(Diagnostic("warning", "suspect_size_name", m.document, m.line, message))
            continue
        if m.size is None:
            message = (
                f"{m.written!r} does not follow the Azure size naming convention, so the row yields no size "
                "and its values are not read"
            )
        elif m.size not in built:
            what = (
                "a comparison table, whose other columns describe another size"
                if m.table == "comparison"
                else "a size table"
            )
            message = f"{m.written!r} ({m.size}) is named in {what}, and no document states a value for it"
        else:
            continue
        out.append(Diagnostic("warning", "size_not_built", m.document, m.line, message))
    return out


def run_normalize(
    extractions: Sequence[Extraction],
    know: Any,
    split: bool,
    memo: Memo | None,
    content: Mapping[str, str] | None = None,
    stated: dict[str, Mapping[str, str]] | None = None,
    contributions: Mapping[str, Contribution] | None = None,
    statements: Mapping[str, bytes] | None = None,
) -> Normalizing:
    """`normalize` (`Normalizing.whole`), with each document's claims from `memo` when neither it
    nor the context it reads changed, and with `split` the other documents shared with a forked
    process (which takes all but `NORMALIZE_SHARE` of them).

    `content` gives a document's parse key (`entry_key`: its bytes, path, limits and the code),
    which determines its extraction: keying the memo by it spares pickling every extraction.
    `stated`, when given with a memo, gets for each document the digest of its claims about
    each entity (`_Stated`), kept in the memo beside the claims. `contributions` are the
    documents' parts of the shared context made where they were parsed (`parse_one`), and
    `statements` the statements of those whose extraction the parse memo gave without them
    (`Parsed.statements`): only the documents normalized again need them. The claims the memo
    gave are unpickled only when asked for (`Normalizing`)."""
    content, statements = content or {}, statements or {}
    ctx = normalize_context(extractions, know, contributions)
    done: dict[str, _Stated] = {}
    keys: dict[str, str] = {}
    if memo is not None:
        memo.pack = _Stated.bagged
        shared = digest(*ctx.fingerprint())
        for ex in extractions:
            path = ex.document.path
            # Without its parse key, a document is keyed by its whole extraction, statements too.
            whole = content[path] if path in content else with_statements(ex, statements)
            keys[path] = key = digest(shared, whole)
            if isinstance(hit := memo.get(key), _Stated):
                done[ex.document.path] = hit
    # Whatever is normalized again needs its statements, memo or not.
    todo = [with_statements(ex, statements) for ex in extractions if ex.document.path not in done]
    digests = memo is not None

    def part(chunk: Sequence[Extraction]) -> dict[str, _Stated]:
        return {ex.document.path: _Stated.of(normalize_document(ctx, ex), digests) for ex in chunk}

    # A fork pays only for a large share of the work; an edit of a few documents is done here.
    # The build process keeps the larger part (`NORMALIZE_SHARE`).
    split = split and len(todo) * 4 >= len(extractions)
    kept = int(len(todo) * NORMALIZE_SHARE) if split else len(todo)
    with beside(lambda: part(todo[kept:]), parallel=split, what="normalizing", stream=True) as rest:
        fresh = part(todo[:kept])
    fresh.update(rest.result())
    if memo is not None:
        for path, result in fresh.items():
            memo.put(keys[path], result)
    parts = {**done, **fresh}
    if stated is not None and memo is not None:  # without a memo, no digest was made
        stated.update((path, part.by_entity) for path, part in parts.items())
    return Normalizing(gather(extractions, ctx, {path: part.head for path, part in parts.items()}), parts)


@dataclass(frozen=True, slots=True)
class Normalizing:
    """What normalize gave: `head` is all of it but the claims, which `whole` joins from each
    document's part. A build that takes its tables from the output it replaces reads only the
    head, and never unpickles the claims the memo gave (at 10,000 documents, loading the memo
    took 0.98 s with them)."""

    head: Normalized
    parts: Mapping[str, _Stated]

    def whole(self) -> Normalized:
        return replace(self.head, claims=gather_claims({path: part.claims for path, part in self.parts.items()}))


_CLAIM_VALUES = values_of(Claim)


@dataclass(frozen=True, slots=True)
class _Stated:
    """A document's claims as the normalize memo keeps them, with the digest of its claims
    about each entity (by the entity it names, before any alias moves them): what a bucket of
    decisions reads of the document (`_bucket_keys`). An edit that leaves an entity's claims
    as they were then leaves the decisions about it kept.

    The memo keeps the claims of a shard's documents in one pickle of their own (`bagged`),
    unpickled when a document's `claims` are first read: a memo's entries load without them,
    and the documents of a shard still share the strings their claims repeat (pickled one
    document at a time, the claims of a one-value build at 10,000 documents took 65 MB more)."""

    packed: tuple[Claim, ...] | _InBag
    diagnostics: tuple[Diagnostic, ...]
    mentions: tuple[Mention, ...]
    by_entity: Mapping[str, str]

    @classmethod
    def of(cls, claims: DocumentClaims, digests: bool = True) -> _Stated:
        # Each claim by its values: hashing the records themselves called Python for each one
        # (at 10,000 documents, 0.82 s of CPU here; 0.46 s by their values).
        about: dict[str, list[tuple[object, ...]]] = defaultdict(list)
        for c in claims.claims if digests else ():  # without a memo to keep them in, no bucket to key
            about[c.entity].append(_CLAIM_VALUES(c))
        by_entity = {entity: digest(said) for entity, said in about.items()}
        return cls(claims.claims, claims.diagnostics, claims.mentions, by_entity)

    @property
    def claims(self) -> tuple[Claim, ...]:
        packed = self.packed
        return packed.bag.claims()[packed.key] if isinstance(packed, _InBag) else packed

    @property
    def head(self) -> DocumentClaims:
        """The document's part without its claims."""
        return DocumentClaims((), self.diagnostics, self.mentions)

    @staticmethod
    def bagged(shard: dict[str, Any]) -> dict[str, Any]:
        """A memo shard's entries as it writes them (`Memo.pack`): their claims in one bag."""
        stated = {key: value for key, value in shard.items() if isinstance(value, _Stated)}
        bag = _Bag({key: value.claims for key, value in stated.items()})
        return {**shard, **{key: replace(value, packed=_InBag(bag, key)) for key, value in stated.items()}}


class _Bag:
    """The claims of a memo shard's documents, by key: pickled as one pickle of its own, which
    is unpickled the first time a document's claims are read."""

    def __init__(self, claims: dict[str, tuple[Claim, ...]] | bytes) -> None:
        self._claims = claims

    def claims(self) -> dict[str, tuple[Claim, ...]]:
        if isinstance(self._claims, bytes):
            self._claims = pickle.loads(self._claims)
        return self._claims  # type: ignore[return-value]

    def __reduce__(self) -> tuple[Any, ...]:
        claims = self._claims
        if not isinstance(claims, bytes):
            claims = pickle.dumps(claims, protocol=pickle.HIGHEST_PROTOCOL)
        return (_Bag, (claims,))

    @property
    def loaded(self) -> bool:
        return not isinstance(self._claims, bytes)


@dataclass(frozen=True, slots=True)
class _InBag:
    """Where a document's claims are: in `bag` (shared by its shard's documents), under `key`."""

    bag: _Bag
    key: str


def _failed(saved: Sequence[Beside[int]]) -> int:
    """Entries not written; a writer stopped by an error of the build has no answer."""
    return sum(handle.result() for handle in saved if handle.done)


def _save_beside(
    memo: Memo, parallel: bool, saving: contextlib.ExitStack, fill: Callable[[], None] | None = None
) -> Beside[int]:
    """Count what `memo` reused, and write it in a forked process (with `parallel`) while the
    build goes on: pickling every result of a large build is seconds of work nothing waits for.
    `fill` puts the results first, where making them is work nothing waits for either. The
    handle's result is the number of entries that could not be written."""

    def write() -> int:
        failed = 0
        if fill is not None:
            try:
                fill()
            except Exception:  # the memo is a cache: what could not be put is made again next time
                failed = 1
        return failed + memo.write()

    memo.count()
    handle = saving.enter_context(_writing(memo, write, parallel))
    memo.release()
    return handle


@contextlib.contextmanager
def _writing(memo: Memo, write: Callable[[], int], parallel: bool) -> Iterator[Beside[int]]:
    """`write` beside the build; a writer that dies (the system kills the largest process when
    memory runs out) loses a cache, not the build, whose output is written by then: the next
    build computes again what it would have kept, and the build says so (`CacheStats.lost`)."""
    try:
        with beside(write, parallel=parallel, what=f"saving of the {memo.name} memo") as handle:
            yield handle
    except HelperDied as exc:
        memo.cache.stats.write_errors += 1
        memo.cache.stats.lost.append(f"{exc}; the next build computes it again")


def _splits(settings: Settings, documents: int) -> bool:
    """Whether a stage hands half its work to a second process: only with a second core and
    enough documents, since a fork of a small build costs more than it saves."""
    return cores(settings.workers) > 1 and documents >= MIN_PARALLEL


def manifest(
    sources: Path,
    result: BuildResult,
    documents: Any,
    folder: Path,
    key: str,
    known: Mapping[str, str] | None = None,
    threads: int = 1,
    digests: Digests | None = None,
) -> dict[str, Any]:
    """What went in and what came out, by content hash: what a no-op build and drift check first,
    and the code that wrote it (what the next build's `Previous` checks).

    `documents` is the documents table (a DataFrame with `document` and `sha256`); `known` are
    the digests of files in `folder` the build already took, by file name; the others are hashed
    by `threads` threads (`_digests`), each vouched for in `digests` when its stamp can: by now
    the build's other processes are done."""
    known = known or {}
    files = [file for name in sorted(result.tables) for file in _table_files(name)]
    hashed = _digests(folder, [name for name in (*files, *DOCUMENTATION) if name not in known], threads, digests)

    def file_hash(name: str) -> str:
        return known.get(name) or hashed[name]

    inputs = dict(zip(documents["document"], documents["sha256"], strict=True))
    for name in SIDE_INPUTS:
        if (sources / name).is_file():
            inputs[name] = file_sha256(sources / name)
    outputs = {
        name: {
            "rows": rows,
            "sha256": file_hash(f"{name}.csv"),
            "parquet_sha256": file_hash(f"{name}.parquet"),
        }
        for name, rows in sorted(result.tables.items())
    }
    return {
        "schema_version": schema.SCHEMA_VERSION,
        "pipeline_version": PIPELINE_VERSION,
        "knowledge_sha256": knowledge.fingerprint(),
        "build_key": key,
        "code_sha256": code_fingerprint(),
        "inputs": dict(sorted(inputs.items())),
        "outputs": outputs,
        "documentation": {name: {"sha256": file_hash(name)} for name in DOCUMENTATION},
    }


def _digests(folder: Path, names: Sequence[str], threads: int, digests: Digests | None = None) -> dict[str, str]:
    """The SHA-256 digest of each file `names` lists in `folder`, by `threads` threads: with
    `digests`, as they know it where a file's stamp vouches for it, and vouched for there."""
    sha256 = digests.sha256 if digests is not None else file_sha256
    return dict(zip(names, _each(names, threads, lambda name: sha256(folder / name)), strict=True))


_T = TypeVar("_T")


def _each(names: Sequence[str], threads: int, work: Callable[[str], _T]) -> list[_T]:
    """`work` on each of `names`, by `threads` threads: it hashes files, and hashlib and the
    reads let go of the interpreter's lock (a large build's files are hundreds of MB)."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=max(1, threads)) as pool:
        return list(pool.map(work, names))


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


def _columns(records: Sequence[Any], kind: type, columns: Sequence[schema.Column]) -> dict[str, Iterable[Any]]:
    """The columns that are plain fields of `kind`, each read with an attrgetter when `frame`
    converts it (give it `rows`); the caller adds the columns it derives (joined tuples) after."""
    own = {f.name for f in fields(kind)}
    return {c.name: map(attrgetter(c.name), records) for c in columns if c.name in own}


def _joined(values: Iterable[tuple[str, ...]], sep: str) -> Iterator[str | None]:
    return (sep.join(v) or None for v in values)


def _documents_frame(
    documents: Sequence[Document],
    subjects: Mapping[str, str | None],
    per_doc: Mapping[str, int],
    sources: Mapping[str, Source],
    upstream: Mapping[str, Locked],
) -> Any:
    cols = schema.DOCUMENTS
    rows = [
        {
            "document": d.path,
            "sha256": d.sha256,
            "encoding": d.encoding,
            "title": d.metadata.title,
            "author": d.metadata.author,
            "as_of": d.metadata.date,
            "date_field": d.metadata.date_field,
            "service": d.metadata.service,
            "canonical_url": sources[d.path].canonical_url,
            "tags": "; ".join(d.metadata.tags) or None,
            "family": source_family(d).name,
            "kind": sources[d.path].kind,
            "publisher": sources[d.path].publisher,
            "licence": sources[d.path].licence,
            "trust": sources[d.path].trust,
            "classified_by": sources[d.path].classified_by,
            "subject": subjects.get(d.path),
            "copy_of": sources[d.path].copy_of,
            "lines": d.text.count("\n") + 1,
            "claims": per_doc.get(d.path, 0),
            **_provenance(upstream.get(d.path)),
        }
        for d in documents
    ]
    return frame(by_column(rows, cols), cols)


def _claims_frame(claims: Sequence[Claim]) -> Any:
    """The claims table but for its `checks_failed` column (`_checks_column`), which only
    deciding every entity tells."""
    return frame(_columns(claims, Claim, schema.CLAIMS), schema.CLAIMS, len(claims))


def _checks_column(claims: Sequence[Claim], checks: Mapping[str, tuple[str, ...]]) -> Any:
    (column,) = (c for c in schema.CLAIMS if c.name == "checks_failed")
    failed = _joined((checks.get(c.claim_id, ()) for c in claims), "; ")
    return frame({column.name: failed}, [column], len(claims))[column.name]


def _sizes_frame(rows: Sequence[Mapping[str, Any]]) -> Any:
    cols = schema.tables()["vm_sizes"]
    return frame(by_column(sorted(rows, key=itemgetter("size")), cols), cols)


def _facts_frame(facts: Sequence[Fact]) -> Any:
    cols = schema.FACTS
    data = _columns(facts, Fact, cols)
    data["supporting_claims"] = (" ".join(f.supporting) for f in facts)
    data["contradicting_claims"] = _joined((f.contradicting for f in facts), " ")
    data["checks_failed"] = _joined((f.checks_failed for f in facts), "; ")
    return frame(data, cols, len(facts))


def _conflicts_frame(conflicts: Sequence[Conflict], upstream: Mapping[str, Locked]) -> Any:
    cols = schema.CONFLICTS
    data = _columns(conflicts, Conflict, cols)
    data["claims"] = (" ".join(c.claims) for c in conflicts)
    data["documents"] = ("; ".join(c.documents) for c in conflicts)
    data["links"] = (_links(c.documents, upstream) for c in conflicts)
    data["kinds"] = (", ".join(c.kinds) for c in conflicts)
    data["checks_failed"] = _joined((c.checks_failed for c in conflicts), "; ")
    data["note"] = (c.note or None for c in conflicts)
    return frame(data, cols, len(conflicts))


def _provenance(locked: Locked | None) -> dict[str, str | None]:
    """The documents table's upstream columns for a document upstream.lock lists (else empty)."""
    if locked is None:
        return dict.fromkeys(("repository", "commit", "upstream_path", "url"))
    return {"repository": locked.repository, "commit": locked.commit, "upstream_path": locked.path, "url": locked.url}


def _links(refs: Sequence[str], upstream: Mapping[str, Locked]) -> str | None:
    """The permalink to the line of each `document:line` whose document has one, joined with '; '."""
    links = []
    for ref in refs:
        document, _, line = ref.rpartition(":")
        if document in upstream:
            links.append(f"{upstream[document].url}#L{line}")
    return "; ".join(links) or None


STATUS_ORDER = ("unresolved", "resolved", "single_source", "agreed")


def _calibration_labels(
    claims: Sequence[Claim], rec: Reconciled, sources: Mapping[str, Source], know: Any, settings: Settings
) -> list[Label]:
    """The docs-against-API labels: the documents' claims reconciled without the API catalogs,
    set against the newest snapshot's values that pass the physical checks of the whole build."""
    catalog = [c for c in claims if sources[c.document].kind == "api_catalog"]
    if not catalog:
        return []
    docs = reconcile(
        [c for c in claims if sources[c.document].kind != "api_catalog"], sources, know, settings.stale_after_days
    )
    official = {c.entity for c in claims if sources[c.document].kind == "official_spec"}
    snapshot = {d: s.snapshot or 0 for d, s in sources.items() if s.kind == "api_catalog"}
    failing = {claim for claim, failed in rec.checks.items() if failed}
    sizes = [f for f in docs.facts if f.entity_kind == "size"]
    return calibrate_labels(sizes, catalog, snapshot, official, failing)


def calibration_rows(labels: Sequence[Label]) -> list[dict[str, Any]]:
    """The reliability table of `labels`: one row per bin, and an 'all' row with the ECE."""
    bins = reliability([(label.confidence, label.correct) for label in labels])
    rows: list[dict[str, Any]] = [
        {
            "bin": f"{b.low:.2f}-{b.high:.2f}",
            "low": b.low,
            "high": b.high,
            "facts": b.facts,
            "mean_confidence": b.confidence,
            "accuracy": b.accuracy,
        }
        for b in bins
    ]
    if labels:
        rows.append(
            {
                "bin": "all",
                "low": 0.0,
                "high": 1.0,
                "facts": len(labels),
                "mean_confidence": round(sum(label.confidence for label in labels) / len(labels), 4),
                "accuracy": round(sum(label.correct for label in labels) / len(labels), 4),
                "ece": expected_calibration_error(bins),
            }
        )
    return rows


def _price_rows(prices: Sequence[Price], sources: Mapping[str, Source]) -> list[dict[str, Any]]:
    """One row per catalog price, marked `newest` where no newer snapshot of its catalog prices
    the size."""
    newest: dict[tuple[str, str], int] = {}
    for p in prices:
        src = sources[p.document]
        key = (src.catalog or p.document, p.size)
        newest[key] = max(newest.get(key, -1), src.snapshot or 0)
    rows = [
        {
            "size": p.size,
            "region": p.region,
            "os": p.os,
            "on_demand_usd_per_hour": p.on_demand,
            "spot_usd_per_hour": p.spot,
            "snapshot": p.document,
            "newest": (sources[p.document].snapshot or 0)
            == newest[(sources[p.document].catalog or p.document, p.size)],
            "document": p.document,
            "line": p.line,
        }
        for p in prices
    ]
    return sorted(rows, key=lambda r: (r["size"], r["region"] or "", r["document"], r["line"]))


_DOCS_ONLY = frozenset({NAME_CONVENTION, SIBLING})
"""Claims no document makes: they say nothing of where a size is named."""


@dataclass(frozen=True, slots=True)
class _Named:
    """What a size's row of vm_sizes reads beside its facts, from every claim and price once:
    the documents that state it, those that name it (not only its docs' rules), and its lowest
    price in the newest snapshot. Each part of the entities reads its sizes' (`_vm_size_rows`)."""

    documents: Mapping[str, set[str]]
    named_by: Mapping[str, set[str]]
    lowest: Mapping[str, float]

    @classmethod
    def of(cls, claims: Iterable[Claim], prices: Iterable[Mapping[str, Any]]) -> _Named:
        documents: dict[str, set[str]] = defaultdict(set)
        named_by: dict[str, set[str]] = defaultdict(set)
        for c in claims:
            if c.entity_kind == "size":
                documents[c.entity].add(c.document)
                if c.method not in _DOCS_ONLY:
                    named_by[c.entity].add(c.document)
        lowest: dict[str, float] = {}
        for p in prices:
            if p["newest"] and p["on_demand_usd_per_hour"] is not None:
                lowest[p["size"]] = min(lowest.get(p["size"], float("inf")), p["on_demand_usd_per_hour"])
        return cls(documents, named_by, lowest)


def _vm_size_rows(rec: Reconciled, named: _Named, sources: Mapping[str, Source]) -> list[dict[str, Any]]:
    """One row per size, every value taken from `facts`; where it is named (docs, the API),
    the newest API snapshot that lists it, and its lowest price in the newest snapshot."""
    facts: dict[str, dict[str, Fact]] = defaultdict(dict)
    for f in rec.facts:
        if f.entity_kind == "size":
            facts[f.entity][f.attribute] = f
    size_docs, named_by, lowest = named.documents, named.named_by, named.lowest
    links = {lk.entity: lk for lk in rec.links}
    types = {c.name: c.type for c in schema.tables()["vm_sizes"]}
    rows = []
    for size in sorted(s for s in facts if parse_size(s)):
        row: dict[str, Any] = {"size": size}
        chosen = facts[size]
        series = chosen.get("series")
        row["series"] = series.value_text if series else None
        used: list[Fact] = [series] if series else []
        for attr in schema.VM_SIZE_ATTRIBUTES:
            value = chosen.get(attr)
            row[attr] = _cell(value, types[attr])
            if value is not None and attr in schema.CORE_ATTRIBUTES:
                used.append(value)
        statuses = {f.status for f in used}
        if "unverified" in statuses:
            row["status"] = "unverified"
        else:
            row["status"] = next((s for s in STATUS_ORDER if s in statuses), None)
        row["confidence"] = min((f.confidence for f in used), default=None)
        row["documents"] = len(size_docs.get(size, ()))
        naming = named_by.get(size, set())
        kinds = {sources[d].kind for d in naming}
        api = sorted((d for d in naming if sources[d].kind == "api_catalog"), key=lambda d: sources[d].snapshot or 0)
        docs = kinds & (AUTHORITATIVE - {"api_catalog"})
        both, docs_only, api_only, third_only = schema.FOUND_IN
        row["found_in"] = (both if docs else api_only) if api else (docs_only if docs else third_only)
        row["api_snapshot"] = api[-1] if api else None
        row["lowest_price_usd_per_hour"] = lowest.get(size)
        count = row.get("gpu_count")
        row["price_per_gpu_hour_usd"] = (
            round(lowest[size] / count, 6) if size in lowest and isinstance(count, float) and count > 0 else None
        )
        lk = links.get(size)
        row["linked_to"] = lk.linked_to if lk else None
        row["link_evidence"] = lk.evidence if lk else None
        row["value_basis"] = "each value is the fact chosen by reconciliation; see facts.reason for why"
        rows.append(row)
    return rows


def _cell(f: Fact | None, type_: str) -> Any:
    if f is None or (f.range_min is not None and f.range_max is not None and f.range_min != f.range_max):
        return None
    if type_ == "date":
        return dt.date.fromisoformat(f.value_text) if f.value_text else None
    if f.value_number is not None:
        if type_ == "int":
            return int(f.value_number) if float(f.value_number).is_integer() else None
        return f.value_number
    if f.value_bool is not None:
        return f.value_bool
    return f.value_text
