"""Reading values as documents print them: numbers, ranges, fractions, units and flags.

Pure functions with no knowledge of documents, so that they can be tested on arbitrary
text: none of them raises on any input.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Protocol

from pipeline.knowledge import MONTHS, NUMBER_RE, WORD_NUMBERS, Knowledge, Link

# Compiled once, as `normalize`'s are: a pattern given as text is looked up in `re`'s cache
# at every call.
_ARCHITECTURE = re.compile(r"\[([^\]]+)\]")
_CLOCK = re.compile(r"\b\d+(?:\.\d+)?\s*GHz\b", re.IGNORECASE)
_PAREN_AFTER_TEXT = re.compile(r"(?<=\S)\(")
_ARTICLE = re.compile(r"^(?:the|an?)\s+", re.IGNORECASE)
_CPU_WORD = re.compile(r"\s+(?:CPUs?|processors?)$", re.IGNORECASE)

_FRACTION_RE = r"\d+\s*/\s*\d+"
_NUM = rf"(?:{_FRACTION_RE}(?![\d,])|{NUMBER_RE})"
_QTY_RE = re.compile(
    rf"^\s*(?P<approx>~\s*|≈\s*|about\s+|approx\.?\s+|up\s+to\s+)?(?P<a>{_NUM})"
    rf"(?:\s*(?:-|–|—|to)\s*(?P<b>{_NUM}))?",
    re.IGNORECASE,
)
_EMPTY = {"", "-", "–", "—", "n/a", "na", "none", "tbd", "?", "unknown", "not available"}
_FRACTION_ONLY_RE = re.compile(r"(\d+)\s*/\s*(\d+)")
_NUMBER_ONLY_RE = re.compile(NUMBER_RE)
_GROUPED_RE = re.compile(r"\d[ ,]\d")
_SEPARATORS_RE = re.compile(r"[, ]")
_FALSE_RE = re.compile(r"^(not\s+supported|unsupported|no\b|not\s+available|false\b|❌)")
_TRUE_RE = re.compile(r"^(supported|yes\b|available|true\b|✔|✅|:heavy_check_mark:)")
"""The patterns `parse_number` and `parse_flag` match each cell with, compiled once: `re.match`
with a pattern's text looks it up in re's cache on every call."""


@dataclass(frozen=True, slots=True)
class Quantity:
    """A number or range and the unit written right after it."""

    low: float
    high: float
    unit: str | None
    approximate: bool
    rest: str

    @property
    def is_range(self) -> bool:
        return self.low != self.high


def parse_number(text: str) -> float | None:
    """`24,000` -> 24000, `2,00,000` -> 200000, `1/4` -> 0.25, `two` -> 2; else None."""
    s = text.strip().replace("\u202f", "").replace("\u00a0", "")
    if not s:
        return None
    if s.lower() in WORD_NUMBERS:
        return float(WORD_NUMBERS[s.lower()])
    m = _FRACTION_ONLY_RE.fullmatch(s)
    if m:
        den = int(m.group(2))
        return float(Fraction(int(m.group(1)), den)) if den else None
    if not _NUMBER_ONLY_RE.fullmatch(s):
        return None
    if _GROUPED_RE.search(s) and not _valid_grouping(s):
        return None
    try:
        return float(_SEPARATORS_RE.sub("", s))
    except ValueError:
        return None


def _valid_grouping(s: str) -> bool:
    """Thousands separators in Western (24,000) or Indian (2,00,000) style, nothing else."""
    whole = s.split(".")[0]
    groups = re.split(r"[, ]", whole)
    if len(groups[-1]) != 3 or not (1 <= len(groups[0]) <= 3):
        return False
    middle = groups[1:-1]
    return all(len(g) == 3 for g in middle) or all(len(g) == 2 for g in middle)


def is_empty(text: str) -> bool:
    return text.strip().strip("*").strip().lower() in _EMPTY


def parse_quantity(text: str, know: Knowledge) -> Quantity | None:
    """The number or range `text` starts with and the unit that follows it (if any).

    Only a leading number counts, so that model numbers inside words (`E5-2690`,
    `LPDDR5X`) are never read as quantities.
    """
    return know.remembered("quantity", text, _quantity)


def _quantity(know: Knowledge, text: str) -> Quantity | None:
    """`parse_quantity`, once per text (`Knowledge.remembered`): the cells of a corpus repeat
    few texts (`8`, `1,900`)."""
    unit_re = know.unit_re
    if is_empty(text):
        return None
    m = _QTY_RE.match(text)
    if not m:
        return None
    a = parse_number(m.group("a"))
    b = parse_number(m.group("b")) if m.group("b") else a
    if a is None or b is None:
        return None
    after = text[m.end() :]
    if re.match(r"[A-Za-z]", after) and not unit_re.match(after):
        return None
    unit = None
    rest = after
    um = unit_re.match(after.lstrip())
    if um:
        unit = um.group(1)
        rest = after.lstrip()[um.end() :]
    approx = bool(m.group("approx")) and not m.group("approx").lower().startswith("up")
    return Quantity(
        low=min(a, b), high=max(a, b), unit=unit, approximate=approx, rest=(text[: m.start()] + " " + rest).strip()
    )


def parse_flag(text: str) -> bool | None:
    """`Supported` -> True, `Not Supported` -> False, anything else None."""
    s = text.strip().lower()
    if _FALSE_RE.match(s):
        return False
    if _TRUE_RE.match(s):
        return True
    return None


_GENERATION_WORD_RE = re.compile(r"gen", re.IGNORECASE)
_GENERATION_RE = re.compile(r"(?<!\d)([12])(?!\d)")


def generations_in(text: str) -> tuple[int, ...]:
    """The VM generations a text names, sorted, where it is known to name them (a catalog's
    generation column: `V1,V2` -> (1, 2))."""
    return tuple(sorted({int(n) for n in _GENERATION_RE.findall(text)}))


def parse_generations(text: str) -> tuple[int, ...] | None:
    """`Generation 1 and 2` -> (1, 2); `Generation 2` -> (2,); None where the text does not say
    it is about generations."""
    if not _GENERATION_WORD_RE.search(text):
        return None
    return generations_in(text) or None


def format_number(value: float) -> str:
    """A number as a person writes it: 40 not 40.0, 0.25, 1.8."""
    if value == int(value) and abs(value) < 1e15:
        return str(int(value))
    return f"{value:.6g}"


def with_unit(value: str, unit: str | None) -> str:
    """A value as a person reads it, with its unit (`32 GiB`); a count without one (`8`, not `8 count`)."""
    return f"{value} {unit}" if unit and unit != "count" else value


ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")
_ORDINAL = re.compile(r"^(?:(\d+)(?:st|nd|rd|th)|([a-z]+))$", re.IGNORECASE)
_GENERATION_WORD = re.compile(r"\b(\w+)[\s-]+gen(?:eration)?\b", re.IGNORECASE)
_VERSION_AFTER = re.compile(r"^\s*(\d+)(?:\.0)?(?![\d.])")


def parse_ordinal(text: str) -> int | None:
    """`fifth` -> 5, `4th` -> 4; anything else None."""
    m = _ORDINAL.match(text.strip())
    if m is None:
        return None
    if m.group(1):
        return int(m.group(1))
    word = m.group(2).lower()
    return ORDINALS.index(word) + 1 if word in ORDINALS else None


def ordinal(n: int) -> str:
    """4 -> `4th`, 1 -> `1st`, 12 -> `12th`."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def read_link(text: str, know: Knowledge) -> tuple[Link, str] | None:
    """The first link of phrases.toml's `[[link]]` table that `text` names, and its normal form:
    where the text gives a generation, as a version after the name (`NVLINK 4.0`) or an ordinal
    before it (`fifth-generation NVLink`, `4th-Gen AMD Infinity Fabric`), the link's `generation`
    form, else its name; so that the ways pages write one link compare equal."""
    for link in know.links:
        m = link.pattern.search(text)
        if m is None:
            continue
        n = None
        if version := _VERSION_AFTER.match(text[m.end() :]):
            n = int(version.group(1))
        elif word := _GENERATION_WORD.search(text[: m.start()]):
            n = parse_ordinal(word.group(1))
        return link, link.generation.format(n=n, ordinal=ordinal(n)) if n else link.name
    return None


_DAY_FIRST = re.compile(r"^(\d{1,2})(?:st|nd|rd|th)?\s+([A-Za-z]+)\.?,?\s+(\d{4})$")
_MONTH_FIRST = re.compile(r"^([A-Za-z]+)\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})$")


def parse_date_text(text: str) -> dt.date | None:
    """A date as running text writes it: `September 6th, 2023`, `6 September 2023`,
    `Aug. 31, 2023`, `2023-09-06`; None for anything else, impossible days included."""
    s = re.sub(r"\s+", " ", text.strip())
    try:
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", s):
            return dt.date.fromisoformat(s)
        if m := _DAY_FIRST.match(s):
            day, month, year = m.group(1), m.group(2), m.group(3)
        elif m := _MONTH_FIRST.match(s):
            month, day, year = m.group(1), m.group(2), m.group(3)
        else:
            return None
    except ValueError:
        return None
    if len(month) < 3:
        return None  # "Ju" could be June or July
    number = next((i for i, name in enumerate(MONTHS, start=1) if name.startswith(month.lower()[:3])), None)
    if number is None or (
        len(month) > 3 and not (MONTHS[number - 1].startswith(month.lower()) or month.lower() == "sept")
    ):
        return None
    try:
        return dt.date(int(year), number, int(day))
    except ValueError:
        return None


_TRADEMARKS = re.compile(r"\s*(?:™|®|\((?:tm|r)\))", re.IGNORECASE)


def clean_cpu_model(text: str) -> tuple[str, str | None]:
    """A CPU model as one spelling and the instruction set written beside it:
    `AMD EPYC™ 74F3V(Milan) [x86-64]` -> (`AMD EPYC 74F3V (Milan)`, `x86-64`). Clock speeds,
    trademark signs, a trailing `CPU`/`processor` and a repeated word go; the model stays."""
    arch = None
    s = _TRADEMARKS.sub("", text)
    if m := _ARCHITECTURE.search(s):
        arch = m.group(1).strip() or None
        s = s[: m.start()] + s[m.end() :]
    s = _CLOCK.sub(" ", s)
    s = _PAREN_AFTER_TEXT.sub(" (", s)
    s = _ARTICLE.sub("", s.strip())
    s = _CPU_WORD.sub("", s.strip())
    words: list[str] = []
    for word in s.split():
        if not words or word.lower() != words[-1].lower():
            words.append(word)
    return " ".join(words), arch


# ------------------------------------------------------------------------- comparing values


class Stated(Protocol):
    """What a claim and a fact share: a value as text, number, text or flag."""

    @property
    def value(self) -> str: ...
    @property
    def value_number(self) -> float | None: ...
    @property
    def value_text(self) -> str | None: ...
    @property
    def value_bool(self) -> bool | None: ...


TWIN_FACTORS = (1e9 / 2**30, 1e12 / 2**40)
"""A GB figure read as GiB (and TB as TiB) is this much of the other reading."""


def close(a: float, b: float, tolerance: float) -> bool:
    """Whether two numbers are equal within `tolerance`, relative to the larger."""
    return abs(a - b) <= tolerance * max(abs(a), abs(b), 1e-9)


@functools.lru_cache(maxsize=65536)
def text_key(text: str | None) -> str:
    """A text value as compared: case, spacing and a part in brackets aside, so that
    "AMD EPYC 74F3V" and "AMD EPYC 74F3v (Milan)" are one processor, written two ways. Cached:
    reconciling compares each key's few values again and again (at 2,000 documents, 48,000 calls)."""
    return " ".join(_BRACKETED.sub(" ", text or "").casefold().split())


_BRACKETED = re.compile(r"\([^)]*\)")


def same_value(a: Stated, b: Stated, tolerance: float = 0.0) -> bool:
    """Whether two statements give one value: numbers within `tolerance` (0: exactly), else
    the same flag and the same text by `text_key`."""
    if a.value_number is not None or b.value_number is not None:
        if a.value_number is None or b.value_number is None:
            return False
        return close(a.value_number, b.value_number, tolerance) if tolerance else a.value_number == b.value_number
    return a.value_bool == b.value_bool and text_key(a.value_text or a.value) == text_key(b.value_text or b.value)


def twin_values(a: Stated, b: Stated) -> bool:
    """Whether two numbers are one quantity of information read two ways (GB and GiB)."""
    x, y = a.value_number, b.value_number
    return (
        x is not None and y is not None and any(close(x, y * f, 0.001) or close(y, x * f, 0.001) for f in TWIN_FACTORS)
    )


PREFIX_FACTORS = (1.024, 1.048576)
"""A thousand written where another page writes 1,024 (1 TB as 1000 GiB against 1024 GiB), or
a million for 1,048,576: one binary prefix read as a decimal one."""


def prefix_twin_values(a: Stated, b: Stated) -> bool:
    """Whether two numbers differ only as a binary prefix read as decimal (1000 and 1024)."""
    x, y = a.value_number, b.value_number
    return (
        x is not None
        and y is not None
        and any(close(x * f, y, 0.002) or close(x, y * f, 0.002) for f in PREFIX_FACTORS)
    )
