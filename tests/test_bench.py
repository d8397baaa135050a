"""The benchmark's pieces on a tiny corpus: that it measures and reports, never how fast anything is.

Timing assertions would make the suite flaky on a loaded machine; `make bench` reports and
people judge.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from bench import run as bench
from bench import tricks
from pipeline.outputs import schema


def _snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_floor_tokenizes_every_file(tmp_path: Path) -> None:
    root = bench.prepare_corpus(5, tmp_path)
    floor = bench.tokenize_floor(root, repeats=2)
    assert floor.files == len(bench.corpus_files(root)) > 0
    assert len(floor.passes) == 2
    assert floor.seconds == min(floor.passes) > 0


def test_a_generated_corpus_is_reused_until_it_changes(tmp_path: Path) -> None:
    root = bench.prepare_corpus(5, tmp_path)
    doc = bench.pick_document(root)
    assert doc.suffix == ".md" and "includes" not in doc.relative_to(root).parts[:-1]
    stamp = doc.stat().st_mtime_ns
    assert bench.prepare_corpus(5, tmp_path) == root
    assert doc.stat().st_mtime_ns == stamp  # not written again
    doc.write_bytes(doc.read_bytes() + bench.EDIT)  # as an interrupted run would leave it
    bench.prepare_corpus(5, tmp_path)
    assert bench.EDIT not in doc.read_bytes()


def test_benchmark_measures_reports_and_restores(tmp_path: Path) -> None:
    work = tmp_path / "work"
    root = bench.prepare_corpus(5, work)
    before = _snapshot(root)
    logged: list[str] = []

    [result] = bench.benchmark([5], work, logged.append, floor_repeats=1)

    assert result.errors == [], "\n".join(logged)
    assert _snapshot(root) == before, "the edited document was not restored"
    record = result.record()
    for key in (
        "documents",
        "corpus_bytes",
        "cold_s",
        "docs_per_s",
        "mb_per_s",
        "peak_rss_mb",
        "cpu_s",
        "floor_s",
        "cold_over_floor",
        "noop_s",
        "noop_over_cold",
        "one_change_s",
        "one_change_over_cold",
        "one_value_s",
        "one_value_over_cold",
    ):
        assert isinstance(record[key], int | float) and record[key] > 0, key
    assert record["documents"] == len(bench.corpus_files(root))
    assert record["changed_document"] == bench.pick_document(root).relative_to(root).as_posix()
    # One number of a size's row: its claim, the fact it makes and the size's row change, and
    # the page; the prices it never named and the reliability table do not.
    assert {"claims", "facts", "vm_sizes", "report"} <= set(result.rewritten)
    assert "prices" not in result.rewritten and "calibration" not in result.rewritten
    assert record["one_value_rewrote"] == list(result.rewritten)
    assert list(result.outputs) == [*schema.tables(), "report"]
    # The largest size's cold build once more without each of the build's tricks (`bench.tricks`).
    assert list(record["without_trick"]) == [t.name for t in tricks.TRICKS]
    assert all(run is not None and run["cold_s"] > 0 for run in record["without_trick"].values())

    out = tmp_path / "bench" / "results.md"
    info = bench.machine()
    bench.write_results([result], out, info, "2000-01-01 00:00 UTC")
    text = out.read_text(encoding="utf-8")
    assert "| " + " | ".join(bench.COLUMNS) + " |" in text
    assert "## Targets" in text and ("**met**" in text or "**missed**" in text)
    assert "## What a changed build writes again" in text and "the one-value build wrote the " in text
    assert "## What each trick buys" in text and "| parse workers | speed |" in text
    assert str(tmp_path) not in text and str(bench.PROJECT_ROOT) not in text
    data = json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))
    assert data["columns"] == list(bench.COLUMNS)
    assert data["results"][0]["cold_s"] == record["cold_s"]
    assert data["machine"]["cpus"] == info["cpus"]
    assert {t["result"] for t in data["targets"]} <= {"met", "missed", "not measured"}


@pytest.mark.parametrize(
    ("page", "edited"),
    [
        ("| Size | vCPU | Memory: GiB |\n|---|---|---|\n| Standard_NC6 | 6 | 56 |\n", "| Standard_NC6 | 7 | 56 |"),
        ("| Size | GPU |\n|---|---|\n| Standard_NC6 | K80 |\n| NC12 | 2 |\n", "| NC12 | 3 |"),
        ("| Standard_NC24ads_A100_v4 | 24 | 220 |\n", "| Standard_NC24ads_A100_v4 | 25 | 220 |"),
        ("No table here: 40 vCPUs.\n", None),
    ],
)
def test_the_one_value_build_changes_the_first_number_in_a_table_after_its_first_column(
    page: str, edited: str | None
) -> None:
    changed = bench.changed_value(page)
    assert changed is None if edited is None else edited in str(changed)


def test_a_failed_build_is_recorded_and_the_rest_goes_on(tmp_path: Path) -> None:
    # The failure path without a failing build: what a failure leaves in the results.
    work = tmp_path / "work"
    work.mkdir()
    result = bench.SizeResult(5)
    run = bench.Run(1.0, 0.5, 1024, 2, f"error: {work}/out-5 is not a folder\n")
    bench._failed(result, "cold", run, work, lambda _: None)
    assert result.errors == ["cold build exited 2: error: WORK/out-5 is not a folder"]
    result.cold = run
    text = bench.render_markdown([result], bench.machine(), "2000-01-01 00:00 UTC")
    assert "| failed |" in text and "Failures:" in text and str(work) not in text


def test_startup_and_the_steps_of_each_build_are_reported(tmp_path: Path) -> None:
    """A build of an empty folder, and each build's own timing of its steps, in the results."""
    startup = bench.measure_startup(tmp_path)
    assert startup.ok, startup.stderr
    steps = dict(startup.steps)
    assert list(steps)[:2] == ["survey", "imports"] and "reconcile" in steps and "write tables" in steps
    assert all(seconds >= 0 for seconds in steps.values())
    assert sum(steps.values()) <= startup.seconds  # the interpreter's start and exit are outside them
    # No document to read at start-up: said by the tables it wrote, not by how long it took.
    written = json.loads((tmp_path / "startup" / "out" / "manifest.json").read_text(encoding="utf-8"))
    assert written["outputs"]["documents"]["rows"] == written["outputs"]["claims"]["rows"] == 0

    result = bench.SizeResult(5, documents=5, corpus_bytes=1000, floor_seconds=0.01)
    result.cold = bench.Run(2.0, 1.5, 1024, 0, "", (("survey", 0.1), ("read and extract", 0.7), ("reconcile", 0.9)))
    text = bench.render_markdown([result], bench.machine(), "2000-01-01 00:00 UTC", startup)
    peak = f"{startup.peak_rss_bytes / bench.MB:,.0f} MB"
    assert f"Start-up (a build of an empty sources folder): {startup.seconds:.2f} s, peak RSS {peak}." in text
    assert startup.peak_rss_bytes > 10 * bench.MB  # an interpreter with pandas and pyarrow loaded
    rows = text.split("## Where the time goes\n\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert rows[0] == "| step | start-up s | cold 5 s |"
    # The start-up build's read step is shown as it was timed. How long it takes is the
    # benchmark's to say, not a test's: a fresh-clone CI run on a slow machine timed it at 0.066 s.
    assert f"| read and extract | {steps['read and extract']:.3f} | 0.700 |" in rows
    assert "| imports | " in rows[3] and rows[3].endswith(" | – |")
    assert "| interpreter start and exit | " in "\n".join(rows) and rows[-1].endswith("| **2.000** |")
    data = bench.results_json([result], bench.machine(), "2000-01-01 00:00 UTC", startup)
    assert data["startup_s"] == startup.seconds
    assert data["startup_peak_rss_mb"] == startup.peak_rss_bytes / bench.MB
    assert data["results"][0]["cold_steps_s"] == {"survey": 0.1, "read and extract": 0.7, "reconcile": 0.9}


def test_the_memory_of_each_step_of_a_cold_build_is_reported(tmp_path: Path) -> None:
    """Where the memory goes: the build's peak when each step ended, as `--timings` writes it."""
    startup = bench.measure_startup(tmp_path)
    assert startup.ok, startup.stderr
    peaks = dict(startup.peaks)
    assert list(peaks) == [step for step, _ in startup.steps]
    assert list(peaks.values()) == sorted(peaks.values()) and peaks["survey"] > 10

    result = bench.SizeResult(5, documents=5, corpus_bytes=1000, floor_seconds=0.01)
    steps = (("survey", 0.1), ("read and extract", 0.7), ("reconcile", 0.9))
    result.cold = bench.Run(
        2.0, 1.5, 1024, 0, "", steps, (("survey", 60.0), ("read and extract", 350.4), ("reconcile", 1500.0))
    )
    text = bench.render_markdown([result], bench.machine(), "2000-01-01 00:00 UTC", startup)
    rows = text.split("## Where the memory goes\n\n", 1)[1].split("\n\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert rows[:2] == ["| step | cold 5 MB |", "|---|---:|"]
    assert rows[2:] == ["| survey | 60 |", "| read and extract | 350 |", "| reconcile | 1,500 |"]
    data = bench.results_json([result], bench.machine(), "2000-01-01 00:00 UTC", startup)
    assert data["results"][0]["cold_peaks_mb"] == {"survey": 60.0, "read and extract": 350.4, "reconcile": 1500.0}


def test_the_commit_measured_is_marked_by_code_changes_not_by_the_last_results(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The results of the previous run wait in the tree to be committed: they do not make the
    code measured "uncommitted"; a change to anything else does."""
    import subprocess

    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True, text=True).stdout.strip()

    (tmp_path / "bench").mkdir()
    (tmp_path / "bench" / "results.md").write_text("# Benchmark\n")
    (tmp_path / "bench" / "results.json").write_text("{}\n")
    (tmp_path / "build.py").write_text("print('build')\n")
    git("init", "-q")
    git("add", ".")
    git("-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-qm", "first")
    head = git("rev-parse", "--short", "HEAD")
    monkeypatch.setattr(bench, "PROJECT_ROOT", tmp_path)
    (tmp_path / "bench" / "results.md").write_text("# Benchmark, again\n")
    (tmp_path / "bench" / "results.json").write_text('{"again": true}\n')
    assert bench._commit() == head
    (tmp_path / "build.py").write_text("print('built')\n")
    assert bench._commit() == f"{head} + uncommitted changes"


def test_the_peak_of_each_process_a_build_forked_is_reported(tmp_path: Path) -> None:
    """The memory target is the largest process's, and that is often one the build forked: each
    is listed by what it did, beside the build's own peak, for the cold and the one-change build."""
    result = bench.SizeResult(5, documents=5, corpus_bytes=1000, floor_seconds=0.01)
    peaks = (("survey", 60.0), ("reconcile", 1300.0))
    result.cold = bench.Run(
        2.0, 1.5, 1024, 0, "", (("survey", 0.1), ("reconcile", 0.9)), peaks,
        (("saving of the parse memo", 380.0), ("contracts and report", 1466.0), ("saving of the parse memo", 390.0)),
    )  # fmt: skip
    result.one_change = bench.Run(1.0, 1.0, 1024, 0, "", (), peaks, (("contracts and report", 1429.0),))
    text = bench.render_markdown([result], bench.machine(), "2000-01-01 00:00 UTC", None)
    rows = text.split("## The largest processes\n\n", 1)[1].split("\n\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert rows == [
        "| process | cold 5 MB | one-change 5 MB |",
        "|---|---:|---:|",
        "| the build | 1,300 | 1,300 |",
        "| saving of the parse memo | 390 | – |",
        "| contracts and report | 1,466 | 1,429 |",
    ]
    data = bench.results_json([result], bench.machine(), "2000-01-01 00:00 UTC", None)
    assert data["results"][0]["processes_mb"]["cold"]["contracts and report"] == 1466.0
    assert data["results"][0]["processes_mb"]["one_change"] == {"the build": 1300.0, "contracts and report": 1429.0}


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="a build forks helpers only with a second core")
def test_a_build_lists_the_processes_it_forked_for_the_benchmark(tmp_path: Path) -> None:
    from bench import corpus

    corpus.generate(300, tmp_path / "corpus", seed=3)
    run = bench.run_build(tmp_path / "corpus", tmp_path / "out")
    assert run.ok, run.stderr
    helpers = dict(run.helpers)
    assert {"report", "claims table"} <= set(helpers) and all(peak > 10 for peak in helpers.values())
    # Where the CPU went: each step's, the parse workers' (300 documents are parsed in workers)
    # and each forked process's; all of it adds up to what the system counted, but the
    # interpreter's start before the first step.
    assert [step for step, *_ in run.cpu] == [step for step, _ in run.steps]
    cpu = {step: (own, children) for step, own, children in run.cpu}
    said = dict(run.helpers_cpu)
    assert set(said) == set(helpers) and said["report"] > 0.05
    assert said["parse workers"] > 0.2 and said["parse workers"] == pytest.approx(cpu["read and extract"][1], abs=0.01)
    every = sum(own + children for own, children in cpu.values())
    assert run.cpu_seconds * 0.6 < every <= run.cpu_seconds + 0.05
    assert [step for step, _ in run.steps][:2] == ["survey", "imports"]


def test_the_cpu_of_each_step_and_of_each_other_process_is_reported() -> None:
    """On two cores a step's seconds hide what the second core did: the CPU tables show the
    build process's time by step, then the parse workers' and each forked process's."""
    result = bench.SizeResult(5, documents=5, corpus_bytes=1000, floor_seconds=0.01)
    cpu = (("survey", 0.1, 0.0), ("read and extract", 0.5, 3.5), ("reconcile", 2.0, 1.5))
    said = (("parse workers", 3.5), ("claims table", 1.0), ("saving of the parse memo", 0.25))
    result.cold = bench.Run(
        4.0, 7.85, 1024, 0, "", (("survey", 0.1), ("read and extract", 2.0), ("reconcile", 1.5)), (), (), cpu, said
    )
    text = bench.render_markdown([result], bench.machine(), "2000-01-01 00:00 UTC", None)
    section = text.split("## Where the CPU goes\n\n", 1)[1]
    steps = section.split("\n\n")[1].splitlines()
    assert steps == [
        "| step | cold 5 s |",
        "|---|---:|",
        "| survey | 0.10 |",
        "| read and extract | 0.50 |",
        "| reconcile | 2.00 |",
        "| **the build process** | **2.60** |",
    ]
    others = section.split("\n\n")[3].splitlines()
    assert others == [
        "| process | cold 5 s |",
        "|---|---:|",
        "| parse workers | 3.50 |",
        "| claims table | 1.00 |",
        "| saving of the parse memo | 0.25 |",
        "| their exits, and any that died before saying | 0.25 |",  # 5 s waited for, 4.75 s said
        "| **every process**, in the build's steps | **7.60** |",
        "| interpreter start and exit | 0.25 |",
        "| **as `wait4` counted it** | **7.85** |",
    ]
    data = bench.results_json([result], bench.machine(), "2000-01-01 00:00 UTC", None)
    assert data["results"][0]["cpu_s_by_step"]["cold"]["reconcile"] == {"build": 2.0, "children": 1.5}
    assert data["results"][0]["cpu_s_by_process"]["cold"] == {
        "parse workers": 3.5,
        "claims table": 1.0,
        "saving of the parse memo": 0.25,
        "their exits, and any that died before saying": 0.25,
    }


def test_timings_of_a_build_that_wrote_no_cpu_are_read_without_it() -> None:
    """An older build's `--timings` file has no CPU seconds: its steps, peaks and processes are
    read, and no CPU is made up for it (the CPU tables leave it out)."""
    written = [
        {"step": "survey", "seconds": 0.5, "peak_rss_mb": 60.0},
        {"step": "reconcile", "seconds": 1.5, "peak_rss_mb": 900.0},
        {"process": "report", "peak_rss_mb": 850.0},
    ]
    steps, peaks, helpers, cpu, said = bench.read_timings(written)
    assert steps == (("survey", 0.5), ("reconcile", 1.5)) and peaks == (("survey", 60.0), ("reconcile", 900.0))
    assert helpers == (("report", 850.0),) and cpu == () and said == ()
    result = bench.SizeResult(5, documents=5, corpus_bytes=1000, floor_seconds=0.01)
    result.cold = bench.Run(2.0, 1.5, 1024, 0, "", steps, peaks, helpers, cpu, said)
    assert bench.cpu_tables([result]) == ([], [])
    assert "## Where the CPU goes" not in bench.render_markdown([result], bench.machine(), "2000-01-01 00:00 UTC")


def test_every_output_is_written_again_as_the_build_wrote_it_and_its_folder_left_alone(tmp_path: Path) -> None:
    """The outputs' work is the build's own: the same files from the tables read back."""
    root = bench.prepare_corpus(5, tmp_path)
    out = tmp_path / "out"
    assert bench.run_build(root, out).ok
    before = _snapshot(out)

    work = bench.output_work(out, tmp_path / "again")

    assert list(work) == [*schema.tables(), "report"]
    assert all(seconds >= 0 for seconds in work.values())
    again = _snapshot(tmp_path / "again")
    tables = [f"{name}.{ext}" for name in schema.tables() for ext in ("parquet", "csv")]
    assert sorted(again) == sorted([*tables, "report.html"])
    assert {name: data for name, data in before.items() if name in again} == again
    assert _snapshot(out) == before
    assert list(bench.measure_output_work(out)) == list(work)  # in a process of its own, as `make bench` runs it
    assert set(bench.output_digests(out)) == set(work)
    assert bench.output_digests(tmp_path / "nothing") == {}


def test_the_least_a_changed_build_takes_is_its_start_up_and_its_outputs_shared_by_the_cores() -> None:
    result = bench.SizeResult(10, documents=10, corpus_bytes=1000, floor_seconds=10.0)
    result.cold = bench.Run(20.0, 30.0, 1024, 0, "", (("survey", 1.0), ("reconcile", 15.0)))
    # 5.0 s of wall, 3.5 s of it in steps: 1.5 s of interpreter start and exit, 0.5 s of survey and imports.
    result.one_value = bench.Run(5.0, 6.0, 1024, 0, "", (("survey", 0.2), ("imports", 0.3), ("reconcile", 3.0)))
    result.outputs = {"claims": 1.0, "facts": 2.0, "prices": 9.0, "report": 1.0}
    result.rewritten = ("claims", "facts", "report")

    lines = bench.outputs_section([result], {"cpus": 2})
    text = "\n".join(lines)

    assert "| output | 10 CPU s |" in lines and "| facts | 2.00 |" in lines and "| **all** | **13.00** |" in lines
    # What it rewrote: 4.00 CPU s over two cores, after 2.00 s of start-up: 4.00 s, 20% of the
    # 20 s cold build; 10% of a cold build 1.5 times the 10 s floor is 1.50 s.
    assert "wrote the claims and facts tables and the page anew, 4.00 CPU s here" in text
    assert "takes at least 4.00 s, with 2.00 s of start-up" in text
    assert "20.0% of the cold build; 10% of a cold build at 1.5 × the floor is 1.50 s." in text
    rendered = bench.render_markdown([result], {**bench.machine(), "cpus": 2}, "2000-01-01 00:00 UTC")
    assert "## What a changed build writes again" in rendered and "takes at least 4.00 s" in rendered
    recorded = bench.results_json([result], bench.machine(), "2000-01-01 00:00 UTC")["results"][0]
    assert recorded["outputs_cpu_s"] == result.outputs and recorded["one_value_rewrote"] == list(result.rewritten)


def _sized(n: int, peak_mb: float, seconds: float = 1.0) -> bench.SizeResult:
    result = bench.SizeResult(n, documents=n, corpus_bytes=n * 2_500, floor_seconds=seconds / 2)
    result.cold = bench.Run(seconds, seconds, int(peak_mb * bench.MB), 0, "")
    return result


@pytest.mark.parametrize(
    ("peaks", "startup_mb", "measured", "at", "result"),
    [
        # The 2c34bd7 run's peaks (bench/results.md): 279 MB at 1,000 and 947 MB at 10,000, above
        # the 119 MB a build held once its imports were done: 0.083 MB a document against 0.160.
        ({1_000: 279, 10_000: 947}, 119, "0.083 MB vs 0.160 MB = 0.52 ×", "N=10,000 vs N=1,000", "met"),
        # Without start-up's peak the whole peak is divided: the base would hide any growth.
        ({1_000: 279, 10_000: 947}, None, "0.095 MB vs 0.279 MB = 0.34 ×", "N=10,000 vs N=1,000", "met"),
        # Each document holding twice as much at ten times the documents: faster than linear.
        ({1_000: 219, 10_000: 2_119}, 119, "0.200 MB vs 0.100 MB = 2.00 ×", "N=10,000 vs N=1,000", "missed"),
        (
            {100: 150, 1_000: 400},
            119,
            "0.281 MB vs 0.310 MB = 0.91 ×",
            "N=1,000 vs N=100 (stated for 10,000 vs 1,000)",
            "met",
        ),
        ({10_000: 947}, 119, "–", "needs two sizes", "not measured"),
    ],
)
def test_memory_is_judged_by_what_each_document_adds_above_start_up(
    peaks: dict[int, float], startup_mb: float | None, measured: str, at: str, result: str
) -> None:
    startup = None if startup_mb is None else bench.Run(0.8, 0.8, int(startup_mb * bench.MB), 0, "")
    results = [_sized(n, peak) for n, peak in peaks.items()]
    target = next(t for t in bench.targets(results, startup) if t.goal.startswith("peak RSS grows"))
    assert (target.measured, target.at, target.result) == (measured, at, result)


def test_per_document_time_compares_ten_thousand_with_one_thousand() -> None:
    results = [_sized(100, 150, 1.3), _sized(1_000, 279, 4.02), _sized(10_000, 947, 24.85)]
    target = next(t for t in bench.targets(results) if t.goal.startswith("per-document time"))
    assert (target.measured, target.at, target.result) == ("2.49 ms vs 4.02 ms = 0.62 ×", "N=10,000 vs N=1,000", "met")
