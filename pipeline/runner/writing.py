"""The write step (`write`): the tables, the report and the documentation written into a staging
folder, checked against their contracts, listed in the manifest with their digests, and swapped
in for the output folder whole. A table the build takes from the output it replaces is in the
staging folder already (`reuse.Store.taken`); so is the page, when it would be made from what made
the last one (`_page_key`)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipeline import knowledge
from pipeline.knowledge.registry import REGISTRY_FILE
from pipeline.outputs import schema
from pipeline.outputs.write import (
    TABLE_FILES,
    Digests,
    Previous,
    file_sha256,
    read_frame,
    swap_in,
    sync_file,
    table_file,
    table_files,
    write_json,
    write_table,
)
from pipeline.records import BuildResult, ContractViolation
from pipeline.runner.cache import code_fingerprint, digest
from pipeline.runner.pool import Clock, beside, give_back
from pipeline.runner.reuse import DOCUMENTATION, TAKEN_TABLES, Store, Taken, hashed
from pipeline.runner.settings import Settings
from pipeline.runner.tables import ClaimsApart
from pipeline.sync import LOCK_FILE

PIPELINE_VERSION = "0.1.0"

SIDE_INPUTS = (REGISTRY_FILE, LOCK_FILE)
"""Files of the sources folder that are not documents but shape the tables: the source registry
and the upstream lock (each document's commit and permalink)."""


def write(
    sources: Path,
    out: Path,
    stage: Path,
    settings: Settings,
    clock: Clock,
    result: BuildResult,
    frames: dict[str, Any],
    key: str,
    store: Store,
) -> dict[str, Any]:
    """write: the tables, the report and the documentation into the staging folder `stage`,
    checked against their contracts, then swapped in for `out`; the manifest's outputs. A build
    whose tables break their contracts raises `ContractViolation`, and `stage` goes."""
    previous = store.previous
    taken = [name for name, table in frames.items() if isinstance(table, Taken)]
    # The claims table may be made and written by a process of its own: the report reads the
    # rows it shows, and the contracts check the rest.
    apart = frames["claims"] if isinstance(frames.get("claims"), ClaimsApart) else None
    if apart is not None:
        frames["claims"] = apart.shown
    try:
        page = _Page.of(frames, taken, store, stage)
        violations = _tables_written(frames, taken, apart is not None, page, stage, previous, settings, result, clock)
        if apart is not None:
            problems, hashes = apart.result()
            violations = problems + violations
            if previous is not None:
                previous.hashes.update(hashes)
            clock.lap("claims table, waited for (it was written beside the others)")
        if violations:
            raise ContractViolation(violations)
        known = previous.hashes if previous else None
        listing = manifest(sources, result, frames["documents"], stage, key, known, store.threads, store.digests)
        write_json(stage / "manifest.json", listing)
        if store.keeps_output:
            made = {n: listing["outputs"][n][TABLE_FILES["parquet"]] for n in _shown_taken()}
            store.page_made(_page_key(made, page.small), listing["documentation"]["report.html"]["sha256"])
    except BaseException:
        if apart is not None:  # before its folder goes
            apart.stop()
        shutil.rmtree(stage, ignore_errors=True)
        raise
    swap_in(stage, out)
    clock.lap("manifest and swap")
    return dict(listing["outputs"])


@dataclass(frozen=True, slots=True)
class _Page:
    """What the page is made from: the frames as the report reads them (`_page_inputs`); of the
    tables made here, their content (`small`); and whether the page was taken from the output
    replaced, as made from what made the last one."""

    inputs: dict[str, Any]
    small: dict[str, str]
    taken: bool

    @classmethod
    def of(cls, frames: Mapping[str, Any], taken: Sequence[str], store: Store, stage: Path) -> _Page:
        inputs = _page_inputs(frames)
        # What the page reads of the tables made here, by content; of the others, their files' digests.
        small = {n: _content(df) for n, df in inputs.items() if n not in TAKEN_TABLES} if store.keeps_output else {}
        previous, page_taken = store.previous, False
        if previous is not None and len(taken) == len(TAKEN_TABLES):
            page_taken = store.page(
                _page_key({n: previous.outputs[n].get(TABLE_FILES["parquet"]) for n in _shown_taken()}, small), stage
            )
        return cls(inputs, small, page_taken)


def _tables_written(
    frames: dict[str, Any],
    taken: Sequence[str],
    apart: bool,
    page: _Page,
    stage: Path,
    previous: Previous | None,
    settings: Settings,
    result: BuildResult,
    clock: Clock,
) -> list[str]:
    """The contracts' violations, then the tables made here written into `stage`. The report
    only reads the frames, so on a second core it is made beside the writing of the tables, in a
    process of its own: made here, it held its copy of the rows beside the tables (at 10,000
    documents, the build's peak 985 -> 1,111 MB). A page whose tables break their contract is
    not kept: the staging folder goes."""
    from pipeline.outputs import dictionary, report

    cols = schema.tables()
    # The contracts check the tables made here; those taken passed them when they were made.
    tables = [name for name in schema.tables() if name not in taken and not (apart and name == "claims")]
    here = os.getpid()

    def document() -> None:
        from pipeline.outputs.errata import errata_markdown

        found = page.inputs["errata"]
        if "errata" in taken:
            found = read_frame(stage / table_file("errata", "parquet"), cols["errata"])
        (stage / "errata.md").write_text(errata_markdown(found), encoding="utf-8", newline="\n")
        if not page.taken:
            # In a forked process, the frames are its own copy: the report lets them go once
            # it has read them, and the process gives their memory back.
            mine = os.getpid() != here
            shown = _read_back(stage, page.inputs, taken)
            if mine:
                frames.clear()
                page.inputs.clear()
            report.write_report(shown, stage / "report.html", consume=mine)
        (stage / "SCHEMA.md").write_text(dictionary.schema_markdown(), encoding="utf-8", newline="\n")
        write_json(stage / "datapackage.json", dictionary.datapackage())

    from pipeline.outputs import contracts

    violations = contracts.validate(frames, between=give_back, tables=None if not apart and not taken else tables)
    parallel = settings.splits(result.tables.get("documents", 0))
    clock.lap("contracts")
    with (
        beside(document, parallel=parallel and not page.taken, what="report"),
        ThreadPoolExecutor(max_workers=1) as syncing,
    ):
        if not parallel:
            clock.lap("report")  # made first, here
        # The contracts and the report have their copy of the frames (or are done): each
        # table's columns are let go as they are written, but the documents' for the manifest.
        for name in list(frames):
            df = frames[name] if name == "documents" else frames.pop(name)
            if name in tables:
                write_table(df, cols[name], name, stage, consume=name != "documents", previous=previous)
                # On disk while the next is written: the swap then finds it synced (at 10,000
                # documents, the swap's syncing took 0.19 s). A failure here is met again
                # there, where it fails the build.
                for file in table_files(name):
                    syncing.submit(sync_file, stage / file)
            del df
        clock.lap("write tables")
    if parallel and not page.taken:
        clock.lap("report, waited for (it was made beside the writing)")
    return violations


def _page_inputs(frames: Mapping[str, Any]) -> dict[str, Any]:
    """The frames as the report is given them: only the tables it reads (`report.rows.TABLES`),
    of the documents only the columns it reads (`report.READS`), so that what made a page is
    known by what it shows."""
    from pipeline.outputs.report.rows import READS, TABLES

    shown = {name: frames[name] for name in TABLES if name in frames}
    documents = shown["documents"]
    return {**shown, "documents": documents[[c for c in documents.columns if c in READS["documents"]]]}


def _shown_taken() -> list[str]:
    """The tables a build may take from the output it replaces that the page reads: what made a
    page, by their files' digests (`_page_key`)."""
    from pipeline.outputs.report.rows import TABLES

    return [name for name in TAKEN_TABLES if name in TABLES]


def _content(df: Any) -> str:
    """A digest of a frame's columns, dtypes and values (as Python values: the bytes of its
    buffers may differ where the values do not)."""
    return digest([str(c) for c in df.columns], [str(t) for t in df.dtypes], [df[c].tolist() for c in df.columns])


def _page_key(tables: Mapping[str, object], small: Mapping[str, str]) -> str:
    """A digest of all a page is made from: the code, the Parquet files' digests of the tables
    the stages after normalize make that it reads (`_shown_taken`), and the others' content
    (`_page_inputs`)."""
    return digest(code_fingerprint(), sorted(tables.items()), sorted(small.items()))


def _read_back(stage: Path, frames: Mapping[str, Any], taken: Sequence[str]) -> dict[str, Any]:
    """The frames the report reads, with the tables `taken` read back from their files in
    `stage`, only the columns the report reads (`report.READS`), and of the claims only those
    some conflict cites, as `ClaimsApart.shown` keeps them."""
    from pipeline.outputs.report import READS

    back = dict(frames)

    def read(name: str, where: tuple[str, set[str]] | None = None) -> Any:
        columns = [c for c in schema.tables()[name] if c.name in READS.get(name, (c.name,))]
        return read_frame(stage / table_file(name, "parquet"), columns, where)

    for name in taken:
        if name != "claims" and name in back:  # a table the page reads
            back[name] = read(name)
    if "claims" in taken:
        cited = {i for ids in back["conflicts"]["claims"].dropna() for i in ids.split(" ")}
        back["claims"] = read("claims", ("claim_id", cited))
    return back


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
    by `threads` threads (`reuse.hashed`), each vouched for in `digests` when its stamp can: by now
    the build's other processes are done."""
    known = known or {}
    files = [file for name in sorted(result.tables) for file in table_files(name)]
    read = hashed(folder, [name for name in (*files, *DOCUMENTATION) if name not in known], threads, digests)

    def file_hash(name: str) -> str:
        return known.get(name) or read[name]

    inputs = dict(zip(documents["document"], documents["sha256"], strict=True))
    for name in SIDE_INPUTS:
        if (sources / name).is_file():
            inputs[name] = file_sha256(sources / name)
    outputs = {
        name: {"rows": rows, **{key: file_hash(file) for file, key in table_files(name).items()}}
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
