"""The data dictionary (SCHEMA.md) and the Frictionless descriptor cover every column, and say
what each one means."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

from pipeline import knowledge
from pipeline.outputs import schema
from pipeline.outputs.dictionary import datapackage, schema_markdown

FRICTIONLESS_TYPES = {"string", "integer", "number", "boolean", "date"}


def test_every_column_has_a_description() -> None:
    empty = [f"{t}.{c.name}" for t, cols in schema.tables().items() for c in cols if not c.description.strip()]
    assert empty == [], f"columns without a description: {empty}"


def test_every_attribute_has_a_description() -> None:
    empty = [a.name for a in knowledge.load().attributes.values() if not a.description.strip()]
    assert empty == [], f"attributes without a description: {empty}"


def test_datapackage_lists_every_table_and_column() -> None:
    package = datapackage()
    assert package["profile"] == "tabular-data-package"
    assert package["name"]
    resources = {r["name"]: r for r in package["resources"]}
    tables = schema.tables()
    assert list(resources) == list(tables)
    for name, cols in tables.items():
        resource = resources[name]
        assert resource["path"] == f"{name}.csv"
        assert resource["format"] == "csv"
        fields = resource["schema"]["fields"]
        assert [f["name"] for f in fields] == [c.name for c in cols]
        for field, col in zip(fields, cols, strict=True):
            assert field["type"] in FRICTIONLESS_TYPES
            assert field["description"] == col.description
            assert field.get("unit") == col.unit
    assert json.loads(json.dumps(package)) == package
    assert datapackage() == package


def test_datapackage_matches_the_written_csv(shipped_output: Path) -> None:
    """The descriptor describes the files a build writes, column for column."""
    for resource in datapackage()["resources"]:
        with open(shipped_output / resource["path"], encoding="utf-8", newline="") as fh:
            header = next(csv.reader(fh))
        assert header == [f["name"] for f in resource["schema"]["fields"]]


def test_schema_markdown_mentions_every_column() -> None:
    text = schema_markdown()
    sections = dict(re.findall(r"^### (\S+)\n(.*?)(?=^### |^## |\Z)", text, flags=re.S | re.M))
    for name, cols in schema.tables().items():
        assert name in sections, f"no section for {name}"
        for col in cols:
            row = re.search(rf"^\| `{re.escape(col.name)}` \|.*$", sections[name], flags=re.M)
            assert row, f"{name}.{col.name} is not in SCHEMA.md"
            assert col.description.replace("|", "\\|") in row.group(0)


def test_schema_markdown_lists_attributes_with_units() -> None:
    text = schema_markdown()
    for attr in knowledge.load().attributes.values():
        row = re.search(rf"^\| `{re.escape(attr.name)}` \| {attr.kind} \| {re.escape(attr.unit or '')} \|", text, re.M)
        assert row, f"attribute {attr.name} missing or without its unit"


def test_schema_markdown_is_deterministic() -> None:
    assert schema_markdown() == schema_markdown()
    assert schema_markdown().endswith("\n")
