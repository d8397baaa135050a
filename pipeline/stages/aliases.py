"""Names that do not exist: a size name a document misspells is evidence about the size it
means, never a new size.

Between normalize and reconcile, every size name the claims use is set against the others. A
name that no API catalog lists is a suspect when a size the sources do know (an API catalog
lists it, or a document that does not use the suspect name names it) is spelled the same but
for case and underscores (`ND96isrH100_v5`), or has one whole token more or less
(`ND96isr_v5` for `ND96isr_H100_v5`) while every value the suspect's rows state equals that
size's. A spelling, or a token with one voice behind it, is certain: its claims are moved to
the known size, keeping the name in `name_as_written`. Otherwise the suspect stays a size of
its own, `unverified` and linked to the known one. Both get a `suspect_size_name` diagnostic.
A name whose values differ from every near name is a new size, as it says.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from pipeline.knowledge.names import SizeName, name_tokens, parse_size, skeleton, token_difference
from pipeline.knowledge.registry import Source
from pipeline.knowledge.values import prefix_twin_values, same_value, twin_values
from pipeline.records import Claim, Diagnostic

MIN_SHARED = 3
"""Values a suspect must share with the known size, all equal, for a token's difference to
count as a misspelling rather than another size."""
ONE_DIFFERENT = 6
"""Equal values that make a suspect of a name whose one other value differs (pages copy a
row and get one cell wrong): never certain, so it stays a size, unverified and linked."""

CONVENTIONAL = 2
"""Other pairs of sizes a token must tell apart for it to be the convention's variant."""

_RULES = ("name_convention", "sibling")


@dataclass(frozen=True, slots=True)
class Alias:
    """A size name read as another name of a known size."""

    name: str
    """The suspect name, canonical."""
    size: str
    """The known size it most likely means."""
    certain: bool
    """True: its claims count for `size`. False: it stays a size, unverified, linked to `size`."""
    why: str


@dataclass(slots=True)
class _Name:
    size: SizeName
    voices: set[str]
    documents: dict[str, int]
    """Each document naming it, with its first line."""
    in_api: bool
    values: dict[str, list[Claim]]
    distinct: dict[str, list[Claim]] = field(default_factory=dict)
    """Per attribute, the first claim of each value `values` holds: what comparing reads."""

    def distinct_values(self, attribute: str) -> list[Claim]:
        if (known := self.distinct.get(attribute)) is None:
            first: dict[tuple[object, ...], Claim] = {}
            for c in self.values.get(attribute, ()):
                first.setdefault((c.value_number, c.value_bool, c.value_text or c.value), c)
            known = self.distinct[attribute] = list(first.values())
        return known


def resolve(
    claims: Sequence[Claim], sources: Mapping[str, Source], mentioned: Iterable[str] = ()
) -> tuple[tuple[Claim, ...], tuple[Alias, ...], tuple[Diagnostic, ...]]:
    """The claims with each certain alias's claims moved to the size it means, the aliases
    found, and a diagnostic per document that uses a suspect name. `mentioned` are the other
    size names the documents write (comparison tables): they show which tokens are part of the
    naming convention."""
    names = _names(claims, sources)
    catalogs = any(s.kind == "api_catalog" for s in sources.values())
    # A token that tells several pairs of sizes apart (`NC6` and `NC6_Promo`, `NC12` and
    # `NC12_Promo`, ...) is a variant the convention knows: with it or without it, a name is
    # another size, not a misspelling. A token only one pair differs by is idiosyncratic.
    spelled = {p.canonical for m in mentioned if (p := parse_size(m))} | set(names)
    variants = _variant_tokens(spelled)
    by_skeleton: dict[str, list[str]] = defaultdict(list)
    by_tokens: dict[tuple[str, ...], list[str]] = defaultdict(list)
    for entity, n in names.items():
        by_skeleton[skeleton(n.size)].append(entity)
        tokens = name_tokens(n.size)
        by_tokens[tokens].append(entity)
        for i in range(1, len(tokens)):
            by_tokens[tokens[:i] + tokens[i + 1 :]].append(entity)
    aliases: list[Alias] = []
    for entity, n in sorted(names.items()):
        if n.in_api:
            continue
        known = [k for k in by_skeleton[skeleton(n.size)] if k != entity and _known(names[k], n)]
        if known:
            [best] = sorted(known)[:1]
            why = f"the same name as {best} but for case and underscores; {_standing(names[best], catalogs)}"
            aliases.append(Alias(entity, best, True, why))
            continue
        near = {k for k in by_tokens[name_tokens(n.size)] if k != entity and _known(names[k], n)}
        tokens = name_tokens(n.size)
        for i in range(1, len(tokens)):
            near |= {k for k in by_tokens.get(tokens[:i] + tokens[i + 1 :], ()) if k != entity and _known(names[k], n)}
        matches = []
        for k in sorted(near):
            diff = token_difference(n.size, names[k].size)
            if not diff or variants[diff[1]] > CONVENTIONAL:  # this pair and at least CONVENTIONAL others
                continue
            equal, differ = _compare(n, names[k])
            if (not differ and len(equal) >= MIN_SHARED) or (len(differ) == 1 and len(equal) >= ONE_DIFFERENT):
                matches.append((len(differ), -len(equal), k, diff, equal, differ))
        if not matches:
            continue
        matches.sort()
        _, _, best, (how, token), equal, differ = matches[0]
        one_voice = len(n.voices) == 1
        certain = one_voice and not differ and len(matches) == 1
        shown = ", ".join(equal[:4]) + (", ..." if len(equal) > 4 else "")
        reasons = [
            f"{'drops' if how == 'dropped' else 'adds'} the token {token} {'of' if how == 'dropped' else 'to'} {best}",
            f"every value equal to {best} ({shown})"
            if not differ
            else f"{len(equal)} of {len(equal) + 1} values equal to {best} ({shown}; not {differ[0]})",
            "named by one document only" if one_voice else f"named by {len(n.voices)} documents",
            "absent from the API" if catalogs else "no API catalog to ask",
        ]
        if len(matches) > 1:
            reasons.append(f"also near {', '.join(m[2] for m in matches[1:])}")
        aliases.append(Alias(entity, best, certain, "; ".join(reasons)))
    moved = {a.name: a for a in aliases if a.certain}
    out = tuple(
        replace(
            c,
            entity=moved[c.entity].size,
            name_as_written=c.name_as_written or c.entity,
            interpretation="; ".join(
                p for p in (c.interpretation, f"{c.entity} read as {moved[c.entity].size}: {moved[c.entity].why}") if p
            ),
        )
        if c.entity_kind == "size" and c.entity in moved
        else c
        for c in claims
    )
    diagnostics = tuple(
        Diagnostic(
            "warning",
            "suspect_size_name",
            document,
            line,
            f"{a.name} is not a size the sources know; it most likely means {a.size} ({a.why}); "
            + (
                f"its claims count for {a.size}"
                if a.certain
                else f"kept as an unverified size of its own, linked to {a.size}"
            ),
        )
        for a in aliases
        for document, line in sorted(names[a.name].documents.items())
    )
    return out, tuple(aliases), diagnostics


def _variant_tokens(spelled: set[str]) -> Counter[str]:
    """For each token, how many pairs of the names differ by it alone (one name has it, the
    other is the same name without it)."""
    pairs: Counter[str] = Counter()
    for name in spelled:
        size = parse_size(name)
        if size is None:
            continue
        tokens = name_tokens(size)
        for i in range(1, len(tokens)):
            shorter = "_".join((size.canonical.split("_", 1)[0], *tokens[:i], *tokens[i + 1 :]))
            if shorter in spelled:
                pairs[tokens[i]] += 1
    return pairs


def _names(claims: Sequence[Claim], sources: Mapping[str, Source]) -> dict[str, _Name]:
    out: dict[str, _Name] = {}
    # What a document says of each name it writes, looked up once per document, not per claim.
    voice = {path: (src.voice, src.kind == "api_catalog") for path, src in sources.items()}
    for c in claims:
        if c.entity_kind != "size" or c.method in _RULES:
            continue
        n = out.get(c.entity)
        if n is None:
            size = parse_size(c.entity)
            if size is None:
                continue
            n = out[c.entity] = _Name(size, set(), {}, False, defaultdict(list))
        who, api = voice[c.document]
        n.voices.add(who)
        if (first := n.documents.get(c.document)) is None or c.line < first:
            n.documents[c.document] = c.line
        if api:
            n.in_api = True
        if c.method != "derived" and not c.is_range:
            n.values[c.attribute].append(c)
    return out


def _known(candidate: _Name, suspect: _Name) -> bool:
    """Whether the sources know `candidate` apart from the suspect's own documents: an API
    catalog lists it, or a voice that does not use the suspect name names it."""
    return candidate.in_api or bool(candidate.voices - suspect.voices)


def _standing(n: _Name, catalogs: bool) -> str:
    where = "an API catalog lists it" if n.in_api else "no API catalog lists it" if catalogs else "no API catalog here"
    return f"{n.size.canonical} is named by {len(n.voices)} document(s), {where}"


def _compare(suspect: _Name, known: _Name) -> tuple[list[str], list[str]]:
    """The attributes both state, as `attribute value`: those where every value the suspect
    states is one the known size states, and those where one is not (`attribute X against Y`)."""
    equal, differ = [], []
    for attribute, stated in sorted(suspect.values.items()):
        theirs = known.values.get(attribute)
        if not theirs:
            continue
        # A claim is compared by its value alone, so each value once: a size many pages state
        # has many claims of few values.
        mine, distinct = suspect.distinct_values(attribute), known.distinct_values(attribute)
        odd = next((c for c in mine if not any(_same(c, t) for t in distinct)), None)
        if odd is None:
            equal.append(f"{attribute} {stated[0].value}")
        else:
            differ.append(f"{attribute} {odd.value} against {theirs[0].value}")
    return equal, differ


def _same(a: Claim, b: Claim) -> bool:
    """One value, a GB/GiB reading of one quantity (as reconcile counts agreement), or a
    binary prefix read as decimal: rows copied from one another round capacities either way,
    and that says nothing against their being one size's rows."""
    return same_value(a, b, 0.002) or twin_values(a, b) or prefix_twin_values(a, b)
