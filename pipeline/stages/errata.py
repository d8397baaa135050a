"""Errata: what the official documents and the API catalogs get wrong now, ready to send upstream.
Not cached: made with the tables (`runner.tables`), and taken whole with them from the output a build
replaces when nothing they were made from changed (`runner.reuse`).

Reconcile already finds where a document contradicts its own include, another current official
page or the API, where a value fails a physical check or its series' pattern, and normalize where a
header's unit is not the unit of its numbers. This stage gathers each such value of an official
page or an API catalog into one `Erratum`: the document and line, the text as written, the value
the evidence supports, the evidence (the other lines, the check), the kind and how sure it is.

An update is not an erratum: a value a newer page of the same standing replaced (`superseded` in
conflicts) stays out, and so do the sizes no current page lists and the values only a rule
(the naming convention, a sibling) or a computation gives: an erratum is a line someone wrote.
"""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from pipeline.knowledge.registry import AUTHORITATIVE, Source, tiers
from pipeline.knowledge.values import format_number, with_unit
from pipeline.records import Claim, Conflict, Diagnostic, UnitMismatch
from pipeline.stages.reconcile import NAME_CONVENTION, SIBLING

_SERIES_CHECKS = ("series_range", "series_value")
"""Checks that set a size's value against what the series' include states."""

_WRITTEN = (NAME_CONVENTION, SIBLING, "derived")
"""Methods of claims no one wrote as such: never an erratum of their own."""


@dataclass(frozen=True, slots=True)
class Erratum:
    """A value an official document or an API catalog states now that the evidence says is wrong."""

    kind: str
    """One of `records.ERRATA_KINDS`."""
    document: str
    line: int
    entities: tuple[str, ...]
    """The sizes or series the value is stated for (a series' include speaks for all its sizes)."""
    attribute: str
    written: str
    """The text as the document writes it."""
    value: str
    """The value as read, with its unit."""
    supported: str | None
    """The value the evidence supports, with its unit; None where the evidence says only that it is wrong."""
    evidence: str
    evidence_at: tuple[str, ...]
    """document:line of each statement behind the evidence."""
    sure: float
    """How sure the erratum is, from 0 to 1: the confidence of the supported value, or where no
    other value won, one less the confidence left to the value itself."""

    @property
    def erratum_id(self) -> str:
        key = f"{self.kind}\x1f{self.document}\x1f{self.line}\x1f{self.attribute}\x1f{self.value}"
        return hashlib.sha1(key.encode()).hexdigest()[:16]


@dataclass(frozen=True, slots=True)
class Chosen:
    """What errata read of a fact: its value with its unit, its confidence and where it stands."""

    value: str
    confidence: float
    at: str
    """document:line of the fact's winning claim."""
    sources: int = 1
    """Independent sources stating the value."""


def read_by_errata(
    claims: Iterable[Claim],
    conflicts: Sequence[Conflict],
    checks: Mapping[str, tuple[str, ...]],
    diagnostics: Sequence[Diagnostic],
) -> tuple[list[Claim], set[tuple[str, str]], set[tuple[str, str]]]:
    """What `errata` reads, picked from every claim before a large build lets them go: the claims
    of the disputed values, those a check fails and those on a line whose header's unit is wrong;
    the facts it needs, by (entity, attribute); and the (series, attribute) whose sizes' facts it
    needs too (a series' value that loses for one size may hold for the others)."""
    cited = {i for row in conflicts for i in row.claims} | {i for i, failed in checks.items() if failed}
    units: dict[tuple[str, int | None], list[str]] = defaultdict(list)
    for d in diagnostics:
        if u := _mismatch(d):
            units[(d.document, d.line)].append(u.attribute)
    claims = list(claims)
    picked = [c for c in claims if c.claim_id in cited or (c.document, c.line) in units]
    # A series range that ends on a slip of its series' pattern was copied from it; one that leaves
    # out several sizes' values is wrong itself.
    slips = {(c.attribute, c.value_number) for c in picked if _slipped(checks.get(c.claim_id, ()))}
    spans = {span for c in picked for f in checks.get(c.claim_id, ()) if (span := _span(c.attribute, f))}
    picked += [
        c
        for c in claims
        if c.is_range and ({(c.attribute, c.range_min), (c.attribute, c.range_max)} & slips or _ends(c) in spans)
    ]
    keys = {(row.entity, row.attribute) for row in conflicts} | {(c.entity, c.attribute) for c in picked}
    keys |= {(c.entity, attribute) for c in picked for attribute in units.get((c.document, c.line), ())}
    series = {(c.entity, c.attribute) for c in picked if c.entity_kind == "series"}
    return picked, keys, series


def errata(
    claims: Sequence[Claim],
    conflicts: Sequence[Conflict],
    checks: Mapping[str, tuple[str, ...]],
    chosen: Mapping[tuple[str, str], Chosen],
    diagnostics: Iterable[Diagnostic],
    sources: Mapping[str, Source],
    members: Mapping[str, Sequence[str]] | None = None,
    not_current: Iterable[str] = (),
) -> tuple[Erratum, ...]:
    """Every erratum the build's records show, one per document, line, attribute and value (a
    series' value its sizes all inherit is one erratum), in document and line order. `chosen`
    holds the facts `read_by_errata` asks for, `members` each series' sizes, `not_current` the
    sizes no current page lists (`aliases.superseded`)."""
    found = _Errata({c.claim_id: c for c in claims}, chosen, sources, members or {}, set(not_current))
    found.disputes(conflicts)
    found.ranges(claims, checks)
    found.checks(checks)
    found.units(diagnostics, claims)
    return found.listed()


@dataclass
class _Errata:
    """The errata found so far, one per document, line, attribute and value, and the claims whose
    value a newer page replaced (an update: never an erratum, whatever it fails)."""

    by_id: Mapping[str, Claim]
    chosen: Mapping[tuple[str, str], Chosen]
    sources: Mapping[str, Source]
    members: Mapping[str, Sequence[str]]
    stale: set[str]
    found: dict[tuple[str, int, str, str], _Found] = field(default_factory=dict)
    seen: set[str] = field(default_factory=set)
    """Claims judged by their dispute: an erratum, or an update."""

    def add(
        self, c: Claim, kind: str, entity: str, supported: str | None, evidence: str, at: Iterable[str], sure: float
    ) -> None:
        key = (c.document, c.line, c.attribute, c.value)
        held = self.found.get(key)
        if held is None:
            self.found[key] = _Found(kind, c, [entity], supported, evidence, sorted(set(at)), sure)
        elif entity not in held.entities:
            held.entities.append(entity)

    def disputes(self, conflicts: Sequence[Conflict]) -> None:
        """Each losing value an official page or a catalog states now, that no newer page replaced."""
        by_key: dict[tuple[str, str], list[Conflict]] = defaultdict(list)
        for row in conflicts:
            by_key[(row.entity, row.attribute)].append(row)
        for (entity, attribute), rows in sorted(by_key.items()):
            won = next((r for r in rows if r.won), None)
            if won is None or entity in self.stale:
                continue
            winners = [c for i in won.claims if (c := self.by_id.get(i))]
            fact = self.chosen.get((entity, attribute))
            for row in rows:
                if row.won:
                    continue
                for claim_id in row.claims:
                    c = self.by_id.get(claim_id)
                    if c is None or not self._written(c):
                        continue
                    self.seen.add(claim_id)
                    if row.superseded or self._updated(c, winners) or self._holds_elsewhere(c, won) or _alike(c, won):
                        continue
                    said = _stated(won)
                    evidence = f"{', '.join(_named_kinds(won.kinds))} state {said}" + (
                        f"; this value fails {'; '.join(row.checks_failed)}" if row.checks_failed else ""
                    )
                    kind = _conflict_kind(c, row, won, self.sources)
                    self.add(c, kind, entity, said, evidence, won.documents, fact.confidence if fact else 0.5)

    def checks(self, checks: Mapping[str, tuple[str, ...]]) -> None:
        """Each value an official page or a catalog states that fails a check, where its dispute
        (if any) did not judge it already and no other source confirms it."""
        for claim_id, failed in sorted(checks.items()):
            c = self.by_id.get(claim_id)
            if not failed or c is None or claim_id in self.seen or not self._written(c) or c.entity in self.stale:
                continue
            fact = self.chosen.get((c.entity, c.attribute))
            at: tuple[str, ...] = ()
            if fact is None:
                supported, sure = _suggested(failed[0], c.unit), 0.5
            elif fact.value == with_unit(c.value, c.unit):
                if fact.sources > 1:
                    continue  # another source confirms the value: the check's fault lies elsewhere on its line
                supported, sure = _suggested(failed[0], c.unit), 1 - fact.confidence  # it stands, as sure as it is not
            else:
                supported, sure, at = fact.value, fact.confidence, (fact.at,)
            self.add(
                c, _check_kind(failed[0], c, self.sources), c.entity, supported, "fails " + "; ".join(failed), at, sure
            )

    def ranges(self, claims: Sequence[Claim], checks: Mapping[str, tuple[str, ...]]) -> None:
        """Each range of a series' include that leaves out the values of several of its sizes
        (`series_range`): a summary of the table that no longer sums it up, the range is the error,
        not the sizes' values, which are then judged no further. And each range that ends on a value
        off the series' pattern: it was copied from that slip, and says the slip again (`7,600 -
        5,320 IOPS`)."""
        excluded: dict[tuple[str, str, str], list[Claim]] = defaultdict(list)
        for c in claims:
            for f in checks.get(c.claim_id, ()):
                if (span := _span(c.attribute, f)) and c.value_number is not None and c.entity not in self.stale:
                    excluded[span].append(c)
        for r in claims:
            left_out = excluded.get(_ends(r), []) if r.is_range else []
            if len({c.entity for c in left_out}) < RANGE_LEAVES_OUT or not self._written(r):
                continue
            values = [c.value_number for c in left_out if c.value_number is not None] + [
                r.range_min or 0,
                r.range_max or 0,
            ]
            supported = with_unit(f"{format_number(min(values))}-{format_number(max(values))}", r.unit)
            shown = ", ".join(f"{c.entity} {c.value}" for c in left_out[:4]) + (", ..." if len(left_out) > 4 else "")
            evidence = f"the range leaves out what the sizes' own rows state: {shown}"
            at = [f"{c.document}:{c.line}" for c in left_out]
            self.add(r, "page_vs_include", r.entity, supported, evidence, at, 0.5 + 0.5 * (1 - 1 / len(left_out)))
            self.seen |= {c.claim_id for c in left_out}
        slips = [(c, f) for c in claims for f in checks.get(c.claim_id, ()) if _slipped((f,))]
        for r in claims:
            if not r.is_range or r.entity_kind != "series" or not self._written(r):
                continue
            for c, failed in slips:
                ends = (r.range_min, r.range_max)
                if (
                    c.attribute != r.attribute
                    or c.value_number not in ends
                    or c.entity not in self.members.get(r.entity, ())
                ):
                    continue
                fit = _suggested(failed, None)
                corrected = sorted(
                    float(fit.replace(",", "")) if fit and end == c.value_number else end or 0 for end in ends
                )
                fitting = with_unit("-".join(format_number(end) for end in corrected), r.unit) if fit else None
                evidence = (
                    f"the range ends on {c.value}, the value of {c.entity} at {c.document}:{c.line}, off its series' "
                    f"pattern: {failed.split(': ', 1)[-1]}"
                )
                sure = (
                    1 - self.chosen[(c.entity, c.attribute)].confidence
                    if (c.entity, c.attribute) in self.chosen
                    else 0.5
                )
                self.add(r, "series_pattern", r.entity, fitting, evidence, (f"{c.document}:{c.line}",), sure)

    def units(self, diagnostics: Iterable[Diagnostic], claims: Sequence[Claim]) -> None:
        """Each cell normalize read as no value because its header's unit is no unit of its numbers."""
        sizes: dict[tuple[str, int], str] = {}  # the first size stated on each line
        for c in claims:
            if c.entity_kind == "size":
                sizes.setdefault((c.document, c.line), c.entity)
        for d in diagnostics:
            m = _mismatch(d)
            if m is None or d.line is None or not _standing(d.document, self.sources) or self._older(d.document):
                continue
            entity = sizes.get((d.document, d.line), "")
            fact = self.chosen.get((entity, m.attribute))
            evidence = f"the header {m.key!r} says {m.unit}, which is no unit of {m.attribute}" + (
                f"; the value chosen for {entity} is {fact.value}" if fact else ""
            )
            cell = m.raw_text
            written = Claim(
                "", d.document, d.line, "", None, None, None, cell, "table", entity, "size", m.attribute, cell
            )
            at = (fact.at,) if fact else ()
            self.add(
                written,
                "header_unit",
                entity,
                fact.value if fact else None,
                evidence,
                at,
                fact.confidence if fact else 0.5,
            )

    def listed(self) -> tuple[Erratum, ...]:
        return tuple(f.erratum() for _, f in sorted(self.found.items()))

    def _written(self, c: Claim) -> bool:
        """A value someone wrote in a document that speaks for the publisher now."""
        return c.method not in _WRITTEN and _standing(c.document, self.sources) and not self._older(c.document)

    def _older(self, document: str) -> bool:
        """An older version of a page or an older snapshot of a catalog: what it says differently,
        the newer one replaced."""
        src = self.sources[document]
        voice = self.sources.get(src.copy_of) if src.copy_of else None
        if voice is None:
            return False
        return (src.snapshot or 0) < (voice.snapshot or 0) or bool(
            src.as_of and voice.as_of and src.as_of < voice.as_of
        )

    def _updated(self, c: Claim, winners: Sequence[Claim]) -> bool:
        """A newer official page states the value that won: it replaced this one."""
        when = self.sources[c.document].as_of
        return when is not None and any(
            self.sources[w.document].kind == "official_spec"
            and (w_when := self.sources[w.document].as_of)
            and w_when > when
            for w in winners
        )

    def _holds_elsewhere(self, c: Claim, won: Conflict) -> bool:
        """A series' value that loses for one size but is the value of another of its sizes: the
        series' statement holds, the size is the exception (the NDv2 page's 32 GB per GPU, for
        ND40rs_v2, against the retired ND40s_v2's 16)."""
        if c.entity_kind != "series":
            return False
        mine = with_unit(c.value, c.unit)
        return any(
            (f := self.chosen.get((size, c.attribute))) and f.value == mine for size in self.members.get(c.entity, ())
        )


def _alike(c: Claim, won: Conflict) -> bool:
    """Two texts one of which says more of the same thing (`NVLink` and `NVLink 4.0`): no error."""
    if c.value_number is not None or c.value_bool is not None:
        return False
    mine, theirs = set(c.value.casefold().split()), set(won.value.casefold().split())
    return bool(mine and theirs) and (mine <= theirs or theirs <= mine)


@dataclass
class _Found:
    kind: str
    claim: Claim
    entities: list[str]
    supported: str | None
    evidence: str
    at: list[str]
    sure: float

    def erratum(self) -> Erratum:
        c = self.claim
        return Erratum(
            self.kind,
            c.document,
            c.line,
            tuple(sorted(self.entities)),
            c.attribute,
            c.raw_text,
            with_unit(c.value, c.unit),
            self.supported,
            self.evidence,
            tuple(self.at),
            round(self.sure, 3),
        )


def _standing(document: str, sources: Mapping[str, Source]) -> bool:
    """Whether a document speaks for the publisher now: an official page or an API catalog."""
    src = sources.get(document)
    return src is not None and src.kind in AUTHORITATIVE


def _conflict_kind(c: Claim, row: Conflict, won: Conflict, sources: Mapping[str, Source]) -> str:
    api = sources[c.document].kind == "api_catalog"
    if any(check.startswith("series_pattern") for check in row.checks_failed):
        return "series_pattern"
    if api:
        return "api_physics" if row.checks_failed else "docs_vs_api"
    if "api_catalog" in won.kinds and "official_spec" not in won.kinds:
        return "docs_vs_api"
    if row.checks_failed and not all(check.startswith(_SERIES_CHECKS) for check in row.checks_failed):
        return "physical_check"
    if "/includes/" in c.document or any("/includes/" in d for d in won.documents) or c.entity_kind == "series":
        return "page_vs_include"
    return "page_vs_page"


def _check_kind(check: str, c: Claim, sources: Mapping[str, Source]) -> str:
    if check.startswith("series_pattern"):
        return "series_pattern"
    if check.startswith(_SERIES_CHECKS):
        return "page_vs_include"
    return "api_physics" if sources[c.document].kind == "api_catalog" else "physical_check"


_NUMBER = r"-?[\d.,]+(?:e[+-]\d+)?"
"""A number as `format_number` writes it (`1600000`, `0.25`, `1.23457e+06`), or with thousands' commas."""
_SUGGESTED = re.compile(rf"\((?P<value>{_NUMBER}) would fit\)|states (?P<one>{_NUMBER}) for its sizes")


def _suggested(check: str, unit: str | None) -> str | None:
    """The value a failed check names as the one that fits, where it names one, with `unit`."""
    m = _SUGGESTED.search(check)
    return with_unit(m["value"] or m["one"], unit) if m else None


RANGE_LEAVES_OUT = 2
"""Sizes whose values a series range must leave out for the range, not each value, to be the
error: one value outside a range is a slip of the table, several a range that no longer sums it up."""

_SPAN = re.compile(r"series_range: series (?P<series>.+) spans (?P<ends>\S+)")


def _span(attribute: str, failed: str) -> tuple[str, str, str] | None:
    """The series range a `series_range` failure names: (series, attribute, its ends as written).
    The ends stay text: the check writes them with `format_number`, whose six digits a float read
    back from them would not equal (`_ends`)."""
    m = _SPAN.fullmatch(failed)
    return (m["series"], attribute, m["ends"]) if m else None


def _ends(r: Claim) -> tuple[str, str, str]:
    """A range claim as a `series_range` failure names it (`_span`): (series, attribute, its ends
    written as `reconcile.checks` writes them)."""
    return r.entity, r.attribute, f"{format_number(r.range_min or 0)}-{format_number(r.range_max or 0)}"


def _mismatch(d: Diagnostic) -> UnitMismatch | None:
    """The cell a `unit-mismatch` diagnostic of a line names."""
    return UnitMismatch.read(d.message) if d.code == "unit-mismatch" and d.line is not None else None


def _slipped(failed: Iterable[str]) -> bool:
    return any(f.startswith("series_pattern") for f in failed)


def _stated(row: Conflict) -> str:
    return with_unit(row.value, row.unit)


def _named_kinds(kinds: Sequence[str]) -> list[str]:
    """Who states a value, tier by tier, as the evidence says it (sources.toml's `subject`)."""
    tier = tiers()
    return [tier[k].subject if k in tier else k for k in kinds]
