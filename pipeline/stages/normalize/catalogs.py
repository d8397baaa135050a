"""Machine-made catalogs: each column or capability a catalog states for a size, read as
catalogs.toml says."""

from __future__ import annotations

from pipeline.knowledge.values import generations_in, parse_flag, parse_number
from pipeline.records import Statement
from pipeline.stages.normalize.claims import _Context, _convert, _emit, _not_a_value, _size_entity, _Value
from pipeline.stages.normalize.sources import SourceFamily
from pipeline.stages.normalize.values import _generation_values


def _catalog(ctx: _Context, fam: SourceFamily, st: Statement) -> None:
    """A catalog's column or capability for one size, read as catalogs.toml says (the size's
    name is kept as a mention, like a table row's)."""
    rule = ctx.know.catalog_fields.get(st.key)
    if rule is None or st.subject is None:
        return
    entity = _size_entity(ctx, st, "catalog")
    if entity is None:
        return
    raw = st.raw_text.strip()
    values: list[_Value] = []
    if rule.parser == "gpu_model":
        models = ctx.know.find_gpus(raw)
        if models:
            values.append(_Value(rule.attribute, text=models[0].name, interpretation=rule.note))
    elif rule.parser == "flag":
        flag = parse_flag(raw)
        if flag is not None:
            values.append(_Value(rule.attribute, flag=flag, interpretation=rule.note))
    elif rule.parser == "generations":
        gens = generations_in(raw)
        if gens:
            values.extend(_generation_values(rule.attributes, gens, rule.note, derived=True))
    elif rule.parser == "text":
        values.append(_Value(rule.attribute, text=rule.values.get(raw, raw), interpretation=rule.note))
    else:
        number = parse_number(raw)
        conv = _convert(ctx, fam, rule.attribute, number, rule.unit, None, st) if number is not None else None
        if conv is not None:
            note = "; ".join(n for n in (rule.note, conv[2]) if n) or None
            values.append(
                _Value(
                    rule.attribute, number=conv[0], low=conv[0], high=conv[0], unit_written=conv[1], interpretation=note
                )
            )
    if not values:
        _not_a_value(ctx, st)
    for n, v in enumerate(values):
        _emit(ctx, st, entity, "size", v, n)
