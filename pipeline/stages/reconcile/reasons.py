"""The words of a fact's reason: what decided between the winning value and its strongest rival
(`_why`), which sources agree (`_agreement`), each source's label (sources.toml), and the retired or
superseded sibling whose value a losing claim matches (`_sibling_match`)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence

from pipeline.knowledge.names import parse_size
from pipeline.knowledge.registry import Tier
from pipeline.knowledge.values import close, with_unit
from pipeline.records import TABULAR_METHODS, Claim, Fact
from pipeline.stages.reconcile.votes import NAME_CONVENTION, PROSE, _Group, _voice, _Vote


def _label(v: _Vote, tier: Mapping[str, Tier]) -> str:
    label = tier[v.source_kind].label
    if v.as_of:
        label += f" ({v.as_of.isoformat()})"
    return label


def _why(
    best: _Vote, rival: _Vote, top: tuple[object, ...], runner: tuple[object, ...], tier: Mapping[str, Tier]
) -> str:
    """What decided between the winning value and its strongest rival, in the order the
    decision weighs it (`_group_key`): the weight of the best claim, then how new it is; the
    reason names what set the weights apart, never a date that did not decide."""
    said = with_unit(rival.claim.value, rival.claim.unit)
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
    if best.claim.method in TABULAR_METHODS and rival.claim.method in PROSE:
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
            parts.append(f"{n} {tier[kind].plural}")
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
