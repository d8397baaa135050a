"""The page's static assets, carried inline: its stylesheet (`CSS`), its one script (`SCRIPT`:
sortable headings, filters by text, family and retirement) and the Content-Security-Policy
(`CSP`) that lets no other script run and nothing load from anywhere."""

from __future__ import annotations

import base64
import hashlib

CSS = """
:root {
  --ink: #1b1f24; --muted: #57606a; --line: #d0d7de; --paper: #ffffff; --wash: #f6f8fa;
  --agreed: #007a5a; --single_source: #5a5a5a; --resolved: #0060a0; --unresolved: #c23b00; --unverified: #a86b00;
  --error: #c23b00; --warning: #a86b00; --info: #0060a0;
}
* { box-sizing: border-box; }
[hidden] { display: none !important; }
html { -webkit-text-size-adjust: 100%; }
body {
  margin: 0; color: var(--ink); background: var(--wash);
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Liberation Sans", "DejaVu Sans", Arial, sans-serif;
}
header.top { background: #1b2a3a; color: #fff; padding: 24px max(24px, calc((100% - 1680px) / 2 + 24px)) 18px; }
header.top h1 { margin: 0 0 4px; font-size: 26px; font-weight: 650; letter-spacing: -0.01em; }
header.top p { margin: 0; color: #c9d4df; max-width: 70em; }
header.top nav { margin-top: 14px; display: flex; flex-wrap: wrap; gap: 6px 18px; }
header.top nav a { color: #fff; text-decoration: none; border-bottom: 1px solid #6f8aa5; }
header.top nav a:hover { border-bottom-color: #fff; }
main { max-width: 1680px; margin: 0 auto; padding: 4px 24px 40px; }
section.block { background: var(--paper); border: 1px solid var(--line); border-radius: 8px; padding: 18px 20px;
  margin: 20px 0; }
h2 { margin: 0 0 6px; font-size: 21px; }
h2 .count { color: var(--muted); font-weight: 400; font-size: 16px; }
p.help { margin: 0 0 14px; color: var(--muted); max-width: 75em; }
code, .mono { font-family: "DejaVu Sans Mono", "Liberation Mono", Menlo, Consolas, monospace; font-size: 0.88em; }

.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(210px, 1fr)); gap: 14px; }
.card { border: 1px solid var(--line); border-radius: 8px; padding: 12px 16px; background: var(--paper); }
.card h3 { margin: 0; font-size: 13px; text-transform: uppercase; letter-spacing: 0.06em; color: var(--muted); }
.card .total { font-size: 32px; font-weight: 650; line-height: 1.2; }
.card ul { list-style: none; margin: 6px 0 0; padding: 0; }
.card li { display: flex; justify-content: space-between; gap: 8px; padding: 2px 0;
  border-top: 1px dotted var(--line); }
.card li .n { font-variant-numeric: tabular-nums; font-weight: 600; }
.card li.zero { color: var(--muted); }
.card li.zero .n { font-weight: 400; }

.mark { display: inline-flex; align-items: center; gap: 4px; white-space: nowrap; font-size: 11px; line-height: 1.3;
  padding: 0 5px; border-radius: 4px; border: 1px solid currentColor; background: var(--paper); }
.mark .sym { font-size: 11px; }
.mark .conf { font-variant-numeric: tabular-nums; color: var(--ink); }
.mark.s-agreed { color: var(--agreed); border-style: solid; }
.mark.s-single_source { color: var(--single_source); border-style: dotted; }
.mark.s-resolved { color: var(--resolved); border: 3px double var(--resolved); padding: 0 3px; background: #eaf3fb; }
.mark.s-unresolved { color: var(--unresolved); border-width: 2px; font-weight: 650; background: #fdeee8; }
.mark.s-unverified { color: var(--unverified); border-style: dashed; background: #fdf5e6; }
.mark.sev-error { color: var(--error); border-width: 2px; font-weight: 650; }
.mark.sev-warning { color: var(--warning); border-style: dashed; }
.mark.sev-info { color: var(--info); border-style: dotted; }
.legend { display: flex; flex-wrap: wrap; gap: 8px 18px; margin: 16px 0 0; padding: 10px 14px; background: var(--wash);
  border-radius: 6px; font-size: 13px; color: var(--muted); }
.legend span.item { display: inline-flex; gap: 6px; align-items: center; }

.controls { display: flex; gap: 12px; align-items: center; margin: 0 0 12px; flex-wrap: wrap; }
.controls input { font: inherit; padding: 5px 10px; border: 1px solid var(--line); border-radius: 6px;
  width: 24em; max-width: 100%; }
.controls .shown { color: var(--muted); font-size: 13px; }
.scroll { overflow-x: auto; border: 1px solid var(--line); border-radius: 6px; }
h3.table-title { font-size: 15px; margin: 20px 0 8px; }
table { border-collapse: separate; border-spacing: 0; width: 100%; font-size: 13.5px; }
th, td { padding: 6px 8px; border-bottom: 1px solid var(--line); text-align: left; vertical-align: top; }
thead th { position: sticky; top: 0; background: #eef1f4; font-weight: 600; z-index: 1; }
thead th button { all: unset; cursor: pointer; display: inline-flex; flex-direction: column; }
thead th button:focus-visible { outline: 2px solid var(--resolved); }
thead th .unit { font-weight: 400; color: var(--muted); font-size: 12px; }
thead th[aria-sort="ascending"] button::after { content: " ▲"; font-size: 10px; }
thead th[aria-sort="descending"] button::after { content: " ▼"; font-size: 10px; }
tbody tr:nth-child(even) td { background: #fafbfc; }
tbody tr:hover td { background: #f1f6fb; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.code { white-space: nowrap; }
td.v { min-width: 92px; }
td.v.txt { min-width: 150px; }
td.v .val { display: block; font-weight: 600; }
td.v.num .val { text-align: right; }
td.v .mark { margin-top: 2px; }
td.v .flag { display: block; font-size: 11px; color: var(--muted); }
td.v.inferred .val { font-style: italic; text-decoration: underline dotted; text-underline-offset: 3px; }
td.v.inferred .flag { color: var(--unverified); }
td.empty { color: #9aa3ad; text-align: center; }
th.rowhead, td.rowhead { position: sticky; left: 0; background: var(--paper); z-index: 2;
  border-right: 1px solid var(--line); min-width: 150px; max-width: 180px; }
thead th.rowhead { z-index: 3; background: #eef1f4; }
tbody tr:nth-child(even) td.rowhead { background: #fafbfc; }
td.rowhead .name { font-weight: 650; }
.pfx { font-weight: 400; color: var(--muted); }
td.rowhead .sub { display: block; font-size: 12px; color: var(--muted); }
tr.retired td.rowhead .name { text-decoration: line-through; color: var(--muted); }
td.rowhead .retired-tag { font-weight: 700; letter-spacing: 0.04em; }
.controls select { font: inherit; padding: 4px 8px; border: 1px solid var(--line); border-radius: 6px; }

.conflict { border: 1px solid var(--line); border-left: 5px solid var(--resolved); border-radius: 6px;
  padding: 14px 18px; margin: 14px 0; background: var(--paper); break-inside: avoid; }
.conflict.st-unresolved { border-left-color: var(--unresolved); border-left-style: double; border-left-width: 7px; }
.conflict.st-unverified { border-left-color: var(--unverified); border-left-style: dashed; }
.core { font-size: 10px; font-weight: 650; text-transform: uppercase; letter-spacing: 0.05em; color: #fff;
  background: #1b2a3a; border-radius: 3px; padding: 0 4px; vertical-align: 1px; }
#conflicts-index { margin-bottom: 8px; }
#conflicts-index td.chosen { font-weight: 650; }
.conflict header { display: flex; flex-wrap: wrap; gap: 8px 14px; align-items: baseline; }
.conflict h3 { margin: 0; font-size: 16px; }
.conflict h3 .attr { font-weight: 400; color: var(--muted); }
.conflict p.why { margin: 8px 0 12px; padding: 8px 12px; background: var(--wash); border-radius: 6px; }
.conflict p.why .also { display: block; margin-top: 4px; font-size: 13px; color: var(--muted); }
.values { display: grid; grid-template-columns: repeat(auto-fit, minmax(340px, 1fr)); gap: 12px;
  align-items: start; }
.value { border: 1px solid var(--line); border-radius: 6px; padding: 10px 14px; }
.value.won { border: 2px solid var(--agreed); background: #f3faf7; }
.value.lost { border-style: dashed; }
.value .head { display: flex; flex-wrap: wrap; align-items: baseline; gap: 6px 10px; margin-bottom: 6px; }
.value .big { font-size: 22px; font-weight: 650; }
.tag { font-size: 12px; font-weight: 650; letter-spacing: 0.03em; text-transform: uppercase; padding: 1px 7px;
  border-radius: 4px; border: 1px solid currentColor; }
.tag.won { color: var(--agreed); border-width: 2px; }
.tag.lost { color: var(--muted); border-style: dashed; }
.tag.superseded { color: var(--unverified); border-style: dotted; }
.value .facts { font-size: 13px; color: var(--muted); margin: 0 0 6px; }
.value .facts b { color: var(--ink); font-weight: 600; }
.value p.note { font-size: 13px; margin: 4px 0 6px; }
ul.sources { list-style: none; margin: 0; padding: 0; font-size: 13px; }
ul.sources li { padding: 6px 0; border-top: 1px dotted var(--line); }
ul.sources .where { overflow-wrap: anywhere; }
ul.sources .dir { color: var(--muted); }
ul.sources .meta { display: block; color: var(--muted); font-size: 12px; }
ul.sources q { display: block; margin-top: 2px; padding-left: 8px; border-left: 3px solid var(--line); quotes: "“" "”";
  overflow-wrap: anywhere; }

td.doc { overflow-wrap: anywhere; min-width: 240px; }
td.msg { min-width: 320px; }
footer { text-align: center; color: var(--muted); font-size: 12px; padding: 0 0 32px; }

@page { size: landscape; margin: 10mm; }
@media print {
  body { background: #fff; font-size: 10pt; }
  table { font-size: 8pt; }
  td.v, td.v.txt, th.rowhead, td.rowhead, td.doc, td.msg { min-width: 0; }
  .mark { font-size: 7pt; }
  /* Browsers drop backgrounds when printing: white-on-dark text would vanish. */
  .core { color: #000; background: none; border: 1px solid #000; }
  header.top { background: #fff; color: #000; padding: 0 0 8px; border-bottom: 2px solid #000; }
  header.top p, header.top nav a { color: #000; }
  .controls, header.top nav { display: none; }
  main { padding: 0; max-width: none; }
  section.block { border: none; padding: 0; margin: 16px 0; }
  .scroll { overflow: visible; border: none; }
  thead th, th.rowhead, td.rowhead { position: static; }
  .conflict, .card, tr { break-inside: avoid; }
}
"""

SCRIPT = """
(function () {
  "use strict";
  function key(row, i) {
    var cell = row.cells[i];
    if (!cell) { return ""; }
    return cell.hasAttribute("data-sort") ? cell.getAttribute("data-sort") : cell.textContent.trim();
  }
  function compare(a, b) {
    if (a === "" || b === "") { return a === b ? 0 : (a === "" ? 1 : -1); }
    var x = Number(a), y = Number(b);
    if (!isNaN(x) && !isNaN(y)) { return x - y; }
    return a.localeCompare(b, undefined, { numeric: true, sensitivity: "base" });
  }
  document.querySelectorAll("table.sortable").forEach(function (table) {
    var heads = table.tHead.rows[0].cells;
    Array.prototype.forEach.call(heads, function (th, i) {
      var button = th.querySelector("button");
      if (!button) { return; }
      button.addEventListener("click", function () {
        var dir = th.getAttribute("aria-sort") === "ascending" ? -1 : 1;
        Array.prototype.forEach.call(heads, function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", dir === 1 ? "ascending" : "descending");
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (r, s) {
          var a = key(r, i), b = key(s, i);
          if (a === "" || b === "") { return compare(a, b); }
          return dir * compare(a, b);
        });
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
  });
  function refilter(scope) {
    var box = scope.querySelector("input[data-filter]");
    var fam = scope.querySelector("select[data-family]");
    var gone = scope.querySelector("input[data-hide-retired]");
    var q = box ? box.value.trim().toLowerCase() : "";
    var f = fam ? fam.value : "";
    var hideRetired = gone ? gone.checked : false;
    var shown = scope.querySelector(".shown");
    var items = scope.querySelectorAll("[data-item]");
    var n = 0;
    items.forEach(function (el) {
      var hit = (q === "" || el.textContent.toLowerCase().indexOf(q) !== -1)
        && (f === "" || el.getAttribute("data-family") === f)
        && !(hideRetired && el.hasAttribute("data-retired"));
      el.hidden = !hit;
      if (hit) { n += 1; }
    });
    var all = q === "" && f === "" && !hideRetired;
    if (shown) { shown.textContent = all ? "" : n + " of " + items.length + " shown"; }
  }
  document.querySelectorAll("input[data-filter]").forEach(function (input) {
    var scope = document.getElementById(input.getAttribute("data-filter"));
    input.addEventListener("input", function () { refilter(scope); });
  });
  document.querySelectorAll("select[data-family]").forEach(function (select) {
    var scope = document.getElementById(select.getAttribute("data-family"));
    select.addEventListener("change", function () { refilter(scope); });
  });
  document.querySelectorAll("input[data-hide-retired]").forEach(function (box) {
    var scope = document.getElementById(box.getAttribute("data-hide-retired"));
    box.addEventListener("change", function () { refilter(scope); });
  });
})();
"""

_SCRIPT_HASH = base64.b64encode(hashlib.sha256(SCRIPT.encode("utf-8")).digest()).decode("ascii")
CSP = f"default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-{_SCRIPT_HASH}'; img-src data:"
"""Defence in depth: even if some document text ever escaped unescaped, the browser would run
no script but ours and load nothing from anywhere."""
