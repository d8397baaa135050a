"""The Conflicts section: an overview of every attribute on which documents disagree, then each
dispute with its competing values, the documents and lines that state them (the text as
written) and why the chosen value won."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pipeline.outputs.report.cells import (
    _e,
    _na,
    _sort_key,
    _sortable_heads,
    _sortable_table,
    _split,
    _where,
    _with_unit,
)
from pipeline.outputs.report.marks import mark
from pipeline.outputs.report.rows import Disputes, Facts, Rows, _limited, _records


def _conflicts(tables: Rows, facts: Facts, disputes: Disputes) -> str:
    claims = {str(c["claim_id"]): c for c in _records(tables, "claims") if not _na(c.get("claim_id"))}
    docs = {str(d["document"]): d for d in _records(tables, "documents") if not _na(d.get("document"))}
    blocks = []
    index = []
    taken: set[str] = set()
    shown, more = _limited(disputes, "conflicts")
    for (entity, attribute), values in shown:
        values = sorted(values, key=lambda r: r.get("won") is not True)  # winner first, others as given
        fact = facts.get((entity, attribute))
        winner = next((r for r in values if r.get("won") is True), None)
        why = _why(fact.get("reason") if fact else None, winner.get("note") if winner else None)
        status = fact.get("status") if fact else None
        fact_mark = mark(status, fact.get("confidence")) if fact else ""
        anchor = _anchor(entity, attribute, taken)
        cards = "".join(_conflict_value(r, claims, docs) for r in values)
        blocks.append(
            f'<article id="{_e(anchor)}" class="conflict st-{_e(status)}" data-item data-entity="{_e(entity)}" '
            f'data-attribute="{_e(attribute)}"><header><h3><span class="mono">{_e(entity)}</span> '
            f'<span class="attr">· {_e(attribute)}</span></h3>'
            f"{fact_mark}</header>"
            f'<p class="why"><strong>Why the chosen value won:</strong> {why}</p>'
            f'<div class="values">{cards}</div></article>'
        )
        chosen = _with_unit(winner) if winner else "—"
        others = ", ".join(_with_unit(r) for r in values if r is not winner)
        index.append(
            f'<tr data-item><td><a class="mono" href="#{_e(anchor)}">{_e(entity)}</a></td><td>{_e(attribute)}</td>'
            f'<td class="chosen">{chosen}</td><td>{others}</td>'
            f'<td data-sort="{_e(_sort_key(fact.get("confidence") if fact else None))}">{fact_mark}</td></tr>'
        )
    heads = _sortable_heads("Entity", "Attribute", "Chosen value", "Other values", "Status of the fact")
    overview = _sortable_table(heads, "".join(index), "conflicts-index")
    html_out = (
        f'<section id="conflicts" class="block"><h2>Conflicts <span class="count">{len(disputes)}</span></h2>'
        '<p class="help">Every attribute on which documents disagree: first an overview (click a name to jump to '
        "it), then each dispute with its competing values, the documents and lines that state them (with the text "
        "as written), and why the chosen value won.</p>"
        '<div class="controls"><label>Filter conflicts <input type="search" data-filter="conflicts" '
        'placeholder="size, attribute, value or document"></label><span class="shown"></span></div>'
        + more
        + (overview + "".join(blocks) if blocks else "<p>No conflicts: every document agrees.</p>")
        + "</section>"
    )
    return html_out


def _conflict_value(
    row: Mapping[str, Any], claims: Mapping[str, Mapping[str, Any]], docs: Mapping[str, Mapping[str, Any]]
) -> str:
    won = row.get("won") is True
    tags = '<span class="tag won">★ chosen</span>' if won else '<span class="tag lost">☆ not chosen</span>'
    if row.get("superseded") is True:
        tags += ' <span class="tag superseded">⟲ superseded</span>'
    facts = []
    if not _na(row.get("kinds")):
        facts.append(f"stated by <b>{_e(row['kinds'])}</b>")
    if not _na(row.get("newest")):
        facts.append(f"newest <b>{_e(row['newest'])}</b>")
    if not _na(row.get("checks_failed")):
        facts.append(f"fails <b>{_e(row['checks_failed'])}</b>")
    note = "" if won or _na(row.get("note")) else f'<p class="note">{_e(row["note"])}</p>'
    sources = []
    ids = _split(row.get("claims"), " ")
    found = [claims[i] for i in ids if i in claims]
    if found:
        for c in sorted(found, key=lambda c: (str(c.get("document")), _sort_line(c.get("line")))):
            doc = docs.get(str(c.get("document")), {})
            meta = [_e(doc.get("kind")), _e(doc.get("as_of")), f"via {_e(c.get('method'))}" if c.get("method") else ""]
            if not _na(doc.get("title")):
                meta.append(f"“{_e(doc['title'])}”")
            raw = f"<q>{_e(c.get('raw_text'))}</q>" if not _na(c.get("raw_text")) else ""
            sources.append(
                f'<li data-claim="{_e(c.get("claim_id"))}">{_where(c.get("document"), c.get("line"), doc.get("url"))}'
                f'<span class="meta">{" · ".join(m for m in meta if m)}</span>{raw}</li>'
            )
    else:  # the claims table is not at hand: fall back on the document:line list of the conflict row
        for ref in _split(row.get("documents"), ";"):
            path, _, line = ref.rpartition(":")
            url = docs.get(path or ref, {}).get("url")
            sources.append(f"<li>{_where(path or ref, line if path else None, url)}</li>")
    return (
        f'<div class="value {"won" if won else "lost"}" data-value="{_e(row.get("value"))}">'
        f'<div class="head"><span class="big">{_with_unit(row)}</span>{tags}</div>'
        f'<p class="facts">{" · ".join(facts)}</p>{note}<ul class="sources">{"".join(sources)}</ul></div>'
    )


def _sort_line(line: Any) -> float:
    try:
        return float(line)
    except (TypeError, ValueError):
        return 0.0


def _anchor(entity: str, attribute: str, taken: set[str]) -> str:
    """A stable id for a conflict block, unique on the page whatever the names contain."""
    base = "conflict-" + (re.sub(r"[^A-Za-z0-9]+", "-", f"{entity} {attribute}").strip("-").lower() or "x")
    anchor, n = base, 1
    while anchor in taken:
        n += 1
        anchor = f"{base}-{n}"
    taken.add(anchor)
    return anchor


def _why(reason: Any, note: Any) -> str:
    """The fact's reason (the whole sentence), then the winning value's note when it adds something:
    the note is often the reason's first clause, but for an unverified size it names the evidence
    of the link to the official size."""
    parts = [] if _na(reason) else [_e(reason)]
    if not _na(note) and (_na(reason) or str(note).strip().rstrip(".").lower() not in str(reason).lower()):
        parts.append(f'<span class="also"><b>Note:</b> {_e(note)}</span>' if parts else _e(note))
    return "".join(parts) or "no reason recorded"
