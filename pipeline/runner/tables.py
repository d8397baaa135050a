"""The tables step (`tables`): the rows of each table (`pipeline.outputs.schema`) made from the
steps' records; the claims table made, checked and written by a process of its own in a large
build (`ClaimsApart`)."""

from __future__ import annotations

import contextlib
import datetime as dt
import os
from collections import defaultdict
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from functools import partial
from multiprocessing.connection import Connection
from operator import attrgetter, itemgetter
from pathlib import Path
from typing import Any

from pipeline.knowledge.names import parse_size, series_key
from pipeline.knowledge.registry import AUTHORITATIVE, Source
from pipeline.knowledge.values import with_unit
from pipeline.outputs import schema
from pipeline.outputs.write import Previous, by_column, frame, sync_file, table_files, write_table
from pipeline.records import BuildResult, Claim, Conflict, Diagnostic, Fact, Mention, Price, Reconciled
from pipeline.runner.documents import Corpus, Listed
from pipeline.runner.frames import _in_order
from pipeline.runner.pool import HelperDied, beside, give_back
from pipeline.runner.reuse import Decided, Store, Taken
from pipeline.stages.aliases import Alias
from pipeline.stages.calibrate import Label, expected_calibration_error, reliability
from pipeline.stages.errata import Chosen, Erratum
from pipeline.stages.errata import errata as find_errata
from pipeline.stages.reconcile import NAME_CONVENTION, SIBLING
from pipeline.sync import Locked


def _small_tables(documents: Any, diagnostics: Sequence[Diagnostic], labels: Sequence[Label]) -> dict[str, Any]:
    """The tables made the same way whether the others are made or taken."""
    cols = schema.tables()
    return {
        "documents": documents,
        "diagnostics": frame(
            _columns(diagnostics, Diagnostic, cols["diagnostics"]), cols["diagnostics"], len(diagnostics)
        ),
        "calibration": frame(by_column(calibration_rows(labels), schema.CALIBRATION), schema.CALIBRATION),
    }


def _columns(records: Sequence[Any], kind: type, columns: Sequence[schema.Column]) -> dict[str, Iterable[Any]]:
    """The columns that are plain fields of `kind`, each read with an attrgetter when `frame`
    converts it (give it `rows`); the caller adds the columns it derives (joined tuples) after."""
    own = {f.name for f in fields(kind)}
    return {c.name: map(attrgetter(c.name), records) for c in columns if c.name in own}


def _joined(values: Iterable[tuple[str, ...]], sep: str) -> Iterator[str | None]:
    return (sep.join(v) or None for v in values)


def documents_frame(
    documents: Sequence[Listed],
    per_doc: Mapping[str, int],
    sources: Mapping[str, Source],
    upstream: Mapping[str, Locked],
) -> Any:
    cols = schema.DOCUMENTS
    rows = [
        {
            "document": d.path,
            "sha256": d.sha256,
            "encoding": d.encoding,
            "title": d.metadata.title,
            "author": d.metadata.author,
            "as_of": d.metadata.date,
            "date_field": d.metadata.date_field,
            "service": d.metadata.service,
            "canonical_url": sources[d.path].canonical_url,
            "tags": "; ".join(d.metadata.tags) or None,
            "family": d.family,
            "kind": sources[d.path].kind,
            "publisher": sources[d.path].publisher,
            "licence": sources[d.path].licence,
            "trust": sources[d.path].trust,
            "classified_by": sources[d.path].classified_by,
            "subject": d.subject,
            "copy_of": sources[d.path].copy_of,
            "lines": d.lines,
            "claims": per_doc.get(d.path, 0),
            **_provenance(upstream.get(d.path)),
        }
        for d in documents
    ]
    return frame(by_column(rows, cols), cols)


def claims_frame(claims: Sequence[Claim]) -> Any:
    """The claims table but for its `checks_failed` column (`checks_column`), which only
    deciding every entity tells."""
    return frame(_columns(claims, Claim, schema.CLAIMS), schema.CLAIMS, len(claims))


def checks_column(claims: Sequence[Claim], checks: Mapping[str, tuple[str, ...]]) -> Any:
    (column,) = (c for c in schema.CLAIMS if c.name == "checks_failed")
    failed = _joined((checks.get(c.claim_id, ()) for c in claims), "; ")
    return frame({column.name: failed}, [column], len(claims))[column.name]


def sizes_frame(rows: Sequence[Mapping[str, Any]]) -> Any:
    cols = schema.tables()["vm_sizes"]
    return frame(by_column(sorted(rows, key=itemgetter("size")), cols), cols)


def facts_frame(facts: Sequence[Fact]) -> Any:
    cols = schema.FACTS
    data = _columns(facts, Fact, cols)
    data["supporting_claims"] = (" ".join(f.supporting) for f in facts)
    data["contradicting_claims"] = _joined((f.contradicting for f in facts), " ")
    data["checks_failed"] = _joined((f.checks_failed for f in facts), "; ")
    return frame(data, cols, len(facts))


def _conflicts_frame(conflicts: Sequence[Conflict], upstream: Mapping[str, Locked]) -> Any:
    cols = schema.CONFLICTS
    data = _columns(conflicts, Conflict, cols)
    data["claims"] = (" ".join(c.claims) for c in conflicts)
    data["documents"] = ("; ".join(c.documents) for c in conflicts)
    data["links"] = (_links(c.documents, upstream) for c in conflicts)
    data["kinds"] = (", ".join(c.kinds) for c in conflicts)
    data["checks_failed"] = _joined((c.checks_failed for c in conflicts), "; ")
    data["note"] = (c.note or None for c in conflicts)
    return frame(data, cols, len(conflicts))


def _provenance(locked: Locked | None) -> dict[str, str | None]:
    """The documents table's upstream columns for a document upstream.lock lists (else empty)."""
    if locked is None:
        return dict.fromkeys(("repository", "commit", "upstream_path", "url"))
    return {"repository": locked.repository, "commit": locked.commit, "upstream_path": locked.path, "url": locked.url}


def _links(refs: Sequence[str], upstream: Mapping[str, Locked]) -> str | None:
    """The permalink to the line of each `document:line`, joined with '; ': one per reference, in
    its order and empty where its document has none, so that a reader pairs them by position
    (`outputs.text.permalinks`); None where no document has one."""
    links = []
    for ref in refs:
        document, _, line = ref.rpartition(":")
        links.append(f"{upstream[document].url}#L{line}" if document in upstream else "")
    return "; ".join(links) if any(links) else None


STATUS_ORDER = ("unresolved", "resolved", "single_source", "agreed")


def calibration_rows(labels: Sequence[Label]) -> list[dict[str, Any]]:
    """The reliability table of `labels`: one row per bin, and an 'all' row with the ECE."""
    bins = reliability([(label.confidence, label.correct) for label in labels])
    rows: list[dict[str, Any]] = [
        {
            "bin": f"{b.low:.2f}-{b.high:.2f}",
            "low": b.low,
            "high": b.high,
            "facts": b.facts,
            "mean_confidence": b.confidence,
            "accuracy": b.accuracy,
        }
        for b in bins
    ]
    if labels:
        rows.append(
            {
                "bin": "all",
                "low": 0.0,
                "high": 1.0,
                "facts": len(labels),
                "mean_confidence": round(sum(label.confidence for label in labels) / len(labels), 4),
                "accuracy": round(sum(label.correct for label in labels) / len(labels), 4),
                "ece": expected_calibration_error(bins),
            }
        )
    return rows


def _prices_frame(rows: Sequence[Mapping[str, Any]], retired: Collection[str]) -> Any:
    """The prices table: the rows of `price_rows`, each marked `listed_after_retirement` where
    the documents retire its size (`retired`): a catalog listing it is no current price."""
    cols = schema.tables()["prices"]
    marked = [{**row, "listed_after_retirement": row["size"] in retired} for row in rows]
    return frame(by_column(marked, cols), cols)


def price_rows(prices: Sequence[Price], sources: Mapping[str, Source]) -> list[dict[str, Any]]:
    """One row per catalog price, marked `newest` where no newer snapshot of its catalog prices
    the size."""
    newest: dict[tuple[str, str], int] = {}
    for p in prices:
        src = sources[p.document]
        key = (src.catalog or p.document, p.size)
        newest[key] = max(newest.get(key, -1), src.snapshot or 0)
    rows = [
        {
            "size": p.size,
            "region": p.region,
            "os": p.os,
            "on_demand_usd_per_hour": p.on_demand,
            "spot_usd_per_hour": p.spot,
            "snapshot": p.document,
            "newest": (sources[p.document].snapshot or 0)
            == newest[(sources[p.document].catalog or p.document, p.size)],
            "document": p.document,
            "line": p.line,
        }
        for p in prices
    ]
    return sorted(rows, key=lambda r: (r["size"], r["region"] or "", r["document"], r["line"]))


_DOCS_ONLY = frozenset({NAME_CONVENTION, SIBLING})
"""Claims no document makes: they say nothing of where a size is named."""


@dataclass(frozen=True, slots=True)
class SizeRowInputs:
    """What a size's row of vm_sizes reads beside its facts, from every claim, mention and price
    once: the documents that name it (their rows, lists and comparison tables, not the rules'
    claims, which a sibling's document carries), and its lowest price in the newest snapshot.
    Each part of the entities reads its sizes' (`vm_size_rows`)."""

    named_by: Mapping[str, set[str]]
    lowest: Mapping[str, float]

    @classmethod
    def of(
        cls, claims: Iterable[Claim], prices: Iterable[Mapping[str, Any]], mentions: Iterable[Mention] = ()
    ) -> SizeRowInputs:
        named_by: dict[str, set[str]] = defaultdict(set)
        for c in claims:
            if c.entity_kind == "size" and c.method not in _DOCS_ONLY:
                named_by[c.entity].add(c.document)
        for m in mentions:
            if m.size:
                named_by[m.size].add(m.document)
        lowest: dict[str, float] = {}
        for p in prices:
            if p["newest"] and p["on_demand_usd_per_hour"] is not None:
                lowest[p["size"]] = min(lowest.get(p["size"], float("inf")), p["on_demand_usd_per_hour"])
        return cls(named_by, lowest)


def vm_size_rows(rec: Reconciled, named: SizeRowInputs, sources: Mapping[str, Source]) -> list[dict[str, Any]]:
    """One row per size, every value taken from `facts`, with an account of the values no
    document states for the size itself (`_basis_account`); where it is named (docs, the API),
    the newest API snapshot that lists it, and, unless the documents retire it, its lowest price
    in the newest snapshot."""
    facts: dict[str, dict[str, Fact]] = defaultdict(dict)
    for f in rec.facts:
        if f.entity_kind == "size":
            facts[f.entity][f.attribute] = f
    named_by, lowest = named.named_by, named.lowest
    types = {c.name: c.type for c in schema.tables()["vm_sizes"]}
    rows = []
    for size in sorted(s for s in facts if parse_size(s)):
        row: dict[str, Any] = {"size": size}
        chosen = facts[size]
        series = chosen.get("series")
        row["series"] = series.value_text if series else None
        used: list[Fact] = [series] if series else []
        for attr in schema.VM_SIZE_ATTRIBUTES:
            value = chosen.get(attr)
            row[attr] = _cell(value, types[attr])
            if value is not None and attr in schema.CORE_ATTRIBUTES:
                used.append(value)
        statuses = {f.status for f in used}
        if "unverified" in statuses:
            row["status"] = "unverified"
        else:
            row["status"] = next((s for s in STATUS_ORDER if s in statuses), None)
        row["confidence"] = min((f.confidence for f in used), default=None)
        row["documents"] = len(named_by.get(size, ()))
        naming = named_by.get(size, set())
        kinds = {sources[d].kind for d in naming}
        api = sorted((d for d in naming if sources[d].kind == "api_catalog"), key=lambda d: sources[d].snapshot or 0)
        docs = kinds & (AUTHORITATIVE - {"api_catalog"})
        both, docs_only, api_only, third_only = schema.FOUND_IN
        row["found_in"] = (both if docs else api_only) if api else (docs_only if docs else third_only)
        row["api_snapshot"] = api[-1] if api else None
        price = None if row.get("lifecycle") == "retired" else lowest.get(size)
        row["lowest_price_usd_per_hour"] = price
        count = row.get("gpu_count")
        row["price_per_gpu_hour_usd"] = (
            round(price / count, 6) if price is not None and isinstance(count, float) and count > 0 else None
        )
        shown = [f for f in (series, *(chosen.get(a) for a in schema.VM_SIZE_ATTRIBUTES)) if f is not None]
        row["value_basis"], row["inferred_attributes"] = _basis_account(shown)
        rows.append(row)
    return rows


_INFERRED = {
    "inherited": "inherited from series",
    "sibling": "copied from the sibling size",
    "name": "read from the name",
}
"""The bases of a value no document states for the size itself (`Fact.basis`), as the row says them."""


def _basis_account(shown: Sequence[Fact]) -> tuple[str, str | None]:
    """What a row's values rest on, in words, and the columns whose value no document states for
    the size itself, joined with ', ' (None when every value is stated): `stated for this size: 9
    values; inherited from series NDv2: cpu_model, gpu_count; read from the name: vcpus`."""
    stated = sum(f.basis == "stated" for f in shown)
    computed = [f.attribute for f in shown if f.basis == "computed"]
    groups: dict[str, list[str]] = defaultdict(list)
    for f in shown:
        if f.basis in _INFERRED:
            source = f" {f.basis_from}" if f.basis_from else ""
            groups[f"{_INFERRED[f.basis]}{source}"].append(f.attribute)
    parts = [f"stated for this size: {stated} value{'s' if stated != 1 else ''}"]
    if computed:
        parts.append(f"computed from stated values: {', '.join(computed)}")
    parts.extend(f"{how}: {', '.join(attributes)}" for how, attributes in sorted(groups.items()))
    inferred = [f.attribute for f in shown if f.basis in _INFERRED]
    return "; ".join(parts), ", ".join(inferred) or None


def _chosen(facts: Any, keys: Collection[tuple[str, str]]) -> dict[tuple[str, str], Chosen]:
    """What the errata read of the facts (`errata.Chosen`), of the (entity, attribute) `keys` alone:
    a large build's facts are hundreds of thousands of rows."""
    if not keys:
        return {}
    import pandas as pd

    wanted = pd.MultiIndex.from_tuples(sorted(keys), names=["entity", "attribute"])
    rows = facts[pd.MultiIndex.from_frame(facts[["entity", "attribute"]]).isin(wanted)]
    out = {}
    columns = ["entity", "attribute", "value", "unit", "confidence", "document", "line", "sources"]
    for f in rows[columns].itertuples(index=False):
        value = with_unit(str(f.value), f.unit if isinstance(f.unit, str) else None)
        out[(str(f.entity), str(f.attribute))] = Chosen(
            value, float(f.confidence), f"{f.document}:{f.line}", int(f.sources)
        )
    return out


def _errata_frame(errata: Sequence[Erratum], sources: Mapping[str, Source], upstream: Mapping[str, Locked]) -> Any:
    """The errata table: one row per erratum (`errata.Erratum`), with the permalinks to its line
    and to the lines of its evidence, and the repository or catalog it is to be sent to."""
    cols = schema.ERRATA
    rows = []
    for e in errata:
        locked = upstream.get(e.document)
        rows.append(
            {
                "erratum_id": e.erratum_id,
                "kind": e.kind,
                "document": e.document,
                "line": e.line,
                "url": f"{locked.url}#L{e.line}" if locked else None,
                "repository": locked.repository if locked else None,
                "upstream_path": locked.path if locked else None,
                "catalog": sources[e.document].catalog if e.document in sources else None,
                "entities": "; ".join(e.entities),
                "attribute": e.attribute,
                "written": e.written,
                "value": e.value,
                "supported": e.supported,
                "evidence": e.evidence,
                "evidence_at": "; ".join(e.evidence_at) or None,
                "evidence_links": _links(e.evidence_at, upstream),
                "sure": e.sure,
            }
        )
    return frame(by_column(rows, cols), cols)


def _names_frame(aliases: Sequence[Alias], upstream: Mapping[str, Locked]) -> Any:
    """The names table: one row per name that stands for another size (`aliases.Alias`)."""
    cols = schema.NAMES
    rows = [
        {
            "name": a.name,
            "written": "; ".join(a.written),
            "size": a.size,
            "certainty": "certain" if a.certain else "likely",
            "evidence": a.why,
            "documents": len({d for d, _ in a.uses}),
            "uses": "; ".join(f"{d}:{line}" for d, line in a.uses),
            "links": _links([f"{d}:{line}" for d, line in a.uses], upstream),
        }
        for a in sorted(aliases, key=lambda a: a.name)
    ]
    return frame(by_column(rows, cols), cols)


def _cell(f: Fact | None, type_: str) -> Any:
    if f is None or (f.range_min is not None and f.range_max is not None and f.range_min != f.range_max):
        return None
    if type_ == "date":
        return dt.date.fromisoformat(f.value_text) if f.value_text else None
    if f.value_number is not None:
        if type_ == "int":
            return int(f.value_number) if float(f.value_number).is_integer() else None
        return f.value_number
    if f.value_bool is not None:
        return f.value_bool
    return f.value_text


# ------------------------------------------------------------------------------ the step


@dataclass(frozen=True, slots=True)
class Decisions:
    """What the reconcile step gives the tables: all they need of the claims, which the build
    lets go before it joins the facts (at 10,000 documents, the claims were the build's peak)."""

    rec: Reconciled
    """The conflicts and each claim's checks; the facts too where the records are kept."""
    facts: list[Any]
    """The facts table's parts, each in order: `_in_order` joins them and lets each go."""
    sizes: Any
    """The vm_sizes table."""
    members: list[tuple[str, str]]
    """(size, series) of each size whose series is known."""
    claims_table: Any
    """The claims table, or the process that makes it (`tables.ClaimsApart`)."""
    documents_table: Any
    """The documents table, which counts each document's claims."""
    labels: tuple[Label, ...]
    errata_reads: tuple[list[Claim], set[tuple[str, str]], set[tuple[str, str]]]
    """What the errata read of the claims (`errata.read_by_errata`), the facts of the series'
    sizes among those wanted."""
    per_document: Mapping[str, int]
    claims: tuple[Claim, ...]
    """Every claim, where the records are kept."""
    aliases: tuple[Alias, ...]
    unverified: Mapping[str, str]
    mentions: tuple[Mention, ...]
    prices: tuple[dict[str, Any], ...]
    diagnostics: tuple[Diagnostic, ...]
    """What the aliases step said."""
    key: str | None
    """A digest of all the steps after normalize read (`Normal.key`), under which the store keeps
    what the tables are made with (`Store.made`)."""


def make_tables(
    corpus: Corpus, decided: Decisions, store: Store, *, records: bool = True
) -> tuple[BuildResult, dict[str, Any]]:
    """tables: one DataFrame per table (`TABLE_ORDER`) from what the steps made, and the build's
    result. The facts' parts are joined last, the claims let go by then (without the `records`)."""
    rec, sizes, aliases = decided.rec, decided.sizes, decided.aliases
    retired = set(sizes.loc[(sizes["lifecycle"] == "retired").fillna(False).astype(bool), "size"].tolist())
    after = [
        *decided.diagnostics,
        *_not_built(decided.mentions, set(sizes["size"]) | {a.name for a in aliases}, decided.members),
    ]
    diagnostics = _sorted_diagnostics([*corpus.diagnostics, *after])
    store.made(decided.key, after, decided.per_document, decided.labels)
    erring, wanted, of_series = decided.errata_reads
    sizes_of: dict[str, list[str]] = defaultdict(list)
    for size, series in decided.members:
        sizes_of[series].append(size)
    wanted = wanted | {(size, attribute) for series, attribute in of_series for size in sizes_of.get(series, ())}
    result = BuildResult(
        documents=corpus.documents,
        claims=decided.claims,
        diagnostics=tuple(diagnostics),
        facts=rec.facts,
        conflicts=rec.conflicts if records else (),
        names=aliases if records else (),
        labels=decided.labels,
    )
    if not records:
        # The claims went with the steps that read them: a build that loaded most of them from
        # the memo held them in pages of their own, handed back here.
        give_back()
    made: dict[str, Any] = {"claims": decided.claims_table, "facts": _in_order(decided.facts, ["entity", "attribute"])}
    made["vm_sizes"] = sizes
    made["conflicts"] = _conflicts_frame(rec.conflicts, corpus.upstream)
    made["names"] = _names_frame(aliases, corpus.upstream)
    chosen = _chosen(made["facts"], wanted)
    wrong = find_errata(
        erring, rec.conflicts, rec.checks, chosen, diagnostics, corpus.sources, sizes_of, decided.unverified
    )
    made["errata"] = _errata_frame(wrong, corpus.sources, corpus.upstream)
    # A catalog's price of a size the documents retire is kept, marked, and is no current price.
    made["prices"] = _prices_frame(decided.prices, retired)
    made.update(_small_tables(decided.documents_table, diagnostics, decided.labels))
    frames = {name: made.pop(name) for name in TABLE_ORDER}
    return replace(result, tables=_rows_of(frames)), frames


def taken_tables(corpus: Corpus, taken: Decided) -> tuple[BuildResult, dict[str, Any]]:
    """The tables the steps after normalize make, taken whole from the output the build replaces
    (`reuse.Store.taken`: their files are in the staging folder), with those made here."""
    diagnostics = _sorted_diagnostics([*corpus.diagnostics, *taken.diagnostics])
    documents = documents_frame(corpus.listed, taken.claims_per_document, corpus.sources, corpus.upstream)
    small = _small_tables(documents, diagnostics, taken.labels)
    small.update((name, Taken(rows)) for name, (rows, _, _) in taken.tables.items())
    frames = {name: small.pop(name) for name in TABLE_ORDER}
    summary = BuildResult(documents=(), claims=(), diagnostics=tuple(diagnostics), labels=taken.labels)
    return replace(summary, tables=_rows_of(frames)), frames


TABLE_ORDER = (
    "documents",
    "claims",
    "vm_sizes",
    "names",
    "facts",
    "conflicts",
    "errata",
    "prices",
    "diagnostics",
    "calibration",
)
"""The tables in the order a build writes them."""


def _rows_of(frames: Mapping[str, Any]) -> dict[str, int]:
    """Each table's rows, for the result: a table made apart or taken says how many it has."""
    return {k: v.rows if isinstance(v, (ClaimsApart, Taken)) else len(v) for k, v in frames.items()}


def _sorted_diagnostics(diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    """Each diagnostic once, by document, line, code, message and severity: the whole record,
    so that the order never falls to how a set happens to iterate."""
    return sorted(set(diagnostics), key=lambda d: (d.document, d.line or 0, d.code, d.message, d.severity))


def _not_built(mentions: Sequence[Mention], built: set[str], series_of: Iterable[tuple[str, str]]) -> list[Diagnostic]:
    """A table row whose first cell names a size that is not a row of vm_sizes: said once per
    row, with why, so that no size is dropped in silence. A row that names a series where a
    size belongs says which sizes it most likely means; `series_of` are (size, its series)."""
    members: dict[str, list[str]] = defaultdict(list)
    for size, series in series_of:
        members[series_key(series)].append(size)
    out = []
    for m in mentions:
        key = series_key(m.written) if m.size is None else None
        if key and members.get(key):
            sizes = sorted(members[key])
            means = sizes[0] if len(sizes) == 1 else f"one of {', '.join(sizes)}"
            message = (
                f"{m.written!r} names the series {m.written.strip()} where a size name belongs; it most likely "
                f"means {means}; the row's values are not read"
            )
            out.append(Diagnostic("warning", "suspect_size_name", m.document, m.line, message))
            continue
        if m.size is None:
            message = (
                f"{m.written!r} does not follow the Azure size naming convention, so the row yields no size "
                "and its values are not read"
            )
        elif m.size not in built:
            what = (
                "a comparison table, whose other columns describe another size"
                if m.table == "comparison"
                else "a size table"
            )
            message = f"{m.written!r} ({m.size}) is named in {what}, and no document states a value for it"
        else:
            continue
        out.append(Diagnostic("warning", "size_not_built", m.document, m.line, message))
    return out


class ClaimsApart:
    """The claims table made, checked against its contract and written by a forked process, so
    that the build process never holds it: at 10,000 documents it is 171 MiB of Arrow, which the
    build's peak and every process forked after it (the report's, the memos' savers) counted.
    The process is forked once the claims are known, and waits for what only reconciling tells:
    the checks each claim fails (`decided`). It writes the table into the staging folder then,
    while the build makes the other tables (at 10,000 documents, one value changed, a core was
    idle there), not once the build writes them. The build keeps the rows the report shows,
    the claims some conflict cites (`shown`)."""

    def __init__(self, claims: Sequence[Claim], documents: Any, store: Store) -> None:
        import multiprocessing

        self.rows = len(claims)
        self.shown: Any = None
        orders, self._orders = multiprocessing.Pipe(duplex=False)
        self._stack = store.hold(contextlib.ExitStack())
        made = partial(_claims_apart, claims, documents, orders, self._orders, os.getpid())
        self._made = self._stack.enter_context(beside(made, what="claims table"))
        # Closed before the block waits for the answer: a process left without its orders (the
        # build failed first) then reads their end and stops.
        self._stack.callback(self._orders.close)
        orders.close()

    @classmethod
    def fork(cls, claims: Sequence[Claim], documents: Any, store: Store) -> ClaimsApart | None:
        """None when no process could be forked (`beside` then ran the work here, where it
        does nothing): the build makes the table itself. The process is waited for when the
        store closes, at the end of the build."""
        apart = cls(claims, documents, store)
        if apart._made.done:
            apart._stack.close()
            return None
        return apart

    def decided(
        self,
        claims: Sequence[Claim],
        checks: Mapping[str, tuple[str, ...]],
        cited: set[str],
        folder: Path,
        previous: Previous | None,
    ) -> None:
        """The checks each claim fails, to the process (which makes the table's last column),
        with the folder to write the table into and the output it replaces; the rows of the
        claims `cited`, kept here for the report."""
        self._orders.send(checks)
        self._orders.send((folder, previous))
        shown = [c for c in claims if c.claim_id in cited]
        self.shown = claims_frame(shown)
        self.shown["checks_failed"] = checks_column(shown, checks)

    def result(self) -> tuple[list[str], dict[str, str]]:
        """The claims table's broken promises, and the hashes of its files that `previous`
        knows (`Previous.take_csv`), once they are written."""
        self._stack.close()
        return self._made.result()

    def stop(self) -> None:
        """The process ended where it is, unanswered: the build failed, and its folder goes.
        (`beside`'s block ends with an error, which stops its process rather than wait.)"""
        failed = HelperDied("the build failed before the claims table was written")
        self._stack.__exit__(type(failed), failed, None)


def _claims_apart(
    claims: Sequence[Claim], documents: Any, orders: Connection, theirs: Connection, build: int
) -> tuple[list[str], dict[str, str]]:
    if os.getpid() == build:  # not forked: its orders would never come
        return [], {}
    from pipeline.outputs import contracts

    theirs.close()  # the build's end: only the build may hold it open
    table = claims_frame(claims)
    table["checks_failed"] = checks_column(claims, orders.recv())
    problems = contracts.validate({"documents": documents, "claims": table}, give_back, tables=("claims",))
    folder, previous = orders.recv()
    write_table(table, schema.CLAIMS, "claims", folder, consume=True, previous=previous)
    own = table_files("claims")
    for file in own:  # on disk before the build swaps the output in, which syncs them again
        sync_file(folder / file)
    # Only the claims table's files: the rest of its copy of the digests is the build's.
    return problems, {file: sha for file, sha in (previous.hashes if previous else {}).items() if file in own}
