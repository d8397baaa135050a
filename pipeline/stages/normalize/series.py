"""Series identity and the shared context of the normalize stage.

Spellings of a series are mapped to one canonical name (`SeriesIndex`, made by
`build_series_index` from each document's `Contribution`; what a series or size name is
follows names.py). The `Context` each document is normalized with holds that index, the GPU
models each series is said to have and the newest document's date (`context`).
"""

from __future__ import annotations

import datetime as dt
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from pipeline import knowledge
from pipeline.knowledge import Knowledge
from pipeline.knowledge.names import parse_size, series_key, series_parts
from pipeline.records import Extraction, compact
from pipeline.stages.normalize.sources import source_family


@dataclass(frozen=True, slots=True)
class SeriesIndex:
    """Spellings of a series mapped to one canonical name.

    Two spellings are one series when their keys match (`NDv2-series`, `NDv2 size series`)
    or when an official page lists the same size under both (`ND A100 v4` and
    `NDasrA100_v4` both list Standard_ND96asr_v4).
    """

    names: dict[str, str]
    aliases: dict[str, tuple[str, ...]]
    sized: tuple[str, ...] = ()
    """Canonical names of the series official pages list sizes under."""
    _found: dict[str, str | None] = field(default_factory=dict, compare=False, repr=False)
    """`canonical`'s answers: the same few spellings are asked for on every row."""
    _sized: frozenset[str] = field(init=False, compare=False, repr=False)
    """`sized` as a set: each series the documents write is looked up in it once, and a
    scan of the tuple made that quadratic (10,000 generated documents: 6,248 series, 0.97 s
    of looking up)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "_sized", frozenset(self.sized))

    def canonical(self, written: str | None) -> str | None:
        """The one spelling of a series; a name no size is listed under that is a shorter name
        of exactly one series that has sizes is that series (`NCv6` on the NC_RTXPRO6000BSE_v6
        page, `NC T4 v3` for NCasT4_v3)."""
        if not written:
            return None
        if written in self._found:
            return self._found[written]
        name = self.names.get(series_key(written))
        if name is not None and name in self._sized:
            found: str | None = name
        else:
            wider = [p for p in self.sized if _generalizes(written, p)]
            found = wider[0] if len(wider) == 1 else name or written
        self._found[written] = found
        return found


def _generalizes(short: str, full: str) -> bool:
    """Whether every size of `full` satisfies `short`'s name: the same family and version, and
    `short` naming only feature letters, accelerators and words `full` has."""
    a, b = series_parts(short), series_parts(full)
    if a is None or b is None or series_key(short) == series_key(full):
        return False
    return (
        a.family == b.family
        and a.version == b.version
        and set(a.features) <= set(b.features)
        and set(a.accelerators) <= set(b.accelerators)
        and set(a.variants) <= set(b.variants)
    )


@compact
@dataclass(frozen=True, slots=True)
class Contribution:
    """What one document adds to the shared context (`context`), each list in the order the
    document states it. It reads that document alone, so it is made where the document is
    parsed and kept with the parse: a build then joins these instead of reading every statement
    of every document again."""

    official: bool
    keys: tuple[str, ...]
    """Series keys, each once: the index names them in the order the documents first do."""
    spellings: tuple[tuple[str, str], ...]
    """(series key, series as written), each once: a spelling counts once per document."""
    sized: tuple[tuple[str, str], ...]
    """(size key, series key) for each size an official page states under a series, each once."""
    models: tuple[tuple[str, str], ...]
    """(series key, GPU model) for each model a table row under a series names, each once."""


def contribution(ex: Extraction, know: Knowledge) -> Contribution:
    """What `ex` adds to the shared context."""
    official = source_family(ex.document).kind == "official_spec"
    keys: dict[str, None] = {}
    spellings: dict[tuple[str, str], None] = {}
    sized: dict[tuple[str, str], None] = {}
    models: dict[tuple[str, str], None] = {}
    for st in ex.statements:
        if not st.context:
            continue
        key = series_key(st.context)
        keys.setdefault(key)
        spellings.setdefault((key, st.context))
        if official and st.subject and (size := parse_size(st.subject)):
            sized.setdefault((size.key, key))
        if st.method in ("table", "part_table"):
            for model in know.find_gpus(st.raw_text):
                models.setdefault((key, model.name))
    if ex.subject:
        key = series_key(ex.subject)
        keys.setdefault(key)
        spellings.setdefault((key, ex.subject))
    return Contribution(official, tuple(keys), tuple(spellings), tuple(sized), tuple(models))


def build_series_index(parts: Sequence[Contribution]) -> SeriesIndex:
    parent: dict[str, str] = {}

    def find(k: str) -> str:
        parent.setdefault(k, k)
        while parent[k] != k:
            parent[k] = parent[parent[k]]
            k = parent[k]
        return k

    def union(a: str, b: str) -> None:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)

    spellings: Counter[tuple[str, str]] = Counter()
    size_series: dict[str, set[str]] = defaultdict(set)
    for part in parts:
        for key in part.keys:
            find(key)
        spellings.update(part.spellings)
        for size, key in part.sized:
            size_series[size].add(key)
    for keys in size_series.values():
        first, *rest = sorted(keys)
        for k in rest:
            union(first, k)
    groups: dict[str, list[tuple[int, str]]] = defaultdict(list)
    for (key, written), n in spellings.items():
        groups[find(key)].append((n, written))
    best_of: dict[str, str] = {}
    aliases: dict[str, tuple[str, ...]] = {}
    for root, variants in groups.items():
        best = sorted(variants, key=lambda v: (-v[0], " " not in v[1], v[1]))[0][1]
        best_of[root] = best
        aliases[best] = tuple(sorted({w for _, w in variants}))
    names = {key: best_of[root] for key in list(parent) if (root := find(key)) in best_of}
    sized = tuple(sorted({best_of[find(k)] for keys in size_series.values() for k in keys if find(k) in best_of}))
    return SeriesIndex(names=names, aliases=aliases, sized=sized)


@dataclass(frozen=True, slots=True)
class Context:
    """What normalizing a document reads of the other documents: the series index, the GPU
    models each series is said to have and the newest document's date. With it built, each
    document is normalized on its own (`normalize_document`)."""

    know: Knowledge
    series: SeriesIndex
    models: Mapping[str, list[str]]
    as_of: dt.date | None

    def fingerprint(self) -> tuple[object, ...]:
        """The context as plain, ordered data: two contexts with one fingerprint normalize every
        document alike (the index is sorted, as one more document may reorder it)."""
        return (
            self.know,
            sorted(self.series.names.items()),
            sorted(self.series.aliases.items()),
            self.series.sized,
            sorted(self.models.items()),
            self.as_of,
        )


def newest_date(extractions: Sequence[Extraction]) -> dt.date | None:
    """The date of the newest document: the build's own "today", so that a build does not
    depend on the day it runs."""
    return max((d for ex in extractions if (d := ex.document.metadata.date)), default=None)


def context(
    extractions: Sequence[Extraction], know: Knowledge | None = None, made: Mapping[str, Contribution] | None = None
) -> Context:
    """The shared context of `extractions`; `made` holds the documents' contributions (by
    path) where they were made already."""
    know = know or knowledge.load()
    made = made or {}
    parts = [made.get(ex.document.path) or contribution(ex, know) for ex in extractions]
    return Context(know, build_series_index(parts), _series_models(parts), newest_date(extractions))


def _series_models(parts: Sequence[Contribution]) -> dict[str, list[str]]:
    """GPU models each series is said to have, official pages first: they decide whether a
    GPU memory number is per GPU or a total when the row itself names no model."""
    official: dict[str, list[str]] = defaultdict(list)
    other: dict[str, list[str]] = defaultdict(list)
    for part in parts:
        target = official if part.official else other
        for key, name in part.models:
            models = target[key]
            if name not in models:
                models.append(name)
    return {k: official.get(k) or other.get(k, []) for k in set(official) | set(other)}
