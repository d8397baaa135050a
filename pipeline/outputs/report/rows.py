"""What the page holds of the tables, and how much of them it shows: each table's rows as dicts
(`_rows`: converted once per page, only the tables (`TABLES`), rows and columns the page shows
or counts; `READS` names the columns it reads), the first `SECTION_LIMIT` items of a list
(`_limited`), and the facts and the disputes by (entity, attribute) that several sections read
(`Facts`, `Disputes`)."""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypeVar

import numpy as np
import pandas as pd

from pipeline.outputs.report.cells import _na, _split, _text

Rows = Mapping[str, list[dict[str, Any]]]
"""Each table's rows as dicts, converted once per page: every section reads the same tables."""


def _rows(frames: Mapping[str, pd.DataFrame]) -> dict[str, list[dict[str, Any]]]:
    """Only the claims some conflict cites and the facts of the sizes and conflicts the page
    shows: claims and facts are by far the largest tables, and converting all of them was most
    of a large build's time and memory. The summary counts facts from the table itself. Of the
    sizes and the conflicts the page does not show, each row holds only the columns the page
    counts (`SIZE_COUNTED`, `CONFLICT_COUNTED`)."""
    plain = [name for name in TABLES if name in frames and name not in ("claims", "facts", *_COUNTED)]
    rows = {name: _dicts(frames[name]) for name in plain}
    for name, counted in _COUNTED.items():
        if (df := frames.get(name)) is not None:
            whole = _shown_rows(name, df)
            rows[name] = _dicts(df) if all(whole) else _mixed(df, whole, counted)
    claims = frames.get("claims")
    if claims is not None and "claim_id" in claims.columns:
        cited = {i for r in rows.get("conflicts", []) for i in _split(r.get("claims"), " ")}
        rows["claims"] = _dicts(claims[_among(claims["claim_id"], cited)], CLAIM_COLUMNS)
    facts = frames.get("facts")
    if facts is not None and "entity" in facts.columns:
        # Every fact of the sizes shown, and the fact of each value in dispute.
        shown = {_text(r.get("size")) for r in _limited(rows.get("vm_sizes", []), "vm_sizes")[0]}
        disputed = {(_text(r.get("entity")), _text(r.get("attribute"))) for r in rows.get("conflicts", [])}
        # Rows are picked by their keys alone, and only the columns the page shows are copied:
        # a copy of every column of the facts near them was the report's largest memory (at
        # 10,000 documents, its process peaked 90 MiB above the tables it inherits).
        pick = _among(facts["entity"], shown | {entity for entity, _ in disputed})
        near = facts.loc[pick, ["entity", "attribute"]]
        keys = zip(near["entity"].tolist(), near["attribute"].tolist(), strict=True)
        pick[pick] = [entity in shown or (entity, attribute) in disputed for entity, attribute in keys]
        del near
        rows["facts"] = _picked(facts, pick, FACT_COLUMNS)
    return rows


SIZE_COUNTED = ("size", "status", "lifecycle", "found_in")
"""The columns of vm_sizes the page reads of a size it does not show: counts by status, family,
lifecycle and side (`found_in`). Which attributes no size has a value for is read from the
table (`_stated_for_sizes`)."""

CONFLICT_COUNTED = ("entity", "attribute", "kinds", "superseded")
"""The columns of conflicts the page reads of a dispute it does not show: the counts of values,
of disputes and of superseded values, and the kinds of document (a dispute between the docs and
the API is always shown, in its own section)."""

_COUNTED = {"vm_sizes": SIZE_COUNTED, "conflicts": CONFLICT_COUNTED}


def _shown_rows(name: str, df: pd.DataFrame) -> list[bool]:
    """For each row of vm_sizes or conflicts, whether the page shows it: the first SECTION_LIMIT
    sizes; the values of the first SECTION_LIMIT disputes by (entity, attribute), and those of
    every dispute some API catalog takes part in."""
    if name == "vm_sizes":
        return [i < SECTION_LIMIT for i in range(len(df))]
    if not {"entity", "attribute", "kinds"} <= set(df.columns):
        return [True] * len(df)
    keys = [(_text(e), _text(a)) for e, a in zip(df["entity"].tolist(), df["attribute"].tolist(), strict=True)]
    first = set(sorted(set(keys))[:SECTION_LIMIT])
    api = {k for k, kinds in zip(keys, df["kinds"].tolist(), strict=True) if _from_api(kinds)}
    return [k in first or k in api for k in keys]


def _from_api(kinds: Any) -> bool:
    """Whether a competing value's kinds of document (`conflicts.kinds`) include an API catalog:
    its dispute is shown in Docs vs API, whatever the section limit."""
    return _sides("" if _na(kinds) else str(kinds))[0]


def _from_docs(kinds: Any) -> bool:
    """Whether a competing value's kinds of document include one that is not an API catalog."""
    return _sides("" if _na(kinds) else str(kinds))[1]


@functools.lru_cache(maxsize=1024)
def _sides(kinds: str) -> tuple[bool, bool]:
    """Cached: a large build's tens of thousands of competing values have a few dozen kinds' texts."""
    parts = _split(kinds, ", ")
    return "api_catalog" in parts, any(k != "api_catalog" for k in parts)


def _mixed(df: pd.DataFrame, shown: Sequence[bool], counted: Sequence[str]) -> list[dict[str, Any]]:
    """The rows of `df` in order: those `shown` whole, the others with only the `counted` columns."""
    mask = pd.Series(shown, index=df.index, dtype=bool)
    whole, partial = iter(_dicts(df[mask])), iter(_dicts(df[~mask], counted))
    return [next(whole) if keep else next(partial) for keep in shown]


CLAIM_COLUMNS = ("claim_id", "document", "line", "method", "raw_text")
"""The columns of the claims table the page shows (each competing value's sources)."""

FACT_COLUMNS = (
    "entity",
    "attribute",
    "value",
    "status",
    "confidence",
    "reason",
    "inherited_from",
    "basis",
    "basis_from",
    "stale",
    "checks_failed",
)
"""The columns of the facts table the page shows: a fact's row holds only these."""

TABLES = ("documents", "claims", "vm_sizes", "names", "facts", "conflicts", "errata", "diagnostics", "calibration")
"""The tables the page reads (not the prices): the only ones it converts, and all a caller need
hand it."""

READS = {
    "claims": CLAIM_COLUMNS,
    "facts": FACT_COLUMNS,
    "documents": ("document", "title", "kind", "publisher", "as_of", "claims", "url"),
}
"""Of these tables, the only columns the page reads; of the others, every column. A caller that
reads the tables from their files need read no other, and one that keeps the page of the last
build knows what it was made from."""


def _among(column: pd.Series, texts: Iterable[str]) -> np.ndarray:
    """Which values of a text column are in `texts`, as a new boolean array: only text is
    looked for, and a null is in none.
    Arrow-backed text is looked up by Arrow: pandas' `isin` on it first makes an Arrow scalar of
    each wanted value in Python (at 10,000 documents, the 42,656 claims conflicts cite picked
    from 519,067: 0.34-0.37 -> 0.04 s)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    texts = [t for t in texts if isinstance(t, str)]
    if isinstance(column.dtype, pd.StringDtype) and column.dtype.storage == "pyarrow":
        values = column.array.__arrow_array__()
        wanted = pa.array(texts, values.type)
        return np.array(pc.is_in(values, value_set=wanted).to_numpy(zero_copy_only=False), dtype=bool)
    return column.isin(set(texts)).to_numpy(dtype=bool, copy=True)


def _dicts(df: pd.DataFrame, columns: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """What `to_dict("records")` gives (pd.NA for nulls), column by column: several times faster;
    with `columns`, only those of them the frame has."""
    names = [str(c) for c in df.columns if columns is None or c in columns]
    return [dict(zip(names, row, strict=True)) for row in zip(*(df[c].tolist() for c in names), strict=True)]


def _picked(df: pd.DataFrame, pick: Any, columns: Sequence[str]) -> list[dict[str, Any]]:
    """`_dicts` of the rows `pick` (a boolean array) marks, of `columns`, a block of rows at a
    time: pandas filters a column made of several Arrow chunks (the parts of a divided reconcile)
    by joining them first, a copy of the whole column (facts.reason is 70 MB at 10,000 documents)."""
    names = [str(c) for c in df.columns if c in columns]
    out: list[dict[str, Any]] = []
    for start in range(0, len(df), PICK_BLOCK):
        rows = pick[start : start + PICK_BLOCK]
        if rows.any():
            out += _dicts(df.iloc[start : start + PICK_BLOCK].loc[rows, names])
    return out


PICK_BLOCK = 1 << 16
"""Rows `_picked` filters at a time."""


def _records(rows: Rows, name: str) -> list[dict[str, Any]]:
    return rows.get(name, [])


_T = TypeVar("_T")

SECTION_LIMIT = 2000
"""Items each list section shows. At 3,000 documents the whole page was 84 MB, which no
browser opens usefully; the counts stay complete and the tables hold every row."""


def _limited(items: Sequence[_T], table: str) -> tuple[Sequence[_T], str]:
    """The first SECTION_LIMIT items, and a note naming the table with the rest, if any."""
    if len(items) <= SECTION_LIMIT:
        return items, ""
    return items[:SECTION_LIMIT], (
        f'<p class="help limit">Showing the first {SECTION_LIMIT:,} of {len(items):,}; every row is in '
        f"<code>{table}.parquet</code> and <code>{table}.csv</code>.</p>"
    )


Facts = Mapping[tuple[str, str], Mapping[str, Any]]
"""The facts the page shows, by (entity, attribute): made once, read by three sections."""

Disputes = Sequence[tuple[tuple[str, str], list[dict[str, Any]]]]
"""The competing values of the conflicts table by (entity, attribute), in that order: made once,
read by the conflicts section and by Docs vs API."""


def _facts_at(rows: Rows) -> dict[tuple[str, str], Mapping[str, Any]]:
    """`Facts` of the rows the page converted (`_rows`)."""
    return {(str(f["entity"]), str(f["attribute"])): f for f in _records(rows, "facts")}


def _disputes(rows: Rows) -> Disputes:
    """`Disputes` of the conflicts' rows."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in _records(rows, "conflicts"):
        groups.setdefault((_text(r.get("entity")), _text(r.get("attribute"))), []).append(r)
    return sorted(groups.items())
