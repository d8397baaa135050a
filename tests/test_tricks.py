"""The build's tricks (bench/tricks.py): a build without any one of them writes the same bytes
and forks nothing for it, and the rule that keeps a trick reads as bench/results.md says."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bench import tricks
from tests.conftest import SOURCES

ROOT = Path(__file__).resolve().parents[1]
GIB = 2**30


@pytest.mark.parametrize(
    ("name", "cold", "without", "said", "kept"),
    [
        # A second process that saves 12% of the cold build pays for itself.
        ("reconcile in two", (50.0, 900_000_000), (56.0, 880_000_000), "buys 12% of the cold build", True),
        # One that saves 2% does not, whatever memory it costs.
        ("normalize in two", (50.0, 900_000_000), (51.0, 850_000_000), "buys 2% of the cold build", False),
        # Without it the largest process is over 1 GiB: kept, however fast the build is without it.
        ("claims table apart", (50.0, 980_000_000), (48.0, 1_150_000_000), "is 1.07 GiB", True),
        # Within 5% of 1 GiB (a one-value build peaks a little above a cold one): kept.
        ("buckets at a time", (50.0, 980_000_000), (50.0, 1_030_000_000), "is 0.96 GiB", True),
        # Well under it: the memory it saves is not needed.
        ("jemalloc", (50.0, 700_000_000), (50.0, 800_000_000), "is 0.75 GiB", False),
    ],
)
def test_a_trick_is_kept_where_it_buys_5_percent_or_keeps_memory_near_a_gib_down(
    name: str, cold: tuple[float, int], without: tuple[float, int], said: str, kept: bool
) -> None:
    why, keep = tricks.verdict(tricks.BY_NAME[name], cold, without)
    assert said in why and keep is kept


def test_the_section_lists_each_trick_measured_with_its_rule_and_verdict() -> None:
    measured = {"reconcile in two": (66.5, 993_000_000), "report beside": (61.5, 1_111_000_000), "jemalloc": None}
    lines = tricks.section((53.9, 987_000_000), measured, 10_000)
    assert lines[0].startswith("The cold build of 10,000 documents again, once without each trick")
    rows = [line for line in lines if line.startswith("| ") and not line.startswith("| trick")]
    assert rows == [
        "| reconcile in two | speed | the entities decided in two parts, one in a forked process | 66.5 | 993 "
        "| buys 23% of the cold build | yes |",
        "| report beside | memory | the page made by a forked process while the tables are written | 61.5 | 1,111 "
        "| without it the largest process is 1.03 GiB | yes |",
        "| jemalloc | memory | Arrow allocating from jemalloc, which gives freed pages back | failed | – | – | – |",
    ]
    assert tricks.section(None, measured, 10_000) == [] and tricks.section((1.0, 1), {}, 5) == []


_FORKED = {
    "parse workers": "parse workers",
    "normalize in two": "normalizing",
    "reconcile in two": "deciding the other part of the entities",
    "memos saved beside": "saving of the parse memo",
    "claims table apart": "claims table",
    "report beside": "report",
}
"""The process each trick that forks one is named by in `--timings`."""


@pytest.fixture(scope="module")
def with_every_trick(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, object]]]:
    out = tmp_path_factory.mktemp("with") / "out"
    return out, _build(None, out)


def _build(trick: str | None, out: Path) -> list[dict[str, object]]:
    timings = out.parent / "timings.json"
    command = ["-m", "pipeline"] if trick is None else ["-m", "bench.tricks", trick]
    args = ["build", "--sources", str(SOURCES), "--out", str(out), "--quiet", "--timings", str(timings)]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, *command, *args], cwd=ROOT, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    written: list[dict[str, object]] = json.loads(timings.read_text(encoding="utf-8"))
    return written


def _files(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(out.iterdir()) if p.name != "manifest.json"}


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="a build forks its helpers only with a second core")
@pytest.mark.parametrize("name", [t.name for t in tricks.TRICKS])
def test_a_build_without_a_trick_writes_the_same_bytes_and_forks_nothing_for_it(
    name: str, with_every_trick: tuple[Path, list[dict[str, object]]], tmp_path: Path
) -> None:
    out, timed = with_every_trick
    without = _build(name, tmp_path / "out")
    assert _files(tmp_path / "out") == _files(out)
    forked = {str(x["process"]) for x in timed if "process" in x}
    forked_without = {str(x["process"]) for x in without if "process" in x}
    if name in _FORKED:
        assert _FORKED[name] in forked and _FORKED[name] not in forked_without
    else:
        assert forked_without == forked


@pytest.mark.parametrize(
    ("name", "check"),
    [
        (
            "collector paused",
            "import gc; from pipeline.runner.pool import collector_paused\n"
            "with collector_paused(): print(gc.isenabled())",
        ),
        ("buckets at a time", "import pipeline.runner.parts as p; print(p.BUCKETS_AT_ONCE == p.RECONCILE_BUCKETS)"),
        ("jemalloc", "import contextlib, pipeline.runner as r; print(r.arrow_pool is contextlib.nullcontext)"),
        (
            "memory handed back",
            "import pipeline.runner.frames as f, pipeline.runner.pool as p\n"
            "print(f.give_back.__name__ == p.give_back.__name__ == '<lambda>')",
        ),
    ],
)
def test_a_trick_that_forks_nothing_is_turned_off_where_the_build_reads_it(name: str, check: str) -> None:
    script = f"from bench.tricks import BY_NAME\nBY_NAME[{name!r}].turn_off()\n{check}\n"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True"]


def test_an_unknown_trick_is_refused_with_the_names_it_knows() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bench.tricks", "no such trick", "build"], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 2 and "parse workers" in done.stderr
