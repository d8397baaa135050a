"""The knobs of a build (`Settings`), read by the runner and by each of its steps."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from pipeline.runner.pool import cores
from pipeline.stages.read import Limits

MIN_PARALLEL = 64
"""Below this many documents, starting a second process costs more than it saves."""


@dataclass(frozen=True, slots=True)
class Settings:
    """Knobs a maintainer may turn; the defaults suit the shipped corpus."""

    limits: Limits = field(default_factory=Limits)
    workers: int | None = None
    """Processes that parse documents (default: one per core); 1 parses in this process."""
    incremental: bool = True
    """Keep parsed documents in a cache, and leave `out` alone when neither the documents,
    the settings nor the pipeline changed since it was built."""
    cache_dir: Path | None = None
    """Where the cache lives (default: `.pipeline-cache` beside the output folder)."""
    stale_after_days: int = 730
    """A fact whose only support is this much older than another document about the same
    entity is flagged stale."""

    def splits(self, documents: int) -> bool:
        """Whether a step of a build of `documents` hands part of its work to a second process:
        only with a second core and enough documents, since a fork of a small build costs more
        than it saves."""
        return cores(self.workers) > 1 and documents >= MIN_PARALLEL
