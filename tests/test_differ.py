"""`drift(old, new)`: what a change to the documents does to the dataset, entry by entry.

Each scenario copies the shipped sources, makes one edit a documentation maintainer could
make, builds the copy and compares it with a build of the untouched sources. The expected
entries are worked out from the edited document by hand, so each test states what the
edit means for the dataset and where the report points.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from pipeline.differ import Change, DriftReport, drift, render_json, render_markdown, render_text
from pipeline.outputs.schema import tables
from pipeline.runner import build
from pipeline.sync import LOCK_FILE, UPSTREAM_FILE, lock_text, read_lock

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ROOT / "sources"

GPU_PAGES = "azure-docs/azure-compute-docs/articles/virtual-machines/sizes/gpu-accelerated"
NDASR_PAGE = f"{GPU_PAGES}/ndasra100v4-series.md"
NDASR_SPECS = f"{GPU_PAGES}/includes/ndasra100v4-series-specs.md"
ND_PAGE = f"{GPU_PAGES}/nd-series.md"
OLD_ND_PAGE = "azure-docs/azure-docs/articles/virtual-machines/nd-series.md"
OLD_NDA100_PAGE = "azure-docs/azure-docs/articles/virtual-machines/nda100-v4-series.md"
SEED_NDA100 = "seeds/seed-nd-a100-v4-series-2021.txt"
# `Standard_ND96asr_v4,A100,8,96.0,900,A100,...,eastus,V2`: each API snapshot's first ND96asr_v4 row.
API_V4 = "catalogs/skypilot/v4-azure-instances-N.csv:129"
API_V6 = "catalogs/skypilot/v6-azure-vms-N.csv:121"

NEW_PAGE = "extra/nd-test-series.md"
NEW_PAGE_ROW = "| Standard_ND8t_v9 | 8 | 64 |"
NEW_PAGE_TEXT = f"""---
title: NDt v9-series
description: Specifications for the NDt v9-series VMs.
ms.service: virtual-machines
ms.topic: conceptual
ms.date: 01/15/2026
---

# NDt v9-series

| Size | vCPU | Memory: GiB |
|---|---|---|
{NEW_PAGE_ROW}
"""
NEW_PAGE_ROW_LINE = NEW_PAGE_TEXT.splitlines().index(NEW_PAGE_ROW) + 1

Entry = tuple[str, str, str | None, str | None, str | None]
"""(kind, key, old, new, where): a Change without its section and free-text detail."""


def entries(report: DriftReport, section: str) -> list[Entry]:
    """The report's entries in one section, in a stable order for comparison."""
    found = [(c.kind, c.key, c.old, c.new, c.where) for c in report.changes if c.section == section]
    return sorted(found, key=repr)


def expected(*items: Entry) -> list[Entry]:
    return sorted(items, key=repr)


def the_change(report: DriftReport, section: str, key: str) -> Change:
    [change] = [c for c in report.changes if c.section == section and c.key == key]
    return change


def replace_line(path: Path, line_no: int, old: str, new: str) -> None:
    """Replace file line `line_no` (1-based), which must read `old`, keeping every other byte."""
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    assert lines[line_no - 1].rstrip("\r\n") == old, f"{path}:{line_no} is not {old!r}"
    lines[line_no - 1] = lines[line_no - 1].replace(old, new) if new else ""
    path.write_text("".join(lines), encoding="utf-8")


def edited_copy(tmp_path_factory: pytest.TempPathFactory, name: str, edit: Callable[[Path], None]) -> Path:
    sources = tmp_path_factory.mktemp(name) / "sources"
    shutil.copytree(SOURCES, sources)
    edit(sources)
    return sources


def built(sources: Path, tmp_path_factory: pytest.TempPathFactory, name: str) -> Path:
    out = tmp_path_factory.mktemp(name) / "output"
    build(sources, out)
    return out


def change_nd96asr_memory(sources: Path) -> None:
    """The Basics table of the NDasrA100_v4 page now says 1000 GiB instead of 900 GiB."""
    replace_line(sources / NDASR_PAGE, 31, "| Standard_ND96asr_v4 | 96 | 900 |", "| Standard_ND96asr_v4 | 96 | 1000 |")


def delete_nd24rs_row(sources: Path) -> None:
    """The old ND page loses its Standard_ND24rs* row (file line 36)."""
    row = "| Standard_ND24rs* | 24 | 448 | 2948 | 4 | 96 | 32 | 80000/800 | 8 |"
    replace_line(sources / OLD_ND_PAGE, 36, row, "")


def add_ndtest_page(sources: Path) -> None:
    page = sources / NEW_PAGE
    page.parent.mkdir()
    page.write_text(NEW_PAGE_TEXT, encoding="utf-8")


def redate_nda100_seed(sources: Path) -> None:
    """The 2021 ND A100 v4 seed page is re-dated to 2026, making it the newest official page."""
    replace_line(sources / SEED_NDA100, 8, "ms.date: 05/26/2021", "ms.date: 05/26/2026")


# ------------------------------------------------------------------------------ fixtures


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shipped sources, built once: the `old` side of every comparison."""
    return built(SOURCES, tmp_path_factory, "base")


@pytest.fixture(scope="module")
def memory_edit_sources(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return edited_copy(tmp_path_factory, "memory-edit", change_nd96asr_memory)


@pytest.fixture(scope="module")
def memory_edit(base: Path, memory_edit_sources: Path, tmp_path_factory: pytest.TempPathFactory) -> DriftReport:
    return drift(base, built(memory_edit_sources, tmp_path_factory, "memory-edit-out"))


@pytest.fixture(scope="module")
def row_deleted(base: Path, tmp_path_factory: pytest.TempPathFactory) -> DriftReport:
    sources = edited_copy(tmp_path_factory, "row-deleted", delete_nd24rs_row)
    return drift(base, built(sources, tmp_path_factory, "row-deleted-out"))


@pytest.fixture(scope="module")
def page_added(base: Path, tmp_path_factory: pytest.TempPathFactory) -> DriftReport:
    sources = edited_copy(tmp_path_factory, "page-added", add_ndtest_page)
    return drift(base, built(sources, tmp_path_factory, "page-added-out"))


@pytest.fixture(scope="module")
def seed_redated(base: Path, tmp_path_factory: pytest.TempPathFactory) -> DriftReport:
    sources = edited_copy(tmp_path_factory, "seed-redated", redate_nda100_seed)
    return drift(base, built(sources, tmp_path_factory, "seed-redated-out"))


# ------------------------------------------------------------------------------ 1. no edit, no drift


def test_two_builds_of_the_same_sources_do_not_drift(base: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    again = built(SOURCES, tmp_path_factory, "base-again")
    report = drift(base, again)
    assert report.changes == ()
    assert report.differs is False
    assert render_text(report) == f"no drift: {again} matches {base}\n"
    assert json.loads(render_json(report))["differs"] is False


# ------------------------------------------------------------------------------ 2. a number in a table


def test_a_changed_table_cell_is_reported_as_document_claim_fact_and_conflict(memory_edit: DriftReport) -> None:
    """The page now contradicts the other pages and both API snapshots, which the build trusts more
    for provisioned memory: the fact keeps 900 GiB, no longer agreed, and the edit is a losing value."""
    # The edited page contradicts the API and the other pages now: a new erratum of its line.
    assert set(memory_edit.by_section()) == {"documents", "claims", "facts", "conflicts", "errata", "tables"}
    [erratum] = memory_edit.by_section()["errata"]
    assert (erratum.kind, erratum.key, erratum.new, erratum.where) == (
        "new",
        "memory_gib of Standard_ND96asr_v4",
        "1000 GiB -> 900 GiB",
        f"{NDASR_PAGE}:31",
    )
    assert erratum.detail == f"new erratum in {NDASR_PAGE}:31 (page_vs_include)"  # its own include says 900
    [document] = entries(memory_edit, "documents")
    assert document[:2] == ("changed", NDASR_PAGE)
    assert the_change(memory_edit, "documents", NDASR_PAGE).detail == "as_of 2024-07-31 (unchanged)"

    # The value stands; what moved is said as such: status and confidence, never "900 GiB -> 900 GiB".
    assert entries(memory_edit, "facts") == [
        (
            "changed",
            "Standard_ND96asr_v4 memory_gib",
            "agreed, confidence 0.999",
            "resolved, confidence 0.995",
            API_V6,
        ),
    ]
    fact = the_change(memory_edit, "facts", "Standard_ND96asr_v4 memory_gib")
    assert fact.detail is not None and fact.detail.startswith("value 900 GiB unchanged; ")
    assert "the Azure API catalog is trusted more (0.97) than the official Microsoft Learn page" in fact.detail
    assert fact.detail.endswith("which says 1000 GiB.")

    assert entries(memory_edit, "claims") == [
        ("changed", "Standard_ND96asr_v4 memory_gib", "900", "1000", f"{NDASR_PAGE}:31"),
    ]
    assert the_change(memory_edit, "claims", "Standard_ND96asr_v4 memory_gib").detail == "table Memory (GiB)"

    # The three other pages and both API snapshots state 900 GiB; the edited page is alone.
    others = f"{NDASR_SPECS}:17; {OLD_NDA100_PAGE}:51; {API_V4}; {API_V6}; {SEED_NDA100}:43"
    conflicts = [(c.kind, c.key, c.new, c.where, c.detail) for c in memory_edit.changes if c.section == "conflicts"]
    assert sorted(conflicts, key=repr) == sorted(
        [
            ("appeared", "Standard_ND96asr_v4 memory_gib", "1000 GiB", f"{NDASR_PAGE}:31", "lost"),
            ("appeared", "Standard_ND96asr_v4 memory_gib", "900 GiB", others, "won"),
        ],
        key=repr,
    )
    # The pages alone now say 1000 GiB (the newest page), which the catalog does not confirm: the
    # calibration table, built on that agreement, changes with it.
    assert entries(memory_edit, "tables") == [("changed", "calibration", "3 rows", "3 rows", None)]


def test_the_json_report_carries_the_same_fact_change(memory_edit: DriftReport) -> None:
    data = json.loads(render_json(memory_edit))
    assert data["differs"] is True
    assert data["summary"] == {"documents": 1, "facts": 1, "claims": 1, "conflicts": 2, "errata": 1, "tables": 1}
    [fact] = [c for c in data["changes"] if c["section"] == "facts"]
    assert {k: fact[k] for k in ("kind", "key", "old", "new", "where")} == {
        "kind": "changed",
        "key": "Standard_ND96asr_v4 memory_gib",
        "old": "agreed, confidence 0.999",
        "new": "resolved, confidence 0.995",
        "where": API_V6,
    }


def test_the_markdown_report_escapes_underscores_in_a_table_row(memory_edit: DriftReport) -> None:
    rows = render_markdown(memory_edit).splitlines()
    claim_row = (
        f"| changed | Standard\\_ND96asr\\_v4 memory\\_gib | 900 | 1000 | {NDASR_PAGE}:31 | table Memory (GiB) |"
    )
    assert claim_row in rows
    assert not any("Standard_ND96asr_v4" in row for row in rows)


# ------------------------------------------------------------------------------ 3. a deleted row


ND24RS_OLD_PAGE_CLAIMS = {
    # `| Standard_ND24rs* | 24 | 448 | 2948 | 4 | 96 | 32 | 80000/800 | 8 |` under the ND-series heading
    "series": "ND",
    "vcpus": "24",
    "memory_gib": "448",
    "temp_storage_gib": "2948",
    "gpu_count": "4",
    "gpu_memory_total_gib": "96",
    "gpu_memory_gib": "24",  # 96 GiB over 4 GPUs
    "max_data_disks": "32",
    "uncached_disk_iops": "80000",
    "uncached_disk_mbps": "800",
    "max_nics": "8",
}


def test_a_deleted_row_removes_its_claims_but_not_the_size(row_deleted: DriftReport) -> None:
    assert set(row_deleted.by_section()) == {"documents", "claims", "facts", "tables"}
    assert entries(row_deleted, "documents")[0][:2] == ("changed", OLD_ND_PAGE)
    assert entries(row_deleted, "claims") == expected(
        *(
            ("removed", f"Standard_ND24rs {attribute}", value, None, f"{OLD_ND_PAGE}:36")
            for attribute, value in ND24RS_OLD_PAGE_CLAIMS.items()
        )
    )
    assert entries(row_deleted, "sizes") == []


def test_a_deleted_row_leaves_each_value_but_weakens_its_support(row_deleted: DriftReport) -> None:
    """The newer ND page still states every value, so facts keep their value and point at it."""
    facts = [c for c in row_deleted.changes if c.section == "facts"]
    assert {c.key for c in facts} == {f"Standard_ND24rs {attribute}" for attribute in ND24RS_OLD_PAGE_CLAIMS}
    for fact in facts:
        assert fact.kind == "changed"
        assert fact.old is not None and fact.new is not None and "confidence" in fact.new, fact
        assert fact.where is not None and fact.where.startswith(f"{ND_PAGE}:"), fact
        expected = ND24RS_OLD_PAGE_CLAIMS[fact.key.split(" ")[1]]
        assert fact.detail is not None and re.match(rf"value {expected}( \w+)? unchanged; ", fact.detail), fact


# ------------------------------------------------------------------------------ 4. a new document


def test_a_new_page_adds_its_document_size_facts_claims_and_diagnostic(page_added: DriftReport) -> None:
    where = f"{NEW_PAGE}:{NEW_PAGE_ROW_LINE}"
    assert set(page_added.by_section()) <= {"documents", "sizes", "series", "facts", "claims", "diagnostics"}
    sha = hashlib.sha256(NEW_PAGE_TEXT.encode()).hexdigest()[:12]
    assert entries(page_added, "documents") == [("added", NEW_PAGE, None, sha, None)]
    assert the_change(page_added, "documents", NEW_PAGE).detail == "as_of 2026-01-15"
    assert entries(page_added, "sizes") == [("added", "Standard_ND8t_v9", None, None, None)]
    assert entries(page_added, "facts") == expected(
        ("added", "Standard_ND8t_v9 vcpus", None, "8 vCPU", where),
        ("added", "Standard_ND8t_v9 memory_gib", None, "64 GiB", where),
        ("added", "Standard_ND8t_v9 series", None, "NDt v9", where),
    )
    # vcpus is claimed twice on the row: by the vCPU column and by the size name (ND8 -> 8 vCPUs).
    details = sorted(
        c.detail or "" for c in page_added.changes if c.key == "Standard_ND8t_v9 vcpus" and c.section == "claims"
    )
    assert details == ["name_convention", "table vCPU"]
    assert entries(page_added, "claims") == expected(
        ("added", "Standard_ND8t_v9 vcpus", None, "8", where),
        ("added", "Standard_ND8t_v9 vcpus", None, "8", where),
        ("added", "Standard_ND8t_v9 memory_gib", None, "64", where),
        ("added", "Standard_ND8t_v9 series", None, "NDt v9", where),
    )
    # The page is not in registry.toml; the pipeline says how it classified it.
    diagnostic = (
        "appeared",
        "info source-unregistered",
        None,
        "not in registry.toml; classified as official_spec because its front-matter has Microsoft Learn ms.* keys "
        "(ms.date, ms.service, ms.topic)",
        NEW_PAGE,
    )
    assert entries(page_added, "diagnostics") == [diagnostic]


def test_a_new_page_adds_its_series(page_added: DriftReport) -> None:
    assert entries(page_added, "series") == [("added", "NDt v9", None, None, None)]


# ------------------------------------------------------------------------------ 5. a changed date


def test_a_redated_page_shows_the_date_change_and_wins_as_the_newest(seed_redated: DriftReport) -> None:
    # The seed is a copy of the 2023 page; redated to 2026 it becomes the newer of the two, and the
    # duplicate-page diagnostic now names it as the voice the other repeats.
    assert set(seed_redated.by_section()) == {"documents", "facts", "conflicts", "diagnostics"}
    [document] = [c for c in seed_redated.changes if c.section == "documents"]
    assert (document.kind, document.key, document.detail) == (
        "changed",
        SEED_NDA100,
        "as_of 2021-05-26 -> 2026-05-26",
    )
    # The seed says "Accelerated Networking: Not Supported" (line 35); the newer official pages said Supported.
    assert entries(seed_redated, "facts") == expected(
        ("changed", "ND A100 v4 accelerated_networking", "true", "false", f"{SEED_NDA100}:35"),
        ("changed", "Standard_ND96asr_v4 accelerated_networking", "true", "false", f"{SEED_NDA100}:35"),
    )
    series_fact = the_change(seed_redated, "facts", "ND A100 v4 accelerated_networking")
    assert series_fact.detail is not None and "Newer official Microsoft Learn page (2026-05-26)" in series_fact.detail

    supported = f"{NDASR_PAGE}:114; {OLD_NDA100_PAGE}:37"
    assert entries(seed_redated, "conflicts") == expected(
        ("changed", "ND A100 v4 accelerated_networking", "false lost", "false won", f"{SEED_NDA100}:35"),
        ("changed", "ND A100 v4 accelerated_networking", "true won", "true lost", supported),
        ("changed", "Standard_ND96asr_v4 accelerated_networking", "false lost", "false won", f"{SEED_NDA100}:35"),
        ("changed", "Standard_ND96asr_v4 accelerated_networking", "true won", "true lost", supported),
    )


# ------------------------------------------------------------------------------ 6. schema drift


def test_a_removed_column_and_a_retyped_column_are_schema_drift(base: Path, tmp_path: Path) -> None:
    edited = tmp_path / "output"
    shutil.copytree(base, edited)
    table = pq.read_table(edited / "vm_sizes.parquet")
    assert table.schema.field("vcpus").type == pa.int64()
    table = table.drop_columns(["inferred_attributes"])
    vcpus = table.schema.get_field_index("vcpus")
    table = table.set_column(vcpus, "vcpus", pc.cast(table["vcpus"], pa.float64()))
    pq.write_table(table, edited / "vm_sizes.parquet")

    report = drift(base, edited)
    assert set(report.by_section()) == {"schema", "tables"}
    assert [c for c in report.changes if c.section == "schema"] == [
        Change("schema", "removed", "vm_sizes.inferred_attributes", "string", None, detail="column"),
        Change("schema", "changed", "vm_sizes.vcpus", "int64", "double", detail="column type"),
    ]
    rows = f"{table.num_rows} rows"
    assert entries(report, "tables") == [("changed", "vm_sizes", rows, rows, None)]


def test_a_name_moving_between_vm_sizes_and_names_is_said_once(base: Path, tmp_path: Path) -> None:
    """The third party's NG8 (seeds/thirdparty-azure-ng-series.txt:47) is a name of
    Standard_NG8ads_V620_v1: an output where it was a row of vm_sizes instead reads as a move."""
    edited = tmp_path / "output"
    shutil.copytree(base, edited)
    names = pq.read_table(edited / "names.parquet")
    assert "Standard_NG8" in names["name"].to_pylist()
    keep = pc.not_equal(names["name"], "Standard_NG8")
    pq.write_table(names.filter(keep), edited / "names.parquet")
    sizes = pq.read_table(edited / "vm_sizes.parquet")
    row = sizes.filter(pc.equal(sizes["size"], "Standard_NG8ads_V620_v1"))
    row = row.set_column(row.schema.get_field_index("size"), "size", pa.array(["Standard_NG8"]))
    pq.write_table(pa.concat_tables([sizes, row]), edited / "vm_sizes.parquet")

    moves = [(c.kind, c.key, c.old, c.new) for c in drift(base, edited).changes if c.section == "names"]
    assert moves == [("moved", "Standard_NG8", "a name of Standard_NG8ads_V620_v1", "a row of vm_sizes")]
    back = [(c.kind, c.key, c.old, c.new, c.detail) for c in drift(edited, base).changes if c.section == "names"]
    assert back == [
        (
            "moved",
            "Standard_NG8",
            "a row of vm_sizes",
            "a name of Standard_NG8ads_V620_v1",
            "no longer a size: most likely another name of Standard_NG8ads_V620_v1",
        )
    ]
    assert not [c for c in drift(edited, base).changes if c.section == "sizes" and c.key == "Standard_NG8"]


V710 = "azure-docs/azure-compute-docs/articles/virtual-machines/sizes/gpu-accelerated/nvadsv710-v5-series.md"
NGADS = "azure-docs/azure-compute-docs/articles/virtual-machines/sizes/gpu-accelerated/ngadsv620-series.md"
FIXED_AT = "1234567890abcdef1234567890abcdef12345678"


def fix_the_v710_slip_and_slip_ngads(sources: Path) -> None:
    """Upstream fixes nvadsv710-v5-series.md:79's 7600 IOPS (760, the pattern of 80-83) in a commit of its
    own, and ngadsv620-series.md:67 gains a digit: 12,800 IOPS written 128,000."""
    replace_line(
        sources / V710,
        79,
        "| Standard_NV4ads_V710_v5 | 2 | 7600 | 180 |",
        "| Standard_NV4ads_V710_v5 | 2 | 760 | 180 |",
    )
    lock = sources / "upstream.lock"
    text = lock.read_text(encoding="utf-8")
    entry = text.index(f'document = "{V710}"')
    old = "0f864c9fb268cf065c521396ff2ff24af1a6dd3f"
    assert text.index(old, entry) < text.index("[[file]]", entry)
    lock.write_text(text[:entry] + text[entry:].replace(old, FIXED_AT, 1), encoding="utf-8")
    replace_line(
        sources / NGADS,
        67,
        "| Standard_NG8ads_V620_v1 | 8 | 12,800 | 200 |",
        "| Standard_NG8ads_V620_v1 | 8 | 128,000 | 200 |",
    )


def test_drift_says_which_errata_upstream_fixed_and_which_are_new(
    base: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    sources = edited_copy(tmp_path_factory, "errata", fix_the_v710_slip_and_slip_ngads)
    report = drift(base, built(sources, tmp_path_factory, "errata-out"))
    found = [(c.kind, c.key, c.where, c.detail) for c in report.changes if c.section == "errata"]
    assert (
        "fixed",
        "uncached_disk_iops of Standard_NV4ads_V710_v5",
        f"{V710}:79",
        f"erratum fixed in {V710} at 1234567",
    ) in found
    assert (
        "new",
        "uncached_disk_iops of Standard_NG8ads_V620_v1",
        f"{NGADS}:67",
        f"new erratum in {NGADS}:67 (series_pattern)",
    ) in found
    fixed = the_change(report, "errata", "uncached_disk_iops of Standard_NV4ads_V710_v5")
    assert fixed.old == "7600 IOPS -> 760 IOPS" and fixed.commit == "0f864c9 -> 1234567"
    # The include still says "7,600 - 5,320 IOPS" (includes/nvadsv710-v5-series-specs.md:19): a range that now
    # leaves out the page's 760, 1520, 2280 and 4560: the range is the erratum, no longer copied from a slip.
    include = f"{V710.rsplit('/', 1)[0]}/includes/nvadsv710-v5-series-specs.md:19"
    range_changes = sorted(
        (c.kind, c.new or c.old) for c in report.changes if c.section == "errata" and c.where == include
    )
    assert range_changes == [("fixed", "5320-7600 IOPS -> 760-5320 IOPS"), ("new", "5320-7600 IOPS -> 760-7600 IOPS")]
    assert "## errata" in render_markdown(report).lower() or "#### errata" in render_markdown(report)


# ------------------------------------------------------------------------------ 7. the command line


def run_drift(sources: Path, against: Path, *options: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "pipeline", "drift", "--sources", str(sources), "--against", str(against)]
    return subprocess.run([*command, *options], cwd=ROOT, capture_output=True, text=True, check=False)


def test_cli_drift_exits_0_when_the_sources_build_to_the_committed_output(base: Path) -> None:
    proc = run_drift(SOURCES, base, "--rebuild")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.startswith("no drift: a fresh build of ")


def test_cli_drift_needs_no_build_when_the_build_key_and_every_file_match(base: Path) -> None:
    proc = run_drift(SOURCES, base, "--format", "json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert json.loads(proc.stdout)["changes"] == []
    assert "same documents, settings, code and libraries" in json.loads(proc.stdout)["new"]


def test_cli_drift_builds_when_an_output_file_was_altered(base: Path, tmp_path: Path) -> None:
    """A Parquet file changed by hand defeats the shortcut: drift builds, compares and finds it."""
    against = tmp_path / "output"
    shutil.copytree(base, against)
    table = pq.read_table(against / "vm_sizes.parquet")
    pq.write_table(table.slice(1), against / "vm_sizes.parquet")
    proc = run_drift(SOURCES, against)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "a fresh build of " in proc.stdout
    rows = table.num_rows
    assert f"vm_sizes: {rows - 1} rows -> {rows} rows  (content differs)" in proc.stdout


def test_cli_drift_exits_1_and_names_the_changed_value(base: Path, memory_edit_sources: Path) -> None:
    proc = run_drift(memory_edit_sources, base)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    claim_line = next(line for line in proc.stdout.splitlines() if "memory_gib: 900 -> 1000  [" in line)
    for needle in ("Standard_ND96asr_v4", "memory_gib", "ndasra100v4-series.md:31"):
        assert needle in claim_line
    fact_line = next(line for line in proc.stdout.splitlines() if "memory_gib: agreed, confidence" in line)
    assert "-> resolved, confidence" in fact_line and "(value 900 GiB unchanged; " in fact_line
    assert "900 GiB -> 900 GiB" not in proc.stdout


# ------------------------------------------------------------------------------ 8. determinism


def copy_file_by_file(dest: Path, *, reverse: bool) -> Path:
    """Copy the shipped sources one file at a time, so folders and files are created in the given order."""
    files = sorted((p.relative_to(SOURCES) for p in SOURCES.rglob("*") if p.is_file()), reverse=reverse)
    for rel in files:
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(SOURCES / rel, dest / rel)
    return dest


@pytest.fixture(scope="module")
def two_orders(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    forward = copy_file_by_file(tmp_path_factory.mktemp("forward") / "sources", reverse=False)
    backward = copy_file_by_file(tmp_path_factory.mktemp("backward") / "sources", reverse=True)
    return built(forward, tmp_path_factory, "forward-out"), built(backward, tmp_path_factory, "backward-out")


def test_creation_order_of_the_sources_does_not_change_a_byte(two_orders: tuple[Path, Path]) -> None:
    forward, backward = two_orders
    names = sorted(p.name for p in forward.glob("*.csv"))
    assert names == sorted(f"{name}.csv" for name in tables())
    assert sorted(p.name for p in backward.glob("*.csv")) == names
    for name in [*names, "manifest.json"]:
        assert (forward / name).read_bytes() == (backward / name).read_bytes(), name


def test_manifest_lists_every_input_hash_and_every_output_row_count(two_orders: tuple[Path, Path]) -> None:
    out, _ = two_orders
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    # Every file of the sources but upstream.toml, which only `sync` reads.
    files = {p.relative_to(SOURCES).as_posix(): p for p in SOURCES.rglob("*") if p.is_file()}
    del files[UPSTREAM_FILE]
    assert set(manifest["inputs"]) == set(files)
    seed = manifest["inputs"][SEED_NDA100]
    assert seed == hashlib.sha256((SOURCES / SEED_NDA100).read_bytes()).hexdigest()
    for rel, path in files.items():
        assert manifest["inputs"][rel] == hashlib.sha256(path.read_bytes()).hexdigest(), rel
    assert set(manifest["outputs"]) == set(tables())
    for name, entry in manifest["outputs"].items():
        assert entry["rows"] == pq.read_metadata(out / f"{name}.parquet").num_rows, name
        assert entry["sha256"] == hashlib.sha256((out / f"{name}.csv").read_bytes()).hexdigest(), name


# ------------------------------------------------------------------------------ 9. a page synced at a newer commit

NEW_COMMIT = "c0ffee1" + "5" * 33
MOVED = "99ed1c2 -> c0ffee1"
"""The NDasrA100_v4 page's move: upstream.lock pins it at 99ed1c2a9eb5..."""


def relock(sources: Path, document: str) -> None:
    """What `sync` writes beside a page it took at a newer commit: the lock entry's commit and hash."""
    locked = read_lock(sources)
    assert isinstance(locked, tuple)
    sha = hashlib.sha256((sources / document).read_bytes()).hexdigest()
    entries = [replace(f, commit=NEW_COMMIT, sha256=sha) if f.document == document else f for f in locked]
    (sources / LOCK_FILE).write_text(lock_text(entries), encoding="utf-8")


@pytest.fixture(scope="module")
def resynced(base: Path, tmp_path_factory: pytest.TempPathFactory) -> DriftReport:
    """The NDasrA100_v4 page's 900 -> 1000 GiB edit, arriving upstream in commit c0ffee1."""

    def edit(sources: Path) -> None:
        change_nd96asr_memory(sources)
        relock(sources, NDASR_PAGE)

    return drift(base, built(edited_copy(tmp_path_factory, "resynced", edit), tmp_path_factory, "resynced-out"))


@pytest.fixture(scope="module")
def commit_only(base: Path, tmp_path_factory: pytest.TempPathFactory) -> DriftReport:
    """The old ND page's last commit is now c0ffee1, its bytes are the same (a commit that touched nothing it says)."""
    sources = edited_copy(tmp_path_factory, "commit-only", lambda s: relock(s, OLD_ND_PAGE))
    return drift(base, built(sources, tmp_path_factory, "commit-only-out"))


def test_every_value_a_synced_page_drifted_names_the_commit_behind_it(resynced: DriftReport) -> None:
    named = sorted(((c.section, c.kind, c.key, c.where, c.commit) for c in resynced.changes), key=repr)
    key = "Standard_ND96asr_v4 memory_gib"
    others = f"{NDASR_SPECS}:17; {OLD_NDA100_PAGE}:51; {API_V4}; {API_V6}; {SEED_NDA100}:43"
    assert named == sorted(
        [
            ("claims", "changed", key, f"{NDASR_PAGE}:31", MOVED),
            ("conflicts", "appeared", key, f"{NDASR_PAGE}:31", MOVED),
            ("conflicts", "appeared", key, others, None),  # 900 GiB: no page behind it moved
            ("documents", "changed", NDASR_PAGE, None, MOVED),
            ("errata", "new", "memory_gib of Standard_ND96asr_v4", f"{NDASR_PAGE}:31", MOVED),
            ("facts", "changed", key, API_V6, None),  # 900 GiB still, from the catalog, which did not move
            ("tables", "changed", "calibration", None, None),
        ],
        key=repr,
    )


def test_the_commit_is_in_the_text_markdown_and_json_reports(resynced: DriftReport) -> None:
    text = render_text(resynced).splitlines()
    assert f"  changed     Standard_ND96asr_v4 memory_gib: 900 -> 1000  [{NDASR_PAGE}:31, commit {MOVED}]" in [
        line.split("  (")[0] for line in text
    ]
    document = next(line for line in text if line.startswith(f"  changed     {NDASR_PAGE}: "))
    assert document.endswith(f"[commit {MOVED}]  (as_of 2024-07-31 (unchanged))")
    rows = render_markdown(resynced).splitlines()
    claim = "| changed | Standard\\_ND96asr\\_v4 memory\\_gib | 900 | 1000 | "
    assert f"{claim}{NDASR_PAGE}:31, commit 99ed1c2 -&gt; c0ffee1 | table Memory (GiB) |" in rows
    changes = json.loads(render_json(resynced))["changes"]
    assert [c["commit"] for c in changes if c["section"] == "claims"] == [MOVED]


def test_a_new_commit_that_left_the_bytes_alone_is_a_document_change_only(commit_only: DriftReport) -> None:
    [change] = commit_only.changes  # the conflicts' permalinks to its lines follow; they are not drift of their own
    sha = hashlib.sha256((SOURCES / OLD_ND_PAGE).read_bytes()).hexdigest()[:12]
    same = f"sha256 {sha}"
    detail = "as_of 2020-02-03 (unchanged)"
    assert change == Change("documents", "changed", OLD_ND_PAGE, same, same, detail=detail, commit="1118dcd -> c0ffee1")


def test_a_page_edited_by_hand_keeps_the_commit_it_came_from(memory_edit: DriftReport) -> None:
    """The lock still says where the page came from; `sync` would put the upstream bytes back."""
    assert [c for c in memory_edit.changes if c.commit] == []
