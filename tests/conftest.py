"""Shared fixtures: the shipped sources built once per test session."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from pipeline.knowledge.registry import Source, classify, load_registry
from pipeline.records import BuildResult, Claim
from pipeline.runner import compute
from pipeline.stages.reconcile import NAME_CONVENTION

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


@pytest.fixture(scope="module")
def evidence(shipped: BuildResult) -> tuple[list[Claim], dict[str, Source]]:
    """What the build reconciles: the documents' claims (not the name's) and each document's source."""
    entries, _ = load_registry(SOURCES)
    sources = {d.path: classify(d, entries)[0] for d in shipped.documents}
    return [c for c in shipped.claims if c.method != NAME_CONVENTION], sources


# --------------------------------------------------------------------------- files as the file system stamps them

SECOND = 1_000_000_000


def settle(*paths: Path) -> None:
    """`paths` as if written a while ago, and as a build finds them a tick after that: their
    modification times set back five seconds, then a wait for the change time that this moves
    to be old enough for their stamps to vouch for their bytes (`write.Stamp.settled`)."""
    whole = False
    for path in paths:
        st = path.stat()
        back = st.st_mtime_ns - 5 * SECOND
        os.utime(path, ns=(back, back))
        whole = whole or path.stat().st_ctime_ns % SECOND == 0
    time.sleep(2.1 if whole else 0.11)


def forged(path: Path, data: bytes) -> None:
    """`data` written over `path`, of the same size, with its access and modification times set
    back as they were: what a copy that keeps times (`cp -p`) leaves."""
    st = path.stat()
    assert len(data) == st.st_size
    path.write_bytes(data)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The files read to hash them from now on in the test (`write.file_sha256`)."""
    from pipeline import runner
    from pipeline.outputs import write

    read: list[Path] = []
    hash_file = write.file_sha256

    def counted(path: Path) -> str:
        read.append(path)
        return hash_file(path)

    monkeypatch.setattr(write, "file_sha256", counted)
    monkeypatch.setattr(runner.writing, "file_sha256", counted)
    return read
