"""Typed access to the tables of knowledge in `pipeline/knowledge/*.toml`.

The tables are data so that a maintainer can teach the pipeline a new header, unit or GPU
without touching logic; this module only loads and indexes them: `load` reads each table by a
reader of its own (`_attributes`, `_units`, `_headers`, `_gpus`, `_phrases`, `_cpus`,
`_catalogs`, `_letters`, `_pattern_rule`) and checks the attributes they name.
"""

from __future__ import annotations

import functools
import hashlib
import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, TypeVar, cast

NUMBER_RE = r"(?:\d{1,3}(?:[,\u202f\u00a0 ]\d{2,3})+|\d+)(?:\.\d+)?|\.\d+"
"""A number as documents print it: 80000, 80,000, 2,00,000, 1.8, .5 (no sign)."""

WORD_NUMBERS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "twelve": 12,
    "sixteen": 16,
    "eighteen": 18,
    "thirty-two": 32,
}


@dataclass(frozen=True, slots=True)
class Attribute:
    name: str
    kind: str
    description: str
    dimension: str | None = None
    unit: str | None = None
    jedec: bool = False
    min_per_vcpu: float | None = None
    allowed: tuple[str, ...] = ()
    derived_from: tuple[str, ...] = ()
    check: str | None = None
    """The physical check's name where the value is the product of its `derived_from` (`gpu_total`)."""
    max: float | None = None
    """The most one item can physically be: a larger figure stated as one item's is the `total`."""
    total: str | None = None
    """The attribute that is this one summed over a count of items (`derived_from` names the count)."""


@dataclass(frozen=True, slots=True)
class Unit:
    symbol: str
    dimension: str
    factor: float
    twin: str | None


@dataclass(frozen=True, slots=True)
class ColumnRule:
    pattern: re.Pattern[str]
    role: str
    attributes: tuple[str, ...]
    parser: str
    default: str | None


@dataclass(frozen=True, slots=True)
class KeyRule:
    pattern: re.Pattern[str]
    attributes: tuple[str, ...]
    parser: str


UnitsByPattern = tuple[tuple[re.Pattern[str], Mapping[str, str]], ...]
"""Maps of units, each after the pattern a `<br>` piece picks it by (`_words`), in the table's order."""


@dataclass(frozen=True, slots=True)
class PartRule:
    pattern: re.Pattern[str]
    units: Mapping[str, str]
    qualified: UnitsByPattern = ()
    """A pattern in the piece (`960 GiB NVMe Disks`) that sends its units elsewhere."""
    also: UnitsByPattern = ()
    """A pattern in the piece (`16 TiB (NVMe)`) that says what the part's own items are, so that
    they are read with these units as well."""

    def units_for(self, piece: str) -> Mapping[str, str]:
        """The units map of a `<br>` piece: a qualifier word it carries picks its own."""
        return _named_in(self.qualified, piece) or self.units

    def also_for(self, piece: str) -> Mapping[str, str] | None:
        """The units map a `<br>` piece says the part's own items are read with as well, if any."""
        return _named_in(self.also, piece)


def _named_in(maps: UnitsByPattern, piece: str) -> Mapping[str, str] | None:
    """The map of the first pattern `piece` holds."""
    return next((units for pattern, units in maps if pattern.search(piece)), None)


def _words(maps: Mapping[str, Mapping[str, str]]) -> UnitsByPattern:
    """headers.toml's maps of units by pattern, each pattern compiled once to be found as a word
    of its own in any case (every `<br>` piece of every part row is tried against them)."""
    return tuple((_compile(rf"(?<![A-Za-z]){pattern}(?![A-Za-z])"), dict(units)) for pattern, units in maps.items())


@dataclass(frozen=True, slots=True)
class GpuModel:
    name: str
    vendor: str
    aliases: tuple[str, ...]
    memory_gib: tuple[float, ...]
    gpus_per_board: int = 1
    family: str | None = None

    @property
    def board_memory_gib(self) -> tuple[float, ...]:
        """Memory of one card: a card of two 8 GiB GPUs has 16 GiB."""
        return tuple(m * self.gpus_per_board for m in self.memory_gib)


@dataclass(frozen=True, slots=True)
class CpuVendor:
    name: str
    words: tuple[str, ...]
    architecture: str | None


@dataclass(frozen=True, slots=True)
class FeatureLetter:
    """A lowercase letter of the size naming convention (naming.toml) and what it says."""

    letter: str
    meaning: str
    attribute: str | None = None
    value: str | bool | None = None
    absent_denies: bool = False
    """A name without the letter says the attribute does not have `value`."""

    def contradicts(self, features: str, attribute: str, value: str | bool | None) -> bool:
        """Whether a name with `features` says the attribute cannot have `value`: it has the
        letter and the value is another, or it lacks the letter that the value needs."""
        if attribute != self.attribute or value is None:
            return False
        if self.letter in features:
            return value != self.value
        return self.absent_denies and value == self.value


@dataclass(frozen=True, slots=True)
class PatternRule:
    """The series pattern check's numbers (checks.toml, `pipeline.stages.patterns`)."""

    attributes: tuple[str, ...]
    """Sorted: the knowledge keys the memos (`runner.cache.digest`), and a set pickles in the
    order of its process's string hashes."""
    min_sizes: int
    same: float
    follow: float
    off: float


@dataclass(frozen=True, slots=True)
class CatalogFormat:
    """A kind of machine-made catalog file (catalogs.toml): how to recognise it and read it."""

    name: str
    kind: str
    description: str
    required: tuple[str, ...]
    size: str
    region: str | None = None
    price: str | None = None
    spot_price: str | None = None
    os: str | None = None


@dataclass(frozen=True, slots=True)
class CatalogField:
    """What one catalog column or capability states."""

    attributes: tuple[str, ...]
    """The attribute it states, or where its parser states several (`generations`) each of them,
    as headers.toml's rules name theirs."""
    parser: str = "number"
    unit: str | None = None
    note: str | None = None
    values: Mapping[str, str] = field(default_factory=dict)

    @property
    def attribute(self) -> str:
        """The attribute the field states (the first, where it states several)."""
        return self.attributes[0]


@dataclass(frozen=True, slots=True)
class Link:
    """A GPU interconnect running text names (phrases.toml `[[link]]`)."""

    name: str
    pattern: re.Pattern[str]
    generation: str
    """The normal form when the text gives a generation: `{n}` its number, `{ordinal}` it as 4th."""
    flag: str | None = None
    """The flag attribute naming the link states true."""


@dataclass(frozen=True, slots=True)
class Phrase:
    attribute: str
    pattern: re.Pattern[str]
    value: str | bool | None
    """The value the phrase states when its pattern captures none: a flag's `true`/`false`, else a text."""
    parser: str
    needs: tuple[str, ...] = ()
    """Lowercase words of which the pattern cannot match without one; empty: always search."""

    def may_match(self, present: frozenset[str]) -> bool:
        """Whether the pattern can match a text that holds the words `present` of those the
        phrases need (`Knowledge.phrase_words`)."""
        return not self.needs or not present.isdisjoint(self.needs)


@dataclass(frozen=True, slots=True)
class Knowledge:
    attributes: Mapping[str, Attribute]
    units: Mapping[str, Unit]
    unit_aliases: Mapping[str, str]
    count_words: Mapping[str, str]
    columns: tuple[ColumnRule, ...]
    keys: tuple[KeyRule, ...]
    feature_table: Mapping[str, re.Pattern[str]]
    part_table: Mapping[str, re.Pattern[str]]
    parts: tuple[PartRule, ...]
    gpus: tuple[GpuModel, ...]
    phrases: tuple[Phrase, ...]
    unit_re: re.Pattern[str]
    gpu_re: re.Pattern[str]
    cpu_vendors: tuple[CpuVendor, ...]
    cpu_re: re.Pattern[str]
    catalog_formats: tuple[CatalogFormat, ...] = ()
    catalog_fields: Mapping[str, CatalogField] = field(default_factory=dict)
    letters: tuple[FeatureLetter, ...] = ()
    pattern: PatternRule | None = None
    links: tuple[Link, ...] = ()
    _gpu_named: Mapping[str, GpuModel] = field(init=False, repr=False, compare=False)
    _gpu_aliased: Mapping[str, GpuModel] = field(init=False, repr=False, compare=False)
    _phrase_words: tuple[str, ...] = field(init=False, repr=False, compare=False)
    shares: tuple[tuple[str, str, str], ...] = field(init=False, repr=False, compare=False)
    """(one item, count, total) for each attribute that is one item's share of a total (`total`
    in attributes.toml; the total's `derived_from` names the count)."""
    _seen: _Answers = field(init=False, repr=False, compare=False)
    """Answers by text (`remembered`): the cells of a corpus repeat a few thousand texts, asked
    about hundreds of thousands of times (10,000 generated documents)."""

    def __post_init__(self) -> None:
        # Models by name and by lowercase alias, the first model in the table's order where two
        # share one: table rows, running sentences and size names are looked up (at 2,000
        # documents, normalize looked 13,744 times, each scanning every model's aliases).
        aliased: dict[str, GpuModel] = {}
        for g in self.gpus:
            for alias in g.aliases:
                aliased.setdefault(alias.lower(), g)
        object.__setattr__(self, "_gpu_named", {g.name: g for g in self.gpus})
        object.__setattr__(self, "_gpu_aliased", aliased)
        object.__setattr__(self, "_phrase_words", tuple(sorted({w for p in self.phrases for w in p.needs})))
        object.__setattr__(self, "_seen", _Answers())
        object.__setattr__(
            self,
            "shares",
            tuple(
                (name, count, a.total)
                for name, a in self.attributes.items()
                if a.total
                for count in self.attributes[a.total].derived_from
                if count != name
            ),
        )

    def phrase_words(self, lowered: str) -> frozenset[str]:
        """The words the phrases need (`Phrase.needs`) that the lowercase text `lowered` holds:
        every sentence is tried against every phrase, and one look for each of the words costs
        less than a search for each phrase's (6,265 sentences, 17 phrases: 0.057 -> 0.045 s)."""
        return frozenset(w for w in self._phrase_words if w in lowered)

    def unit(self, written: str) -> Unit | None:
        """The unit a spelling stands for (`Gb/s` -> Gbps), or None."""
        symbol = self.unit_aliases.get(written) or self.unit_aliases.get(written.lower())
        return self.units.get(symbol) if symbol else None

    def column_rule(self, label: str) -> ColumnRule | None:
        return cast(ColumnRule | None, _first(self.columns, label))

    def key_rule(self, label: str) -> KeyRule | None:
        return cast(KeyRule | None, _first(self.keys, label))

    def part_rule(self, label: str) -> PartRule | None:
        return cast(PartRule | None, _first(self.parts, label))

    def gpu(self, name: str) -> GpuModel | None:
        return self._gpu_named.get(name)

    def remembered(self, kind: str, text: str, make: Callable[[Knowledge, str], _T]) -> _T:
        """`make(self, text)`, made once for each text of a `kind` of question while the cache
        holds it. Not an `lru_cache` keyed by a compiled pattern: hashing one hashes its whole
        program, at every call (the unit pattern: 1.6 us, nine tenths of a cached answer)."""
        key = (kind, text)
        found = self._seen.get(key, _UNSEEN)
        if found is _UNSEEN:
            found = _remember(self._seen, key, make(self, text))
        return cast(_T, found)

    def find_gpus(self, text: str) -> list[GpuModel]:
        """GPU models named in `text`, in order of appearance, without repeats."""
        return list(self.remembered("gpus", text, Knowledge._gpus_in))

    def _gpus_in(self, text: str) -> tuple[GpuModel, ...]:
        found: list[GpuModel] = []
        for match in self.gpu_re.finditer(text):
            model = self._gpu_aliased[match.group(0).lower()]
            if model not in found:
                found.append(model)
        return tuple(found)

    def gpu_of_family(self, text: str, memory_gib: float) -> GpuModel | None:
        """The one model of an architecture `text` names (`Blackwell GPU`) made with `memory_gib`
        (within 2%), or None when no family is named or more than one model fits."""
        fits = [
            g
            for g in self.gpus
            if g.family
            and re.search(rf"(?<![A-Za-z]){re.escape(g.family)}(?![A-Za-z])", text, re.IGNORECASE)
            and any(abs(memory_gib - m) <= 0.02 * m for m in g.memory_gib)
        ]
        return fits[0] if len(fits) == 1 else None

    def all_gpu_memory_sizes(self) -> frozenset[float]:
        return frozenset(m for g in self.gpus for m in g.memory_gib)

    def cpu_vendor(self, model: str) -> CpuVendor | None:
        """The maker a CPU model names (`Intel Xeon E5-2690 v4` -> Intel), or None."""
        match = self.cpu_re.search(model)
        if match is None:
            return None
        word = match.group(0).lower()
        return next(v for v in self.cpu_vendors if word in (w.lower() for w in v.words))


_RULE_CACHE: dict[tuple[int, str], Any] = {}

_T = TypeVar("_T")
_UNSEEN = object()


class _Answers(dict[tuple[str, str], Any]):
    """A cache of answers by text (`Knowledge.remembered`), pickled empty: what it holds follows
    from the tables, and a digest of the knowledge (part of the normalize memo's key) must not
    depend on which texts were asked about before."""

    def __reduce__(self) -> tuple[type[_Answers], tuple[()]]:
        return (_Answers, ())


REMEMBERED_AT_MOST = 100_000
"""Answers a cache by text holds before it starts again: a cache that only grew would hold
every distinct text of a corpus."""


def _remember(cache: dict[Any, Any], key: Any, value: _T) -> _T:
    """`value` put in `cache` under `key`, the cache emptied first when it is full."""
    if len(cache) >= REMEMBERED_AT_MOST:
        cache.clear()
    cache[key] = value
    return value


def _first(rules: tuple[Any, ...], label: str) -> Any:
    """The first rule whose pattern matches `label`; cached because headers repeat on every row."""
    key = (id(rules), label)
    if key not in _RULE_CACHE:
        _remember(_RULE_CACHE, key, next((r for r in rules if r.pattern.search(label)), None))
    return _RULE_CACHE[key]


def fingerprint() -> str:
    """SHA-256 over every knowledge table, so a changed synonym or unit shows in the manifest."""
    digest = hashlib.sha256()
    folder = resources.files("pipeline.knowledge")
    for name in sorted(p.name for p in folder.iterdir() if p.name.endswith(".toml")):
        digest.update(name.encode())
        digest.update(folder.joinpath(name).read_bytes())
    return digest.hexdigest()


def _table(name: str) -> dict[str, Any]:
    text = resources.files("pipeline.knowledge").joinpath(name).read_text(encoding="utf-8")
    return tomllib.loads(text)


def _compile(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


@functools.cache
def load() -> Knowledge:
    """Load every table once per process: each table by its reader below, the names of
    attributes they use checked against attributes.toml (`_check_attributes`)."""
    attrs = _attributes(_table("attributes.toml"))
    units, aliases, count_words, unit_re = _units(_table("units.toml"))
    headers = _table("headers.toml")
    columns, keys, parts = _headers(headers)
    gpus, gpu_re = _gpus(_table("gpus.toml"))
    links, phrases = _phrases(_table("phrases.toml"), attrs)
    cpu_vendors, cpu_re = _cpus(_table("cpus.toml"))
    catalog_formats, catalog_fields = _catalogs(_table("catalogs.toml"))
    letters = _letters(_table("naming.toml"))
    pattern = _pattern_rule(_table("checks.toml")["pattern"])
    named = [a for rule in columns for a in rule.attributes] + [a for k in keys for a in k.attributes]
    named += [f.attribute for f in letters if f.attribute]
    named += sorted(pattern.attributes)
    named += [a for f in catalog_fields.values() for a in f.attributes]
    named += [a for p in parts for a in p.units.values() if a != "gpu"] + [p.attribute for p in phrases]
    named += [a for p in parts for _, u in (*p.qualified, *p.also) for a in u.values()]
    named += [k.flag for k in links if k.flag]
    _check_attributes(attrs, named)
    return Knowledge(
        attributes=attrs,
        units=units,
        unit_aliases=aliases,
        count_words=count_words,
        columns=columns,
        keys=keys,
        feature_table={k: _compile(v) for k, v in headers["feature_table"].items()},
        part_table={k: _compile(v) for k, v in headers["part_table"].items()},
        parts=parts,
        gpus=gpus,
        phrases=phrases,
        unit_re=unit_re,
        gpu_re=gpu_re,
        cpu_vendors=cpu_vendors,
        cpu_re=cpu_re,
        catalog_formats=catalog_formats,
        catalog_fields=catalog_fields,
        letters=letters,
        pattern=pattern,
        links=links,
    )


def _attributes(table: dict[str, Any]) -> dict[str, Attribute]:
    """attributes.toml: every attribute by its name."""
    return {
        name: Attribute(
            name=name,
            kind=a["kind"],
            description=a["description"],
            dimension=a.get("dimension"),
            unit=a.get("unit"),
            jedec=bool(a.get("jedec")),
            min_per_vcpu=a.get("min_per_vcpu"),
            allowed=tuple(a.get("allowed", ())),
            derived_from=tuple(a.get("derived_from", ())),
            check=a.get("check"),
            max=a.get("max"),
            total=a.get("total"),
        )
        for name, a in table["attribute"].items()
    }


def _units(table: dict[str, Any]) -> tuple[dict[str, Unit], dict[str, str], dict[str, str], re.Pattern[str]]:
    """units.toml: the units by symbol, the spellings of each unit, the words that count items,
    and the pattern that finds any of those spellings. A dimension's `canonical` names the unit
    the factors convert into, for the reader of the table: each attribute names its own unit
    (attributes.toml)."""
    units: dict[str, Unit] = {}
    for dim, spec in table["dimension"].items():
        for symbol, u in spec["units"].items():
            units[symbol] = Unit(symbol=symbol, dimension=dim, factor=float(u["factor"]), twin=u.get("twin"))
    aliases: dict[str, str] = {}
    for symbol, spellings in table["alias"].items():
        for s in spellings:
            aliases[s] = symbol
            if len(s) > 4:  # whole words (gigabit) are matched regardless of case
                aliases[s.lower()] = symbol
    count_words = {w: kind for kind, words in table["count_words"].items() for w in words}
    # Longest first, so the alternation prefers the longer spelling; then alphabetical, so the
    # pattern is the same in every process (set order depends on the hash seed).
    spellings = sorted(set(aliases) | set(count_words), key=lambda s: (-len(s), s))
    unit_re = re.compile(r"(?<![A-Za-z])(" + "|".join(re.escape(s) for s in spellings) + r")(?![A-Za-z])")
    return units, aliases, count_words, unit_re


def _headers(table: dict[str, Any]) -> tuple[tuple[ColumnRule, ...], tuple[KeyRule, ...], tuple[PartRule, ...]]:
    """headers.toml: the rules for table columns, `key: value` keys and the parts of part tables."""
    columns = tuple(
        ColumnRule(
            pattern=_compile(c["match"]),
            role=c.get("role", "value"),
            attributes=tuple(c.get("attributes", ())),
            parser=c.get("parser", "text"),
            default=c.get("default"),
        )
        for c in table["column"]
    )
    keys = tuple(
        KeyRule(pattern=_compile(k["match"]), attributes=tuple(k["attributes"]), parser=k["parser"])
        for k in table["key"]
    )
    parts = tuple(
        PartRule(
            pattern=_compile(p["match"]),
            units=dict(p["units"]),
            qualified=_words(p.get("qualified", {})),
            also=_words(p.get("also", {})),
        )
        for p in table["part"]
    )
    return columns, keys, parts


def _gpus(table: dict[str, Any]) -> tuple[tuple[GpuModel, ...], re.Pattern[str]]:
    """gpus.toml: the GPU models, and the pattern that finds any of their names."""
    gpus = tuple(
        GpuModel(
            name=name,
            vendor=g["vendor"],
            aliases=tuple(g["aliases"]),
            memory_gib=tuple(float(m) for m in g["memory_gib"]),
            gpus_per_board=int(g.get("gpus_per_board", 1)),
            family=g.get("family"),
        )
        for name, g in table["gpu"].items()
    )
    gpu_aliases = sorted({a for g in gpus for a in g.aliases}, key=lambda a: (-len(a), a))
    gpu_re = re.compile(
        r"(?<![A-Za-z0-9])(" + "|".join(re.escape(a) for a in gpu_aliases) + r")(?![A-Za-z0-9])", re.IGNORECASE
    )
    return gpus, gpu_re


def _phrases(table: dict[str, Any], attrs: Mapping[str, Attribute]) -> tuple[tuple[Link, ...], tuple[Phrase, ...]]:
    """phrases.toml: the GPU links running text names, and the phrases, their patterns' `{SIZE}`,
    `{NUM}`, `{DATE}` and `{LINK}` filled in; a phrase's parser is by its attribute's kind unless named."""
    links = tuple(
        Link(name=k["name"], pattern=_compile(k["match"]), generation=k["generation"], flag=k.get("flag"))
        for k in table.get("link", ())
    )
    link_in_text = "(?:" + "|".join(k["match"] for k in table.get("link", ())) + ")"
    phrases = tuple(
        Phrase(
            attribute=p["attribute"],
            value=_phrase_value(p, attrs.get(p["attribute"])),
            pattern=_compile(
                p["pattern"]
                .replace("{SIZE}", SIZE_IN_TEXT)
                .replace("{NUM}", NUM_IN_TEXT)
                .replace("{DATE}", DATE_IN_TEXT)
                .replace("{LINK}", link_in_text)
            ),
            parser=p.get("parser") or ("number" if attrs[p["attribute"]].kind == "number" else "text"),
            needs=tuple(str(w).lower() for w in p.get("needs", ())),
        )
        for p in table["phrase"]
    )
    return links, phrases


def _cpus(table: dict[str, Any]) -> tuple[tuple[CpuVendor, ...], re.Pattern[str]]:
    """cpus.toml: the processor makers, and the pattern that finds any of their words."""
    cpu_vendors = tuple(
        CpuVendor(name=name, words=tuple(v["words"]), architecture=v.get("architecture"))
        for name, v in table["vendor"].items()
    )
    cpu_words = sorted({w for v in cpu_vendors for w in v.words}, key=lambda w: (-len(w), w))
    cpu_re = re.compile(
        r"(?<![A-Za-z0-9])(" + "|".join(re.escape(w) for w in cpu_words) + r")(?![A-Za-z0-9])", re.IGNORECASE
    )
    return cpu_vendors, cpu_re


def _catalogs(table: dict[str, Any]) -> tuple[tuple[CatalogFormat, ...], dict[str, CatalogField]]:
    """catalogs.toml: the kinds of catalog file, and what each column or capability states."""
    catalog_formats = tuple(
        CatalogFormat(
            name=name,
            kind=f["kind"],
            description=f["description"],
            required=tuple(f["required"]),
            size=f["size"],
            region=f.get("region"),
            price=f.get("price"),
            spot_price=f.get("spot_price"),
            os=f.get("os"),
        )
        for name, f in table["format"].items()
    )
    catalog_fields = {
        name: CatalogField(
            attributes=tuple(f["attributes"]) if "attributes" in f else (f["attribute"],),
            parser=f.get("parser", "number"),
            unit=f.get("unit"),
            note=f.get("note"),
            values=dict(f.get("values", {})),
        )
        for name, f in table["field"].items()
    }
    return catalog_formats, catalog_fields


def _letters(table: dict[str, Any]) -> tuple[FeatureLetter, ...]:
    """naming.toml: the feature letters of size names."""
    return tuple(
        FeatureLetter(
            letter=letter,
            meaning=f["meaning"],
            attribute=f.get("attribute"),
            value=f.get("value"),
            absent_denies=bool(f.get("absent_denies")),
        )
        for letter, f in table["letter"].items()
    )


def _pattern_rule(checks: dict[str, Any]) -> PatternRule:
    """checks.toml `[pattern]`: the series pattern check's numbers."""
    return PatternRule(
        tuple(sorted(checks["attributes"])),
        int(checks["min_sizes"]),
        float(checks["same"]),
        float(checks["follow"]),
        float(checks["off"]),
    )


def _check_attributes(attrs: Mapping[str, Attribute], named: list[str]) -> None:
    """Every attribute the other tables name (`named`) and every attribute's total is in
    attributes.toml, and every attribute with a total is one its total is derived from."""
    named = [*named, *(a.total for a in attrs.values() if a.total)]
    unknown = sorted(set(named) - set(attrs))
    if unknown:
        raise ValueError(f"knowledge tables name attributes missing from attributes.toml: {unknown}")
    uncounted = sorted(n for n, a in attrs.items() if a.total and n not in attrs[a.total].derived_from)
    if uncounted:
        raise ValueError(f"attributes whose total is not derived from them (derived_from): {uncounted}")


def _phrase_value(phrase: Mapping[str, Any], attribute: Attribute | None) -> str | bool | None:
    """A phrase's fixed value: `true`/`false` for a flag attribute, kept a bool, else a text. A
    flag's value written as text (`"yes"`), or a bool for another kind, is refused: it would
    state nothing or a text `True`. (An unknown attribute is refused by `_check_attributes`.)"""
    value = phrase.get("value")
    if value is None:
        return None
    if attribute is not None and isinstance(value, bool) != (attribute.kind == "flag"):
        raise ValueError(
            f"phrases.toml: the fixed value {value!r} of a phrase of {attribute.name} (kind {attribute.kind}) "
            "must be true or false for a flag and a text otherwise"
        )
    return value if isinstance(value, bool) else str(value)


SIZE_IN_TEXT = r"(?:Standard_)?[A-Z]{1,3}\d+(?:-\d+)?[a-z]+(?:[A-Z]\d+[a-z]*)?(?:_[A-Za-z0-9]+)*"
"""A size name inside running text; lowercase feature letters are required so that GPU
model names (A100) are not taken for sizes."""

MONTHS = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)
_MONTH_RE = (
    r"(?:" + "|".join(m[:3].capitalize() + (f"(?:{m[3:]})?" if len(m) > 3 else "") for m in MONTHS) + r"|Sept)\.?"
)
DATE_IN_TEXT = (
    rf"(?:{_MONTH_RE}\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}}"
    rf"|\d{{1,2}}(?:st|nd|rd|th)?\s+{_MONTH_RE},?\s+\d{{4}}"
    r"|\d{4}-\d{2}-\d{2})(?!\d)"
)
"""A date inside running text: `September 6th, 2023`, `6 September 2023`, `Aug 31 2023`, `2023-09-06`."""

NUM_IN_TEXT = "(?:" + NUMBER_RE + "|" + "|".join(sorted(WORD_NUMBERS, key=len, reverse=True)) + ")"
