"""`build(sources, out)`: read -> extract -> normalize -> aliases -> reconcile -> tables -> write.

The runner runs the stages (`pipeline.stages`, pure functions of their inputs) in that order, one
step each, and owns what they need not know: what a build reuses and keeps, and the second core.
`build` locks the output folder and opens the store; `compute` is the flow, one call a step. Its
rooms, in the order a build reaches them:
- `settings`: the knobs of a build, and whether a step takes a second process;
- `documents`: the read -> extract step, each document parsed in worker processes, classified;
- `normalizing`: the normalize step, each document's claims from the memo or made in two processes;
- `naming`: the aliases step, with the claims the names and the siblings make;
- `parts`: the reconcile step, the entities decided a few buckets at a time in two processes;
  `bucketing`: which entity is in which bucket and part, and what a bucket's decisions read;
- `tables`: the tables step, each table's rows made from the steps' records;
- `writing`: the write step, the tables, the page and the manifest swapped in whole;
- `reuse`: the one door to what a build reuses and keeps (`Store`): the memos of each document's
  parse and claims and of each bucket's decisions, in the cache (`cache`), and the output it
  replaces, whose tables it takes whole when nothing they were made from changed;
- `pool`: the second process and the worker pools, and what a build's steps take (`Clock`).
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import shutil
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from pipeline.outputs.write import output_lock, recover, staging_folder
from pipeline.records import BuildResult, Diagnostic
from pipeline.runner.cache import Cache, code_fingerprint
from pipeline.runner.documents import Input, read, survey
from pipeline.runner.naming import aliases
from pipeline.runner.normalizing import normalize
from pipeline.runner.parts import reconcile
from pipeline.runner.pool import Clock, arrow_pool, collector_paused, cores, helpers_watched
from pipeline.runner.reuse import Store
from pipeline.runner.settings import Settings
from pipeline.runner.tables import make_tables, taken_tables
from pipeline.runner.writing import SIDE_INPUTS, write

__all__ = ["Settings", "build", "build_key", "compute", "unchanged"]

Progress = Callable[[str], None]


def build(
    sources: Path, out: Path, *, settings: Settings = Settings(), progress: Progress | None = None
) -> BuildResult:
    """Build every table from the documents under `sources` into `out`, atomically: `compute`,
    then `write`.

    Beside the tables, `out` gets `report.html` (for people), `SCHEMA.md` and `datapackage.json`
    (the data dictionary), all listed with their hashes in `manifest.json`. The tables are
    checked against their contracts (`pipeline.outputs.contracts`) while they are written into a
    staging folder: a build whose data would break them raises `ContractViolation` listing
    every violation, the staging folder is removed, and `out` stays as it was."""
    sources, out, clock = Path(sources), Path(out), Clock()
    with helpers_watched() as helpers, output_lock(out):
        recover(out)
        inputs, found, key = _survey(sources, settings)
        clock.lap("survey")
        cache = Cache(settings.cache_dir or out.parent / CACHE_FOLDER) if settings.incremental else None
        store = Store(cache, out, threads=cores(settings.workers), parallel=_saved_beside(settings, inputs))
        if cache and (previous := store.unchanged(key)) is not None:
            store.keep_output()
            return replace(previous, timings=clock.laps, peaks=clock.peaks, cpu=clock.cpu)  # forked nothing
        # Imported here: only a build that has something to do needs them (`write`).
        for name in ("dictionary", "report"):
            importlib.import_module(f"pipeline.outputs.{name}")
        stage = staging_folder(out)
        clock.lap("imports")
        try:  # Arrow's allocator gives back what the tables free (`arrow_pool`)
            with arrow_pool(), store:
                result, frames = compute(
                    sources,
                    settings,
                    progress,
                    store=store,
                    inputs=inputs,
                    found=found,
                    clock=clock,
                    records=False,
                    stage=stage,
                )
                outputs = write(sources, out, stage, settings, clock, result, frames, key, store)
                store.keep_output(outputs)
        except BaseException:
            shutil.rmtree(stage, ignore_errors=True)  # gone already when it was swapped in
            raise
        clock.lap("cache saved, waited for")  # the memos, saved beside the build
    stats = cache.stats if cache else None
    return replace(result, cache=stats, timings=clock.laps, peaks=clock.peaks, cpu=clock.cpu, helpers=tuple(helpers))


@collector_paused()
def compute(
    sources: Path,
    settings: Settings = Settings(),
    progress: Progress | None = None,
    *,
    cache: Cache | None = None,
    store: Store | None = None,
    inputs: list[Input] | None = None,
    found: Sequence[Diagnostic] = (),
    clock: Clock | None = None,
    records: bool = True,
    stage: Path | None = None,
) -> tuple[BuildResult, dict[str, Any]]:
    """Everything but the writing: the result and one DataFrame per table, a step at a time.

    Each step's input is let go once the next holds what it needs of it. `store` (or a store
    of `cache`) gives what the last build kept of each step's results, and keeps this build's.
    Without `records`, the result holds only the summary and the tables hold the records;
    with a folder the tables go to (`stage`), the claims table is written there by a process
    of its own, and the tables the steps after normalize make are taken from the output the
    build replaces when nothing they were made from changed (`Store.taken`): their entries are
    then `Taken`. `inputs` and `found` are the survey's, when the caller made it (`survey`)."""
    clock = clock or Clock()
    if inputs is None:
        inputs, found = survey(sources, settings.limits) if sources.is_dir() else ([], [])
    with contextlib.ExitStack() as own:
        if store is None:  # a store of its own, closed once the steps are done
            store = own.enter_context(Store(cache, parallel=_saved_beside(settings, inputs)))
        corpus, statements = read(sources, settings, store, inputs, found, records=records, progress=progress)
        clock.lap("read and extract")
        normal, corpus = normalize(statements, corpus, settings, store)
        del statements  # every statement is a claim now
        clock.lap("normalize")
        if not records and stage and (taken := store.taken(normal.key, stage)) is not None:
            clock.lap("reconciled tables taken from the output replaced")
            return taken_tables(corpus, taken)
        if progress:
            progress(f"read {len(corpus.listed)} documents; reconciling their claims")
        named = aliases(normal, corpus)
        clock.lap("aliases")
        decided = reconcile(named, normal, corpus, settings, store, records=records, stage=stage)
        del normal, named  # all the tables need of the claims is in `decided`
        clock.lap("reconcile")
        made = make_tables(corpus, decided, store, records=records)
        clock.lap("tables")
        return made


def _saved_beside(settings: Settings, inputs: Sequence[Input]) -> bool:
    """Whether the store's memos are saved by forked processes: in a build of enough documents
    (`Settings.splits`)."""
    return settings.splits(sum(i.data is not None for i in inputs))


CACHE_FOLDER = ".pipeline-cache"


def unchanged(sources: Path, out: Path, settings: Settings = Settings()) -> BuildResult | None:
    """The summary of `out` when a build of `sources` would write exactly what it holds: the
    same inputs, settings, code and libraries (the build key), every file as the manifest lists
    it. Builds are deterministic, so that is a complete answer without building; None otherwise."""
    return Store(out=Path(out), threads=cores(settings.workers)).unchanged(_survey(Path(sources), settings)[2])


def _survey(sources: Path, settings: Settings) -> tuple[list[Input], list[Diagnostic], str]:
    inputs, found = survey(sources, settings.limits) if sources.is_dir() else ([], [])
    return inputs, found, build_key(sources, inputs, found, settings)


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
