"""Azure VM naming: size names and series names, as documents write them.

A size name encodes facts (`Standard_ND96asr_v4`: ND family, 96 vCPUs, a = AMD,
s = premium storage, r = RDMA, version 4); this module parses it once so that every other
stage agrees on what one size is, however it was spelled (`ND40rs\\_v2`, `standard_nd40rs_v2`).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from pipeline.knowledge import load
from pipeline.records import compact

# Compiled once, as `normalize`'s are: a pattern given as text is looked up in `re`'s cache
# at every call.
_SERIES_WORD = re.compile(r"[\s_\-]*(?:sizes?[\s_\-]*)?series$", re.IGNORECASE)
_SEPARATORS = re.compile(r"[\s_\-]+")
_VERSION_TOKEN = re.compile(r"[vV]\d{1,2}")
_FAMILY_LIKE = re.compile(r"^(?:[A-Z]{2}|[A-Z]$|.*\d)")
_NUMBER_TOKEN = re.compile(r"\d{2,5}")
_CAPITALS = re.compile(r"^[A-Z]{1,3}")
_DIGIT = re.compile(r"\d")
_SERIES_HEAD = re.compile(r"^([A-Z]{1,3})([a-z]*?)(?:v(\d{1,2}))?(?=$|[\s_\-A-Z])")
_VERSION_AT_END = re.compile(r"(?:^|[\s_\-]|(?<=[a-z0-9]))[vV](\d{1,2})$")

_SIZE_RE = re.compile(
    r"""^(?:(?P<tier>standard|basic)_)?
        (?P<family>[A-Z]{1,3})
        (?P<vcpus>\d{1,4})
        (?:-(?P<constrained>\d{1,4}))?
        (?P<features>[a-z]*(?:[A-Z]\d+)?[a-z]*)
        (?P<accelerator>(?:_(?!v\d+$)[A-Za-z][A-Za-z0-9]*)*)
        (?:_(?P<version>v\d+))?$""",
    re.VERBOSE,
)

FEATURE_LETTERS = {f.letter: f.meaning for f in load().letters}
"""The lowercase additive features of the Azure naming convention (naming.toml)."""


@compact
@dataclass(frozen=True, slots=True)
class SizeName:
    """A parsed size name; `canonical` is the one spelling every stage uses."""

    canonical: str
    family: str
    vcpus: int
    constrained_vcpus: int | None
    features: str
    accelerator: str | None
    version: str | None

    @property
    def key(self) -> str:
        return self.canonical.lower()


SUPERSCRIPT_RE = re.compile(r"<sup>.*?</sup>", re.IGNORECASE)
"""A footnote mark in superscript: no part of a name (`clean_name`) or a label (`labels`)."""
_FOOTNOTE_RE = re.compile(r"\s*\[\d+\]$")
_TIER_APART_RE = re.compile(r"^(standard|basic)\s+(?=[A-Za-z]{1,3}\d)", re.IGNORECASE)
"""The patterns of the functions below, compiled once: they run for each cell and line, and
`re.sub` with a pattern's text looks it up in re's cache on every call."""


def clean_name(text: str) -> str:
    """Strip what documents wrap around a name: escapes, footnote marks, code ticks, spaces."""
    s = SUPERSCRIPT_RE.sub("", text)
    s = s.replace("\\_", "_").replace("\\", "")
    s = s.strip().strip("`*†‡§¹²³⁴⁵ ").strip()
    s = _FOOTNOTE_RE.sub("", s)
    # "Standard ND96asr_v4": the tier written apart from the name, as some pages print it.
    s = _TIER_APART_RE.sub(r"\1_", s)
    return s


@functools.lru_cache(maxsize=65536)
def parse_size(text: str) -> SizeName | None:
    """The size a cell or word names, or None when it does not follow the convention."""
    s = clean_name(text)
    if not s or len(s) > 60 or " " in s:
        return None
    lower = s.lower()
    if lower.startswith(("standard_", "basic_")):
        tier, rest = s.split("_", 1)
        tier = tier.capitalize()
    else:
        tier, rest = "Standard", s
    rest = _recase(rest)
    m = _SIZE_RE.match(rest)
    if not m:
        return None
    accel = m.group("accelerator").strip("_") or None
    version = m.group("version")
    canonical = f"{tier}_{rest}"
    return SizeName(
        canonical=canonical,
        family=m.group("family"),
        vcpus=int(m.group("vcpus")),
        constrained_vcpus=int(m.group("constrained")) if m.group("constrained") else None,
        features=m.group("features"),
        accelerator=accel,
        version=version,
    )


def name_tokens(size: SizeName) -> tuple[str, ...]:
    """The name's parts between underscores, the tier left out: ("ND96isr", "H100", "v5")."""
    return tuple(size.canonical.split("_")[1:])


def skeleton(size: SizeName) -> str:
    """The name with case and underscores set aside: two spellings of one name share it
    (`ND96isrH100_v5`, a missing underscore, and `ND96isr_H100_v5`)."""
    return size.canonical.casefold().replace("_", "")


def token_difference(name: SizeName, known: SizeName) -> tuple[str, str] | None:
    """How `name` differs from `known` by one whole token added or dropped after the first
    (`Standard_ND96isr_v5` drops `H100` of `Standard_ND96isr_H100_v5`): ("dropped" or
    "added", the token); None when they differ otherwise."""
    a, b = name_tokens(name), name_tokens(known)
    if len(a) == len(b) + 1:
        longer, shorter, kind = a, b, "added"
    elif len(b) == len(a) + 1:
        longer, shorter, kind = b, a, "dropped"
    else:
        return None
    for i in range(1, len(longer)):
        if longer[:i] + longer[i + 1 :] == shorter:
            return kind, longer[i]
    return None


def _recase(rest: str) -> str:
    """Give a name written all in one case the convention's casing (ND40rs_v2)."""
    if not (rest.islower() or rest.isupper()):
        return rest
    parts = rest.split("_")
    head = re.match(r"^([A-Za-z]{1,3}?)(\d+(?:-\d+)?)([A-Za-z]*)$", parts[0])
    if not head:
        return rest
    out = [head.group(1).upper() + head.group(2) + head.group(3).lower()]
    for i, p in enumerate(parts[1:], start=2):
        out.append(p.lower() if i == len(parts) and _VERSION_TOKEN.fullmatch(p) else p.upper())
    return "_".join(out)


def feature_meanings(size: SizeName) -> list[tuple[str, str]]:
    """(letter, meaning) for each lowercase feature letter of the name."""
    return [(c, FEATURE_LETTERS[c]) for c in size.features if c in FEATURE_LETTERS]


# ------------------------------------------------------------------------ series names

_ANCHORS = re.compile(r"^(series|sizes?|virtual|vms?)$", re.IGNORECASE)
_STOP = {
    "azure",
    "microsoft",
    "updated",
    "overview",
    "of",
    "the",
    "your",
    "migrate",
    "new",
    "about",
    "and",
    "for",
    "vm",
    "gpu",
    "cpu",
    "ai",
    "hpc",
}
_FAMILY_TOKEN = re.compile(r"^[A-Z]{1,3}[a-z]{0,5}\d*(?:_?[A-Z]+\d+[A-Za-z]*)*(?:_?v\d+)?(?:_[A-Z][a-z]+)?$")
_ACCEL_TOKEN = re.compile(r"^(?:[A-Z]{1,3}\d{2,4}[A-Z]{0,2}|[vV]\d{1,2})$")


@dataclass(frozen=True, slots=True)
class SeriesName:
    """A series as a title or heading names it; `key` is spelling-independent."""

    written: str
    key: str


@functools.lru_cache(maxsize=16384)
def series_key(name: str) -> str:
    """`NDv2-series`, `NDv2 size series` -> ndv2; a series without a version is v1; a version
    written before the accelerator is the same series (`ND v5 H200` is `ND H200 v5`), and so is
    one glued to it (`NDGB300v6`)."""
    name = _SERIES_WORD.sub("", name.strip())
    tokens = [t for t in _SEPARATORS.split(name) if t]
    versions = [t for t in tokens[1:-1] if _VERSION_TOKEN.fullmatch(t)]
    if len(versions) == 1 and not re.search(_VERSION_END, tokens[-1]):
        tokens = [t for t in tokens if t is not versions[0]] + versions
    key = "".join(tokens).lower()
    if not re.search(_VERSION_END, tokens[-1] if tokens else ""):
        key += "v1"
    return key


_VERSION_END = r"(?:(?<!\d)[vV]|(?<=\d)v)\d{1,2}$"
"""A version at the end of a name: `NDv2`, `ND A100 v4`, `NDGB300v6`, but not the V620 of
`NGads V620`, an accelerator."""


@functools.lru_cache(maxsize=16384)
def parse_series(text: str) -> SeriesName | None:
    """The series a title or heading is about (`Updated NDv2-series` -> NDv2), or None.

    Family pages (`ND family`) name several series and so are about none.
    """
    found = find_series(text)
    return found[0] if found else None


@functools.lru_cache(maxsize=16384)
def find_series(text: str) -> tuple[SeriesName, ...]:
    """Every series a sentence names, in order, lists included: `the NC, NC v2 and ND-series
    VMs` names NC, NC v2 and ND; `NVv3-series and NVv4-series` names NVv3 and NVv4.

    A family page's title (`ND family`) names no single series, so text that speaks of a
    family names none."""
    out: list[SeriesName] = []
    for group in find_series_groups(text):
        out.extend(s for s in group if s not in out)
    return tuple(out)


_MARKS_RE = re.compile(r"[\[\]()'\"`*:|!?]")
_SERIES_SUFFIX_RE = re.compile(r"-(series|sizes?)\b", re.IGNORECASE)
_TRAILING_HYPHEN_RE = re.compile(r"-(?=\s|$)")
_INNER_HYPHEN_RE = re.compile(r"(?<=[A-Za-z0-9])-(?=[A-Za-z0-9])")
_VERSION_TOKEN_RE = re.compile(r"[vV]\d+")


@functools.lru_cache(maxsize=16384)
def find_series_groups(text: str) -> tuple[tuple[SeriesName, ...], ...]:
    """The series of `find_series`, one group per place the text names them: `NC-series
    customers should move from NC sizes to NC T4 v3 sizes` gives (NC), (NC), (NC T4 v3)."""
    s = _MARKS_RE.sub(" ", text)
    s = _SERIES_SUFFIX_RE.sub(r" \1", s)
    s = _TRAILING_HYPHEN_RE.sub(" ", s)  # "ND H100 v5-series- Azure Virtual Machines"
    # `ND-H100-v5`, `NVads-V710 v5`: hyphens between the tokens of one name.
    s = _INNER_HYPHEN_RE.sub(" ", s)
    s = s.replace(",", " , ")
    tokens = s.split()
    if any(t.lower() in ("family", "sub-family", "subfamily") for t in tokens):
        return ()
    out: list[tuple[SeriesName, ...]] = []
    for i, tok in enumerate(tokens):
        if not _ANCHORS.match(tok):
            continue
        if tok.lower() == "virtual" and (i + 1 >= len(tokens) or tokens[i + 1].lower() != "machines"):
            continue
        if tok.lower() in ("size", "sizes") and i + 1 < len(tokens) and tokens[i + 1].lower() == "series":
            continue  # "ND H200 v5 size series" names one series, at "series"
        version = None
        if tok.lower() == "series" and i + 1 < len(tokens) and _VERSION_TOKEN_RE.fullmatch(tokens[i + 1]):
            version = tokens[i + 1].lower()
        names = _names_before(tokens, i)
        if names and version:
            names[-1].append(version)
        group = tuple(SeriesName(written=" ".join(name), key=series_key(" ".join(name))) for name in names)
        if group:
            out.append(group)
    return tuple(out)


def _names_before(tokens: list[str], anchor: int) -> list[list[str]]:
    """The names that end at `tokens[anchor]`: one, or a list of them joined by commas and `and`."""
    names: list[list[str]] = []
    name: list[str] = []
    j = anchor
    while j > 0:
        cand = tokens[j - 1]
        if cand.lower() in ("size", "sizes") and not name:
            j -= 1
            continue
        if cand in (",", "and", "or") and name and _is_name(name):
            names.insert(0, name)
            name = []
            j -= 1
            continue
        if cand in (",", "and", "or") and not name and names:  # "NC, NC v2, and ND-series"
            j -= 1
            continue
        if cand.lower() in _STOP:
            break
        if (_FAMILY_TOKEN.match(cand) and _FAMILY_LIKE.match(cand)) or _ACCEL_TOKEN.match(cand):
            name.insert(0, cand)
            j -= 1
            continue
        # A number between two words of a name: "NC RTX PRO 6000 BSE v6".
        if _NUMBER_TOKEN.fullmatch(cand) and name and j >= 2 and _FAMILY_TOKEN.match(tokens[j - 2]):
            name.insert(0, cand)
            j -= 1
            continue
        break
    if name and _is_name(name):
        names.insert(0, name)
    return names


def _is_name(tokens: list[str]) -> bool:
    return bool(_CAPITALS.match(tokens[0])) and not _ACCEL_TOKEN.match(tokens[0])


@dataclass(frozen=True, slots=True)
class SeriesParts:
    """What a series name says about its sizes: `NCasT4_v3` is family NC, feature letters
    `as`, accelerator T4, version v3; a series without a version is v1."""

    family: str
    features: str
    accelerators: tuple[str, ...]
    version: str
    variants: tuple[str, ...] = ()
    """Words such as `Promo` (`NV_Promo`): every size of the series carries them."""


@functools.lru_cache(maxsize=16384)
def series_parts(name: str) -> SeriesParts | None:
    """`NDm_A100_v4` -> ND, m, (A100,), v4; None when the name does not start with a family."""
    s = _SERIES_WORD.sub("", name.strip())
    m = _SERIES_HEAD.match(s)
    if not m:
        return None
    family, features = m.group(1), m.group(2)
    version = f"v{m.group(3)}" if m.group(3) else "v1"
    rest = s[m.end() :]
    vm = _VERSION_AT_END.search(rest)
    if vm:
        version = f"v{vm.group(1)}"
        rest = rest[: vm.start()]
    tokens = [t for t in _SEPARATORS.split(rest) if t]
    accelerators = tuple(t.upper() for t in tokens if _DIGIT.search(t))
    variants = tuple(t.upper() for t in tokens if not _DIGIT.search(t))
    return SeriesParts(family, features, accelerators, version, variants)


def member_of(size: SizeName, series: str) -> bool:
    """Whether a size can belong to a series by the naming convention: the same family and
    version, the series' feature letters among the size's, and, where both name an
    accelerator, the same one. `Standard_NV6ads_A10_v5` is of NVadsA10_v5, not of
    `NVcadbA10_M5+` (letters c and b missing, another version)."""
    parts = series_parts(series)
    if parts is None or parts.family != size.family:
        return False
    if (size.version or "v1").lower() != parts.version:
        return False
    if not set(parts.features) <= set(size.features):
        return False
    tokens = {t.upper() for t in (size.accelerator or "").split("_") if t}
    if not set(parts.variants) <= tokens:
        return False
    wanted = set(parts.accelerators)
    named = {t for t in tokens if _DIGIT.search(t)}
    return not (named and wanted) or bool(named & wanted)
