"""GPU VM documentation pipeline: documents in, a dataset with provenance out.

The public surface is small on purpose: `build(sources, out)` and the records it returns.
"""

from pipeline.build import Settings, build
from pipeline.records import BuildResult, Claim, Diagnostic, Document

__all__ = ["BuildResult", "Claim", "Diagnostic", "Document", "Settings", "build"]
