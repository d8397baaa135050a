"""The backbone end to end: sources in, typed Parquet and CSV out."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest

from pipeline import build
from pipeline.records import BuildResult
from pipeline.schema import tables

TABLES = ["documents", "claims", "vm_sizes", "diagnostics"]


@pytest.mark.parametrize("name", TABLES)
def test_every_table_is_written_as_parquet_and_csv_with_the_same_columns(shipped_output: Path, name: str) -> None:
    parquet = pd.read_parquet(shipped_output / f"{name}.parquet")
    csv = pd.read_csv(shipped_output / f"{name}.csv")
    assert list(parquet.columns) == list(csv.columns) == [c.name for c in tables()[name]]
    assert len(parquet) == len(csv) > 0


def test_vm_sizes_loads_with_pandas_with_proper_dtypes(shipped_output: Path) -> None:
    df = pd.read_parquet(shipped_output / "vm_sizes.parquet")
    expected = {
        "size": "string",
        "series": "string",
        "vcpus": "Int64",
        "memory_gib": "Float64",
        "gpu_count": "Float64",
        "gpu_model": "string",
        "gpu_memory_gib": "Float64",
        "temp_storage_gib": "Float64",
        "max_data_disks": "Int64",
        "uncached_disk_iops": "Int64",
        "uncached_disk_mbps": "Float64",
        "max_nics": "Int64",
        "network_bandwidth_mbps": "Float64",
    }
    assert {k: str(df[k].dtype) for k in expected} == expected
    assert df["size"].is_unique
    assert list(df["size"]) == sorted(df["size"])


@pytest.mark.parametrize("name", TABLES)
def test_every_parquet_field_carries_its_meaning(shipped_output: Path, name: str) -> None:
    schema = pq.read_schema(shipped_output / f"{name}.parquet")
    for field in schema:
        meta = field.metadata or {}
        assert meta.get(b"description"), f"{name}.{field.name} has no description"


def test_vm_sizes_row_for_nd96asr_v4_takes_official_values(shipped_output: Path) -> None:
    df = pd.read_parquet(shipped_output / "vm_sizes.parquet").set_index("size")
    row = df.loc["Standard_ND96asr_v4"]
    assert (row.vcpus, row.memory_gib, row.gpu_count, row.gpu_model) == (96, 900, 8, "A100")
    assert (row.gpu_memory_gib, row.gpu_memory_total_gib, row.temp_storage_gib) == (40, 320, 6000)
    assert (row.max_data_disks, row.uncached_disk_iops, row.uncached_disk_mbps) == (32, 80000, 800)
    assert (row.max_nics, row.network_bandwidth_mbps, row.series) == (8, 24000, "ND A100 v4")


def test_documents_table_records_metadata(shipped_output: Path) -> None:
    docs = pd.read_parquet(shipped_output / "documents.parquet").set_index("document")
    seed = docs.loc["seeds/seed-nd-a100-v4-series-2021.txt"]
    assert seed.title == "ND A100 v4-series"
    assert seed.author == "iafinder"
    assert str(seed.as_of) == "2021-05-26"
    assert seed.kind == "official_spec"
    blog = docs.loc["seeds/blog-nd-gb300-v6-ga-aggregator.txt"]
    assert str(blog.as_of) == "2025-11-19"
    assert blog.canonical_url.startswith("https://techcommunity.microsoft.com/")
    assert pd.isna(docs.loc["seeds/thirdparty-azure-ng-series.txt"].title)


def test_missing_include_targets_are_reported_not_fatal(shipped: BuildResult) -> None:
    missing = [d for d in shipped.diagnostics if d.code == "include-missing"]
    assert any(d.document.endswith("gpu-accelerated/nd-series.md") and d.line == 19 for d in missing)
    outside = [d for d in shipped.diagnostics if d.code == "include-outside-sources"]
    assert {(d.document, d.line) for d in outside} == {
        ("seeds/seed-nd-a100-v4-series-2021.txt", 45),
        ("seeds/seed-ndv2-series-2020.txt", 44),
    }


def test_mojibake_repairs_are_diagnostics_with_lines(shipped: BuildResult) -> None:
    repaired = {(d.document, d.line) for d in shipped.diagnostics if d.code == "mojibake-repaired"}
    assert ("seeds/seed-nd-a100-v4-series-2021.txt", 18) in repaired
    assert ("seeds/thirdparty-azure-nd-series.txt", 26) in repaired
    assert ("seeds/blog-nd-gb300-v6-ga-aggregator.txt", 55) in repaired


def test_a_bad_document_does_not_stop_the_others(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    shutil.copy(Path(__file__).parent.parent / "sources/seeds/seed-ndv2-series-2020.txt", src / "good.md")
    (src / "bad.md").write_bytes(b"---\ntitle: [unclosed\n---\n\x00\x01binary")
    (src / "broken.md").write_text("---\ntitle: [oops\n---\n| Size | vCPU |\n|---|---|\n| Standard_ND6s | 6 |\n")
    out = tmp_path / "out"
    result = build(src, out)
    codes = {(d.document, d.code) for d in result.diagnostics}
    assert ("bad.md", "binary-file") in codes
    assert ("broken.md", "front-matter-invalid") in codes
    sizes = pd.read_parquet(out / "vm_sizes.parquet")
    # the note about the retired ND40s_v2 names a size too
    assert set(sizes["size"]) == {"Standard_ND40rs_v2", "Standard_ND40s_v2", "Standard_ND6s"}


def test_same_sources_give_identical_csv_bytes(tmp_path: Path) -> None:
    src = Path(__file__).parent.parent / "sources"
    a, b = tmp_path / "a", tmp_path / "b"
    build(src, a)
    build(src, b)
    for name in TABLES:
        assert (a / f"{name}.csv").read_bytes() == (b / f"{name}.csv").read_bytes(), name
