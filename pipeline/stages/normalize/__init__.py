"""Stage 3: statements become typed `Claim`s about one entity and one attribute. Each rule lives in
one of the rooms below and the tables they read; each document's claims are cached by the runner's
normalize memo (`runner.normalizing`), while neither it nor the context it reads changes.

Names are resolved to one spelling (names.py), units converted exactly into each
attribute's canonical unit (units.toml), composite cells split into several claims, and
every interpretation the stage had to make (a GB read as GiB, a GPU memory read as a
total) is written on the claim.

This module is the stage's entry: the shared context first (`context`), then each document
on its own (`normalize_document`, which sends each statement to the room that reads its
kind), then the documents' claims gathered (`gather`). The rooms:

- `sources`: what kind of publisher a document comes from (sources.toml);
- `series`: the series index, what each document adds to it, and the shared `Context`;
- `claims`: a value made a claim (`_emit`), numbers in canonical units (`_convert`, units.toml);
- `values`: numbers, totals, shares and texts read from a piece of a cell, for every room;
- `cells`: the rows of size tables, cell by cell (headers.toml `[[column]]`);
- `gpus`: GPU cells (their link by phrases.toml `[[link]]`), and GPU memory per GPU, total or
  whole cards (gpus.toml);
- `parts`: Part | Quantity | Specs rows and `key: value` lines, about a series (headers.toml);
- `prose`: values stated in running text (phrases.toml);
- `catalogs`: what machine-made catalogs state (catalogs.toml).

The rooms share their helpers by their underscored names: those are the stage's own; what
other modules use is exported here (`__all__`).
"""

from __future__ import annotations

import datetime as dt
import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from pipeline.knowledge import Knowledge
from pipeline.knowledge.names import member_of, parse_size
from pipeline.records import Claim, Diagnostic, Document, Extraction, Mention, Price, Statement, compact
from pipeline.stages.normalize.catalogs import _catalog
from pipeline.stages.normalize.cells import _table_row
from pipeline.stages.normalize.claims import _Context, _series_claim
from pipeline.stages.normalize.gpus import _decide_gpu_memory, _PendingMemory
from pipeline.stages.normalize.parts import _key_value, _part
from pipeline.stages.normalize.prose import _phrases
from pipeline.stages.normalize.series import (
    Context,
    Contribution,
    SeriesIndex,
    build_series_index,
    context,
    contribution,
    newest_date,
)
from pipeline.stages.normalize.sources import SourceFamily, source_family

__all__ = [
    "Context",
    "Contribution",
    "DocumentClaims",
    "Normalized",
    "SeriesIndex",
    "SourceFamily",
    "build_series_index",
    "context",
    "contribution",
    "gather",
    "gather_claims",
    "newest_date",
    "normalize",
    "normalize_document",
    "provenance_order",
    "source_family",
]

# Patterns the functions below match many times a build, compiled once, as each room's are:
# given as text, each call looks its pattern up in `re`'s cache (with those of names, values
# and extract, about 1 CPU s of the work of a 10,000-document build).
_SERIES_TITLE = re.compile(r"^\s*(\S+)\s+(?:size\s+|sizes\s+)?series\b", re.IGNORECASE)
_TITLE_LINE = re.compile(r"^\s*title\s*:")


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
        if size and series:
            heading = st.section.rsplit(" > ", 1)[-1] or st.context
            why = f"a row of a table comparing it with other sizes, under the heading {heading!r} (series {series})"
            at = {"raw_text": written, "subject": written, "subject_as_written": written}
            _series_claim(ctx, st, size.canonical, size, series, st.context, why, **at)


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
