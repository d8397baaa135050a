"""Facts finished once their keys are decided: flagged stale where a newer page says nothing of
them, their reasons completed, their confidences computed from their evidence (the model of
`pipeline.stages.calibrate`, with the rules' measured agreement), in place (`_finished`); and parts
decided apart joined into one result (`merge`)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Container, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from pipeline.records import Claim, Conflict, Evidence, Fact, Reconciled, twin_of, values_of
from pipeline.stages.calibrate import Model
from pipeline.stages.reconcile.planning import Decided, Plan, last_checks
from pipeline.stages.reconcile.reasons import _sibling_index, _sibling_match


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
