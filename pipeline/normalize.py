"""Stage 3: statements become typed `Claim`s about one entity and one attribute.

Names are resolved to one spelling (names.py), units converted exactly into each
attribute's canonical unit (units.toml), composite cells split into several claims, and
every interpretation the stage had to make (a GB read as GiB, a GPU memory read as a
total) is written on the claim.
"""

from __future__ import annotations

import hashlib
import re
import tomllib
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from importlib import resources

from pipeline import knowledge
from pipeline.cache import Memo, digest
from pipeline.extract import header_unit, normalize_label
from pipeline.knowledge import ColumnRule, Knowledge
from pipeline.names import SeriesName, parse_series, parse_size, series_key
from pipeline.parallel import beside
from pipeline.records import Claim, Diagnostic, Document, EntityKind, Extraction, Statement
from pipeline.values import (
    Quantity,
    format_number,
    is_empty,
    parse_flag,
    parse_generations,
    parse_number,
    parse_quantity,
)

# ------------------------------------------------------------------------ source families


@dataclass(frozen=True, slots=True)
class SourceFamily:
    """What kind of publisher a document comes from, as far as its text shows."""

    name: str
    kind: str
    binary_capacity: bool
    binary_note: str | None


def _families() -> dict[str, dict[str, object]]:
    text = resources.files("pipeline").joinpath("knowledge").joinpath("sources.toml").read_text(encoding="utf-8")
    fams: dict[str, dict[str, object]] = tomllib.loads(text)["family"]
    return fams


_FAMILIES = _families()


def source_family(doc: Document) -> SourceFamily:
    """Microsoft Learn pages are known by their ms.* front-matter; anything else is other."""
    for name, spec in _FAMILIES.items():
        prefix = spec.get("front_matter_prefix")
        if isinstance(prefix, str) and any(k.startswith(prefix) for k in doc.metadata.keys):
            return SourceFamily(
                name,
                str(spec["kind"]),
                bool(spec.get("binary_capacity")),
                str(spec.get("binary_note")) if spec.get("binary_note") else None,
            )
    spec = _FAMILIES["other"]
    return SourceFamily("other", str(spec["kind"]), bool(spec.get("binary_capacity")), None)


# ------------------------------------------------------------------------ series identity


@dataclass(frozen=True, slots=True)
class SeriesIndex:
    """Spellings of a series mapped to one canonical name.

    Two spellings are one series when their keys match (`NDv2-series`, `NDv2 size series`)
    or when an official page lists the same size under both (`ND A100 v4` and
    `NDasrA100_v4` both list Standard_ND96asr_v4).
    """

    names: dict[str, str]
    aliases: dict[str, tuple[str, ...]]

    def canonical(self, written: str | None) -> str | None:
        if not written:
            return None
        key = series_key(written)
        return self.names.get(key, written)


def build_series_index(extractions: Sequence[Extraction]) -> SeriesIndex:
    parent: dict[str, str] = {}

    def find(k: str) -> str:
        parent.setdefault(k, k)
        while parent[k] != k:
            parent[k] = parent[parent[k]]
            k = parent[k]
        return k

    def union(a: str, b: str) -> None:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)

    spellings: Counter[tuple[str, str]] = Counter()
    seen_doc_spelling: set[tuple[str, str]] = set()
    size_series: dict[str, set[str]] = defaultdict(set)
    for ex in extractions:
        official = source_family(ex.document).kind == "official_spec"
        for st in ex.statements:
            if st.context:
                key = series_key(st.context)
                find(key)
                if (ex.document.path, st.context) not in seen_doc_spelling:
                    seen_doc_spelling.add((ex.document.path, st.context))
                    spellings[(key, st.context)] += 1
                if official and st.subject and (size := parse_size(st.subject)):
                    size_series[size.key].add(key)
        if ex.subject and (ex.document.path, ex.subject) not in seen_doc_spelling:
            seen_doc_spelling.add((ex.document.path, ex.subject))
            spellings[(series_key(ex.subject), ex.subject)] += 1
            find(series_key(ex.subject))
    for keys in size_series.values():
        first, *rest = sorted(keys)
        for k in rest:
            union(first, k)
    groups: dict[str, list[tuple[int, str]]] = defaultdict(list)
    for (key, written), n in spellings.items():
        groups[find(key)].append((n, written))
    best_of: dict[str, str] = {}
    aliases: dict[str, tuple[str, ...]] = {}
    for root, variants in groups.items():
        best = sorted(variants, key=lambda v: (-v[0], " " not in v[1], v[1]))[0][1]
        best_of[root] = best
        aliases[best] = tuple(sorted({w for _, w in variants}))
    names = {key: best_of[root] for key in list(parent) if (root := find(key)) in best_of}
    return SeriesIndex(names=names, aliases=aliases)


# ------------------------------------------------------------------------ claim building


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
    series_models: dict[str, list[str]]
    claims: list[Claim] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    warned: set[tuple[str, ...]] = field(default_factory=set)

    def warn_once(self, key: tuple[str, ...], diag: Diagnostic) -> None:
        if key not in self.warned:
            self.warned.add(key)
            self.diagnostics.append(diag)


@dataclass(frozen=True, slots=True)
class Normalized:
    claims: tuple[Claim, ...]
    diagnostics: tuple[Diagnostic, ...]
    series: SeriesIndex


def normalize(
    extractions: Sequence[Extraction],
    know: Knowledge | None = None,
    *,
    split: bool = False,
    memo: Memo | None = None,
) -> Normalized:
    """Every statement of every document as claims; unknown words become diagnostics.

    Only the series index and the GPU models per series look across documents; with those
    built first, each document is normalized on its own. So a document's claims can come
    from `memo` when neither it nor that shared context changed, and with `split` the second
    half of the other documents is normalized in a forked process beside the first."""
    know = know or knowledge.load()
    series = build_series_index(extractions)
    models = _series_models(extractions, know)
    done: dict[str, tuple[tuple[Claim, ...], tuple[Diagnostic, ...]]] = {}
    keys: dict[str, str] = {}
    todo = list(extractions)
    if memo is not None:
        # Sorted: the index is built in document order, and one more document may reorder it.
        shared = digest(know, sorted(series.names.items()), sorted(series.aliases.items()), sorted(models.items()))
        for ex in extractions:
            keys[ex.document.path] = key = digest(shared, ex)
            if (hit := memo.get(key)) is not None:
                done[ex.document.path] = hit
        todo = [ex for ex in extractions if ex.document.path not in done]

    def part(chunk: Sequence[Extraction]) -> dict[str, tuple[tuple[Claim, ...], tuple[Diagnostic, ...]]]:
        out = {}
        for ex in chunk:
            ctx = _Context(know=know, series=series, series_models=models)
            _normalize_document(ctx, ex)
            out[ex.document.path] = (tuple(ctx.claims), tuple(ctx.diagnostics))
        return out

    # A fork pays only for a large share of the work; an edit of a few documents is done here.
    split = split and len(todo) * 4 >= len(extractions)
    half = len(todo) // 2 if split else len(todo)
    with beside(lambda: part(todo[half:]), parallel=split, what="normalizing") as rest:
        fresh = part(todo[:half])
    fresh.update(rest.result())
    if memo is not None:
        for path, result in fresh.items():
            memo.put(keys[path], result)
    done.update(fresh)
    claims = sorted(
        (c for ex in extractions for c in done[ex.document.path][0]),
        key=lambda c: (
            c.document,
            c.line,
            c.table_index or 0,
            c.row_index or 0,
            c.column or "",
            c.entity,
            c.attribute,
            c.claim_id,
        ),
    )
    diagnostics = tuple(d for ex in extractions for d in done[ex.document.path][1])
    return Normalized(claims=tuple(claims), diagnostics=diagnostics, series=series)


def _series_models(extractions: Sequence[Extraction], know: Knowledge) -> dict[str, list[str]]:
    """GPU models each series is said to have, official pages first: they decide whether a
    GPU memory number is per GPU or a total when the row itself names no model."""
    official: dict[str, list[str]] = defaultdict(list)
    other: dict[str, list[str]] = defaultdict(list)
    for ex in extractions:
        target = official if source_family(ex.document).kind == "official_spec" else other
        for st in ex.statements:
            if not st.context or st.method not in ("table", "part_table"):
                continue
            for model in know.find_gpus(st.raw_text):
                models = target[series_key(st.context)]
                if model.name not in models:
                    models.append(model.name)
    return {k: official.get(k) or other.get(k, []) for k in set(official) | set(other)}


def _claim_id(*parts: object) -> str:
    return hashlib.sha1("\x1f".join(str(p) for p in parts).encode("utf-8")).hexdigest()[:16]


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
    ctx.claims.append(
        Claim(
            claim_id=_claim_id(
                st.document, st.line, st.table_index, st.row_index, st.column, entity, v.attribute, n, v.derived, value
            ),
            document=st.document,
            line=st.line,
            section=st.section,
            table_index=st.table_index,
            row_index=st.row_index,
            column=st.column,
            raw_text=st.raw_text,
            method="derived" if v.derived else st.method,
            entity=entity,
            entity_kind=kind,
            attribute=v.attribute,
            value=value,
            value_number=v.number,
            value_text=v.text,
            value_bool=v.flag,
            range_min=v.low,
            range_max=v.high,
            unit=attr.unit if attr.kind == "number" else None,
            unit_as_written=v.unit_written,
            interpretation=v.interpretation,
        )
    )


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
        ctx.diagnostics.append(
            Diagnostic(
                "warning",
                "unit-mismatch",
                st.document,
                st.line,
                f"{st.raw_text!r} under {st.key!r}: unit {spelled} is not a unit of {attribute}; value skipped",
            )
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


def _normalize_document(ctx: _Context, ex: Extraction) -> None:
    fam = source_family(ex.document)
    rows: dict[tuple[int, int], list[Statement]] = defaultdict(list)
    unmapped_keys: list[str] = []
    for st in ex.statements:
        if st.method == "table" and st.table_index is not None and st.row_index is not None:
            rows[(st.table_index, st.row_index)].append(st)
        elif st.method == "part_table":
            _part(ctx, fam, st)
        elif st.method in ("key_value", "feature_table"):
            if not _key_value(ctx, st) and st.key not in unmapped_keys:
                unmapped_keys.append(st.key)
        elif st.method in ("paragraph", "bullet", "note"):
            _phrases(ctx, fam, st)
    pending: list[_PendingMemory] = []
    for (_, _), row in sorted(rows.items()):
        pending.extend(_table_row(ctx, fam, row))
    _decide_gpu_memory(ctx, fam, pending)
    if unmapped_keys:
        shown = ", ".join(repr(k) for k in unmapped_keys[:8]) + (" ..." if len(unmapped_keys) > 8 else "")
        ctx.diagnostics.append(
            Diagnostic(
                "info",
                "unmapped-key",
                ex.document.path,
                None,
                f"{len(unmapped_keys)} 'key: value' statement(s) name no known attribute: {shown}",
            )
        )


def _size_entity(ctx: _Context, st: Statement) -> str | None:
    assert st.subject is not None
    size = parse_size(st.subject)
    if size is None:
        ctx.warn_once(
            ("size", st.document, st.subject),
            Diagnostic(
                "warning",
                "size-name-unrecognised",
                st.document,
                st.line,
                f"{st.subject!r} does not follow the Azure size naming convention; its row is not read",
            ),
        )
        return None
    return size.canonical


# ---------------------------------------------------------------------- size-table rows


@dataclass(frozen=True, slots=True)
class _PendingMemory:
    statement: Statement
    entity: str
    value: float
    raw: float
    written: str | None
    note: str | None
    count: float | None
    models: tuple[str, ...]
    default: str
    row_per_gpu: float | None = None


def _table_row(ctx: _Context, fam: SourceFamily, row: list[Statement]) -> list[_PendingMemory]:
    first = row[0]
    entity = _size_entity(ctx, first)
    if entity is None:
        return []
    series = ctx.series.canonical(first.context)
    if series and first.context:
        where = replace(first, raw_text=first.context, column=None)
        _emit(
            ctx,
            where,
            entity,
            "size",
            _Value("series", text=series, interpretation=f"the table stands under {first.context!r}"),
        )
    count: float | None = None
    row_per_gpu: float | None = None
    models: list[str] = []
    memory: list[tuple[Statement, ColumnRule]] = []
    for st in row:
        rule = ctx.know.column_rule(normalize_label(st.key))
        if rule is None or rule.role == "subject":
            if rule is None:
                ctx.warn_once(
                    ("col", st.document, str(st.table_index), st.key),
                    Diagnostic(
                        "info",
                        "unmapped-column",
                        st.document,
                        st.line,
                        f"table {st.table_index} column {st.key!r} names no known attribute; "
                        "add a synonym to headers.toml to read it",
                    ),
                )
            continue
        if rule.parser == "gpu_memory":
            memory.append((st, rule))
            continue
        for n, v in enumerate(_read_cell(ctx, fam, st, rule)):
            if v.attribute == "gpu_count" and v.number is not None:
                count = v.number
            if v.attribute == "gpu_model" and v.text:
                models.append(v.text)
            if v.attribute == "gpu_memory_gib" and v.number is not None:
                row_per_gpu = v.number
            _emit(ctx, st, entity, "size", v, n)
    size = parse_size(entity)
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


def _read_cell(ctx: _Context, fam: SourceFamily, st: Statement, rule: ColumnRule) -> list[_Value]:
    know = ctx.know
    text = st.raw_text
    units = header_unit(st.key)
    if rule.parser == "gpu":
        return _gpu_cell(ctx, fam, st)
    if rule.parser == "split":
        pieces = [p.strip() for p in re.split(r"\s*/\s*(?=\S)", text) if p.strip()]
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
        for piece in re.split(r"\s*/\s*", text):
            q = parse_quantity(piece, know)
            unit = know.unit(q.unit) if q and q.unit else None
            if q and unit and unit.dimension == "bit_rate":
                out.extend(_number(ctx, fam, st, "network_bandwidth_mbps", piece, None))
            elif piece.strip() and not q:
                out.append(_Value("interconnect", text=piece.strip()))
        return out
    if rule.parser == "disk_group":
        m = re.match(r"^\s*(\d+)\s*[x×]\s*(.+)$", text, re.IGNORECASE)
        if not m:
            _not_a_value(ctx, st)
            return []
        out = [_Value(rule.attributes[0], number=float(m.group(1)))]
        out.extend(_number(ctx, fam, st, rule.attributes[1], m.group(2), units[-1]))
        return out
    if rule.parser == "product":
        m = re.match(r"^\s*(\d+)\s*[x×]\s*(.+)$", text, re.IGNORECASE)
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
    return _number(ctx, fam, st, rule.attributes[0], text, units[-1] if units else None)


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


def _gpu_cell(ctx: _Context, fam: SourceFamily, st: Statement) -> list[_Value]:
    """`8 A100 40 GB GPUs (NVLink 3.0)`, `1 x V100`, `1/4`: count, model, memory, link."""
    text = st.raw_text
    out: list[_Value] = []
    m = re.match(r"^\s*(\d+\s*/\s*\d+|\d+(?:\.\d+)?)(?:\s*[x×])?", text, re.IGNORECASE)
    if m:
        count = parse_number(m.group(1))
        if count is not None:
            note = f"fraction {m.group(1).strip()} of one GPU" if "/" in m.group(1) else None
            out.append(_Value("gpu_count", number=count, low=count, high=count, interpretation=note))
    rest = text[m.end() :] if m else text
    models = ctx.know.find_gpus(rest)
    if models:
        out.append(
            _Value(
                "gpu_model",
                text=models[0].name,
                interpretation=None if len(models) == 1 else f"first of {len(models)} models named",
            )
        )
    mem = re.search(r"(\d+(?:\.\d+)?)\s*(GB|GiB)\b", rest)
    if mem:
        conv = _convert(ctx, fam, "gpu_memory_gib", float(mem.group(1)), mem.group(2), None, st)
        if conv:
            note = "memory printed beside the GPU model is per GPU" + (f"; {conv[2]}" if conv[2] else "")
            out.append(
                _Value(
                    "gpu_memory_gib",
                    number=conv[0],
                    low=conv[0],
                    high=conv[0],
                    unit_written=conv[1],
                    interpretation=note,
                )
            )
            count_v = next((v.number for v in out if v.attribute == "gpu_count"), None)
            if count_v is not None:
                total = round(conv[0] * count_v, 6)
                out.append(
                    _Value(
                        "gpu_memory_total_gib",
                        number=total,
                        low=total,
                        high=total,
                        unit_written=conv[1],
                        derived=True,
                        interpretation=f"derived: {format_number(count_v)} GPUs x {format_number(conv[0])} GiB",
                    )
                )
    link = re.search(r"\(([^)]*(?:nvlink|infiniband|pcie|sxm|xgmi|infinity fabric)[^)]*)\)", rest, re.IGNORECASE)
    if link:
        out.append(_Value("interconnect", text=link.group(1).strip()))
    if not out:
        _not_a_value(ctx, st)
    return out


def _fits(value: float, sizes: Iterable[float]) -> bool:
    return any(abs(value - s) <= 0.02 * s for s in sizes)


def _decide_gpu_memory(ctx: _Context, fam: SourceFamily, pending: list[_PendingMemory]) -> None:
    """Per GPU or total? Decided per row from the count and the GPU model's memory sizes;
    a row the numbers cannot decide follows the other rows of its column, else the header."""
    decisions: dict[int, tuple[str | None, str]] = {}
    for i, p in enumerate(pending):
        model = ctx.know.gpu(p.models[0]) if p.models else None
        sizes = model.memory_gib if model else tuple(ctx.know.all_gpu_memory_sizes())
        who = (
            f"{model.name} memory sizes {'/'.join(format_number(s) for s in sizes)} GiB"
            if model
            else "known GPU memory sizes"
        )
        n = p.count
        v = p.raw  # GPU memory is sold in binary sizes however a page prints the unit
        if n is None:
            if _fits(v, sizes):
                decisions[i] = (
                    "per_gpu",
                    f"{format_number(v)} GiB is one of the {who}; read as per GPU (GPU count not in this row)",
                )
            else:
                decisions[i] = (
                    "total",
                    f"{format_number(v)} GiB is not one of the {who}; read as the total (GPU count not in this row)",
                )
            continue
        if n == 1:
            decisions[i] = ("one", "one GPU: per-GPU and total memory are the same")
            continue
        per_fits = n >= 1 and _fits(v, sizes)
        total_fits = _fits(v / n, sizes)
        if total_fits and not per_fits:
            decisions[i] = (
                "total",
                f"{format_number(v)} / {format_number(n)} GPUs = {format_number(v / n)} GiB "
                f"matches the {who}; read as the total",
            )
        elif per_fits and not total_fits:
            decisions[i] = (
                "per_gpu",
                f"{format_number(v)} GiB matches the {who} and "
                f"{format_number(v)} / {format_number(n)} does not; read as per GPU",
            )
        elif p.row_per_gpu is not None and _fits(p.row_per_gpu, [p.value]):
            decisions[i] = (
                "per_gpu",
                f"both readings fit the {who}; the GPU cell of this row gives "
                f"{format_number(p.row_per_gpu)} GiB per GPU, so read as per GPU",
            )
        elif p.row_per_gpu is not None and _fits(p.row_per_gpu * n, [p.value]):
            decisions[i] = (
                "total",
                f"both readings fit the {who}; the GPU cell of this row gives "
                f"{format_number(p.row_per_gpu)} GiB per GPU, so read as the total",
            )
        else:
            decisions[i] = (None, "both readings fit" if per_fits else "neither reading fits the " + who)
    by_column: dict[tuple[str, int | None, str | None], Counter[str]] = defaultdict(Counter)
    for i, p in enumerate(pending):
        d = decisions[i][0]
        if d in ("per_gpu", "total"):
            by_column[(p.statement.document, p.statement.table_index, p.statement.column)][d] += 1
    for i, p in enumerate(pending):
        decision, why = decisions[i]
        if decision is None:
            votes = by_column[(p.statement.document, p.statement.table_index, p.statement.column)]
            if len(votes) == 1:
                decision = next(iter(votes))
                why += f"; read as {decision.replace('_', '-')} like the other rows of this column"
            else:
                decision = "per_gpu" if p.default == "per_gpu" else "total"
                why += f"; read as {decision.replace('_', '-')}, the header's usual meaning"
                if "neither" in why:
                    ctx.diagnostics.append(
                        Diagnostic(
                            "warning",
                            "gpu-memory-implausible",
                            p.statement.document,
                            p.statement.line,
                            f"{p.entity}: GPU memory {p.statement.raw_text!r} fits neither per-GPU nor total "
                            f"for {format_number(p.count or 0)} GPU(s) of {'/'.join(p.models) or 'unknown model'}",
                        )
                    )
        note = why + (f"; {p.note}" if p.note else "")
        st = p.statement
        v, n = p.value, p.count
        if decision in ("per_gpu", "one"):
            _emit(
                ctx,
                st,
                p.entity,
                "size",
                _Value("gpu_memory_gib", number=v, low=v, high=v, unit_written=p.written, interpretation=note),
            )
            if n is not None:
                t = round(v * n, 6)
                _emit(
                    ctx,
                    st,
                    p.entity,
                    "size",
                    _Value(
                        "gpu_memory_total_gib",
                        number=t,
                        low=t,
                        high=t,
                        unit_written=p.written,
                        interpretation=note,
                        derived=decision != "one",
                    ),
                )
        else:
            _emit(
                ctx,
                st,
                p.entity,
                "size",
                _Value("gpu_memory_total_gib", number=v, low=v, high=v, unit_written=p.written, interpretation=note),
            )
            if n:
                per = round(v / n, 6)
                _emit(
                    ctx,
                    st,
                    p.entity,
                    "size",
                    _Value(
                        "gpu_memory_gib",
                        number=per,
                        low=per,
                        high=per,
                        unit_written=p.written,
                        interpretation=note,
                        derived=True,
                    ),
                )


# ------------------------------------------------------------------ series-level statements


def _series_entity(ctx: _Context, st: Statement) -> str | None:
    return ctx.series.canonical(st.context)


def _part(ctx: _Context, fam: SourceFamily, st: Statement) -> None:
    """A `Part | Quantity | Specs` row: each `<br>` piece goes to the attribute its unit names."""
    entity = _series_entity(ctx, st)
    rule = ctx.know.part_rule(normalize_label(st.key))
    if entity is None or rule is None:
        if rule is None:
            ctx.warn_once(
                ("part", st.document, st.key),
                Diagnostic("info", "unmapped-part", st.document, st.line, f"part {st.key!r} names no known attribute"),
            )
        return
    for n, piece in enumerate(st.parts):
        for v in _part_piece(ctx, fam, st, rule.units, piece):
            _emit(ctx, st, entity, "series", v, n)


def _part_piece(
    ctx: _Context, fam: SourceFamily, st: Statement, units: dict[str, str] | object, piece: str
) -> list[_Value]:
    assert isinstance(units, dict)
    know = ctx.know
    if units.get("text") == "gpu" and know.find_gpus(piece):
        model = know.find_gpus(piece)[0]
        out = [_Value("gpu_model", text=model.name)]
        mem = re.search(r"(\d+(?:\.\d+)?)\s*(GB|GiB)\b", piece)
        if mem:
            conv = _convert(ctx, fam, "gpu_memory_gib", float(mem.group(1)), mem.group(2), None, st)
            if conv:
                note = "memory printed beside the GPU model is per GPU" + (f"; {conv[2]}" if conv[2] else "")
                out.append(
                    _Value(
                        "gpu_memory_gib",
                        number=conv[0],
                        low=conv[0],
                        high=conv[0],
                        unit_written=conv[1],
                        interpretation=note,
                    )
                )
        return out
    q = parse_quantity(piece, know)
    if q is None:
        target = units.get("text")
        if target and target != "gpu" and not is_empty(piece):
            return [_Value(target, text=piece.strip())]
        return []
    if q.unit and q.unit in know.count_words:
        target = units.get(know.count_words[q.unit])
    elif q.unit and (u := know.unit(q.unit)):
        target = units.get(u.dimension)
    else:
        target = units.get("bare")
    if target is None:
        ctx.diagnostics.append(
            Diagnostic(
                "info",
                "unmapped-part-value",
                st.document,
                st.line,
                f"part {st.key!r}: {piece!r} names no known attribute",
            )
        )
        return []
    return _quantity_values(ctx, fam, st, target, q, None)


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
            values.append(_Value(rule.attributes[0], text=",".join(str(g) for g in gens)))
            values.append(_Value(rule.attributes[1], flag=1 in gens))
            values.append(_Value(rule.attributes[2], flag=2 in gens))
    elif rule.parser in ("flag", "flag_detail"):
        flag = parse_flag(text)
        if flag is not None:
            detail = re.sub(r"^(not\s+)?supported[\s,;:]*", "", text, flags=re.IGNORECASE).strip()
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


def _phrases(ctx: _Context, fam: SourceFamily, st: Statement) -> None:
    """Values stated in running text, by the patterns of phrases.toml."""
    for n, phrase in enumerate(ctx.know.phrases):
        for m in phrase.pattern.finditer(st.raw_text):
            groups = m.groupdict()
            if groups.get("size"):
                size = parse_size(groups["size"])
                if size is None:
                    continue
                entity, kind = size.canonical, "size"
            else:
                series = _series_entity(ctx, st)
                if series is None:
                    continue
                entity, kind = series, "series"
            note = f"from running text: {m.group(0).strip()!r}"
            attr = ctx.know.attributes[phrase.attribute]
            if phrase.value is not None:
                v = _Value(phrase.attribute, text=phrase.value, interpretation=note)
            elif attr.kind == "number" and groups.get("value"):
                number = parse_number(groups["value"])
                if number is None:
                    continue
                conv = _convert(ctx, fam, phrase.attribute, number, groups.get("unit"), None, st)
                if conv is None:
                    continue
                v = _Value(
                    phrase.attribute,
                    number=conv[0],
                    low=conv[0],
                    high=conv[0],
                    unit_written=conv[1],
                    interpretation=note + (f"; {conv[2]}" if conv[2] else ""),
                )
            else:
                continue
            _emit(ctx, st, entity, kind, v, n)  # type: ignore[arg-type]


def series_of(written: str) -> SeriesName | None:
    """Exposed for tests and the CLI: the series a heading or title names."""
    return parse_series(written)
