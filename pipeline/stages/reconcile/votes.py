"""Claims as votes: who speaks (a document, the document it copies, the naming convention, a
sibling), how loud (its source's tier and trust, sources.toml, less for running text, derived
values and older snapshots), and the votes that state one value grouped and ranked."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from pipeline.knowledge import Knowledge
from pipeline.knowledge.registry import Source, Tier
from pipeline.knowledge.values import same_value, twin_values
from pipeline.records import Claim

NAME_CONVENTION = "name_convention"
SIBLING = "sibling"
PROSE = ("paragraph", "bullet", "note")
OLDER_SNAPSHOT = 0.97
"""Weight of a claim from a document a newer version supersedes and neither is dated: an older
snapshot of a machine-made catalog."""


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


def _group_key(g: _Group) -> tuple[float, int, int, str]:
    best = g.best
    top = best.weight  # the best vote is the heaviest (`_vote_key`)
    newest = max((v.as_of.toordinal() for v in g.votes if v.as_of and v.weight >= top - 1e-9), default=0)
    return (round(top, 6), newest, len(g.voices), best.claim.claim_id)
