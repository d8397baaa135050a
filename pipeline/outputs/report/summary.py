"""The Summary section: cards of counts over the tables (documents by kind, sizes and facts by
status, conflicts, diagnostics by severity) and the legend of the status marks."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pandas as pd

from pipeline.knowledge.registry import KINDS
from pipeline.outputs.report.cells import _e, _na
from pipeline.outputs.report.marks import SEVERITIES, STATUS_MARK, STATUSES, _severity, mark
from pipeline.outputs.report.rows import Rows, _records


def _card(title: str, key: str, total: int, parts: Iterable[tuple[str, str, int]]) -> str:
    items = "".join(
        f'<li class="{"zero" if n == 0 else ""}"><span>{label}</span>'
        f'<span class="n" data-count="{key}.{_e(sub)}">{n}</span></li>'
        for sub, label, n in parts
    )
    return (
        f'<div class="card"><h3>{_e(title)}</h3><div class="total" data-count="{key}">{total}</div>'
        f"<ul>{items}</ul></div>"
    )


def _counts(rows: Sequence[Mapping[str, Any]], column: str) -> Counter[str]:
    return Counter("" if _na(r.get(column)) else str(r.get(column)) for r in rows)


def _parts(counts: Counter[str], known: Sequence[str], label: Any = None) -> list[tuple[str, str, int]]:
    """Every known value (zeros too: 'no errors' is news), then any unexpected ones."""
    keys = list(known) + sorted(k for k in counts if k not in known)
    return [(k, label(k) if label else _e(k or "(none)"), counts.get(k, 0)) for k in keys]


def _summary(rows: Rows, facts: pd.DataFrame | None, disputes: int) -> str:
    docs = _records(rows, "documents")
    sizes = _records(rows, "vm_sizes")
    fact_counts: Counter[str] = Counter()
    total = 0
    if facts is not None and "status" in facts.columns:
        # Counted by pandas: a Python loop over every fact was a tenth of the page's time.
        counted = facts["status"].astype("string").fillna("").value_counts()
        fact_counts.update({str(status): int(n) for status, n in counted.items()})
        total = len(facts)
    diags = _records(rows, "diagnostics")
    conflicts = _records(rows, "conflicts")
    cards = [
        _card("Documents", "documents", len(docs), _parts(_counts(docs, "kind"), KINDS)),
        _card("VM sizes", "sizes", len(sizes), _parts(_counts(sizes, "status"), STATUSES, lambda s: mark(s))),
        _card("Facts", "facts", total, _parts(fact_counts, STATUSES, lambda s: mark(s))),
        _card(
            "Conflicts",
            "conflicts",
            disputes,
            [
                ("values", "competing values", len(conflicts)),
                ("superseded", "superseded by a newer page", sum(r.get("superseded") is True for r in conflicts)),
            ],
        ),
        _card("Diagnostics", "diagnostics", len(diags), _parts(_counts(diags, "severity"), SEVERITIES, _severity)),
    ]
    legend = "".join(f'<span class="item">{mark(s)}<span>{_e(STATUS_MARK[s][2])}</span></span>' for s in STATUSES)
    return (
        '<section id="summary" class="block"><h2>Summary</h2>'
        '<p class="help">Counts over the tables in this build. A <em>fact</em> is one chosen value of one attribute of '
        "one size or series; its status says how it was chosen and its confidence (0 to 1) how far to trust it.</p>"
        f'<div class="cards">{"".join(cards)}</div>'
        f'<div class="legend" aria-label="Status marks">{legend}</div></section>'
    )
