"""Shared fixtures: the shipped sources built once per test session."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from pipeline.outputs.write import Stamp
from pipeline.records import BuildResult
from pipeline.runner import compute

# Property tests run the same examples on every machine (CI must not be flaky) and never
# fail for being slow on a loaded machine: speed is measured by `make bench`, not here.
settings.register_profile(
    "suite", derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
settings.register_profile("fuzz", deadline=None, max_examples=5000, suppress_health_check=list(HealthCheck))
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "suite"))


ROOT = Path(__file__).resolve().parent.parent
SOURCES = ROOT / "sources"


@pytest.fixture(scope="session")
def shipped() -> BuildResult:
    """The shipped sources, computed once (nothing written)."""
    result, _ = compute(SOURCES)
    return result


@pytest.fixture(scope="session")
def shipped_output(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shipped sources built into a temporary output folder."""
    from pipeline.runner import build

    out = tmp_path_factory.mktemp("build") / "output"
    build(SOURCES, out)
    return out


# --------------------------------------------------------------------------- files as the file system stamps them

SECOND = 1_000_000_000


def settled(path: Path, seconds: float = 5.0) -> Stamp:
    """`path` as if written `seconds` ago: its modification time set back (which moves its change
    time to now, as any setting of the time does)."""
    st = path.stat()
    back = st.st_mtime_ns - int(seconds * SECOND)
    os.utime(path, ns=(back, back))
    stamp = Stamp.of(path)
    assert stamp is not None
    return stamp


def a_tick_later(stamp: Stamp) -> None:
    """Wait until the file system's clock has moved on from the change time of `stamp`."""
    time.sleep(1.1 if stamp.ctime_ns % SECOND == 0 else 0.05)


def forged(path: Path, data: bytes) -> None:
    """`data` written over `path`, of the same size, with its access and modification times set
    back as they were: what a copy that keeps times (`cp -p`) leaves."""
    st = path.stat()
    assert len(data) == st.st_size
    path.write_bytes(data)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
