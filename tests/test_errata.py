"""Errata (pipeline/stages/errata.py, pipeline/outputs/errata.py): what the official pages and the
API catalogs of sources/ get wrong now, each case read by hand from the lines quoted."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from pipeline.outputs.errata import errata_markdown
from pipeline.records import Claim, Conflict, Diagnostic, UnitMismatch
from pipeline.stages.errata import Chosen, errata, read_by_errata
from tests.test_patterns import SOURCE

GPU = "azure-docs/azure-compute-docs/articles/virtual-machines/sizes/gpu-accelerated"
OLD = "azure-docs/azure-docs/articles/virtual-machines"
V6 = "catalogs/skypilot/v6-azure-vms-N.csv"


@pytest.fixture(scope="module")
def found(shipped_output: Path) -> pd.DataFrame:
    return pd.read_parquet(shipped_output / "errata.parquet")


def one(found: pd.DataFrame, document: str, line: int, attribute: str) -> dict[str, object]:
    rows = found[(found["document"] == document) & (found["line"] == line) & (found["attribute"] == attribute)]
    assert len(rows) == 1, rows
    return {str(k): v for k, v in rows.iloc[0].to_dict().items()}


@pytest.mark.parametrize(
    ("document", "line", "attribute", "kind", "written", "value", "supported"),
    [
        # A page value its own include contradicts: includes/ndmi300xv5-series-specs.md:18 "| Local Storage |
        # 1 Temp Disk <br> 8 NVMe Disks | 1,000 GiB Temp Disk <br> 28,000 GiB NVMe Disks |" against the page's
        # ndmi300xv5-series.md:42 "| Standard_ND96isr_MI300X_v5 | 1 | 1000 | 8 | 28 |" (NVMe Disk Size (TiB)).
        (
            f"{GPU}/includes/ndmi300xv5-series-specs.md",
            18,
            "nvme_disk_total_gib",
            "page_vs_include",
            "1,000 GiB Temp Disk 28,000 GiB NVMe Disks",
            "28000 GiB",
            "28672 GiB",
        ),
        # A docs-vs-API memory disagreement: ndma100v4-series.md:41 "| Standard_ND96amsr_A100_v4 | 96 | 1900 |"
        # against the v6 catalog's line 118 "Standard_ND96amsr_A100_v4,A100-80GB,8,96.0,1800,...".
        (f"{GPU}/ndma100v4-series.md", 41, "memory_gib", "docs_vs_api", "1900", "1900 GiB", "1800 GiB"),
        # An API GPU count that fails physics: v6 line 124 "Standard_ND96isr_H100_v5,H100,12,96.0,1900,..."
        # against ndh100v5-series.md:121 "| Standard_ND96isr_H100_v5 | 8 | 640 |": 12 H100s are no 640 GiB.
        (V6, 124, "gpu_count", "api_physics", "12", "12 GPU", "8 GPU"),
        # A header whose unit the numbers contradict: nc-a100-v4-series.md:55 "Max NICs/network bandwidth
        # (MBps)" over 57 "| Standard_NC24ads_A100_v4 | 24 | 220 |64 | 960 GB | 1 | 80 | 8 | 30000/1000 |
        # 2/20,000 |": 20,000 is the 20,000 Mbps the newer page gives (nca100v4-series.md).
        (
            f"{OLD}/nc-a100-v4-series.md",
            57,
            "network_bandwidth_mbps",
            "header_unit",
            "2/20,000",
            "2/20,000",
            "20000 Mbps",
        ),
        # A value breaking its series' pattern: nvadsv710-v5-series.md:79 "| Standard_NV4ads_V710_v5 | 2 |
        # 7600 | 180 |", where 80-83 give 1520, 2280, 4560, 5320 IOPS for 8, 12, 24, 28 vCPUs.
        (f"{GPU}/nvadsv710-v5-series.md", 79, "uncached_disk_iops", "series_pattern", "7600", "7600 IOPS", "760 IOPS"),
        # ... and its include's range copied from it: includes/nvadsv710-v5-series-specs.md:19
        # "| Remote Storage | 2 - 14 Disks    | 7,600 - 5,320 IOPS <br>180 - 1,260 MBps   |".
        (
            f"{GPU}/includes/nvadsv710-v5-series-specs.md",
            19,
            "uncached_disk_iops",
            "series_pattern",
            "7,600 - 5,320 IOPS 180 - 1,260 MBps",
            "5320-7600 IOPS",
            "760-5320 IOPS",
        ),
        # A value failing a physical check: the old overview sizes-gpu.md:26 "[ND-series](nd-series.md), and
        # [NDv2-series](ndv2-series.md) sizes ... use the NVIDIA Tesla P40 GPU": the NDv2 pages give V100.
        (
            f"{OLD}/sizes-gpu.md",
            26,
            "gpu_model",
            "physical_check",
            "ND-series, and NDv2-series sizes are focused on training and inference scenarios for deep learning. They "
            "use the NVIDIA Tesla P40 GPU and the Intel Xeon E5-2690 v4 (Broadwell) processor. The NDv2-series uses "
            "the Intel Xeon Platinum 8168 (Skylake) processor.",
            "P40",
            "V100",
        ),
    ],
)
def test_hand_read_errata(
    found: pd.DataFrame,
    document: str,
    line: int,
    attribute: str,
    kind: str,
    written: str,
    value: str,
    supported: str,
) -> None:
    e = one(found, document, line, attribute)
    assert (e["kind"], e["written"], e["value"], e["supported"]) == (kind, written, value, supported)
    assert 0 < float(str(e["sure"])) <= 1 and e["evidence"]


def test_every_erratum_of_a_learn_page_has_a_permalink_to_its_line(found: pd.DataFrame) -> None:
    pages = found[found["document"].str.startswith("azure-docs/")]
    assert len(pages) > 20
    for row in pages.itertuples():
        assert str(row.url).startswith(f"https://github.com/{row.repository}/blob/")
        assert str(row.url).endswith(f"/{row.upstream_path}#L{row.line}")
    catalogs = found[found["document"].str.startswith("catalogs/")]
    assert len(catalogs) >= 4 and set(catalogs["catalog"]) == {"skypilot"} and catalogs["url"].isna().all()


def test_every_header_unit_diagnostic_of_an_official_page_is_an_erratum(
    shipped_output: Path, found: pd.DataFrame
) -> None:
    diagnostics = pd.read_parquet(shipped_output / "diagnostics.parquet")
    units = diagnostics[diagnostics["code"] == "unit-mismatch"]
    assert len(units) == 14
    header = found[found["kind"] == "header_unit"]
    listed = set(zip(header["document"], header["line"], strict=True))
    assert set(zip(units["document"], units["line"], strict=True)) == listed


def test_an_update_is_no_erratum(found: pd.DataFrame) -> None:
    """n-series-migration.md:18 retires the ND series "on August 31st 2023"; the newer nd-series.md:17 says
    "The ND-series has retired as of September 6th, 2023": a newer page replaced the value. The older NDv2 page
    (ndv2-series.md:35, "Generation 1") is replaced by the newer page's Generation 2 the same way; and the v4
    catalog's 1924 GiB by v6's 1800."""
    assert not (
        (found["document"].str.endswith("n-series-migration.md")) & (found["attribute"] == "retirement_date")
    ).any()
    assert not ((found["document"] == f"{OLD}/ndv2-series.md") & (found["line"] == 35)).any()
    assert not found["document"].str.endswith("v4-azure-instances-N.csv").any()


def test_a_series_value_that_holds_for_another_size_is_no_erratum(found: pd.DataFrame) -> None:
    """ndv2-series.md:16 "8 NVIDIA Tesla V100 NVLINK-connected GPUs, each with 32 GB" is ND40rs_v2's, whatever
    the retired ND40s_v2's note (line 27, "16 GB of per-GPU memory") says."""
    assert not ((found["attribute"] == "gpu_memory_gib") & found["entities"].str.contains("ND40s_v2")).any()


def test_errata_md_is_an_issue_per_file(shipped_output: Path, found: pd.DataFrame) -> None:
    text = (shipped_output / "errata.md").read_text(encoding="utf-8")
    assert text == errata_markdown(found)
    assert (
        "## MicrosoftDocs/azure-compute-docs: articles/virtual-machines/sizes/gpu-accelerated/nvadsv710-v5-series.md"
        in text
    )
    assert "**Title:** nvadsv710-v5-series.md: 1 value to correct (uncached\\_disk\\_iops)" in text
    assert "- line 79: `7600` should give `760 IOPS` for `uncached_disk_iops` of `Standard_NV4ads_V710_v5`." in text
    assert f"## Catalog skypilot: {V6}" in text
    for url in found["url"].dropna():
        assert f"]({url})" in text


def test_errata_md_links_each_line_of_the_evidence_to_its_own_document() -> None:
    """Two files of one name, both cited at line 12: only the second has an upstream copy."""
    url = f"https://github.com/MicrosoftDocs/azure-compute-docs/blob/{'0' * 40}/articles/x-specs.md#L12"
    row = {
        "kind": "page_vs_include",
        "document": "page.md",
        "line": 3,
        "url": None,
        "repository": None,
        "upstream_path": None,
        "catalog": None,
        "entities": "Standard_NX8_v1",
        "attribute": "vcpus",
        "written": "8",
        "value": "8",
        "supported": "16",
        "evidence": "official pages state 16",
        "sure": 0.9,
        "evidence_at": "seeds/old/x-specs.md:12; azure-docs/azure-compute-docs/articles/x-specs.md:12",
        "evidence_links": f"; {url}",
    }
    text = errata_markdown(pd.DataFrame([row]))
    assert f"official pages state 16 (see x-specs.md:12, [x-specs.md:12]({url})) |" in text


def test_errata_of_no_records_is_no_errata() -> None:
    assert errata([], [], {}, {}, [], SOURCE) == ()
    assert "No value of an official page or an API catalog is suspect." in errata_markdown(pd.DataFrame())


def test_a_catalog_value_loses_to_the_pages_as_a_catalog_erratum() -> None:
    """Two claims, a page's and a catalog's, of one size's memory; the page wins: the catalog's line is the erratum."""
    sources = {
        **SOURCE,
        "api.csv": SOURCE["page.md"].__class__("api.csv", "x", "api_catalog", None, None, 0.95, None, "r"),
    }
    page = Claim(
        "p",
        "page.md",
        12,
        "",
        1,
        1,
        "Memory",
        "112",
        "table",
        "Standard_NX6_v1",
        "size",
        "memory_gib",
        "112",
        112.0,
        unit="GiB",
    )
    api = Claim(
        "a",
        "api.csv",
        3,
        "",
        None,
        2,
        "MemoryGiB",
        "56",
        "catalog",
        "Standard_NX6_v1",
        "size",
        "memory_gib",
        "56",
        56.0,
        unit="GiB",
    )
    rows = [
        Conflict(
            "Standard_NX6_v1",
            "memory_gib",
            "112",
            "GiB",
            True,
            False,
            ("p",),
            ("page.md:12",),
            ("official_spec",),
            None,
            (),
            "",
        ),
        Conflict(
            "Standard_NX6_v1",
            "memory_gib",
            "56",
            "GiB",
            False,
            False,
            ("a",),
            ("api.csv:3",),
            ("api_catalog",),
            None,
            (),
            "",
        ),
    ]
    chosen = {("Standard_NX6_v1", "memory_gib"): Chosen("112 GiB", 0.9, "page.md:12", 1)}
    [e] = errata([page, api], rows, {}, chosen, [Diagnostic("info", "x", "page.md", 1, "y")], sources)
    assert (e.kind, e.document, e.line, e.value, e.supported, e.sure) == (
        "docs_vs_api",
        "api.csv",
        3,
        "56 GiB",
        "112 GiB",
        0.9,
    )
    assert e.evidence == "official pages state 112 GiB" and e.evidence_at == ("page.md:12",)


@pytest.mark.parametrize(
    "cell",
    [
        "2/20,000",
        "2/20,000 (12' cable)",  # an apostrophe: the message quotes the cell with double quotes
        'it\'s "2\\20,000"',  # both quotes and a backslash: the message escapes them
    ],
)
def test_a_cell_under_a_header_of_another_unit_is_an_erratum_whatever_its_quotes(cell: str) -> None:
    size = Claim("s", "page.md", 57, "", 1, 0, "Size", "NX8", "table", "Standard_NX8_v1", "size", "vcpus", "8", 8.0)
    mismatch = UnitMismatch(cell, "Max NICs/network bandwidth (MBps)", "MBps", "network_bandwidth_mbps")
    diagnostic = Diagnostic("warning", "unit-mismatch", "page.md", 57, mismatch.message)
    picked, keys, _ = read_by_errata([size], [], {}, [diagnostic])
    assert picked == [size] and ("Standard_NX8_v1", "network_bandwidth_mbps") in keys
    chosen = {("Standard_NX8_v1", "network_bandwidth_mbps"): Chosen("20000 Mbps", 0.8, "other.md:3", 2)}
    [e] = errata(picked, [], {}, chosen, [diagnostic], SOURCE)
    assert (e.kind, e.line, e.attribute, e.written, e.supported) == (
        "header_unit",
        57,
        "network_bandwidth_mbps",
        cell,
        "20000 Mbps",
    )
    assert e.evidence.startswith("the header 'Max NICs/network bandwidth (MBps)' says MBps, which is no unit of")


@pytest.mark.parametrize(
    ("low", "high", "failure", "left_out", "supported"),
    [
        (8000.0, 16000.0, "series_range: series NX-series spans 8000-16000", (4000.0, 32000.0), "4000-32000 IOPS"),
        # Ends of more than six digits: the check writes them as `format_number` does, in six.
        (
            1600000.5,
            2400000.5,
            "series_range: series NX-series spans 1.6e+06-2.4e+06",
            (800000.0, 3200000.0),
            "800000-3200000 IOPS",
        ),
        (0.1234567, 0.5, "series_range: series NX-series spans 0.123457-0.5", (0.05, 1.0), "0.05-1 IOPS"),
    ],
)
def test_a_series_range_that_leaves_out_its_sizes_values_is_an_erratum_whatever_its_ends(
    low: float, high: float, failure: str, left_out: tuple[float, float], supported: str
) -> None:
    span = Claim(
        "r",
        "page.md",
        19,
        "",
        1,
        0,
        "IOPS",
        "x",
        "table",
        "NX-series",
        "series",
        "uncached_disk_iops",
        "x",
        range_min=low,
        range_max=high,
        unit="IOPS",
    )
    sizes = [
        Claim(
            f"s{i}",
            "page.md",
            30 + i,
            "",
            2,
            i,
            "IOPS",
            "x",
            "table",
            f"Standard_NX{i}_v1",
            "size",
            "uncached_disk_iops",
            str(v),
            v,
            range_min=v,
            range_max=v,
            unit="IOPS",
        )
        for i, v in enumerate(left_out)
    ]
    checks = {c.claim_id: (failure,) for c in sizes}
    picked, _, _ = read_by_errata([span, *sizes], [], checks, [])
    assert span in picked
    [e] = errata([span, *sizes], [], checks, {}, [], SOURCE)
    assert (e.kind, e.line, e.entities, e.supported) == ("page_vs_include", 19, ("NX-series",), supported)


@pytest.mark.parametrize(
    ("failure", "supported"),
    [
        (
            "series_pattern: the other 4 sizes of NX-series state 190 IOPS per vCPU; 7600 for 4 vCPUs (760 would fit)",
            "760 IOPS",
        ),
        (
            "series_pattern: the other 4 sizes of NX-series state 400000 IOPS per vCPU; 7600 for 4 vCPUs "
            "(1.6e+06 would fit)",
            "1.6e+06 IOPS",
        ),
        (
            "series_value: series NX-series states 1.6e+06 for its sizes, and 7600 is not within half or twice of it",
            "1.6e+06 IOPS",
        ),
    ],
)
def test_a_failed_check_suggests_the_value_it_names_as_written(failure: str, supported: str) -> None:
    c = Claim(
        "s",
        "page.md",
        79,
        "",
        1,
        0,
        "IOPS",
        "x",
        "table",
        "Standard_NX4_v1",
        "size",
        "uncached_disk_iops",
        "7600",
        7600.0,
        unit="IOPS",
    )
    [e] = errata([c], [], {"s": (failure,)}, {}, [], SOURCE)
    assert e.supported == supported


# Losing values of official pages and catalogs that no `superseded` flag marks, read by hand, and why each is
# no erratum: every other such value is one (test below).
NOT_ERRATA = {
    # ndv2-series.md:35 "[VM Generation Support](generation-2.md): Generation 1" (2020): the newer
    # gpu-accelerated/ndv2-series.md (2024) gives Generation 2: an update.
    ("Standard_ND40rs_v2", "generation_1_vms", "ndv2-series.md:35"),
    ("Standard_ND40rs_v2", "generation_2_vms", "ndv2-series.md:35"),
    ("Standard_ND40rs_v2", "vm_generations", "ndv2-series.md:35"),
    # ndv2-series.md:16 and the seed's line 16 "each with 32 GB of GPU memory": ND40rs_v2's, right for it.
    ("Standard_ND40s_v2", "gpu_memory_gib", "ndv2-series.md:16"),
    ("Standard_ND40s_v2", "gpu_memory_gib", "seed-ndv2-series-2020.txt:16"),
    # v6 line 114 is ND40rs_v2's row, which ND40s_v2 copies as a sibling: no line about ND40s_v2.
    ("Standard_ND40s_v2", "vm_generations", "v6-azure-vms-N.csv:114"),
    # The v4 snapshot, which v6 replaced: an older snapshot of the same catalog.
    ("Standard_ND96amsr_A100_v4", "memory_gib", "v4-azure-instances-N.csv:126"),
    ("Standard_NV12ads_A10_v5", "gpu_count", "v4-azure-instances-N.csv:146"),
    ("Standard_NV16as_v4", "gpu_count", "v4-azure-instances-N.csv:159"),
    ("Standard_NV18ads_A10_v5", "gpu_count", "v4-azure-instances-N.csv:165"),
    ("Standard_NV4as_v4", "gpu_count", "v4-azure-instances-N.csv:200"),
    ("Standard_NV6ads_A10_v5", "gpu_count", "v4-azure-instances-N.csv:211"),
    ("Standard_NV8as_v4", "gpu_count", "v4-azure-instances-N.csv:222"),
    # "NVLINK 4.0 connectivity" beside the older page's "(NVLink)": one says more of the same.
    ("Standard_ND96isr_H100_v5", "interconnect", "ndh100v5-series-summary.md:18"),
    ("Standard_ND96isr_H100_v5", "interconnect", "nd-h100-v5-series.md:25"),
}


def test_every_losing_value_of_a_page_or_catalog_is_an_erratum_or_an_update(
    shipped_output: Path, found: pd.DataFrame
) -> None:
    conflicts = pd.read_parquet(shipped_output / "conflicts.parquet")
    documents = pd.read_parquet(shipped_output / "documents.parquet")
    standing = set(documents.loc[documents["kind"].isin(["official_spec", "api_catalog"]), "document"])
    listed = {f"{d}:{line}" for d, line in zip(found["document"], found["line"], strict=True)}
    left = set()
    for row in conflicts[~conflicts["won"] & ~conflicts["superseded"]].itertuples():
        for at in str(row.documents).split("; "):
            if at.rsplit(":", 1)[0] in standing and at not in listed:
                left.add((row.entity, row.attribute, at.rsplit("/", 1)[-1]))
    assert left == NOT_ERRATA
