"""Benchmark of whole builds on generated corpora: `python -m bench [--sizes 100,1000,10000]`.

Speed is reported here and judged by people, never asserted by the test suite: a loaded CI
machine would make timing assertions flaky. For each size N the benchmark generates a corpus
(`bench.corpus`), then measures in fresh processes, as a user would run them:

- the floor: markdown-it-py alone tokenizing the same files in one process, the least time any
  markdown-it-py based pipeline can take;
- a cold build (output folder and parse cache removed), then a no-op rebuild (nothing changed),
  a rebuild after appending one line to one document (one-change: the document's claims stay as
  they were) and one after changing one number in its table (one-value: one claim changes),
  each against the cold build;
- the outputs alone: every file a cold build wrote, written again from its finished tables
  (`output_work`), which a build that changes any value cannot do without.

The table is printed and written to `--out` (Markdown) with the same data as JSON beside it.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from bench import corpus, tricks

PROJECT_ROOT = Path(__file__).resolve().parent.parent
"""Builds run with this as working directory so they use the same code as this module."""
CACHE_DIR = ".pipeline-cache"
"""The build's parse cache, kept beside its output folder."""
SUFFIXES = (".md", ".txt")
SEED = 0
EDIT = b"\nEdited for the benchmark.\n"
DEFAULT_SIZES = (100, 1_000, 10_000)
FLOOR_REPEATS = 3
"""Tokenize passes in the floor process; the fastest counts (a few seconds at 10,000 documents)."""
MB = 1_000_000
GIB = 2**30
COLUMNS = (
    "N",
    "corpus MB",
    "cold s",
    "docs/s",
    "MB/s",
    "peak RSS MB",
    "CPU s",
    "floor s",
    "cold/floor",
    "no-op s",
    "no-op/cold",
    "one-change s",
    "one-change/cold",
    "one-value s",
    "one-value/cold",
)
_VALUE_RE = re.compile(r"^[ \t]*\|.*?\|[ \t]*(\d+)[ \t]*\|", re.MULTILINE)
"""A table row's first cell after the first that is a whole number: the value the one-value
build changes (by one)."""
_TABLE_RE = re.compile(r"^[ \t]*\|.*\|[ \t]*\n[ \t]*\|?[ \t]*:?-{3,}", re.MULTILINE)
"""A pipe-table header followed by its delimiter row."""

Log = Callable[[str], None]
_T = TypeVar("_T")


class BenchError(Exception):
    """A step that could not be measured; the message goes into the results."""


@dataclass(frozen=True, slots=True)
class Floor:
    """What tokenizing alone cost: the least a markdown-it-py based build can take."""

    seconds: float
    """The fastest pass: slower ones measure the machine's other work, not the parser."""
    files: int
    passes: tuple[float, ...] = ()


@dataclass(frozen=True, slots=True)
class Run:
    """One build process: wall time is what people wait for; CPU and memory are what it cost."""

    seconds: float
    cpu_seconds: float
    """User plus system time of the build and of the worker processes it waited for."""
    peak_rss_bytes: int
    """ru_maxrss from wait4: the largest single process (build or parse worker), not their sum."""
    returncode: int
    stderr: str
    steps: tuple[tuple[str, float], ...] = ()
    """Seconds of each step, as the build itself timed them (`--timings`)."""
    peaks: tuple[tuple[str, float], ...] = ()
    """The build process's peak RSS in MB when each step ended (`--timings`): where memory grows."""
    helpers: tuple[tuple[str, float], ...] = ()
    """The peak RSS in MB of each process the build forked, by what it did (`--timings`)."""
    cpu: tuple[tuple[str, float, float], ...] = ()
    """CPU seconds of each step (`--timings`): the build process's, and its processes' that it
    waited for in it (parse workers, forked helpers)."""
    helpers_cpu: tuple[tuple[str, float], ...] = ()
    """The CPU seconds of the parse workers and of each process the build forked, by what it did
    (`--timings`)."""

    @property
    def ok(self) -> bool:
        return self.returncode == 0


@dataclass(slots=True)
class SizeResult:
    """Everything measured for one corpus size; None where a step failed or did not run."""

    n: int
    documents: int = 0
    corpus_bytes: int = 0
    floor_seconds: float | None = None
    floor_passes: tuple[float, ...] = ()
    cold: Run | None = None
    noop: Run | None = None
    one_change: Run | None = None
    one_value: Run | None = None
    changed_document: str | None = None
    outputs: dict[str, float] = field(default_factory=dict)
    """CPU seconds of writing each output of the cold build again (`output_work`)."""
    rewritten: tuple[str, ...] = ()
    """The outputs the one-value build wrote anew (their digests moved): tables, and the page."""
    tricks: dict[str, Run] = field(default_factory=dict)
    """The cold build again without each of the build's tricks (`bench.tricks`), by trick."""
    errors: list[str] = field(default_factory=list)

    @property
    def cold_ok(self) -> bool:
        return self.cold is not None and self.cold.ok

    def measured(self) -> list[tuple[str, Run]]:
        """The cold, one-change and one-value builds that succeeded, by kind: those the record's
        and the tables' figures by step and by process are of."""
        kinds = (("cold", self.cold), ("one_change", self.one_change), ("one_value", self.one_value))
        return [(kind, run) for kind, run in kinds if run is not None and run.ok]

    def record(self) -> dict[str, Any]:
        """The flat, JSON-ready record: raw figures and the ratios derived from them."""
        kinds = self.measured()
        found = dict(kinds)
        cold, one, value = (found.get(kind) for kind in ("cold", "one_change", "one_value"))
        noop = self.noop if self.noop is not None and self.noop.ok else None
        runs = [r for r in (cold, noop, one, value) if r is not None]
        return {
            "n": self.n,
            "documents": self.documents,
            "corpus_bytes": self.corpus_bytes,
            "corpus_mb": self.corpus_bytes / MB,
            "cold_s": cold.seconds if cold else None,
            "docs_per_s": self.documents / cold.seconds if cold else None,
            "mb_per_s": self.corpus_bytes / MB / cold.seconds if cold else None,
            "peak_rss_mb": cold.peak_rss_bytes / MB if cold else None,
            "cpu_s": cold.cpu_seconds if cold else None,
            "floor_s": self.floor_seconds,
            "floor_passes_s": list(self.floor_passes),
            "cold_over_floor": cold.seconds / self.floor_seconds if cold and self.floor_seconds else None,
            "noop_s": noop.seconds if noop else None,
            "noop_over_cold": noop.seconds / cold.seconds if noop and cold else None,
            "one_change_s": one.seconds if one else None,
            "one_change_over_cold": one.seconds / cold.seconds if one and cold else None,
            "one_value_s": value.seconds if value else None,
            "one_value_over_cold": value.seconds / cold.seconds if value and cold else None,
            "noop_cpu_s": noop.cpu_seconds if noop else None,
            "one_change_cpu_s": one.cpu_seconds if one else None,
            "one_value_cpu_s": value.cpu_seconds if value else None,
            "max_peak_rss_bytes": max((r.peak_rss_bytes for r in runs), default=None),
            "changed_document": self.changed_document,
            "cold_steps_s": dict(cold.steps) if cold else None,
            "one_change_steps_s": dict(one.steps) if one else None,
            "one_value_steps_s": dict(value.steps) if value else None,
            "cold_peaks_mb": dict(cold.peaks) if cold else None,
            "cpu_s_by_step": {
                kind: {step: {"build": own, "children": ended} for step, own, ended in run.cpu}
                for kind, run in kinds
                if run.cpu
            },
            "cpu_s_by_process": {kind: dict(_others(run)) for kind, run in kinds if run.cpu},
            "processes_mb": {kind: dict(_processes(run)) for kind, run in kinds},
            "outputs_cpu_s": dict(self.outputs) or None,
            "one_value_rewrote": list(self.rewritten),
            "without_trick": {
                name: {"cold_s": run.seconds, "peak_rss_mb": run.peak_rss_bytes / MB} if run.ok else None
                for name, run in self.tricks.items()
            },
            "errors": list(self.errors),
        }


@dataclass(frozen=True, slots=True)
class Target:
    """One goal beside its figure: the benchmark says met or missed, people decide what to do."""

    goal: str
    measured: str
    at: str
    result: str
    """One of "met", "missed" or "not measured"."""


# ------------------------------------------------------------------------------ corpus


def corpus_files(root: Path) -> list[Path]:
    """The documents a build reads, sorted by their path under root (so the choice is stable)."""
    found = [p for p in root.rglob("*") if p.suffix in SUFFIXES and p.is_file()]
    return sorted(found, key=lambda p: p.relative_to(root).as_posix())


def corpus_bytes(root: Path) -> int:
    return sum(p.stat().st_size for p in corpus_files(root))


def _generator_fingerprint() -> str:
    """A changed generator writes another corpus, so a reused one must come from this code."""
    return hashlib.sha256(Path(corpus.__file__).read_bytes()).hexdigest()[:16]


def prepare_corpus(n: int, work: Path) -> Path:
    """`work/corpus-N`, generated unless a marker shows it was already, by this generator, and intact.

    The marker sits beside the folder, not in it, so builds never see it; its byte count catches
    a document left edited by an interrupted run.
    """
    dest = work / f"corpus-{n}"
    marker = work / f"corpus-{n}.json"
    expected = {"n": n, "seed": SEED, "generator": _generator_fingerprint()}
    if dest.is_dir() and marker.is_file():
        try:
            saved = json.loads(marker.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            saved = {}
        if isinstance(saved, dict) and all(saved.get(k) == v for k, v in expected.items()):
            files = corpus_files(dest)
            if saved.get("files") == len(files) and saved.get("bytes") == sum(p.stat().st_size for p in files):
                return dest
    marker.unlink(missing_ok=True)
    if dest.exists():
        shutil.rmtree(dest)
    corpus.generate(n, dest, seed=SEED)
    files = corpus_files(dest)
    marker.write_text(
        json.dumps({**expected, "files": len(files), "bytes": sum(p.stat().st_size for p in files)}) + "\n",
        encoding="utf-8",
    )
    return dest


def changed_value(text: str) -> str | None:
    """`text` with the first whole number in a table row's cells after the first one more: an
    edit that changes one claim; None when its tables hold no such number."""
    cell = _VALUE_RE.search(text)
    if cell is None:
        return None
    return text[: cell.start(1)] + str(int(cell[1]) + 1) + text[cell.end(1) :]


def pick_document(root: Path) -> Path:
    """The first Markdown page (not an include) with a table: an edit a maintainer would make."""
    for path in corpus_files(root):
        rel = path.relative_to(root)
        is_page = path.suffix == ".md" and "includes" not in rel.parts[:-1]
        if is_page and _TABLE_RE.search(path.read_text(encoding="utf-8", errors="replace")):
            return path
    raise BenchError("no Markdown page with a table in the corpus")


# ------------------------------------------------------------------------------ measuring


def tokenize_floor(root: Path, repeats: int = 1) -> Floor:
    """Time markdown-it-py alone on every file, configured as the pipeline configures it.

    Files are read first and the parser built first, so only tokenizing is timed: the floor
    any markdown-it-py based pipeline stands on, in one process on one core.
    """
    from markdown_it import MarkdownIt

    texts = [p.read_text(encoding="utf-8", errors="replace") for p in corpus_files(root)]
    md = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
    passes: list[float] = []
    for _ in range(max(1, repeats)):
        start = time.perf_counter()
        for text in texts:
            md.parse(text)
        passes.append(time.perf_counter() - start)
    return Floor(min(passes), len(texts), tuple(passes))


def measure_floor(root: Path, repeats: int = FLOOR_REPEATS) -> Floor:
    """`tokenize_floor` in a fresh process, so that nothing this process loaded helps or hurts it."""
    return _in_fresh_process(
        "floor",
        ["--floor", str(root), "--floor-repeats", str(repeats)],
        lambda data: Floor(float(data["seconds"]), int(data["files"]), tuple(float(x) for x in data["passes"])),
    )


def _in_fresh_process(what: str, args: Sequence[str], read: Callable[[Any], _T]) -> _T:
    """`python -m bench ARGS` in a fresh process, the JSON of its last line of output `read`;
    a `BenchError` naming `what` when it fails or prints no result."""
    cmd = [sys.executable, "-m", "bench", *args]
    proc = subprocess.run(cmd, cwd=PROJECT_ROOT, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise BenchError(f"{what} process exited {proc.returncode}: {_last_line(proc.stderr)}")
    try:
        return read(json.loads(proc.stdout.strip().splitlines()[-1]))
    except (IndexError, KeyError, AttributeError, TypeError, ValueError) as exc:
        raise BenchError(f"{what} process printed no result: {exc}") from exc


def output_work(out: Path, into: Path | None = None) -> dict[str, float]:
    """CPU seconds of writing again, into a scratch folder and by the pipeline's own functions,
    every output a build wrote to `out`, from its finished tables read back: for each table, its
    Parquet and CSV, its contract checked and the two files' SHA-256 digests (the manifest lists
    them); the page and its digest. A build rewrites each output its edit changes (a file per
    table, one page) whatever little it decided again: with its start-up, the least it can take.
    `into`, when given, is the folder written and kept (else a scratch folder, removed)."""
    from pipeline.outputs import contracts, report, schema
    from pipeline.outputs.write import file_sha256, read_frame, write_table

    tables = schema.tables()
    frames = {name: read_frame(out / f"{name}.parquet", columns) for name, columns in tables.items()}
    spent: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="bench-outputs-") as scratch:
        folder = into if into is not None else Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        for name, columns in tables.items():
            start = time.process_time()
            write_table(frames[name], columns, name, folder)
            contracts.validate(frames, tables=[name])
            for suffix in (".parquet", ".csv"):
                file_sha256(folder / f"{name}{suffix}")
            spent[name] = time.process_time() - start
        start = time.process_time()
        report.write_report(dict(frames), folder / "report.html")
        file_sha256(folder / "report.html")
        spent[PAGE] = time.process_time() - start
    return spent


PAGE = "report"
"""The page's name among the outputs (`output_work`, `SizeResult.rewritten`)."""


def output_digests(out: Path) -> dict[str, str]:
    """The digest of each output the manifest of `out` lists (each table's Parquet file, and
    the page): which a build changed; empty when there is no readable manifest."""
    from pipeline.outputs.write import TABLE_FILES

    parquet = TABLE_FILES["parquet"]  # the manifest's key of a table's Parquet digest
    try:
        listing = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
        digests = {str(name): str(entry[parquet]) for name, entry in listing["outputs"].items()}
        return {**digests, PAGE: str(listing["documentation"]["report.html"]["sha256"])}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}


def measure_output_work(out: Path) -> dict[str, float]:
    """`output_work` in a fresh process, as `measure_floor` measures the floor."""
    return _in_fresh_process(
        "outputs", ["--outputs", str(out)], lambda data: {str(what): float(s) for what, s in data.items()}
    )


Timed = tuple[
    tuple[tuple[str, float], ...],
    tuple[tuple[str, float], ...],
    tuple[tuple[str, float], ...],
    tuple[tuple[str, float, float], ...],
    tuple[tuple[str, float], ...],
]
"""What a build's `--timings` file says, as `Run` keeps it: steps, peaks, helpers, cpu, helpers_cpu."""


def read_timings(written: Sequence[Mapping[str, Any]]) -> Timed:
    """A `--timings` file's entries as `Run`'s fields; a figure an older build did not write
    (the CPU seconds) is left out, not guessed."""
    steps = tuple((str(x["step"]), float(x["seconds"])) for x in written if "step" in x)
    peaks = tuple((str(x["step"]), float(x["peak_rss_mb"])) for x in written if "step" in x and "peak_rss_mb" in x)
    helpers = tuple((str(x["process"]), float(x["peak_rss_mb"])) for x in written if "process" in x)
    cpu = tuple(
        (str(x["step"]), float(x["cpu_s"]), float(x["children_cpu_s"]))
        for x in written
        if "step" in x and "cpu_s" in x and "children_cpu_s" in x
    )
    helpers_cpu = tuple((str(x["process"]), float(x["cpu_s"])) for x in written if "process" in x and "cpu_s" in x)
    return steps, peaks, helpers, cpu, helpers_cpu


def run_build(sources: Path, out: Path, without: str | None = None) -> Run:
    """One `python -m pipeline build` in a fresh process, timed and measured as a user runs it;
    `without` one of the build's tricks (`bench.tricks`).

    wait4 rather than Popen.wait: its rusage gives the child's CPU time and peak RSS, with those
    of the parse workers it waited for. stderr goes to a file, not a pipe, so a chatty failing
    build cannot block on a full pipe while this process is in wait4.
    """
    timings = out.parent / f".{out.name}-timings.json"
    timings.unlink(missing_ok=True)
    command = ["-m", "pipeline"] if without is None else ["-m", "bench.tricks", without]
    cmd = [sys.executable, *command, "build", "--sources", str(sources), "--out", str(out), "--quiet"]
    cmd += ["--timings", str(timings)]
    with tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=PROJECT_ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here; Popen must not wait again
        err.seek(0)
        stderr = err.read().decode("utf-8", errors="replace")
    # ru_maxrss is in kilobytes on Linux (bytes on macOS).
    rss = usage.ru_maxrss if sys.platform == "darwin" else usage.ru_maxrss * 1024
    timed: Timed = ((), (), (), (), ())
    if timings.exists():
        timed = read_timings(json.loads(timings.read_text(encoding="utf-8")))
        timings.unlink()
    return Run(seconds, usage.ru_utime + usage.ru_stime, rss, proc.returncode, stderr, *timed)


def measure_startup(work: Path) -> Run:
    """A build of an empty sources folder: what every build pays before its first document
    (the interpreter, the imports, the survey and the writing of empty tables)."""
    # A folder of its own: the cache beside `out` must be empty too, or the build would load the
    # memos of the corpora built in `work` (seconds at 10,000 documents) and measure that.
    home = work / "startup"
    shutil.rmtree(home, ignore_errors=True)
    empty = home / "corpus"
    empty.mkdir(parents=True)
    return run_build(empty, home / "out")


def _last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1].strip() if lines else "(no output)"


def _failed(result: SizeResult, stage: str, run: Run, work: Path, log: Log) -> None:
    """Show the whole stderr now; keep one line, without this machine's paths, for the results."""
    log(f"N={result.n}: {stage} build failed (exit {run.returncode}); its stderr:\n{run.stderr.rstrip()}")
    result.errors.append(f"{stage} build exited {run.returncode}: {_scrub(_last_line(run.stderr), work)}")


def _scrub(text: str, work: Path) -> str:
    """Paths of this machine mean nothing elsewhere and should not be published."""
    for path, name in ((work, "WORK"), (PROJECT_ROOT, "."), (Path.home(), "~")):
        text = text.replace(str(path), name)
    return text


def bench_size(n: int, work: Path, log: Log, floor_repeats: int = FLOOR_REPEATS) -> SizeResult:
    """Floor, cold build, no-op rebuild, and the one-change and one-value rebuilds for a corpus of
    about n documents."""
    result = SizeResult(n)
    log(f"N={n}: preparing corpus")
    root = prepare_corpus(n, work)
    files = corpus_files(root)
    result.documents = len(files)
    result.corpus_bytes = sum(p.stat().st_size for p in files)
    log(f"N={n}: {len(files)} files, {result.corpus_bytes / MB:.2f} MB; timing the tokenize-only floor")
    try:
        floor = measure_floor(root, floor_repeats)
        result.floor_seconds, result.floor_passes = floor.seconds, floor.passes
    except BenchError as exc:
        log(f"N={n}: {exc}")
        result.errors.append(_scrub(str(exc), work))
    out = work / f"out-{n}"
    shutil.rmtree(out, ignore_errors=True)
    shutil.rmtree(work / CACHE_DIR, ignore_errors=True)
    log(f"N={n}: cold build")
    result.cold = run_build(root, out)
    if not result.cold.ok:
        _failed(result, "cold", result.cold, work, log)
        return result
    log(f"N={n}: the outputs written again from the cold build's tables")
    try:
        result.outputs = measure_output_work(out)
    except BenchError as exc:
        log(f"N={n}: {exc}")
        result.errors.append(_scrub(str(exc), work))
    log(f"N={n}: no-op rebuild")
    result.noop = run_build(root, out)
    if not result.noop.ok:
        _failed(result, "no-op", result.noop, work, log)
        return result
    try:
        doc = pick_document(root)
    except BenchError as exc:
        result.errors.append(str(exc))
        return result
    result.changed_document = doc.relative_to(root).as_posix()
    log(f"N={n}: rebuild after changing {result.changed_document}")
    original = doc.read_bytes()
    try:
        doc.write_bytes(original + EDIT)
        result.one_change = run_build(root, out)
    finally:
        doc.write_bytes(original)
    if not result.one_change.ok:
        _failed(result, "one-change", result.one_change, work, log)
        return result
    edited = changed_value(original.decode("utf-8"))
    if edited is None:
        result.errors.append(f"no whole number in a table of {result.changed_document}")
        return result
    log(f"N={n}: rebuild after changing a number in {result.changed_document}")
    before = output_digests(out)
    try:
        doc.write_bytes(edited.encode("utf-8"))
        result.one_value = run_build(root, out)
    finally:
        doc.write_bytes(original)
    after = output_digests(out)
    result.rewritten = tuple(name for name, digest in after.items() if before and digest != before.get(name))
    if not result.one_value.ok:
        _failed(result, "one-value", result.one_value, work, log)
    return result


def measure_tricks(result: SizeResult, root: Path, work: Path, log: Log) -> None:
    """The cold build of `root` again without each of the build's tricks, one at a time."""
    out = work / f"out-{result.n}-without"
    for trick in tricks.TRICKS:
        shutil.rmtree(out, ignore_errors=True)
        shutil.rmtree(work / CACHE_DIR, ignore_errors=True)
        log(f"N={result.n}: cold build without {trick.name}")
        result.tricks[trick.name] = run = run_build(root, out, without=trick.name)
        if not run.ok:
            _failed(result, f"cold without {trick.name}", run, work, log)
    shutil.rmtree(out, ignore_errors=True)


def benchmark(
    sizes: Sequence[int], work: Path, log: Log, floor_repeats: int = FLOOR_REPEATS, with_tricks: bool = True
) -> list[SizeResult]:
    """Every size in turn, one process at a time, so that the builds do not compete with each other;
    at the largest, with `with_tricks`, the cold build once without each of the build's tricks."""
    work.mkdir(parents=True, exist_ok=True)
    results = [bench_size(n, work, log, floor_repeats) for n in sizes]
    largest = max(results, key=lambda r: r.n, default=None)
    if with_tricks and largest is not None and largest.cold_ok:
        measure_tricks(largest, prepare_corpus(largest.n, work), work, log)
    return results


def steps_table(results: Sequence[SizeResult], startup: Run | None) -> list[str]:
    """Where the time of each cold build (and of the one-change and one-value builds) goes, step by step, as
    the build timed itself; the start-up build first. Wall time outside the steps is the
    interpreter's start and exit."""
    columns = [("start-up", startup)] if startup is not None and startup.ok else []
    runs = [(name, run) for name, run in [*columns, *_measured_runs(results)] if run.steps]
    if not runs:
        return []
    lines = _by_step([(f"{name} s", run.steps) for name, run in runs], ".3f")
    outside = [_outside(run) for _, run in runs]
    lines.append("| interpreter start and exit | " + " | ".join(f"{x:.3f}" for x in outside) + " |")
    lines.append("| **wall** | " + " | ".join(f"**{run.seconds:.3f}**" for _, run in runs) + " |")
    return lines


def _outside(run: Run) -> float:
    """The wall seconds of a build outside the steps it timed: the interpreter's start and exit."""
    return run.seconds - sum(seconds for _, seconds in run.steps)


def _measured_runs(results: Sequence[SizeResult]) -> list[tuple[str, Run]]:
    """Each size's cold, one-change and one-value builds that succeeded (`SizeResult.measured`),
    named for a column."""
    return [(f"{kind.replace('_', '-')} {r.n:,}", run) for r in results for kind, run in r.measured()]


def cpu_tables(results: Sequence[SizeResult]) -> tuple[list[str], list[str]]:
    """Where the CPU time of each build goes: the build process's in each step, then the other
    processes', by what they did. On two cores a step's seconds show only what the build process
    waited for: a process beside it (a memo written, the report) costs CPU that no step shows."""
    runs = [(name, run) for name, run in _measured_runs(results) if run.cpu]
    if not runs:
        return [], []
    steps = _by_step([(f"{name} s", [(step, own) for step, own, _ in run.cpu]) for name, run in runs], ".2f")
    own = [sum(c[1] for c in run.cpu) for _, run in runs]
    steps.append("| **the build process** | " + " | ".join(f"**{x:.2f}**" for x in own) + " |")
    others = _by_step([(f"{name} s", _others(run)) for name, run in runs], ".2f", "process")
    every = [sum(c[1] + c[2] for c in run.cpu) for _, run in runs]
    rows = (
        ("**every process**, in the build's steps", [f"**{x:.2f}**" for x in every]),
        ("interpreter start and exit", [f"{run.cpu_seconds - x:.2f}" for x, (_, run) in zip(every, runs, strict=True)]),
        ("**as `wait4` counted it**", [f"**{run.cpu_seconds:.2f}**" for _, run in runs]),
    )
    others += [f"| {label} | " + " | ".join(cells) + " |" for label, cells in rows]
    return steps, others


def _others(run: Run) -> list[tuple[str, float]]:
    """The CPU seconds of the parse workers and of each process the build forked, by what they
    did (a kind forked twice counts both), then what the build waited for beyond what they said:
    their exits, and any that died before saying."""
    said: dict[str, float] = {}
    for what, used in run.helpers_cpu:
        said[what] = said.get(what, 0.0) + used
    ended = sum(c[2] for c in run.cpu)
    return [*said.items(), (_EXITS, max(0.0, ended - sum(said.values())))]


_EXITS = "their exits, and any that died before saying"


def memory_table(results: Sequence[SizeResult]) -> list[str]:
    """The build process's peak memory when each step of each cold build ended: the step whose
    row grows most is where the memory goes (a parse worker's peak is not in it)."""
    runs = [(f"cold {r.n:,} MB", r.cold.peaks) for r in results if r.cold_ok and r.cold is not None and r.cold.peaks]
    return _by_step(runs, ",.0f") if runs else []


def _processes(run: Run) -> list[tuple[str, float]]:
    """The peak RSS in MB of the build process (its last step's) and of each process it forked;
    a kind of process forked twice counts its larger."""
    largest: dict[str, float] = {"the build": run.peaks[-1][1]} if run.peaks else {}
    for what, peak in run.helpers:
        largest[what] = max(peak, largest.get(what, 0.0))
    return list(largest.items())


def processes_table(results: Sequence[SizeResult]) -> list[str]:
    """The peak memory of each process of each cold, one-change and one-value build: the largest is the
    one the memory target is measured on."""
    runs = [(f"{name} MB", _processes(run)) for name, run in _measured_runs(results) if run.peaks or run.helpers]
    return _by_step(runs, ",.0f", "process") if runs else []


def _by_step(columns: Sequence[tuple[str, Sequence[tuple[str, float]]]], spec: str, row: str = "step") -> list[str]:
    """A Markdown table with a row per step (in the order the builds met them) and a column per
    build, each cell its figure for that step, or a dash where the build had no such step."""
    names = list(dict.fromkeys(step for _, figures in columns for step, _ in figures))
    lines = [
        f"| {row} | " + " | ".join(name for name, _ in columns) + " |",
        "|---|" + "|".join("---:" for _ in columns) + "|",
    ]
    for step in names:
        lines.append(f"| {step} | " + " | ".join(_fmt(dict(figures).get(step), spec) for _, figures in columns) + " |")
    return lines


def outputs_section(results: Sequence[SizeResult], info: Mapping[str, Any]) -> list[str]:
    """The CPU of writing each output again (`output_work`) by size, and what it makes the least
    the one-value build can take at the largest size: its start-up as it met it (the interpreter,
    the imports, the survey), and the CPU of the outputs it wrote anew shared by every core.
    Beside it, 10% of a cold build at the floor's target (1.5 × the floor)."""
    from pipeline.stages.reconcile import listed

    measured = [r for r in results if r.outputs]
    if not measured:
        return []
    lines = [
        "CPU seconds of writing each output of the cold build again from its finished tables, one",
        "after the other in one process (`bench.run.output_work`): a table's Parquet and CSV, its",
        "contract and its files' digests; the page and its digest. A build rewrites each output its",
        "edit changes, however little it decided again.",
        "",
        *_by_step([(f"{r.n:,} CPU s", tuple(r.outputs.items())) for r in measured], ".2f", row="output"),
        "| **all** | " + " | ".join(f"**{sum(r.outputs.values()):.2f}**" for r in measured) + " |",
    ]
    big = max(measured, key=lambda r: r.n)
    value, cold, cpus = big.one_value, big.cold, int(info.get("cpus") or 1)
    if value is None or not value.ok or not value.steps or cold is None or not big.rewritten:
        return lines
    steps = dict(value.steps)
    start = _outside(value) + steps.get("survey", 0.0) + steps.get("imports", 0.0)
    spent = sum(big.outputs.get(name, 0.0) for name in big.rewritten)
    least = start + spent / cpus
    tables = [name for name in big.rewritten if name != PAGE]
    parts = [f"the {listed(tables)} table{'s' if len(tables) > 1 else ''}"] if tables else []
    if PAGE in big.rewritten:
        parts.append("the page")
    named = listed(parts)
    sentence = (
        f"At N={big.n:,} the one-value build wrote {named} anew, {spent:.2f} CPU s here: on {cpus} CPUs "
        f"it takes at least {least:.2f} s, with {start:.2f} s of start-up (the interpreter, its imports "
        f"and the survey, as it met them), {least / cold.seconds:.1%} of the cold build"
    )
    if big.floor_seconds:
        sentence += f"; 10% of a cold build at 1.5 × the floor is {0.15 * big.floor_seconds:.2f} s"
    return [*lines, "", sentence + "."]


# ------------------------------------------------------------------------------ targets


def _reference(results: Sequence[SizeResult], preferred: int) -> SizeResult | None:
    """The size a target is stated for, or else the largest measured: a smaller run still says something."""
    ok = [r for r in results if r.cold_ok]
    return next((r for r in ok if r.n == preferred), max(ok, key=lambda r: r.n, default=None))


def _at(result: SizeResult, stated: str) -> str:
    return f"N={result.n:,}" + ("" if f"{result.n:,}" == stated else f" (stated for {stated})")


def _verdict(ok: bool) -> str:
    return "met" if ok else "missed"


def _judged(goal: str, at: str, measured: str | None, ok: bool | None) -> Target:
    """A target's row; without a figure it is not measured."""
    return Target(goal, "–" if measured is None else measured, at, "not measured" if ok is None else _verdict(ok))


def targets(results: Sequence[SizeResult], startup: Run | None = None) -> list[Target]:
    """The goals the project set itself, each evaluated at the size it names when that was run;
    `startup` (a build of an empty folder) is the memory any build holds before its documents."""
    ref = _reference(results, 10_000)
    none = "not measured"
    rec = ref.record() if ref is not None else {}
    at = _at(ref, "10,000") if ref is not None else "–"
    ratio, peak, noop = rec.get("cold_over_floor"), rec.get("max_peak_rss_bytes"), rec.get("noop_over_cold")
    # A changed document is judged by the slower of its two edits: a line, and a value.
    edits = [
        (r, kind)
        for key, kind in (("one_change_over_cold", "a line"), ("one_value_over_cold", "a value"))
        if (r := rec.get(key)) is not None
    ]
    worst = max((r for r, _ in edits), default=None)
    out = [
        _judged(
            "cold build ≤ 1.5 × tokenize-only floor",
            at,
            None if ratio is None else f"{_sig(ratio)} ×",
            None if ratio is None else ratio <= 1.5,
        ),
        _judged(
            "peak RSS < 1 GiB (largest process, any build)",
            at,
            None if peak is None else f"{peak / GIB:.2f} GiB",
            None if peak is None else peak < GIB,
        ),
        _judged(
            "no-op rebuild < 5% of cold",
            at,
            None if noop is None else f"{noop:.1%}",
            None if noop is None else noop < 0.05,
        ),
        _judged(
            "one changed document < 10% of cold (a line added; a value changed)",
            at,
            "; ".join(f"{r:.1%} ({kind})" for r, kind in edits) or None,
            None if worst is None else worst < 0.10,
        ),
    ]
    big, small = _pair(results)
    goal = "per-document time at 10,000 ≤ 1.2 × at 1,000"
    if big is None or small is None or big.cold is None or small.cold is None:
        out.append(Target(goal, "–", "needs two sizes", none))
    else:
        per_big = big.cold.seconds / big.documents
        per_small = small.cold.seconds / small.documents
        out.append(
            Target(
                goal,
                f"{per_big * 1000:.2f} ms vs {per_small * 1000:.2f} ms = {per_big / per_small:.2f} ×",
                _pair_at(big, small),
                _verdict(per_big <= 1.2 * per_small),
            )
        )
    out.append(_growth(big, small, startup))
    return out


def _pair(results: Sequence[SizeResult]) -> tuple[SizeResult | None, SizeResult | None]:
    """The two sizes a growth target compares: 10,000 and 1,000 documents where both were built
    cold, else the largest and the next below it."""
    ok = sorted((r for r in results if r.cold_ok and r.documents), key=lambda r: r.n)
    big = next((r for r in ok if r.n == 10_000), ok[-1] if ok else None)
    small = next((r for r in ok if r.n == 1_000 and big is not None and r.n < big.n), None)
    if small is None and big is not None:
        small = next((r for r in reversed(ok) if r.n < big.n), None)
    return big, small


def _pair_at(big: SizeResult, small: SizeResult) -> str:
    stated = big.n == 10_000 and small.n == 1_000
    return f"N={big.n:,} vs N={small.n:,}" + ("" if stated else " (stated for 10,000 vs 1,000)")


def _growth(big: SizeResult | None, small: SizeResult | None, startup: Run | None) -> Target:
    """Peak RSS growing no faster than linearly: the memory each document adds, above what a
    build of no documents holds (start-up's peak, or none where it was not measured), is no
    larger at the bigger size. Per document of the whole peak, the interpreter's and the
    libraries' memory would pass almost any growth."""
    goal = "peak RSS grows no faster than linearly (MB per document above start-up)"
    if big is None or small is None:
        return Target(goal, "–", "needs two sizes", "not measured")
    peaks = [r.record()["max_peak_rss_bytes"] for r in (big, small)]
    base = startup.peak_rss_bytes if startup is not None and startup.ok else 0
    per_big, per_small = ((peak - base) / MB / r.documents for peak, r in zip(peaks, (big, small), strict=True))
    measured = f"{per_big:.3f} MB vs {per_small:.3f} MB"
    if per_small > 0:
        measured += f" = {per_big / per_small:.2f} ×"
    return Target(goal, measured, _pair_at(big, small), _verdict(per_big <= per_small))


# ------------------------------------------------------------------------------ report


def machine() -> dict[str, Any]:
    """What the figures depend on besides the code; no host name and no paths."""
    info: dict[str, Any] = {
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "markdown_it_py": _version("markdown-it-py"),
        "load_average_1m": round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None,
        "commit": _commit(),
    }
    return info


def _version(dist: str) -> str | None:
    from importlib import metadata

    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def _commit() -> str | None:
    """The code measured: a short commit, marked when the working tree has changes (but for the
    benchmark's own results, which the previous run left there to be committed)."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=PROJECT_ROOT, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no", "--", ".", ":(exclude)bench/results.*"],
            cwd=PROJECT_ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    return f"{head} + uncommitted changes" if dirty else head


def _fmt(value: Any, spec: str) -> str:
    return "–" if value is None else format(value, spec)


def _sig(value: float | None) -> str:
    """About three significant figures, without exponents: tiny and large corpora share columns."""
    if value is None:
        return "–"
    if value >= 100:
        return f"{value:,.0f}"
    if value >= 10:
        return f"{value:.1f}"
    if value >= 1:
        return f"{value:.2f}"
    return f"{value:.3g}" if value >= 0.001 else f"{value:.6f}"


def render_markdown(results: Sequence[SizeResult], info: dict[str, Any], date: str, startup: Run | None = None) -> str:
    """The results table, targets and notes as Markdown: what is printed and what is written."""
    lines = [
        "# Benchmark",
        "",
        f"{date} · {info['cpus']} CPUs · Python {info['python']} ({info['implementation']}) · "
        f"{info['platform']} · markdown-it-py {info['markdown_it_py']} · "
        f"load average {info['load_average_1m']} at start · commit {info['commit'] or 'unknown'}",
        "",
        "| " + " | ".join(COLUMNS) + " |",
        "|" + "|".join("---:" for _ in COLUMNS) + "|",
    ]
    for result in results:
        r = result.record()
        cells = [
            f"{r['n']:,}",
            _sig(r["corpus_mb"]),
            _fmt(r["cold_s"], ".2f"),
            _sig(r["docs_per_s"]),
            _sig(r["mb_per_s"]),
            _fmt(r["peak_rss_mb"], ",.0f"),
            _fmt(r["cpu_s"], ".2f"),
            _fmt(r["floor_s"], ".3f"),
            _sig(r["cold_over_floor"]),
            _fmt(r["noop_s"], ".2f"),
            _fmt(r["noop_over_cold"], ".3f"),
            _fmt(r["one_change_s"], ".2f"),
            _fmt(r["one_change_over_cold"], ".3f"),
            _fmt(r["one_value_s"], ".2f"),
            _fmt(r["one_value_over_cold"], ".3f"),
        ]
        if not result.cold_ok:
            cells[2] = "failed"
        lines.append("| " + " | ".join(cells) + " |")
    failures = [(r.n, e) for r in results for e in r.errors]
    if failures:
        lines += ["", "Failures:", ""] + [f"- N={n:,}: {e}" for n, e in failures]
    if startup is not None and startup.ok:
        lines += [
            "",
            f"Start-up (a build of an empty sources folder): {startup.seconds:.2f} s, "
            f"peak RSS {startup.peak_rss_bytes / MB:,.0f} MB.",
        ]
    lines += ["", "## Targets", "", "| target | measured | at | result |", "|---|---:|---|---|"]
    lines += [f"| {t.goal} | {t.measured} | {t.at} | **{t.result}** |" for t in targets(results, startup)]
    written = outputs_section(results, info)
    if written:
        lines += ["", "## What a changed build writes again", "", *written]
    files = ", ".join(f"{r.n:,} → {r.documents:,}" for r in results)
    changed = "; ".join(f"N={r.n:,}: `{r.changed_document}`" for r in results if r.changed_document)
    steps = steps_table(results, startup)
    if steps:
        lines += ["", "## Where the time goes", "", *steps]
    by_step, by_process = cpu_tables(results)
    if by_step:
        lines += [
            "",
            "## Where the CPU goes",
            "",
            "CPU seconds (user and system) of the build process in each step:",
            "",
            *by_step,
            "",
            "And of the other processes, by what they did:",
            "",
            *by_process,
        ]
    memory = memory_table(results)
    if memory:
        lines += [
            "",
            "## Where the memory goes",
            "",
            "Peak RSS of the build process when each step ended.",
            "",
            *memory,
        ]
    for result in results:
        cold = (result.cold.seconds, result.cold.peak_rss_bytes) if result.cold_ok and result.cold else None
        measured = {name: (run.seconds, run.peak_rss_bytes) if run.ok else None for name, run in result.tricks.items()}
        buys = tricks.section(cold, measured, result.n)
        if buys:
            lines += ["", "## What each trick buys", "", *buys]
    processes = processes_table(results)
    if processes:
        lines += [
            "",
            "## The largest processes",
            "",
            "Peak RSS of the build process and of each process it forked to work beside it (a fork",
            "counts the build's pages it shares, as the system does).",
            "",
            *processes,
        ]
    lines += [
        "",
        "## How these were measured",
        "",
        f"- N is the size asked of `bench.corpus.generate(N, dest, seed={SEED})`; .md/.txt files written: {files}.",
        "  corpus MB counts those files; MB = 10^6 bytes throughout (the memory target is 1 GiB = 2^30 bytes).",
        "- Builds are `python -m pipeline build --sources corpus-N --out out-N --quiet`, each in a fresh process,",
        "  timed from start to exit: interpreter start-up and imports are included, as a user waits for them.",
        f"- cold: `out-N` and the parse cache (`{CACHE_DIR}` beside it) removed first. no-op: the same build",
        "  again with nothing changed. one-change: a line appended to one Markdown page with a table"
        + (f" ({changed})" if changed else "")
        + ", which changes none of its claims: the build takes the reconciled tables and the page from the",
        "  output it replaces. one-value: then, the line removed, the first whole number in a cell of its",
        "  tables (after the first column) one more, which changes one claim; then the file restored.",
        "- peak RSS MB: peak RSS of the largest process (the build or one of its parse workers), from",
        "  `wait4`'s ru_maxrss; the memory of several processes is not summed. CPU s: user + system time",
        "  of the build and the workers it waited for; above wall time means several cores were used.",
        "- floor: markdown-it-py alone (`MarkdownIt('commonmark', {'html': True}).enable(['table',",
        "  'strikethrough'])`, `.parse(text)`) tokenizing the same files in one fresh process on one core,",
        "  the files read before timing starts: the least any markdown-it-py based pipeline can take.",
        "  The fastest of several passes counts (all passes are in the JSON).",
        "- Steps: the seconds each step of a build took, as the build timed itself (`--timings FILE`);",
        "  on two cores the contracts and the report run beside the writing of the tables, and their",
        "  step is the time waited for them after it. Start-up: a build of an empty sources folder.",
        "- Memory by step: the build process's peak RSS when each step ended (`--timings FILE`); the",
        "  parse workers and the forked helpers have their own, which the peak RSS column includes.",
        "- CPU: user + system seconds, as the build counts them (`--timings FILE`): its own in each step",
        "  (all its threads), the parse workers' once the pool is shut down, each forked helper's once",
        "  its answer is sent, and what the build waited for beyond those (the helpers' exits). With two",
        "  cores a step's wall seconds hide the second core's work: a build's CPU is what two cores share.",
        "- The largest processes: each forked helper's VmHWM once its answer is sent, as the build",
        "  lists it in `--timings FILE`; the build's is its last step's.",
        "- Outputs: every table's Parquet and CSV, the contracts, the page and the SHA-256 digests of the",
        "  files, written again into a scratch folder from the cold build's tables read back, in one fresh",
        "  process (`python -m bench --outputs out-N`), by the pipeline's own functions; CPU seconds each.",
        "- One run of each build, not best-of-several: on a shared or loaded machine, compare with care.",
        "",
    ]
    return "\n".join(lines)


def results_json(
    results: Sequence[SizeResult], info: dict[str, Any], date: str, startup: Run | None = None
) -> dict[str, Any]:
    """The same data as the Markdown, for tools and for comparing runs."""
    return {
        "date": date,
        "machine": info,
        "startup_s": startup.seconds if startup is not None and startup.ok else None,
        "startup_steps_s": dict(startup.steps) if startup is not None and startup.ok else None,
        "startup_peak_rss_mb": startup.peak_rss_bytes / MB if startup is not None and startup.ok else None,
        "columns": list(COLUMNS),
        "results": [r.record() for r in results],
        "targets": [asdict(t) for t in targets(results, startup)],
    }


def write_results(
    results: Sequence[SizeResult], out: Path, info: dict[str, Any], date: str, startup: Run | None = None
) -> str:
    """Write `out` (Markdown) and `out` with a .json suffix; return the Markdown."""
    text = render_markdown(results, info, date, startup)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8", newline="\n")
    data = json.dumps(results_json(results, info, date, startup), indent=2, ensure_ascii=False) + "\n"
    out.with_suffix(".json").write_text(data, encoding="utf-8", newline="\n")
    return text


# ------------------------------------------------------------------------------ command line


def _sizes(text: str) -> list[int]:
    try:
        sizes = [int(part.replace("_", "")) for part in text.split(",") if part.strip()]
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"sizes must be whole numbers separated by commas: {text!r}") from exc
    if not sizes or any(n <= 0 for n in sizes):
        raise argparse.ArgumentTypeError("sizes must be one or more positive numbers")
    return sizes


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from exc
    if value < 1:
        raise argparse.ArgumentTypeError("must be 1 or more")
    return value


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m bench",
        description="Time whole builds of generated corpora against the markdown-it-py floor, "
        "cold, no-op and after one change; print the table and write it to --out.",
    )
    p.add_argument("--sizes", type=_sizes, default=list(DEFAULT_SIZES), help="corpus sizes (default: 100,1000,10000)")
    p.add_argument("--out", type=Path, default=Path("bench/results.md"), help="Markdown results (JSON beside)")
    p.add_argument("--work", type=Path, help="work folder, kept; corpora already generated there are reused")
    p.add_argument("--keep", action="store_true", help="keep the temporary work folder (ignored with --work)")
    p.add_argument(
        "--floor-repeats",
        type=_positive,
        default=FLOOR_REPEATS,
        help=f"tokenize passes, fastest counts (default: {FLOOR_REPEATS})",
    )
    p.add_argument(
        "--no-tricks",
        dest="tricks",
        action="store_false",
        help="skip the cold builds of the largest size without each of the build's tricks",
    )
    p.add_argument("--floor", type=Path, metavar="DIR", help=argparse.SUPPRESS)
    p.add_argument("--outputs", type=Path, metavar="DIR", help=argparse.SUPPRESS)
    return p


def _log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark; exit 1 when any build failed, so that `make bench` shows it."""
    args = parser().parse_args(argv)
    if args.floor is not None:
        print(json.dumps(asdict(tokenize_floor(args.floor, args.floor_repeats))))
        return 0
    if args.outputs is not None:
        print(json.dumps(output_work(args.outputs)))
        return 0
    date = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    info = machine()
    if args.work is not None:
        args.work.mkdir(parents=True, exist_ok=True)
        _log("start-up: a build of an empty sources folder")
        startup = measure_startup(args.work.resolve())
        results = benchmark(args.sizes, args.work.resolve(), _log, args.floor_repeats, args.tricks)
    else:
        work = Path(tempfile.mkdtemp(prefix="pipeline-bench-"))
        try:
            _log("start-up: a build of an empty sources folder")
            startup = measure_startup(work)
            results = benchmark(args.sizes, work, _log, args.floor_repeats, args.tricks)
        finally:
            if args.keep:
                _log(f"kept the work folder {work}")
            else:
                shutil.rmtree(work, ignore_errors=True)
    text = write_results(results, args.out, info, date, startup)
    print(text, end="")
    _log(f"wrote {args.out} and {args.out.with_suffix('.json')}")
    return 1 if any(r.errors for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
