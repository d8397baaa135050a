"""One static HTML page over the built tables, for people who read the data rather than load it.

The page must open from a file share or an e-mail attachment years from now, so it carries
everything inline (no network, no CDN), reads the same printed in grey or by a colour-blind
reader (every status has a shape, a border style and a word, not only a hue), and shows
document text only escaped: the sources are scraped pages and may contain markup.
It is deterministic (no clock, no randomness) so two builds of the same input give the same bytes.

This module is the page's surface (`render_report`, `write_report`, `READS`, `mark`, `family`);
its rooms: `page` (the page in order), one module a section or kind of section (`summary`,
`sizes`, `conflicts`, `docs_vs_api`, `lists`: names, errata, documents, diagnostics), `rows`
(what the page holds of the tables, and how many rows a section shows), `cells` (a value as the
page writes it), `marks` (a status's shape and word) and `assets` (the inline CSS and script).
"""

from __future__ import annotations

from pipeline.outputs.report.assets import CSP, CSS, SCRIPT
from pipeline.outputs.report.marks import SEVERITIES, SEVERITY_MARK, STATUS_MARK, STATUSES, mark
from pipeline.outputs.report.page import render_report, write_report
from pipeline.outputs.report.rows import (
    CLAIM_COLUMNS,
    CONFLICT_COUNTED,
    FACT_COLUMNS,
    PICK_BLOCK,
    READS,
    SECTION_LIMIT,
    SIZE_COUNTED,
    Disputes,
    Facts,
    Rows,
)
from pipeline.outputs.report.rows import _among as _among
from pipeline.outputs.report.rows import _dicts as _dicts
from pipeline.outputs.report.rows import _picked as _picked
from pipeline.outputs.report.rows import _rows as _rows
from pipeline.outputs.report.sizes import LABELS, RETIRED, ROW_HEAD_ATTRIBUTES, SIZE_GROUPS, family
from pipeline.outputs.report.sizes import _value_cell as _value_cell

# The surface; the private names imported as themselves are those the tests reach into. A
# test that tunes a setting (`SECTION_LIMIT`, `PICK_BLOCK`) sets it in `rows`, which reads it.
__all__ = [
    "CLAIM_COLUMNS",
    "CONFLICT_COUNTED",
    "CSP",
    "CSS",
    "FACT_COLUMNS",
    "LABELS",
    "PICK_BLOCK",
    "READS",
    "RETIRED",
    "ROW_HEAD_ATTRIBUTES",
    "SCRIPT",
    "SECTION_LIMIT",
    "SEVERITIES",
    "SEVERITY_MARK",
    "SIZE_COUNTED",
    "SIZE_GROUPS",
    "STATUSES",
    "STATUS_MARK",
    "Disputes",
    "Facts",
    "Rows",
    "family",
    "mark",
    "render_report",
    "write_report",
]
