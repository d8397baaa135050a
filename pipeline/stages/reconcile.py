"""Stage 4: one value per (entity, attribute), with a confidence and a reason.

Evidence comes from documents (fixed authority tiers, newer over older within a tier),
from the size names themselves (the naming convention, a separate weaker voice) and from
the series a size belongs to (inherited unless the size or its name says otherwise). Physical
checks (count x per-GPU = total, a GPU model's memory sizes, vCPUs in the name) lower the weight
of the claims that fail them. Entities no official document names, and the sizes only a
superseded version of a page lists (`pipeline.stages.aliases`), are kept apart: unverified, and
given nothing of their series. Every fact says what its value rests on (`Fact.basis`).
"""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
from collections import Counter, defaultdict
from collections.abc import Container, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from operator import itemgetter
from typing import Any

from pipeline import knowledge
from pipeline.knowledge import GpuModel, Knowledge
from pipeline.knowledge.names import SizeName, member_of, parse_size, series_parts
from pipeline.knowledge.registry import AUTHORITATIVE, Source, Tier, tiers
from pipeline.knowledge.values import close, format_number, same_value, twin_values
from pipeline.records import Claim, Conflict, Diagnostic, Evidence, Fact, Mention, Reconciled, twin_of, values_of
from pipeline.stages.calibrate import Model, log_odds
from pipeline.stages.calibrate import model as calibration
from pipeline.stages.patterns import Patterns, series_patterns

NAME_CONVENTION = "name_convention"
SIBLING = "sibling"
SIBLING_PAIRS = 3
"""Sibling pairs that must state an attribute before their agreement on it is learned."""
SIBLING_AGREEMENT = 0.95
"""Share of those pairs that must state the same value for a sibling's value to be evidence."""
CHECK_PENALTY = 0.5
INHERIT_FACTOR = 0.95


@dataclass(slots=True)
class _Vote:
    """A claim as evidence: its weight after checks, and what the checks said. `voice` is who
    speaks: the document, the document it copies, or the naming convention."""

    claim: Claim
    source_kind: str
    weight: float
    as_of: dt.date | None
    failed: list[str] = field(default_factory=list)
    inherited_from: str | None = None
    voice: str = ""
    shared: bool = False
    """An inherited vote every size of its series holds (`_inherit`): a check that fails it
    marks a copy of its own key's (`_check`), never the vote the other sizes hold."""


@dataclass(slots=True)
class _Group:
    """Claims that state the same value (within tolerance, or as a GB/GiB twin). Its best vote
    and its voices are found once the grouping is done (`_group`): ranking the groups and
    deciding read them several times."""

    votes: list[_Vote]
    twin: bool = False
    best: _Vote = field(init=False)
    voices: set[str] = field(init=False)

    def settle(self) -> None:
        self.best = max(self.votes, key=_vote_key)
        self.voices = {_voice(v) for v in self.votes}


def _voice(v: _Vote) -> str:
    return v.source_kind if v.source_kind in (NAME_CONVENTION, SIBLING) else (v.voice or v.claim.document)


def _vote_key(v: _Vote) -> tuple[float, int, str]:
    return (v.weight, v.as_of.toordinal() if v.as_of else 0, v.claim.claim_id)


@dataclass(slots=True)
class Plan:
    """What deciding reads, built once from all the claims (`plan`): the votes every part reads
    (a series' values), the other entities' claims, and the knowledge the checks use. A key's
    checks read only facts of its own entity and the votes of its series. `decide` takes the
    claims of the entities it decides (`_admit`: a size's series is decided there) and adds
    the votes of their keys: a plan decides an entity once."""

    claims: Sequence[Claim]
    sources: Mapping[str, Source]
    know: Knowledge
    tier: Mapping[str, Tier]
    model: Model
    stale_after_days: int
    follows: Mapping[str, bool]
    name_claims: list[Claim]
    rules: Mapping[tuple[str, str], float]
    unverified: Mapping[str, str]
    """The sizes an official page names that are not current (`pipeline.stages.aliases.superseded`), each with why."""
    patterns: Patterns
    """The values their series' patterns say are slips (`pipeline.stages.patterns`)."""
    official: set[str]
    by_key: dict[tuple[str, str], list[_Vote]]
    """The votes of the keys every part reads (a series' values), from `plan`; `decide` adds
    those of the keys it decides (a size's series among them). `finish` dates a fact by its
    key's votes: the runner lets them go after it (`pipeline.runner.bucketing.forget`)."""
    kinds: dict[str, str]
    facts: dict[tuple[str, str], Fact]
    """The facts `decide` made; `finish` completes each in place (`_finished`). None is hashed or
    held elsewhere before then: a frozen record's hash would change with its fields."""
    series_conflicts: list[Conflict]
    rest: dict[str, list[Claim]]
    """For each entity taken from `pending`, in the claims' order, the claims (the name's among
    them) of its keys but its series, which `decide` turns into votes."""
    pending: dict[str, list[Claim]]
    """For each entity that is not a series, its claims (the name's among them) in the claims'
    order, until a part that decides it takes them (`_admit`): voting on every size's series in
    `plan` took a build that decides a few buckets again 0.4-0.6 s (10,000 documents)."""
    inheritable: dict[str, list[_Vote]]
    """For each series, the votes its sizes inherit, made when a size first needs them
    (`_inheritable`)."""
    series_keys: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    """Each series' keys but its membership: `decide` decides them with the series."""
    about: dict[str, list[Claim]] = field(default_factory=dict)
    """Each entity's claims: what `finish` reads of the claims for a few entities (`_about`),
    made when first needed."""


def plan(
    claims: Sequence[Claim],
    sources: Mapping[str, Source],
    know: Knowledge | None = None,
    stale_after_days: int = 730,
    *,
    calibration_model: Model | None = None,
    unverified: Mapping[str, str] | None = None,
    names: NameRules | None = None,
    siblings: Siblings | None = None,
    patterns: Patterns | None = None,
) -> Plan:
    """The shared part of deciding: the rule-made claims (the size names, sibling sizes) and the
    votes every part reads (a series' values); `decide` makes the votes of the other keys, a
    size's series first (`_admit`). `names` and `siblings`, when given, are what `name_rules` and
    `sibling_claims` give of the same claims: each reads all of them and neither needs the other,
    so a caller with a second core may make them side by side."""
    know = know or knowledge.load()
    tier = tiers()
    names = names if names is not None else name_rules(claims, sources, know)
    siblings = siblings if siblings is not None else sibling_claims(claims, sources, know)
    patterns = patterns if patterns is not None else series_patterns(claims, sources, know)
    name_claims = rule_made(names, siblings)
    unverified = unverified or {}
    kinds, official = entities_of(claims, sources, name_claims, unverified)
    model = calibration_model or calibration()
    rules = rule_agreement(claims, name_claims, sources) | siblings[1]
    by_key: dict[tuple[str, str], list[_Vote]] = defaultdict(list)
    pending: dict[str, list[Claim]] = defaultdict(list)
    for c in [*claims, *name_claims]:
        if c.entity_kind == "series":
            by_key[(c.entity, c.attribute)].append(_vote(c, sources, tier))
        else:
            pending[c.entity].append(c)
    p = Plan(
        claims=claims,
        sources=sources,
        know=know,
        tier=tier,
        model=model,
        stale_after_days=stale_after_days,
        follows=names.follows,
        name_claims=name_claims,
        rules=rules,
        unverified=unverified,
        patterns=patterns,
        official=official,
        by_key=by_key,
        kinds=kinds,
        facts={},
        series_conflicts=[],
        rest=defaultdict(list),
        pending=pending,
        inheritable={},
        series_keys=_series_keys(by_key, kinds),
    )
    _membership(p, [key for key in by_key if key[1] == "series"])
    return p


def entities_of(
    claims: Sequence[Claim], sources: Mapping[str, Source], name_claims: Sequence[Claim], unverified: Mapping[str, str]
) -> tuple[dict[str, str], set[str]]:
    """Each entity of `claims` and of the claims the rules make (`rule_made`) with its kind, and
    the entities an official page names (a size `unverified` names, one no current page lists,
    never is): what a plan holds of them (`Plan.kinds`, `Plan.official`), and what the runner
    reads of them to make its buckets before the plan is made (`pipeline.runner.bucketing.shape`)."""
    documents = _official(sources)
    official = {c.entity for c in claims if c.document in documents} - set(unverified)
    kinds: dict[str, str] = {c.entity: c.entity_kind for c in (*claims, *name_claims)}
    return kinds, official


def _admit(p: Plan, entities: Container[str] | None) -> None:
    """The claims `plan` left pending of `entities` (every entity's, without) into the plan:
    each one's series voted on and decided (inheritance needs to know which series a size is
    in), its other claims for `decide` (`rest`). A range says nothing of one size."""
    names = sorted(e for e in p.pending if entities is None or e in entities)
    keys: dict[tuple[str, str], None] = {}
    for entity in names:
        for c in p.pending.pop(entity):
            if c.is_range:
                continue
            if c.attribute == "series":
                p.by_key[(entity, "series")].append(_vote(c, p.sources, p.tier))
                keys[(entity, "series")] = None
            else:
                p.rest[entity].append(c)
    _membership(p, keys)


def _membership(p: Plan, keys: Iterable[tuple[str, str]]) -> None:
    """Decide the series keys `keys` into `p.facts`, their conflict rows into `p.series_conflicts`."""
    for key in sorted(keys):
        fact, rows = _decide(key, p.kinds[key[0]], p.by_key[key], p.official, p.tier, p.know, p.facts)
        p.facts[key] = fact
        p.series_conflicts.extend(rows)


def _series_keys(by_key: Iterable[tuple[str, str]], kinds: Mapping[str, str]) -> dict[str, list[tuple[str, str]]]:
    keys: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for entity, attribute in by_key:
        if attribute != "series" and kinds[entity] == "series":
            keys[entity].append((entity, attribute))
    return keys


_ORDER = {"vcpus": 0, "gpu_model": 0, "gpu_count": 1, "gpu_memory_total_gib": 2, "gpu_memory_gib": 3}
"""Models first, then counts, then memory: the count check reads the model, the memory checks
read both; the rest between."""


def _decide_order(key: tuple[str, str]) -> tuple[int, tuple[str, str]]:
    """Where a key is decided: `decide` takes its keys in this order."""
    return (_ORDER.get(key[1], 1), key)


def _votes(p: Plan, entities: Container[str] | None) -> list[tuple[str, str]]:
    """The votes of the keys of `entities` (every entity's, without), the series' values among
    them where a size inherits them (`_inherit`), into `p.by_key`; the keys, in an order that
    decides each key after those of its entity that its checks read (`_ORDER`). Keys of one rank
    are in the order the claims give them, an entity's together: sorting the 646,389 keys of
    10,000 documents took up to 2.6 s."""
    mine: dict[tuple[str, str], None] = {}
    for entity, claims in p.rest.items():
        if entities is None or entity in entities:
            for c in claims:
                key = (entity, c.attribute)
                p.by_key[key].append(_vote(c, p.sources, p.tier))
                mine[key] = None
    mine.update(dict.fromkeys(_inherit(p, entities)))
    # A series' own values (its membership aside, decided in `plan`) are decided with its part.
    for series, keys in p.series_keys.items():
        if entities is None or series in entities:
            mine.update(dict.fromkeys(keys))
    ranks: list[list[tuple[str, str]]] = [[] for _ in range(max(_ORDER.values()) + 1)]
    for key in mine:
        ranks[_decide_order(key)[0]].append(key)
    return [key for rank in ranks for key in rank]


@dataclass(frozen=True, slots=True)
class Decided:
    """What `decide` found beside the facts it put in the plan: the conflict rows (the series'
    first), the strongest losing claim of each disputed key, and every check a claim failed
    with the place in the decide order of the key it was found for (`last_checks`)."""

    conflicts: list[Conflict]
    rivals: dict[tuple[str, str], Claim]
    failures: list[Failure]
    """Every check found, not only the last key's: a claim inherited by sizes of several
    buckets is checked in each (the runner's buckets, `pipeline.runner.bucketing`)."""
    keys: list[tuple[str, str]] = field(default_factory=list)
    """The keys decided, in order (the runner's `forget` lets them go)."""


Failure = tuple[str, tuple[int, tuple[str, str]], tuple[str, ...]]
"""A claim, the place in the decide order of the key it was checked for, the checks it failed."""


def last_checks(
    failures: Iterable[Failure],
) -> tuple[dict[str, tuple[str, ...]], dict[str, tuple[int, tuple[str, str]]]]:
    """Each claim's checks from the last key in the decide order that failed it, and that
    key's place (`Reconciled.checks`, `Reconciled.checked_at`): an inherited claim is checked
    for each size, and the last key's checks are the claim's in whatever order, or parts and
    buckets, they were found."""
    checks: dict[str, tuple[str, ...]] = {}
    checked_at: dict[str, tuple[int, tuple[str, str]]] = {}
    for claim, at, failed in failures:
        if claim not in checked_at or at > checked_at[claim]:
            checks[claim], checked_at[claim] = failed, at
    return checks, checked_at


def decide(p: Plan, entities: Container[str] | None = None) -> Decided:
    """Check and decide every key (only those of `entities`, when given) into `p.facts`, rank
    by rank (`_votes`). A key's checks read only facts of its own entity, decided before it (a
    count after the model, its series first, `_admit`), and the votes of its series (from `plan`)."""
    _admit(p, entities)
    facts, by_key, know, official, tier = p.facts, p.by_key, p.know, p.official, p.tier
    conflicts = [c for c in p.series_conflicts if entities is None or c.entity in entities]
    rivals: dict[tuple[str, str], Claim] = {}
    failures: list[Failure] = []
    keys = _votes(p, entities)
    follows, kinds = p.follows, p.kinds
    for key in keys:
        votes = by_key[key]
        _check(key, votes, facts, by_key, know, follows.get(key[0], True), p.patterns)
        fact, rows = _decide(key, kinds[key[0]], votes, official, tier, know, facts)
        facts[key] = fact
        if rows:
            conflicts.extend(rows)
            losing = next(r for r in rows if not r.won)
            rivals[key] = next(v.claim for v in votes if v.claim.claim_id in losing.claims)
        for v in votes:  # a loop, not a generator for each of the keys, nearly all without failures
            if v.failed:
                failures.append((v.claim.claim_id, _decide_order(key), tuple(v.failed)))
    return Decided(conflicts, rivals, failures, keys)


def reconcile(
    claims: Sequence[Claim],
    sources: Mapping[str, Source],
    know: Knowledge | None = None,
    stale_after_days: int = 730,
    *,
    calibration_model: Model | None = None,
    unverified: Mapping[str, str] | None = None,
) -> Reconciled:
    """Facts and conflicts for every entity the claims mention.

    A fact whose newest support is more than `stale_after_days` older than the newest
    document about the same entity is flagged stale: a newer page says nothing about it.
    `unverified` are the sizes no current page lists (`pipeline.stages.aliases.superseded`), each
    with why: unverified whoever names them, and given nothing of their series.
    In three steps: `plan` (the shared votes, the series decided), `decide` (every other key's
    votes, checked and decided), `finish` (staleness, reasons, confidences); `merge` joins parts
    of the entities decided and finished apart (the runner divides them: `pipeline.runner.bucketing`).
    """
    p = plan(claims, sources, know, stale_after_days, calibration_model=calibration_model, unverified=unverified)
    return finish(p, decide(p))


def finish(p: Plan, decided: Decided, entities: Container[str] | None = None) -> Reconciled:
    """The facts and conflicts once every key (of `entities`, when given, as `decide`
    was given them) is decided. The facts are the plan's own, completed in place (`Plan.facts`):
    finish what `decide` decided once. A fact is as old as the newest dated claim it rests on;
    a rule-made claim (the naming convention, a sibling) has no date, as its vote has none."""
    claims, sources, facts, unverified = p.claims, p.sources, p.facts, p.unverified
    conflicts, rivals = decided.conflicts, decided.rivals

    def ours(entity: str) -> bool:
        return entities is None or entity in entities

    ordered = sorted(key for key in facts if ours(key[0]))
    newest_doc: dict[str, tuple[dt.date, str]] = {}
    for c in claims if entities is None else _about(p, {key[0] for key in ordered}):
        # A list that only names the size (a comparison table's row) describes none of its values.
        when = sources[c.document].as_of if c.method != "mention" else None
        if when and ours(c.entity) and (c.entity not in newest_doc or (when, c.document) > newest_doc[c.entity]):
            newest_doc[c.entity] = (when, c.document)
    # Only the attributes a resolved fact's rival is of are looked up (`_sibling_match`).
    disputed = {attribute for _, attribute in rivals}
    siblings = _sibling_index((key for key in ordered if key[1] in disputed), facts)
    final = []
    confidences: dict[tuple[object, ...], tuple[Evidence, float]] = {}  # few distinct among many facts
    for key in ordered:
        fact = facts[key]
        reason = fact.reason
        if fact.status == "unverified" and key[0] in unverified:
            reason = f"not current: {unverified[key[0]]}; " + reason.split("; ", 1)[-1]
        if fact.status == "resolved" and key in rivals:
            sibling = _sibling_match(key[0], key[1], rivals[key], siblings, facts)
            if sibling:
                reason += f" matches {sibling}"
        # The newest date of the claims the fact rests on, its vote's for most facts (one claim).
        held = fact.supporting
        support = (
            fact.as_of
            if len(held) == 1
            else max((v.as_of for v in p.by_key.get(key, ()) if v.as_of and v.claim.claim_id in held), default=None)
        )
        latest = newest_doc.get(key[0]) if support else None
        stale = bool(support and latest and (latest[0] - support).days > p.stale_after_days)
        if stale and latest and support:
            reason += (
                f"; stale: its newest support ({support.isoformat()}) is {(latest[0] - support).days} days "
                f"older than {latest[1]} ({latest[0].isoformat()})"
            )
        final.append(_finished(fact, reason[:1].upper() + reason[1:] + ".", stale, p.model, p.rules, confidences))
    conflicts.sort(key=_conflict_order)
    name_claims = tuple(p.name_claims) if entities is None else ()  # a part's are added by `merge`
    return Reconciled(tuple(final), tuple(conflicts), name_claims, *last_checks(decided.failures))


def _about(p: Plan, entities: Iterable[str]) -> list[Claim]:
    """The claims about `entities` (`Plan.about`): a part of a few entities does not go through
    all the claims (at 10,000 documents, 519,067 of them) each time."""
    if not p.about:
        for c in p.claims:
            p.about.setdefault(c.entity, []).append(c)
    return [c for entity in entities for c in p.about.get(entity, ())]


def _conflict_order(c: Conflict) -> tuple[str, str, bool, str]:
    return (c.entity, c.attribute, not c.won, c.value)


def merge(p: Plan, parts: Sequence[Reconciled]) -> Reconciled:
    """Parts of `p` finished apart (the runner's `divide`) as one: each sequence in the order `finish` gives
    it, and a claim checked in two parts with the checks of the later key."""
    checks, checked_at = last_checks(
        (claim, part.checked_at[claim], failed) for part in parts for claim, failed in part.checks.items()
    )
    return Reconciled(
        tuple(sorted((f for part in parts for f in part.facts), key=lambda f: (f.entity, f.attribute))),
        tuple(sorted((c for part in parts for c in part.conflicts), key=_conflict_order)),
        tuple(p.name_claims),
        checks,
        checked_at,
    )


def _unit(unit: str | None) -> str:
    return f" {unit}" if unit and unit not in ("count",) else ""


_FACT_FIELDS = twin_of(Fact)


def _finished(
    fact: Fact,
    reason: str,
    stale: bool,
    model: Model,
    rules: Mapping[tuple[str, str], float],
    confidences: dict[tuple[object, ...], tuple[Evidence, float]],
) -> Fact:
    """The decided `fact` completed in place: its reason, staleness, and its confidence from the
    evidence once staleness and the rules' measured agreement are known (both read the whole
    corpus, so that a decision reused from the memo stays valid when another page changes
    them), and its attribute's agreement with the API (the model's, which keys the memo). In
    place, because `decide` made it and only the plan holds it, and the later keys read its
    value alone: making every fact again was a tenth of deciding and finishing (at 10,000
    documents, 646,389 facts)."""
    evidence, confidence = fact.evidence, fact.confidence
    if evidence is not None:
        rule = rules.get((evidence.rule_of, fact.attribute), 0.0) if evidence.rule_of else 0.0
        agreement = model.agreement_of(fact.attribute, evidence)
        # Keyed by the values as a tuple, which hashes in C: hashing the record itself ran
        # Python code for each of its fields, for every fact.
        key = (_EVIDENCE_VALUES(evidence), stale, rule, agreement)
        if (known := confidences.get(key)) is None:
            if evidence.stale != stale or evidence.rule != rule or evidence.agreement != agreement:
                evidence = replace(evidence, stale=stale, rule=rule, agreement=agreement)
            known = confidences[key] = (evidence, model.confidence(evidence))
        # Equal evidence is one object: a build's facts hold few distinct ones.
        evidence, confidence = known
    lent: Any = fact
    object.__setattr__(lent, "__class__", _FACT_FIELDS)
    try:  # the fact stays a `Fact` whatever interrupts the stores
        lent.reason, lent.stale, lent.evidence, lent.confidence = reason, stale, evidence, confidence
    finally:
        lent.__class__ = Fact
    return fact


_EVIDENCE_VALUES = values_of(Evidence)


PROSE = ("paragraph", "bullet", "note")


OLDER_SNAPSHOT = 0.97
"""Weight of a claim from a document a newer version supersedes and neither is dated: an older
snapshot of a machine-made catalog."""


def _vote(c: Claim, sources: Mapping[str, Source], tier: Mapping[str, Tier]) -> _Vote:
    if c.method in (NAME_CONVENTION, SIBLING):
        return _Vote(c, c.method, tier[c.method].weight, None, voice=c.method)
    src = sources[c.document]
    kind = tier[src.kind]
    # The document's trust (its tier's, or the registry's) scaled where the tier is stronger or
    # weaker on this attribute (an API catalog's GPU count).
    weight = src.trust * kind.weight_for(c.attribute) / kind.weight
    if src.copy_of and src.as_of is None:
        weight *= OLDER_SNAPSHOT
    if c.method == "derived":
        weight *= 0.97
    elif c.method in PROSE:
        weight *= 0.9
    return _Vote(c, src.kind, weight, src.as_of, voice=src.voice)


# ------------------------------------------------------------------ the naming convention


def name_vcpus_hold(claims: Sequence[Claim], sources: Mapping[str, Source]) -> dict[str, bool]:
    """For each size, whether the number in its name is its vCPU count, learned from the data:
    it holds when more of the other sizes of its series (else of its family and version) have
    an official vCPU count equal to their name's number than not. `Standard_D3_v2` has 4 vCPUs,
    and so do the other D_v2 sizes break the rule, so the rule is not used there; a series no
    official page gives vCPU counts for is assumed to follow it."""
    official = _official(sources)
    series: dict[str, Counter[str]] = defaultdict(Counter)
    stated: dict[str, set[float]] = defaultdict(set)
    sizes: set[str] = set()
    for c in claims:
        if c.entity_kind != "size":
            continue
        sizes.add(c.entity)
        if c.document not in official:
            continue
        if c.attribute == "series" and c.value_text:
            series[c.entity][c.value_text] += 1
        elif c.attribute == "vcpus" and c.value_number is not None and not c.is_range:
            stated[c.entity].add(c.value_number)
    groups: dict[str, list[bool]] = defaultdict(list)
    group_of: dict[str, tuple[str, bool | None]] = {}
    for entity in sorted(sizes):
        size = parse_size(entity)
        if size is None:
            continue
        home = series[entity].most_common(1)[0][0] if series[entity] else f"{size.family} {size.version or 'v1'}"
        match = float(size.constrained_vcpus or size.vcpus) in stated[entity] if stated[entity] else None
        group_of[entity] = (home, match)
        if match is not None:
            groups[home].append(match)
    counts = {home: (len(matches), sum(matches)) for home, matches in groups.items()}
    out = {}
    for entity, (home, match) in group_of.items():
        # The other sizes of the group: all of them but the size itself, where it is counted.
        stating, agreeing = counts.get(home, (0, 0))
        others = stating - (match is not None)
        out[entity] = not others or (agreeing - bool(match)) * 2 > others
    return out


def _official(sources: Mapping[str, Source]) -> set[str]:
    """The documents of an authoritative kind, which the naming rules are learned from: looked
    up once per build rather than once per claim (a build states half a million)."""
    return {path for path, src in sources.items() if src.kind in AUTHORITATIVE}


def rule_agreement(
    claims: Sequence[Claim], derived: Sequence[Claim], sources: Mapping[str, Source]
) -> dict[tuple[str, str], float]:
    """How far each rule can be trusted, per attribute, measured on this corpus: the log-odds
    that a value the naming convention derives equals what an official page states for the
    same size, over every size where both exist (at least SIBLING_PAIRS of them), as confidence
    measures an attribute's agreement with the API (`calibrate.log_odds`)."""
    stated: dict[tuple[str, str], list[Claim]] = defaultdict(list)
    documents = _official(sources)
    # Only the official values of the attributes the convention derives are compared: the
    # others (most claims) are passed over before their key is made.
    derives = {d.attribute for d in derived if d.method == NAME_CONVENTION}
    for c in claims:
        if c.attribute in derives and c.entity_kind == "size" and c.method != "derived" and c.document in documents:
            stated[(c.entity, c.attribute)].append(c)
    agree: Counter[tuple[str, str]] = Counter()
    pairs: Counter[tuple[str, str]] = Counter()
    for d in derived:
        if d.method != NAME_CONVENTION or not (official := stated.get((d.entity, d.attribute))):
            continue
        pairs[(d.method, d.attribute)] += 1
        agree[(d.method, d.attribute)] += any(same_value(o, d) for o in official)
    return {key: log_odds(agree[key], n - agree[key]) for key, n in pairs.items() if n >= SIBLING_PAIRS}


def sibling_claims(claims: Sequence[Claim], sources: Mapping[str, Source], know: Knowledge) -> Siblings:
    """Values a size no page states, from a sibling: a size of the same series whose name has
    the same vCPU count (`Standard_NV12hs_v3` and `Standard_NV12s_v3`). Only for attributes on
    which such siblings agree throughout the corpus: learned from every pair that both state
    one (at least SIBLING_PAIRS of them, SIBLING_AGREEMENT of them the same), so that GPU counts
    are shared and memory, which the `m` letter changes, is not. Also returns, per learned
    attribute, the log-odds of the pairs' agreement (`rule_agreement`'s measure)."""
    series: dict[str, Counter[str]] = defaultdict(Counter)
    stated: dict[tuple[str, str], dict[str, Claim]] = defaultdict(dict)
    trust: dict[tuple[str, str], float] = {}
    named: set[str] = set()
    tier = tiers()
    official = {path: (tier[sources[path].kind], sources[path].snapshot or 0) for path in _official(sources)}
    for c in claims:
        if c.entity_kind != "size":
            continue
        named.add(c.entity)
        if (where := official.get(c.document)) is None or c.is_range:
            continue
        if c.attribute == "series" and c.value_text:
            series[c.entity][c.value_text] += 1
        elif c.method != "derived" and c.attribute not in ("series", "lifecycle", "retirement_date"):
            # Of the authoritative kinds, only the one trusted most on the attribute speaks: an API
            # catalog's whole GPU for a page's 1/8 of one must not make the sibling's value ambiguous.
            key, weight = (c.entity, c.attribute), where[0].weight_for(c.attribute)
            if weight > trust.get(key, -1.0):
                trust[key] = weight
                stated[key] = {}
            held = stated[key].get(c.value)
            if weight == trust[key] and (held is None or where[1] > official[held.document][1]):
                stated[key][c.value] = c  # the newest snapshot of a catalog, else the first document
    families: dict[tuple[str, int], list[str]] = defaultdict(list)
    for entity in sorted(named):
        size = parse_size(entity)
        if size is not None and series[entity]:
            families[(series[entity].most_common(1)[0][0], size.constrained_vcpus or size.vcpus)].append(entity)
    attributes: dict[str, set[str]] = defaultdict(set)
    for entity, attribute in stated:
        attributes[entity].add(attribute)
    agree: Counter[str] = Counter()
    pairs: Counter[str] = Counter()
    for members in families.values():
        for i, a in enumerate(members):
            for b in members[i + 1 :]:
                for attribute in attributes[a] & attributes[b]:
                    pairs[attribute] += 1
                    agree[attribute] += bool(stated[(a, attribute)].keys() & stated[(b, attribute)].keys())
    learned = {
        a
        for a in pairs
        if pairs[a] >= SIBLING_PAIRS
        and agree[a] >= SIBLING_AGREEMENT * pairs[a]
        and not (a in know.attributes and know.attributes[a].derived_from)
    }
    out = []
    for (home, vcpus), members in sorted(families.items()):
        for entity in members:
            for attribute in sorted(learned):
                if (entity, attribute) in stated:
                    continue
                values = {v: c for m in members if m != entity for v, c in stated.get((m, attribute), {}).items()}
                if len(values) != 1:
                    continue
                [(value, source)] = values.items()
                out.append(
                    replace(
                        source,
                        claim_id=hashlib.sha1(f"sibling\x1f{entity}\x1f{attribute}".encode()).hexdigest()[:16],
                        raw_text=source.entity,
                        method=SIBLING,
                        entity=entity,
                        name_as_written=None,
                        interpretation=(
                            f"{source.entity}, of the same series {home} with the same {vcpus} vCPUs, states "
                            f"{value}{_unit(source.unit)}; such sizes agree on {attribute} in "
                            f"{agree[attribute]} of the {pairs[attribute]} pairs that both state it"
                        ),
                    )
                )
    return out, {(SIBLING, a): log_odds(agree[a], pairs[a] - agree[a]) for a in sorted(learned)}


@dataclass(frozen=True, slots=True)
class NameRules:
    """What the size names say of their sizes (`_name_claims`), and for each size whether its
    name gives its vCPU count (`name_vcpus_hold`); a `size_without_series` diagnostic for each
    size no document places in a series and whose name fits none."""

    follows: dict[str, bool]
    claims: list[Claim]
    diagnostics: list[Diagnostic] = field(default_factory=list)


Siblings = tuple[list[Claim], dict[tuple[str, str], float]]
"""What `sibling_claims` gives: the claims a size takes from its siblings, and the rules' agreement."""


def name_rules(
    claims: Sequence[Claim], sources: Mapping[str, Source], know: Knowledge, mentions: Sequence[Mention] = ()
) -> NameRules:
    """The claims the size names make (`NameRules`), from every claim and the sizes official
    comparison tables name (`mentions`): a size a list names and no document states a value for
    is a size all the same, with what its name says."""
    follows = name_vcpus_hold(claims, sources)
    made, diagnostics = _name_claims(claims, sources, know, follows, mentions)
    return NameRules(follows, made, diagnostics)


def rule_made(names: NameRules, siblings: Siblings) -> list[Claim]:
    """The claims the naming convention and the siblings make, as `plan` keeps them
    (`Plan.name_claims`): a caller may know them before the plan is made."""
    return names.claims + siblings[0]


def _name_claims(
    claims: Sequence[Claim],
    sources: Mapping[str, Source],
    know: Knowledge,
    follows: Mapping[str, bool],
    mentions: Sequence[Mention] = (),
) -> tuple[list[Claim], list[Diagnostic]]:
    """What each size name says about its size, attributed to where the name is written; the
    vCPU count only where the naming convention holds for its series (`name_vcpus_hold`); the
    series, for a size no document places in one, where the name fits exactly one series an
    official page describes (`_series_by_name`), else a `size_without_series` diagnostic."""
    tier = tiers()
    rank = {path: tier[src.kind].rank for path, src in sources.items()}
    official = _official(sources)
    # Each size's first place by tier, document and line; of equals, the first in the claims' order.
    first: dict[str, tuple[tuple[int, str, int], _Place]] = {}
    placed: set[str] = set()
    series: set[str] = set()
    for c in claims:
        if c.entity_kind == "size":
            at = (rank[c.document], c.document, c.line)
            if (held := first.get(c.entity)) is None or at < held[0]:
                first[c.entity] = (at, _Place(c.document, c.line, c.section, c.table_index, c.row_index))
            if c.attribute == "series" and c.method not in (NAME_CONVENTION, SIBLING):
                placed.add(c.entity)
        elif c.document in official:
            series.add(c.entity)
    for m in mentions:
        if m.size and m.document in official and m.size not in first:
            first[m.size] = ((rank[m.document], m.document, m.line), _Place(m.document, m.line, "", None, None))
    out, diagnostics = [], []
    for entity, (_, where) in sorted(first.items()):
        size = parse_size(entity)
        if size is None:
            continue
        facts = _name_facts(size, know, follows.get(entity, True))
        if entity not in placed:
            fits = _narrowest([name for name in sorted(series) if member_of(size, name)])
            if len(fits) == 1:
                facts.append(("series", fits[0], _series_by_name(size, fits[0])))
            elif sources[where.document].kind in AUTHORITATIVE:
                diagnostics.append(_without_series(size, where, fits))
        for attribute, value, meaning in facts:
            flag = value if isinstance(value, bool) else None
            number = float(value) if isinstance(value, int) and flag is None else None
            text = value if isinstance(value, str) else None
            out.append(
                Claim(
                    claim_id=hashlib.sha1(f"name\x1f{entity}\x1f{attribute}".encode()).hexdigest()[:16],
                    document=where.document,
                    line=where.line,
                    section=where.section,
                    table_index=where.table_index,
                    row_index=where.row_index,
                    column=None,
                    raw_text=entity,
                    method=NAME_CONVENTION,
                    entity=entity,
                    entity_kind="size",
                    attribute=attribute,
                    value="true" if flag else (format_number(number) if number is not None else str(text)),
                    value_number=number,
                    value_text=text,
                    value_bool=flag,
                    range_min=number,
                    range_max=number,
                    unit="vCPU" if attribute == "vcpus" else None,
                    interpretation=meaning,
                )
            )
    return out, diagnostics


def _narrowest(fits: Sequence[str]) -> list[str]:
    """Of the series a size name can belong to, those no other one narrows: `NV_Promo` says more
    of `Standard_NV6_Promo` than `NV` does (a word of its name), so the size is of NV_Promo."""
    parts = {name: series_parts(name) for name in fits}

    def narrows(a: str, b: str) -> bool:
        pa, pb = parts[a], parts[b]
        if pa is None or pb is None or a == b:
            return False
        wider = (set(pb.features), set(pb.accelerators), set(pb.variants))
        narrower = (set(pa.features), set(pa.accelerators), set(pa.variants))
        return all(w <= n for w, n in zip(wider, narrower, strict=True)) and wider != narrower

    return [a for a in fits if not any(narrows(b, a) for b in fits)]


@dataclass(frozen=True, slots=True)
class _Place:
    """Where a size's name is first written: what its rule-made claims cite."""

    document: str
    line: int
    section: str
    table_index: int | None
    row_index: int | None


def _series_by_name(size: SizeName, series: str) -> str:
    version = size.version or "v1 (no version written)"
    return (
        f"no document places {size.canonical} in a series; by the naming convention (family {size.family}, "
        f"version {version}{', accelerator ' + size.accelerator if size.accelerator else ''}) it can belong to "
        f"{series} alone of the series the official pages describe"
    )


def _without_series(size: SizeName, where: _Place, fits: Sequence[str]) -> Diagnostic:
    why = (
        f"its name fits {len(fits)} of them ({', '.join(fits[:4])}), so none is taken"
        if fits
        else f"its name (family {size.family}, version {size.version or 'v1'}) fits none of them"
    )
    return Diagnostic(
        "warning",
        "size_without_series",
        where.document,
        where.line,
        f"no document places {size.canonical} in a series and {why}: its row has only what the sources state of "
        "it, and no series value (retirement, lifecycle, processor) reaches it",
    )


def _name_facts(size: SizeName, know: Knowledge, vcpus_hold: bool = True) -> list[tuple[str, int | bool | str, str]]:
    vcpus = size.constrained_vcpus or size.vcpus
    out: list[tuple[str, int | bool | str, str]] = []
    if vcpus_hold:
        out.append(
            (
                "vcpus",
                vcpus,
                f"the number after the family letters {size.family} is the vCPU count"
                + (" (constrained: the second number)" if size.constrained_vcpus else ""),
            )
        )
    for letter in know.letters:
        if letter.letter in size.features and letter.attribute and letter.value is not None:
            out.append((letter.attribute, letter.value, f"feature letter {letter.letter}: {letter.meaning}"))
    models = know.find_gpus(size.accelerator.replace("_", " ")) if size.accelerator else []
    if len(models) == 1:
        out.append(("gpu_model", models[0].name, f"accelerator {size.accelerator} in the name"))
    return out


# ------------------------------------------------------------------------- inheritance


def _inheritable(p: Plan, series: str) -> list[_Vote]:
    """The votes a size of `series` inherits (`_inherit`), made once and shared by the sizes.
    Each is weighed as `plan` weighed the series' own vote, before any check lowered it: the
    parts of a build (the runner's `divide`) decide in any order."""
    votes = p.inheritable.get(series)
    if votes is None:
        votes = p.inheritable[series] = []
        for key in sorted(p.series_keys.get(series, ())):
            for c in (v.claim for v in p.by_key[key]):
                if not c.is_range:
                    own = _vote(c, p.sources, p.tier)  # made here: its (empty) failed list is the copy's alone
                    votes.append(replace(own, weight=own.weight * INHERIT_FACTOR, inherited_from=series, shared=True))
    return votes


def _inherit(p: Plan, entities: Container[str] | None = None) -> list[tuple[str, str]]:
    """Series-level values are evidence about each size of the series (of `entities`, when
    given); the keys that got such votes.

    They count a little less than the size's own statements, so a size-level claim of the
    same tier says otherwise and wins (and the disagreement is recorded as a conflict);
    where the size states nothing, the series value is the size's value, marked inherited.
    Only sizes an official document names inherit: an unverified size is kept apart. Nor does
    a size inherit what its name contradicts (`_denied`: no `r`, no InfiniBand).
    """
    touched: dict[tuple[str, str], None] = {}
    by_key, kinds, official = p.by_key, p.kinds, p.official
    lettered = {letter.attribute for letter in p.know.letters if letter.attribute}
    for (size, attribute), fact in list(p.facts.items()):
        if attribute != "series" or kinds.get(size) != "size" or size not in official or not fact.value_text:
            continue
        if entities is not None and size not in entities:
            continue
        # The series' votes themselves, shared: a check that fails one for this size marks a
        # copy (`_Vote.shared`). A copy for each size (463,570 at 10,000 documents) took 0.4 s
        # of the 11.9 s that deciding and finishing every entity took in one process.
        features = parse_size(size)
        for v in _inheritable(p, fact.value_text):
            if features is not None and v.claim.attribute in lettered and _denied(p.know, features.features, v.claim):
                continue
            key = (size, v.claim.attribute)
            by_key[key].append(v)
            touched[key] = None
    return list(touched)


def _denied(know: Knowledge, features: str, c: Claim) -> bool:
    """Whether a size name with `features` says the series' value of `c` is not the size's:
    a series statement never gives a size what its own name contradicts (naming.toml)."""
    value = c.value_bool if c.value_bool is not None else c.value_text
    return any(letter.contradicts(features, c.attribute, value) for letter in know.letters)


# ------------------------------------------------------------------------- the checks


NO_PATTERNS = Patterns()
"""No value is a slip of its series' pattern: what `_check` is given where none were read."""

_CHECKED = frozenset(("vcpus", "gpu_memory_gib", "gpu_model", "gpu_count"))
"""The attributes `_check` sets against the name, the GPU model or the entity's other values;
besides these and a total with a check of its factors (`derived_from`, attributes.toml), any
other attribute is checked only against the vCPU count (its floor) and its series."""


def _check(
    key: tuple[str, str],
    votes: list[_Vote],
    facts: Mapping[tuple[str, str], Fact],
    by_key: Mapping[tuple[str, str], list[_Vote]],
    know: Knowledge,
    vcpus_hold: bool = True,
    patterns: Patterns = NO_PATTERNS,
) -> None:
    """Lower the weight of claims that break physical consistency or their series' pattern
    (`patterns`), and say which check.

    `vcpus_hold` says whether the size's name gives its vCPU count (`name_vcpus_hold`): only
    then does a vCPU count that differs from the name fail a check. A claim's checks, in the
    order it is told them: vcpus_name, the GPU model's memory (`_model_memory`) and the GPU
    count's (`_count_memory`), a total against its factors, plausible_per_vcpu, its series'
    range or value (`_series_check`), its series' pattern."""
    entity, attribute = key
    attr = know.attributes.get(attribute)
    floor = attr.min_per_vcpu if attr else None
    # A total stated beside its factors (GPU count x per-GPU memory, NVMe disks x one disk's size).
    product = attr if attr and attr.check and len(attr.derived_from) == 2 else None
    vcpus = facts.get((entity, "vcpus")) if floor else None
    series_votes = _series_votes(facts, by_key, key)
    slips = patterns.failed if entity in patterns.of_entity else {}
    if (
        attribute not in _CHECKED
        and not product
        and not (vcpus and vcpus.value_number)
        and not series_votes
        and not slips
    ):
        return  # nothing to set its votes against: a third of the keys (10,000 documents)
    # A range that ends on a value off its series' pattern was copied from that value: it says
    # nothing against the sizes that fit the pattern.
    copied = (
        patterns.outliers.get((series_votes[0].claim.entity, attribute), frozenset()) if series_votes else frozenset()
    )
    # What every vote of the key is set against, looked up once.
    size = parse_size(entity) if attribute == "vcpus" else None
    named = (size.constrained_vcpus or size.vcpus) if size and vcpus_hold else None
    model_fact = facts.get((entity, "gpu_model"))
    for i, v in enumerate(votes):
        c = v.claim
        failed: list[str] = []
        if (
            attribute == "vcpus"
            and c.value_number is not None
            and v.source_kind != NAME_CONVENTION
            and named is not None
            and abs(c.value_number - named) > 1e-9
        ):
            failed.append(f"vcpus_name: the name {entity} says {named} vCPUs")
        if attribute in ("gpu_memory_gib", "gpu_model") and (
            why := _model_memory(entity, attribute, c, model_fact, by_key, know)
        ):
            failed.append(why)
        if (
            attribute == "gpu_count"
            and c.value_number
            and model_fact
            and (model := know.gpu(model_fact.value_text or ""))
            and (why := _count_memory(entity, c, c.value_number, model, by_key))
        ):
            failed.append(why)
        if product and c.value_number is not None:
            count = _same_doc_number(by_key, entity, product.derived_from[0], c)
            per = _same_doc_number(by_key, entity, product.derived_from[1], c)
            if count is not None and per is not None and not close(count * per, c.value_number, 0.02):
                failed.append(
                    f"{product.check}: {format_number(count)} x {format_number(per)} {c.unit or ''} is not "
                    f"{format_number(c.value_number)} {c.unit or ''}".replace("  ", " ")
                )
        if floor and c.value_number is not None and vcpus and vcpus.value_number:
            per = c.value_number / vcpus.value_number
            if per < floor:
                failed.append(
                    f"plausible_per_vcpu: {format_number(c.value_number)} {c.unit or ''} is "
                    f"{format_number(round(per, 2))} per vCPU, below the floor of {format_number(floor)}"
                )
        # The size's name settles its vCPU count where the convention holds: a newer series
        # range that leaves the size out does not make that count wrong.
        name_settles = attribute == "vcpus" and named is not None and abs((c.value_number or 0) - named) < 1e-9
        if v.inherited_from is None and c.value_number is not None and c.entity_kind == "size" and not name_settles:
            failed.extend(_series_check(series_votes, attribute, c.value_number, model_fact, know, copied))
        if v.inherited_from is None and (slip := slips.get(c.claim_id)):
            failed.append(slip)
        if failed and v.shared:  # this key's own copy (`_inherit`)
            v = votes[i] = replace(v, failed=[], shared=False)
        for message in failed:
            if message not in v.failed:
                v.failed.append(message)
                v.weight *= CHECK_PENALTY


def _model_memory(
    entity: str,
    attribute: str,
    c: Claim,
    model_fact: Fact | None,
    by_key: Mapping[tuple[str, str], list[_Vote]],
    know: Knowledge,
) -> str | None:
    """The `gpu_model_memory` check of a GPU model or a memory per GPU (`attribute`): the model
    must be made with the memory stated beside it (by the same document; for a memory with no
    model beside it, the entity's model), or, a model with no memory beside it, with one of
    the memories the entity's pages state."""
    model_name = c.value_text if attribute == "gpu_model" else _same_doc_value(by_key, entity, "gpu_model", c)
    if model_name is None and attribute == "gpu_memory_gib":
        model_name = model_fact.value_text if model_fact else None
    memory = c.value_number if attribute == "gpu_memory_gib" else _same_doc_number(by_key, entity, "gpu_memory_gib", c)
    model = know.gpu(model_name) if model_name else None
    if attribute == "gpu_model" and memory is None and model is not None:
        # No memory beside it: the model must still fit what the entity's pages state.
        stated = [w.claim.value_number for w in by_key.get((entity, "gpu_memory_gib"), ())]
        numbers = [m for m in stated if m is not None]
        if numbers and not any(_fits_any(m, model.memory_gib) for m in numbers):
            memory = numbers[0]
    if model is not None and memory is not None and not _fits_any(memory, model.memory_gib):
        return (
            f"gpu_model_memory: {model.name} is made with "
            f"{'/'.join(format_number(m) for m in model.memory_gib)} GiB, not {format_number(memory)}"
        )
    return None


def _count_memory(
    entity: str, c: Claim, gpus: float, model: GpuModel, by_key: Mapping[tuple[str, str], list[_Vote]]
) -> str | None:
    """The `gpu_count_memory` check of a GPU count `gpus` of `model`: so many of its GPUs must
    make the total memory the same row states, or, a count with no memory beside it (an API
    catalog's), one of the totals the entity's pages state."""
    total = _same_line_number(by_key, entity, "gpu_memory_total_gib", c)
    # A count with no memory beside it (an API catalog's) must fit what the pages state.
    totals: list[float] = (
        [total]
        if total is not None
        else sorted(
            {
                t
                for w in by_key.get((entity, "gpu_memory_total_gib"), ())
                if w.inherited_from is None and (t := w.claim.value_number) is not None
            }
        )
    )
    if totals and not any(close(gpus * m, t, 0.02) for m in model.memory_gib for t in totals):
        where = "the same row states" if total is not None else "the pages state"
        return (
            f"gpu_count_memory: {format_number(gpus)} {model.name} GPU(s) of "
            f"{'/'.join(format_number(m) for m in model.memory_gib)} GiB cannot have the "
            f"{'/'.join(format_number(t) for t in totals)} GiB {where}"
        )
    return None


def _series_check(
    series_votes: Sequence[_Vote],
    attribute: str,
    value: float,
    model_fact: Fact | None,
    know: Knowledge,
    copied: Container[float] = frozenset(),
) -> list[str]:
    """A number a size states must lie within what an official page states for its series:
    its range (`6 - 24 vCPUs`), or its one value (`16 Disks`) when the series states one. A
    GPU count may be counted in cards of a model with several GPUs per card. `series_votes` are
    the series' votes for `attribute` (`_series_votes`), looked up once for all the key's votes.
    A range with an end among `copied` (values off the series' pattern) holds no size that fits
    the pattern to it."""
    model = know.gpu(model_fact.value_text or "") if model_fact and attribute == "gpu_count" else None
    scales = (1.0, float(model.gpus_per_board)) if model else (1.0,)
    for r in series_votes:
        rc = r.claim
        if r.source_kind != "official_spec" or rc.range_min is None or rc.range_max is None:
            continue
        if rc.is_range and value not in copied and (rc.range_min in copied or rc.range_max in copied):
            continue
        if any(rc.range_min * k - 1e-9 <= value <= rc.range_max * k + 1e-9 for k in scales):
            continue
        if rc.is_range:
            return [
                f"series_range: series {rc.entity} spans {format_number(rc.range_min)}-{format_number(rc.range_max)}"
            ]
        # A spec table's one value is every size's; a size value more than twice or less than
        # half of it is a slip (`316` disks where the series has 16), not a difference of sizes.
        if rc.method == "part_table" and not rc.range_min / 2 <= value <= rc.range_min * 2:
            return [
                f"series_value: series {rc.entity} states {format_number(rc.range_min)} for its sizes, "
                f"and {format_number(value)} is not within half or twice of it"
            ]
    return []


def _series_votes(
    facts: Mapping[tuple[str, str], Fact], by_key: Mapping[tuple[str, str], list[_Vote]], key: tuple[str, str]
) -> Sequence[_Vote]:
    """The votes of the series the entity of `key` is decided to be in, for the same attribute:
    what `_series_check` sets a size's number against."""
    series = facts.get((key[0], "series"))
    return by_key.get((series.value_text, key[1]), ()) if series and series.value_text else ()


def _same_line_number(
    by_key: Mapping[tuple[str, str], list[_Vote]], entity: str, attribute: str, c: Claim
) -> float | None:
    """The number the same row or line of the same document states for `attribute`."""
    same = [v for v in _same_doc_votes(by_key, entity, attribute, c) if v.claim.line == c.line]
    return same[0].claim.value_number if same else None


def _same_doc_votes(
    by_key: Mapping[tuple[str, str], list[_Vote]], entity: str, attribute: str, c: Claim
) -> list[_Vote]:
    return [
        v for v in by_key.get((entity, attribute), ()) if v.claim.document == c.document and v.inherited_from is None
    ]


def _same_doc_value(by_key: Mapping[tuple[str, str], list[_Vote]], entity: str, attribute: str, c: Claim) -> str | None:
    votes = _same_doc_votes(by_key, entity, attribute, c)
    return votes[0].claim.value_text if votes else None


def _same_doc_number(
    by_key: Mapping[tuple[str, str], list[_Vote]], entity: str, attribute: str, c: Claim
) -> float | None:
    same_line = [v for v in _same_doc_votes(by_key, entity, attribute, c) if v.claim.line == c.line]
    votes = same_line or _same_doc_votes(by_key, entity, attribute, c)
    return votes[0].claim.value_number if votes else None


def _fits_any(value: float, sizes: Iterable[float]) -> bool:
    return any(close(value, s, 0.02) for s in sizes)


# ---------------------------------------------------------------------------- deciding


def _tolerance(attribute: str, know: Knowledge) -> float:
    attr = know.attributes.get(attribute)
    return 0.0 if attr is None or attr.dimension in ("count", "iops") else 0.001


def _group(votes: Sequence[_Vote], attribute: str, know: Knowledge) -> list[_Group]:
    groups: list[_Group] = []
    tol = _tolerance(attribute, know)
    dim = know.attributes[attribute].dimension if attribute in know.attributes else None
    for v in sorted(votes, key=lambda v: v.claim.claim_id):
        c = v.claim
        for g in groups:
            r = g.votes[0].claim
            if c.is_range or r.is_range:
                same = (c.range_min, c.range_max) == (r.range_min, r.range_max)
                twin = False
            else:
                same = same_value(c, r, tol)
                twin = not same and dim == "information" and twin_values(c, r)
            if same or twin:
                g.votes.append(v)
                g.twin = g.twin or twin
                break
        else:
            groups.append(_Group([v]))
    for g in groups:
        g.settle()
    return groups


def _group_key(g: _Group, tier: Mapping[str, Tier]) -> tuple[float, int, int, str]:
    best = g.best
    top = best.weight  # the best vote is the heaviest (`_vote_key`)
    newest = max((v.as_of.toordinal() for v in g.votes if v.as_of and v.weight >= top - 1e-9), default=0)
    return (round(top, 6), newest, len(g.voices), best.claim.claim_id)


def _label(v: _Vote, tier: Mapping[str, Tier]) -> str:
    label = tier[v.source_kind].label
    if v.as_of:
        label += f" ({v.as_of.isoformat()})"
    return label


def _decide(
    key: tuple[str, str],
    kind: str,
    votes: list[_Vote],
    official: set[str],
    tier: Mapping[str, Tier],
    know: Knowledge,
    facts: Mapping[tuple[str, str], Fact],
) -> tuple[Fact, list[Conflict]]:
    if len(votes) == 1:  # most keys: one claim, nothing to group, rank or set against it
        return _decide_one(key, kind, votes[0], official, tier), []
    entity, attribute = key
    keyed = sorted(((_group_key(g, tier), g) for g in _group(votes, attribute, know)), key=itemgetter(0), reverse=True)
    groups = [g for _, g in keyed]
    win = groups[0]
    best = win.best
    c = best.claim
    voices = win.voices
    losers = groups[1:]
    verified = entity in official or (kind == "series" and any(v.source_kind in AUTHORITATIVE for v in votes))
    reason: str
    share = losers[0].best.weight / (losers[0].best.weight + best.weight) if losers else 0.0
    tied = False
    if not verified and kind == "size":
        status = "unverified"
        reason = f"no official document names {entity}; only the {_label(best, tier)} states it"
    elif not losers:
        if len(voices) >= 2:
            status = "agreed"
            reason = _agreement(win, tier)
        else:
            status = "single_source"
            reason = f"only the {_label(best, tier)} {c.document}:{c.line} states it"
    else:
        top = keyed[0][0]
        runner = keyed[1][0]
        rival = losers[0].best
        if top[:2] == runner[:2]:
            status, tied = "unresolved", True
            reason = (
                f"sources of equal standing disagree: {_label(best, tier)} says {c.value}, "
                f"{_label(rival, tier)} says {rival.claim.value}"
            )
        else:
            status = "resolved"
            reason = _why(best, rival, top, runner, tier)
    if win.twin:
        reason += "; a GB/GiB reading of the same quantity is counted as agreement"
    fact = _fact(
        key,
        kind,
        best,
        status,
        reason,
        _evidence(best, len(voices), share, tied, status),
        tuple(sorted({v.claim.claim_id for v in win.votes})),
        tuple(sorted({v.claim.claim_id for g in losers for v in g.votes})),
        win.votes,
    )
    rows: list[Conflict] = []
    if losers:
        newest_win = max((v.as_of for v in win.votes if v.as_of), default=None)
        for g in groups:
            gb = g.best
            won = g is win
            rows.append(
                Conflict(
                    entity=entity,
                    attribute=attribute,
                    value=gb.claim.value,
                    unit=gb.claim.unit,
                    won=won,
                    superseded=not won
                    and gb.source_kind == best.source_kind
                    and gb.as_of is not None
                    and newest_win is not None
                    and gb.as_of < newest_win,
                    claims=tuple(sorted(v.claim.claim_id for v in g.votes)),
                    documents=tuple(sorted({f"{v.claim.document}:{v.claim.line}" for v in g.votes})),
                    kinds=tuple(sorted({v.source_kind for v in g.votes})),
                    newest=max((v.as_of for v in g.votes if v.as_of), default=None),
                    checks_failed=tuple(sorted({m for v in g.votes for m in v.failed})),
                    note=fact.reason if won else "",
                )
            )
    return fact, rows


def _evidence(best: _Vote, voices: int, rival: float, tied: bool, status: str) -> Evidence:
    """What the confidence of a fact whose value `best` states is computed from."""
    method = best.claim.method
    return _evidence_of(
        best.weight,
        voices,
        rival,
        best.source_kind in AUTHORITATIVE,
        best.source_kind == "api_catalog",
        method if method in (NAME_CONVENTION, SIBLING) else None,
        tied,
        status == "unverified",
        best.inherited_from is not None,
        bool(best.failed),
    )


@functools.lru_cache(maxsize=1 << 14)
def _evidence_of(
    weight: float,
    voices: int,
    rival: float,
    official: bool,
    catalog: bool,
    rule_of: str | None,
    tied: bool,
    unverified: bool,
    inherited: bool,
    failed: bool,
) -> Evidence:
    """One record for equal evidence: facts by the hundred thousand share a few thousand."""
    return Evidence(
        weight=weight,
        voices=voices,
        rival=rival,
        official=official,
        catalog=catalog,
        rule_of=rule_of,
        tied=tied,
        unverified=unverified,
        inherited=inherited,
        failed=failed,
    )


def _decide_one(key: tuple[str, str], kind: str, best: _Vote, official: set[str], tier: Mapping[str, Tier]) -> Fact:
    """`_decide` of a key with one vote, which is most keys: the same fact, without the
    grouping and ranking that only several votes need."""
    entity, c = key[0], best.claim
    verified = entity in official or (kind == "series" and best.source_kind in AUTHORITATIVE)
    if not verified and kind == "size":
        status = "unverified"
        reason = f"no official document names {entity}; only the {_label(best, tier)} states it"
    else:
        status = "single_source"
        reason = f"only the {_label(best, tier)} {c.document}:{c.line} states it"
    return _fact(key, kind, best, status, reason, _evidence(best, 1, 0.0, False, status), (c.claim_id,), (), (best,))


def _fact(
    key: tuple[str, str],
    kind: str,
    best: _Vote,
    status: str,
    reason: str,
    evidence: Evidence,
    supporting: tuple[str, ...],
    contradicting: tuple[str, ...],
    agreeing: Sequence[_Vote],
) -> Fact:
    """The fact `best`'s value makes: the reason says where an inherited value comes from and
    the first check the claim fails; the confidence comes later (`_finished`), once staleness
    and the rules' measured agreement are known. `agreeing` are the votes for the value."""
    c, inherited = best.claim, best.inherited_from
    basis, basis_from = _basis(best, agreeing)
    if inherited:
        reason = f"inherited from series {inherited}: {reason}"
    elif basis == "sibling":
        reason = f"copied from the sibling size {basis_from}: {reason}"
    if best.failed:
        reason += f"; fails {best.failed[0]}"
    return Fact(
        key[0],
        kind,
        key[1],
        c.value,
        c.value_number,
        c.value_text,
        c.value_bool,
        c.range_min,
        c.range_max,
        c.unit,
        0.0,
        status,
        reason,
        supporting,
        contradicting,
        evidence.voices,  # the sources stating the value
        c.document,
        c.line,
        best.as_of,
        inherited,
        basis,
        basis_from,
        tuple(best.failed),
        False,
        evidence,
    )


def _basis(v: _Vote, agreeing: Sequence[_Vote]) -> tuple[str, str | None]:
    """What the value rests on, and the series or sibling it comes from: stated where a document
    states it for the entity itself (whichever vote weighs most: an API catalog's K80 for NC12
    states it, though the NC series' K80 is trusted more), else what the best vote is."""
    own = [
        w.claim.method for w in agreeing if not w.inherited_from and w.claim.method not in (NAME_CONVENTION, SIBLING)
    ]
    if own:
        return ("stated" if any(m != "derived" for m in own) else "computed"), None
    if v.inherited_from:
        return "inherited", v.inherited_from
    method = v.claim.method
    if method == SIBLING:
        return "sibling", v.claim.raw_text  # a sibling's claim keeps the sibling's name as its text
    if method == NAME_CONVENTION:
        return "name", None
    return ("computed" if method == "derived" else "stated"), None


_STATED = ("table", "part_table", "key_value", "feature_table")


def _why(
    best: _Vote, rival: _Vote, top: tuple[object, ...], runner: tuple[object, ...], tier: Mapping[str, Tier]
) -> str:
    """What decided between the winning value and its strongest rival, in the order the
    decision weighs it (`_group_key`): the weight of the best claim, then how new it is; the
    reason names what set the weights apart, never a date that did not decide."""
    said = f"{rival.claim.value}{_unit(rival.claim.unit)}"
    if top[0] == runner[0]:
        return f"newer {_label(best, tier)} supersedes the older ({_date(rival)}) value {said}"
    if rival.failed and not best.failed:
        return f"the {_label(rival, tier)} value {said} fails {rival.failed[0].split(':')[0]}"
    if tier[best.source_kind].rank < tier[rival.source_kind].rank:
        other = tier[rival.source_kind].label
        article = "an" if other[0].lower() in "aeiou" else "a"
        return f"{_label(best, tier)} over {article} {other}; the {other.split()[0]} value {said}"
    trust = tier[best.source_kind].weight_for(best.claim.attribute)
    trust_rival = tier[rival.source_kind].weight_for(rival.claim.attribute)
    if best.source_kind != rival.source_kind and round(trust, 2) != round(trust_rival, 2):
        return (
            f"for {best.claim.attribute}, the {_label(best, tier)} is trusted more ({trust:.2f}) than the "
            f"{_label(rival, tier)} ({trust_rival:.2f}), which says {said}"
        )
    if rival.inherited_from and not best.inherited_from:
        return (
            f"the size's own statement ({_label(best, tier)}) over the value {said} of its series "
            f"{rival.inherited_from} ({_label(rival, tier)})"
        )
    if best.claim.method in _STATED and rival.claim.method in PROSE:
        return f"a table ({_label(best, tier)}) over running text ({_label(rival, tier)}) that says {said}"
    if best.voice == rival.voice and best.as_of is None and rival.as_of is None:
        return f"{best.claim.document} supersedes {rival.claim.document}, an older snapshot, which says {said}"
    if rival.claim.method == "derived" and best.claim.method != "derived":
        return f"a value stated as such ({_label(best, tier)}) over {said}, computed from another value"
    if len(rival.failed) > len(best.failed):
        names = "; ".join(f.split(":")[0] for f in rival.failed)
        return f"the {_label(rival, tier)} value {said} fails more checks ({names})"
    return (
        f"the {_label(best, tier)} weighs {best.weight:.2f} against {rival.weight:.2f} for the "
        f"{_label(rival, tier)} value {said}"
    )


def _date(v: _Vote) -> str:
    return v.as_of.isoformat() if v.as_of else "undated"


def _agreement(win: _Group, tier: Mapping[str, Tier]) -> str:
    """`2 official Microsoft Learn pages and the size naming convention agree`."""
    per_kind: dict[str, set[str]] = defaultdict(set)
    for v in win.votes:
        per_kind[v.source_kind].add(_voice(v))
    parts = []
    for kind in sorted(per_kind, key=lambda k: (tier[k].rank, k)):
        n = len(per_kind[kind])
        label = tier[kind].label
        if kind == NAME_CONVENTION:
            parts.append(f"the {label}")
        elif n == 1:
            parts.append(f"{'an' if label[0].lower() in 'aeiou' else 'a'} {label}")
        else:
            plural = label.replace("page", "pages").replace("post", "posts").replace("catalog", "catalogs")
            parts.append(f"{n} {plural}")
    return f"{listed(parts)} agree"


def listed(parts: Sequence[str]) -> str:
    """`a`, `a and b`, `a, b and c`: a list as a sentence says it."""
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def _sibling_match(
    entity: str,
    attribute: str,
    claim: Claim,
    siblings: Mapping[tuple[object, ...], list[tuple[str, float]]],
    facts: Mapping[tuple[str, str], Fact],
) -> str | None:
    """A retired or superseded size of the same family and vCPU count that has the losing value."""
    size = parse_size(entity)
    if size is None or claim.value_number is None:
        return None
    for other, number in siblings.get((size.family, size.vcpus, size.version, attribute), ()):
        if other != entity and close(number, claim.value_number, 0.001):
            life = facts.get((other, "lifecycle"))
            status = f"{life.value_text} " if life and life.value_text else ""
            return f"the {status}{other.removeprefix('Standard_')}"
    return None


def _sibling_index(
    ordered: Iterable[tuple[str, str]], facts: Mapping[tuple[str, str], Fact]
) -> dict[tuple[object, ...], list[tuple[str, float]]]:
    """The numbers sizes have, by family, vCPUs, version and attribute, of the keys `ordered`:
    those `finish` finishes whose attribute a resolved fact has a rival in (`_sibling_match`).
    Only the entity and the number are kept, not the fact."""
    index: dict[tuple[object, ...], list[tuple[str, float]]] = defaultdict(list)
    for key in ordered:
        fact = facts[key]
        if fact.entity_kind == "size" and fact.value_number is not None and (size := parse_size(key[0])):
            index[(size.family, size.vcpus, size.version, key[1])].append((key[0], fact.value_number))
    return index
