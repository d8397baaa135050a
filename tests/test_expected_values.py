"""Hand-verified expected values for every size row of eight source documents.

Every expectation below was read by a person from the document itself (`cat -n`), never
copied from pipeline output. Line numbers are file line numbers (1-based, front-matter
counted). Values are in each attribute's canonical unit:

- RAM and GPU memory written in GB are binary (JEDEC): "112 GB" is 112 GiB.
- Microsoft Learn pages (ms.* front-matter) define their storage GB as GiB.
- `gpu_memory_gib` is the memory of ONE physical GPU, `gpu_memory_total_gib` is what the VM
  gets from all its GPUs (or its GPU fraction) together; for each GPU-memory cell the column
  was judged by hand to be per-GPU or total from the numbers and the GPU model.
- Network bandwidth is in Mbps ("25 Gbps" is 25000).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pipeline.knowledge.names import parse_size
from pipeline.records import Claim
from pipeline.runner import compute

SOURCES = Path(__file__).parent.parent / "sources"

A100_2021 = "seeds/seed-nd-a100-v4-series-2021.txt"
NDV2_2020 = "seeds/seed-ndv2-series-2020.txt"
THIRDPARTY_ND = "seeds/thirdparty-azure-nd-series.txt"
THIRDPARTY_NG = "seeds/thirdparty-azure-ng-series.txt"
OLD_ND = "azure-docs/azure-docs/articles/virtual-machines/nd-series.md"
OLD_NGADS = "azure-docs/azure-docs/articles/virtual-machines/ngads-v-620-series.md"
_GPU_SIZES = "azure-docs/azure-compute-docs/articles/virtual-machines/sizes/gpu-accelerated"
NEW_ND = f"{_GPU_SIZES}/nd-series.md"
NEW_NGADS = f"{_GPU_SIZES}/ngadsv620-series.md"

DOCUMENTS = [A100_2021, NDV2_2020, THIRDPARTY_ND, THIRDPARTY_NG, OLD_ND, OLD_NGADS, NEW_ND, NEW_NGADS]

Value = float | str
Row = tuple[str, int, str, dict[str, Value]]

# One entry per table row of a document: (document, line, size, {attribute: expected value}).
# The comment above each entry quotes the row as the document prints it.
# fmt: off
ROWS: list[Row] = [
    # --- seeds/seed-nd-a100-v4-series-2021.txt (Microsoft Learn, ms.* front-matter) ---
    # 43: | Standard_ND96asr_v4 | 96 | 900 | 6000 | 8 A100 40 GB GPUs (NVLink 3.0) | 40 | 32 |
    #     80,000 / 800 | 24,000 Mbps | 8 |
    # "GPU Memory: GiB" 40 with 8 A100 40 GB GPUs: per GPU, 8 x 40 = 320 in total.
    (A100_2021, 43, "Standard_ND96asr_v4", {
        "vcpus": 96, "memory_gib": 900, "temp_storage_gib": 6000,
        "gpu_count": 8, "gpu_model": "A100", "interconnect": "NVLink 3.0",
        "gpu_memory_gib": 40, "gpu_memory_total_gib": 320,
        "max_data_disks": 32, "uncached_disk_iops": 80000, "uncached_disk_mbps": 800,
        "network_bandwidth_mbps": 24000, "max_nics": 8,
    }),
    # --- seeds/seed-ndv2-series-2020.txt (Microsoft Learn) ---
    # 42: | Standard_ND40rs_v2 | 40 | 672 | 2948 | 8 V100 32 GB (NVLink) | 32 | 32 | 80000 / 800 |
    #     24000 Mbps | 8 |
    # "GPU Memory: GiB" 32 with 8 V100 32 GB: per GPU, 8 x 32 = 256 in total.
    (NDV2_2020, 42, "Standard_ND40rs_v2", {
        "vcpus": 40, "memory_gib": 672, "temp_storage_gib": 2948,
        "gpu_count": 8, "gpu_model": "V100", "interconnect": "NVLink",
        "gpu_memory_gib": 32, "gpu_memory_total_gib": 256,
        "max_data_disks": 32, "uncached_disk_iops": 80000, "uncached_disk_mbps": 800,
        "network_bandwidth_mbps": 24000, "max_nics": 8,
    }),
    # --- seeds/thirdparty-azure-nd-series.txt (third-party page) ---
    # | Instance Type | vCPUs | Memory | GPUs | GPU Memory | Network |
    # The GPU Memory column is a total: 64 GB for 4 x V100 and 128 GB for 8 x V100 can only
    # be totals (a V100 has 16 or 32 GB), so every row is 16 GB per V100.
    # 55: | ND6 | 6 | 112 GB | 1 x V100 | 16 GB | InfiniBand |
    (THIRDPARTY_ND, 55, "Standard_ND6", {
        "vcpus": 6, "memory_gib": 112, "gpu_count": 1, "gpu_model": "V100",
        "gpu_memory_gib": 16, "gpu_memory_total_gib": 16, "interconnect": "InfiniBand",
    }),
    # 56: | ND12 | 12 | 224 GB | 2 x V100 | 32 GB | InfiniBand |
    (THIRDPARTY_ND, 56, "Standard_ND12", {
        "vcpus": 12, "memory_gib": 224, "gpu_count": 2, "gpu_model": "V100",
        "gpu_memory_gib": 16, "gpu_memory_total_gib": 32, "interconnect": "InfiniBand",
    }),
    # 57: | ND24 | 24 | 448 GB | 4 x V100 | 64 GB | InfiniBand |
    (THIRDPARTY_ND, 57, "Standard_ND24", {
        "vcpus": 24, "memory_gib": 448, "gpu_count": 4, "gpu_model": "V100",
        "gpu_memory_gib": 16, "gpu_memory_total_gib": 64, "interconnect": "InfiniBand",
    }),
    # 58: | ND40rs\_v2 | 40 | 672 GB | 8 x V100 | 128 GB | InfiniBand |
    (THIRDPARTY_ND, 58, "Standard_ND40rs_v2", {
        "vcpus": 40, "memory_gib": 672, "gpu_count": 8, "gpu_model": "V100",
        "gpu_memory_gib": 16, "gpu_memory_total_gib": 128, "interconnect": "InfiniBand",
    }),
    # --- seeds/thirdparty-azure-ng-series.txt (third-party page, no front-matter) ---
    # | Instance Type | vCPUs | Memory | GPUs | GPU Memory | Network |
    # GPU Memory is a total: 80 GB for 2 x A100 and 160 GB for 4 x A100 (an A100 has 40 or 80 GB,
    # the page says "Each A100 GPU provides 40 GB"), so 40 GB per A100 in every row.
    # 47: | NG8 | 8 | 112 GB | 1 x A100 | 40 GB | InfiniBand / 25 Gbps |
    (THIRDPARTY_NG, 47, "Standard_NG8", {
        "vcpus": 8, "memory_gib": 112, "gpu_count": 1, "gpu_model": "A100",
        "gpu_memory_gib": 40, "gpu_memory_total_gib": 40,
        "interconnect": "InfiniBand", "network_bandwidth_mbps": 25000,
    }),
    # 48: | NG16 | 16 | 224 GB | 2 x A100 | 80 GB | InfiniBand / 50 Gbps |
    (THIRDPARTY_NG, 48, "Standard_NG16", {
        "vcpus": 16, "memory_gib": 224, "gpu_count": 2, "gpu_model": "A100",
        "gpu_memory_gib": 40, "gpu_memory_total_gib": 80,
        "interconnect": "InfiniBand", "network_bandwidth_mbps": 50000,
    }),
    # 49: | NG32 | 32 | 448 GB | 4 x A100 | 160 GB | InfiniBand / 100 Gbps |
    (THIRDPARTY_NG, 49, "Standard_NG32", {
        "vcpus": 32, "memory_gib": 448, "gpu_count": 4, "gpu_model": "A100",
        "gpu_memory_gib": 40, "gpu_memory_total_gib": 160,
        "interconnect": "InfiniBand", "network_bandwidth_mbps": 100000,
    }),
    # --- azure-docs/.../virtual-machines/nd-series.md (official, older one-table format) ---
    # | Size | vCPU | Memory: GiB | Temp storage (SSD) GiB | GPU | GPU memory: GiB | Max data disks |
    #   Max uncached disk throughput: IOPS/MBps | Max NICs |
    # "1 GPU = one P40 card" (24 GB). 24 for 1 or 4 GPUs is per GPU; 48 for 2 and 96 for 4 are totals.
    # 33: | Standard_ND6s | 6 | 112 | 736 | 1 | 24 | 12 | 20000/200 | 4 |
    (OLD_ND, 33, "Standard_ND6s", {
        "vcpus": 6, "memory_gib": 112, "temp_storage_gib": 736, "gpu_count": 1,
        "gpu_memory_gib": 24, "gpu_memory_total_gib": 24,
        "max_data_disks": 12, "uncached_disk_iops": 20000, "uncached_disk_mbps": 200, "max_nics": 4,
    }),
    # 34: | Standard_ND12s | 12 | 224 | 1474 | 2 | 48 | 24 | 40000/400 | 8 |
    (OLD_ND, 34, "Standard_ND12s", {
        "vcpus": 12, "memory_gib": 224, "temp_storage_gib": 1474, "gpu_count": 2,
        "gpu_memory_gib": 24, "gpu_memory_total_gib": 48,
        "max_data_disks": 24, "uncached_disk_iops": 40000, "uncached_disk_mbps": 400, "max_nics": 8,
    }),
    # 35: | Standard_ND24s | 24 | 448 | 2948 | 4 | 24 | 32 | 80000/800 | 8 |
    (OLD_ND, 35, "Standard_ND24s", {
        "vcpus": 24, "memory_gib": 448, "temp_storage_gib": 2948, "gpu_count": 4,
        "gpu_memory_gib": 24, "gpu_memory_total_gib": 96,
        "max_data_disks": 32, "uncached_disk_iops": 80000, "uncached_disk_mbps": 800, "max_nics": 8,
    }),
    # 36: | Standard_ND24rs* | 24 | 448 | 2948 | 4 | 96 | 32 | 80000/800 | 8 |   (* = RDMA capable)
    (OLD_ND, 36, "Standard_ND24rs", {
        "vcpus": 24, "memory_gib": 448, "temp_storage_gib": 2948, "gpu_count": 4,
        "gpu_memory_gib": 24, "gpu_memory_total_gib": 96,
        "max_data_disks": 32, "uncached_disk_iops": 80000, "uncached_disk_mbps": 800, "max_nics": 8,
    }),
    # --- azure-docs/.../virtual-machines/ngads-v-620-series.md (official, older format) ---
    # | Size | vCPU | Memory: GiB | Temp storage (SSD) GiB | GPU | GPU Memory GiB | Max data disks |
    #   Max uncached disk throughput: IOPS/MBps | Direct Disk NVMe | Max NICs / Max network bandwidth (Mbps) |
    # The GPU column is a fraction of one V620 (32 GB frame buffer, per the intro): the GPU memory
    # cell is what the VM gets (total), one physical V620 has 32 GiB.
    # 36: | Standard_NG8ads_V620_v1 | 8 | 16 | 256 | 1/4 | 8 | 8 | 12800 / 200 | 1x 960 GB | 2 / 10000 |
    (OLD_NGADS, 36, "Standard_NG8ads_V620_v1", {
        "vcpus": 8, "memory_gib": 16, "temp_storage_gib": 256, "gpu_count": 0.25,
        "gpu_memory_gib": 32, "gpu_memory_total_gib": 8,
        "max_data_disks": 8, "uncached_disk_iops": 12800, "uncached_disk_mbps": 200,
        "nvme_disk_count": 1, "nvme_disk_size_gib": 960, "max_nics": 2, "network_bandwidth_mbps": 10000,
    }),
    # 37: | Standard_NG16ads_V620_v1 | 16 | 32 | 512 | 1/2 | 16 | 16 | 25600 / 384 | 2x 960 GB | 4 / 20000 |
    (OLD_NGADS, 37, "Standard_NG16ads_V620_v1", {
        "vcpus": 16, "memory_gib": 32, "temp_storage_gib": 512, "gpu_count": 0.5,
        "gpu_memory_gib": 32, "gpu_memory_total_gib": 16,
        "max_data_disks": 16, "uncached_disk_iops": 25600, "uncached_disk_mbps": 384,
        "nvme_disk_count": 2, "nvme_disk_size_gib": 960, "max_nics": 4, "network_bandwidth_mbps": 20000,
    }),
    # 38: | Standard_NG32ads_V620_v1 | 32 | 64 | 1024 | 1 | 32 | 32 | 51200 / 768 | 4x 960 GB | 8 / 40000 |
    (OLD_NGADS, 38, "Standard_NG32ads_V620_v1", {
        "vcpus": 32, "memory_gib": 64, "temp_storage_gib": 1024, "gpu_count": 1,
        "gpu_memory_gib": 32, "gpu_memory_total_gib": 32,
        "max_data_disks": 32, "uncached_disk_iops": 51200, "uncached_disk_mbps": 768,
        "nvme_disk_count": 4, "nvme_disk_size_gib": 960, "max_nics": 8, "network_bandwidth_mbps": 40000,
    }),
    # 39: | Standard_NG32adms_V620_v1 | 32 | 176 | 1024 | 1 | 32 | 32 | 51200 / 768 | 4x 960 GB | 8 / 40000 |
    (OLD_NGADS, 39, "Standard_NG32adms_V620_v1", {
        "vcpus": 32, "memory_gib": 176, "temp_storage_gib": 1024, "gpu_count": 1,
        "gpu_memory_gib": 32, "gpu_memory_total_gib": 32,
        "max_data_disks": 32, "uncached_disk_iops": 51200, "uncached_disk_mbps": 768,
        "nvme_disk_count": 4, "nvme_disk_size_gib": 960, "max_nics": 8, "network_bandwidth_mbps": 40000,
    }),
    # --- azure-compute-docs/.../gpu-accelerated/nd-series.md (official, newer tabbed format) ---
    # Basics: | Size Name | vCPUs (Qty.) | Memory (GB) |
    (NEW_ND, 35, "Standard_ND6s", {"vcpus": 6, "memory_gib": 112}),
    (NEW_ND, 36, "Standard_ND12s", {"vcpus": 12, "memory_gib": 224}),
    (NEW_ND, 37, "Standard_ND24s", {"vcpus": 24, "memory_gib": 448}),
    (NEW_ND, 38, "Standard_ND24rs", {"vcpus": 24, "memory_gib": 448}),
    # Local Storage: | Size Name | Max Temp Storage Disks (Qty.) | Temp Disk Size (GiB) |
    (NEW_ND, 49, "Standard_ND6s", {"temp_disk_count": 1, "temp_storage_gib": 736}),
    (NEW_ND, 50, "Standard_ND12s", {"temp_disk_count": 1, "temp_storage_gib": 1474}),
    (NEW_ND, 51, "Standard_ND24s", {"temp_disk_count": 1, "temp_storage_gib": 2948}),
    (NEW_ND, 52, "Standard_ND24rs", {"temp_disk_count": 1, "temp_storage_gib": 2948}),
    # Remote Storage: | Size Name | Max Remote Storage Disks (Qty.) | Uncached Disk IOPS |
    #   Uncached Disk Speed (MBps) |
    (NEW_ND, 71, "Standard_ND6s", {
        "max_data_disks": 12, "uncached_disk_iops": 20000, "uncached_disk_mbps": 200,
    }),
    (NEW_ND, 72, "Standard_ND12s", {
        "max_data_disks": 24, "uncached_disk_iops": 40000, "uncached_disk_mbps": 400,
    }),
    (NEW_ND, 73, "Standard_ND24s", {
        "max_data_disks": 32, "uncached_disk_iops": 80000, "uncached_disk_mbps": 800,
    }),
    (NEW_ND, 74, "Standard_ND24rs", {
        "max_data_disks": 32, "uncached_disk_iops": 80000, "uncached_disk_mbps": 800,
    }),
    # Network: | Size Name | Max NICs (Qty.) |
    (NEW_ND, 96, "Standard_ND6s", {"max_nics": 4}),
    (NEW_ND, 97, "Standard_ND12s", {"max_nics": 8}),
    (NEW_ND, 98, "Standard_ND24s", {"max_nics": 8}),
    (NEW_ND, 99, "Standard_ND24rs", {"max_nics": 8}),
    # Accelerators: | Size Name | Accelerators (Qty.) | Accelerator-Memory (GB) |
    # Accelerator-Memory is a total (24 / 48 / 96 for 1 / 2 / 4 P40 of 24 GB each).
    (NEW_ND, 116, "Standard_ND6s", {"gpu_count": 1, "gpu_memory_total_gib": 24, "gpu_memory_gib": 24}),
    (NEW_ND, 117, "Standard_ND12s", {"gpu_count": 2, "gpu_memory_total_gib": 48, "gpu_memory_gib": 24}),
    (NEW_ND, 118, "Standard_ND24s", {"gpu_count": 4, "gpu_memory_total_gib": 96, "gpu_memory_gib": 24}),
    (NEW_ND, 119, "Standard_ND24rs", {"gpu_count": 4, "gpu_memory_total_gib": 96, "gpu_memory_gib": 24}),
    # --- azure-compute-docs/.../gpu-accelerated/ngadsv620-series.md (official, newer tabbed format) ---
    # Basics: | Size Name | vCPUs (Qty.) | Memory (GiB) |
    (NEW_NGADS, 31, "Standard_NG8ads_V620_v1", {"vcpus": 8, "memory_gib": 16}),
    (NEW_NGADS, 32, "Standard_NG16ads_V620_v1", {"vcpus": 16, "memory_gib": 32}),
    (NEW_NGADS, 33, "Standard_NG32ads_V620_v1", {"vcpus": 32, "memory_gib": 64}),
    (NEW_NGADS, 34, "Standard_NG32adms_V620_v1", {"vcpus": 32, "memory_gib": 176}),
    # Local Storage: | Size Name | Temp Storage Disks (Qty.) | Temp Disk Size (GiB) | Max NVMe Disks (Qty.) |
    #   NVMe Disk Size (GiB) |
    (NEW_NGADS, 45, "Standard_NG8ads_V620_v1", {
        "temp_disk_count": 1, "temp_storage_gib": 256, "nvme_disk_count": 1, "nvme_disk_size_gib": 960,
    }),
    (NEW_NGADS, 46, "Standard_NG16ads_V620_v1", {
        "temp_disk_count": 1, "temp_storage_gib": 512, "nvme_disk_count": 2, "nvme_disk_size_gib": 960,
    }),
    (NEW_NGADS, 47, "Standard_NG32ads_V620_v1", {
        "temp_disk_count": 1, "temp_storage_gib": 1024, "nvme_disk_count": 4, "nvme_disk_size_gib": 960,
    }),
    (NEW_NGADS, 48, "Standard_NG32adms_V620_v1", {
        "temp_disk_count": 1, "temp_storage_gib": 1024, "nvme_disk_count": 4, "nvme_disk_size_gib": 960,
    }),
    # Remote Storage: | Size Name | Max Remote Storage Disks (Qty.) | Uncached Disk IOPS |
    #   Uncached Disk Speed (MBps) |
    (NEW_NGADS, 67, "Standard_NG8ads_V620_v1", {
        "max_data_disks": 8, "uncached_disk_iops": 12800, "uncached_disk_mbps": 200,
    }),
    (NEW_NGADS, 68, "Standard_NG16ads_V620_v1", {
        "max_data_disks": 16, "uncached_disk_iops": 25600, "uncached_disk_mbps": 384,
    }),
    (NEW_NGADS, 69, "Standard_NG32ads_V620_v1", {
        "max_data_disks": 32, "uncached_disk_iops": 51200, "uncached_disk_mbps": 768,
    }),
    (NEW_NGADS, 70, "Standard_NG32adms_V620_v1", {
        "max_data_disks": 32, "uncached_disk_iops": 51200, "uncached_disk_mbps": 768,
    }),
    # Network: | Size Name | Max NICs (Qty.) | Max Bandwidth (Mbps) |
    (NEW_NGADS, 92, "Standard_NG8ads_V620_v1", {"max_nics": 2, "network_bandwidth_mbps": 10000}),
    (NEW_NGADS, 93, "Standard_NG16ads_V620_v1", {"max_nics": 4, "network_bandwidth_mbps": 20000}),
    (NEW_NGADS, 94, "Standard_NG32ads_V620_v1", {"max_nics": 8, "network_bandwidth_mbps": 40000}),
    (NEW_NGADS, 95, "Standard_NG32adms_V620_v1", {"max_nics": 8, "network_bandwidth_mbps": 40000}),
    # Accelerators: | Size Name | Accelerators (Qty.) | Accelerator-Memory (GB) |
    # Accelerator-Memory is what the VM gets from its GPU fraction; one physical V620 has 32 GiB.
    (NEW_NGADS, 112, "Standard_NG8ads_V620_v1", {
        "gpu_count": 0.25, "gpu_memory_total_gib": 8, "gpu_memory_gib": 32,
    }),
    (NEW_NGADS, 113, "Standard_NG16ads_V620_v1", {
        "gpu_count": 0.5, "gpu_memory_total_gib": 16, "gpu_memory_gib": 32,
    }),
    (NEW_NGADS, 114, "Standard_NG32ads_V620_v1", {
        "gpu_count": 1, "gpu_memory_total_gib": 32, "gpu_memory_gib": 32,
    }),
    (NEW_NGADS, 115, "Standard_NG32adms_V620_v1", {
        "gpu_count": 1, "gpu_memory_total_gib": 32, "gpu_memory_gib": 32,
    }),
]
# fmt: on

# Where the pipeline disagrees with the document: (document, line, size, attribute) -> reason.
KNOWN_PIPELINE_BUGS: dict[tuple[str, int, str, str], str] = {}


def _expected() -> Iterator[tuple[str, int, str, str, Value]]:
    for document, line, size, values in ROWS:
        for attribute, expected in values.items():
            yield document, line, size, attribute, expected


def _short(document: str) -> str:
    parts = document.split("/")
    return "/".join(parts[-2:])


EXPECTED = [
    pytest.param(
        *case,
        id=f"{_short(case[0])}:{case[1]}:{case[2]}:{case[3]}",
        marks=(
            [pytest.mark.xfail(strict=True, reason=KNOWN_PIPELINE_BUGS[case[:4]])]
            if case[:4] in KNOWN_PIPELINE_BUGS
            else []
        ),
    )
    for case in _expected()
]


@pytest.fixture(scope="module")
def claims() -> tuple[Claim, ...]:
    result, _frames = compute(SOURCES)
    return result.claims


def _named(claim: Claim) -> str:
    """The size as the row writes it: a name that stands for another size (a row of `names`)
    has its claims counted for that size, and keeps the name as written."""
    written = parse_size(claim.name_as_written) if claim.name_as_written else None
    return written.canonical if written else claim.entity


def _matches(expected: Value, claim: Claim) -> bool:
    if isinstance(expected, str):
        return claim.value_text == expected
    return claim.value_number is not None and claim.value_number == pytest.approx(expected)


def _show(claim: Claim) -> str:
    value = claim.value_text if claim.value_number is None else claim.value_number
    return f"{value!r} ({claim.method}, {claim.raw_text!r}, {claim.interpretation!r})"


def test_expectations_have_no_duplicates() -> None:
    keys = [case[:4] for case in _expected()]
    assert len(keys) == len(set(keys))


@pytest.mark.parametrize(("document", "line", "size", "attribute", "expected"), EXPECTED)
def test_value_read_from_document(
    claims: tuple[Claim, ...], document: str, line: int, size: str, attribute: str, expected: Value
) -> None:
    found = [
        c
        for c in claims
        if c.document == document and c.line == line and _named(c) == size and c.attribute == attribute
    ]
    assert found, f"no {attribute} claim for {size} at {document}:{line}"
    assert any(_matches(expected, c) for c in found), (
        f"{document}:{line} {size} {attribute}: expected {expected!r}, got {[_show(c) for c in found]}"
    )
    wrong = [_show(c) for c in found if not _matches(expected, c)]
    assert not wrong, f"{document}:{line} {size} {attribute}: expected {expected!r}, also got {wrong}"


@pytest.mark.parametrize("document", DOCUMENTS, ids=_short)
def test_sizes_from_document_tables(claims: tuple[Claim, ...], document: str) -> None:
    expected = {size for doc, _line, size, _values in ROWS if doc == document}
    found = {
        _named(c)
        for c in claims
        if c.document == document and c.entity_kind == "size" and c.table_index is not None and c.method != "sibling"
    }
    assert found == expected
