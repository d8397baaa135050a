"""Shared fixtures: the shipped sources built once per test session."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

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
