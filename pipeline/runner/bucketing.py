"""How much of reconcile the runner decides at a time, and what it keys each bucket's decisions
by: the rules are the stage's (`pipeline.stages.reconcile`), and each bucket's decisions are
cached by `parts`, keyed by what `reads` says they read.

Each entity's bucket (`buckets`: whole families of sizes by vCPU count, the series in the first),
what deciding a bucket reads (`reads`, `rates_read`); the entities divided between two processes
(`divide`); and what deciding a few buckets put in the plan, let go between them (`forget`,
`let_go`).
"""

from __future__ import annotations

import hashlib
import itertools
from collections import Counter, defaultdict
from collections.abc import Container, Iterable, Iterator, Sequence

from pipeline.knowledge.names import parse_size
from pipeline.records import Fact
from pipeline.stages.reconcile import Decided, Plan


def _groups(p: Plan) -> dict[str, str]:
    """Each entity's group: what finishing an entity reads of others is in its group. The sizes
    of a family and vCPU count hold a size's siblings (`reconcile.reasons._sibling_match`), and the series
    (decided in `plan`) and other entities that are not sizes are the group ""."""
    group: dict[str, str] = {}
    for entity, kind in p.kinds.items():
        size = parse_size(entity) if kind == "size" else None
        group[entity] = f"{size.family} {size.vcpus}" if size else entity if kind == "size" else ""
    return group


def buckets(p: Plan, count: int) -> dict[str, int]:
    """Each entity's bucket of `count`, the same from build to build for the same group: the
    group "" (the series) is bucket 0, any other group one of the rest by a hash of its name.
    A bucket can be decided and finished apart (`decide`, `finish`), like a set of `divide`."""
    return {
        entity: 0 if not g else 1 + int(hashlib.sha1(g.encode()).hexdigest()[:8], 16) % (count - 1)
        for entity, g in _groups(p).items()
    }


def reads(p: Plan) -> tuple[object, list[str], dict[str, tuple[object, ...]]]:
    """What deciding and finishing a bucket reads beside the claims of its entities and the
    documents they cite (the caller keys a bucket's decisions by all of it), but for the rules'
    measured agreement (`rates_read`). Shared by every bucket: the sizes kept unverified, the staleness
    limit, the model, and the series, whose claims and documents every bucket reads as well (a
    size inherits and is checked against them), keyed by the caller as it keys an entity's. For
    each entity: its kind, whether the naming convention holds for it, whether an official
    page names it."""
    shared = (sorted(p.unverified.items()), sorted(p.patterns.outliers.items()), p.stale_after_days, p.model)
    series = sorted(entity for entity, kind in p.kinds.items() if kind == "series")
    slips = p.patterns.of_entity
    own: dict[str, tuple[object, ...]] = {
        entity: (entity, kind, p.follows.get(entity, True), entity in p.official, slips.get(entity, ()))
        for entity, kind in p.kinds.items()
    }
    return shared, series, own


def rates_read(p: Plan, facts: Iterable[Fact]) -> dict[str, tuple[tuple[tuple[str, str], float], ...]]:
    """For each entity, the rules' measured agreement its facts' confidences read (`reconcile.finishing._finished`)
    and their values. The rates move with any official value anywhere, so a bucket's decisions
    are kept by what else they read and still hold while these values are the same."""
    read: dict[str, set[tuple[tuple[str, str], float]]] = defaultdict(set)
    for f in facts:
        if f.evidence is not None and f.evidence.rule_of:
            key = (f.evidence.rule_of, f.attribute)
            read[f.entity].add((key, p.rules.get(key, 0.0)))
    return {entity: tuple(sorted(pairs)) for entity, pairs in read.items()}


def divide(
    p: Plan, shares: Sequence[float], within: Container[str] | None = None, *, besides: float = 0.0
) -> list[frozenset[str]]:
    """The entities (of `within`, when given) in one set per share that can be decided and
    finished apart (`decide`, `finish`), each with about its share of the keys; what finishing
    one entity reads of others stays in its set (`_groups`), and the series are in the first.
    `besides` is other work the first set's process does, as a share of deciding every entity
    (not only those `within`): the first set is smaller by it, more so the fewer entities there
    are to decide."""
    root = _groups(p).__getitem__
    # The work of an entity: its claims (a series' are in `by_key`) and the votes a size inherits
    # from the series it names. Counted from the claims, not their votes: each part takes its
    # entities' claims (`reconcile.planning._admit`) in the process that decides them.
    work: Counter[str] = Counter({entity: len(claims) for entity, claims in (*p.rest.items(), *p.pending.items())})
    for (entity, _), votes in p.by_key.items():
        if p.kinds[entity] == "series":
            work[entity] += len(votes)
    inherited: dict[str, int] = {}
    for entity, series in _series_named(p):
        if series not in inherited:
            keys = p.series_keys.get(series, ())
            inherited[series] = sum(not v.claim.is_range for key in keys for v in p.by_key[key])
        work[entity] += 1 + (inherited[series] if entity in p.official else 0)
    # Each part is a run of entities in name order, cut where no group goes on past the cut: the
    # facts tables of the parts then follow each other in the whole's order (`merge`).
    ordered = sorted(e for e in p.kinds if within is None or e in within)
    last = {root(entity): i for i, entity in enumerate(ordered)}
    cuts: list[tuple[int, int]] = []  # (entities before the cut, their work)
    done, reach = 0, last.get("", -1)  # the first part holds the series
    for i, entity in enumerate(ordered):
        done += work[entity]
        reach = max(reach, last[root(entity)])
        if reach <= i:
            cuts.append((i + 1, done))
    extra = besides * sum(work.values())
    bounds = [0]
    for k in range(len(shares) - 1):
        goal = (done + extra) * sum(shares[: k + 1]) / sum(shares) - extra
        after = [cut for cut in cuts if cut[0] > bounds[-1]]
        bounds.append(min(after, key=lambda cut: abs(cut[1] - goal))[0] if after else len(ordered))
    bounds.append(len(ordered))
    return [frozenset(ordered[a:b]) for a, b in itertools.pairwise(bounds)]


def _series_named(p: Plan) -> Iterator[tuple[str, str]]:
    """Each entity that names a series and the series: as decided, or, for an entity no part
    has taken yet, as its first claim of one says."""
    for (entity, attribute), fact in p.facts.items():
        if attribute == "series" and fact.value_text:
            yield entity, fact.value_text
    for entity, claims in p.pending.items():
        named = next((c.value_text for c in claims if c.attribute == "series" and c.value_text), None)
        if named:
            yield entity, named


def forget(p: Plan, decided: Decided, entities: Iterable[str]) -> None:
    """Drop what deciding `entities` (`decided`) put in `p` once they are finished: no other
    entity's deciding or finishing reads it (`_groups`), and a large build decided a few buckets
    at a time then holds their votes and facts alone, not all of them. A series' votes
    stay, which its sizes' checks read, and its membership, which they inherit by."""
    for key in decided.keys:
        p.facts.pop(key, None)
        if p.kinds[key[0]] != "series":
            p.by_key.pop(key, None)
    for entity in entities:
        if p.kinds.get(entity) != "series":
            p.facts.pop((entity, "series"), None)
            p.by_key.pop((entity, "series"), None)
            p.rest.pop(entity, None)


def let_go(p: Plan) -> None:
    """Drop the votes and facts that deciding and finishing put in `p`, once the parts are made:
    they are most of a large build's memory, and `merge` and the bucket keys (`reads`) read
    only the claims, the rule-made claims and what the plan knows of each entity."""
    p.by_key.clear()
    p.facts.clear()
    p.inheritable.clear()
    p.rest.clear()
    p.pending.clear()
    p.about.clear()
