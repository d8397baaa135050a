"""The rows of size tables, cell by cell.

Each row's size and the series its table stands under, and each cell read by the parser its
header's rule names (headers.toml `[[column]]`): a number, an `a / b` split, a network cell, a
group of disks (`2x960 GB`), a product or a text. GPU cells and GPU memory columns are read
by `gpus`, which decides a column's GPU memory once every row of the document is read.
"""

from __future__ import annotations

import re

from pipeline.knowledge import ColumnRule
from pipeline.knowledge.labels import header_unit, normalize_label
from pipeline.knowledge.names import parse_size, series_key
from pipeline.knowledge.values import parse_quantity
from pipeline.records import Diagnostic, Statement
from pipeline.stages.normalize.claims import (
    _Context,
    _convert,
    _emit,
    _not_a_value,
    _series_claim,
    _size_entity,
    _Value,
)
from pipeline.stages.normalize.gpus import _gpu_cell, _PendingMemory
from pipeline.stages.normalize.sources import SourceFamily
from pipeline.stages.normalize.values import _Cell, _fill_shares, _number, _quantity_values, _text_values, _whole

# Compiled once, as the stage's patterns are (see `pipeline.stages.normalize`).
_SLASH_BEFORE_TEXT = re.compile(r"\s*/\s*(?=\S)")
_SLASH = re.compile(r"\s*/\s*")
_TIMES = re.compile(r"^\s*(\d+)\s*[x×]\s*(.+)$", re.IGNORECASE)


def _table_row(ctx: _Context, fam: SourceFamily, row: list[Statement]) -> list[_PendingMemory]:
    first = row[0]
    entity = _size_entity(ctx, first)
    if entity is None:
        return []
    series = ctx.series.canonical(first.context)
    size = parse_size(entity)
    why = f"the table stands under {first.context!r}"
    _series_claim(ctx, first, entity, size, series, first.context, why, raw_text=first.context, column=None)
    count: float | None = None
    row_per_gpu: float | None = None
    models: list[str] = []
    memory: list[tuple[Statement, ColumnRule]] = []
    cells: list[_Cell] = []
    for st in row:
        rule = ctx.know.column_rule(normalize_label(st.key))
        if rule is None or rule.role != "value":
            continue  # the subject, or a column extract reported as unknown_header
        if rule.parser == "gpu_memory":
            memory.append((st, rule))
            continue
        cells.append((st, list(enumerate(_read_cell(ctx, fam, st, rule)))))
    _fill_shares(ctx, cells)
    for st, values in cells:
        for n, v in values:
            if v.attribute == "gpu_count" and v.number is not None:
                count = v.number
            if v.attribute == "gpu_model" and v.text:
                models.append(v.text)
            if v.attribute == "gpu_memory_gib" and v.number is not None:
                row_per_gpu = v.number
            _emit(ctx, st, entity, "size", v, n)
    if not models and size and size.accelerator:
        models = [m.name for m in ctx.know.find_gpus(size.accelerator)]
    if not models and first.context:
        models = ctx.series_models.get(series_key(first.context), [])
    pending = []
    for st, rule in memory:
        q = parse_quantity(st.raw_text, ctx.know)
        if q is None:
            _not_a_value(ctx, st)
            continue
        units = header_unit(st.key)
        conv = _convert(ctx, fam, "gpu_memory_gib", q.low, q.unit, units[0], st)
        if conv is None:
            continue
        pending.append(
            _PendingMemory(
                st, entity, conv[0], q.low, conv[1], conv[2], count, tuple(models), rule.default or "total", row_per_gpu
            )
        )
    return pending


def _read_cell(ctx: _Context, fam: SourceFamily, st: Statement, rule: ColumnRule) -> list[_Value]:
    know = ctx.know
    text = st.raw_text
    units = header_unit(st.key)
    if rule.parser == "gpu":
        return _gpu_cell(ctx, fam, st)
    if rule.parser == "split":
        pieces = [p.strip() for p in _SLASH_BEFORE_TEXT.split(text) if p.strip()]
        if len(pieces) != len(rule.attributes):
            ctx.diagnostics.append(
                Diagnostic(
                    "warning",
                    "cell-split-mismatch",
                    st.document,
                    st.line,
                    f"{st.key!r}: {text!r} has {len(pieces)} part(s) where {len(rule.attributes)} were expected",
                )
            )
            return []
        out = []
        for i, (attr, piece) in enumerate(zip(rule.attributes, pieces, strict=True)):
            header = units[i] if i < len(units) else None
            out.extend(_number(ctx, fam, st, attr, piece, header))
        return out
    if rule.parser == "network":
        out = []
        for piece in _SLASH.split(text):
            q = parse_quantity(piece, know)
            unit = know.unit(q.unit) if q and q.unit else None
            if q and unit and unit.dimension == "bit_rate":
                out.extend(_number(ctx, fam, st, "network_bandwidth_mbps", piece, None))
            elif not q:
                out.extend(_text_values(ctx, st, "interconnect", piece, repr(st.key)))
        return out
    if rule.parser == "disk_group":
        return _disk_group(ctx, fam, st, rule, units[-1])
    if rule.parser == "product":
        m = _TIMES.match(text)
        if not m:
            return _number(ctx, fam, st, rule.attributes[0], text, units[-1])
        values = _number(ctx, fam, st, rule.attributes[0], m.group(2), units[-1])
        k = float(m.group(1))
        return [
            _Value(
                v.attribute,
                number=round((v.number or 0) * k, 6),
                unit_written=v.unit_written,
                interpretation=f"{m.group(1)} x {m.group(2).strip()} {v.unit_written or ''}".strip()
                + (f"; {v.interpretation}" if v.interpretation else ""),
            )
            for v in values
            if v.number is not None
        ]
    if rule.parser == "text":
        return [_Value(rule.attributes[0], text=text)]
    return _whole(ctx, _number(ctx, fam, st, rule.attributes[0], text, units[-1]))


def _disk_group(ctx: _Context, fam: SourceFamily, st: Statement, rule: ColumnRule, header: str | None) -> list[_Value]:
    """A cell of disks: `2x960 GB` is two disks of 960 GB each (as written, however large),
    `960 GB` one disk of that size (unless no one disk can be so large: then it is their total),
    `8` eight disks."""
    count, size = rule.attributes
    text = st.raw_text
    if m := _TIMES.match(text):
        sizes = _number(ctx, fam, st, size, m.group(2), header)
        n = float(m.group(1))
        return [_Value(count, number=n, low=n, high=n), *sizes] if sizes else []
    q = parse_quantity(text, ctx.know)
    if q is None:
        _not_a_value(ctx, st)
        return []
    unit = ctx.know.unit(q.unit or header or "")
    if unit is None or unit.dimension == "count":
        return _quantity_values(ctx, fam, st, count, q, None)
    sizes = _whole(ctx, _quantity_values(ctx, fam, st, size, q, header))
    if len(sizes) != 1 or sizes[0].attribute != size or sizes[0].number is None:
        return sizes
    one = f"{text.strip()!r} under {st.key!r} gives a size and no count: one disk of that size"
    return [_Value(count, number=1.0, low=1.0, high=1.0, derived=True, interpretation=one), *sizes]
