"""Text as the outputs write it and read it back, shared by errata.md, SCHEMA.md, the drift
report and the page: a Markdown table cell (`cell`), and the `document:line` references of a
table paired with their permalinks (`permalinks`)."""

from __future__ import annotations

from typing import Any

import pandas as pd


def _absent(value: Any) -> bool:
    return value is None or (not isinstance(value, str) and bool(pd.isna(value))) or value == ""


def cell(text: Any, *, markup: bool = False) -> str:
    """Text safe inside a Markdown table cell: a `|` would split the cell, a newline the row. A
    document's text is shown as written, its markup and HTML escaped too; the pipeline's own
    (`markup`: SCHEMA.md's descriptions) keeps its code spans."""
    if _absent(text):
        return ""
    out = str(text).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")
    if markup:
        return out
    out = out.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    for ch in "`*_[]":
        out = out.replace(ch, "\\" + ch)
    return out


def permalinks(refs: Any, links: Any) -> list[tuple[str, str | None]]:
    """Each `document:line` of a cell of references joined with '; ' (conflicts' `documents`,
    names' `uses`, errata's `evidence_at`) with its permalink, from the cell beside it: the tables
    write one link per reference, in the same order, empty where its document has none
    (`runner.tables._links`). Links that do not line up, none: never another line's."""
    at = [] if _absent(refs) else str(refs).split("; ")
    urls = [] if _absent(links) else str(links).split("; ")
    if len(urls) != len(at):
        urls = [""] * len(at)
    return [(a, u or None) for a, u in zip(at, urls, strict=True)]
