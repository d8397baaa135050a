"""Reading values as documents print them: numbers, ranges, fractions, units and flags.

Pure functions with no knowledge of documents, so that they can be tested on arbitrary
text: none of them raises on any input.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

from pipeline.knowledge import NUMBER_RE, WORD_NUMBERS, Knowledge

_FRACTION_RE = r"\d+\s*/\s*\d+"
_NUM = rf"(?:{_FRACTION_RE}(?![\d,])|{NUMBER_RE})"
_QTY_RE = re.compile(
    rf"^\s*(?P<approx>~\s*|≈\s*|about\s+|approx\.?\s+|up\s+to\s+)?(?P<a>{_NUM})"
    rf"(?:\s*(?:-|–|—|to)\s*(?P<b>{_NUM}))?",
    re.IGNORECASE,
)
_EMPTY = {"", "-", "–", "—", "n/a", "na", "none", "tbd", "?", "unknown", "not available"}


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
    m = re.fullmatch(r"(\d+)\s*/\s*(\d+)", s)
    if m:
        den = int(m.group(2))
        return float(Fraction(int(m.group(1)), den)) if den else None
    if not re.fullmatch(NUMBER_RE, s):
        return None
    if re.search(r"\d[ ,]\d", s) and not _valid_grouping(s):
        return None
    try:
        return float(re.sub(r"[, ]", "", s))
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
    if re.match(r"[A-Za-z]", after) and not know.unit_re.match(after):
        return None
    unit = None
    rest = after
    um = know.unit_re.match(after.lstrip())
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
    if re.match(r"^(not\s+supported|unsupported|no\b|not\s+available|false\b|❌)", s):
        return False
    if re.match(r"^(supported|yes\b|available|true\b|✔|✅|:heavy_check_mark:)", s):
        return True
    return None


def parse_generations(text: str) -> tuple[int, ...] | None:
    """`Generation 1 and 2` -> (1, 2); `Generation 2` -> (2,)."""
    if not re.search(r"gen", text, re.IGNORECASE):
        return None
    found = sorted({int(n) for n in re.findall(r"(?<!\d)([12])(?!\d)", text)})
    return tuple(found) or None


def format_number(value: float) -> str:
    """A number as a person writes it: 40 not 40.0, 0.25, 1.8."""
    if value == int(value) and abs(value) < 1e15:
        return str(int(value))
    return f"{value:.6g}"
