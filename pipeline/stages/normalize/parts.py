"""Statements about a series as a whole: the rows of Part | Quantity | Specs tables, each
`<br>` piece given to the attribute its unit names (headers.toml `[[part]]`), and `key: value`
lines and feature-table rows (headers.toml `[[key]]`)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace

from pipeline.knowledge.labels import normalize_label
from pipeline.knowledge.values import parse_flag, parse_generations, parse_quantity
from pipeline.records import Diagnostic, Statement
from pipeline.stages.normalize.claims import _Context, _emit, _not_a_value, _series_entity, _Value
from pipeline.stages.normalize.gpus import _family_note, _memory_beside, _named_gpu
from pipeline.stages.normalize.sources import SourceFamily
from pipeline.stages.normalize.values import (
    _Cell,
    _fill_shares,
    _generation_values,
    _joined,
    _no_value,
    _quantity_values,
    _text_values,
    _whole,
)

# Compiled once, as the stage's patterns are (see `pipeline.stages.normalize`).
_SUPPORTED = re.compile(r"^(not\s+)?supported[\s,;:]*", re.IGNORECASE)


def _part(ctx: _Context, fam: SourceFamily, row: list[Statement]) -> None:
    """A `Part | Quantity | Specs` row (its cells): each `<br>` piece goes to the attribute its
    unit names. A piece that says what the part's items are (`16 TiB (NVMe)`, the rule's `also`)
    is read for those too, and so is the piece at its place in the other cell when the cells list
    as many pieces (`4 Disks`: Quantity and Specs list the same items in the same order)."""
    first = row[0]
    entity = _series_entity(ctx, first)
    rule = ctx.know.part_rule(normalize_label(first.key))
    if entity is None or rule is None:
        if rule is None:
            ctx.warn_once(
                ("part", first.document, first.key),
                Diagnostic(
                    "info", "unmapped-part", first.document, first.line, f"part {first.key!r} names no known attribute"
                ),
            )
        return
    # What each cell's pieces say the part's items are, looked for once: read by place below.
    says = [[rule.also_for(piece) for piece in st.parts] for st in row]
    also: dict[int, tuple[Mapping[str, str], str]] = {}
    for st, said_by in zip(row, says, strict=True):
        for place, (piece, units) in enumerate(zip(st.parts, said_by, strict=True)):
            if units is not None:
                also.setdefault(place, (units, piece))
    aligned = len({len(st.parts) for st in row}) == 1
    cells: list[_Cell] = []
    for st, said_by in zip(row, says, strict=True):
        values: list[tuple[int, _Value]] = []
        for place, piece in enumerate(st.parts):
            units = rule.units_for(piece)
            values.extend((place, v) for v in _part_piece(ctx, fam, st, units, piece))
            said = also.get(place)
            if said is None or units is not rule.units or not (aligned or said_by[place]):
                continue
            # The piece was read for what its units name; what it says again is no new problem.
            quiet = len(ctx.diagnostics)
            why = f"{said[1].strip()!r} says what this part's items are"
            for v in _part_piece(ctx, fam, st, said[0], piece):
                values.append((place, replace(v, interpretation=_joined(why, v.interpretation))))
            del ctx.diagnostics[quiet:]
        cells.append((st, values))
    _fill_shares(ctx, cells)
    for st, values in cells:
        for place, v in values:
            _emit(ctx, st, entity, "series", v, place)


def _part_piece(ctx: _Context, fam: SourceFamily, st: Statement, units: Mapping[str, str], piece: str) -> list[_Value]:
    know = ctx.know
    if units.get("text") == "gpu" and (model := _named_gpu(ctx, fam, st, piece)):
        out = [_Value("gpu_model", text=model.name, interpretation=_family_note(model, piece))]
        out.extend(_memory_beside(ctx, fam, st, model, piece))
        return out
    q = parse_quantity(piece, know)
    if q is None:
        target = units.get("text")
        return _text_values(ctx, st, None if target == "gpu" else target, piece, f"part {st.key!r}")
    if q.unit and q.unit in know.count_words:
        target = units.get(know.count_words[q.unit])
    elif q.unit and (u := know.unit(q.unit)):
        target = units.get(u.dimension)
    else:
        target = units.get("bare")
    if target is None:
        return _no_value(ctx, st, "unmapped-part-value", f"part {st.key!r}: {piece!r} names no known attribute")
    return _whole(ctx, _quantity_values(ctx, fam, st, target, q, None))


def _key_value(ctx: _Context, st: Statement) -> bool:
    """A `key: value` line or feature-table row; False when the key names no attribute."""
    rule = ctx.know.key_rule(normalize_label(st.key))
    if rule is None:
        return False
    entity = _series_entity(ctx, st)
    if entity is None:
        return True
    text = st.raw_text
    values: list[_Value] = []
    if rule.parser == "generations":
        gens = parse_generations(text)
        if gens:
            values.extend(_generation_values(rule.attributes, gens))
    elif rule.parser in ("flag", "flag_detail"):
        flag = parse_flag(text)
        if flag is not None:
            detail = _SUPPORTED.sub("", text).strip()
            values.append(_Value(rule.attributes[0], flag=flag, interpretation=detail or None))
            if rule.parser == "flag_detail" and detail and len(rule.attributes) > 1:
                values.append(_Value(rule.attributes[1], text=detail))
    elif rule.parser == "text":
        values.append(_Value(rule.attributes[0], text=text))
    if not values:
        _not_a_value(ctx, st)
    for n, v in enumerate(values):
        _emit(ctx, st, entity, "series", v, n)
    return True
