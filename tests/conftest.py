"""Shared fixtures: the shipped sources built once per test session."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.builder import compute
from pipeline.records import BuildResult

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
    from pipeline.builder import build

    out = tmp_path_factory.mktemp("build") / "output"
    build(SOURCES, out)
    return out
