"""The plan of deciding and the order of it: the votes every part reads and the series decided
(`plan`), each part's entities admitted and their keys voted on (`_admit`, `_votes`), a series'
values inherited by its sizes (`_inherit`), and every key checked and decided, rank by rank, a
count after its model (`decide`)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Container, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from pipeline import knowledge
from pipeline.knowledge import Knowledge
from pipeline.knowledge.names import parse_size
from pipeline.knowledge.registry import Source, Tier, tiers
from pipeline.records import Claim, Conflict, Fact
from pipeline.stages.calibrate import Model
from pipeline.stages.calibrate import model as calibration
from pipeline.stages.patterns import Patterns, series_patterns
from pipeline.stages.reconcile.checks import _check, _denied
from pipeline.stages.reconcile.deciding import _decide
from pipeline.stages.reconcile.rules import (
    NameRules,
    Siblings,
    _official,
    home_series,
    name_rules,
    rule_agreement,
    rule_made,
    sibling_claims,
)
from pipeline.stages.reconcile.votes import _Vote, _vote

INHERIT_FACTOR = 0.95


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
    homes = home_series(claims, sources) if names is None or siblings is None else None
    names = names if names is not None else name_rules(claims, sources, know, homes=homes)
    siblings = siblings if siblings is not None else sibling_claims(claims, sources, know, homes)
    patterns = patterns if patterns is not None else series_patterns(claims, sources, know)
    name_claims = rule_made(names, siblings)
    unverified = unverified or {}
    kinds, official = _entities(claims, sources, name_claims, unverified)
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


def _entities(
    claims: Sequence[Claim], sources: Mapping[str, Source], name_claims: Sequence[Claim], unverified: Mapping[str, str]
) -> tuple[dict[str, str], set[str]]:
    """Each entity of `claims` and of the claims the rules make (`rule_made`) with its kind, and
    the entities an official page names (a size `unverified` names, one no current page lists,
    never is): what a plan holds of them (`Plan.kinds`, `Plan.official`)."""
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
        fact, rows = _decide(key, p.kinds[key[0]], p.by_key[key], p.official, p.tier, p.know)
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
        fact, rows = _decide(key, kinds[key[0]], votes, official, tier, know)
        facts[key] = fact
        if rows:
            conflicts.extend(rows)
            losing = next(r for r in rows if not r.won)
            rivals[key] = next(v.claim for v in votes if v.claim.claim_id in losing.claims)
        for v in votes:  # a loop, not a generator for each of the keys, nearly all without failures
            if v.failed:
                failures.append((v.claim.claim_id, _decide_order(key), tuple(v.failed)))
    return Decided(conflicts, rivals, failures, keys)


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
