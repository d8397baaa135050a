"""The list sections: Names (the names documents use for another size), Errata (what the
official pages and the API catalogs get wrong), Documents (every document read) and Diagnostics
(the problems met reading them); each a table to filter and sort, of its first `SECTION_LIMIT`
rows."""

from __future__ import annotations

from typing import Any

from pipeline.outputs.report.cells import (
    _breakable,
    _confidence,
    _display,
    _e,
    _na,
    _sort_key,
    _sortable_heads,
    _sortable_table,
    _text,
    _where,
)
from pipeline.outputs.report.marks import SEVERITIES, _severity
from pipeline.outputs.report.rows import Rows, _limited, _records
from pipeline.outputs.text import permalinks


def _names(rows: Rows) -> str:
    """The names documents use for another size: what each stands for, how sure, why, and where."""
    names = _records(rows, "names")
    shown, more = _limited(names, "names")
    body = "".join(
        f'<tr data-item><td class="mono" data-sort="{_e(n.get("name"))}">{_breakable(n.get("name"))}'
        f'<span class="sub">written {_e(n.get("written"))}</span></td>'
        f'<td class="mono" data-sort="{_e(n.get("size"))}">{_breakable(n.get("size"))}</td>'
        f'<td>{_e(n.get("certainty"))}</td><td class="why">{_e(n.get("evidence"))}</td>'
        f"<td>{'<br>'.join(_use(at, url) for at, url in permalinks(n.get('uses'), n.get('links')))}</td></tr>"
        for n in shown
    )
    heads = _sortable_heads("Name", "Stands for", "Certainty", "Evidence", "Used at")
    table = (
        _sortable_table(heads, body, "names-table")
        if names
        else "<p>Every size name the documents use is a size of its own.</p>"
    )
    return (
        f'<section id="names" class="block"><h2>Names <span class="count">{len(names)}</span></h2>'
        "<p class=\"help\">Names a document uses for another size: a third party's or a superseded page's "
        "spelling. None is a row of VM sizes; the values stated under it count for the size it stands for, "
        "where any that lose stay in Conflicts.</p>"
        '<div class="controls"><label>Filter names <input type="search" data-filter="names" '
        'placeholder="name, size or document"></label><span class="shown"></span></div>'
        f"{more}{table}</section>"
    )


def _use(at: str, link: str | None) -> str:
    """One `document:line` a name is used at, linked to its line upstream (`link`) where it has one."""
    document, _, line = at.rpartition(":")
    return _where(document, line, _upstream(link))


def _errata(rows: Rows) -> str:
    """What the official pages and the API catalogs get wrong, as errata.md lists it to send upstream."""
    found = _records(rows, "errata")
    shown, more = _limited(found, "errata")
    body = "".join(
        f'<tr data-item data-kind="{_e(r.get("kind"))}">'
        f'<td class="doc" data-sort="{_e(r.get("document"))}:{_e(_sort_key(r.get("line")))}">'
        f"{_where(r.get('document'), r.get('line'), _upstream(r.get('url')))}</td>"
        f'<td class="mono code">{_e(r.get("kind"))}</td>'
        f'<td class="mono">{_e(r.get("written"))}</td>'
        f'<td>{_e(r.get("attribute"))} of <span class="mono">{_e(r.get("entities"))}</span>: {_e(r.get("value"))}</td>'
        f"<td><b>{_e(r.get('supported'))}</b></td>"
        f'<td class="why">{_e(r.get("evidence"))}</td>'
        f'<td class="num" data-sort="{_e(_sort_key(r.get("sure")))}">{_confidence(r.get("sure"))}</td></tr>'
        for r in shown
    )
    heads = _sortable_heads("Where", "Kind", "As written", "States", "Should be", "Why", "Sure")
    table = (
        _sortable_table(heads, body, "errata-table")
        if found
        else "<p>No value of an official page or an API catalog is suspect.</p>"
    )
    return (
        f'<section id="errata" class="block"><h2>Errata <span class="count">{len(found)}</span></h2>'
        '<p class="help">Values an official page or an API catalog states now that the evidence says are wrong: '
        "against the page's own include or another current page, against the API, failing a physical check or "
        "the pattern of the series' other sizes, or under a header whose unit is no unit of its numbers. An update "
        "(a newer page replacing an older value) is not one. errata.md groups them by the file to fix, each "
        "group ready to send upstream.</p>"
        '<div class="controls"><label>Filter errata <input type="search" data-filter="errata" '
        'placeholder="document, kind or size"></label><span class="shown"></span></div>'
        f"{more}{table}</section>"
    )


def _upstream(url: Any) -> str | None:
    """A permalink to a line without its `#L<line>`: what `_where` links a line with."""
    return None if _na(url) else str(url).rsplit("#L", 1)[0]


def _documents(rows: Rows) -> str:
    docs = _records(rows, "documents")
    shown, more = _limited(docs, "documents")
    body = "".join(
        f'<tr data-item><td class="doc" data-sort="{_e(d.get("document"))}">{_where(d.get("document"), None)}</td>'
        f"<td>{_e(d.get('title'))}</td><td>{_e(d.get('kind'))}</td><td>{_e(d.get('publisher'))}</td>"
        f'<td class="num" data-sort="{_e(d.get("as_of"))}">{_e(d.get("as_of"))}</td>'
        f'<td class="num" data-sort="{_e(_sort_key(d.get("claims")))}">{_e(_display(d.get("claims")))}</td></tr>'
        for d in shown
    )
    heads = _sortable_heads("Document", "Title", "Kind", "Publisher", "As of", "Claims")
    return (
        f'<section id="documents" class="block"><h2>Documents <span class="count">{len(docs)}</span></h2>'
        '<p class="help">Every document read, its authority tier and the date it gives for itself.</p>'
        '<div class="controls"><label>Filter documents <input type="search" data-filter="documents" '
        'placeholder="path, title or kind"></label><span class="shown"></span></div>'
        f"{more}{_sortable_table(heads, body)}</section>"
    )


def _diagnostics(rows: Rows) -> str:
    order = {s: i for i, s in enumerate(SEVERITIES)}
    # Errors first: the order a person fixes things in; within a severity, the table's own order.
    diags = sorted(_records(rows, "diagnostics"), key=lambda d: order.get(_text(d.get("severity")), len(order)))
    shown, more = _limited(diags, "diagnostics")
    body = "".join(
        f'<tr data-item data-severity="{_e(d.get("severity"))}">'
        f'<td data-sort="{order.get(str(d.get("severity")), 9)}">{_severity(d.get("severity"))}</td>'
        f'<td class="mono code">{_e(d.get("code"))}</td>'
        f'<td class="doc" data-sort="{_e(d.get("document"))}">{_where(d.get("document"), d.get("line"))}</td>'
        f'<td class="msg">{_e(d.get("message"))}</td></tr>'
        for d in shown
    )
    heads = _sortable_heads("Severity", "Code", "Document", "Message")
    table = (
        _sortable_table(heads, body) if diags else "<p>No diagnostics: every document was read without a problem.</p>"
    )
    return (
        f'<section id="diagnostics" class="block"><h2>Diagnostics <span class="count">{len(diags)}</span></h2>'
        '<p class="help">Problems found while reading the documents. A problem never stops a build; it is listed '
        "here with the file and line.</p>"
        '<div class="controls"><label>Filter diagnostics <input type="search" data-filter="diagnostics" '
        'placeholder="severity, code, document or message"></label><span class="shown"></span></div>'
        f"{more}{table}</section>"
    )
