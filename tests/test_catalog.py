"""Machine-made catalogs as sources: SkyPilot's CSV and `az vm list-skus` JSON become statements
with the line of each value, and prices with the line of each row.

The CSV rows are real (sources/catalogs/skypilot/, copied unchanged from skypilot-org/
skypilot-catalog); the JSON fixtures under tests/fixtures/catalogs/ are written by hand in the
documented shape of Resource SKUs, with values read off the Learn pages, not from an API."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from pipeline.records import Extraction
from pipeline.stages.catalog import extract_catalog
from pipeline.stages.read import parse_bytes

ROOT = Path(__file__).resolve().parent.parent
V6 = "catalogs/skypilot/v6-azure-vms-N.csv"
V4 = "catalogs/skypilot/v4-azure-instances-N.csv"
FIXTURES = Path(__file__).parent / "fixtures" / "catalogs"


def catalog(path: Path, name: str) -> Extraction:
    doc, diags = parse_bytes(name, path.read_bytes())
    assert doc is not None and diags == []
    return extract_catalog(doc)


def shipped(name: str) -> Extraction:
    return catalog(ROOT / "sources" / name, name)


def fixture(name: str) -> Extraction:
    return catalog(FIXTURES / name, f"catalogs/{name}")


def stated(ex: Extraction, size: str) -> dict[str, tuple[int, str]]:
    return {st.key: (st.line, st.raw_text) for st in ex.statements if st.subject == size}


@pytest.mark.parametrize(
    ("name", "size", "expected"),
    [
        # v6 line 124: Standard_ND96isr_H100_v5,H100,12,96.0,1900,H100,98.32,98.32,eastus,V2
        pytest.param(
            V6,
            "Standard_ND96isr_H100_v5",
            {
                "AcceleratorName": (124, "H100"),
                "AcceleratorCount": (124, "12"),
                "vCPUs": (124, "96.0"),
                "MemoryGiB": (124, "1900"),
                "Generation": (124, "V2"),
            },
            id="v6-H100-twelve-GPUs",
        ),
        # v4 line 126: Standard_ND96amsr_A100_v4,A100-80GB,8,96.0,1924,A100-80GB,32.77,18.0235,eastus,V2
        pytest.param(
            V4,
            "Standard_ND96amsr_A100_v4",
            {
                "AcceleratorName": (126, "A100-80GB"),
                "AcceleratorCount": (126, "8"),
                "vCPUs": (126, "96.0"),
                "MemoryGiB": (126, "1924"),
                "Generation": (126, "V2"),
            },
            id="v4-NDm-A100-1924",
        ),
        # v6 line 96: Standard_NC8ads_A10_v4,,,8.0,100,,,,eastus,"V1,V2" (no GPU name: none mapped for the family)
        pytest.param(
            V6,
            "Standard_NC8ads_A10_v4",
            {"vCPUs": (96, "8.0"), "MemoryGiB": (96, "100"), "Generation": (96, "V1,V2")},
            id="v6-NC-A10-v4-API-only",
        ),
    ],
)
def test_each_value_is_stated_once_at_the_first_row_that_gives_it(
    name: str, size: str, expected: dict[str, tuple[int, str]]
) -> None:
    """One row per region repeats the specs: a size's value is one statement, at its first row."""
    lines = (ROOT / "sources" / name).read_text().splitlines()
    assert lines[min(line for line, _ in expected.values()) - 1].startswith(size + ",")
    assert stated(shipped(name), size) == expected


def test_every_row_is_a_price_with_its_region_and_line() -> None:
    ex = shipped(V6)
    rows = list(csv.DictReader((ROOT / "sources" / V6).read_text().splitlines()))
    priced = [row for row in rows if row["Price"] or row["SpotPrice"]]
    assert len(ex.prices) == len(priced) < len(rows)
    [eastus] = [p for p in ex.prices if p.size == "Standard_ND96isr_H100_v5" and p.region == "eastus"]
    # line 124: Standard_ND96isr_H100_v5,H100,12,96.0,1900,H100,98.32,98.32,eastus,V2
    assert (eastus.line, eastus.on_demand, eastus.spot, eastus.os) == (124, 98.32, None, "Linux")
    [westus2] = [p for p in ex.prices if p.size == "Standard_NV12s_v3" and p.region == "westus2"]
    # line 145: Standard_NV12s_v3,M60,1,12.0,112,M60,1.14,0.126084,westus2,"V1,V2"
    assert (westus2.line, westus2.on_demand, westus2.spot) == (145, 1.14, 0.126084)


@pytest.mark.parametrize(
    ("row", "spot", "said"),
    [
        # v6 line 124: the same number in both price columns is no spot price
        (
            "Standard_ND96isr_H100_v5,H100,12,96.0,1900,H100,98.32,98.32,eastus,V2",
            None,
            "Standard_ND96isr_H100_v5 in eastus: the spot price 98.32 is the on-demand price; no spot price is taken",
        ),
        # v6 line 145: a spot price below on demand stands
        ("Standard_NV12s_v3,M60,1,12.0,112,M60,1.14,0.126084,westus2,V1", 0.126084, None),
    ],
)
def test_a_spot_price_equal_to_the_on_demand_price_is_no_spot_price(
    row: str, spot: float | None, said: str | None
) -> None:
    header = "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,Generation"
    doc, _ = parse_bytes("catalogs/vms.csv", f"{header}\n{row}\n".encode())
    assert doc is not None
    ex = extract_catalog(doc)
    [price] = ex.prices
    assert price.spot == spot
    found = [(d.code, d.line, d.message) for d in ex.diagnostics]
    assert found == ([("spot-equals-on-demand", 2, said)] if said else [])


def test_list_skus_capabilities_point_at_their_own_lines() -> None:
    ex = fixture("handwritten-list-skus.json")
    h100 = stated(ex, "Standard_ND96isr_H100_v5")
    assert h100 == {
        "MaxResourceVolumeMB": (5, "1048576"),
        "vCPUs": (9, "96"),
        "HyperVGenerations": (13, "V2"),
        "MemoryGB": (17, "1900"),
        "MaxDataDiskCount": (21, "32"),
        "GPUs": (25, "8"),
        "MaxNetworkInterfaces": (29, "8"),
        "AcceleratedNetworkingEnabled": (33, "True"),
    }
    text = (FIXTURES / "handwritten-list-skus.json").read_text().splitlines()
    assert all(f'"name": "{key}"' in text[line - 1] for key, (line, _) in h100.items())


def test_a_size_listed_again_with_another_value_is_reported_and_both_are_kept() -> None:
    ex = fixture("handwritten-list-skus.json")
    vcpus = sorted((st.line, st.raw_text) for st in ex.statements if st.subject == "Standard_NV6" and st.key == "vCPUs")
    assert vcpus == [(50, "6"), (75, "12")]
    assert [(d.code, d.line) for d in ex.diagnostics] == [("catalog-size-twice", 75)]
    assert "line 50 gives '6'" in ex.diagnostics[0].message


def test_other_resource_types_are_not_sizes() -> None:
    assert "Standard_LRS" not in {st.subject for st in fixture("handwritten-list-skus.json").statements}


def test_the_rest_form_is_read_like_the_cli_form() -> None:
    ex = fixture("handwritten-rest-skus.json")
    assert stated(ex, "Standard_NC6s_v3") == {"vCPUs": (3, "6"), "MemoryGB": (3, "112"), "GPUs": (3, "1")}
    assert ex.diagnostics == ()


@pytest.mark.parametrize(
    ("name", "code", "line", "words"),
    [
        pytest.param("truncated-list-skus.json", "catalog-invalid-json", 4, "not valid JSON", id="truncated-json"),
        pytest.param("missing-column.csv", "catalog-columns-missing", 1, "vCPUs", id="csv-missing-a-column"),
    ],
)
def test_a_broken_catalog_is_a_diagnostic_with_its_line(name: str, code: str, line: int, words: str) -> None:
    ex = fixture(name)
    assert ex.statements == () and ex.prices == ()
    [diag] = ex.diagnostics
    assert (diag.severity, diag.code, diag.document, diag.line) == ("error", code, f"catalogs/{name}", line)
    assert words in diag.message


def test_broken_catalogs_beside_good_documents_still_build(tmp_path: Path) -> None:
    """A truncated JSON, a CSV missing a column, a capability that is not a number and a size
    listed twice with another value: each a diagnostic with file and line; the page and the
    readable values of the catalogs are all in the tables."""
    import shutil

    import pandas as pd

    from pipeline.runner import build

    sources = tmp_path / "sources"
    (sources / "catalogs").mkdir(parents=True)
    shutil.copy(Path(__file__).parent / "fixtures" / "reconcile" / "ncv3-series.md", sources / "ncv3-series.md")
    for name in ("handwritten-list-skus.json", "truncated-list-skus.json", "missing-column.csv"):
        shutil.copy(FIXTURES / name, sources / "catalogs" / name)
    out = tmp_path / "output"
    result = build(sources, out)

    where = {(d.code, d.document, d.line) for d in result.diagnostics}
    assert ("catalog-invalid-json", "catalogs/truncated-list-skus.json", 4) in where
    assert ("catalog-columns-missing", "catalogs/missing-column.csv", 1) in where
    unreadable = [d for d in result.diagnostics if d.code == "value-unreadable"]
    assert [(d.document, "fifty-six" in d.message) for d in unreadable] == [
        ("catalogs/handwritten-list-skus.json", True)
    ]
    assert unreadable[0].line == 54  # the line naming Standard_NV6's MemoryGB capability, whose value is "fifty-six"
    assert any(
        d.code == "catalog-size-twice" and d.document == "catalogs/handwritten-list-skus.json"
        for d in result.diagnostics
    )

    documents = pd.read_parquet(out / "documents.parquet")
    assert len(documents) == 4  # every file, the broken ones included
    facts = pd.read_parquet(out / "facts.parquet").set_index(["entity", "attribute"])
    assert facts.loc[("Standard_NC6s_v3", "vcpus"), "value"] == "6"  # the page's row
    assert facts.loc[("Standard_ND96isr_H100_v5", "vcpus"), "value"] == "96"  # the good catalog's capability
    assert facts.loc[("Standard_NV6", "vcpus"), "value"] == "6"  # the size whose memory was unreadable
    assert ("Standard_NV6", "memory_gib") not in facts.index


def test_a_catalog_line_without_a_size_is_skipped_with_its_line() -> None:
    """A SkyPilot row whose InstanceType is empty (line 3 here, the shape of v6-azure-vms-N.csv's rows)
    states values of no size: they are not read, and the line says so."""
    header = "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,Generation"
    rows = [
        "Standard_NC6s_v3,V100,1,6.0,112,V100,3.06,0.306,eastus,V1",
        ",V100,1,6.0,112,V100,3.06,0.306,eastus,V1",
    ]
    doc, _ = parse_bytes("catalogs/vms.csv", "\n".join([header, *rows, ""]).encode())
    assert doc is not None
    ex = extract_catalog(doc)
    assert {st.subject for st in ex.statements} == {"Standard_NC6s_v3"}
    assert [p.line for p in ex.prices] == [2]
    assert [(d.code, d.line, d.message) for d in ex.diagnostics] == [
        ("catalog-row-without-size", 3, "row has no InstanceType: its values are of no size, and are not read")
    ]
