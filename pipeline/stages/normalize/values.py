"""Values read from a piece of a cell or of a line, shared by the rooms that read them.

Numbers and ranges in the attribute's canonical unit (`_number`, `_quantity_values`), a figure
no one item can be read as the total (`_whole`: `max` and `total` in attributes.toml), a row's
count x share filled whichever it prints (`_fill_shares`), texts and labeled texts
(`_text_values`: headers.toml gives the labels), processors with their maker
(`_cpu_values`: cpus.toml), GPU links (`_link_values`: phrases.toml `[[link]]`) and VM
generations (`_generation_values`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from pipeline.knowledge.labels import normalize_label
from pipeline.knowledge.values import Quantity, clean_cpu_model, format_number, is_empty, parse_quantity, read_link
from pipeline.records import Diagnostic, Statement
from pipeline.stages.normalize.claims import _Context, _convert, _not_a_value, _Value
from pipeline.stages.normalize.sources import SourceFamily

# Compiled once, as the stage's patterns are (see `pipeline.stages.normalize`).
_LABELED = re.compile(r"^([A-Za-z][A-Za-z ]{0,40}?)\s*:\s*(\S.*)$")
"""A piece of text that says what it is (`Interfaces: NetVSC, ConnectX`)."""


def _whole(ctx: _Context, values: list[_Value]) -> list[_Value]:
    """Values stated as one item's that are more than one item can be (`max` in attributes.toml)
    as the total of the items: 28 TiB under "NVMe Disk Size" is eight disks together, as no local
    NVMe disk is so large."""
    out = []
    for v in values:
        attr = ctx.know.attributes[v.attribute]
        if attr.max is None or attr.total is None or v.low is None or v.low <= attr.max:
            out.append(v)
            continue
        what = attr.description[0].lower() + attr.description[1:].rstrip(".")
        why = (
            f"no {what} is above {format_number(attr.max)} {attr.unit}: "
            f"{format_number(v.low)} {attr.unit} read as the total"
        )
        out.append(replace(v, attribute=attr.total, interpretation=_joined(why, v.interpretation)))
    return out


def _generation_values(
    attributes: Sequence[str], gens: Sequence[int], note: str | None = None, derived: bool = False
) -> list[_Value]:
    """The VM generations a statement names, as the rule's `attributes` say (headers.toml
    `[[key]]`, catalogs.toml `[field]`): the list, then whether generation 1 and generation 2 are
    among them, `derived` where the source states only the list (a catalog's column)."""
    listed, first, second = attributes
    return [
        _Value(listed, text=",".join(str(g) for g in gens), interpretation=note),
        _Value(first, flag=1 in gens, derived=derived),
        _Value(second, flag=2 in gens, derived=derived),
    ]


def _link_values(ctx: _Context, attribute: str, written: str, note: str | None) -> list[_Value]:
    """A GPU interconnect in its normal form (`fifth-generation NVLink` is NVLink 5.0), and the
    flag its name states (NVLink: `nvlink`); phrases.toml's `[[link]]` table says which. For
    running text and GPU cells (`8 A100 40 GB GPUs (NVLink 3.0)`) alike."""
    found = read_link(written, ctx.know)
    if found is None:
        return []
    link, name = found
    out = [_Value(attribute, text=name, interpretation=note)]
    if link.flag:
        out.append(_Value(link.flag, flag=True, interpretation=_joined(note, f"{link.name} names the GPUs' link")))
    return out


def _joined(*notes: str | None) -> str | None:
    return "; ".join(n for n in notes if n) or None


_Cell = tuple[Statement, list[tuple[int, _Value]]]
"""A cell of a row and the values read from it, each with its place in the cell."""


def _fill_shares(ctx: _Context, cells: list[_Cell]) -> None:
    """Where a row states one count of items (`nvme_disk_count`) and one item's share
    (`nvme_disk_size_gib`) or the total (`nvme_disk_total_gib`), the other, derived, beside the
    value it comes from: so that both are filled whichever the page prints. Where it states both,
    the total count x share is derived all the same: a stated total it contradicts then meets
    it in reconcile, whose check of the product (`nvme_total`) decides."""
    for item, count, total in ctx.know.shares:
        counts = {v.number for _, values in cells for _, v in values if v.attribute == count and v.number is not None}
        if len(counts) != 1:
            continue  # no count, a range (1 - 4 disks) or two counts: which one to use is not known
        (n,) = counts
        stated = {v.attribute for _, values in cells for _, v in values if v.attribute in (item, total)}
        if not stated or not n:
            continue
        unit = ctx.know.attributes[count].unit or ""
        units = f"{format_number(n)} {unit}{'' if n == 1 or not unit else 's'}".strip()
        for _, values in cells:
            for place, v in list(values):
                if v.number is None or v.attribute not in (item, total) or (v.attribute == total and item in stated):
                    continue
                if v.attribute == item:
                    other, number = total, round(v.number * n, 6)
                    how = f"derived: {units} x {format_number(v.number)} {ctx.know.attributes[item].unit}"
                else:
                    other, number = item, round(v.number / n, 6)
                    how = f"derived: {format_number(v.number)} {ctx.know.attributes[total].unit} / {units}"
                derived = _Value(
                    other,
                    number=number,
                    low=number,
                    high=number,
                    unit_written=v.unit_written,
                    interpretation=_joined(how, v.interpretation),
                    derived=True,
                )
                values.append((place, derived))  # its own attribute sets its claim id apart


def _number(
    ctx: _Context, fam: SourceFamily, st: Statement, attribute: str, text: str, header: str | None
) -> list[_Value]:
    q = parse_quantity(text, ctx.know)
    if q is None:
        _not_a_value(ctx, st)
        return []
    return _quantity_values(ctx, fam, st, attribute, q, header)


def _quantity_values(
    ctx: _Context, fam: SourceFamily, st: Statement, attribute: str, q: Quantity, header: str | None
) -> list[_Value]:
    lo = _convert(ctx, fam, attribute, q.low, q.unit, header, st)
    hi = _convert(ctx, fam, attribute, q.high, q.unit, header, st)
    if lo is None or hi is None:
        return []
    note = lo[2]
    if q.approximate:
        note = "approximate" + (f"; {note}" if note else "")
    if q.is_range:
        return [_Value(attribute, low=lo[0], high=hi[0], unit_written=lo[1], interpretation=note)]
    return [_Value(attribute, number=lo[0], low=lo[0], high=lo[0], unit_written=lo[1], interpretation=note)]


def _text_values(ctx: _Context, st: Statement, target: str | None, piece: str, where: str) -> list[_Value]:
    """A piece of a cell that holds no quantity, as the text of `target` (none without one).

    A unit alone is a template's number left out (`| Network | 4 - 8 NICs | Mbps |`), not a
    text: it was read as the interconnect "Mbps". A piece that says what it is (`Label: text`)
    is taken only where the headers give its label `target`, without the label: the network
    part's "Interfaces: NetVSC, ConnectX" are its NICs' interfaces, and were read as its GPU
    interconnect. Each of the two says so in an info diagnostic at its line (`where`)."""
    text = piece.strip()
    if is_empty(text):
        return []
    if ctx.know.unit(text) or text in ctx.know.count_words:
        return _no_value(
            ctx, st, "unit-without-number", f"{where}: {text!r} is a unit without a number; no value taken"
        )
    if target is None:
        return []
    if labeled := _LABELED.match(text):
        rule = ctx.know.column_rule(normalize_label(labeled[1]))
        if rule is None or target not in rule.attributes:
            why = f"{text!r} is labeled {labeled[1]!r}, which names no attribute of its text ({target})"
            return _no_value(ctx, st, "unmapped-label", f"{where}: {why}")
        text = labeled[2].strip()
    return _cpu_values(ctx, text) if target == "cpu_model" else [_Value(target, text=text)]


def _no_value(ctx: _Context, st: Statement, code: str, message: str) -> list[_Value]:
    """No value from a piece of a cell, and an info diagnostic at its line that says why."""
    ctx.diagnostics.append(Diagnostic("info", code, st.document, st.line, message))
    return []


def _cpu_values(ctx: _Context, written: str, note: str | None = None) -> list[_Value]:
    """A processor as one spelling, with the maker it names (cpus.toml) and the instruction
    set written beside it (`[x86-64]`)."""
    model, arch = clean_cpu_model(written)
    if not model:
        return []
    out = [_Value("cpu_model", text=model, interpretation=note)]
    vendor = ctx.know.cpu_vendor(model)
    if vendor is not None:
        out.append(
            _Value("cpu_vendor", text=vendor.name, derived=True, interpretation=f"{model!r} is made by {vendor.name}")
        )
    if arch:
        out.append(_Value("cpu_architecture", text=arch, interpretation=f"written beside the CPU model: [{arch}]"))
    elif vendor is not None and vendor.architecture:
        out.append(
            _Value(
                "cpu_architecture",
                text=vendor.architecture,
                derived=True,
                interpretation=f"{vendor.name}'s processors of this line are {vendor.architecture} (cpus.toml)",
            )
        )
    return out
