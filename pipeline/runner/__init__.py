"""`build(sources, out)`: read -> extract -> normalize -> aliases -> reconcile -> write.

The runner wires the stages (`pipeline.stages`, pure functions of their inputs) together, turns
their records into table rows, and owns what they need not know: the content-hash cache of
parsed documents and of each document's claims and each entity's decisions (`cache`), and the
second process that shares a stage's work (`pool`). Here: a build from end to end (`build`,
`compute`, the writing and the manifest); beside it, in the order a build reaches them:
- `documents`: each document surveyed, read, extracted and parsed, in worker processes;
- `normalizing`: normalize over every document, with its memo and a second process;
- `parts`: reconcile in parts (the entities a few buckets at a time, in two processes), the
  parts' facts joined in order, each bucket's decisions kept for the next build;
- `tables`: the rows of each table made from the stages' records;
- `reuse`: what a build takes from the output it replaces.
"""

from __future__ import annotations

import contextlib
import csv
import hashlib
import importlib
import json
import os
import shutil
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, TypeVar

from pipeline import knowledge
from pipeline.knowledge.names import series_key
from pipeline.knowledge.registry import REGISTRY_FILE, Source, classify, load_registry
from pipeline.outputs import schema
from pipeline.outputs.write import (
    Digests,
    Previous,
    file_sha256,
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
    Reconciled,
)
from pipeline.runner.bucketing import buckets, divide, forget, let_go, rates_read
from pipeline.runner.cache import Cache, Memo, digest
from pipeline.runner.documents import (
    MIN_PARALLEL,
    Input,
    code_fingerprint,
    entry_key,
    parse_all,
    survey,
)
from pipeline.runner.normalizing import run_normalize
from pipeline.runner.parts import (
    RECONCILE_BUCKETS,
    _bucket_keys,
    _by_bucket,
    _chunks,
    _compact,
    _early_keys,
    _in_order,
    _Part,
    _series_members,
    _still_holds,
)
from pipeline.runner.pool import (
    Beside,
    HelperDied,
    arrow_pool,
    beside,
    collector_paused,
    cores,
    cpu_seconds,
    ended_children,
    give_back,
    helpers_watched,
    peak_rss,
)
from pipeline.runner.reuse import (
    DECIDED_ENTRY,
    DOCUMENTATION,
    TAKEN_TABLES,
    _as_listed,
    _Decided,
    _files_of,
    _record,
    _recorded,
    _Reuse,
    _table_files,
    _Taken,
)
from pipeline.runner.tables import (
    _checks_column,
    _chosen,
    _claims_frame,
    _conflicts_frame,
    _documents_frame,
    _errata_frame,
    _facts_frame,
    _Named,
    _names_frame,
    _price_rows,
    _prices_frame,
    _sizes_frame,
    _small_tables,
    _vm_size_rows,
)
from pipeline.stages.aliases import resolve as resolve_aliases
from pipeline.stages.calibrate import Label
from pipeline.stages.calibrate import labels as calibrate_labels
from pipeline.stages.copies import find_copies
from pipeline.stages.errata import errata as find_errata
from pipeline.stages.errata import read_by_errata
from pipeline.stages.normalize import (
    Contribution,
    Normalized,
    provenance_order,
)
from pipeline.stages.read import Limits
from pipeline.stages.reconcile import (
    Failure,
    Plan,
    decide,
    finish,
    merge,
    name_rules,
    plan,
    reconcile,
    rule_made,
    sibling_claims,
)
from pipeline.sync import LOCK_FILE, Locked, permalinks

Progress = Callable[[str], None]
PIPELINE_VERSION = "0.1.0"
DECIDE_SHARE = 0.53
"""The share of the entities' work (`bucketing.divide`) the build process keeps when a forked
one decides the rest: the forked one also pickles its facts and sizes for the trip back. At
10,000 documents, with halves the build waited 1.57-1.75 s for the other's answer (three cold
builds), with 0.53 0.36-0.40 s, which is the answer's trip; reconcile took 12.63 s, now 12.02 s
(means of three)."""
CLAIMS_TABLE_WORK = 0.08
"""What making the claims table costs, as a share of deciding every entity (their claims and
inherited votes, `divide`): a build that keeps its records (`compute`) makes it while a forked
process decides the other part, so its own part is smaller by it: 49% of the deciding
(`DECIDE_SHARE` of it and the table). A build that keeps none has it made by a process of its
own (`_ClaimsApart`)."""


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
    with helpers_watched() as helpers, output_lock(out):
        recover(out)
        inputs, found, key = _survey(sources, settings)
        clock.lap("survey")
        cache = Cache(settings.cache_dir or out.parent / CACHE_FOLDER) if settings.incremental else None
        # The digests of the output's files the last build recorded: those whose stamps are as
        # recorded are not read again, here or where the build takes them (`write.Digests`).
        digests = _recorded(cache, out) if cache else Digests()
        if cache and (previous := _unchanged(out, key, cores(settings.workers), digests)) is not None:
            _record(cache, out, digests)
            return replace(previous, timings=clock.laps, peaks=clock.peaks, cpu=clock.cpu)  # forked nothing
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
        result,
        cache=cache.stats if cache else None,
        timings=clock.laps,
        peaks=clock.peaks,
        cpu=clock.cpu,
        helpers=tuple(helpers),
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
            from pipeline.outputs.errata import errata_markdown

            found = read_frame(stage / "errata.parquet", cols["errata"]) if "errata" in taken else page_inputs["errata"]
            (stage / "errata.md").write_text(errata_markdown(found), encoding="utf-8", newline="\n")
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
    """Seconds between the steps of one build, the CPU time they took and the build process's
    peak memory when each ended: each `lap` ends the step it names."""

    def __init__(self) -> None:
        self.started = self._last = time.perf_counter()
        self._used = (cpu_seconds(), ended_children())
        self.laps: tuple[tuple[str, float], ...] = ()
        self.peaks: tuple[tuple[str, int], ...] = ()
        self.cpu: tuple[tuple[str, float, float], ...] = ()
        """For each step, the CPU seconds of the build process and of its processes waited for
        in it (`BuildResult.cpu`)."""

    def lap(self, step: str) -> None:
        now = time.perf_counter()
        self.laps += ((step, round(now - self._last, 4)),)
        used = (cpu_seconds(), ended_children())
        self.cpu += ((step, round(used[0] - self._used[0], 4), round(used[1] - self._used[1], 4)),)
        self._used = used
        # Linux keeps a process's memory counts per CPU and sums them now and then: a reading of
        # the peak so far can come out a few hundred kB below the one before it.
        before = self.peaks[-1][1] if self.peaks else 0
        self.peaks += ((step, max(peak_rss(), before)),)
        self._last = now


CACHE_FOLDER = ".pipeline-cache"


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
    # A record made again only where a copy was found: `replace` of each of 10,000 took 0.05-0.07 s.
    sources_by_doc = {
        path: src if (of := copies.get(path)) == src.copy_of else replace(src, copy_of=of)
        for path, src in sources_by_doc.items()
    }
    prices = _price_rows(norm.prices, sources_by_doc)
    decided_key = None
    if reuse is not None and cache is not None and stated and not records:
        decided_key = _decided_key(stated, norm, sources_by_doc, upstream, settings)
        if (before := _taken(cache, reuse, decided_key)) is not None:
            lap("reconciled tables taken from the output replaced")
            diagnostics = _sorted_diagnostics([*diagnostics, *before.diagnostics])
            table = _documents_frame(documents, subjects, before.claims_per_document, sources_by_doc, upstream)
            small = _small_tables(table, diagnostics, before.labels)
            small.update((name, _Taken(rows)) for name, (rows, _, _) in before.tables.items())
            frames = {name: small.pop(name) for name in TABLE_ORDER}
            lap("tables")
            summary = BuildResult(documents=(), claims=(), diagnostics=tuple(diagnostics), labels=before.labels)
            return replace(summary, tables=_rows_of(frames)), frames
    norm = normalizing.whole()
    del normalizing
    if progress:
        progress(f"read {len(documents)} documents; reconciling {len(norm.claims)} claims")
    spelled = resolve_aliases(norm.claims, sources_by_doc, norm.mentions)
    resolved, aliases, unverified = spelled.claims, spelled.aliases, dict(spelled.superseded)
    mentions = spelled.mentions
    after = list(spelled.diagnostics)  # what the stages after normalize say, kept for the next build (`_Decided`)
    lap("aliases")
    # The sizes' values from their siblings and the claims their names make each read every
    # claim, and neither needs the other: on a second core, side by side.
    with beside(partial(sibling_claims, resolved, sources_by_doc, know), parallel=split, what="sizes' siblings") as sib:
        names = name_rules(resolved, sources_by_doc, know, mentions)
    siblings = sib.result()
    after += names.diagnostics
    claims = tuple(sorted((*resolved, *rule_made(names, siblings)), key=provenance_order))
    # Every claim is known: the documents' table is made now, and without the records their
    # text is let go before the memory of deciding is needed.
    per_document = Counter(c.document for c in claims)
    documents_table = _documents_frame(documents, subjects, per_document, sources_by_doc, upstream)
    kept_documents = tuple(documents) if records else ()
    del documents
    decisions = cache.memo("reconcile", code_fingerprint()) if cache and not records else None
    moved = sorted((a.name, a.size, a.why) for a in aliases)
    # Where decisions are kept, their buckets' keys are made on the second core while the plan
    # is made here: they read what the buckets do (`bucketing.shape`), not the plan's votes.
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
        unverified,
        settings.stale_after_days,
        stated,
        moved,
        prices,
        mentions,
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
                unverified=unverified,
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
    named = _Named.of(claims, prices, mentions)

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

    # A build keeps each bucket's decisions (`bucketing.buckets`), keyed by all they read: the
    # next build decides again only the buckets whose inputs changed.
    kept: dict[int, _Part] = {}
    keys: dict[int, str] = {}
    if decisions is not None:
        key_all = partial(_bucket_keys, planned, bucket_of, stated, moved, sources_by_doc, prices, mentions)
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
    sizes_retired = sizes.loc[(sizes["lifecycle"] == "retired").fillna(False).astype(bool), "size"].tolist()
    built = set(sizes["size"]) | {a.name for a in aliases}
    after += _not_built(mentions, built, members)
    diagnostics = _sorted_diagnostics([*diagnostics, *after])
    # What the errata read of the claims, picked before a build that keeps no records lets them go.
    erring, wanted, of_series = read_by_errata(claims, rec.conflicts, rec.checks, diagnostics)
    sizes_of: dict[str, list[str]] = defaultdict(list)
    for size, series in members:
        sizes_of[series].append(size)
    wanted |= {(size, attribute) for series, attribute in of_series for size in sizes_of.get(series, ())}
    if reuse is not None and decided_key is not None:
        reuse.decided = _Decided(decided_key, tuple(after), dict(per_document), tuple(labels))
    result = BuildResult(
        documents=kept_documents,
        claims=claims if records else (),
        diagnostics=tuple(diagnostics),
        facts=rec.facts,
        conflicts=rec.conflicts if records else (),
        names=aliases if records else (),
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
    made["names"] = _names_frame(aliases, upstream)
    chosen = _chosen(made["facts"], wanted)
    wrong = find_errata(erring, rec.conflicts, rec.checks, chosen, diagnostics, sources_by_doc, sizes_of, unverified)
    made["errata"] = _errata_frame(wrong, sources_by_doc, upstream)
    del erring, wanted, chosen, wrong
    # A catalog's price of a size the documents retire is kept, marked, and is no current price.
    made["prices"] = _prices_frame(prices, set(sizes_retired))
    made.update(_small_tables(documents_table, diagnostics, labels))
    frames = {name: made.pop(name) for name in TABLE_ORDER}
    lap("tables")
    return replace(result, tables=_rows_of(frames)), frames


TABLE_ORDER = (
    "documents",
    "claims",
    "vm_sizes",
    "names",
    "facts",
    "conflicts",
    "errata",
    "prices",
    "diagnostics",
    "calibration",
)
"""The tables in the order a build writes them."""


def _rows_of(frames: Mapping[str, Any]) -> dict[str, int]:
    """Each table's rows, for the result: a table made apart or taken says how many it has."""
    return {k: v.rows if isinstance(v, (_ClaimsApart, _Taken)) else len(v) for k, v in frames.items()}


def _sorted_diagnostics(diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    """Each diagnostic once, by document, line, code, message and severity: the whole record,
    so that the order never falls to how a set happens to iterate."""
    return sorted(set(diagnostics), key=lambda d: (d.document, d.line or 0, d.code, d.message, d.severity))


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
