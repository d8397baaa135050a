"""Stage 2 for machine-made catalogs: a CSV or JSON list of VM sizes becomes `Statement`s, cached
with the other documents' in the runner's parse memo (`runner.documents`).

A catalog (SkyPilot's CSV, `az vm list-skus --output json`) states values per size the way
the API reports them. Each column or capability becomes a statement of the size, with the
line it stands on, as a markdown table cell does, so the later stages treat both alike. The
formats, and what each column or capability states, are data (`knowledge/catalogs.toml`).
Prices are not claims about a size but facts of a region: they are kept as `Price` records.
"""

from __future__ import annotations

import bisect
import csv
import io
import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pipeline import knowledge
from pipeline.knowledge import CatalogFormat, Knowledge
from pipeline.records import Diagnostic, Document, Extraction, Price, Statement

SUFFIXES = (".csv", ".json")


def is_catalog(path: str) -> bool:
    return path.lower().endswith(SUFFIXES)


@dataclass
class _Found:
    """What one catalog gave: statements once per (size, field, value), prices, diagnostics."""

    doc: Document
    statements: list[Statement] = field(default_factory=list)
    prices: list[Price] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    seen: dict[tuple[str, str], dict[str, int]] = field(default_factory=dict)
    """(size, field) -> {value as written: first line}; a second value is a diagnostic."""

    def add(self, line: int, size: str, name: str, raw: str, row: int, section: str) -> None:
        raw = raw.strip()
        if not raw:
            return
        values = self.seen.setdefault((size.casefold(), name), {})
        if raw in values:
            return
        if values:
            first, first_line = next(iter(values.items()))
            self.diagnostics.append(
                Diagnostic(
                    "warning",
                    "catalog-size-twice",
                    self.doc.path,
                    line,
                    f"{size} is listed again with {name} {raw!r} where line {first_line} gives {first!r}; "
                    "both are kept as claims",
                )
            )
        values[raw] = line
        self.statements.append(
            Statement(
                document=self.doc.path,
                line=line,
                section=section,
                method="catalog",
                key=name,
                raw_text=raw,
                parts=(raw,),
                subject=size,
                row_index=row,
                column=name,
            )
        )


def extract_catalog(doc: Document, know: Knowledge | None = None) -> Extraction:
    """All statements and prices of a catalog file; never raises on a broken file."""
    know = know or knowledge.load()
    found = _Found(doc)
    if doc.path.lower().endswith(".csv"):
        _csv(found, know)
    else:
        _json(found, know)
    return Extraction(
        document=doc,
        subject=None,
        statements=tuple(found.statements),
        includes=(),
        diagnostics=tuple(found.diagnostics),
        prices=tuple(found.prices),
    )


# ------------------------------------------------------------------------------------ CSV


def _csv(found: _Found, know: Knowledge) -> None:
    rows = _csv_rows(found.doc.text)
    header = next(rows, None)
    if header is None:
        found.diagnostics.append(Diagnostic("warning", "catalog-empty", found.doc.path, None, "the catalog is empty"))
        return
    _, columns = header
    fmt, missing = _csv_format(columns, know)
    if fmt is None:
        shown = "; ".join(f"{name}: {', '.join(cols)}" for name, cols in missing)
        found.diagnostics.append(
            Diagnostic(
                "error",
                "catalog-columns-missing",
                found.doc.path,
                1,
                f"the header is no catalog format's: columns missing ({shown}); no row is read",
            )
        )
        return
    index = {name: i for i, name in enumerate(columns)}
    fields = [(name, i) for name, i in index.items() if name in know.catalog_fields]
    section = fmt.description
    for row, (line, cells) in enumerate(rows, start=1):
        if len(cells) != len(columns):
            found.diagnostics.append(
                Diagnostic(
                    "warning",
                    "catalog-row-cells",
                    found.doc.path,
                    line,
                    f"row has {len(cells)} cells where the header has {len(columns)}; not read",
                )
            )
            continue
        size = cells[index[fmt.size]].strip()
        if not size:
            found.diagnostics.append(
                Diagnostic(
                    "warning",
                    "catalog-row-without-size",
                    found.doc.path,
                    line,
                    f"row has no {fmt.size}: its values are of no size, and are not read",
                )
            )
            continue
        for name, i in fields:
            found.add(line, size, name, cells[i], row, section)
        if fmt.price:
            _price(found, fmt, line, size, cells, index)


def _csv_rows(text: str) -> Iterator[tuple[int, list[str]]]:
    """(first line, cells) of each record; a quoted field may span lines."""
    reader = csv.reader(io.StringIO(text))
    last = 0
    try:
        for cells in reader:
            start, last = last + 1, reader.line_num
            if any(c.strip() for c in cells):
                yield start, cells
    except csv.Error:
        return


def _csv_format(columns: Sequence[str], know: Knowledge) -> tuple[CatalogFormat | None, list[tuple[str, list[str]]]]:
    """The first CSV format whose required columns the header has, or what each one lacks."""
    missing = []
    for fmt in know.catalog_formats:
        if fmt.kind != "csv":
            continue
        lacking = [c for c in fmt.required if c not in columns]
        if not lacking:
            return fmt, []
        missing.append((fmt.name, lacking))
    return None, missing


def _price(
    found: _Found, fmt: CatalogFormat, line: int, size: str, cells: Sequence[str], index: Mapping[str, int]
) -> None:
    def number(column: str | None) -> float | None:
        if column is None or column not in index:
            return None
        raw = cells[index[column]].strip()
        if not raw:
            return None
        try:
            value = float(raw)
        except ValueError:
            value = -1.0
        if value < 0 or value != value:
            found.diagnostics.append(
                Diagnostic("warning", "value-unreadable", found.doc.path, line, f"{column}: {raw!r} is not a price")
            )
            return None
        return value

    on_demand, spot = number(fmt.price), number(fmt.spot_price)
    region = cells[index[fmt.region]].strip() if fmt.region and fmt.region in index else None
    if spot is not None and spot == on_demand:
        # A spot price is a discount on demand that Azure may take back: the same number in both
        # columns is the catalog filling a price it did not have, not a spot price.
        found.diagnostics.append(
            Diagnostic(
                "info",
                "spot-equals-on-demand",
                found.doc.path,
                line,
                f"{size} in {region or 'a region'}: the spot price {spot:g} is the on-demand price; "
                "no spot price is taken",
            )
        )
        spot = None
    if on_demand is not None or spot is not None:
        found.prices.append(Price(found.doc.path, line, size, region, fmt.os, on_demand, spot))


# ----------------------------------------------------------------------------------- JSON


def _json(found: _Found, know: Knowledge) -> None:
    text = found.doc.text
    try:
        data: Any = json.loads(text)
    except json.JSONDecodeError as exc:
        found.diagnostics.append(
            Diagnostic(
                "error",
                "catalog-invalid-json",
                found.doc.path,
                exc.lineno,
                f"the catalog is not valid JSON ({exc.msg}, column {exc.colno}); no size is read",
            )
        )
        return
    fmt = next((f for f in know.catalog_formats if f.kind == "json"), None)
    skus = data.get("value") if isinstance(data, dict) else data
    if fmt is None or not isinstance(skus, list):
        found.diagnostics.append(
            Diagnostic(
                "error",
                "catalog-columns-missing",
                found.doc.path,
                1,
                "the JSON is neither a list of Resource SKUs nor an object with one in `value`; no size is read",
            )
        )
        return
    lines = _Lines(text)
    for row, (sku, begin, stop) in enumerate(_elements(text, isinstance(data, dict)), start=1):
        if not isinstance(sku, dict) or not isinstance(sku.get("name"), str) or not sku["name"].strip():
            if isinstance(sku, dict) and sku.get("resourceType", "virtualMachines") == "virtualMachines":
                found.diagnostics.append(
                    Diagnostic(
                        "warning",
                        "catalog-row-without-size",
                        found.doc.path,
                        lines.line(begin),
                        "SKU has no name: its values are of no size, and are not read",
                    )
                )
            continue
        if sku.get("resourceType", "virtualMachines") != "virtualMachines":
            continue
        size = sku["name"]
        sku_line = lines.line(max(lines.find(_pair("name", size), begin, stop), begin))
        capabilities = sku.get("capabilities")
        if not isinstance(capabilities, list):
            continue
        cursor = begin
        for cap in capabilities:
            if not isinstance(cap, dict) or not isinstance(cap.get("name"), str):
                continue
            name, value = cap["name"], cap.get("value")
            at = lines.find(_pair("name", name), cursor, stop)
            cursor = at if at >= 0 else cursor
            if name in know.catalog_fields and value is not None:
                found.add(lines.line(at) if at >= 0 else sku_line, size, name, str(value), row, fmt.description)


def _elements(text: str, wrapped: bool) -> Iterator[tuple[Any, int, int]]:
    """Each element of the JSON array of SKUs (top level, or an object's `value`) with the
    offsets it spans, so that its keys are looked for within it."""
    decoder = json.JSONDecoder()
    if wrapped:
        m = re.search(r'"value"\s*:\s*\[', text)
        if m is None:
            return
        i = m.end()
    else:
        i = text.index("[") + 1
    while True:
        while i < len(text) and text[i] in " \t\r\n,":
            i += 1
        if i >= len(text) or text[i] == "]":
            return
        try:
            element, end = decoder.raw_decode(text, i)
        except json.JSONDecodeError:
            return
        yield element, i, end
        i = end


def _pair(key: str, value: str) -> re.Pattern[str]:
    return re.compile(rf'"{re.escape(key)}"\s*:\s*{re.escape(json.dumps(value))}')


class _Lines:
    """Offsets of a text's lines, to name the line a JSON key stands on."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def find(self, pattern: re.Pattern[str], start: int, stop: int) -> int:
        m = pattern.search(self.text, max(start, 0), stop)
        return m.start() if m else -1

    def line(self, offset: int) -> int:
        return bisect.bisect_right(self.starts, max(offset, 0))
