"""Stage: which size names are sizes. A name a document uses for another size is evidence about
that size, never a size of its own; a size only superseded versions of a page list is not current.
Its rules are here and in the naming convention (`knowledge/naming.toml`); its result is not cached
(it reads every claim, in a second): the runner runs it again (`runner.naming`), unless it takes
the tables of the steps after normalize whole from the output it replaces (`runner.reuse`).

Between normalize and reconcile, every size name the claims and the comparison tables use is set
against the others, with nothing but what the sources say. A name no API catalog lists is another
size's name when a size the sources know (an API catalog lists it, or a document that does not
use the name names it):
- is spelled the same but for case and underscores (`ND96isrH100_v5`): certain;
- has one whole token more or less (`ND96isr_v5` for `ND96isr_H100_v5`) while every value the
  name's rows state equals that size's (all but one of at least six, where pages copied a row
  and got a cell wrong): certain with one voice behind it and every value equal, else likely;
- has fewer feature letters, and leaves out no more than the accelerator and the version, of
  the one size of its family and vCPU count an API catalog or an official size table lists,
  while no official size table lists the name itself (a third party's `NG8` for
  `NG8ads_V620_v1`, the migration guide's `ND24r` for `ND24rs`): likely.
Every such name becomes an `Alias` (the `names` table): its claims are moved to the size it means,
keeping the name in `name_as_written`, so its losing values stay in that size's conflicts. A name
whose values differ from every near name, or that is near no known size, is a size as it says.

Another version of the same page (`Source.copy_of`) can drop sizes: a size that only older
versions list, that the newest version's own size tables (of the same series) leave out and no
API catalog or other official page names, is `superseded` (reconcile keeps it unverified and
gives it nothing of its series).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from pipeline.knowledge.names import SizeName, name_tokens, parse_size, skeleton, token_difference
from pipeline.knowledge.registry import AUTHORITATIVE, Source
from pipeline.knowledge.values import prefix_twin_values, same_value, twin_values
from pipeline.records import Claim, Diagnostic, Mention
from pipeline.stages.reconcile import NAME_CONVENTION, SIBLING, listed

MIN_SHARED = 3
"""Values a name must share with the known size, all equal, for a token's difference to
count as another spelling rather than another size."""
ONE_DIFFERENT = 6
"""Equal values that make another spelling of a name whose one other value differs (pages copy
a row and get one cell wrong): never certain."""

CONVENTIONAL = 2
"""Other pairs of sizes a token must tell apart for it to be the convention's variant."""

_RULES = (NAME_CONVENTION, SIBLING)
"""The methods of the claims reconcile's rules make: no document's use of a name."""


@dataclass(frozen=True, slots=True)
class Alias:
    """A size name read as another name of a known size: a row of the `names` table."""

    name: str
    """The name, canonical."""
    size: str
    """The known size it means."""
    certain: bool
    """True: it is that size's name. False: most likely; its claims count for `size` all the same."""
    why: str
    written: tuple[str, ...] = ()
    """The name as the documents write it, each spelling once."""
    uses: tuple[tuple[str, int], ...] = ()
    """Every document and line that uses the name, in order."""


@dataclass(frozen=True, slots=True)
class Names:
    """What the stage decided: the claims with every alias's claims moved to the size it means,
    the aliases, the sizes no current page lists (`superseded`: each with why), a
    `suspect_size_name` diagnostic for each document that uses an alias, and the comparison
    tables' mentions, each of the size it stands for."""

    claims: tuple[Claim, ...]
    aliases: tuple[Alias, ...]
    superseded: Mapping[str, str]
    diagnostics: tuple[Diagnostic, ...]
    mentions: tuple[Mention, ...] = ()


@dataclass(slots=True)
class _Name:
    size: SizeName
    voices: set[str]
    documents: dict[str, int]
    """Each document naming it, with its first line."""
    in_api: bool
    values: dict[str, list[Claim]]
    tabled: bool = False
    """An official size table lists it (a row of its own, not a list or a comparison)."""
    uses: set[tuple[str, int]] = field(default_factory=set)
    written: set[str] = field(default_factory=set)
    distinct: dict[str, list[Claim]] = field(default_factory=dict)
    """Per attribute, the first claim of each value `values` holds: what comparing reads."""

    def distinct_values(self, attribute: str) -> list[Claim]:
        if (known := self.distinct.get(attribute)) is None:
            first: dict[tuple[object, ...], Claim] = {}
            for c in self.values.get(attribute, ()):
                first.setdefault((c.value_number, c.value_bool, c.value_text or c.value), c)
            known = self.distinct[attribute] = list(first.values())
        return known


def resolve(claims: Sequence[Claim], sources: Mapping[str, Source], mentions: Iterable[Mention] = ()) -> Names:
    """The names that are other sizes' names, their claims moved (`Names`). `mentions` are the
    size names the comparison tables write: names too, and the names beside them show which
    tokens are part of the naming convention."""
    mentions = list(mentions)
    names = _names(claims, sources, mentions)
    catalogs = any(s.kind == "api_catalog" for s in sources.values())
    # A token that tells several pairs of sizes apart (`NC6` and `NC6_Promo`, `NC12` and
    # `NC12_Promo`, ...) is a variant the convention knows: with it or without it, a name is
    # another size, not a misspelling. A token only one pair differs by is idiosyncratic.
    variants = _variant_tokens(set(names))
    by_skeleton: dict[str, list[str]] = defaultdict(list)
    by_tokens: dict[tuple[str, ...], list[str]] = defaultdict(list)
    by_count: dict[tuple[str, int, int | None], list[str]] = defaultdict(list)
    for entity, n in names.items():
        by_skeleton[skeleton(n.size)].append(entity)
        tokens = name_tokens(n.size)
        by_tokens[tokens].append(entity)
        for i in range(1, len(tokens)):
            by_tokens[tokens[:i] + tokens[i + 1 :]].append(entity)
        by_count[(n.size.family, n.size.vcpus, n.size.constrained_vcpus)].append(entity)
    aliases: list[Alias] = []
    for entity, n in sorted(names.items()):
        if n.in_api:
            continue
        found = (
            _spelling(entity, n, names, by_skeleton, catalogs)
            or _token(entity, n, names, by_tokens, variants, catalogs)
            or _letters(entity, n, names, by_count, catalogs)
        )
        if found is not None:
            aliases.append(replace(found, written=tuple(sorted(n.written)), uses=tuple(sorted(n.uses))))
    moved = {a.name: a for a in aliases}
    out = tuple(_moved(c, moved[c.entity]) if c.entity_kind == "size" and c.entity in moved else c for c in claims)
    diagnostics = tuple(
        Diagnostic(
            "warning",
            "suspect_size_name",
            document,
            line,
            f"{a.name} is not a size the sources know; it {'is' if a.certain else 'most likely is'} another "
            f"name of {a.size} ({a.why}); its claims count for {a.size}",
        )
        for a in aliases
        for document, line in sorted(names[a.name].documents.items())
    )
    mentioned = tuple(replace(m, size=moved[m.size].size) if m.size in moved else m for m in mentions)
    return Names(out, tuple(aliases), superseded(out, sources), diagnostics, mentioned)


def _moved(c: Claim, alias: Alias) -> Claim:
    how = "read as" if alias.certain else "most likely"
    return replace(
        c,
        entity=alias.size,
        name_as_written=c.name_as_written or c.entity,
        interpretation="; ".join(p for p in (c.interpretation, f"{c.entity} {how} {alias.size}: {alias.why}") if p),
    )


def _spelling(
    entity: str, n: _Name, names: Mapping[str, _Name], by_skeleton: Mapping[str, list[str]], catalogs: bool
) -> Alias | None:
    """The same name as a known size but for case and underscores."""
    known = sorted(k for k in by_skeleton[skeleton(n.size)] if k != entity and _known(names[k], n))
    if not known:
        return None
    best = known[0]
    why = f"the same name as {best} but for case and underscores; {_standing(names[best], catalogs)}"
    return Alias(entity, best, True, why)


def _token(
    entity: str,
    n: _Name,
    names: Mapping[str, _Name],
    by_tokens: Mapping[tuple[str, ...], list[str]],
    variants: Counter[str],
    catalogs: bool,
) -> Alias | None:
    """A known size's name with one whole token more or less, whose values the name's rows repeat."""
    tokens = name_tokens(n.size)
    near = {k for k in by_tokens.get(tokens, ()) if k != entity and _known(names[k], n)}
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
        return None
    matches.sort()
    _, _, best, (how, token), equal, differ = matches[0]
    one_voice = len(n.voices) == 1
    reasons = [
        f"{'drops' if how == 'dropped' else 'adds'} the token {token} {'of' if how == 'dropped' else 'to'} {best}",
        f"every value equal to {best} ({_shown(equal)})"
        if not differ
        else f"{len(equal)} of {len(equal) + 1} values equal to {best} ({_shown(equal)}; not {differ[0]})",
        "named by one document only" if one_voice else f"named by {len(n.voices)} documents",
        "absent from the API" if catalogs else "no API catalog to ask",
    ]
    if len(matches) > 1:
        reasons.append(f"also near {', '.join(m[2] for m in matches[1:])}")
    return Alias(entity, best, one_voice and not differ and len(matches) == 1, "; ".join(reasons))


def _letters(
    entity: str,
    n: _Name,
    names: Mapping[str, _Name],
    by_count: Mapping[tuple[str, int, int | None], list[str]],
    catalogs: bool,
) -> Alias | None:
    """The one listed size of the name's family and vCPU count that has the name's feature letters
    and more, and the same accelerator and version where the name writes them: a name no
    official size table lists, written without letters it should have (`ND24r` for `ND24rs`)."""
    if n.tabled:
        return None
    mine = set(n.size.features)
    candidates = []
    for k in by_count[(n.size.family, n.size.vcpus, n.size.constrained_vcpus)]:
        other = names[k]
        if k == entity or not (other.in_api or other.tabled) or not mine < set(other.size.features):
            continue
        if (n.size.version or "v1") != (other.size.version or "v1"):
            continue
        if n.size.accelerator and n.size.accelerator.casefold() != (other.size.accelerator or "").casefold():
            continue
        if n.documents.keys() & other.documents.keys():
            continue  # a page that names both tells them apart
        candidates.append((len(other.size.features) - len(mine), k))
    candidates.sort()
    if not candidates or (len(candidates) > 1 and candidates[1][0] == candidates[0][0]):
        return None
    best = names[candidates[0][1]]
    known = best.size
    left = "".join(c for c in known.features if c not in mine)
    parts = [f"the feature letter{'s' if len(left) > 1 else ''} '{left}'"]
    if known.accelerator and not n.size.accelerator:
        parts.append(f"the accelerator {known.accelerator}")
    if known.version and not n.size.version:
        parts.append(f"the version {known.version}")
    equal, differ = _compare(n, best)
    stated = "; ".join(
        p for p in (f"{_shown(equal)} equal" if equal else "", ", ".join(differ[:3]) if differ else "") if p
    )
    where = (
        "an API catalog and an official size table"
        if best.in_api and best.tabled
        else ("an API catalog" if best.in_api else "an official size table")
    )
    reasons = [
        f"leaves out {listed(parts)} of {known.canonical}, the one size of family {known.family} with "
        f"{n.size.vcpus} vCPUs and those letters that {where} lists",
        f"no {'API catalog or ' if catalogs else ''}official size table lists {n.size.canonical}",
        f"named by {len(n.voices)} document{'s' if len(n.voices) > 1 else ''}",
    ]
    if stated:
        reasons.append(f"its values: {stated}")
    return Alias(entity, known.canonical, False, "; ".join(reasons))


def _shown(equal: Sequence[str]) -> str:
    return ", ".join(equal[:4]) + (", ..." if len(equal) > 4 else "")


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


def _names(claims: Sequence[Claim], sources: Mapping[str, Source], mentions: Sequence[Mention]) -> dict[str, _Name]:
    out: dict[str, _Name] = {}
    # What a document says of each name it writes, looked up once per document, not per claim.
    voice = {path: (src.voice, src.kind) for path, src in sources.items()}

    def name(entity: str, document: str, line: int, written: str | None) -> _Name | None:
        n = out.get(entity)
        if n is None:
            size = parse_size(entity)
            if size is None:
                return None
            n = out[entity] = _Name(size, set(), {}, False, defaultdict(list))
        who, kind = voice.get(document, (document, "third_party"))
        n.voices.add(who)
        if (first := n.documents.get(document)) is None or line < first:
            n.documents[document] = line
        n.in_api = n.in_api or kind == "api_catalog"
        n.uses.add((document, line))
        n.written.add(written or entity)
        return n

    for c in claims:
        if c.entity_kind != "size" or c.method in _RULES:
            continue
        n = name(c.entity, c.document, c.line, c.name_as_written)
        if n is None:
            continue
        if c.method == "table" and voice[c.document][1] == "official_spec":
            n.tabled = True
        if c.method not in ("derived", "mention") and not c.is_range:
            n.values[c.attribute].append(c)
    for m in mentions:
        if m.size:
            name(m.size, m.document, m.line, m.written)
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


# ------------------------------------------------------------------ superseded versions


def superseded(claims: Sequence[Claim], sources: Mapping[str, Source]) -> dict[str, str]:
    """The sizes only older versions of a page list (`Source.copy_of`), left out of the newest
    version's own size tables, though those list sizes of the same series; none that an API
    catalog or a page outside the versions names. Each with why, naming both documents."""
    listed: dict[str, set[str]] = defaultdict(set)  # document -> sizes its size tables list
    series: dict[tuple[str, str], str] = {}  # (document, size) -> the series it lists it under
    named_by: dict[str, set[str]] = defaultdict(set)  # size -> authoritative documents naming it
    for c in claims:
        if c.entity_kind != "size" or c.method in _RULES:
            continue
        if sources[c.document].kind in AUTHORITATIVE:
            named_by[c.entity].add(c.document)
        if c.method == "table":
            listed[c.document].add(c.entity)
        if c.attribute == "series" and c.value_text:
            series.setdefault((c.document, c.entity), c.value_text)
    # Indexed once, not for each older version (10,000 documents): each version's documents,
    # and the sizes each document's tables list under each series.
    versions: dict[str, set[str]] = defaultdict(set)
    for path, src in sources.items():
        versions[src.voice].add(path)
    of_series: dict[tuple[str, str], list[str]] = defaultdict(list)
    for document, sizes in listed.items():
        for size in sorted(sizes):
            if under := series.get((document, size)):
                of_series[(document, under)].append(size)
    out: dict[str, str] = {}
    for older, src in sorted(sources.items()):
        newest = src.copy_of
        if not newest or newest not in listed or src.kind == "api_catalog":
            continue
        group = versions.get(newest, set())
        for size in sorted(listed[older] - listed[newest]):
            if named_by[size] - group or size in out:
                continue
            under = series.get((older, size))
            same = of_series.get((newest, under), []) if under else []
            if not same:
                continue
            out[size] = (
                f"only {_dated(older, sources)} lists it; the current version {_dated(newest, sources)} lists "
                f"{len(same)} size{'s' if len(same) > 1 else ''} of series {under}, and not this one"
            )
    return out


def _dated(path: str, sources: Mapping[str, Source]) -> str:
    when = sources[path].as_of
    return f"{path} ({when.isoformat()})" if when else path
