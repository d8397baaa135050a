"""Header and key labels as the knowledge tables match them: `Memory: GiB`, `Memory (GiB)` and
`memory` are one label, and the unit a header writes is read once, for every stage that needs it."""

from __future__ import annotations

import functools
import re

from pipeline import knowledge
from pipeline.knowledge.names import SUPERSCRIPT_RE


@functools.lru_cache(maxsize=16384)
def normalize_label(label: str) -> str:
    """A header or key folded for matching: lowercase, units and punctuation removed."""
    know = knowledge.load()
    s = SUPERSCRIPT_RE.sub(" ", label)
    s = re.sub(r"<[^>]+>", " ", s)
    s = re.sub(r"['’](?=s\b)", "", s)  # vCPU's -> vCPUs
    s = re.sub(r"\(([^)]*)\)", lambda m: " " if _is_unit_text(m.group(1), know) else f" {m.group(1)} ", s)
    s = re.sub(r":\s*[^:]*$", lambda m: " " if _is_unit_text(m.group(0)[1:], know) else m.group(0), s)
    words = s.split()
    while words and _is_trailing_unit(words[-1], know):
        words.pop()
    s = " ".join(words).lower()
    s = re.sub(r"[^a-z0-9]+", " ", s)
    s = re.sub(r"\bqty\b", "qty", s)
    return re.sub(r"\s+", " ", s).strip()


def _is_unit_text(text: str, know: knowledge.Knowledge) -> bool:
    pieces = [p.strip() for p in re.split(r"[/,]", text) if p.strip()]
    return bool(pieces) and all(know.unit(p) is not None or p.lower() in ("qty.", "qty") for p in pieces)


def _is_trailing_unit(word: str, know: knowledge.Knowledge) -> bool:
    unit = know.unit(word)
    return unit is not None and unit.dimension in ("information", "bit_rate", "byte_rate")


@functools.lru_cache(maxsize=16384)
def header_unit(label: str) -> tuple[str | None, ...]:
    """The unit written in a header, one per '/'-separated segment (`IOPS / MBps`); never empty,
    a header without a '/' being one segment, so that the last is the unit of a whole header."""
    know = knowledge.load()
    units: list[str | None] = []
    for segment in re.split(r"\s/\s|/(?=\s*[A-Za-z])", label):
        found = [m.group(1) for m in know.unit_re.finditer(segment)]
        symbols = [know.unit_aliases.get(f) for f in found]
        units.append(next((s for s in reversed(symbols) if s), None))
    return tuple(units)
