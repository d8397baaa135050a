"""Series patterns: a value its series' other sizes say is a slip. Its numbers are data
(`knowledge/checks.toml` `[pattern]`); what it finds is part of what each bucket of reconcile's
decisions is cached by (`runner.bucketing.reads`).

Within a series, a size's IOPS, throughput, disks, NICs, bandwidth and memory either hold one
value or step with its vCPU count. Where every other size of a series that states an attribute
follows one such pattern (their values within `PatternRule.same` of each other, or their values
per vCPU within `PatternRule.follow`) and a value is off every pattern they follow by `PatternRule.off` or more (a digit
too many: `7600` IOPS for 4 vCPUs where the others state 190 per vCPU), it is suspect: reconcile
halves its weight and names the pattern (`series_pattern`), and the errata list it. A series
range (`7,600 - 5,320 IOPS` in an include) is a summary of the table: where one end of it is such
a value, it does not count against the sizes that fit the pattern (`Patterns.outliers`).

Read from every claim before reconcile, like the naming convention's rules: a size's check then
needs nothing of the other sizes' votes. The rule's numbers are data (`checks.toml`).
"""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from pipeline.knowledge import Knowledge, PatternRule
from pipeline.knowledge.names import parse_size
from pipeline.knowledge.registry import Source
from pipeline.knowledge.values import format_number
from pipeline.records import TABULAR_METHODS, Claim, Diagnostic


@dataclass(frozen=True, slots=True)
class Patterns:
    """What the series patterns say: each suspect claim's failure, the values of each (series,
    attribute) off its pattern (a range ending on one is no evidence against the others), and a
    note where a series splits into two equal camps."""

    failed: Mapping[str, str] = field(default_factory=dict)
    """claim_id -> `series_pattern: ...`."""
    of_entity: Mapping[str, tuple[tuple[str, str], ...]] = field(default_factory=dict)
    """Each size's (claim_id, failure): what deciding it reads of the others (a bucket's key)."""
    outliers: Mapping[tuple[str, str], tuple[float, ...]] = field(default_factory=dict)
    """Sorted: a bucket's key pickles them (`runner.cache.digest`), and a set's order and
    pickling in fast mode are no value's."""
    diagnostics: tuple[Diagnostic, ...] = ()


@dataclass(frozen=True, slots=True)
class _Stated:
    size: str
    vcpus: float
    values: tuple[float, ...]
    claims: tuple[Claim, ...]
    typical: float
    """The median of `values`, once: each size is set against every other (a series' sizes squared)."""


def series_patterns(claims: Sequence[Claim], sources: Mapping[str, Source], know: Knowledge) -> Patterns:
    """The claims of official pages that break their series' pattern (`Patterns`)."""
    rule = know.pattern
    if rule is None:
        return Patterns()
    # A size's series by the official pages alone: not `reconcile.home_series`, which counts
    # every authoritative kind (an API catalog states no series today, but may). Counted in
    # the pass that reads the values, it costs no pass of its own.
    official = {path for path, src in sources.items() if src.kind == "official_spec"}
    series: dict[str, Counter[str]] = defaultdict(Counter)
    vcpus: dict[str, Counter[float]] = defaultdict(Counter)
    stated: dict[tuple[str, str], list[Claim]] = defaultdict(list)
    for c in claims:
        if c.entity_kind != "size" or c.document not in official:
            continue
        if c.attribute == "series" and c.value_text:
            series[c.entity][c.value_text] += 1
        elif c.attribute == "vcpus" and c.value_number and not c.is_range and c.method in TABULAR_METHODS:
            vcpus[c.entity][c.value_number] += 1
        elif c.attribute in rule.attributes and c.value_number and not c.is_range and c.method in TABULAR_METHODS:
            stated[(c.entity, c.attribute)].append(c)
    by_series: dict[tuple[str, str], list[_Stated]] = defaultdict(list)
    for (size, attribute), found in sorted(stated.items()):
        name = parse_size(size)
        count = vcpus[size].most_common(1)[0][0] if vcpus[size] else (name.vcpus if name else 0)
        if not series[size] or not count:
            continue
        home = series[size].most_common(1)[0][0]
        values = tuple(sorted({c.value_number for c in found if c.value_number is not None}))
        by_series[(home, attribute)].append(
            _Stated(size, float(count), values, tuple(found), statistics.median(values))
        )
    failed: dict[str, str] = {}
    of_entity: dict[str, list[tuple[str, str]]] = defaultdict(list)
    outliers: dict[tuple[str, str], set[float]] = defaultdict(set)
    notes: list[Diagnostic] = []
    for (home, attribute), sizes in sorted(by_series.items()):
        if len(sizes) < rule.min_sizes:
            continue  # too few to say what the series' pattern is
        for s in sizes:
            others = [o for o in sizes if o.size != s.size]
            for c in s.claims:
                message = _off(c, s, others, home, know, rule)
                if message:
                    failed[c.claim_id] = message
                    of_entity[s.size].append((c.claim_id, message))
                    outliers[(home, attribute)].add(float(c.value_number or 0))
        if not outliers.get((home, attribute)) and (note := _camps(home, attribute, sizes, rule.follow, rule.off)):
            notes.append(note)
    return Patterns(
        failed,
        {e: tuple(sorted(f)) for e, f in of_entity.items()},
        {k: tuple(sorted(v)) for k, v in outliers.items()},
        tuple(notes),
    )


def _off(
    c: Claim, s: _Stated, others: Sequence[_Stated], series: str, know: Knowledge, rule: PatternRule
) -> str | None:
    """`series_pattern: ...` when every pattern `others` follow puts `c`'s value `rule.off` times
    away or more; None when it fits one, or the others follow none."""
    value = c.value_number
    if value is None or value <= 0:
        return None
    patterns = [
        ("one value", [o.typical for o in others], value, 1.0, rule.same),
        ("per vCPU", [o.typical / o.vcpus for o in others], value / s.vcpus, s.vcpus, rule.follow),
    ]
    followed = []
    for kind, seen, mine, scale, spread in patterns:
        if min(seen) <= 0 or max(seen) / min(seen) > spread:
            continue  # the others follow no such pattern
        middle = statistics.median(seen)
        factor = max(mine / middle, middle / mine)
        if factor < rule.off:
            return None  # it fits a pattern the others follow
        followed.append((kind, middle, factor, middle * scale))
    if not followed:
        return None
    kind, middle, factor, expected = min(followed, key=lambda f: f[2])
    unit = know.attributes[c.attribute].unit or ""
    low, high = min(o.typical for o in others), max(o.typical for o in others)
    counts = sorted({format_number(o.vcpus) for o in others}, key=float)
    said = (
        f"{format_number(round(middle, 2))} {unit} per vCPU ({format_number(low)}-{format_number(high)} for "
        f"{'/'.join(counts)} vCPUs)"
        if kind == "per vCPU"
        else f"{format_number(middle)} {unit}"
    )
    return (
        f"series_pattern: the other {len(others)} sizes of {series} state {said}; {format_number(value)} for "
        f"{format_number(s.vcpus)} vCPUs is {format_number(round(factor, 1))} times off it "
        f"({format_number(round(expected, 2))} would fit)"
    ).replace("  ", " ")


def _camps(home: str, attribute: str, sizes: Sequence[_Stated], follow: float, off: float) -> Diagnostic | None:
    """A note where the sizes stating an attribute split into two camps of equal size, each one
    pattern, the two `off` apart: neither is the series' pattern, so nothing is flagged."""
    for measure, name in ((lambda s: s.typical, "values"), (lambda s: s.typical / s.vcpus, "values per vCPU")):
        ordered = sorted(sizes, key=measure)
        half = len(ordered) // 2
        if len(ordered) % 2 or half < 2:
            continue
        low, high = ordered[:half], ordered[half:]
        inside = all(max(map(measure, camp)) / min(map(measure, camp)) <= follow for camp in (low, high))
        if inside and min(map(measure, high)) / max(map(measure, low)) >= off:
            first = low[0].claims[0]
            return Diagnostic(
                "info",
                "series_pattern_split",
                first.document,
                first.line,
                f"the {len(sizes)} sizes of {home} that state {attribute} split into two camps of equal size, whose "
                f"{name} are {off:g} or more times apart ({', '.join(s.size for s in low)} against "
                f"{', '.join(s.size for s in high)}): no pattern is the series', so no value is flagged",
            )
    return None
