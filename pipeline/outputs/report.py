"""One static HTML page over the built tables, for people who read the data rather than load it.

The page must open from a file share or an e-mail attachment years from now, so it carries
everything inline (no network, no CDN), reads the same printed in grey or by a colour-blind
reader (every status has a shape, a border style and a word, not only a hue), and shows
document text only escaped: the sources are scraped pages and may contain markup.
It is deterministic (no clock, no randomness) so two builds of the same input give the same bytes.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import html
import numbers
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import pandas as pd

from pipeline.knowledge.names import parse_size
from pipeline.knowledge.registry import KINDS
from pipeline.outputs import schema

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

LABELS = {
    "vcpus": ("vCPUs", ""),
    "memory_gib": ("Memory", "GiB"),
    "gpu_count": ("GPUs", ""),
    "gpu_model": ("GPU model", ""),
    "gpu_memory_gib": ("GPU memory", "GiB per GPU"),
    "gpu_memory_total_gib": ("GPU memory", "GiB in total"),
    "temp_storage_gib": ("Temp storage", "GiB"),
    "max_data_disks": ("Data disks", "at most"),
    "uncached_disk_iops": ("Disk IOPS", "uncached"),
    "uncached_disk_mbps": ("Disk throughput", "MBps uncached"),
    "max_nics": ("NICs", "at most"),
    "network_bandwidth_mbps": ("Network", "Mbps"),
    "temp_disk_count": ("Temp disks", ""),
    "nvme_disk_count": ("NVMe disks", ""),
    "nvme_disk_size_gib": ("NVMe disk size", "GiB"),
    "cpu_model": ("CPU model", ""),
    "cpu_vendor": ("CPU vendor", ""),
    "cpu_architecture": ("CPU architecture", ""),
    "lifecycle": ("Lifecycle", ""),
    "retirement_date": ("Retirement", "date"),
    "temp_disk_read_iops": ("Temp disk read", "IOPS"),
    "temp_disk_read_mbps": ("Temp disk read", "MBps"),
    "temp_disk_write_iops": ("Temp disk write", "IOPS"),
    "temp_disk_write_mbps": ("Temp disk write", "MBps"),
    "uncached_disk_burst_iops": ("Disk burst IOPS", "uncached"),
    "uncached_disk_burst_mbps": ("Disk burst", "MBps uncached"),
    "uncached_ultra_disk_iops": ("Ultra disk IOPS", "uncached"),
    "uncached_ultra_disk_mbps": ("Ultra disk", "MBps uncached"),
    "uncached_ultra_disk_burst_iops": ("Ultra disk burst IOPS", "uncached"),
    "uncached_ultra_disk_burst_mbps": ("Ultra disk burst", "MBps uncached"),
    "virtual_workstations": ("Virtual workstations", "users"),
    "virtual_applications": ("Virtual applications", "users"),
    "premium_storage": ("Premium storage", ""),
    "infiniband": ("InfiniBand", ""),
    "nvlink": ("NVLink", ""),
    "accelerated_networking": ("Accelerated networking", ""),
    "live_migration": ("Live migration", ""),
    "generation_1_vms": ("Generation 1", "VMs"),
    "generation_2_vms": ("Generation 2", "VMs"),
}
"""Column headings a person reads (label, second line); the column name stays in the tooltip."""

SIZE_GROUPS = {
    "Compute and GPU": (
        "vcpus",
        "memory_gib",
        "gpu_count",
        "gpu_model",
        "gpu_memory_gib",
        "gpu_memory_total_gib",
        "cpu_model",
        "cpu_vendor",
        "cpu_architecture",
    ),
    "Storage and network": (
        "temp_storage_gib",
        "temp_disk_count",
        "nvme_disk_count",
        "nvme_disk_size_gib",
        "temp_disk_read_iops",
        "temp_disk_read_mbps",
        "temp_disk_write_iops",
        "temp_disk_write_mbps",
        "max_data_disks",
        "uncached_disk_iops",
        "uncached_disk_mbps",
        "uncached_disk_burst_iops",
        "uncached_disk_burst_mbps",
        "uncached_ultra_disk_iops",
        "uncached_ultra_disk_mbps",
        "uncached_ultra_disk_burst_iops",
        "uncached_ultra_disk_burst_mbps",
        "max_nics",
        "network_bandwidth_mbps",
    ),
    "Interconnect, features and lifecycle": (
        "interconnect",
        "infiniband",
        "nvlink",
        "accelerated_networking",
        "premium_storage",
        "live_migration",
        "generation_1_vms",
        "generation_2_vms",
    ),
}
"""The size columns in tables narrow enough to read without scrolling sideways; a column the
schema gains later lands in a last table rather than disappearing."""

ROW_HEAD_ATTRIBUTES = ("lifecycle", "retirement_date")
"""Shown under the size's name in every table: a retired size should not be missed."""

RETIRED = frozenset({"retired"})
"""Lifecycle values a row is shown as retired for (struck through, and hidden on request)."""


def family(size: str) -> str:
    """The family a size is filed under in the report: the N-series sub-family (NC, ND, NG,
    NP, NV: NCC is an NC size), else the family letters of the name."""
    name = parse_size(size)
    if name is None:
        return "other"
    return name.family[:2] if name.family.startswith("N") else name.family


_COUNT_UNITS = frozenset({"vCPU", "GPU", "disk", "NIC", "CPU", "VM", "document", "source", "claim", "line"})
"""Units that only repeat the heading ("vCPUs (vCPU)"), so the heading leaves them out."""

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


def _na(value: Any) -> bool:
    if type(value) in _PLAIN:  # most of the million values a large page asks about
        return False
    if value is None or value is pd.NA or value is pd.NaT:
        return True
    if isinstance(value, (str, int)):
        return False
    if isinstance(value, float):
        return value != value
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):
        return False


_PLAIN = frozenset({str, int, bool})
"""Types whose values are never missing (`_na`)."""


def _text(value: Any) -> str:
    if type(value) is str:
        return value
    return "" if _na(value) else str(value)


def _e(value: Any) -> str:
    """Any value as escaped text; the only way document-derived text reaches the page."""
    if type(value) is str:
        return _escape(value)
    return "" if _na(value) else html.escape(str(value), quote=True)


@functools.lru_cache(maxsize=1 << 16)
def _escape(text: str) -> str:
    """Cached: names, attributes and statuses repeat in every row of a page."""
    return html.escape(text, quote=True)


def _number(value: Any) -> str:
    v = float(value)
    if v.is_integer():
        return f"{int(v):,}"
    return f"{v:,.3f}".rstrip("0").rstrip(".")


def _display(value: Any) -> str:
    """A cell value as a person reads it: 160,000 not 160000.0, yes/no not True/False."""
    if type(value) is float:  # most values of a large page
        return "" if value != value else _number(value)
    if _na(value):
        return ""
    if isinstance(value, bool | np.bool_):
        return "yes" if value else "no"
    if isinstance(value, numbers.Real):
        return _number(value)
    return str(value)


def _sort_key(value: Any) -> str:
    if type(value) is float:
        return "" if value != value else repr(value)
    if _na(value):
        return ""
    if isinstance(value, bool | np.bool_):
        return "1" if value else "0"
    if isinstance(value, numbers.Real):
        return repr(float(value))
    return str(value)


Rows = Mapping[str, list[dict[str, Any]]]
"""Each table's rows as dicts, converted once per page: every section reads the same tables."""


def _rows(frames: Mapping[str, pd.DataFrame]) -> dict[str, list[dict[str, Any]]]:
    """Only the claims some conflict cites and the facts of the sizes and conflicts the page
    shows: claims and facts are by far the largest tables, and converting all of them was most
    of a large build's time and memory. The summary counts facts from the table itself. Of the
    sizes and the conflicts the page does not show, each row holds only the columns the page
    counts (`SIZE_COUNTED`, `CONFLICT_COUNTED`)."""
    rows = {name: _dicts(df) for name, df in frames.items() if name not in ("claims", "facts", *_COUNTED)}
    for name, counted in _COUNTED.items():
        if (df := frames.get(name)) is not None:
            whole = _shown_rows(name, df)
            rows[name] = _dicts(df) if all(whole) else _mixed(df, whole, counted)
    claims = frames.get("claims")
    if claims is not None and "claim_id" in claims.columns:
        cited = {i for r in rows.get("conflicts", []) for i in _split(r.get("claims"), " ")}
        rows["claims"] = _dicts(claims[_among(claims["claim_id"], cited)], CLAIM_COLUMNS)
    facts = frames.get("facts")
    if facts is not None and "entity" in facts.columns:
        # Every fact of the sizes shown, and the fact of each value in dispute.
        shown = {_text(r.get("size")) for r in _limited(rows.get("vm_sizes", []), "vm_sizes")[0]}
        disputed = {(_text(r.get("entity")), _text(r.get("attribute"))) for r in rows.get("conflicts", [])}
        # Rows are picked by their keys alone, and only the columns the page shows are copied:
        # a copy of every column of the facts near them was the report's largest memory (at
        # 10,000 documents, its process peaked 90 MiB above the tables it inherits).
        pick = _among(facts["entity"], shown | {entity for entity, _ in disputed})
        near = facts.loc[pick, ["entity", "attribute"]]
        keys = zip(near["entity"].tolist(), near["attribute"].tolist(), strict=True)
        pick[pick] = [entity in shown or (entity, attribute) in disputed for entity, attribute in keys]
        del near
        rows["facts"] = _picked(facts, pick, FACT_COLUMNS)
    return rows


SIZE_COUNTED = ("size", "status", "lifecycle", "found_in")
"""The columns of vm_sizes the page reads of a size it does not show: counts by status, family,
lifecycle and side (`found_in`). Which attributes no size has a value for is read from the
table (`_stated_for_sizes`)."""

CONFLICT_COUNTED = ("entity", "attribute", "kinds", "superseded")
"""The columns of conflicts the page reads of a dispute it does not show: the counts of values,
of disputes and of superseded values, and the kinds of document (a dispute between the docs and
the API is always shown, in its own section)."""

_COUNTED = {"vm_sizes": SIZE_COUNTED, "conflicts": CONFLICT_COUNTED}


def _shown_rows(name: str, df: pd.DataFrame) -> list[bool]:
    """For each row of vm_sizes or conflicts, whether the page shows it: the first SECTION_LIMIT
    sizes; the values of the first SECTION_LIMIT disputes by (entity, attribute), and those of
    every dispute some API catalog takes part in."""
    if name == "vm_sizes":
        return [i < SECTION_LIMIT for i in range(len(df))]
    if not {"entity", "attribute", "kinds"} <= set(df.columns):
        return [True] * len(df)
    keys = [(_text(e), _text(a)) for e, a in zip(df["entity"].tolist(), df["attribute"].tolist(), strict=True)]
    first = set(sorted(set(keys))[:SECTION_LIMIT])
    api = {k for k, kinds in zip(keys, df["kinds"].tolist(), strict=True) if _from_api(kinds)}
    return [k in first or k in api for k in keys]


def _from_api(kinds: Any) -> bool:
    """Whether a competing value's kinds of document (`conflicts.kinds`) include an API catalog:
    its dispute is shown in Docs vs API, whatever the section limit."""
    return _sides("" if _na(kinds) else str(kinds))[0]


def _from_docs(kinds: Any) -> bool:
    """Whether a competing value's kinds of document include one that is not an API catalog."""
    return _sides("" if _na(kinds) else str(kinds))[1]


@functools.lru_cache(maxsize=1024)
def _sides(kinds: str) -> tuple[bool, bool]:
    """Cached: a large build's tens of thousands of competing values have a few dozen kinds' texts."""
    parts = _split(kinds, ", ")
    return "api_catalog" in parts, any(k != "api_catalog" for k in parts)


def _mixed(df: pd.DataFrame, shown: Sequence[bool], counted: Sequence[str]) -> list[dict[str, Any]]:
    """The rows of `df` in order: those `shown` whole, the others with only the `counted` columns."""
    mask = pd.Series(shown, index=df.index, dtype=bool)
    whole, partial = iter(_dicts(df[mask])), iter(_dicts(df[~mask], counted))
    return [next(whole) if keep else next(partial) for keep in shown]


CLAIM_COLUMNS = ("claim_id", "document", "line", "method", "raw_text")
"""The columns of the claims table the page shows (each competing value's sources)."""

FACT_COLUMNS = (
    "entity",
    "attribute",
    "value",
    "status",
    "confidence",
    "reason",
    "inherited_from",
    "basis",
    "basis_from",
    "stale",
    "checks_failed",
)
"""The columns of the facts table the page shows: a fact's row holds only these."""

READS = {
    "claims": CLAIM_COLUMNS,
    "facts": FACT_COLUMNS,
    "documents": ("document", "title", "kind", "publisher", "as_of", "claims", "url"),
}
"""Of these tables, the only columns the page reads; of the others, every column. A caller that
reads the tables from their files need read no other, and one that keeps the page of the last
build knows what it was made from."""


def _among(column: pd.Series, texts: Iterable[str]) -> np.ndarray:
    """Which values of a text column are in `texts`, as a new boolean array: only text is
    looked for, and a null is in none.
    Arrow-backed text is looked up by Arrow: pandas' `isin` on it first makes an Arrow scalar of
    each wanted value in Python (at 10,000 documents, the 42,656 claims conflicts cite picked
    from 519,067: 0.34-0.37 -> 0.04 s)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    texts = [t for t in texts if isinstance(t, str)]
    if isinstance(column.dtype, pd.StringDtype) and column.dtype.storage == "pyarrow":
        values = column.array.__arrow_array__()
        wanted = pa.array(texts, values.type)
        return np.array(pc.is_in(values, value_set=wanted).to_numpy(zero_copy_only=False), dtype=bool)
    return column.isin(set(texts)).to_numpy(dtype=bool, copy=True)


def _dicts(df: pd.DataFrame, columns: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """What `to_dict("records")` gives (pd.NA for nulls), column by column: several times faster;
    with `columns`, only those of them the frame has."""
    names = [str(c) for c in df.columns if columns is None or c in columns]
    return [dict(zip(names, row, strict=True)) for row in zip(*(df[c].tolist() for c in names), strict=True)]


def _picked(df: pd.DataFrame, pick: Any, columns: Sequence[str]) -> list[dict[str, Any]]:
    """`_dicts` of the rows `pick` (a boolean array) marks, of `columns`, a block of rows at a
    time: pandas filters a column made of several Arrow chunks (the parts of a divided reconcile)
    by joining them first, a copy of the whole column (facts.reason is 70 MB at 10,000 documents)."""
    names = [str(c) for c in df.columns if c in columns]
    out: list[dict[str, Any]] = []
    for start in range(0, len(df), PICK_BLOCK):
        rows = pick[start : start + PICK_BLOCK]
        if rows.any():
            out += _dicts(df.iloc[start : start + PICK_BLOCK].loc[rows, names])
    return out


PICK_BLOCK = 1 << 16
"""Rows `_picked` filters at a time."""


def _records(rows: Rows, name: str) -> list[dict[str, Any]]:
    return rows.get(name, [])


_T = TypeVar("_T")

SECTION_LIMIT = 2000
"""Items each list section shows. At 3,000 documents the whole page was 84 MB, which no
browser opens usefully; the counts stay complete and the tables hold every row."""


def _limited(items: Sequence[_T], table: str) -> tuple[Sequence[_T], str]:
    """The first SECTION_LIMIT items, and a note naming the table with the rest, if any."""
    if len(items) <= SECTION_LIMIT:
        return items, ""
    return items[:SECTION_LIMIT], (
        f'<p class="help limit">Showing the first {SECTION_LIMIT:,} of {len(items):,}; every row is in '
        f"<code>{table}.parquet</code> and <code>{table}.csv</code>.</p>"
    )


def _confidence(value: Any) -> str:
    try:
        return f"{float(value):.2f}"
    except (TypeError, ValueError):
        return _e(value)  # not a number: shown as it is rather than breaking the page


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


def _heading(col: schema.Column, core: bool = False) -> str:
    default = col.unit if col.unit and col.unit not in _COUNT_UNITS else ""
    label, sub = LABELS.get(col.name, (col.name.replace("_", " ").capitalize(), default))
    unit = f'<span class="unit">{_e(sub)}</span>' if sub else ""
    tip = f"{col.name}: {col.description}"
    tag = ' <span class="core">core</span>' if core else ""
    return f'<th scope="col" title="{_e(tip)}"><button type="button"><span>{_e(label)}{tag}</span>{unit}</button></th>'


def _stated_for_sizes(frames: Mapping[str, pd.DataFrame]) -> set[str]:
    """Attributes some size has a fact for or a value in vm_sizes, from the whole tables (the
    page converts only the facts it shows, and of the sizes past its limit a few columns)."""
    facts, sizes = frames.get("facts"), frames.get("vm_sizes")
    if sizes is None:
        return set()
    stated = {a for a in schema.VM_SIZE_ATTRIBUTES if a in sizes.columns and bool(sizes[a].notna().any())}
    if facts is None or "entity" not in facts.columns or "size" not in sizes.columns:
        return stated
    of_sizes = _among(facts["entity"], set(sizes["size"].dropna().tolist()))
    return stated | {str(a) for a in facts.loc[of_sizes, "attribute"].dropna().unique()}


Facts = Mapping[tuple[str, str], Mapping[str, Any]]
"""The facts the page shows, by (entity, attribute): made once, read by three sections."""

Disputes = Sequence[tuple[tuple[str, str], list[dict[str, Any]]]]
"""The competing values of the conflicts table by (entity, attribute), in that order: made once,
read by the conflicts section and by Docs vs API."""


def _facts_at(rows: Rows) -> dict[tuple[str, str], Mapping[str, Any]]:
    """`Facts` of the rows the page converted (`_rows`)."""
    return {(str(f["entity"]), str(f["attribute"])): f for f in _records(rows, "facts")}


def _size_tables(rows: Rows, stated: set[str], facts: Facts) -> str:
    sizes = _records(rows, "vm_sizes")
    columns = {c.name: c for c in schema.tables()["vm_sizes"]}
    # A column no size has a value for would only be a stripe of dashes; it is named instead.
    # `stated` is read from the whole tables: `sizes` holds the rows past the limit only in part.
    empty = {a for a in schema.VM_SIZE_ATTRIBUTES if a in columns and a not in stated}
    attrs = [a for a in schema.VM_SIZE_ATTRIBUTES if a in columns and a not in empty and a not in ROW_HEAD_ATTRIBUTES]
    grouped = {a for names in SIZE_GROUPS.values() for a in names}
    groups = [(title, [a for a in names if a in attrs]) for title, names in SIZE_GROUPS.items()]
    groups.append(("Other attributes", [a for a in attrs if a not in grouped]))
    no_values = (
        f'<p class="help">No size has a value for {", ".join(f"<code>{_e(a)}</code>" for a in sorted(empty))}.</p>'
        if empty and sizes
        else ""
    )

    shown, more = _limited(sizes, "vm_sizes")
    families = Counter(family(str(r["size"])) for r in sizes if not _na(r.get("size")))
    retired = sum(str(r.get("lifecycle")) in RETIRED for r in sizes)
    options = f'<option value="">all families ({len(sizes)})</option>' + "".join(
        f'<option value="{_e(f)}">{_e(f)} ({n})</option>' for f, n in sorted(families.items())
    )

    # Each shown size's row opening and name cell, made once: every table repeats them.
    heads = [_size_row_head(row, facts) for row in shown]

    def table(table_id: str, names: Sequence[str]) -> str:
        head = (
            '<th scope="col" class="rowhead"><button type="button"><span>Size</span>'
            '<span class="unit">series · row status</span></button></th>'
            + "".join(_heading(columns[a], a in schema.CORE_ATTRIBUTES) for a in names)
        )
        body = []
        for row, (size, opening) in zip(shown, heads, strict=True):
            cells = "".join([_value_cell(size, a, row.get(a), facts.get((size, a)), columns[a]) for a in names])
            body.append(f"{opening}{cells}</tr>")
        return (
            f'<div class="scroll"><table id="{table_id}" class="sortable"><thead><tr>{head}</tr></thead>'
            f"<tbody>{''.join(body)}</tbody></table></div>"
        )

    return (
        f'<section id="sizes" class="block"><h2>VM sizes <span class="count">{len(sizes)}</span></h2>'
        '<p class="help">One row per size that exists: a name that stands for another size is in Names. Each '
        "value carries the status and confidence of its fact; hover a value for the reason it was chosen. A value "
        "no document states for the size itself is in <em>italics</em>, saying where it comes from (inherited "
        "from its series, copied from a sibling size, read from the name). A size's own "
        "status and confidence are the weakest among its core values, "
        'the columns marked <span class="core">core</span>. Click a heading to sort.</p>'
        '<div class="controls"><label>Filter sizes <input type="search" data-filter="sizes" '
        'placeholder="e.g. ND40 or A100"></label>'
        f'<label>Family <select data-family="sizes">{options}</select></label>'
        f'<label><input type="checkbox" data-hide-retired="sizes"> hide the {retired} retired sizes</label>'
        '<span class="shown"></span></div>'
        + more
        + "".join(
            f'<h3 class="table-title">{_e(title)}</h3>{table(f"sizes-{i + 1}", names)}'
            for i, (title, names) in enumerate(groups)
            if names
        )
        + no_values
        + "</section>"
    )


def _size_row_head(row: Mapping[str, Any], facts: Facts) -> tuple[str, str]:
    """A size's name, and its table row's opening up to its first value: the name cell with the
    series, the row's status, how many of its values no document states for it, its lifecycle
    and price."""
    size = "" if _na(row.get("size")) else str(row["size"])
    sub = f'<span class="sub">{_e(row.get("series"))}</span>' if not _na(row.get("series")) else ""
    inferred = _split(row.get("inferred_attributes"), ",")
    link = (
        f'<span class="sub inferred" title="{_e(row.get("value_basis"))}">{len(inferred)} value'
        f"{'s' if len(inferred) != 1 else ''} inferred</span>"
        if inferred
        else ""
    )
    extra = "".join(_row_head_value(a, row.get(a), facts.get((size, a))) for a in ROW_HEAD_ATTRIBUTES)
    extra += _price_line(row)
    gone = ' class="retired" data-retired' if str(row.get("lifecycle")) in RETIRED else ""
    return size, (
        f'<tr data-item data-size="{_e(size)}" data-family="{_e(family(size))}"{gone}>'
        f'<td class="rowhead" data-sort="{_e(size)}"><span class="name mono">{_breakable(size)}</span>{sub}'
        f"{mark(row.get('status'), row.get('confidence'))}{link}{extra}</td>"
    )


def _price_line(row: Mapping[str, Any]) -> str:
    """The size's lowest on-demand price (newest API snapshot) and what one GPU-hour costs."""
    price = row.get("lowest_price_usd_per_hour")
    if _na(price):
        return ""
    per_gpu = row.get("price_per_gpu_hour_usd")
    gpu = f" · ${_number(per_gpu)}/GPU-h" if not _na(per_gpu) else ""
    return f'<span class="sub price">from ${_number(price)}/h{gpu}</span>'


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
        f'<div class="scroll"><table id="docs-vs-api-table" class="sortable"><thead><tr>{heads}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table></div>"
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


def _row_head_value(attr: str, value: Any, fact: Mapping[str, Any] | None) -> str:
    if _na(value):
        return ""
    label = LABELS.get(attr, (attr.replace("_", " "), ""))[0].lower()
    marked = f" {mark(fact.get('status'), fact.get('confidence'))}" if fact else ""
    if attr == "lifecycle" and str(value) in RETIRED:
        return f'<span class="sub retired-tag" data-attribute="{_e(attr)}">RETIRED{marked}</span>'
    return f'<span class="sub" data-attribute="{_e(attr)}">{_e(label)}: <b>{_e(_display(value))}</b>{marked}</span>'


_CELL_CSS = {"int": "v num", "float": "v num", "string": "v txt"}
"""A value cell's classes by its column's type: numbers align right, text may wrap."""


def _value_cell(size: str, attr: str, value: Any, fact: Mapping[str, Any] | None, col: schema.Column) -> str:
    """A size's value of one attribute, with its fact's status, confidence, reason and flags.
    Called for every cell of the size tables (52,000 at the section's limit): each of the fact's
    fields is read once, and what a number or a status shows is made once per page."""
    # Most cells: a number, as the table holds it. Not a zero: 0.0 and -0.0 are one key of the
    # caches below, and their sort keys differ.
    number = type(value) is float and value == value and value != 0.0
    missing = not number and _na(value)
    if not fact:
        if missing and fact is None:
            return f'<td class="v empty" data-attribute="{_e(attr)}" data-sort="">—</td>'
        status = confidence = stated = None
        tip = flag = ""
    else:
        status, confidence, stated = fact.get("status"), fact.get("confidence"), fact.get("value")
        flags, tips = [], []
        if not _na(reason := fact.get("reason")):
            tips.append(str(reason))
        basis = fact.get("basis")
        if basis in _INFERRED_FLAG:
            source = fact.get("basis_from")
            flags.append(_INFERRED_FLAG[basis])
            tips.append(f"not stated for {size}: {_INFERRED_FLAG[basis]}{'' if _na(source) else f' {source}'}")
        elif not _na(series := fact.get("inherited_from")):
            flags.append("inherited")
            tips.append(f"inherited from series {series}")
        if fact.get("stale") is True:
            flags.append("stale")
        if not _na(checks := fact.get("checks_failed")):
            flags.append("fails a check")
            tips.append(f"checks failed: {checks}")
        if missing and not _na(stated):
            flags.append("range")
        tip = " ".join(tips)
        flag = f'<span class="flag">{" · ".join(flags)}</span>' if flags else ""
    if number:
        shown, order = _number_shown(value)
    else:
        shown, order = _e(_display(stated) if missing else _display(value)), _e(_sort_key(value))
    if type(status) is str and type(confidence) is float and confidence != 0.0:
        status_text, marked = _status_shown(status, confidence)
    else:
        status_text, marked = _e(status), mark(status, confidence)
    css = _CELL_CSS.get(col.type, "v") + (" inferred" if fact and fact.get("basis") in _INFERRED_FLAG else "")
    return (
        f'<td class="{css}" data-attribute="{_e(attr)}" data-status="{status_text}"'
        f' data-sort="{order}" title="{_e(tip)}"><span class="val">{shown}</span>{marked}{flag}</td>'
    )


_INFERRED_FLAG = {"inherited": "inherited from series", "sibling": "copied from", "name": "read from the name"}
"""How a cell says its value is not stated for the size itself (`facts.basis`): shown apart, in italics."""


@functools.lru_cache(maxsize=1 << 14)
def _number_shown(value: float) -> tuple[str, str]:
    """A number cell's text and sort key, escaped: a page's numbers repeat (vCPUs, GiB, GPUs)."""
    return _e(_display(value)), _e(_sort_key(value))


@functools.lru_cache(maxsize=1 << 14)
def _status_shown(status: str, confidence: float) -> tuple[str, str]:
    """A cell's status, escaped, and its label (`mark`): a few statuses, confidences to 2 places."""
    return _e(status), mark(status, confidence)


def _breakable(name: Any) -> str:
    """A size name that may wrap after its common `Standard_` prefix, which is dimmed so the part
    that tells sizes apart stands out; the text stays the whole name for copying and searching."""
    text = _text(name)
    if text.startswith("Standard_") and len(text) > len("Standard_"):
        return f'<span class="pfx">Standard_</span><wbr>{_e(text.removeprefix("Standard_"))}'
    return _e(text)


def _split(text: Any, sep: str) -> list[str]:
    return [] if _na(text) else [p.strip() for p in str(text).split(sep) if p.strip()]


def _where(document: Any, line: Any, url: Any = None) -> str:
    """A document path with its folder dimmed, so the file name stands out in long paths; a link
    to the line upstream when the document has a permalink (`url`)."""
    path = "" if _na(document) else str(document)
    folder, _, name = path.rpartition("/")
    folder_html = f'<span class="dir">{_e(folder)}/</span>' if folder else ""
    line_html = f'<span class="line">:{_e(line)}</span>' if not _na(line) else ""
    link = "" if _na(url) else f' href="{_e(f"{url}#L{line}" if not _na(line) else url)}"'
    tag = "a" if link else "span"
    return f'<{tag} class="where mono"{link}>{folder_html}<b>{_e(name)}</b>{line_html}</{tag}>'


def _anchor(entity: str, attribute: str, taken: set[str]) -> str:
    """A stable id for a conflict block, unique on the page whatever the names contain."""
    base = "conflict-" + (re.sub(r"[^A-Za-z0-9]+", "-", f"{entity} {attribute}").strip("-").lower() or "x")
    anchor, n = base, 1
    while anchor in taken:
        n += 1
        anchor = f"{base}-{n}"
    taken.add(anchor)
    return anchor


def _with_unit(row: Mapping[str, Any]) -> str:
    """A competing value as a person reads it: 160,000 Mbps, not 160000 Mbps; yes/no as in the size tables."""
    value = _text(row.get("value"))
    if re.fullmatch(r"\d+(\.\d+)?", value):
        value = _number(value)
    elif value in ("true", "false") and _na(row.get("unit")):
        value = "yes" if value == "true" else "no"
    unit = "" if _na(row.get("unit")) else f" {_e(row['unit'])}"
    return f"{_e(value)}{unit}"


def _why(reason: Any, note: Any) -> str:
    """The fact's reason (the whole sentence), then the winning value's note when it adds something:
    the note is often the reason's first clause, but for an unverified size it names the evidence
    of the link to the official size."""
    parts = [] if _na(reason) else [_e(reason)]
    if not _na(note) and (_na(reason) or str(note).strip().rstrip(".").lower() not in str(reason).lower()):
        parts.append(f'<span class="also"><b>Note:</b> {_e(note)}</span>' if parts else _e(note))
    return "".join(parts) or "no reason recorded"


def _disputes(rows: Rows) -> Disputes:
    """`Disputes` of the conflicts' rows."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in _records(rows, "conflicts"):
        groups.setdefault((_text(r.get("entity")), _text(r.get("attribute"))), []).append(r)
    return sorted(groups.items())


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
    overview = (
        f'<div class="scroll"><table id="conflicts-index" class="sortable"><thead><tr>{heads}</tr></thead>'
        f"<tbody>{''.join(index)}</tbody></table></div>"
    )
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
        f'<div class="scroll"><table id="errata-table" class="sortable"><thead><tr>{heads}</tr></thead>'
        f"<tbody>{body}</tbody></table></div>"
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


def _names(rows: Rows) -> str:
    """The names documents use for another size: what each stands for, how sure, why, and where."""
    names = _records(rows, "names")
    shown, more = _limited(names, "names")
    body = "".join(
        f'<tr data-item><td class="mono" data-sort="{_e(n.get("name"))}">{_breakable(n.get("name"))}'
        f'<span class="sub">written {_e(n.get("written"))}</span></td>'
        f'<td class="mono" data-sort="{_e(n.get("size"))}">{_breakable(n.get("size"))}</td>'
        f'<td>{_e(n.get("certainty"))}</td><td class="why">{_e(n.get("evidence"))}</td>'
        f"<td>{'<br>'.join(_use(use, n.get('links')) for use in _split(n.get('uses'), ';'))}</td></tr>"
        for n in shown
    )
    heads = _sortable_heads("Name", "Stands for", "Certainty", "Evidence", "Used at")
    table = (
        f'<div class="scroll"><table id="names-table" class="sortable"><thead><tr>{heads}</tr></thead>'
        f"<tbody>{body}</tbody></table></div>"
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


def _sortable_heads(*labels: str) -> str:
    """A table's header cells, each a button that sorts the table by its column."""
    return "".join(f'<th scope="col"><button type="button"><span>{h}</span></button></th>' for h in labels)


def _use(use: str, links: Any) -> str:
    """One `document:line` a name is used at, linked to the line upstream where `links` has it."""
    document, _, line = use.rpartition(":")
    url = next((u.rsplit("#L", 1)[0] for u in _split(links, ";") if u.endswith(f"#L{line}") and document), None)
    return _where(document, line, url)


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
        f'{more}<div class="scroll"><table class="sortable"><thead><tr>{heads}</tr></thead>'
        f"<tbody>{body}</tbody></table></div></section>"
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
        f'<div class="scroll"><table class="sortable"><thead><tr>{heads}</tr></thead>'
        f"<tbody>{body}</tbody></table></div>"
        if diags
        else "<p>No diagnostics: every document was read without a problem.</p>"
    )
    return (
        f'<section id="diagnostics" class="block"><h2>Diagnostics <span class="count">{len(diags)}</span></h2>'
        '<p class="help">Problems found while reading the documents. A problem never stops a build; it is listed '
        "here with the file and line.</p>"
        '<div class="controls"><label>Filter diagnostics <input type="search" data-filter="diagnostics" '
        'placeholder="severity, code, document or message"></label><span class="shown"></span></div>'
        f"{more}{table}</section>"
    )


def render_report(frames: Mapping[str, pd.DataFrame], title: str = "GPU VM dataset") -> str:
    """The whole page: summary, sizes, conflicts, documents, diagnostics; deterministic for given frames."""
    return "".join(_page(frames, title))


def write_report(
    frames: dict[str, pd.DataFrame], path: Path, title: str = "GPU VM dataset", *, consume: bool = False
) -> None:
    """`render_report`'s page written to `path` (UTF-8) a section at a time: at 10,000 documents
    the page is 40 MB, and the whole of it as one string, then as bytes, was the largest
    memory of the process that writes it. With `consume`, `frames` is emptied once the page has
    read what it shows of them (a process that only makes the report then gives their memory back)."""

    def let_go() -> None:
        import pyarrow as pa

        frames.clear()
        pa.default_memory_pool().release_unused()

    with open(path, "w", encoding="utf-8", newline="\n") as f:
        for piece in _page(frames, title, let_go if consume else None):
            f.write(piece)


def _page(frames: Mapping[str, pd.DataFrame], title: str, read: Callable[[], None] | None = None) -> Iterator[str]:
    """The page in order, each section made when it is its turn, so that only one large section
    is held at a time; what a section reads of the whole tables (counts) is read first, and
    `read` is called once nothing more is."""
    rows = _rows(frames)
    facts = frames.get("facts")
    statuses = facts[["status"]] if facts is not None and "status" in facts.columns else None  # for the summary
    stated = _stated_for_sizes(frames)
    del facts
    if read is not None:
        read()
    facts_at, by_dispute = _facts_at(rows), _disputes(rows)
    conflicts = _conflicts(rows, facts_at, by_dispute)
    summary = _summary(rows, statuses, len(by_dispute))
    del statuses
    nav = "".join(
        f'<a href="#{k}">{v}</a>'
        for k, v in (
            ("summary", "Summary"),
            ("sizes", "VM sizes"),
            ("names", "Names"),
            ("conflicts", "Conflicts"),
            ("errata", "Errata"),
            ("docs-vs-api", "Docs vs API"),
            ("documents", "Documents"),
            ("diagnostics", "Diagnostics"),
        )
    )
    yield (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{_e(CSP)}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<link rel="icon" href="data:,">'
        f"<title>{_e(title)}</title><style>{CSS}</style></head>\n"
        f'<body><header class="top"><h1>{_e(title)}</h1>'
        "<p>What the documentation says about each GPU VM size, how sure we are, where documents disagree and "
        "why one value was chosen. Every value traces back to a document and a line.</p>"
        f'<nav aria-label="Sections">{nav}</nav></header>\n<main>'
    )
    yield f"{summary}\n"
    yield _size_tables(rows, stated, facts_at)
    yield f"\n{_names(rows)}\n"
    yield conflicts
    del conflicts
    yield f"\n{_errata(rows)}\n"
    yield f"\n{_docs_vs_api(rows, facts_at, by_dispute)}\n"
    yield f"{_documents(rows)}\n"
    yield f"{_diagnostics(rows)}\n</main>"
    yield (
        f"<footer>Schema version {_e(schema.SCHEMA_VERSION)} · generated from the output tables by "
        "pipeline/outputs/report.py</footer>"
        f"<script>{SCRIPT}</script></body></html>\n"
    )
