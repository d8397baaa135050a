"""The VM sizes section: one row per size, its columns in tables narrow enough to read
(`SIZE_GROUPS`) under headings people read (`LABELS`); each row's name cell (series, status,
lifecycle, price) and each value's cell with its fact's status, confidence, reason and flags
(`_value_cell`, made for every cell); the family a size is filed under (`family`)."""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from pipeline.knowledge.names import parse_size
from pipeline.outputs import schema
from pipeline.outputs.report.cells import _breakable, _display, _e, _na, _number, _sort_key, _sortable_table, _split
from pipeline.outputs.report.marks import mark
from pipeline.outputs.report.rows import Facts, Rows, _among, _limited, _records

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
    "nvme_disk_total_gib": ("NVMe disks", "GiB in total"),
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
        "nvme_disk_total_gib",
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
        return _sortable_table(head, "".join(body), table_id)

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
