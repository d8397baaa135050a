"""A value read from a statement made a `Claim`.

The working context of one document (`_Context`), a value before it is tied to an entity
(`_Value`), the claim made of it with its id (`_emit`, for every value of every page), the
number converted exactly into its attribute's canonical unit (`_convert`: units.toml,
attributes.toml and the source family's binary capacities), and the size or series a
statement is about.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from sys import intern
from typing import Any

from pipeline.knowledge import Knowledge
from pipeline.knowledge.names import SizeName, member_of, parse_size
from pipeline.knowledge.values import format_number, is_empty
from pipeline.records import Claim, Diagnostic, EntityKind, Mention, Statement, UnitMismatch, compact
from pipeline.stages.normalize.series import SeriesIndex
from pipeline.stages.normalize.sources import SourceFamily


@compact
@dataclass(frozen=True, slots=True)
class _Value:
    """One value read from a statement, before it is tied to an entity."""

    attribute: str
    number: float | None = None
    text: str | None = None
    flag: bool | None = None
    low: float | None = None
    high: float | None = None
    unit_written: str | None = None
    interpretation: str | None = None
    derived: bool = False


@dataclass
class _Context:
    know: Knowledge
    series: SeriesIndex
    series_models: Mapping[str, list[str]]
    as_of: dt.date | None = None
    """The newest document's date: a retirement date before it has passed."""
    claims: list[Claim] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    mentions: list[Mention] = field(default_factory=list)
    warned: set[tuple[str, ...]] = field(default_factory=set)

    def warn_once(self, key: tuple[str, ...], diag: Diagnostic) -> None:
        if key not in self.warned:
            self.warned.add(key)
            self.diagnostics.append(diag)


def _claim_id(
    document: str,
    line: int,
    table: int | None,
    row: int | None,
    column: str | None,
    entity: str,
    attribute: str,
    n: int,
    derived: bool,
    value: str,
) -> str:
    """The first 16 hexadecimal digits of SHA-1 over the claim's place and value, each as `str`
    writes it, joined by U+001F: the ids of the tables since the first build. Written out with
    the fields by name, not joined from a tuple by `map(str, ...)`, which took a third longer
    for each of half a million claims."""
    key = (
        f"{document}\x1f{line}\x1f{table}\x1f{row}\x1f{column}\x1f"
        f"{entity}\x1f{attribute}\x1f{n}\x1f{derived}\x1f{value}"
    )
    return hashlib.sha1(key.encode("utf-8")).hexdigest()[:16]


def _emit(ctx: _Context, st: Statement, entity: str, kind: EntityKind, v: _Value, n: int = 0) -> None:
    attr = ctx.know.attributes[v.attribute]
    if v.low is not None and v.high is not None and v.low != v.high:
        value = f"{format_number(v.low)}-{format_number(v.high)}"
    elif v.number is not None:
        value = format_number(v.number)
    elif v.flag is not None:
        value = "true" if v.flag else "false"
    else:
        value = v.text or ""
    # The fields in their order, not by name: a claim is made for every value of every page, and
    # matching 22 keywords to parameters took longer than making the record (2.5 against 1.0 us).
    ctx.claims.append(
        Claim(
            _claim_id(
                st.document, st.line, st.table_index, st.row_index, st.column, entity, v.attribute, n, v.derived, value
            ),
            st.document,
            st.line,
            intern(st.section),
            st.table_index,
            st.row_index,
            intern(st.column) if st.column else st.column,
            intern(st.raw_text),
            "derived" if v.derived else st.method,
            entity,
            kind,  # entity_kind
            v.attribute,
            intern(value),
            v.number,  # value_number
            v.text,  # value_text
            v.flag,  # value_bool
            v.low,  # range_min
            v.high,  # range_max
            attr.unit if attr.kind == "number" else None,
            v.unit_written,  # unit_as_written
            intern(v.interpretation) if v.interpretation else v.interpretation,
            _written(st, entity) if kind == "size" else None,  # name_as_written
        )
    )


def _series_claim(
    ctx: _Context,
    st: Statement,
    entity: str,
    size: SizeName | None,
    series: str | None,
    named: str | None,
    why: str,
    **at: Any,
) -> bool:
    """The claim that the size `entity` is of `series`, made only where the naming convention
    lets its name (`size`) belong to the series as `named` writes it: a table, comparison row
    or sentence under a heading does not put every size it names in the heading's series. `at`
    are the fields of `st` the claim cites otherwise (the text the series is read from), replaced
    only when the claim is made. Whether it was."""
    if size is None or not series or not named or not member_of(size, named):
        return False
    _emit(ctx, replace(st, **at) if at else st, entity, "size", _Value("series", text=series, interpretation=why))
    return True


def _written(st: Statement, entity: str) -> str | None:
    """The size name as the statement's row writes it, when that name is the entity's."""
    size = parse_size(st.subject) if st.subject else None
    return (st.subject_as_written or st.subject or "").strip() if size and size.canonical == entity else None


def _convert(
    ctx: _Context,
    fam: SourceFamily,
    attribute: str,
    number: float,
    written: str | None,
    header: str | None,
    st: Statement,
) -> tuple[float, str | None, str | None] | None:
    """`number` in the attribute's canonical unit, the unit as written, and how it was read."""
    know = ctx.know
    attr = know.attributes[attribute]
    if attr.kind != "number" or attr.dimension is None:
        return number, written, None
    spelled = written or header
    if spelled and spelled in know.count_words:
        spelled = None
    unit = know.unit(spelled) if spelled else None
    if spelled and unit is None:
        return number, spelled, None
    if unit is None:
        if attr.dimension in ("count", "iops"):
            return number, None, None
        return number, None, f"no unit written; read as {attr.unit}"
    if unit.dimension == "count":
        return number, spelled, None
    if unit.dimension != attr.dimension:
        ctx.warn_once(  # once per cell, not for each end of a range
            ("unit", st.document, str(st.line), st.key, st.raw_text, attribute),
            Diagnostic(
                "warning",
                "unit-mismatch",
                st.document,
                st.line,
                UnitMismatch(st.raw_text, st.key, str(spelled), attribute).message,
            ),
        )
        return None
    note = None
    factor = unit.factor
    if unit.dimension == "information" and unit.twin and "i" not in unit.symbol:
        twin = know.units[unit.twin]
        if attr.jedec:
            factor = twin.factor
            note = f"{unit.symbol} read as {twin.symbol}: memory sizes are binary (JEDEC), whoever prints them"
        elif fam.binary_capacity:
            factor = twin.factor
            note = f"{unit.symbol} read as {twin.symbol}: {fam.binary_note}"
    value = number * factor
    return value, spelled, note


def _size_entity(ctx: _Context, st: Statement, table: str = "spec") -> str | None:
    """The size a table row is about; every row's name is kept as a mention, so that the build
    can report a name that yields no size (`size_not_built`)."""
    assert st.subject is not None
    size = parse_size(st.subject)
    ctx.mentions.append(Mention(st.document, st.line, st.subject, size.canonical if size else None, table))
    return size.canonical if size else None


def _not_a_value(ctx: _Context, st: Statement) -> None:
    if is_empty(st.raw_text):
        return
    ctx.diagnostics.append(
        Diagnostic(
            "warning",
            "value-unreadable",
            st.document,
            st.line,
            f"{st.key!r}: {st.raw_text!r} is not a value of the expected kind",
        )
    )


def _series_entity(ctx: _Context, st: Statement) -> str | None:
    return ctx.series.canonical(st.context)
