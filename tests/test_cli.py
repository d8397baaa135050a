"""The command line: what a maintainer types and sees."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from pipeline.stages.read import SUFFIXES

ROOT = Path(__file__).resolve().parent.parent


def run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pipeline", *args], cwd=cwd, capture_output=True, text=True, check=False
    )


def test_build_prints_a_summary(tmp_path: Path) -> None:
    out = tmp_path / "out"
    proc = run("build", "--sources", str(ROOT / "sources"), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    documents = [p for p in (ROOT / "sources").rglob("*") if p.suffix in SUFFIXES]
    assert proc.stdout.startswith(f"documents: {len(documents)}  claims: ")
    sizes = pq.read_metadata(out / "vm_sizes.parquet").num_rows
    assert sizes > 80 and f"sizes: {sizes}  " in proc.stdout


def test_a_cache_that_cannot_be_written_is_a_warning_not_a_failure(tmp_path: Path) -> None:
    """The cache folder beside --out is a file here: nothing can be kept for the next build,
    which the build says on stderr, and the output is written all the same."""
    (tmp_path / ".pipeline-cache").write_text("not a folder", encoding="utf-8")
    proc = run("build", "--sources", str(ROOT / "sources"), "--out", str(tmp_path / "out"))
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "out" / "manifest.json").is_file()
    [warning] = proc.stderr.splitlines()
    assert warning.startswith("warning: cache: ")
    assert warning.endswith(" writes failed; the next build computes again what they would have kept")


def test_strict_fails_with_the_list_of_errors(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.md").write_text("---\nkey: [unclosed\n---\ntext\n")
    proc = run("build", "--sources", str(src), "--out", str(tmp_path / "out"), "--strict")
    assert proc.returncode == 1
    assert "a.md:2: error: front-matter is not valid YAML" in proc.stderr


def test_without_strict_errors_do_not_fail_the_build(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.md").write_text("---\nkey: [unclosed\n---\ntext\n")
    proc = run("build", "--sources", str(src), "--out", str(tmp_path / "out"))
    assert proc.returncode == 0
    assert "1 errors" in proc.stdout


def test_help_names_every_command_with_an_example() -> None:
    proc = run("--help")
    assert proc.returncode == 0
    assert "build" in proc.stdout and "example:" in proc.stdout
    proc = run("build", "--help")
    assert "--strict" in proc.stdout and "example:" in proc.stdout


def test_timings_are_written_where_asked_and_not_into_the_output(tmp_path: Path) -> None:
    out, timings = tmp_path / "out", tmp_path / "timings.json"
    proc = run("build", "--sources", str(ROOT / "sources"), "--out", str(out), "--timings", str(timings))
    assert proc.returncode == 0, proc.stderr
    written = [s for s in json.loads(timings.read_text(encoding="utf-8")) if "step" in s]
    steps = [s["step"] for s in written]
    assert steps[:3] == ["survey", "imports", "read and extract"]
    peaks = [s["peak_rss_mb"] for s in written]
    assert peaks == sorted(peaks) and peaks[0] > 10, "a peak so far never falls, and Python alone holds more"
    assert sum(s["cpu_s"] for s in written) > 0.5, "reading, normalizing and reconciling sources/ takes CPU"
    if (os.cpu_count() or 1) > 1:  # sources/ has enough documents for the parse workers
        processes = {p["process"]: p for p in json.loads(timings.read_text(encoding="utf-8")) if "process" in p}
        workers = processes["parse workers"]["cpu_s"]
        assert workers > 0.05 and workers == pytest.approx(written[2]["children_cpu_s"], abs=0.01), (
            "the processes the build waits for while it reads and extracts are its parse workers"
        )
    assert steps.index("normalize") < steps.index("reconcile") < steps.index("tables") < steps.index("write tables")
    assert not [p for p in out.iterdir() if "timing" in p.name]


def test_timings_give_memory_in_megabytes_of_a_million_bytes() -> None:
    """The benchmark reports MB of 10^6 bytes beside its own measures: a build's peaks must be in
    the same unit, not in MiB (3,000,000 bytes would read 2.9)."""
    from pipeline.cli import timings
    from pipeline.records import BuildResult

    result = BuildResult(
        documents=(),
        claims=(),
        diagnostics=(),
        timings=(("survey", 0.5), ("imports", 0.25)),
        peaks=(("survey", 3_000_000), ("imports", 150_000_000)),
        cpu=(("survey", 0.4, 0.0), ("imports", 0.2, 1.5)),
        helpers=(("normalizing", 512_000_000, 2.25),),
    )
    assert timings(result) == [
        {"step": "survey", "seconds": 0.5, "cpu_s": 0.4, "children_cpu_s": 0.0, "peak_rss_mb": 3.0},
        {"step": "imports", "seconds": 0.25, "cpu_s": 0.2, "children_cpu_s": 1.5, "peak_rss_mb": 150.0},
        {"process": "normalizing", "peak_rss_mb": 512.0, "cpu_s": 2.25},
    ]
