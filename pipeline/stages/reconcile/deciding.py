"""One key decided: its votes grouped by value and ranked, the winning value made a `Fact` with its
status, reason, basis and evidence (its confidence comes when it is finished), and a `Conflict` row
for each value where several compete."""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from operator import itemgetter

from pipeline.knowledge import Knowledge
from pipeline.knowledge.registry import AUTHORITATIVE, Tier
from pipeline.records import Conflict, Evidence, Fact
from pipeline.stages.reconcile.reasons import _agreement, _label, _why
from pipeline.stages.reconcile.votes import NAME_CONVENTION, SIBLING, _group, _group_key, _Vote


def _decide(
    key: tuple[str, str],
    kind: str,
    votes: list[_Vote],
    official: set[str],
    tier: Mapping[str, Tier],
    know: Knowledge,
) -> tuple[Fact, list[Conflict]]:
    if len(votes) == 1:  # most keys: one claim, nothing to group, rank or set against it
        return _decide_one(key, kind, votes[0], official, tier), []
    entity, attribute = key
    keyed = sorted(((_group_key(g), g) for g in _group(votes, attribute, know)), key=itemgetter(0), reverse=True)
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
