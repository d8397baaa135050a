"""The rules that speak where no page does: what a size's name says of it (the naming convention:
its vCPU count where its series bears it out, its feature letters, naming.toml, its accelerator,
its series where only one fits), the values a size takes from a sibling of its series and vCPU
count, and how far each rule is trusted, measured on the corpus against the official pages."""

from __future__ import annotations

import hashlib
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from pipeline.knowledge import Knowledge
from pipeline.knowledge.names import SizeName, member_of, parse_size, series_parts
from pipeline.knowledge.registry import AUTHORITATIVE, Source, tiers
from pipeline.knowledge.values import format_number, same_value, with_unit
from pipeline.records import Claim, Diagnostic, Mention
from pipeline.stages.calibrate import log_odds
from pipeline.stages.reconcile.votes import NAME_CONVENTION, SIBLING

SIBLING_PAIRS = 3
"""Sibling pairs that must state an attribute before their agreement on it is learned."""
SIBLING_AGREEMENT = 0.95
"""Share of those pairs that must state the same value for a sibling's value to be evidence."""


def home_series(claims: Sequence[Claim], sources: Mapping[str, Source]) -> dict[str, str]:
    """Each size's series as the official documents (`_official`) place it: the series they
    state most often, of equals the first stated. What the naming convention's groups and the
    siblings are both read by: the aliases step works it out once and hands it to both
    (`name_rules`, `sibling_claims`), each of which works it out itself when not given it."""
    official = _official(sources)
    series: dict[str, Counter[str]] = defaultdict(Counter)
    for c in claims:
        if c.entity_kind == "size" and c.attribute == "series" and c.value_text and c.document in official:
            series[c.entity][c.value_text] += 1
    return {entity: counts.most_common(1)[0][0] for entity, counts in series.items()}


def name_vcpus_hold(
    claims: Sequence[Claim], sources: Mapping[str, Source], homes: Mapping[str, str] | None = None
) -> dict[str, bool]:
    """For each size, whether the number in its name is its vCPU count, learned from the data:
    it holds when more of the other sizes of its series (`homes`, else of its family and
    version) have an official vCPU count equal to their name's number than not. `Standard_D3_v2`
    has 4 vCPUs, and so do the other D_v2 sizes break the rule, so the rule is not used there; a
    series no official page gives vCPU counts for is assumed to follow it."""
    homes = home_series(claims, sources) if homes is None else homes
    official = _official(sources)
    stated: dict[str, set[float]] = defaultdict(set)
    sizes: set[str] = set()
    for c in claims:
        if c.entity_kind != "size":
            continue
        sizes.add(c.entity)
        if c.attribute == "vcpus" and c.value_number is not None and not c.is_range and c.document in official:
            stated[c.entity].add(c.value_number)
    groups: dict[str, list[bool]] = defaultdict(list)
    group_of: dict[str, tuple[str, bool | None]] = {}
    for entity in sorted(sizes):
        size = parse_size(entity)
        if size is None:
            continue
        home = homes.get(entity) or f"{size.family} {size.version or 'v1'}"
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


def sibling_claims(
    claims: Sequence[Claim],
    sources: Mapping[str, Source],
    know: Knowledge,
    homes: Mapping[str, str] | None = None,
) -> Siblings:
    """Values a size no page states, from a sibling: a size of the same series whose name has
    the same vCPU count (`Standard_NV12hs_v3` and `Standard_NV12s_v3`). Only for attributes on
    which such siblings agree throughout the corpus: learned from every pair that both state
    one (at least SIBLING_PAIRS of them, SIBLING_AGREEMENT of them the same), so that GPU counts
    are shared and memory, which the `m` letter changes, is not. Also returns, per learned
    attribute, the log-odds of the pairs' agreement (`rule_agreement`'s measure). `homes` is
    each size's series (`home_series`), worked out here when not given."""
    homes = home_series(claims, sources) if homes is None else homes
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
        if c.method != "derived" and c.attribute not in ("series", "lifecycle", "retirement_date"):
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
        if size is not None and (home := homes.get(entity)):
            families[(home, size.constrained_vcpus or size.vcpus)].append(entity)
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
                            f"{with_unit(str(value), source.unit)}; such sizes agree on {attribute} in "
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
    claims: Sequence[Claim],
    sources: Mapping[str, Source],
    know: Knowledge,
    mentions: Sequence[Mention] = (),
    homes: Mapping[str, str] | None = None,
) -> NameRules:
    """The claims the size names make (`NameRules`), from every claim and the sizes official
    comparison tables name (`mentions`): a size a list names and no document states a value for
    is a size all the same, with what its name says. `homes`: as `name_vcpus_hold` takes it."""
    follows = name_vcpus_hold(claims, sources, homes)
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
    # A size can be of a series of its own family alone (`member_of`): each size is set against
    # those, not every series (at 10,000 documents, 2,000 series for each of 700 sizes).
    of_family: dict[str, list[str]] = defaultdict(list)
    for name in sorted(series):
        if (parts := series_parts(name)) is not None:
            of_family[parts.family].append(name)
    out, diagnostics = [], []
    for entity, (_, where) in sorted(first.items()):
        size = parse_size(entity)
        if size is None:
            continue
        facts = _name_facts(size, know, follows.get(entity, True))
        if entity not in placed:
            fits = _narrowest([name for name in of_family.get(size.family, ()) if member_of(size, name)])
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
