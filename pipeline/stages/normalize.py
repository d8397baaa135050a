"""Stage 3: statements become typed `Claim`s about one entity and one attribute.

Names are resolved to one spelling (names.py), units converted exactly into each
attribute's canonical unit (units.toml), composite cells split into several claims, and
every interpretation the stage had to make (a GB read as GiB, a GPU memory read as a
total) is written on the claim.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
import tomllib
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from importlib import resources
from sys import intern

from pipeline import knowledge
from pipeline.knowledge import ColumnRule, GpuModel, Knowledge, Phrase
from pipeline.knowledge.labels import header_unit, normalize_label
from pipeline.knowledge.names import (
    SeriesName,
    find_series_groups,
    member_of,
    parse_series,
    parse_size,
    series_key,
    series_parts,
)
from pipeline.knowledge.values import (
    Quantity,
    clean_cpu_model,
    format_number,
    is_empty,
    parse_date_text,
    parse_flag,
    parse_generations,
    parse_number,
    parse_quantity,
    read_link,
)
from pipeline.records import (
    Claim,
    Diagnostic,
    Document,
    EntityKind,
    Extraction,
    Mention,
    Price,
    Statement,
    compact,
)

# Patterns the functions below match many times a build, compiled once: given as text, each
# call looks its pattern up in `re`'s cache (with those of names, values and extract, about
# 1 CPU s of the work of a 10,000-document build).
_SERIES_TITLE = re.compile(r"^\s*(\S+)\s+(?:size\s+|sizes\s+)?series\b", re.IGNORECASE)
_TITLE_LINE = re.compile(r"^\s*title\s*:")
_SLASH_BEFORE_TEXT = re.compile(r"\s*/\s*(?=\S)")
_SLASH = re.compile(r"\s*/\s*")
_TIMES = re.compile(r"^\s*(\d+)\s*[x×]\s*(.+)$", re.IGNORECASE)
_LABELED = re.compile(r"^([A-Za-z][A-Za-z ]{0,40}?)\s*:\s*(\S.*)$")
"""A piece of text that says what it is (`Interfaces: NetVSC, ConnectX`)."""
_GPU_COUNT = re.compile(r"^\s*(\d+\s*/\s*\d+|\d+(?:\.\d+)?)(?:\s*[x×])?", re.IGNORECASE)
_GPU_LINK = re.compile(r"\(([^)]*(?:nvlink|infiniband|pcie|sxm|xgmi|infinity fabric)[^)]*)\)", re.IGNORECASE)
_GB = re.compile(r"(\d+(?:\.\d+)?)\s*(GB|GiB)\b")
_SUPPORTED = re.compile(r"^(not\s+)?supported[\s,;:]*", re.IGNORECASE)
_RESPECTIVELY = re.compile(r"\brespectively\b", re.IGNORECASE)
_PRONOUN = re.compile(r"\s*(?:They|It)\b")
_COMPARED = re.compile(r"\b(?:over|than|versus|vs\.?|compared)\b", re.IGNORECASE)
_DIGIT_OR_PAREN = re.compile(r"\d|\(")
_GENERATION = re.compile(r"(?<![0-9])([12])(?![0-9])")

# ------------------------------------------------------------------------ source families


@compact
@dataclass(frozen=True, slots=True)
class SourceFamily:
    """What kind of publisher a document comes from, as far as its text shows."""

    name: str
    kind: str
    binary_capacity: bool
    binary_note: str | None


def _families() -> dict[str, dict[str, object]]:
    text = resources.files("pipeline.knowledge").joinpath("sources.toml").read_text(encoding="utf-8")
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
    sized: tuple[str, ...] = ()
    """Canonical names of the series official pages list sizes under."""
    _found: dict[str, str | None] = field(default_factory=dict, compare=False, repr=False)
    """`canonical`'s answers: the same few spellings are asked for on every row."""
    _sized: frozenset[str] = field(init=False, compare=False, repr=False)
    """`sized` as a set: each series the documents write is looked up in it once, and a
    scan of the tuple made that quadratic (10,000 generated documents: 6,248 series, 0.97 s
    of looking up)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "_sized", frozenset(self.sized))

    def canonical(self, written: str | None) -> str | None:
        """The one spelling of a series; a name no size is listed under that is a shorter name
        of exactly one series that has sizes is that series (`NCv6` on the NC_RTXPRO6000BSE_v6
        page, `NC T4 v3` for NCasT4_v3)."""
        if not written:
            return None
        if written in self._found:
            return self._found[written]
        name = self.names.get(series_key(written))
        if name is not None and name in self._sized:
            found: str | None = name
        else:
            wider = [p for p in self.sized if _generalizes(written, p)]
            found = wider[0] if len(wider) == 1 else name or written
        self._found[written] = found
        return found


def _generalizes(short: str, full: str) -> bool:
    """Whether every size of `full` satisfies `short`'s name: the same family and version, and
    `short` naming only feature letters, accelerators and words `full` has."""
    a, b = series_parts(short), series_parts(full)
    if a is None or b is None or series_key(short) == series_key(full):
        return False
    return (
        a.family == b.family
        and a.version == b.version
        and set(a.features) <= set(b.features)
        and set(a.accelerators) <= set(b.accelerators)
        and set(a.variants) <= set(b.variants)
    )


@compact
@dataclass(frozen=True, slots=True)
class Contribution:
    """What one document adds to the shared context (`context`), each list in the order the
    document states it. It reads that document alone, so it is made where the document is
    parsed and kept with the parse: a build then joins these instead of reading every statement
    of every document again."""

    official: bool
    keys: tuple[str, ...]
    """Series keys, each once: the index names them in the order the documents first do."""
    spellings: tuple[tuple[str, str], ...]
    """(series key, series as written), each once: a spelling counts once per document."""
    sized: tuple[tuple[str, str], ...]
    """(size key, series key) for each size an official page states under a series, each once."""
    models: tuple[tuple[str, str], ...]
    """(series key, GPU model) for each model a table row under a series names, each once."""


def contribution(ex: Extraction, know: Knowledge) -> Contribution:
    """What `ex` adds to the shared context."""
    official = source_family(ex.document).kind == "official_spec"
    keys: dict[str, None] = {}
    spellings: dict[tuple[str, str], None] = {}
    sized: dict[tuple[str, str], None] = {}
    models: dict[tuple[str, str], None] = {}
    for st in ex.statements:
        if not st.context:
            continue
        key = series_key(st.context)
        keys.setdefault(key)
        spellings.setdefault((key, st.context))
        if official and st.subject and (size := parse_size(st.subject)):
            sized.setdefault((size.key, key))
        if st.method in ("table", "part_table"):
            for model in know.find_gpus(st.raw_text):
                models.setdefault((key, model.name))
    if ex.subject:
        key = series_key(ex.subject)
        keys.setdefault(key)
        spellings.setdefault((key, ex.subject))
    return Contribution(official, tuple(keys), tuple(spellings), tuple(sized), tuple(models))


def build_series_index(parts: Sequence[Contribution]) -> SeriesIndex:
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
    size_series: dict[str, set[str]] = defaultdict(set)
    for part in parts:
        for key in part.keys:
            find(key)
        spellings.update(part.spellings)
        for size, key in part.sized:
            size_series[size].add(key)
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
    sized = tuple(sorted({best_of[find(k)] for keys in size_series.values() for k in keys if find(k) in best_of}))
    return SeriesIndex(names=names, aliases=aliases, sized=sized)


# ------------------------------------------------------------------------ claim building


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


@dataclass(frozen=True, slots=True)
class Normalized:
    claims: tuple[Claim, ...]
    diagnostics: tuple[Diagnostic, ...]
    series: SeriesIndex
    mentions: tuple[Mention, ...] = ()
    as_of: dt.date | None = None
    """The newest document's date, which decides whether a retirement date has passed."""
    prices: tuple[Price, ...] = ()
    """Catalog prices, each size by its canonical name."""


@compact
@dataclass(frozen=True, slots=True)
class DocumentClaims:
    """What one document normalized to: its claims, diagnostics and the size names it mentions."""

    claims: tuple[Claim, ...]
    diagnostics: tuple[Diagnostic, ...]
    mentions: tuple[Mention, ...]


@dataclass(frozen=True, slots=True)
class Context:
    """What normalizing a document reads of the other documents: the series index, the GPU
    models each series is said to have and the newest document's date. With it built, each
    document is normalized on its own (`normalize_document`)."""

    know: Knowledge
    series: SeriesIndex
    models: Mapping[str, list[str]]
    as_of: dt.date | None

    def fingerprint(self) -> tuple[object, ...]:
        """The context as plain, ordered data: two contexts with one fingerprint normalize every
        document alike (the index is sorted, as one more document may reorder it)."""
        return (
            self.know,
            sorted(self.series.names.items()),
            sorted(self.series.aliases.items()),
            self.series.sized,
            sorted(self.models.items()),
            self.as_of,
        )


def newest_date(extractions: Sequence[Extraction]) -> dt.date | None:
    """The date of the newest document: the build's own "today", so that a build does not
    depend on the day it runs."""
    return max((d for ex in extractions if (d := ex.document.metadata.date)), default=None)


def context(
    extractions: Sequence[Extraction], know: Knowledge | None = None, made: Mapping[str, Contribution] | None = None
) -> Context:
    """The shared context of `extractions`; `made` holds the documents' contributions (by
    path) where they were made already."""
    know = know or knowledge.load()
    made = made or {}
    parts = [made.get(ex.document.path) or contribution(ex, know) for ex in extractions]
    return Context(know, build_series_index(parts), _series_models(parts), newest_date(extractions))


def normalize_document(ctx: Context, ex: Extraction) -> DocumentClaims:
    """Every statement of one document as claims, in provenance order (`gather` joins them);
    unknown words become diagnostics."""
    work = _Context(know=ctx.know, series=ctx.series, series_models=ctx.models, as_of=ctx.as_of)
    _normalize_document(work, ex)
    claims = tuple(sorted(work.claims, key=provenance_order))
    return DocumentClaims(claims, tuple(work.diagnostics), tuple(work.mentions))


def provenance_order(c: Claim) -> tuple[object, ...]:
    """Where a claim comes in the claims table: by document, line, table, row and column, then
    entity, attribute and id."""
    return (c.document, c.line, c.table_index or 0, c.row_index or 0, c.column or "", c.entity, c.attribute, c.claim_id)


def gather_claims(parts: Mapping[str, Sequence[Claim]]) -> tuple[Claim, ...]:
    """The documents' claims (by path) as one tuple in provenance order. Each part's claims are
    in that order (`normalize_document`), so the parts joined in path order are, unless a part
    holds claims of another document: only then is the whole sorted (sorting 519,067 claims of
    10,000 documents in every build took 0.25 s)."""
    paths = sorted(parts)
    claims = [c for path in paths for c in parts[path]]
    # A part's claims are sorted by document first: its first and last tell whether all are its own.
    if not all(c[0].document == c[-1].document == path for path in paths if (c := parts[path])):
        claims.sort(key=provenance_order)
    return tuple(claims)


def gather(extractions: Sequence[Extraction], ctx: Context, parts: Mapping[str, DocumentClaims]) -> Normalized:
    """The documents' parts (by path) as one result, claims in provenance order (`gather_claims`)."""
    claims = gather_claims({ex.document.path: parts[ex.document.path].claims for ex in extractions})
    diagnostics = tuple(d for ex in extractions for d in parts[ex.document.path].diagnostics)
    mentions = tuple(m for ex in extractions for m in parts[ex.document.path].mentions)
    prices = tuple(
        replace(p, size=size.canonical) if (size := parse_size(p.size)) else p for ex in extractions for p in ex.prices
    )
    return Normalized(
        claims=claims,
        diagnostics=diagnostics,
        series=ctx.series,
        mentions=mentions,
        as_of=ctx.as_of,
        prices=prices,
    )


def normalize(extractions: Sequence[Extraction], know: Knowledge | None = None) -> Normalized:
    """Every statement of every document as claims: the context first, then each document on
    its own (which the runner may do in several processes, or take from its cache)."""
    ctx = context(extractions, know)
    return gather(extractions, ctx, {ex.document.path: normalize_document(ctx, ex) for ex in extractions})


def _series_models(parts: Sequence[Contribution]) -> dict[str, list[str]]:
    """GPU models each series is said to have, official pages first: they decide whether a
    GPU memory number is per GPU or a total when the row itself names no model."""
    official: dict[str, list[str]] = defaultdict(list)
    other: dict[str, list[str]] = defaultdict(list)
    for part in parts:
        target = official if part.official else other
        for key, name in part.models:
            models = target[key]
            if name not in models:
                models.append(name)
    return {k: official.get(k) or other.get(k, []) for k in set(official) | set(other)}


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
                f"{st.raw_text!r} under {st.key!r}: unit {spelled} is not a unit of {attribute}; value skipped",
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


def _normalize_document(ctx: _Context, ex: Extraction) -> None:
    fam = source_family(ex.document)
    rows: dict[tuple[int, int], list[Statement]] = defaultdict(list)
    part_rows: dict[tuple[int | None, int | None], list[Statement]] = defaultdict(list)
    unmapped_keys: list[str] = []
    for st in ex.statements:
        if st.method == "table" and st.table_index is not None and st.row_index is not None:
            rows[(st.table_index, st.row_index)].append(st)
        elif st.method == "mention":
            _mention(ctx, st)
        elif st.method == "part_table":
            part_rows[(st.table_index, st.row_index)].append(st)
        elif st.method in ("key_value", "feature_table"):
            if not _key_value(ctx, st) and st.key not in unmapped_keys:
                unmapped_keys.append(st.key)
        elif st.method in ("paragraph", "bullet", "note"):
            _phrases(ctx, fam, st)
        elif st.method == "catalog":
            _catalog(ctx, fam, st)
    for part_row in part_rows.values():
        _part(ctx, fam, part_row)
    pending: list[_PendingMemory] = []
    for (_, _), row in sorted(rows.items()):
        pending.extend(_table_row(ctx, fam, row))
    _decide_gpu_memory(ctx, fam, pending)
    _check_page_subject(ctx, ex)
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


def _mention(ctx: _Context, st: Statement) -> None:
    """The sizes a comparison table's row names (`Standard_NC6 <br> Standard_NC6_Promo`): each a
    mention, and where the heading above names a series the size can belong to, the size's
    series, as the list places it (the migration guide's `NC-Series VMs featuring NVIDIA K80
    GPUs` puts `Standard_NC6_Promo` in NC): a size no size table lists gets its series so."""
    series = ctx.series.canonical(st.context)
    for written in st.parts or (st.raw_text,):
        size = parse_size(written)
        ctx.mentions.append(Mention(st.document, st.line, written, size.canonical if size else None, "comparison"))
        if size and series and st.context and member_of(size, st.context):
            where = replace(st, raw_text=written, subject=written, subject_as_written=written)
            heading = st.section.rsplit(" > ", 1)[-1] or st.context
            why = f"a row of a table comparing it with other sizes, under the heading {heading!r} (series {series})"
            _emit(ctx, where, size.canonical, "size", _Value("series", text=series, interpretation=why))


def _size_entity(ctx: _Context, st: Statement, table: str = "spec") -> str | None:
    """The size a table row is about; every row's name is kept as a mention, so that the build
    can report a name that yields no size (`size_not_built`)."""
    assert st.subject is not None
    size = parse_size(st.subject)
    ctx.mentions.append(Mention(st.document, st.line, st.subject, size.canonical if size else None, table))
    return size.canonical if size else None


def _check_page_subject(ctx: _Context, ex: Extraction) -> None:
    """A page whose size tables list sizes that cannot belong to the series its title names
    is not what it claims (a garbled copy of another page): say so. Its rows still count as
    evidence for the sizes they name, and none of them is put in the claimed series."""
    title = ex.document.metadata.title or ""
    claimed = ex.subject or _claimed_series(title)
    if not claimed:
        return
    sizes = sorted({c.entity for c in ctx.claims if c.entity_kind == "size" and c.method == "table"})
    parsed = [p for e in sizes if (p := parse_size(e))]
    if not parsed or any(member_of(p, claimed) for p in parsed):
        return
    shown = ", ".join(p.canonical for p in parsed[:4]) + (" ..." if len(parsed) > 4 else "")
    ctx.diagnostics.append(
        Diagnostic(
            "warning",
            "page-not-what-it-claims",
            ex.document.path,
            _title_line(ex.document),
            f"the page's title names series {claimed!r}, but none of the {len(parsed)} size(s) its tables list "
            f"can belong to it by the naming convention ({shown}); its rows are read as evidence for those sizes "
            f"only, not as a page of {claimed!r}",
        )
    )


def _claimed_series(title: str) -> str | None:
    """The name a title gives its series even when it is not a well-formed series name:
    `NVcadbA10_M5+ size series` claims `NVcadbA10_M5+`."""
    m = _SERIES_TITLE.match(title)
    return m.group(1) if m and re.match(r"^[A-Z]{1,3}", m.group(1)) else None


def _title_line(doc: Document) -> int | None:
    """The file line of the front-matter's title, where a page says what it is about."""
    for i, line in enumerate(doc.text.split("\n")[: doc.front_matter_lines], start=1):
        if _TITLE_LINE.match(line):
            return i
    return None


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
    size = parse_size(entity)
    if series and first.context and size and member_of(size, first.context):
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
    return _whole(ctx, _number(ctx, fam, st, rule.attributes[0], text, units[-1] if units else None))


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


def _gpu_cell(ctx: _Context, fam: SourceFamily, st: Statement) -> list[_Value]:
    """`8 A100 40 GB GPUs (NVLink 3.0)`, `1 x V100`, `1/4`: count, model, memory, link."""
    text = st.raw_text
    out: list[_Value] = []
    m = _GPU_COUNT.match(text)
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
    memory = _memory_beside(ctx, fam, st, models[0] if models else None, rest)
    out.extend(memory)
    count_v = next((v.number for v in out if v.attribute == "gpu_count"), None)
    if memory and memory[0].number is not None and count_v is not None:
        per = memory[0].number
        total = round(per * count_v, 6)
        out.append(
            _Value(
                "gpu_memory_total_gib",
                number=total,
                low=total,
                high=total,
                unit_written=memory[0].unit_written,
                derived=True,
                interpretation=f"derived: {format_number(count_v)} GPUs x {format_number(per)} GiB",
            )
        )
    link = _GPU_LINK.search(rest)
    if link:
        out.append(_Value("interconnect", text=link.group(1).strip()))
    if not out:
        _not_a_value(ctx, st)
    return out


def _named_gpu(ctx: _Context, fam: SourceFamily, st: Statement, text: str) -> GpuModel | None:
    """The GPU model a spec names: by one of its names, else by its architecture and the
    memory written beside it (`Nvidia Blackwell GPU (192 GiB)` is a B200)."""
    models = ctx.know.find_gpus(text)
    if models:
        return models[0]
    mem = _GB.search(text)
    conv = _convert(ctx, fam, "gpu_memory_gib", float(mem.group(1)), mem.group(2), None, st) if mem else None
    return ctx.know.gpu_of_family(text, conv[0]) if conv else None


def _family_note(model: GpuModel, text: str) -> str | None:
    """How a model named only by its architecture was told apart."""
    if any(a.lower() in text.lower() for a in model.aliases):
        return None
    return f"the {model.family} GPU made with the memory written beside it is the {model.name}"


def _memory_beside(ctx: _Context, fam: SourceFamily, st: Statement, model: GpuModel | None, text: str) -> list[_Value]:
    """The memory written beside a GPU model (`A100 40 GB`, `Tesla M60 GPU (16GB)`) as the
    memory of one GPU: per GPU, or one card of several GPUs for a model that has them."""
    mem = _GB.search(text)
    if not mem:
        return []
    conv = _convert(ctx, fam, "gpu_memory_gib", float(mem.group(1)), mem.group(2), None, st)
    if not conv:
        return []
    per, card = _card_memory(model, conv[0])
    note = card or "memory printed beside the GPU model is per GPU"
    note += f"; {conv[2]}" if conv[2] else ""
    return [_Value("gpu_memory_gib", number=per, low=per, high=per, unit_written=conv[1], interpretation=note)]


def _fits(value: float, sizes: Iterable[float]) -> bool:
    return any(abs(value - s) <= 0.02 * s for s in sizes)


def _snap(per: float, model: GpuModel | None) -> tuple[float, str | None]:
    """A per-GPU memory computed from a total (1535 / 8 = 191.875) is the model's own size
    when within 2% of it: pages round totals, GPUs are made in whole sizes."""
    if model is None:
        return per, None
    near = [m for m in model.memory_gib if _fits(per, [m])]
    if near and near[0] != per:
        return near[0], (
            f"{format_number(round(per, 4))} GiB per GPU is within 2% of the {model.name}'s "
            f"{format_number(near[0])} GiB; read as {format_number(near[0])}"
        )
    return per, None


def _card_memory(model: GpuModel | None, memory: float) -> tuple[float, str | None]:
    """Memory printed beside a model is per GPU, except where it is one card of a model whose
    cards carry several GPUs (`Tesla M60 GPU (16GB)`: two GPUs of 8 GiB)."""
    if (
        model
        and model.gpus_per_board > 1
        and not _fits(memory, model.memory_gib)
        and _fits(memory, model.board_memory_gib)
    ):
        per = memory / model.gpus_per_board
        return per, (
            f"{format_number(memory)} GiB is one {model.name} card of {model.gpus_per_board} GPUs: "
            f"{format_number(per)} GiB per GPU"
        )
    return memory, None


def _readings(p: _PendingMemory, model: GpuModel | None, who: str) -> dict[str, str]:
    """Every reading of a GPU memory number that physics allows, and why: per GPU, the total
    of all GPUs, or (for a model with several GPUs on a card) the total of that many cards."""
    v, n = p.raw, p.count
    sizes = model.memory_gib if model else tuple(sorted(set(knowledge.load().all_gpu_memory_sizes())))
    out: dict[str, str] = {}
    if n is None:
        return out
    if n == 1 and _fits(v, sizes):
        out["one"] = "one GPU: per-GPU and total memory are the same"
    elif n != 1 and _fits(v, sizes):
        out["per_gpu"] = (
            f"{format_number(v)} GiB matches the {who} and {format_number(v)} / {format_number(n)} does not"
        )
    if n and n != 1 and _fits(v / n, sizes):
        out["total"] = f"{format_number(v)} / {format_number(n)} GPUs = {format_number(v / n)} GiB matches the {who}"
    if model and n and model.gpus_per_board > 1 and _fits(v / n, model.board_memory_gib):
        gpus = n * model.gpus_per_board
        out["card"] = (
            f"{format_number(n)} {model.name} card(s) of {model.gpus_per_board} GPUs = {format_number(gpus)} GPU(s): "
            f"{format_number(v)} / {format_number(n)} = {format_number(v / n)} GiB is one card"
        )
    return out


def _decide_gpu_memory(ctx: _Context, fam: SourceFamily, pending: list[_PendingMemory]) -> None:
    """Per GPU, total, or cards? Decided per row from the count and the GPU model's memory
    sizes (and cards, for models that carry several GPUs on one); a row the numbers cannot
    decide follows the other rows of its column, else the header."""
    decisions: dict[int, tuple[str | None, str]] = {}
    models: dict[int, GpuModel | None] = {}
    for i, p in enumerate(pending):
        model = ctx.know.gpu(p.models[0]) if p.models else None
        models[i] = model
        sizes = model.memory_gib if model else tuple(ctx.know.all_gpu_memory_sizes())
        who = (
            f"{model.name} memory sizes {'/'.join(format_number(s) for s in sizes)} GiB"
            if model
            else "known GPU memory sizes"
        )
        v = p.raw  # GPU memory is sold in binary sizes however a page prints the unit
        if p.count is None:
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
        readings = _readings(p, model, who)
        if len(readings) == 1:
            ((reading, why),) = readings.items()
            decisions[i] = (reading, why + ("" if reading == "one" else f"; read as {_READING[reading]}"))
        elif (
            len(readings) > 1
            and p.row_per_gpu is not None
            and "per_gpu" in readings
            and _fits(p.row_per_gpu, [p.value])
        ):
            decisions[i] = (
                "per_gpu",
                f"both readings fit the {who}; the GPU cell of this row gives "
                f"{format_number(p.row_per_gpu)} GiB per GPU, so read as per GPU",
            )
        elif (
            len(readings) > 1
            and p.row_per_gpu is not None
            and "total" in readings
            and _fits(p.row_per_gpu * p.count, [p.value])
        ):
            decisions[i] = (
                "total",
                f"both readings fit the {who}; the GPU cell of this row gives "
                f"{format_number(p.row_per_gpu)} GiB per GPU, so read as the total",
            )
        elif readings:
            decisions[i] = (None, "readings " + " and ".join(_READING[r] for r in readings) + " all fit")
        else:
            decisions[i] = (None, "neither reading fits the " + who)
    by_column: dict[tuple[str, int | None, str | None], Counter[str]] = defaultdict(Counter)
    for i, p in enumerate(pending):
        d = decisions[i][0]
        if d in ("per_gpu", "total", "card"):
            by_column[(p.statement.document, p.statement.table_index, p.statement.column)][d] += 1
    for i, p in enumerate(pending):
        decision, why = decisions[i]
        if decision is None:
            votes = by_column[(p.statement.document, p.statement.table_index, p.statement.column)]
            allowed = set(_readings(p, models[i], "")) or {"per_gpu", "total"}
            usual = [d for d in votes if d in allowed or "neither" in why]
            if len(usual) == 1:
                decision = usual[0]
                why += f"; read as {_READING[decision]} like the other rows of this column"
            else:
                decision = "per_gpu" if p.default == "per_gpu" else "total"
                why += f"; read as {_READING[decision]}, the header's usual meaning"
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
        _emit_memory(ctx, p, decision, why, models[i])


_READING = {"per_gpu": "per GPU", "one": "per GPU", "total": "the total", "card": "the total of whole cards"}


def _emit_memory(ctx: _Context, p: _PendingMemory, decision: str, why: str, model: GpuModel | None) -> None:
    """The claims a decided GPU memory cell makes: per-GPU and total memory, and for cards the
    GPU count they hold."""
    note = why + (f"; {p.note}" if p.note else "")
    st = p.statement
    v, n = p.value, p.count

    def emit(attribute: str, number: float, derived: bool, interpretation: str = note) -> None:
        value = _Value(
            attribute,
            number=number,
            low=number,
            high=number,
            unit_written=p.written if attribute != "gpu_count" else None,
            interpretation=interpretation,
            derived=derived,
        )
        _emit(ctx, st, p.entity, "size", value)

    if decision in ("per_gpu", "one"):
        emit("gpu_memory_gib", v, False)
        if n is not None:
            emit("gpu_memory_total_gib", round(v * n, 6), decision != "one")
        return
    emit("gpu_memory_total_gib", v, False)
    if decision == "card" and model is not None and n:
        gpus = n * model.gpus_per_board
        per, snapped = _snap(v / gpus, model)
        emit("gpu_count", gpus, True)
        emit("gpu_memory_gib", round(per, 6), True, note + (f"; {snapped}" if snapped else ""))
    elif n:
        per, snapped = _snap(v / n, model)
        emit("gpu_memory_gib", round(per, 6), True, note + (f"; {snapped}" if snapped else ""))


# ------------------------------------------------------------------ series-level statements


def _series_entity(ctx: _Context, st: Statement) -> str | None:
    return ctx.series.canonical(st.context)


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
    also: dict[int, tuple[Mapping[str, str], str]] = {}
    for st in row:
        for place, piece in enumerate(st.parts):
            if (units := rule.also_for(piece)) is not None:
                also.setdefault(place, (units, piece))
    aligned = len({len(st.parts) for st in row}) == 1
    cells: list[_Cell] = []
    for st in row:
        values: list[tuple[int, _Value]] = []
        for place, piece in enumerate(st.parts):
            units = rule.units_for(piece)
            values.extend((place, v) for v in _part_piece(ctx, fam, st, units, piece))
            said = also.get(place)
            if said is None or units is not rule.units or not (aligned or rule.also_for(piece)):
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


def _phrases(ctx: _Context, fam: SourceFamily, st: Statement) -> None:
    """Values stated in running text, by the patterns of phrases.toml, each given to the sizes
    or series its sentence is about (see `_subjects`)."""
    text = st.raw_text
    present = ctx.know.phrase_words(text.lower())
    seen: set[tuple[str, str, str]] = set()
    for n, phrase in enumerate(ctx.know.phrases):
        if not phrase.may_match(present):
            continue
        for m in phrase.pattern.finditer(text):
            values = _phrase_values(ctx, fam, st, phrase, m)
            if not values:
                continue
            if m.groupdict().get("size"):
                size = parse_size(m.group("size"))
                if size is None:
                    continue
                subjects: list[tuple[str, EntityKind]] = [(size.canonical, "size")]
            else:
                subjects = _subjects(ctx, st, m.start(), m.end())
            pairs = _pair(subjects, values, text, m)
            _prose_size_series(ctx, st, subjects, seen)
            for (entity, kind), group in pairs:
                for v in group:
                    flag = None if v.flag is None else str(v.flag)
                    key = (entity, v.attribute, v.text or flag or format_number(v.number or 0))
                    if key in seen:
                        continue
                    seen.add(key)
                    _emit(ctx, st, entity, kind, v, n)


def _prose_size_series(
    ctx: _Context, st: Statement, subjects: list[tuple[str, EntityKind]], seen: set[tuple[str, str, str]]
) -> None:
    """A size running text names belongs to the series its sentence (else its page or
    heading) names, when the naming convention allows it: "Standard_NV12hs_v3 ... in the
    NVv3-series" is of NVv3."""
    series = [name for name, kind in subjects if kind == "series"] or [s for s in [_series_entity(ctx, st)] if s]
    for name, kind in subjects:
        size = parse_size(name) if kind == "size" else None
        home = next((s for s in series if size and member_of(size, s)), None)
        if home is None or (name, "series", home) in seen:
            continue
        seen.add((name, "series", home))
        _emit(ctx, st, name, "size", _Value("series", text=home, interpretation=f"named in a sentence about {home}"))


def _pair(
    subjects: list[tuple[str, EntityKind]], values: list[_Value], text: str, m: re.Match[str]
) -> list[tuple[tuple[str, EntityKind], list[_Value]]]:
    """Which values go to which subject: all to each, except several GPU models, which go to
    as many series in order when the sentence says "respectively", and to none otherwise."""
    models = [v for v in values if v.attribute == "gpu_model"]
    if len(models) <= 1:
        return [(s, values) for s in subjects]
    sentence = _sentence_at(text, m.start())
    if _RESPECTIVELY.search(text[sentence[0] : sentence[1]]) and len(subjects) == len(models):
        return [(s, [v]) for s, v in zip(subjects, models, strict=True)]
    return []


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z\[*_(`\"'])")


def _sentence_at(text: str, pos: int) -> tuple[int, int]:
    """The start and end of the sentence of `text` that holds `pos`."""
    start = 0
    for m in _SENTENCE_END.finditer(text):
        if m.start() >= pos:
            return start, m.start()
        start = m.end()
    return start, len(text)


_SIZE_WORD = re.compile(
    r"\bStandard_[A-Z]{1,3}\d+(?:-\d+)?[A-Za-z0-9_]*|\b[A-Z]{1,3}\d+[a-z]*(?:_[A-Za-z0-9]+)*_v\d+\b"
)
"""A size name in running text: with its tier (`Standard_NC6`) or its version (`ND40s_v2`), so
that words such as HBM3e or E5 are not taken for sizes."""
_LIST_GAP = re.compile(r"^[\s,;()/&]*(?:(?:and|or)\b[\s,;()/&]*)?$", re.IGNORECASE)


def _size_lists(text: str) -> list[tuple[int, int, list[str]]]:
    """Runs of size names joined only by commas, brackets and `and`/`or`: (start, end, names)."""
    runs: list[tuple[int, int, list[str]]] = []
    for m in _SIZE_WORD.finditer(text):
        size = parse_size(m.group(0))
        if size is None:
            continue
        if runs and _LIST_GAP.match(text[runs[-1][1] : m.start()]):
            start, _, names = runs[-1]
            runs[-1] = (start, m.end(), [*names, size.canonical])
        else:
            runs.append((m.start(), m.end(), [size.canonical]))
    return runs


def _subjects(ctx: _Context, st: Statement, start: int, end: int) -> list[tuple[str, EntityKind]]:
    """What a statement in running text is about, nearest first: the sizes its sentence names
    before the match, else after it ("will retire the Standard_NV12s_v3, ..."), with the
    series the sentence names; else the series the sentence names before (else after) the
    match; else the series an earlier sentence of the same paragraph names ("These products
    will be retired ..."); else the series of the page or heading."""
    text = st.raw_text
    s_start, s_end = _sentence_at(text, start)
    out: list[tuple[str, EntityKind]] = []
    runs = _size_lists(text[s_start:s_end])
    before = [r for r in runs if r[1] <= start - s_start]
    after = [r for r in runs if r[0] >= end - s_start]
    sizes = before[-1][2] if before else (after[0][2] if after else [])
    out.extend((name, "size") for name in sizes)
    # "They ... that of the original NC-Series and are powered by P100 GPUs": a sentence whose
    # subject is a pronoun is about what an earlier sentence named, not the series it mentions.
    pronoun = _PRONOUN.match(text[s_start:])
    groups_before = () if pronoun else find_series_groups(text[s_start:start])
    groups_after = () if pronoun else find_series_groups(text[end:s_end])
    group = groups_before[-1] if groups_before else (groups_after[0] if groups_after else ())
    if not group and not sizes:
        earlier = find_series_groups(text[:s_start])
        group = earlier[-1] if earlier else ()
    series = [canonical for g in group if (canonical := ctx.series.canonical(g.written))]
    if not series and not sizes and (context := _series_entity(ctx, st)):
        series = [context]
    out.extend((name, "series") for name in dict.fromkeys(series))
    return out


def _phrase_values(ctx: _Context, fam: SourceFamily, st: Statement, phrase: Phrase, m: re.Match[str]) -> list[_Value]:
    """The value(s) a phrase's match states, read by the phrase's parser."""
    note = f"from running text: {m.group(0).strip()!r}"
    groups = m.groupdict()
    raw = groups.get("value")
    if phrase.value is not None:
        if ctx.know.attributes[phrase.attribute].kind == "flag":
            return [_Value(phrase.attribute, flag=parse_flag(phrase.value), interpretation=note)]
        return [_Value(phrase.attribute, text=phrase.value, interpretation=note)]
    if not raw:
        return []
    if phrase.parser == "interconnect":
        return _link_values(ctx, phrase.attribute, raw, note)
    if phrase.parser == "gpu_model":
        # A comparison names other models after the one meant: "the H200, ... over the H100".
        window = _COMPARED.split(raw, maxsplit=1)[0]
        return [_Value("gpu_model", text=g.name, interpretation=note) for g in ctx.know.find_gpus(window)]
    if phrase.parser == "cpu_model":
        if not _DIGIT_OR_PAREN.search(raw):
            return []  # "Intel Xeon Scalable processors" names a line, not a model
        return _cpu_values(ctx, raw, note)
    if phrase.parser == "date":
        when = parse_date_text(raw)
        if when is None:
            return []
        return [_Value(phrase.attribute, text=when.isoformat(), interpretation=note), *_lifecycle_of(ctx, when)]
    if phrase.parser == "text":
        return [_Value(phrase.attribute, text=raw.strip(), interpretation=note)]
    number = parse_number(raw)
    if number is None:
        return []
    conv = _convert(ctx, fam, phrase.attribute, number, groups.get("unit"), None, st)
    if conv is None:
        return []
    return [
        _Value(
            phrase.attribute,
            number=conv[0],
            low=conv[0],
            high=conv[0],
            unit_written=conv[1],
            interpretation=note + (f"; {conv[2]}" if conv[2] else ""),
        )
    ]


def _link_values(ctx: _Context, attribute: str, written: str, note: str) -> list[_Value]:
    """A GPU interconnect in its normal form (`fifth-generation NVLink` is NVLink 5.0), and the
    flag its name states (NVLink: `nvlink`); phrases.toml's `[[link]]` table says which."""
    found = read_link(written, ctx.know)
    if found is None:
        return []
    link, name = found
    out = [_Value(attribute, text=name, interpretation=note)]
    if link.flag:
        out.append(_Value(link.flag, flag=True, interpretation=f"{note}; {link.name} names the GPUs' link"))
    return out


def _lifecycle_of(ctx: _Context, when: dt.date) -> list[_Value]:
    """A retirement date says the size is retired once it has passed, and retiring before:
    passed means before the newest document's date, never the clock (builds stay the same)."""
    if ctx.as_of is None:
        return []
    if when <= ctx.as_of:
        state, rel = "retired", "on or before"
    else:
        state, rel = "retiring", "after"
    why = f"retirement date {when.isoformat()} is {rel} {ctx.as_of.isoformat()}, the newest document's date"
    return [_Value("lifecycle", text=state, interpretation=why, derived=True)]


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


# ------------------------------------------------------------------ machine-made catalogs


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
        gens = tuple(sorted({int(g) for g in _GENERATION.findall(raw)}))
        if gens:
            values.append(_Value(rule.attribute, text=",".join(str(g) for g in gens), interpretation=rule.note))
            values.append(_Value("generation_1_vms", flag=1 in gens, derived=True))
            values.append(_Value("generation_2_vms", flag=2 in gens, derived=True))
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


def series_of(written: str) -> SeriesName | None:
    """Exposed for tests and the CLI: the series a heading or title names."""
    return parse_series(written)
