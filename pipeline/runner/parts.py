"""The reconcile step (`reconcile`): the entities decided a few buckets at a time, in two processes,
the facts of each part joined in order, and the decisions of each bucket kept for the next build
(the reconcile memo, keyed by all a bucket reads: `_bucket_keys`) and taken from it."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any

from pipeline import knowledge
from pipeline.knowledge.registry import Source
from pipeline.records import Claim, Conflict, Fact, Mention, Reconciled
from pipeline.runner.bucketing import buckets, divide, forget, let_go, rates_read, reads
from pipeline.runner.cache import Memo, code_fingerprint, digest
from pipeline.runner.documents import Corpus
from pipeline.runner.frames import _in_order, _one_array, _Packed
from pipeline.runner.naming import Named
from pipeline.runner.normalizing import Normal
from pipeline.runner.pool import beside
from pipeline.runner.reuse import Store
from pipeline.runner.settings import Settings
from pipeline.runner.tables import (
    ClaimsApart,
    Decisions,
    SizeRowInputs,
    checks_column,
    claims_frame,
    documents_frame,
    facts_frame,
    sizes_frame,
    vm_size_rows,
)
from pipeline.stages.calibrate import Label
from pipeline.stages.calibrate import labels as calibrate_labels
from pipeline.stages.errata import read_by_errata
from pipeline.stages.reconcile import Failure, Plan, decide, finish, last_checks, merge, plan
from pipeline.stages.reconcile import reconcile as whole_reconcile

DECIDE_SHARE = 0.53
"""The share of the entities' work (`divide`) the build process keeps when a forked one decides
the rest: the forked one also pickles its facts and sizes for the trip back. At 10,000
documents, with halves the build waited 1.57-1.75 s for the other's answer (three cold builds),
with 0.53 0.36-0.40 s, which is the answer's trip; reconcile took 12.63 s, now 12.02 s (means of
three)."""
CLAIMS_TABLE_WORK = 0.08
"""What making the claims table costs, as a share of deciding every entity (their claims and
inherited votes, `divide`): a build that keeps its records makes it while a forked process
decides the other part, so its own part is smaller by it: 49% of the deciding (`DECIDE_SHARE` of
it and the table). A build that keeps none has it made by a process of its own (`ClaimsApart`)."""
RECONCILE_BUCKETS = 32
"""Buckets of entities whose decisions a build keeps for the next (`bucketing.buckets`): an edit
decides again the few whose inputs it changed, and the rows of the others are loaded."""
BUCKETS_AT_ONCE = 4
"""Buckets a process decides and finishes at a time (`_decide_part`),
letting go of their votes and facts before the next: at 10,000 documents the process deciding
half of the entities (before `DECIDE_SHARE`) peaked at 1,070 MiB where it took 1,237 MiB
deciding them at once, for about 0.4 s more of reconcile (one bucket at a time: 1,048 MiB, 1.2 s
more)."""


def _bucket_keys(
    p: Plan,
    bucket_of: Mapping[str, int],
    stated: Mapping[str, Mapping[str, str]],
    moved: Sequence[tuple[str, str]],
    sources: Mapping[str, Source],
    prices: Sequence[Mapping[str, Any]],
    mentions: Sequence[Mention] = (),
) -> dict[int, str]:
    """Each bucket's key: a digest of all that deciding and finishing its entities reads
    (`bucketing.reads`), their prices, the comparison tables that name them (their rows of
    vm_sizes count those documents), the rule-made claims about them, and the claims the
    documents that state them state about them. Those are given by their digests in the
    normalize memo (`stated`, by the entity each names), with which names the aliases move
    their claims to which size (`moved`): hashing every claim in every build cost more than
    deciding what changed, and a whole document's key would decide again every entity it
    states after an edit of one of them."""
    shared, series, own = reads(p)
    into = dict(moved)
    cited: dict[str, set[str]] = defaultdict(set)
    # A document the memo did not key (none did without a cache) stands for itself by its claims.
    unkeyed: dict[tuple[str, str], list[Claim]] = defaultdict(list)
    for c in p.claims:
        cited[c.entity].add(c.document)
        if c.document not in stated:
            unkeyed[c.document, c.entity].append(c)
    made: dict[str, list[Claim]] = defaultdict(list)
    for c in p.name_claims:
        made[c.entity].append(c)
    priced: dict[str, list[object]] = defaultdict(list)
    for row in prices:
        priced[row["size"]].append(row)
    for m in mentions:
        if m.size:
            priced[m.size].append(m)
    citing = {d for docs in cited.values() for d in docs}
    about: dict[tuple[str, str], list[tuple[str, str]]] = defaultdict(list)
    for d in citing & stated.keys():
        for named, said in sorted(stated[d].items()):
            about[d, into.get(named, named)].append((named, said))
    of_source = {d: digest(sources.get(d)) for d in citing}

    def said_of(d: str, entity: str) -> object:
        if d not in stated:
            return unkeyed[d, entity]
        # A claim no alias moved under a name an alias moves (not a size's): the whole document.
        return about.get((d, entity)) or sorted(stated[d].items())

    def read_of(entity: str) -> list[tuple[str, object, str]]:
        return [(d, said_of(d, entity), of_source[d]) for d in sorted(cited.get(entity, ()))]

    # The series' claims by their documents' digests, like an entity's: pickling the 132,000
    # claims of 10,000 documents' series for every build cost 0.3 s.
    # Which names stand for which sizes; not why (the words of its evidence move with any value).
    base = digest(code_fingerprint(), shared, moved, [(s, read_of(s), made.get(s, [])) for s in series])
    inputs: dict[int, list[object]] = defaultdict(list)
    for entity in sorted(bucket_of):
        inputs[bucket_of[entity]].append((own[entity], read_of(entity), made.get(entity, []), priced.get(entity, [])))
    return {b: digest(base, bucket) for b, bucket in inputs.items()}


def _still_holds(kept: _Part, rules: Mapping[tuple[str, str], float]) -> bool:
    """Whether a bucket's kept decisions hold in this build: its key matched, and every rate of
    the rules' agreement that its confidences read is the same."""
    return isinstance(kept.facts, _Packed) and all(
        rules.get(rule, 0.0) == rate for read in kept.rates.values() for rule, rate in read
    )


def _by_bucket(
    parts: Sequence[_Part], bucket_of: Mapping[str, int], decided: Iterable[int]
) -> Iterator[tuple[int, _Part]]:
    """The parts' rows regrouped by bucket, one for each bucket `decided` (an empty one too: it
    is kept as decided, not as missing), its facts packed (`_Packed`) one bucket at a time. A
    claim checked for keys of a bucket keeps the checks of its last one there, as `merge`
    keeps the last of all the buckets."""
    import numpy as np
    import pandas as pd

    rows_of: list[tuple[Any, Any]] = []
    sizes_of: list[tuple[Any, Any]] = []
    conflicts: dict[int, list[Conflict]] = defaultdict(list)
    failures: dict[int, list[Failure]] = defaultdict(list)
    members: dict[int, list[tuple[str, str]]] = defaultdict(list)
    rates: dict[int, dict[str, tuple[tuple[tuple[str, str], float], ...]]] = defaultdict(dict)
    for part in parts:
        for entity, read in part.rates.items():
            rates[bucket_of[entity]][entity] = read
        rec = part.rec
        rows_of.append((part.facts, _buckets_of_rows(part.facts["entity"], bucket_of)))
        sizes_of.append((part.sizes, _buckets_of_rows(part.sizes["size"], bucket_of)))
        for c in rec.conflicts:
            conflicts[bucket_of[c.entity]].append(c)
        # Each bucket keeps the checks of its own last key for a claim: a series' claim is
        # checked for sizes in several buckets, and any of them may be decided again alone.
        for failure in part.failures:
            failures[bucket_of[failure[1][1][0]]].append(failure)
        for size, series in part.members:
            members[bucket_of[size]].append((size, series))
    for b in sorted(set(decided)):
        facts = pd.concat([rows.take(np.flatnonzero(of_row == b)) for rows, of_row in rows_of], ignore_index=True)
        sizes = pd.concat([rows.take(np.flatnonzero(of_row == b)) for rows, of_row in sizes_of], ignore_index=True)
        yield (
            b,
            _Part(
                Reconciled((), tuple(conflicts[b]), (), *last_checks(failures[b])),
                _Packed.of(facts),
                sizes,
                members[b],
                rates[b],
            ),
        )


def _buckets_of_rows(names: Any, bucket_of: Mapping[str, int]) -> Any:
    """The bucket of each row whose entity `names` (a column) gives, as a numpy array: each
    distinct name looked up once, since the facts hold an entity's name for each attribute."""
    import numpy as np
    import pyarrow.compute as pc

    column = _one_array(names.array)
    encoded = pc.dictionary_encode(column)
    of_name = np.array([bucket_of[name] for name in encoded.dictionary.to_pylist()], dtype=np.int64)
    return of_name[encoded.indices.to_numpy(zero_copy_only=False)]


@dataclass(frozen=True, slots=True)
class _Part:
    """What a part of the entities (`divide`) gives the tables, made where it was decided."""

    rec: Reconciled
    """Its facts only when the caller keeps the records: else they are in `facts`."""
    facts: Any
    """The rows of the facts table, as a DataFrame, or a kept bucket's `_Packed` columns."""
    sizes: Any
    """Its rows of vm_sizes, as a DataFrame in size order: as Python dicts, the rows of both
    parts were held at once in the build process (20 MB more at 10,000 documents)."""
    members: list[tuple[str, str]]
    """(size, series) for each size whose series is known (`tables._not_built`)."""
    rates: Mapping[str, tuple[tuple[tuple[str, str], float], ...]] = field(default_factory=dict)
    """The rules' agreement its entities' confidences read (`bucketing.rates_read`), when kept."""
    failures: Sequence[Failure] = ()
    """Every check its keys failed (`Decided.failures`), when kept: split by bucket."""


def _chunks(bucket_of: Mapping[str, int], entities: frozenset[str] | None) -> list[frozenset[str]]:
    """The entities (every one, without `entities`) by runs of `BUCKETS_AT_ONCE` buckets, in
    the buckets' order."""
    of: dict[int, set[str]] = defaultdict(set)
    for entity in bucket_of if entities is None else entities:
        of[bucket_of[entity] // BUCKETS_AT_ONCE].add(entity)
    return [frozenset(of[b]) for b in sorted(of)]


def _series_members(facts: Iterable[Fact]) -> list[tuple[str, str]]:
    return [
        (f.entity, f.value_text) for f in facts if f.entity_kind == "size" and f.attribute == "series" and f.value_text
    ]


# ------------------------------------------------------------------------------ the step


def reconcile(
    named: Named,
    normal: Normal,
    corpus: Corpus,
    settings: Settings,
    store: Store,
    *,
    records: bool = True,
    stage: Path | None = None,
) -> Decisions:
    """reconcile: one fact per entity and attribute, decided a few buckets of entities at a time
    (`_decide_part`), part of them in a second process (`divide`); a bucket whose inputs did not
    change since the last build is taken from the store's memo. Where the records are not kept
    and the build has a folder to write to, the claims table is made, checked and written by a
    process of its own (`tables.ClaimsApart`)."""
    claims, sources = named.claims, corpus.sources
    split = settings.splits(len(corpus.listed))
    per_document = Counter(c.document for c in claims)
    documents_table = documents_frame(corpus.listed, per_document, sources, corpus.upstream)
    decisions = None if records else store.memo("reconcile")
    # Forked before the plan is made here: making the table fills what making the plan leaves of
    # the second core.
    apart = ClaimsApart.fork(claims, documents_table, store) if split and stage and not records else None
    planned = plan(
        named.resolved,
        sources,
        knowledge.load(),
        settings.stale_after_days,
        unverified=named.unverified,
        names=named.names,
        siblings=named.siblings,
        patterns=named.patterns,
    )
    bucket_of = buckets(planned, RECONCILE_BUCKETS)
    moved = sorted((a.name, a.size) for a in named.aliases)
    key_all = partial(_bucket_keys, planned, bucket_of, normal.stated, moved, sources, normal.prices, named.mentions)
    kept: dict[int, _Part] = {}
    keys: dict[int, str] = {}
    if decisions is not None and decisions.stored():  # with nothing kept, keyed where the memo is saved
        keys = key_all()
        hits = {b: hit for b, key in keys.items() if isinstance(hit := decisions.get(key), _Part)}
        kept = {b: hit for b, hit in hits.items() if _still_holds(hit, planned.rules)}
        # A bucket whose rates moved is decided again: a miss, though its key matched.
        decisions.hits -= len(hits) - len(kept)
        decisions.misses += len(hits) - len(kept)
    todo = frozenset(e for e, b in bucket_of.items() if b not in kept) if kept else None
    rows = _Rows(SizeRowInputs.of(claims, normal.prices, named.mentions), sources, decisions is not None, records)
    claims_table: Any = apart
    # The entities are decided in two parts, the second on the second core, each with the
    # facts' rows and the vm_sizes rows of its entities: the facts are made in the process that
    # decided them and only their table travels. That table waits in the pipe until this
    # process has decided its part and let go of the plan: read as it came, it was held beside
    # the votes of this part.
    if split and (todo is None or len(todo) * 8 >= len(planned.kinds)):
        shares = (DECIDE_SHARE, 1 - DECIDE_SHARE)
        mine, theirs = divide(planned, shares, todo, besides=0.0 if apart else CLAIMS_TABLE_WORK)
        other_part = partial(_decide_part, planned, bucket_of, rows, theirs)
        with beside(other_part, parallel=True, what="deciding the other part of the entities") as other:
            ours = _decide_part(planned, bucket_of, rows, mine)
            claims_table = apart or claims_frame(claims)
            let_go(planned)  # before the other part's answer is read
        parts = [ours, other.result()]
        del ours, other
    else:  # a small build, or a few buckets to decide again
        parts = [_decide_part(planned, bucket_of, rows, todo)] if todo is None or todo else []
        let_go(planned)
        claims_table = apart or claims_frame(claims)
    if decisions is not None:
        _keep_decisions(store, decisions, parts, bucket_of, todo, keys, key_all)
        parts.extend(kept.values())  # their facts still packed, unpacked a column at a time
    rec = merge(planned, [x.rec for x in parts])
    if apart is not None:
        assert stage is not None, "a claims table is made apart only where it has a folder to go to"
        apart.decided(claims, rec.checks, {i for c in rec.conflicts for i in c.claims}, stage, store.previous)
    else:
        claims_table["checks_failed"] = checks_column(claims, rec.checks)
    before = (*corpus.diagnostics, *named.diagnostics)
    return Decisions(
        rec=rec,
        facts=[x.facts for x in parts],
        sizes=_in_order([x.sizes for x in parts], ["size"]) if parts else sizes_frame([]),
        members=sorted(m for x in parts for m in x.members),
        claims_table=claims_table,
        documents_table=documents_table,
        labels=tuple(_calibration_labels(named.resolved, rec, sources, settings.stale_after_days)),
        errata_reads=read_by_errata(claims, rec.conflicts, rec.checks, before),
        per_document=per_document,
        claims=claims if records else (),
        aliases=named.aliases,
        unverified=named.unverified,
        mentions=named.mentions,
        prices=normal.prices,
        diagnostics=named.diagnostics,
        key=normal.key,
    )


@dataclass(frozen=True, slots=True)
class _Rows:
    """How a part's rows are made: each size's row reads `named`; `kept` says whether each
    bucket's decisions are kept (the rates and checks they read are then gathered); `records`
    whether the facts' records are kept beside their table."""

    named: SizeRowInputs
    sources: Mapping[str, Source]
    kept: bool
    records: bool


def _decide_part(p: Plan, bucket_of: Mapping[str, int], rows: _Rows, entities: frozenset[str] | None) -> _Part:
    """The entities decided and finished a few buckets at a time (`_chunks`), their votes and
    facts let go once their rows are made: the objects of a few buckets are held at once, not
    those of all."""
    recs: list[Reconciled] = []
    frames: list[Any] = []
    sizes: list[Any] = []
    members: list[tuple[str, str]] = []
    rates: dict[str, tuple[tuple[tuple[str, str], float], ...]] = {}
    failures: list[Failure] = []
    for chunk in _chunks(bucket_of, entities):
        decided = decide(p, chunk)
        rec = finish(p, decided, chunk)
        forget(p, decided, chunk)
        recs.append(rec if rows.records else replace(rec, facts=()))
        frames.append(facts_frame(rec.facts))
        sizes.append(sizes_frame(vm_size_rows(rec, rows.named, rows.sources)))
        members += _series_members(rec.facts)
        if rows.kept:
            rates.update(rates_read(p, rec.facts))
            failures += decided.failures
        del decided, rec
    facts = _in_order(frames, ["entity", "attribute"]) if frames else facts_frame(())
    return _Part(
        replace(merge(p, recs), name_claims=()),
        facts,
        _in_order(sizes, ["size"]) if sizes else sizes_frame([]),
        members,
        rates,
        failures,
    )


def _keep_decisions(
    store: Store,
    memo: Memo,
    parts: list[_Part],
    bucket_of: Mapping[str, int],
    todo: frozenset[str] | None,
    keys: dict[int, str],
    key_all: Callable[[], dict[int, str]],
) -> None:
    """Each bucket decided here kept in `memo` for the next build, under its key: the parts are
    regrouped by bucket, and the keys made (when the memo gave none), where the memo is saved."""
    decided = set(bucket_of.values()) if todo is None else {bucket_of[e] for e in todo}
    # What the memo's process reads, let go here once it has its copy: the plan and the parts
    # are large.
    held = [(list(parts), keys, key_all)]

    def fill() -> None:
        fresh, made, make = held.pop()
        made = made or make()
        for b, piece in _by_bucket(fresh, bucket_of, decided):
            memo.put(made[b], piece)

    store.keep(memo, fill)
    held.clear()


def _calibration_labels(
    claims: Sequence[Claim], rec: Reconciled, sources: Mapping[str, Source], stale_after_days: int
) -> list[Label]:
    """The docs-against-API labels: the documents' claims reconciled without the API catalogs,
    set against the newest snapshot's values that pass the physical checks of the whole build."""
    catalog = [c for c in claims if sources[c.document].kind == "api_catalog"]
    if not catalog:
        return []
    docs = whole_reconcile(
        [c for c in claims if sources[c.document].kind != "api_catalog"], sources, knowledge.load(), stale_after_days
    )
    official = {c.entity for c in claims if sources[c.document].kind == "official_spec"}
    snapshot = {d: s.snapshot or 0 for d, s in sources.items() if s.kind == "api_catalog"}
    failing = {claim for claim, failed in rec.checks.items() if failed}
    sizes = [f for f in docs.facts if f.entity_kind == "size"]
    return calibrate_labels(sizes, catalog, snapshot, official, failing)
