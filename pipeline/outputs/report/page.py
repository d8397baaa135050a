"""The page in order (`_page`): the head, the sections (summary, sizes, names, conflicts, errata,
docs vs API, documents, diagnostics) and the footer with the script; `render_report` joins it
into one string, `write_report` writes it to a file a section at a time."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import pandas as pd

from pipeline.outputs import schema
from pipeline.outputs.report.assets import CSP, CSS, SCRIPT
from pipeline.outputs.report.cells import _e
from pipeline.outputs.report.conflicts import _conflicts
from pipeline.outputs.report.docs_vs_api import _docs_vs_api
from pipeline.outputs.report.lists import _diagnostics, _documents, _errata, _names
from pipeline.outputs.report.rows import _disputes, _facts_at, _rows
from pipeline.outputs.report.sizes import _size_tables, _stated_for_sizes
from pipeline.outputs.report.summary import _summary


def render_report(frames: Mapping[str, pd.DataFrame], title: str = "GPU VM dataset") -> str:
    """The whole page: summary, sizes, conflicts, documents, diagnostics; deterministic for given frames."""
    return "".join(_page(frames, title))


def write_report(
    frames: dict[str, pd.DataFrame], path: Path, title: str = "GPU VM dataset", *, consume: bool = False
) -> None:
    """`render_report`'s page written to `path` (UTF-8) a section at a time: at 10,000 documents
    the page is 40 MB, and the whole of it as one string, then as bytes, was the largest
    memory of the process that writes it. With `consume`, `frames` is emptied once the page has
    read what it shows of them (a process that only makes the report then gives their memory back)."""

    def let_go() -> None:
        import pyarrow as pa

        frames.clear()
        pa.default_memory_pool().release_unused()

    with open(path, "w", encoding="utf-8", newline="\n") as f:
        for piece in _page(frames, title, let_go if consume else None):
            f.write(piece)


def _page(frames: Mapping[str, pd.DataFrame], title: str, read: Callable[[], None] | None = None) -> Iterator[str]:
    """The page in order, each section made when it is its turn, so that only one large section
    is held at a time; what a section reads of the whole tables (counts) is read first, and
    `read` is called once nothing more is."""
    rows = _rows(frames)
    facts = frames.get("facts")
    statuses = facts[["status"]] if facts is not None and "status" in facts.columns else None  # for the summary
    stated = _stated_for_sizes(frames)
    del facts
    if read is not None:
        read()
    facts_at, by_dispute = _facts_at(rows), _disputes(rows)
    conflicts = _conflicts(rows, facts_at, by_dispute)
    summary = _summary(rows, statuses, len(by_dispute))
    del statuses
    nav = "".join(
        f'<a href="#{k}">{v}</a>'
        for k, v in (
            ("summary", "Summary"),
            ("sizes", "VM sizes"),
            ("names", "Names"),
            ("conflicts", "Conflicts"),
            ("errata", "Errata"),
            ("docs-vs-api", "Docs vs API"),
            ("documents", "Documents"),
            ("diagnostics", "Diagnostics"),
        )
    )
    yield (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{_e(CSP)}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<link rel="icon" href="data:,">'
        f"<title>{_e(title)}</title><style>{CSS}</style></head>\n"
        f'<body><header class="top"><h1>{_e(title)}</h1>'
        "<p>What the documentation says about each GPU VM size, how sure we are, where documents disagree and "
        "why one value was chosen. Every value traces back to a document and a line.</p>"
        f'<nav aria-label="Sections">{nav}</nav></header>\n<main>'
    )
    yield f"{summary}\n"
    yield _size_tables(rows, stated, facts_at)
    yield f"\n{_names(rows)}\n"
    yield conflicts
    del conflicts
    yield f"\n{_errata(rows)}\n"
    yield f"\n{_docs_vs_api(rows, facts_at, by_dispute)}\n"
    yield f"{_documents(rows)}\n"
    yield f"{_diagnostics(rows)}\n</main>"
    yield (
        f"<footer>Schema version {_e(schema.SCHEMA_VERSION)} · generated from the output tables by "
        "pipeline/outputs/report/</footer>"
        f"<script>{SCRIPT}</script></body></html>\n"
    )
