"""The statuses and severities, and how the page marks them: a shape, a word and a border style
each (`mark`, `_severity`), so that a status reads printed in grey or by a colour-blind reader."""

from __future__ import annotations

import functools
from typing import Any

from pipeline.outputs.report.cells import _confidence, _e, _na

STATUSES = ("agreed", "single_source", "resolved", "unresolved", "unverified")
SEVERITIES = ("error", "warning", "info")

STATUS_MARK = {
    "agreed": ("✓", "agreed", "two or more independent sources agree"),
    "single_source": ("○", "single source", "one source states it, none disagrees"),
    "resolved": ("◆", "resolved", "sources disagreed; a stronger or newer source won"),
    "unresolved": ("✖", "unresolved", "sources of equal standing disagree"),
    "unverified": ("▲", "unverified", "no official document names the size"),
}
"""Shape, word and meaning of each status: the shape and word carry it when colour cannot."""

SEVERITY_MARK = {"error": "✖", "warning": "▲", "info": "ℹ"}


def mark(status: Any, confidence: Any = None) -> str:
    """A status as shape + word (+ confidence) inside a bordered label whose style differs by status."""
    return _mark("" if _na(status) else str(status), None if _na(confidence) else _confidence(confidence))


@functools.lru_cache(maxsize=4096)
def _mark(key: str, confidence: str | None) -> str:
    """Cached: a page has a label in every cell, with few distinct statuses and confidences."""
    sym, word, meaning = STATUS_MARK.get(key, ("?", key or "unknown", "unknown status"))
    conf = f' <span class="conf">{confidence}</span>' if confidence is not None else ""
    css = f"s-{key}" if key in STATUS_MARK else "s-unknown"
    return (
        f'<span class="mark {css}" title="{_e(word)}: {_e(meaning)}">'
        f'<span class="sym" aria-hidden="true">{sym}</span>{_e(word)}{conf}</span>'
    )


def _severity(sev: Any) -> str:
    key = "" if _na(sev) else str(sev)
    sym = SEVERITY_MARK.get(key, "?")
    return f'<span class="mark sev-{_e(key)}"><span class="sym" aria-hidden="true">{sym}</span>{_e(key)}</span>'
