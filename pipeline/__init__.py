"""GPU VM documentation pipeline: documents in, a dataset with provenance out.

The public surface is small on purpose: `build(sources, out)` (which raises `ContractViolation`
when its tables would break their contract), `drift(old, new)`, `explain(entity, attribute)` and
the records they return. Names are loaded on first use so that the command line's
`--help` does not wait for pandas and pyarrow to import.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "build": "pipeline.runner",
    "ContractViolation": "pipeline.records",
    "Settings": "pipeline.runner",
    "explain": "pipeline.explainer",
    "drift": "pipeline.differ",
    "BuildResult": "pipeline.records",
    "Claim": "pipeline.records",
    "Diagnostic": "pipeline.records",
    "Document": "pipeline.records",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'pipeline' has no attribute {name!r}")
