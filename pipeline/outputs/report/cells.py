"""A value as the page writes it: missing or not (`_na`), escaped (`_e`, the only way document
text reaches the page), as a person reads it (`_display`, `_number`, `_confidence`), as a table
sorts it (`_sort_key`); and the small pieces of markup every section uses: a document's place
(`_where`), a size's name (`_breakable`), a competing value with its unit (`_with_unit`),
sortable headings (`_sortable_heads`)."""

from __future__ import annotations

import functools
import html
import numbers
import re
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd


def _na(value: Any) -> bool:
    if type(value) in _PLAIN:  # most of the million values a large page asks about
        return False
    if value is None or value is pd.NA or value is pd.NaT:
        return True
    if isinstance(value, (str, int)):
        return False
    if isinstance(value, float):
        return value != value
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):
        return False


_PLAIN = frozenset({str, int, bool})
"""Types whose values are never missing (`_na`)."""


def _text(value: Any) -> str:
    if type(value) is str:
        return value
    return "" if _na(value) else str(value)


def _e(value: Any) -> str:
    """Any value as escaped text; the only way document-derived text reaches the page."""
    if type(value) is str:
        return _escape(value)
    return "" if _na(value) else html.escape(str(value), quote=True)


@functools.lru_cache(maxsize=1 << 16)
def _escape(text: str) -> str:
    """Cached: names, attributes and statuses repeat in every row of a page."""
    return html.escape(text, quote=True)


def _number(value: Any) -> str:
    v = float(value)
    if v.is_integer():
        return f"{int(v):,}"
    return f"{v:,.3f}".rstrip("0").rstrip(".")


def _display(value: Any) -> str:
    """A cell value as a person reads it: 160,000 not 160000.0, yes/no not True/False."""
    if type(value) is float:  # most values of a large page
        return "" if value != value else _number(value)
    if _na(value):
        return ""
    if isinstance(value, bool | np.bool_):
        return "yes" if value else "no"
    if isinstance(value, numbers.Real):
        return _number(value)
    return str(value)


def _sort_key(value: Any) -> str:
    if type(value) is float:
        return "" if value != value else repr(value)
    if _na(value):
        return ""
    if isinstance(value, bool | np.bool_):
        return "1" if value else "0"
    if isinstance(value, numbers.Real):
        return repr(float(value))
    return str(value)


def _confidence(value: Any) -> str:
    try:
        return f"{float(value):.2f}"
    except (TypeError, ValueError):
        return _e(value)  # not a number: shown as it is rather than breaking the page


def _breakable(name: Any) -> str:
    """A size name that may wrap after its common `Standard_` prefix, which is dimmed so the part
    that tells sizes apart stands out; the text stays the whole name for copying and searching."""
    text = _text(name)
    if text.startswith("Standard_") and len(text) > len("Standard_"):
        return f'<span class="pfx">Standard_</span><wbr>{_e(text.removeprefix("Standard_"))}'
    return _e(text)


def _split(text: Any, sep: str) -> list[str]:
    return [] if _na(text) else [p.strip() for p in str(text).split(sep) if p.strip()]


def _where(document: Any, line: Any, url: Any = None) -> str:
    """A document path with its folder dimmed, so the file name stands out in long paths; a link
    to the line upstream when the document has a permalink (`url`)."""
    path = "" if _na(document) else str(document)
    folder, _, name = path.rpartition("/")
    folder_html = f'<span class="dir">{_e(folder)}/</span>' if folder else ""
    line_html = f'<span class="line">:{_e(line)}</span>' if not _na(line) else ""
    link = "" if _na(url) else f' href="{_e(f"{url}#L{line}" if not _na(line) else url)}"'
    tag = "a" if link else "span"
    return f'<{tag} class="where mono"{link}>{folder_html}<b>{_e(name)}</b>{line_html}</{tag}>'


def _with_unit(row: Mapping[str, Any]) -> str:
    """A competing value as a person reads it: 160,000 Mbps, not 160000 Mbps; yes/no as in the size tables."""
    value = _text(row.get("value"))
    if re.fullmatch(r"\d+(\.\d+)?", value):
        value = _number(value)
    elif value in ("true", "false") and _na(row.get("unit")):
        value = "yes" if value == "true" else "no"
    unit = "" if _na(row.get("unit")) else f" {_e(row['unit'])}"
    return f"{_e(value)}{unit}"


def _sortable_table(heads: str, body: str, table_id: str | None = None) -> str:
    """A table the page's script sorts by a click on a header, scrolling sideways where it is wide."""
    named = f' id="{table_id}"' if table_id else ""
    return (
        f'<div class="scroll"><table{named} class="sortable"><thead><tr>{heads}</tr></thead>'
        f"<tbody>{body}</tbody></table></div>"
    )


def _sortable_heads(*labels: str) -> str:
    """A table's header cells, each a button that sorts the table by its column."""
    return "".join(f'<th scope="col"><button type="button"><span>{h}</span></button></th>' for h in labels)
