"""Data contracts: what every output table promises its readers, checked with pandera.

Types come from `pipeline.outputs.schema` so the contract follows the schema; the rules added here
(allowed values, ranges, uniqueness, references between tables) are the promises that a
type cannot express. `validate` reports broken promises as sentences and never raises, so a
build or a test can list every problem at once.
"""

from __future__ import annotations

import datetime as dt
import functools
import importlib
import re
import sys
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import Any, cast

import pandas as pd
import pandera.pandas as pa
from pandera.errors import SchemaErrors

from pipeline import knowledge
from pipeline.knowledge.registry import KINDS, tiers
from pipeline.outputs import schema
from pipeline.records import BASES, ERRATA_KINDS


def _without_hypothesis(module: str) -> None:
    """Import `module` while hypothesis is hidden (a None entry in `sys.modules` makes its
    import fail), unless either is imported already; hypothesis itself stays importable.

    pandera's checks of pandas frames import its data-synthesis strategies, which import
    hypothesis wherever it is installed (beside the tests, it is), and hypothesis imports trio
    and pytest: 0.17 s in each process that checks a build's tables, for strategies a contract
    never uses. Imported first this way, the strategies take hypothesis to be absent for the
    rest of the process: pandera's `example()` and `strategy()` then say it is missing. A
    pandera that keeps them elsewhere has nothing to hide; any other missing module is raised."""
    if "hypothesis" in sys.modules or module in sys.modules:
        return
    modules = cast(dict[str, Any], sys.modules)
    modules["hypothesis"] = None
    try:
        importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name is None or not (exc.name == module or module.startswith(exc.name + ".")):
            raise
    finally:
        del modules["hypothesis"]


_without_hypothesis("pandera.strategies.base_strategies")

STATUSES = ("agreed", "resolved", "single_source", "unverified", "unresolved")
ENTITY_KINDS = ("size", "series")
SEVERITIES = ("error", "warning", "info")
CLAIM_KINDS = tuple(tiers())
"""Where a claim can come from: a kind of document, or the naming convention (the tiers of sources.toml)."""

_DTYPES = {"int": "Int64", "float": "Float64", "bool": "boolean"}
_EXAMPLES = 3


def _one_of(values: Sequence[str]) -> pa.Check:
    return pa.Check.isin(list(values), error=f"must be one of {', '.join(values)}")


def _at_least(low: int) -> pa.Check:
    return pa.Check.ge(low, error=f"must be >= {low}")


def _between(low: float, high: float) -> pa.Check:
    return pa.Check.in_range(low, high, error=f"must be between {low:g} and {high:g}")


def _each(test: Callable[[Any], bool], error: str) -> pa.Check:
    return pa.Check(test, element_wise=True, error=error)


def _is_date(value: Any) -> bool:
    return isinstance(value, dt.date) and not isinstance(value, dt.datetime)


def _dates(values: pd.Series) -> bool | pd.Series:
    """`_is_date` of each value, asked once of each type of value first: the facts' dates are
    646,389 values at 10,000 documents, and a call per value was most of checking that table.
    Only a column that fails is checked value by value, so that the failure names its rows."""
    kinds = set(map(type, values.dropna().tolist()))
    if all(issubclass(kind, dt.date) and not issubclass(kind, dt.datetime) for kind in kinds):
        return True
    return values.isna() | values.map(_is_date).astype(bool)


def _kinds_listed(value: Any) -> bool:
    return isinstance(value, str) and all(k in CLAIM_KINDS for k in value.split(", "))


def _string_dtype(series: pd.Series) -> bool:
    # Any StringDtype will do: pandas picks python or pyarrow storage depending on version and reader.
    return isinstance(series.dtype, pd.StringDtype)


PERMALINK = r"https://github\.com/[^/\s]+/[^/\s]+/blob/[0-9a-f]{40}/\S.*"
"""A GitHub permalink: the file at one commit (40 hex digits), never at a branch that moves."""


def _permalinks_to_lines(value: Any) -> bool:
    return isinstance(value, str) and all(
        not v or re.fullmatch(PERMALINK + r"#L[1-9]\d*", v) for v in value.split("; ")
    )


PROBABILITY = _between(0, 1)
LINE = _at_least(1)
COUNT = _at_least(0)

RULES: dict[str, dict[str, list[pa.Check]]] = {
    "documents": {
        "sha256": [pa.Check.str_matches(r"^[0-9a-f]{64}$", error="must be 64 lowercase hex digits")],
        "kind": [_one_of(KINDS)],
        "trust": [PROBABILITY],
        "lines": [LINE],
        "claims": [COUNT],
        "commit": [pa.Check.str_matches(r"^[0-9a-f]{40}$", error="must be 40 lowercase hex digits")],
        "url": [
            pa.Check.str_matches(f"^{PERMALINK}$", error="must start with https://github.com/ and name a 40-hex commit")
        ],
    },
    "claims": {
        "line": [LINE],
        "table_index": [LINE],
        "row_index": [LINE],
        "entity_kind": [_one_of(ENTITY_KINDS)],
    },
    "vm_sizes": {
        "size": [pa.Check.str_startswith("Standard_", error="must start with Standard_")],
        "status": [_one_of(STATUSES)],
        "confidence": [PROBABILITY],
        "documents": [COUNT],
        "found_in": [_one_of(schema.FOUND_IN)],
        **{
            c.name: [COUNT]
            for c in schema.tables()["vm_sizes"]
            if c.type in ("int", "float") and c.name in schema.VM_SIZE_ATTRIBUTES
        },
        **{
            name: [_one_of(attr.allowed)]
            for name, attr in knowledge.load().attributes.items()
            if attr.allowed and name in schema.VM_SIZE_ATTRIBUTES
        },
    },
    "names": {
        "name": [pa.Check.str_startswith("Standard_", error="must start with Standard_")],
        "size": [pa.Check.str_startswith("Standard_", error="must start with Standard_")],
        "certainty": [_one_of(schema.CERTAINTY)],
        "documents": [_at_least(1)],
        "links": [_each(_permalinks_to_lines, "must be GitHub permalinks ending in #L<line>, joined with '; '")],
    },
    "errata": {
        "kind": [_one_of(ERRATA_KINDS)],
        "line": [LINE],
        "url": [_each(_permalinks_to_lines, "must be a GitHub permalink ending in #L<line>")],
        "evidence_links": [
            _each(_permalinks_to_lines, "must be GitHub permalinks ending in #L<line>, joined with '; '")
        ],
        "sure": [PROBABILITY],
    },
    "facts": {
        "entity_kind": [_one_of(ENTITY_KINDS)],
        "status": [_one_of(STATUSES)],
        "basis": [_one_of(BASES)],
        "confidence": [PROBABILITY],
        "sources": [COUNT],
        "line": [LINE],
    },
    "conflicts": {
        "kinds": [_each(_kinds_listed, f"must list only {', '.join(CLAIM_KINDS)}, joined with ', '")],
        "links": [_each(_permalinks_to_lines, "must be GitHub permalinks ending in #L<line>, joined with '; '")],
    },
    "prices": {
        "size": [pa.Check.str_startswith("Standard_", error="must start with Standard_")],
        "on_demand_usd_per_hour": [pa.Check.ge(0, error="must be >= 0")],
        "spot_usd_per_hour": [pa.Check.ge(0, error="must be >= 0")],
        "line": [LINE],
    },
    "calibration": {
        "low": [PROBABILITY],
        "high": [PROBABILITY],
        "facts": [_at_least(1)],
        "mean_confidence": [PROBABILITY],
        "accuracy": [PROBABILITY],
        "ece": [PROBABILITY],
    },
    "diagnostics": {
        "severity": [_one_of(SEVERITIES)],
        "line": [LINE],
    },
}
"""Checks beyond the column's type, by table and column."""

REQUIRED: dict[str, tuple[str, ...]] = {
    "documents": ("document", "sha256", "kind", "lines", "claims"),
    "claims": ("claim_id", "document", "entity", "entity_kind", "attribute", "value"),
    "vm_sizes": ("size", "documents", "value_basis"),
    "names": ("name", "written", "size", "certainty", "evidence", "documents", "uses"),
    "errata": ("erratum_id", "kind", "document", "line", "attribute", "written", "value", "evidence", "sure"),
    "facts": ("entity", "entity_kind", "attribute", "value", "confidence", "status", "basis"),
    "conflicts": ("entity", "attribute", "value", "won", "claims"),
    "prices": ("size", "region", "snapshot", "newest", "listed_after_retirement", "document", "line"),
    "calibration": ("bin", "low", "high", "facts", "mean_confidence", "accuracy"),
    "diagnostics": ("severity", "code", "document", "message"),
}
"""Columns that may never be empty."""

UNIQUE: dict[str, list[str]] = {
    "documents": ["document"],
    "claims": ["claim_id"],
    "vm_sizes": ["size"],
    "names": ["name"],
    "errata": ["erratum_id"],
    "facts": ["entity", "attribute"],
    "conflicts": ["entity", "attribute", "value"],
    "prices": ["size", "region", "os", "snapshot"],
    "calibration": ["bin"],
}
"""The key of each table: a duplicate row would be counted twice by every reader."""


def _column(table: str, col: schema.Column) -> pa.Column:
    checks = list(RULES.get(table, {}).get(col.name, []))
    dtype: str | None = _DTYPES.get(col.type)
    # Both read the column whole, nulls too (`ignore_na=False`): pandera would otherwise copy each
    # column without its nulls first, for a dtype, or for a test that drops them itself.
    if col.type == "string":
        checks.insert(0, pa.Check(_string_dtype, ignore_na=False, error="must have a pandas string dtype"))
    elif col.type == "date":
        checks.insert(0, pa.Check(_dates, ignore_na=False, error="must be a date (datetime.date)"))
    return pa.Column(dtype, checks=checks, nullable=col.name not in REQUIRED.get(table, ()), required=True)


def _one_winner(df: pd.DataFrame) -> pd.Series:
    """Row by row, so the failure names the rows: True where the row's dispute has exactly one winner."""
    return df.groupby(["entity", "attribute"], dropna=False)["won"].transform("sum") == 1


@functools.cache
def schemas() -> dict[str, pa.DataFrameSchema]:
    """One pandera schema per output table, in output order."""
    out: dict[str, pa.DataFrameSchema] = {}
    for table, columns in schema.tables().items():
        frame_checks: list[pa.Check] = []
        if table == "conflicts":
            frame_checks.append(pa.Check(_one_winner, error="each disputed (entity, attribute) must have one winner"))
        out[table] = pa.DataFrameSchema(
            {c.name: _column(table, c) for c in columns},
            checks=frame_checks,
            unique=UNIQUE.get(table),
            strict=True,
            ordered=True,
            name=table,
        )
    return out


def validate(
    frames: Mapping[str, pd.DataFrame],
    between: Callable[[], None] | None = None,
    *,
    tables: Collection[str] | None = None,
) -> list[str]:
    """Every broken promise in `frames`, one sentence each; empty when the tables keep the contract.

    `between` is called after each table is checked: a caller that forks to check a build's
    tables hands back there what checking one table left free, which the next would otherwise
    add to (at 10,000 documents, the checking process's peak 1,322 -> 1,275 MiB). With `tables`,
    only those are checked, and what they point at in the others: a build whose claims table is
    checked by the process that writes it checks the rest apart."""
    problems: list[str] = []
    checked: dict[str, pd.DataFrame] = {}
    for table, contract in schemas().items():
        if tables is not None and table not in tables:
            continue
        df = frames.get(table)
        if df is None:
            problems.append(f"{table}: table is missing")
            continue
        if not isinstance(df, pd.DataFrame):
            problems.append(f"{table}: expected a pandas DataFrame, got {type(df).__name__}")
            continue
        duplicated = sorted({str(c) for c in df.columns[df.columns.duplicated()]})
        if duplicated:
            problems.append(f"{table}: duplicate column(s) {', '.join(duplicated)}")
            continue
        # Rows are reported by position, whatever index the caller's frame carries. A build's
        # frames are already so indexed, and are checked as they are: a copy of a large table
        # (pandera copies the frame it is given unless `inplace`; no contract coerces a value)
        # made this the largest process of a build.
        if not df.index.equals(pd.RangeIndex(len(df))):
            df = df.reset_index(drop=True)
        checked[table] = df
        try:
            contract.validate(df, lazy=True, inplace=True)
        except SchemaErrors as exc:
            problems.extend(_describe(table, df, exc.failure_cases, UNIQUE.get(table, [])))
        except Exception as exc:  # a contract must report, not crash, whatever the data looks like
            problems.append(f"{table}: could not be checked ({type(exc).__name__}: {exc})")
        if between is not None:
            between()
    for table in sorted(set(frames if tables is None else tables) - set(schema.tables())):
        problems.append(f"{table}: unexpected table")
    try:
        problems.extend(_references(checked, checked if tables is None else frames))
    except Exception as exc:
        problems.append(f"references between tables could not be checked ({type(exc).__name__}: {exc})")
    return problems


def _describe(table: str, df: pd.DataFrame, cases: pd.DataFrame, key: list[str]) -> list[str]:
    """pandera's failure cases as one sentence per (column, check), with a few examples."""
    out: list[str] = []
    cases = cases.astype(object).where(cases.notna(), None)
    groups: dict[tuple[Any, Any, Any], list[tuple[Any, Any]]] = {}
    for row in cases.itertuples(index=False):
        groups.setdefault((row.schema_context, row.column, row.check), []).append((row.failure_case, row.index))
    frame_checks_done: set[Any] = set()
    for (context, column, check), found in groups.items():
        values = [v for v, _ in found]
        rows = list(dict.fromkeys(i for _, i in found if i is not None))
        if check == "column_in_dataframe":
            out.append(f"{table}: column {', '.join(map(str, values))} is missing")
        elif check == "column_in_schema":
            out.append(f"{table}: unexpected column {', '.join(map(str, values))}")
        elif check == "column_ordered":
            out.append(f"{table}: columns are not in schema order ({_examples(values)})")
        elif check == "multiple_fields_uniqueness":
            if check not in frame_checks_done:
                frame_checks_done.add(check)
                out.append(_duplicates(table, df, key))
        elif context == "DataFrameSchema":
            if check not in frame_checks_done:
                frame_checks_done.add(check)
                rows = list(dict.fromkeys(i for (_, _, c), f in groups.items() if c == check for _, i in f))
                out.append(f"{table}: {check}; {len(rows)} row(s) fail, e.g. {_rows(df, rows)}")
        elif str(check).startswith("dtype("):
            want = str(check).removeprefix("dtype(").removesuffix(")").strip("'")
            out.append(f"{table}.{column}: has type {_dtype(df, column)}, expected {want}")
        elif not rows and values and values[0] is False:
            out.append(f"{table}.{column}: {check} (found {_dtype(df, column)})")
        elif not rows:
            out.append(f"{table}.{column}: {check} could not be checked ({values[0]})")
        else:
            what = {"not_nullable": "must not be empty", "field_uniqueness": "must be unique"}.get(check, check)
            examples = f"e.g. {_examples(values)} at row(s) {_examples(rows)}"
            out.append(f"{table}.{column}: {what}; {len(rows)} row(s) fail, {examples}")
    return out


def _dtype(df: pd.DataFrame, column: Any) -> str:
    return str(df[column].dtype) if column in df else "?"


def _rows(df: pd.DataFrame, rows: list[Any]) -> str:
    """A few failing rows by their readable key, for checks that look at whole rows."""
    cols = [c for c in ("entity", "attribute", "value") if c in df] or list(df.columns[:2])
    shown = [f"row {i} (" + ", ".join(str(df.at[i, c]) for c in cols) + ")" for i in rows[:_EXAMPLES] if i in df.index]
    more = f" and {len(rows) - _EXAMPLES} more" if len(rows) > _EXAMPLES else ""
    return "; ".join(shown) + more


def _duplicates(table: str, df: pd.DataFrame, key: list[str]) -> str:
    dup = df[df.duplicated(key, keep=False)]
    keys = sorted({tuple(str(v) for v in k) for k in dup[key].itertuples(index=False, name=None)})
    shown = ", ".join("(" + ", ".join(k) + ")" if len(k) > 1 else k[0] for k in keys[:_EXAMPLES])
    more = f" and {len(keys) - _EXAMPLES} more" if len(keys) > _EXAMPLES else ""
    what = f"{table}.{key[0]}: must be unique" if len(key) == 1 else f"{table}: ({', '.join(key)}) must be unique"
    return f"{what}; duplicated: {shown}{more}"


def _examples(values: Iterable[Any]) -> str:
    items = list(values)
    shown = ", ".join(repr(v) if isinstance(v, str) else str(v) for v in items[:_EXAMPLES])
    return shown + (f" and {len(items) - _EXAMPLES} more" if len(items) > _EXAMPLES else "")


def _references(checked: Mapping[str, pd.DataFrame], pointed: Mapping[str, Any]) -> list[str]:
    """Rows of the `checked` tables that point at something another table does not have; the
    documents they name are looked up in `pointed` (the checked tables, unless only some are)."""
    out: list[str] = []
    # Distinct values and whole-column lookups: going through Python row by row was most of
    # checking a large build.
    docs = pointed.get("documents")
    docs = docs if isinstance(docs, pd.DataFrame) else None
    known = set(docs["document"].dropna().unique()) if docs is not None and "document" in docs else None
    if known is not None:
        for table in ("claims", "facts"):
            df = checked.get(table)
            if df is not None and "document" in df:
                missing = sorted(set(df["document"].dropna().unique()) - known)
                if missing:
                    out.append(f"{table}.document: names documents not in documents: {_examples(missing)}")
    names, sizes = checked.get("names"), checked.get("vm_sizes")
    if names is not None and sizes is not None and "size" in sizes and {"name", "size"} <= set(names):
        rows = set(sizes["size"].dropna())
        # A name is never a row of vm_sizes, and always stands for one: counting rows counts sizes.
        both = sorted(set(names["name"].dropna()) & rows)
        if both:
            out.append(f"names.name: names that are rows of vm_sizes too: {_examples(both)}")
        nowhere = sorted(set(names["size"].dropna()) - rows)
        if nowhere:
            out.append(f"names.size: sizes that are no row of vm_sizes: {_examples(nowhere)}")
    facts, conflicts = checked.get("facts"), checked.get("conflicts")
    key = ["entity", "attribute"]
    if facts is not None and conflicts is not None and all(k in facts and k in conflicts for k in key):
        disputed = pd.MultiIndex.from_frame(conflicts[key])
        absent = disputed[~disputed.isin(pd.MultiIndex.from_frame(facts[key]))]
        missing_facts = sorted({str(k) for k in absent})
        if missing_facts:
            out.append(f"conflicts: disputes with no row in facts: {_examples(missing_facts)}")
    return out
