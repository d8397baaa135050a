"""The Docs vs API section: every value on which a documentation page and an API catalog disagree,
both sides and why one won, where each size is found, and the calibration table (does
confidence mean what it says?)."""

from __future__ import annotations

from collections import Counter

from pipeline.outputs.report.cells import _breakable, _e, _na, _sortable_heads, _sortable_table, _with_unit
from pipeline.outputs.report.rows import Disputes, Facts, Rows, _from_api, _from_docs, _records


def _docs_vs_api(tables: Rows, facts: Facts, disputes: Disputes) -> str:
    """Every value on which a page and an API catalog disagree, both sides and why one won;
    then the sizes only one side knows."""
    body = []
    for (entity, attribute), values in disputes:
        api = [r for r in values if _from_api(r.get("kinds"))]
        docs = [r for r in values if _from_docs(r.get("kinds"))]
        if not api or not docs or api == docs:
            continue
        fact = facts.get((entity, attribute), {})
        cells = [
            f'<td class="mono">{_breakable(entity)}</td>',
            f"<td>{_e(attribute)}</td>",
            "<td>" + "<br>".join(f"{_with_unit(r)}{' ✓' if r.get('won') is True else ''}" for r in docs) + "</td>",
            "<td>" + "<br>".join(f"{_with_unit(r)}{' ✓' if r.get('won') is True else ''}" for r in api) + "</td>",
            f'<td class="why">{_e(fact.get("reason"))}</td>',
        ]
        body.append(f"<tr data-item>{''.join(cells)}</tr>")
    sizes = _records(tables, "vm_sizes")
    only = Counter(str(r.get("found_in")) for r in sizes if not _na(r.get("found_in")))
    heads = _sortable_heads("Size", "Attribute", "Docs say", "API says", "Why the chosen value (✓) won")
    table = (
        _sortable_table(heads, "".join(body), "docs-vs-api-table")
        if body
        else "<p>The pages and the API catalogs agree on every value both state.</p>"
    )
    counts = ", ".join(f"{n} {where}" for where, n in sorted(only.items()))
    return (
        f'<section id="docs-vs-api" class="block"><h2>Docs vs API <span class="count">{len(body)}</span></h2>'
        '<p class="help">Every value on which a documentation page and an Azure API catalog (a machine-made '
        "snapshot of what the API reports) disagree, with both sides and why one won: physics decides GPU counts, "
        "the API is trusted for what Azure provisions (vCPUs, memory, disks, NICs), the pages for GPU names. "
        f"Where each size is found: {_e(counts) or 'no sizes'} (the found_in column of vm_sizes).</p>"
        '<div class="controls"><label>Filter <input type="search" data-filter="docs-vs-api" '
        'placeholder="size or attribute"></label><span class="shown"></span></div>'
        f"{table}{_reliability(tables)}</section>"
    )


def _reliability(tables: Rows) -> str:
    """The calibration table: how often values of each confidence agree with the API catalogs."""
    rows = _records(tables, "calibration")
    whole = next((r for r in rows if r.get("bin") == "all"), None)
    if whole is None:
        return ""
    body = "".join(
        f'<tr><td>{_e(r.get("bin"))}</td><td class="num">{_e(r.get("facts"))}</td>'
        f'<td class="num">{float(r["mean_confidence"]):.3f}</td><td class="num">{float(r["accuracy"]):.3f}</td></tr>'
        for r in rows
        if r.get("bin") != "all"
    )
    return (
        '<h3 id="calibration">Does confidence mean what it says?</h3>'
        f'<p class="help">{_e(whole.get("facts"))} values the pages alone give that an API catalog also states, '
        "grouped by their confidence, beside how often the newest catalog snapshot confirms them (a catalog value "
        f"failing a physical check is left out). Expected calibration error {float(whole['ece']):.4f}; mean "
        f"confidence {float(whole['mean_confidence']):.3f}, right {float(whole['accuracy']):.3f}. From the "
        "calibration table; <code>make calibrate</code> refits the model.</p>"
        '<div class="scroll"><table id="calibration-table"><thead><tr><th scope="col">Confidence</th>'
        '<th scope="col">Values</th><th scope="col">Mean confidence</th><th scope="col">Right</th></tr></thead>'
        f"<tbody>{body}</tbody></table></div>"
    )
