"""Reconcile's entities in buckets and parts (`pipeline.runner.bucketing`): parts decided and
finished apart, in any order, are the whole; a bucket holds whole groups and stays put when other
pages change; and a part decided a few buckets at a time, what it put in the plan let go between
them, is the whole too."""

from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import replace

import pytest

from pipeline.knowledge.names import parse_size
from pipeline.knowledge.registry import Source
from pipeline.records import Claim
from pipeline.runner.bucketing import buckets, divide, forget, rates_read
from pipeline.stages.reconcile import (
    NAME_CONVENTION,
    SIBLING,
    decide,
    finish,
    merge,
    plan,
    reconcile,
)


@pytest.mark.parametrize("parts", [2, 3])
@pytest.mark.parametrize("backwards", [False, True], ids=["first part first", "last part first"])
def test_entities_decided_in_parts_and_merged_are_the_whole(
    evidence: tuple[list[Claim], dict[str, Source]], parts: int, backwards: bool
) -> None:
    """A large build decides its entities in two processes (`divide`): each part decided and
    finished apart, in either order, then merged, must be exactly what one reconcile of
    everything gives (a size inherits its series' votes as they were before the series' own
    checks); a size no current page lists (`unverified`) is unverified whichever part decides it."""
    claims, sources = evidence
    claims = [c for c in claims if c.method != SIBLING]
    unverified = {"Standard_NC40rs_v2": "only an older version of a page lists it"}
    claims.append(
        replace(
            next(c for c in claims if c.entity == "Standard_ND40rs_v2" and c.attribute == "memory_gib"),
            claim_id="suspect-memory",
            entity="Standard_NC40rs_v2",
            value="670",
            value_number=670.0,
        )
    )
    whole = reconcile(claims, sources, unverified=unverified)
    p = plan(claims, sources, unverified=unverified)
    sets = divide(p, [1 / parts] * parts)
    assert all(s for s in sets) and len(set().union(*sets)) == sum(len(s) for s in sets) == len(p.kinds)
    # Runs of names in order, so that the parts' tables follow each other in the whole's order.
    assert all(max(a) < min(b) for a, b in itertools.pairwise(sets))
    holding = {entity: i for i, entities in enumerate(sets) for entity in entities}
    families = {}
    for entity in p.kinds:
        if size := parse_size(entity):
            assert families.setdefault((size.family, size.vcpus), holding[entity]) == holding[entity], entity
    done = {i: finish(p, decide(p, sets[i]), sets[i]) for i in (reversed(range(parts)) if backwards else range(parts))}
    merged = merge(p, [done[i] for i in range(parts)])
    assert merged.facts == whole.facts and len(whole.facts) > 1000
    assert merged.conflicts == whole.conflicts
    assert merged.checks == whole.checks and merged.name_claims == whole.name_claims
    kept = next(f for f in merged.facts if (f.entity, f.attribute) == ("Standard_NC40rs_v2", "memory_gib"))
    assert kept.status == "unverified"
    assert kept.reason.startswith("Not current: only an older version of a page lists it; only the official")


def test_buckets_decided_apart_are_the_whole_and_stay_put_when_others_change(
    evidence: tuple[list[Claim], dict[str, Source]],
) -> None:
    """A build keeps its decisions by bucket (`buckets`): a bucket holds whole groups (a family
    and vCPU count, a suspect with the size it means), the series are in bucket 0, and an
    entity's bucket depends on its group alone, so it is the same when other pages change."""
    claims, sources = evidence
    claims = [c for c in claims if c.method != SIBLING]
    p = plan(claims, sources)
    bucket_of = buckets(p, 8)
    assert {bucket_of[e] for e, kind in p.kinds.items() if kind == "series"} == {0}
    assert len(set(bucket_of.values())) > 4
    families: dict[tuple[str, int], int] = {}
    for entity in p.kinds:
        if size := parse_size(entity):
            assert families.setdefault((size.family, size.vcpus), bucket_of[entity]) == bucket_of[entity], entity
    whole = reconcile(claims, sources)
    sets = [frozenset(e for e, b in bucket_of.items() if b == k) for k in sorted(set(bucket_of.values()))]
    merged = merge(p, [finish(p, decide(p, s), s) for s in reversed(sets)])
    assert merged.facts == whole.facts and merged.conflicts == whole.conflicts and merged.checks == whole.checks
    fewer = [c for c in claims if c.document != claims[0].document]
    again = buckets(plan(fewer, sources), 8)
    assert all(again[e] == bucket_of[e] for e in again)


def test_buckets_decided_one_at_a_time_and_forgotten_are_the_whole(
    evidence: tuple[list[Claim], dict[str, Source]],
) -> None:
    """A part is decided a few buckets at a time, and what deciding them put in the plan is
    let go before the next (`forget`): the facts are those of one reconcile of everything,
    and once a bucket is done the plan holds none of its sizes' votes or facts, but still
    every series' votes, which the sizes of later buckets inherit and are checked against.
    A size's series is decided with the size, not in `plan`: a build that decides a few
    buckets again votes on their sizes alone."""
    claims, sources = evidence
    claims = [c for c in claims if c.method != SIBLING]
    whole = reconcile(claims, sources)
    p = plan(claims, sources)
    assert not any(p.kinds[entity] == "size" for entity, _ in (*p.by_key, *p.facts))
    bucket_of = buckets(p, 8)
    series_votes = {key for key in p.by_key if p.kinds[key[0]] == "series"}
    done = []
    for k in sorted(set(bucket_of.values())):
        chunk = frozenset(e for e, b in bucket_of.items() if b == k)
        decided = decide(p, chunk)
        assert {entity for entity, _ in p.facts if p.kinds[entity] == "size"} <= chunk
        done.append(finish(p, decided, chunk))
        forget(p, decided, chunk)
        assert not any(key[0] in chunk and p.kinds[key[0]] == "size" for key in (*p.by_key, *p.facts))
        assert not any(e in chunk for e in p.rest if p.kinds[e] == "size")
        assert series_votes <= set(p.by_key)
    merged = merge(p, done)
    assert merged.facts == whole.facts and len(whole.facts) > 1000
    assert merged.conflicts == whole.conflicts and merged.checks == whole.checks
    assert all(p.kinds[entity] == "series" and attribute == "series" for entity, attribute in p.facts)


def test_the_rates_a_bucket_reads_are_those_of_its_facts_made_by_a_rule(
    evidence: tuple[list[Claim], dict[str, Source]],
) -> None:
    """`rates_read` tells, for each entity, the rules' agreement its confidences read: a
    vCPU count only the naming convention states reads the convention's measured vCPU rate."""
    claims, sources = evidence
    p = plan(claims, sources)
    done = finish(p, decide(p))
    read = rates_read(p, done.facts)
    by_rule = [f for f in done.facts if f.evidence is not None and f.evidence.rule_of == NAME_CONVENTION]
    assert by_rule and set(read) <= {f.entity for f in done.facts}
    f = next(f for f in by_rule if (NAME_CONVENTION, f.attribute) in p.rules)
    rule = (NAME_CONVENTION, f.attribute)
    assert (rule, p.rules[rule]) in read[f.entity]
    assert all(f.entity not in read for f in done.facts if f.entity_kind == "series")


def test_the_part_whose_process_also_makes_the_claims_table_is_the_smaller_the_fewer_there_are_to_decide(
    evidence: tuple[list[Claim], dict[str, Source]],
) -> None:
    """The build process decides the first part while it makes the claims table, whose cost is
    the same however few entities a build decides again (`besides`): its part is smaller than
    without it, and the more so, as a share of the work, when only a few buckets are decided."""
    claims, sources = evidence
    claims = [c for c in claims if c.method != SIBLING]
    p = plan(claims, sources)
    stated = Counter(c.entity for c in claims)

    def first_share(within: frozenset[str] | None, besides: float) -> tuple[frozenset[str], float]:
        first, second = divide(p, (0.5, 0.5), within, besides=besides)
        assert first | second == (within or frozenset(p.kinds))
        return first, sum(stated[e] for e in first) / sum(stated[e] for e in first | second)

    few = frozenset(e for e, b in buckets(p, 8).items() if b in (0, 1, 2))
    (every_alone, every_alone_share), (every, every_share) = first_share(None, 0.0), first_share(None, 0.08)
    (few_alone, few_alone_share), (some, some_share) = first_share(few, 0.0), first_share(few, 0.08)
    assert every < every_alone and some < few_alone  # shorter runs of names
    assert few_alone_share - some_share > every_alone_share - every_share > 0
