"""The normalize stage: statements become typed claims about one entity and one attribute.

Each case names a cell or line of a small page under `tests/fixtures/extract/` (shown
beside it as written) and the claim it must become: the entity, the attribute, the value
in the attribute's canonical unit, and how the stage read it.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

import pytest

from pipeline import knowledge
from pipeline.knowledge.names import parse_size
from pipeline.records import Claim, Diagnostic, Extraction, Mention
from pipeline.runner.cache import Cache
from pipeline.runner.normalizing import _InBag, run_normalize
from pipeline.stages.extract import extract
from pipeline.stages.normalize import DocumentClaims, Normalized, context, gather, normalize, provenance_order
from pipeline.stages.read import parse_bytes

FIXTURES = Path(__file__).parent / "fixtures" / "extract"
FOLDER = "articles/virtual-machines"
SOURCES = Path(__file__).parent.parent / "sources" / "azure-docs"

LEARN = "learn-sizes.md"  # ms.* front-matter: a Microsoft Learn page
THIRD_PARTY = "third-party-sizes.md"  # no front-matter: a third-party page
A100 = "gpu-cells.md"
V620 = "ngadsv620.md"
PARTS = "nv-specs.md"

GB300 = "Standard_ND128isr_GB300_v6"
UNCACHED = "Max uncached disk throughput: IOPS / MBps"
NICS = "Max NICs / Max network bandwidth (Mbps)"
JEDEC = "GB read as GiB: memory sizes are binary (JEDEC), whoever prints them"


def extraction(name: str) -> Extraction:
    doc, _ = parse_bytes(f"{FOLDER}/{name}", (FIXTURES / name).read_bytes())
    assert doc is not None
    return extract(doc)


def normalized(*names: str) -> Normalized:
    return normalize([extraction(n) for n in names])


def fixture_line(name: str, line: int) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8").split("\n")[line - 1]


def source_line(cited: str) -> str:
    """A line of a real page, cited as below (`ACD/gpu-accelerated/ndh100v5-series.md:63`): the
    fixtures copy such lines, and a test that says so checks the copy against the page."""
    path, line = cited.rsplit(":", 1)
    folder, rest = path.split("/", 1)
    root = {"ACD": "azure-compute-docs/articles/virtual-machines/sizes", "AD": "azure-docs/articles/virtual-machines"}
    return (SOURCES / root[folder] / rest).read_text(encoding="utf-8").split("\n")[int(line) - 1]


def claims_at(n: Normalized, name: str, line: int, attribute: str, column: str | None = None) -> list[Claim]:
    return [
        c
        for c in n.claims
        if c.document == f"{FOLDER}/{name}"
        and c.line == line
        and c.attribute == attribute
        and (column is None or c.column == column)
    ]


def one_claim(name: str, line: int, attribute: str, column: str | None = None) -> Claim:
    found = claims_at(normalized(name), name, line, attribute, column)
    assert len(found) == 1, found
    return found[0]


# ---------------------------------------------------------------------------- units

# fixture, line, column as written, cell as written, entity, attribute, value, unit as written, interpretation
UNIT_CASES = [
    pytest.param(LEARN, 11, "Memory (GB)", "112", GB300, "memory_gib", 112.0, "GB", JEDEC, id="learn-memory-GB"),
    pytest.param(
        LEARN,
        11,
        "Temp Disk Size (TB)",
        "16",
        GB300,
        "temp_storage_gib",
        16384.0,
        "TB",
        "TB read as TiB: Microsoft Learn size tables state capacities in GiB (1024^3 bytes)",
        id="learn-temp-TB-is-TiB",
    ),
    pytest.param(
        LEARN,
        11,
        "Max Scale-Out Bandwidth (Gbps)",
        "4x800",
        GB300,
        "scaleout_bandwidth_mbps",
        3_200_000.0,
        "Gbps",
        "4 x 800 Gbps",
        id="learn-4x800-Gbps",
    ),
    pytest.param(
        THIRD_PARTY,
        7,
        "Memory",
        "112 GB",
        "Standard_ND6",
        "memory_gib",
        112.0,
        "GB",
        JEDEC,
        id="other-memory-GB-is-binary",
    ),
    pytest.param(
        THIRD_PARTY,
        7,
        "Temp storage",
        "1 TB",
        "Standard_ND6",
        "temp_storage_gib",
        931.3225746154785,
        "TB",
        None,
        id="other-temp-TB-is-decimal",
    ),
    pytest.param(
        THIRD_PARTY,
        7,
        "Max network bandwidth",
        "24,000 Mbps",
        "Standard_ND6",
        "network_bandwidth_mbps",
        24000.0,
        "Mbps",
        None,
        id="other-24,000-Mbps",
    ),
    pytest.param(
        THIRD_PARTY,
        7,
        "Network",
        "InfiniBand / 25 Gbps",
        "Standard_ND6",
        "network_bandwidth_mbps",
        25000.0,
        "Gbps",
        None,
        id="other-25-Gbps",
    ),
]


def test_claims_are_in_provenance_order_whatever_order_the_documents_come_in() -> None:
    """`gather` joins each document's claims, which are in order, in path order: the same as
    sorting every claim (document, line, table, row, column, entity, attribute, id)."""
    forwards = normalized(THIRD_PARTY, LEARN, A100)
    backwards = normalized(A100, LEARN, THIRD_PARTY)
    assert forwards.claims == backwards.claims == tuple(sorted(forwards.claims, key=provenance_order))
    assert [c.document for c in forwards.claims][:1] == [f"{FOLDER}/{A100}"]  # gpu-cells.md first
    assert len({c.document for c in forwards.claims}) == 3


def test_a_part_holding_another_documents_claims_has_the_whole_sorted() -> None:
    """Were a document's part to hold claims under another document's path, joining the parts
    in path order would not be provenance order: then every claim is sorted."""
    extractions = [extraction(LEARN), extraction(A100)]
    ctx = context(extractions)
    whole = normalize(extractions)
    learn, gpus = (tuple(c for c in whole.claims if c.document == ex.document.path) for ex in extractions)
    moved = tuple(replace(c, document=f"{FOLDER}/{A100}") for c in learn[:3])  # under gpu-cells.md's path
    parts = {
        f"{FOLDER}/{LEARN}": DocumentClaims(learn[3:] + moved, (), ()),
        f"{FOLDER}/{A100}": DocumentClaims(gpus, (), ()),
    }
    joined = gather(extractions, ctx, parts).claims
    assert joined == tuple(sorted((*learn[3:], *moved, *gpus), key=provenance_order))
    assert joined[: len(gpus) + len(moved)] == tuple(sorted((*gpus, *moved), key=provenance_order))


def test_equal_text_in_claims_of_different_documents_is_held_once() -> None:
    """A value, the text of its cell, its section and column and how it was read repeat across
    documents by the thousand: each is held once, not once per claim (at 10,000 documents the
    copies took 61 MiB of every process that holds the claims)."""
    data = (FIXTURES / THIRD_PARTY).read_bytes()
    docs = [parse_bytes(f"{folder}/{THIRD_PARTY}", data)[0] for folder in ("one", "two")]
    n = normalize([extract(d) for d in docs if d is not None])
    one = [c for c in n.claims if c.document == f"one/{THIRD_PARTY}"]
    two = [c for c in n.claims if c.document == f"two/{THIRD_PARTY}"]
    assert len(one) == len(two) == 20
    for a, b in zip(one, two, strict=True):
        for name in ("value", "raw_text", "section", "column", "interpretation"):
            x, y = getattr(a, name), getattr(b, name)
            assert x == y and (x is None or x is y), (name, x)


@pytest.mark.parametrize(
    ("name", "line", "column", "cell", "entity", "attribute", "value", "written", "interpretation"),
    UNIT_CASES,
)
def test_unit_conversion(
    name: str,
    line: int,
    column: str,
    cell: str,
    entity: str,
    attribute: str,
    value: float,
    written: str,
    interpretation: str | None,
) -> None:
    assert f"| {cell} |" in fixture_line(name, line)
    claim = one_claim(name, line, attribute, column)
    assert (claim.entity, claim.entity_kind, claim.method, claim.raw_text) == (entity, "size", "table", cell)
    assert claim.value_number == value
    assert claim.unit_as_written == written
    assert claim.interpretation == interpretation


@pytest.mark.parametrize(
    ("attribute", "unit"),
    [("memory_gib", "GiB"), ("temp_storage_gib", "GiB"), ("scaleout_bandwidth_mbps", "Mbps")],
)
def test_claims_carry_the_canonical_unit(attribute: str, unit: str) -> None:
    assert one_claim(LEARN, 11, attribute).unit == unit


def test_decimal_terabytes_are_not_read_as_binary_off_microsoft_pages() -> None:
    # | ND40rs\_v2 | ... | 2 TB | ...: 2 x 10^12 bytes = 1862.645149230957 GiB, not 2048 GiB.
    assert "| 2 TB |" in fixture_line(THIRD_PARTY, 8)
    claim = one_claim(THIRD_PARTY, 8, "temp_storage_gib")
    assert claim.value_number == 1862.645149230957
    assert (claim.unit, claim.unit_as_written, claim.interpretation) == ("GiB", "TB", None)


# ----------------------------------------------------------------------- composite cells

# fixture, line, column as written, cell as written, attribute, value (number or text), method
COMPOSITE_CASES = [
    (A100, 10, "GPU", "8 A100 40 GB GPUs (NVLink 3.0)", "gpu_count", 8.0, "table"),
    (A100, 10, "GPU", "8 A100 40 GB GPUs (NVLink 3.0)", "gpu_model", "A100", "table"),
    (A100, 10, "GPU", "8 A100 40 GB GPUs (NVLink 3.0)", "gpu_memory_gib", 40.0, "table"),
    (A100, 10, "GPU", "8 A100 40 GB GPUs (NVLink 3.0)", "gpu_memory_total_gib", 320.0, "derived"),
    (A100, 10, "GPU", "8 A100 40 GB GPUs (NVLink 3.0)", "interconnect", "NVLink 3.0", "table"),
    (A100, 10, UNCACHED, "80,000 / 800", "uncached_disk_iops", 80000.0, "table"),
    (A100, 10, UNCACHED, "80,000 / 800", "uncached_disk_mbps", 800.0, "table"),
    (A100, 10, NICS, "2 / 10000", "max_nics", 2.0, "table"),
    (A100, 10, NICS, "2 / 10000", "network_bandwidth_mbps", 10000.0, "table"),
    (THIRD_PARTY, 7, "GPUs", "1 x V100", "gpu_count", 1.0, "table"),
    (THIRD_PARTY, 7, "GPUs", "1 x V100", "gpu_model", "V100", "table"),
    (THIRD_PARTY, 7, "Network", "InfiniBand / 25 Gbps", "interconnect", "InfiniBand", "table"),
    (THIRD_PARTY, 7, "Network", "InfiniBand / 25 Gbps", "network_bandwidth_mbps", 25000.0, "table"),
    (V620, 14, "Accelerators (Qty.)", "1/4", "gpu_count", 0.25, "table"),
]


@pytest.mark.parametrize(("name", "line", "column", "cell", "attribute", "value", "method"), COMPOSITE_CASES)
def test_composite_cell(
    name: str, line: int, column: str, cell: str, attribute: str, value: float | str, method: str
) -> None:
    assert f"| {cell} |" in fixture_line(name, line)
    claim = one_claim(name, line, attribute, column)
    assert (claim.raw_text, claim.method) == (cell, method)
    if isinstance(value, str):
        assert (claim.value_text, claim.value_number) == (value, None)
    else:
        assert claim.value_number == value


NVLINK_3 = {"interconnect": "NVLink 3.0", "nvlink": "true"}


@pytest.mark.parametrize(
    ("cell", "claims"),
    [
        # AD/nda100-v4-series.md:51
        pytest.param("8 A100 40 GB GPUs (NVLink 3.0)", NVLINK_3, id="nvlink-3.0"),
        # AD/nd-h100-v5-series.md:51
        pytest.param("8 H100 80 GB GPUs(NVLink)", {"interconnect": "NVLink", "nvlink": "true"}, id="no-space"),
        pytest.param("8 A100 40 GB GPUs (NVLINK 3)", NVLINK_3, id="normal-form"),
        pytest.param("8 A100 40 GB GPUs (SXM4) (NVLink 3.0)", NVLINK_3, id="the-bracket-naming-a-link"),
        pytest.param(
            "8 MI300X GPUs (4th-Gen AMD Infinity Fabric)",
            {"interconnect": "AMD Infinity Fabric 4th gen"},
            id="infinity-fabric-says-nothing-of-nvlink",
        ),
        pytest.param("8 MI300X GPUs (xGMI)", {"interconnect": "AMD Infinity Fabric"}, id="xgmi-is-infinity-fabric"),
        pytest.param("8 A100 80 GB GPUs (PCIe)", {}, id="no-link-of-the-table"),
    ],
)
def test_a_gpu_cells_link_is_read_as_running_texts_with_its_flag(cell: str, claims: dict[str, str]) -> None:
    n = normalize([edited(A100, "| 8 A100 40 GB GPUs (NVLink 3.0) |", f"| {cell} |")])
    found = claims_at(n, A100, 10, "interconnect") + claims_at(n, A100, 10, "nvlink")
    assert {c.attribute: c.value for c in found} == claims
    assert all(c.method == "table" for c in found)
    assert [c.interpretation for c in found if c.attribute == "nvlink"] == (
        ["NVLink names the GPUs' link"] if "nvlink" in claims else []
    )


def test_gpu_cell_total_says_how_it_was_derived() -> None:
    claim = one_claim(A100, 10, "gpu_memory_total_gib", "GPU")
    assert claim.interpretation == "derived: 8 GPUs x 40 GiB"


def test_fraction_of_a_gpu_is_explained() -> None:
    assert one_claim(V620, 14, "gpu_count").interpretation == "fraction 1/4 of one GPU"


def test_gpu_cell_claims_belong_to_the_row_size() -> None:
    n = normalized(A100)
    assert {c.entity for c in n.claims} == {"Standard_ND96asr_v4"}
    assert {c.entity_kind for c in n.claims} == {"size"}


# ------------------------------------------------------------- per-GPU or total GPU memory

# fixture, line, cell as written, GPU cell of the row, per-GPU GiB, total GiB, which one was derived, why
MEMORY_CASES = [
    pytest.param(
        THIRD_PARTY,
        8,
        "128 GB",
        "8 x V100",
        16.0,
        128.0,
        "gpu_memory_gib",
        "128 / 8 GPUs = 16 GiB matches the V100 memory sizes 16/32 GiB; read as the total",
        id="8xV100-total",
    ),
    pytest.param(
        A100,
        10,
        "40",
        "8 A100 40 GB GPUs (NVLink 3.0)",
        40.0,
        320.0,
        "gpu_memory_total_gib",
        "40 GiB matches the A100 memory sizes 40/80 GiB and 40 / 8 does not; read as per GPU",
        id="8xA100-per-gpu",
    ),
    pytest.param(
        V620,
        14,
        "8",
        "1/4",
        32.0,
        8.0,
        "gpu_memory_gib",
        "8 / 0.25 GPUs = 32 GiB matches the V620 memory sizes 32 GiB; read as the total",
        id="quarter-V620-total",
    ),
]
MEMORY_COLUMNS = {THIRD_PARTY: "GPU Memory", A100: "GPU Memory: GiB", V620: "Accelerator-Memory (GB)"}


@pytest.mark.parametrize(("name", "line", "cell", "gpus", "per_gpu", "total", "derived", "why"), MEMORY_CASES)
def test_gpu_memory_per_gpu_or_total(
    name: str, line: int, cell: str, gpus: str, per_gpu: float, total: float, derived: str, why: str
) -> None:
    written = fixture_line(name, line)
    assert f"| {cell} |" in written and f"| {gpus} |" in written
    column = MEMORY_COLUMNS[name]
    per = one_claim(name, line, "gpu_memory_gib", column)
    tot = one_claim(name, line, "gpu_memory_total_gib", column)
    assert (per.value_number, tot.value_number) == (per_gpu, total)
    assert (per.method, tot.method) == (("derived", "table") if derived == "gpu_memory_gib" else ("table", "derived"))
    assert per.interpretation is not None and per.interpretation.startswith(why)
    assert tot.interpretation == per.interpretation


def test_one_gpu_memory_is_both_per_gpu_and_total() -> None:
    # | ND6 | ... | 1 x V100 | 16 GB | ...
    per = one_claim(THIRD_PARTY, 7, "gpu_memory_gib", "GPU Memory")
    tot = one_claim(THIRD_PARTY, 7, "gpu_memory_total_gib", "GPU Memory")
    assert (per.value_number, tot.value_number) == (16.0, 16.0)
    assert (per.method, tot.method) == ("table", "table")
    assert per.interpretation == f"one GPU: per-GPU and total memory are the same; {JEDEC}"


@pytest.mark.parametrize(
    ("sizes", "per_gpu", "total", "why"),
    [
        (None, 16.0, 128.0, "128 / 8 GPUs = 16 GiB matches the known GPU memory sizes; read as the total"),
        (
            (128.0,),
            128.0,
            1024.0,
            "128 GiB matches the known GPU memory sizes and 128 / 8 does not; read as per GPU",
        ),
    ],
)
def test_gpu_memory_of_a_row_naming_no_model_is_read_with_the_knowledge_passed(
    sizes: tuple[float, ...] | None, per_gpu: float, total: float, why: str
) -> None:
    # | ND40rs\_v2 | ... | 8 | 128 GB | ...: the V100 taken out of every row, eight GPUs of no
    # model named, so every known size counts
    know = knowledge.load()
    if sizes is not None:  # every GPU made with these sizes alone
        know = replace(know, gpus=tuple(replace(g, memory_gib=sizes) for g in know.gpus))
    text = (FIXTURES / THIRD_PARTY).read_text(encoding="utf-8").replace(" x V100 |", " |")
    doc, _ = parse_bytes(f"{FOLDER}/{THIRD_PARTY}", text.encode("utf-8"))
    assert doc is not None and "V100" not in doc.text
    n = normalize([extract(doc)], know)
    (per,) = claims_at(n, THIRD_PARTY, 8, "gpu_memory_gib", "GPU Memory")
    (tot,) = claims_at(n, THIRD_PARTY, 8, "gpu_memory_total_gib", "GPU Memory")
    assert (per.value_number, tot.value_number) == (per_gpu, total)
    assert per.interpretation is not None and per.interpretation.startswith(why)


# ------------------------------------------------------------------------- part tables

# line, column, cell as written, attribute, value, range
PART_CASES = [
    (10, "Quantity", "6 - 24 vCPUs", "vcpus", "6-24", (6.0, 24.0)),
    (10, "Specs", "Intel Xeon E5-2690 v4", "cpu_model", "Intel Xeon E5-2690 v4", None),
    (11, "Quantity", "1 - 4 GPUs", "gpu_count", "1-4", (1.0, 4.0)),
    (11, "Specs", "Nvidia Tesla P40 GPU (24GB)", "gpu_model", "P40", None),
    (11, "Specs", "Nvidia Tesla P40 GPU (24GB)", "gpu_memory_gib", "24", (24.0, 24.0)),
    (12, "Quantity", "12 - 32 Disks", "max_data_disks", "12-32", (12.0, 32.0)),
    (
        12,
        "Specs",
        "20,000 - 80,000 IOPS 200 - 800 MBps",
        "uncached_disk_iops",
        "20000-80000",
        (20000.0, 80000.0),
    ),
    (12, "Specs", "20,000 - 80,000 IOPS 200 - 800 MBps", "uncached_disk_mbps", "200-800", (200.0, 800.0)),
]


@pytest.mark.parametrize(("line", "column", "cell", "attribute", "value", "bounds"), PART_CASES)
def test_part_table_piece(
    line: int, column: str, cell: str, attribute: str, value: str, bounds: tuple[float, float] | None
) -> None:
    claim = one_claim(PARTS, line, attribute, column)
    assert (claim.entity, claim.entity_kind, claim.method, claim.raw_text) == (
        "NV",
        "series",
        "part_table",
        cell,
    )
    assert claim.value == value
    assert (claim.range_min, claim.range_max) == (bounds or (None, None))


def test_part_table_range_is_a_range() -> None:
    claim = one_claim(PARTS, 10, "vcpus")
    assert claim.is_range
    assert claim.value_number is None


def test_part_table_gpu_memory_is_per_gpu() -> None:
    claim = one_claim(PARTS, 11, "gpu_memory_gib")
    assert claim.value_number == 24.0
    assert claim.interpretation == f"memory printed beside the GPU model is per GPU; {JEDEC}"


# ---------------------------------------------------------------------------- features

# fixture, line, series, attribute, flag or text
FEATURE_CASES = [
    ("feature-list.md", 3, "NDv2", "premium_storage", True),
    ("feature-list.md", 4, "NDv2", "live_migration", False),
    ("feature-list.md", 5, "NDv2", "vm_generations", "1,2"),
    ("feature-list.md", 5, "NDv2", "generation_1_vms", True),
    ("feature-list.md", 5, "NDv2", "generation_2_vms", True),
    ("feature-list.md", 7, "NDv2", "ultra_disks", False),
    ("feature-list.md", 10, "NDv2", "accelerated_networking", True),
    ("feature-list.md", 11, "NDv2", "ephemeral_os_disk", True),
    ("feature-table.md", 7, "NGads_V620", "premium_storage", True),
    ("feature-table.md", 8, "NGads_V620", "live_migration", False),
    ("family.md", 14, "NDv2", "infiniband", True),
    ("family.md", 18, "NDv2", "nested_virtualization", False),
    ("family.md", 22, "ND_A100_v4", "infiniband", True),
    ("family.md", 22, "ND_A100_v4", "infiniband_detail", "GPUDirect RDMA"),
    ("family.md", 23, "ND_A100_v4", "vm_generations", "2"),
    ("family.md", 23, "ND_A100_v4", "generation_1_vms", False),
    ("family.md", 23, "ND_A100_v4", "generation_2_vms", True),
]


@pytest.mark.parametrize(("name", "line", "series", "attribute", "value"), FEATURE_CASES)
def test_feature(name: str, line: int, series: str, attribute: str, value: bool | str) -> None:
    claim = one_claim(name, line, attribute)
    assert (claim.entity, claim.entity_kind) == (series, "series")
    if isinstance(value, bool):
        assert (claim.value_bool, claim.value) == (value, "true" if value else "false")
    else:
        assert (claim.value_text, claim.value) == (value, value)


CATALOG_HEADER = (
    "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,Generation"
)


@pytest.mark.parametrize(
    ("generation", "stated"),
    [
        # sources/catalogs/skypilot/v6-azure-vms-N.csv:145, its generation column written three ways
        pytest.param("V1", ("1", True, False), id="V1"),
        pytest.param("V2", ("2", False, True), id="V2"),
        pytest.param('"V1,V2"', ("1,2", True, True), id="both"),
    ],
)
def test_a_catalogs_generation_column_states_the_list_and_derives_each_generation(
    generation: str, stated: tuple[str, bool, bool]
) -> None:
    row = f"Standard_NV12s_v3,M60,1,12.0,112,M60,1.14,0.126084,westus2,{generation}"
    doc, _ = parse_bytes("catalogs/vms.csv", f"{CATALOG_HEADER}\n{row}\n".encode())
    assert doc is not None
    n = normalize([extract(doc)])
    found = {c.attribute: c for c in n.claims if c.column == "Generation"}
    listed, first, second = (found[a] for a in ("vm_generations", "generation_1_vms", "generation_2_vms"))
    assert (listed.value_text, first.value_bool, second.value_bool) == stated
    assert (listed.method, first.method, second.method) == ("catalog", "derived", "derived")
    assert len(found) == 3


@pytest.mark.parametrize(
    ("line", "written"), [(8, "Live Migration: Not Supported"), (27, "Ultra Disks: Not Supported")]
)
def test_feature_outside_any_series_is_no_claim(line: int, written: str) -> None:
    assert fixture_line("family.md", line) == written
    n = normalized("family.md")
    assert [c for c in n.claims if c.line == line] == []


# ----------------------------------------------------------------------------- phrases

NOTE = "note.md"


@pytest.mark.parametrize(
    ("attribute", "value"),
    [("gpu_memory_gib", "16"), ("lifecycle", "retired")],
)
def test_phrase_in_a_note(attribute: str, value: str) -> None:
    assert fixture_line(NOTE, 6) == "> The ND40s_v2 featuring 16 GB of per-GPU memory is no longer available."
    claim = one_claim(NOTE, 6, attribute)
    assert (claim.entity, claim.entity_kind, claim.method, claim.value) == (
        "Standard_ND40s_v2",
        "size",
        "note",
        value,
    )
    assert claim.interpretation is not None and claim.interpretation.startswith("from running text: ")


def test_phrase_memory_is_read_as_gib() -> None:
    claim = one_claim(NOTE, 6, "gpu_memory_gib")
    assert (claim.value_number, claim.unit, claim.unit_as_written) == (16.0, "GiB", "GB")


def test_note_without_a_phrase_is_no_claim() -> None:
    assert [c for c in normalized(NOTE).claims if c.line == 4] == []


# -------------------------------------------------------------------------- size names


@pytest.mark.parametrize(
    ("line", "written", "entity"),
    [(7, "| ND6 ", "Standard_ND6"), (8, r"| ND40rs\_v2 ", "Standard_ND40rs_v2")],
)
def test_size_name_is_canonical(line: int, written: str, entity: str) -> None:
    assert fixture_line(THIRD_PARTY, line).startswith(written)
    n = normalized(THIRD_PARTY)
    assert {c.entity for c in n.claims if c.line == line} == {entity}


def test_unrecognised_size_name_is_kept_as_a_mention_and_its_row_skipped() -> None:
    # The build turns a mention that yields no size into a size_not_built diagnostic (test_build).
    assert fixture_line(THIRD_PARTY, 9).startswith("| Standard ND 40 |")
    n = normalized(THIRD_PARTY)
    assert [c for c in n.claims if c.line == 9] == []
    assert [m for m in n.mentions if m.line == 9] == [
        Mention(f"{FOLDER}/{THIRD_PARTY}", 9, "Standard ND 40", None, "spec")
    ]


def test_unknown_column_is_a_warning_and_its_cells_are_not_read() -> None:
    assert fixture_line(A100, 8).endswith("| Rack position |")
    n = normalized(A100)
    assert [c for c in n.claims if c.column == "Rack position"] == []
    assert extraction(A100).diagnostics == (
        Diagnostic(
            "warning",
            "unknown_header",
            f"{FOLDER}/{A100}",
            8,
            "table 1 column 'Rack position' names no known attribute, so its values are not read; add a synonym "
            "to headers.toml",
        ),
    )
    assert n.diagnostics == ()


def test_size_row_states_its_series() -> None:
    claim = one_claim(A100, 10, "series")
    assert (claim.entity, claim.value_text) == ("Standard_ND96asr_v4", "ND A100 v4")
    assert claim.interpretation == "the table stands under 'ND A100 v4'"


# ----------------------------------------------------------------------- series identity


def test_official_pages_listing_one_size_name_one_series() -> None:
    # gpu-cells.md: "ND A100 v4-series"; ndasra100v4.md: "NDasrA100_v4 size series";
    # both are Microsoft Learn pages and both list Standard_ND96asr_v4.
    n = normalized(A100, "ndasra100v4.md")
    assert n.series.canonical("ND A100 v4") == n.series.canonical("NDasrA100_v4") == "ND A100 v4"
    assert n.series.aliases["ND A100 v4"] == ("ND A100 v4", "NDasrA100_v4")
    assert {c.value_text for c in n.claims if c.attribute == "series"} == {"ND A100 v4"}


def test_series_are_not_merged_without_official_evidence() -> None:
    # gpu-cells.md (official) lists ND96asr_v4 under "ND A100 v4"; the blog's "NDasrA100_v4" is not
    # official, and it is no shorter name of ND A100 v4 (it adds the letters asr), so both stay.
    n = normalized(A100, "ndasra100v4-blog.md")
    assert n.series.canonical("NDasrA100_v4") == "NDasrA100_v4"
    assert n.series.canonical("ND A100 v4") == "ND A100 v4"


def test_a_shorter_name_of_exactly_one_series_with_sizes_is_that_series() -> None:
    # ndasra100v4.md lists ND96asr_v4 under "NDasrA100_v4 size series"; a sentence's "ND A100 v4"
    # (no feature letters) can only mean it. "ND v4" would too; "ND A100 v5" (another version) cannot.
    n = normalized("ndasra100v4.md")
    assert n.series.canonical("NDasrA100_v4") == "NDasrA100_v4"
    assert n.series.canonical("ND A100 v4") == "NDasrA100_v4"
    assert n.series.canonical("ND v4") == "NDasrA100_v4"
    assert n.series.canonical("ND A100 v5") == "ND A100 v5"


# ------------------------------------------------------- retirement and lifecycle in prose

# Real pages cite the Learn page they were copied from as path:line under sources/azure-docs/, where
# ACD = azure-compute-docs/articles/virtual-machines/sizes and AD = azure-docs/articles/virtual-machines.

NV = "nv-series.md"  # ACD/gpu-accelerated/nv-series.md (2024-07-31) and its specs include
NVV3 = "nvv3-series.md"  # ACD/gpu-accelerated/nvv3-series.md and its specs include
NVV3_RETIREMENT = "nvv3-retirement.md"  # ACD/gpu-accelerated/nvv3-series-retirement.md (2025-06-13)
MIGRATION = "n-series-migration.md"  # ACD/lifecycle/retirement/n-series-migration.md (2023-02-27)
NDV2 = "ndv2-series.md"  # AD/ndv2-series.md
NCV6 = "ncv6-overview.md"  # ACD/gpu-accelerated/nc-rtxpro6000-bse-v6-series-overview.md
GB300_BLOG = "nd-gb300-v6-blog.md"  # sources/seeds/blog-nd-gb300-v6-ga-aggregator.txt
MI300X = "ndmi300xv5-series.md"  # ACD/gpu-accelerated/ndmi300xv5-series.md, its summary and specs
GB200 = "nd-gb200-v6-series.md"  # ACD/gpu-accelerated/nd-gb200-v6-series.md, its summary and specs
NCA100 = "nca100v4-series.md"  # ACD/gpu-accelerated/includes/nca100v4-series-specs.md
NCV3 = "ncv3-series.md"  # ACD/gpu-accelerated/includes/ncv3-series-specs.md
NCADSH100 = "ncadsh100v5-series.md"  # ACD/gpu-accelerated/includes/ncadsh100v5-series-specs.md
LABELED = "labeled-parts.md"
GARBLED = "nvcadba10m5-garbled.md"  # ACD/gpu-accelerated/nvcadbA10M5+serbes.md
FSV2 = "fsv2-series.md"  # articles/virtual-machines/fsv2-series.md of MicrosoftDocs/azure-docs
H100 = "nd-h100-v5-series.md"  # AD/nd-h100-v5-series.md
A10 = "nva10v5-series.md"  # AD/nva10v5-series.md
NCA100_V4 = "nc-a100-v4-series.md"  # AD/nc-a100-v4-series.md
H100_V5 = "ndh100v5-series.md"  # ACD/gpu-accelerated/ndh100v5-series.md and its summary
H200_V5 = "nd-h200-v5-series.md"  # ACD/gpu-accelerated/nd-h200-v5-series.md and its summary
GB300_V6 = "nd-gb300-v6-series.md"  # ACD/gpu-accelerated/nd-gb300-v6-series.md, its summary and specs

NVV3_RETIRED = [
    "Standard_NV12s_v3",
    "Standard_NV12hs_v3",
    "Standard_NV24s_v3",
    "Standard_NV24ms_v3",
    "Standard_NV32ms_v3",
    "Standard_NV48s_v3",
]


@pytest.mark.parametrize(
    ("name", "line", "written", "subjects", "date"),
    [
        pytest.param(
            NV,
            14,  # ACD/gpu-accelerated/nv-series.md:17
            "The NV-series is retired as of September 6th, 2023, and is no longer available.",
            {("NV", "series")},
            "2023-09-06",
            id="series-retired-as-of",
        ),
        pytest.param(
            NVV3_RETIREMENT,
            15,  # ACD/gpu-accelerated/nvv3-series-retirement.md:19
            "On September 30, 2026, Microsoft Azure will retire the Standard_NV12s_v3, Standard_NV12hs_v3, "
            "Standard_NV24s_v3, Standard_NV24ms_v3, Standard_NV32ms_v3, and Standard_NV48s_v3 virtual machines "
            "(VMs) in the NVv3-series",
            {("NVv3", "series"), *((size, "size") for size in NVV3_RETIRED)},
            "2026-09-30",
            id="sizes-listed-after-will-retire",
        ),
        pytest.param(
            MIGRATION,
            13,  # ACD/lifecycle/retirement/n-series-migration.md:18
            "The first group of GPU products to be retired in Azure are the original NC, NC v2 and ND-series VMs, "
            "powered by NVIDIA Tesla K80, P100, and P40 datacenter GPU accelerators respectively. These products "
            "will be retired on August 31st 2023,",
            {("NC", "series"), ("NC v2", "series"), ("ND", "series")},
            "2023-08-31",
            id="these-products-named-a-sentence-before",
        ),
        pytest.param(
            MIGRATION,
            39,  # ACD/lifecycle/retirement/n-series-migration.md:84
            "NP-series sizes (Standard_NP10s, Standard_NP20s, Standard_NP40s) are scheduled for **retirement on "
            "May 31, 2027**.",
            {("NP", "series"), ("Standard_NP10s", "size"), ("Standard_NP20s", "size"), ("Standard_NP40s", "size")},
            "2027-05-31",
            id="sizes-in-brackets",
        ),
    ],
)
def test_retirement_date_goes_to_what_its_sentence_is_about(
    name: str, line: int, written: str, subjects: set[tuple[str, str]], date: str
) -> None:
    assert written in fixture_line(name, line)
    found = claims_at(normalized(name), name, line, "retirement_date")
    assert {(c.entity, c.entity_kind) for c in found} == subjects
    assert {(c.value, c.value_text) for c in found} == {(date, date)}


def test_sizes_a_retirement_sentence_lists_are_put_in_the_series_it_names() -> None:
    found = claims_at(normalized(NVV3_RETIREMENT), NVV3_RETIREMENT, 15, "series")
    assert sorted((c.entity, c.value_text, c.interpretation) for c in found) == sorted(
        (size, "NVv3", "named in a sentence about NVv3") for size in NVV3_RETIRED
    )


@pytest.mark.parametrize(
    ("names", "as_of", "state", "why"),
    [
        pytest.param(
            (MIGRATION,),
            dt.date(2023, 2, 27),
            "retiring",
            "retirement date 2023-08-31 is after 2023-02-27, the newest document's date",
            id="alone",
        ),
        pytest.param(
            (MIGRATION, NV),
            dt.date(2024, 7, 31),
            "retired",
            "retirement date 2023-08-31 is on or before 2024-07-31, the newest document's date",
            id="with-a-newer-page",
        ),
    ],
)
def test_lifecycle_follows_from_the_retirement_date_and_the_newest_document(
    names: tuple[str, ...], as_of: dt.date, state: str, why: str
) -> None:
    # "These products will be retired on August 31st 2023": the date says retired or retiring,
    # measured against the newest ms.date of the documents normalized together, never the clock.
    n = normalized(*names)
    assert n.as_of == as_of
    found = claims_at(n, MIGRATION, 13, "lifecycle")
    assert {(c.entity, c.value, c.method, c.interpretation) for c in found} == {
        (series, state, "derived", why) for series in ("NC", "NC v2", "ND")
    }


def test_a_series_retired_as_of_a_date_is_retired() -> None:
    # ACD/gpu-accelerated/nv-series.md:17: "The NV-series is retired as of September 6th, 2023, ..."
    found = claims_at(normalized(NV), NV, 14, "lifecycle")
    assert {(c.entity, c.entity_kind, c.value) for c in found} == {("NV", "series", "retired")}


@pytest.mark.parametrize(
    ("name", "line", "written"),
    [
        # ACD/gpu-accelerated/nvv3-series-retirement.md:17
        (NVV3_RETIREMENT, 13, "1-year and 3-year RI purchases for the NVv3-series ended November 2, 2025."),
        # ACD/gpu-accelerated/nvv3-series-retirement.md:33
        (
            NVV3_RETIREMENT,
            19,
            "After September 30th, 2026, any remaining NVv3-series virtual machines (VMs) subscriptions will be "
            "set to a deallocated state.",
        ),
        # ACD/lifecycle/retirement/n-series-migration.md:86
        (
            MIGRATION,
            41,
            "Purchases of 1-year and 3-year Azure Reserved VM Instances for NP-series ended on **April 2, 2026**.",
        ),
    ],
)
def test_a_date_that_is_not_a_retirement_gives_no_retirement_date(name: str, line: int, written: str) -> None:
    assert written in fixture_line(name, line)
    n = normalized(name)
    assert claims_at(n, name, line, "retirement_date") == []
    assert claims_at(n, name, line, "lifecycle") == []


def test_a_superseded_size_is_retired_and_the_size_that_supersedes_it_is_not() -> None:
    # AD/ndv2-series.md:27
    assert fixture_line(NDV2, 21) == (
        "> Please note: The ND40s_v2 featuring 16 GB of per-GPU memory is no longer available for preview and "
        "has been superceded by the updated ND40rs_v2."
    )
    found = claims_at(normalized(NDV2), NDV2, 21, "lifecycle")
    assert {(c.entity, c.entity_kind, c.value) for c in found} == {("Standard_ND40s_v2", "size", "retired")}


def test_public_preview_is_lifecycle_preview() -> None:
    # ACD/gpu-accelerated/nc-rtxpro6000-bse-v6-series-overview.md:21
    assert fixture_line(NCV6, 19).startswith(
        "The NCv6-series is currently in public preview and available in the Azure West US 2"
    )
    claim = one_claim(NCV6, 19, "lifecycle")
    assert (claim.entity, claim.entity_kind, claim.value, claim.method) == ("NCv6", "series", "preview", "paragraph")


# ------------------------------------------------------------------ GPU models in prose


def test_models_listed_with_respectively_pair_with_the_series_in_order() -> None:
    # ACD/lifecycle/retirement/n-series-migration.md:18: "the original NC, NC v2 and ND-series VMs,
    # powered by NVIDIA Tesla K80, P100, and P40 datacenter GPU accelerators respectively"
    found = claims_at(normalized(MIGRATION), MIGRATION, 13, "gpu_model")
    assert {(c.entity, c.value) for c in found} == {("NC", "K80"), ("NC v2", "P100"), ("ND", "P40")}


def test_several_models_without_respectively_go_to_no_series() -> None:
    changed = edited(MIGRATION, "datacenter GPU accelerators respectively.", "datacenter GPU accelerators.")
    assert claims_at(normalize([changed]), MIGRATION, 13, "gpu_model") == []


@pytest.mark.parametrize(
    ("line", "written", "pairs"),
    [
        pytest.param(
            30,  # ACD/lifecycle/retirement/n-series-migration.md:59, under "NC v2-Series VMs featuring ..."
            "The NC v2-series virtual machines are a flagship platform originally designed for AI and Deep "
            "Learning workloads. They offered excellent performance for Deep Learning training, with per-GPU "
            "performance roughly 2x that of the original NC-Series and are powered by NVIDIA Tesla P100 GPUs",
            {("NC v2", "P100")},
            id="they-is-the-series-named-before",
        ),
        pytest.param(
            21,  # ACD/lifecycle/retirement/n-series-migration.md:48
            "In general, NC-Series customers should consider moving directly across from NC sizes to "
            "[NC T4 v3](../../../sizes/gpu-accelerated/ncast4v3-series.md) sizes, Azure’s new GPU-accelerated "
            "platform for light workloads powered by NVIDIA Tesla T4 GPUs.",
            {("NC T4 v3", "T4")},
            id="nearest-series-before",
        ),
    ],
)
def test_a_gpu_model_in_prose_goes_to_the_series_the_sentence_is_about(
    line: int, written: str, pairs: set[tuple[str, str]]
) -> None:
    assert written in fixture_line(MIGRATION, line)
    found = claims_at(normalized(MIGRATION), MIGRATION, line, "gpu_model")
    assert {(c.entity, c.value) for c in found} == pairs


def test_a_memory_word_such_as_hbm3e_is_not_a_size() -> None:
    # sources/seeds/blog-nd-gb300-v6-ga-aggregator.txt:32. By the naming convention alone HBM3e would
    # be a size (family HBM, 3 vCPUs, feature e), and it follows the value in its sentence.
    assert fixture_line(GB300_BLOG, 21) == "  - 37TB fast memory per rack (~20TB HBM3e, ~17TB LPDDR)"
    assert parse_size("HBM3e") is not None
    n = normalized(GB300_BLOG)
    claim = one_claim(GB300_BLOG, 21, "rack_fast_memory_gib")
    assert (claim.entity, claim.entity_kind) == ("ND GB300 v6", "series")
    assert {c.entity_kind for c in n.claims} == {"series"}


# -------------------------------------------------------------------------------- CPUs


@pytest.mark.parametrize(
    ("name", "line", "written", "entity", "model", "vendor", "architecture", "architecture_method"),
    [
        pytest.param(
            NV,
            20,  # ACD/gpu-accelerated/includes/nv-series-specs.md:16
            "| Processor      | 6 - 24 vCPUs     | Intel Xeon E5-2690 v3 (Haswell) [x86-64] |",
            "NV",
            "Intel Xeon E5-2690 v3 (Haswell)",
            "Intel",
            "x86-64",
            "part_table",
            id="part-table-with-instruction-set",
        ),
        pytest.param(
            GB200,
            17,  # ACD/gpu-accelerated/includes/nd-gb200-v6-series-specs.md:16
            "| Processor      | 128 vCPUs       | Nvidia Grace CPU                               |",
            "ND GB200 v6",
            "Nvidia Grace",
            "NVIDIA",
            "Arm64",
            "derived",
            id="part-table-grace",
        ),
        pytest.param(
            MIGRATION,
            19,  # ACD/lifecycle/retirement/n-series-migration.md:44
            "paired with Intel Xeon E5-2690 v3 (Haswell) processors.",
            "NC",
            "Intel Xeon E5-2690 v3 (Haswell)",
            "Intel",
            "x86-64",
            "derived",
            id="prose-processors",
        ),
        pytest.param(
            MIGRATION,
            30,  # ACD/lifecycle/retirement/n-series-migration.md:59
            "and Intel Xeon E5-2690 v4 (Broadwell) CPUs.",
            "NC v2",
            "Intel Xeon E5-2690 v4 (Broadwell)",
            "Intel",
            "x86-64",
            "derived",
            id="prose-cpus",
        ),
    ],
)
def test_cpu_model_with_its_maker_and_architecture(
    name: str,
    line: int,
    written: str,
    entity: str,
    model: str,
    vendor: str,
    architecture: str,
    architecture_method: str,
) -> None:
    assert written in fixture_line(name, line)
    n = normalized(name)
    (cpu,) = claims_at(n, name, line, "cpu_model")
    (maker,) = claims_at(n, name, line, "cpu_vendor")
    (arch,) = claims_at(n, name, line, "cpu_architecture")
    assert (cpu.entity, cpu.entity_kind, cpu.value) == (entity, "series", model)
    assert (maker.entity, maker.value, maker.method) == (entity, vendor, "derived")
    assert (arch.entity, arch.value, arch.method) == (entity, architecture, architecture_method)


def test_a_processor_line_without_a_model_number_is_no_cpu_model() -> None:
    # ACD/gpu-accelerated/includes/ndmi300xv5-series-summary.md:16
    assert "two fourth Gen Intel Xeon Scalable processors for a total 96 physical cores" in fixture_line(MI300X, 14)
    n = normalized(MI300X)
    # The line's one claim is the GPUs' link of its next sentence (see the interconnect cases).
    assert [c.attribute for c in n.claims if c.line == 14] == ["interconnect"]


# ------------------------------------------------------------------- GPU interconnects in prose

Link = tuple[str, str, str, str]
"""A claim about the GPUs' link: entity, attribute, value, method."""


def joined_by_nvlink(series: str, link: str) -> list[Link]:
    """What a sentence saying a series' GPUs are joined by NVLink states: the link and the flag."""
    return [(series, "interconnect", link, "paragraph"), (series, "nvlink", "true", "paragraph")]


@pytest.mark.parametrize(
    ("name", "line", "cited", "links"),
    [
        pytest.param(
            GB200,
            24,
            # "... The GPUs are interconnected via fifth-generation NVLink, providing ..."
            "ACD/gpu-accelerated/includes/nd-gb200-v6-series-summary.md:15",
            joined_by_nvlink("ND GB200 v6", "NVLink 5.0"),
            id="fifth-generation-nvlink-is-nvlink-5.0",
        ),
        pytest.param(
            GB300_V6,
            13,
            # "... The GPUs are interconnected via fifth-generation NVLINK, providing ..."
            "ACD/gpu-accelerated/includes/nd-gb300-v6-series-summary.md:14",
            joined_by_nvlink("ND GB300 v6", "NVLink 5.0"),
            id="gb300-likewise",
        ),
        pytest.param(
            H100_V5,
            13,
            # "Each GPU features NVLINK 4.0 connectivity for communication within the VM, ..."
            "ACD/gpu-accelerated/includes/ndh100v5-series-summary.md:18",
            joined_by_nvlink("ND H100 v5", "NVLink 4.0"),
            id="nvlink-4.0-connectivity",
        ),
        pytest.param(
            H200_V5,
            13,
            # "The ND H200 v5 series starts with ... GPUs, interconnected with 900 GB/s NVLink."
            "ACD/gpu-accelerated/includes/nd-h200-v5-series-summary.md:17",
            joined_by_nvlink("ND H200 v5", "NVLink"),
            id="no-generation-is-nvlink",
        ),
        pytest.param(
            MI300X,
            14,
            # "... Each GPU within the VM is then connected to one another via 4th-Gen AMD Infinity Fabric links ..."
            "ACD/gpu-accelerated/includes/ndmi300xv5-series-summary.md:16",
            [("ND MI300X v5", "interconnect", "AMD Infinity Fabric 4th gen", "paragraph")],
            id="infinity-fabric-says-nothing-of-nvlink",
        ),
        pytest.param(
            GB200,
            27,
            # "-  Bandwidth is up to 72 GPUs per domain through NVLINK": NVLink, but not which one.
            "ACD/gpu-accelerated/nd-gb200-v6-series.md:91",
            [("ND GB200 v6", "nvlink", "true", "bullet")],
            id="through-nvlink-is-the-flag-alone",
        ),
        pytest.param(
            GB300_V6,
            24,
            "ACD/gpu-accelerated/nd-gb300-v6-series.md:95",
            [("ND GB300 v6", "nvlink", "true", "bullet")],
            id="gb300-through-nvlink",
        ),
    ],
)
def test_the_gpus_link_in_a_summary_goes_to_its_series(name: str, line: int, cited: str, links: list[Link]) -> None:
    assert fixture_line(name, line) == source_line(cited)
    found = [c for c in normalized(name).claims if c.line == line and c.attribute in ("interconnect", "nvlink")]
    assert sorted((c.entity, c.attribute, c.value, c.method) for c in found) == links
    assert {c.entity_kind for c in found} == {"series"}


def test_a_links_claim_says_what_it_was_read_from() -> None:
    # ACD/gpu-accelerated/includes/nd-gb200-v6-series-summary.md:15
    link = one_claim(GB200, 24, "interconnect")
    flag = one_claim(GB200, 24, "nvlink")
    assert link.interpretation == "from running text: 'interconnected via fifth-generation NVLink'"
    assert flag.interpretation == f"{link.interpretation}; NVLink names the GPUs' link"
    assert (flag.value_bool, flag.value_text) == (True, None)


@pytest.mark.parametrize(
    ("sentence", "links"),
    [
        pytest.param("The GPUs are not interconnected via NVLink.", [], id="negated"),
        pytest.param("NVLink bandwidth within the VM is 900 GB/s.", [], id="a-figure-of-the-link-said-elsewhere"),
        pytest.param("The GPUs are interconnected via PCIe Gen4.", [], id="another-link"),
        pytest.param(
            "Unlike this series, the ND A100 v4 series GPUs are interconnected via third-generation NVLink.",
            joined_by_nvlink("ND A100 v4", "NVLink 3.0"),
            id="a-sentence-about-another-series",
        ),
        pytest.param(
            # as AD/ndv2-series.md:16 writes it: "NDv2 is powered by 8 NVIDIA Tesla V100 NVLINK-connected GPUs"
            "Each VM has 8 NVIDIA H100 NVLINK-connected GPUs, each with 80 GB of GPU memory.",
            joined_by_nvlink("ND H100 v5", "NVLink"),
            id="nvlink-connected",
        ),
    ],
)
def test_a_link_is_read_only_where_a_sentence_says_the_gpus_are_joined_by_it(sentence: str, links: list[Link]) -> None:
    # ACD/gpu-accelerated/includes/ndh100v5-series-summary.md:18 replaced by the sentence
    n = normalize([edited(H100_V5, fixture_line(H100_V5, 13), sentence)])
    found = [c for c in n.claims if c.line == 13 and c.attribute in ("interconnect", "nvlink")]
    assert sorted((c.entity, c.attribute, c.value, c.method) for c in found) == links


# --------------------------------------------------------------------- GPU cards


@pytest.mark.parametrize(
    ("line", "written", "stated", "gpus"),
    [
        # ACD/gpu-accelerated/nv-series.md:112-114, under the series spec "Nvidia Tesla M60 GPU (16GB)"
        (33, "| Standard_NV6 | 1/2 | 8 |", 0.5, 1.0),
        (34, "| Standard_NV12 | 1 | 16 |", 1.0, 2.0),
        (35, "| Standard_NV24 | 2 | 32 |", 2.0, 4.0),
    ],
)
def test_m60_cards_are_counted_as_two_gpus_of_8_gib(line: int, written: str, stated: float, gpus: float) -> None:
    assert fixture_line(NV, 31) == "| Size Name | Accelerators (Qty.) | Accelerator-Memory (GB) |"
    assert fixture_line(NV, line) == written
    n = normalized(NV)
    assert sorted((c.method, c.value_number) for c in claims_at(n, NV, line, "gpu_count")) == [
        ("derived", gpus),
        ("table", stated),
    ]
    assert [(c.method, c.value_number) for c in claims_at(n, NV, line, "gpu_memory_gib")] == [("derived", 8.0)]


def test_whole_m60_cards_say_how_they_were_counted() -> None:
    (derived,) = [c for c in claims_at(normalized(NV), NV, 35, "gpu_count") if c.method == "derived"]
    assert derived.interpretation is not None
    assert derived.interpretation.startswith(
        "2 M60 card(s) of 2 GPUs = 4 GPU(s): 32 / 2 = 16 GiB is one card; read as the total of whole cards"
    )


@pytest.mark.parametrize(("name", "line"), [(NV, 25), (NVV3, 22)])
def test_part_table_memory_of_an_m60_card_is_per_gpu_half_of_it(name: str, line: int) -> None:
    # ACD/gpu-accelerated/includes/nv-series-specs.md:21, includes/nvv3-series-specs.md:21
    assert fixture_line(name, line).endswith("| Nvidia Tesla M60 GPU (16GB)    |")
    claim = one_claim(name, line, "gpu_memory_gib")
    assert (claim.value_number, claim.entity_kind) == (8.0, "series")
    assert claim.interpretation is not None
    assert claim.interpretation.startswith("16 GiB is one M60 card of 2 GPUs: 8 GiB per GPU")


@pytest.mark.parametrize(
    ("line", "written", "gpus"),
    [
        # ACD/gpu-accelerated/nvv3-series.md:111-113: the same M60, counted in GPUs
        (30, "| Standard_NV12s_v3 | 1 | 8 |", 1.0),
        (31, "| Standard_NV24s_v3 | 2 | 16 |", 2.0),
        (32, "| Standard_NV48s_v3 | 4 | 32 |", 4.0),
    ],
)
def test_a_count_of_gpus_is_not_read_as_cards(line: int, written: str, gpus: float) -> None:
    assert fixture_line(NVV3, line) == written
    n = normalized(NVV3)
    assert [(c.method, c.value_number) for c in claims_at(n, NVV3, line, "gpu_count")] == [("table", gpus)]
    assert {c.value_number for c in claims_at(n, NVV3, line, "gpu_memory_gib")} == {8.0}


def test_a_total_that_divides_to_within_2_percent_of_the_model_memory_is_that_memory() -> None:
    # ACD/gpu-accelerated/ndmi300xv5-series.md:100: 1535 / 8 = 191.875, an MI300X has 192 GiB.
    assert fixture_line(MI300X, 33) == "| Standard_ND96isr_MI300X_v5 | 8 | 1535 |"
    per = one_claim(MI300X, 33, "gpu_memory_gib")
    total = one_claim(MI300X, 33, "gpu_memory_total_gib")
    assert (per.value_number, per.method, total.value_number, total.method) == (192.0, "derived", 1535.0, "table")
    assert per.interpretation is not None
    assert per.interpretation.endswith("191.875 GiB per GPU is within 2% of the MI300X's 192 GiB; read as 192")


def test_a_gpu_named_by_architecture_and_memory_is_the_one_model_made_so() -> None:
    # ACD/gpu-accelerated/includes/nd-gb200-v6-series-specs.md:21
    assert fixture_line(GB200, 22).startswith(
        "| Accelerators   | 4 GPUs              | Nvidia Blackwell GPU (192 GiB) "
    )
    model = one_claim(GB200, 22, "gpu_model")
    assert (model.entity, model.value) == ("ND GB200 v6", "B200")
    assert model.interpretation == "the Blackwell GPU made with the memory written beside it is the B200"
    assert one_claim(GB200, 22, "gpu_memory_gib").value_number == 192.0


# ------------------------------------------------------------------- NVMe in part tables


@pytest.mark.parametrize(
    ("name", "line", "column", "attribute", "values"),
    [
        # ACD/gpu-accelerated/includes/nca100v4-series-specs.md:18:
        # | Local Storage  | 1 Temp Disk <br> 1 - 4 NVMe Disks | 64 - 256 GiB Temp Disk <br> 960 GiB NVMe Disks |
        (NCA100, 19, "Quantity", "nvme_disk_count", ["1-4"]),
        (NCA100, 19, "Specs", "nvme_disk_size_gib", ["960"]),
        (NCA100, 19, "Quantity", "temp_disk_count", ["1"]),
        (NCA100, 19, "Specs", "temp_storage_gib", ["64-256"]),
        # ACD/gpu-accelerated/includes/ndmi300xv5-series-specs.md:18:
        # | Local Storage  | 1 Temp Disk <br> 8 NVMe Disks | 1,000 GiB Temp Disk <br> 28,000 GiB NVMe Disks |
        (MI300X, 22, "Quantity", "nvme_disk_count", ["8"]),
        (MI300X, 22, "Specs", "nvme_disk_total_gib", ["28000"]),  # the eight disks' total: see below
        (MI300X, 22, "Quantity", "temp_disk_count", ["1"]),
        (MI300X, 22, "Specs", "temp_storage_gib", ["1000"]),
    ],
)
def test_a_part_table_piece_naming_nvme_goes_to_the_nvme_attributes(
    name: str, line: int, column: str, attribute: str, values: list[str]
) -> None:
    assert fixture_line(name, line).startswith("| Local Storage  | 1 Temp Disk <br> ")
    found = claims_at(normalized(name), name, line, attribute, column)
    assert [c.value for c in found] == values
    assert {c.entity_kind for c in found} == {"series"}


# ----------------------------------------------------- NVMe disks: a count, one disk, their total

LEARN_GIB = "GB read as GiB: Microsoft Learn size tables state capacities in GiB (1024^3 bytes)"
LEARN_TIB = "TB read as TiB: Microsoft Learn size tables state capacities in GiB (1024^3 bytes)"
NVME_TOTAL = "no capacity of one local NVMe disk is above 8192 GiB: {} GiB read as the total"
"""Why a size written as one NVMe disk's is the disks' total: `max` of nvme_disk_size_gib."""
NVME_MADE_OF = "'16 TiB (NVMe)' says what this part's items are"
ONE_DISK = "gives a size and no count: one disk of that size"

Read = tuple[str, float | str, str, str | None]
"""A claim as read: attribute, value (a number, or a range as text), method, interpretation."""


def read(claims: list[Claim]) -> list[Read]:
    return sorted(
        (c.attribute, c.value_number if c.range_min == c.range_max else c.value, c.method, c.interpretation)
        for c in claims
    )


@pytest.mark.parametrize(
    ("line", "cited", "cell", "claims"),
    [
        pytest.param(
            14,
            "AD/nc-a100-v4-series.md:57",
            "960 GB",
            [
                ("nvme_disk_count", 1.0, "derived", f"'960 GB' under 'NVMe Disks' {ONE_DISK}"),
                ("nvme_disk_size_gib", 960.0, "table", LEARN_GIB),
                ("nvme_disk_total_gib", 960.0, "derived", f"derived: 1 disk x 960 GiB; {LEARN_GIB}"),
            ],
            id="a-size-alone-is-one-disk",
        ),
        pytest.param(
            15,
            "AD/nc-a100-v4-series.md:58",
            "2x960 GB",
            [
                ("nvme_disk_count", 2.0, "table", None),
                ("nvme_disk_size_gib", 960.0, "table", LEARN_GIB),
                ("nvme_disk_total_gib", 1920.0, "derived", f"derived: 2 disks x 960 GiB; {LEARN_GIB}"),
            ],
            id="count-x-size",
        ),
        pytest.param(
            16,
            "AD/nc-a100-v4-series.md:59",
            "4x960 GB",
            [
                ("nvme_disk_count", 4.0, "table", None),
                ("nvme_disk_size_gib", 960.0, "table", LEARN_GIB),
                ("nvme_disk_total_gib", 3840.0, "derived", f"derived: 4 disks x 960 GiB; {LEARN_GIB}"),
            ],
            id="four-x-size",
        ),
    ],
)
def test_an_nvme_disks_cell_gives_the_count_and_the_size_of_one_disk(
    line: int, cited: str, cell: str, claims: list[Read]
) -> None:
    # | Size | ... | NVMe Disks<sup>2</sup> | ...: the header named a count, which "960 GB" was the wrong
    # unit of (unit-mismatch) and "2x960 GB" no value of (value-unreadable).
    assert fixture_line(NCA100_V4, line) == source_line(cited)
    assert f"| {cell}" in fixture_line(NCA100_V4, line)
    n = normalized(NCA100_V4)
    assert read([c for c in n.claims if c.line == line and c.column == "NVMe Disks"]) == claims
    assert [d for d in n.diagnostics if d.line == line and "NVMe" in d.message] == []


@pytest.mark.parametrize(
    ("cell", "claims"),
    [
        pytest.param(
            "4 x 3.5 TB",
            [
                ("nvme_disk_count", 4.0, "table", None),
                ("nvme_disk_size_gib", 3584.0, "table", LEARN_TIB),
                ("nvme_disk_total_gib", 14336.0, "derived", f"derived: 4 disks x 3584 GiB; {LEARN_TIB}"),
            ],
            id="spaced-x-and-a-decimal-size",
        ),
        pytest.param("8", [("nvme_disk_count", 8.0, "table", None)], id="a-number-alone-is-the-count"),
        pytest.param(
            "28 TB",
            [("nvme_disk_total_gib", 28672.0, "table", f"{NVME_TOTAL.format(28672)}; {LEARN_TIB}")],
            id="a-size-no-disk-can-be-is-the-total-of-an-unknown-count",
        ),
        pytest.param("1 - 2 disks", [("nvme_disk_count", "1-2", "table", None)], id="a-range-of-disks"),
    ],
)
def test_an_nvme_disks_cell_is_read_by_what_it_holds(cell: str, claims: list[Read]) -> None:
    # AD/nc-a100-v4-series.md:57 with its "960 GB" written another way
    n = normalize([edited(NCA100_V4, "| 960 GB |", f"| {cell} |")])
    assert read([c for c in n.claims if c.line == 14 and c.column == "NVMe Disks"]) == claims


def test_an_nvme_disks_cell_that_is_no_value_is_a_warning_at_its_line() -> None:
    n = normalize([edited(NCA100_V4, "| 2x960 GB|", "| two of them|")])
    assert [c for c in n.claims if c.line == 15 and c.column == "NVMe Disks"] == []
    said = [d for d in n.diagnostics if d.line == 15 and d.code == "value-unreadable"]
    assert [(d.severity, d.document, d.message) for d in said] == [
        ("warning", f"{FOLDER}/{NCA100_V4}", "'NVMe Disks': 'two of them' is not a value of the expected kind")
    ]


FOUR_NVME_TEMP_DISKS = [
    ("nvme_disk_count", 4.0, "part_table", NVME_MADE_OF),
    (
        "nvme_disk_size_gib",
        4096.0,
        "derived",
        f"derived: 16384 GiB / 4 disks; {NVME_MADE_OF}; {NVME_TOTAL.format(16384)}",
    ),
    ("nvme_disk_total_gib", 16384.0, "part_table", f"{NVME_MADE_OF}; {NVME_TOTAL.format(16384)}"),
    ("temp_disk_count", 4.0, "part_table", None),
    ("temp_storage_gib", 16384.0, "part_table", None),
]
"""`| Local Storage | 4 Disks | 16 TiB (NVMe) |`: four temp disks, 16 TiB together, which are NVMe disks: four
NVMe disks, and since no NVMe disk holds 16 TiB, 16 TiB is the four together, 4 TiB (4096 GiB) each."""

TOTAL_28_TIB = [
    ("nvme_disk_count", 8.0, "table", None),
    ("nvme_disk_size_gib", 3584.0, "derived", f"derived: 28672 GiB / 8 disks; {NVME_TOTAL.format(28672)}"),
    ("nvme_disk_total_gib", 28672.0, "table", NVME_TOTAL.format(28672)),
]
"""`| 8 | 28 |` under `Max NVMe Disks (Qty.) | NVMe Disk Size (TiB)`: no NVMe disk holds 28 TiB, so 28 TiB
is the eight disks together, 3.5 TiB (3584 GiB) each."""


@pytest.mark.parametrize(
    ("name", "line", "cited"),
    [
        pytest.param(H100_V5, 19, "ACD/gpu-accelerated/ndh100v5-series.md:63", id="nd-h100-v5"),
        pytest.param(H200_V5, 19, "ACD/gpu-accelerated/nd-h200-v5-series.md:47", id="nd-h200-v5"),
        pytest.param(MI300X, 39, "ACD/gpu-accelerated/ndmi300xv5-series.md:42", id="nd-mi300x-v5"),
    ],
)
def test_a_size_column_more_than_one_disk_can_hold_is_their_total(name: str, line: int, cited: str) -> None:
    assert fixture_line(name, line) == source_line(cited)
    assert fixture_line(name, line).endswith("| 8 | 28 |")
    n = normalized(name)
    found = [c for c in n.claims if c.line == line and c.attribute.startswith("nvme")]
    assert read(found) == TOTAL_28_TIB
    assert {c.entity_kind for c in found} == {"size"}


@pytest.mark.parametrize(
    ("header", "row", "claims"),
    [
        pytest.param(
            "NVMe Disk Size (TiB)",
            "| 8 | 3.5 |",
            [
                ("nvme_disk_count", 8.0, "table", None),
                ("nvme_disk_size_gib", 3584.0, "table", None),
                ("nvme_disk_total_gib", 28672.0, "derived", "derived: 8 disks x 3584 GiB"),
            ],
            id="one-disk-as-the-header-says",
        ),
        pytest.param(
            "Total NVMe Disk Size (TiB)",
            "| 8 | 7 |",
            [
                ("nvme_disk_count", 8.0, "table", None),
                ("nvme_disk_size_gib", 896.0, "derived", "derived: 7168 GiB / 8 disks"),
                ("nvme_disk_total_gib", 7168.0, "table", None),
            ],
            id="the-header-says-total",
        ),
        pytest.param(
            "Combined NVMe Capacity (TiB)",
            "| 1 - 8 | 7 |",
            [("nvme_disk_count", "1-8", "table", None), ("nvme_disk_total_gib", 7168.0, "table", None)],
            id="a-range-of-disks-divides-nothing",
        ),
    ],
)
def test_a_size_column_is_one_disk_unless_its_header_or_physics_says_total(
    header: str, row: str, claims: list[Read]
) -> None:
    # ACD/gpu-accelerated/ndh100v5-series.md:61-63 with the header and the row's last cells rewritten
    text = (FIXTURES / H100_V5).read_text(encoding="utf-8").replace("NVMe Disk Size (TiB)", header)
    doc, _ = parse_bytes(f"{FOLDER}/{H100_V5}", text.replace("| 8 | 28 |", row).encode("utf-8"))
    assert doc is not None
    n = normalize([extract(doc)])
    assert read([c for c in n.claims if c.line == 19 and c.attribute.startswith("nvme")]) == claims


@pytest.mark.parametrize(
    ("name", "line", "cited", "claims"),
    [
        pytest.param(
            MI300X,
            22,
            "ACD/gpu-accelerated/includes/ndmi300xv5-series-specs.md:18",
            [
                ("nvme_disk_count", 8.0, "part_table", None),
                ("nvme_disk_size_gib", 3500.0, "derived", f"derived: 28000 GiB / 8 disks; {NVME_TOTAL.format(28000)}"),
                ("nvme_disk_total_gib", 28000.0, "part_table", NVME_TOTAL.format(28000)),
                ("temp_disk_count", 1.0, "part_table", None),
                ("temp_storage_gib", 1000.0, "part_table", None),
            ],
            id="eight-nvme-disks-of-28000-gib-together",
        ),
        pytest.param(
            GB200,
            19,
            "ACD/gpu-accelerated/includes/nd-gb200-v6-series-specs.md:18",
            FOUR_NVME_TEMP_DISKS,
            id="four-temp-disks-that-are-nvme",
        ),
        pytest.param(
            GB300_V6,
            21,
            "ACD/gpu-accelerated/includes/nd-gb300-v6-series-specs.md:19",
            FOUR_NVME_TEMP_DISKS,
            id="gb300-the-same",
        ),
        pytest.param(
            NCA100,
            19,
            "ACD/gpu-accelerated/includes/nca100v4-series-specs.md:18",
            [
                ("nvme_disk_count", "1-4", "part_table", None),
                ("nvme_disk_size_gib", 960.0, "part_table", None),
                ("temp_disk_count", 1.0, "part_table", None),
                ("temp_storage_gib", "64-256", "part_table", None),
            ],
            id="960-gib-is-one-disk-and-1-to-4-no-count-to-multiply",
        ),
    ],
)
def test_a_local_storage_part_gives_the_nvme_count_one_disk_and_the_total(
    name: str, line: int, cited: str, claims: list[Read]
) -> None:
    assert fixture_line(name, line) == source_line(cited)
    found = [c for c in normalized(name).claims if c.line == line]
    assert read(found) == claims
    assert {c.entity_kind for c in found} == {"series"}


@pytest.mark.parametrize(
    ("old", "new", "claims"),
    [
        pytest.param(
            "28,000 GiB NVMe Disks",
            "7,000 GiB NVMe Disks in total",
            [
                ("nvme_disk_count", 8.0, "part_table", None),
                ("nvme_disk_size_gib", 875.0, "derived", "derived: 7000 GiB / 8 disks"),
                ("nvme_disk_total_gib", 7000.0, "part_table", None),
            ],
            id="the-piece-says-total",
        ),
        pytest.param(
            "28,000 GiB NVMe Disks",
            "3,500 GiB NVMe Disks",
            [
                ("nvme_disk_count", 8.0, "part_table", None),
                ("nvme_disk_size_gib", 3500.0, "part_table", None),
                ("nvme_disk_total_gib", 28000.0, "derived", "derived: 8 disks x 3500 GiB"),
            ],
            id="one-disk-and-the-count-give-the-total",
        ),
    ],
)
def test_a_local_storage_part_reads_total_where_its_words_say_so(old: str, new: str, claims: list[Read]) -> None:
    # ACD/gpu-accelerated/includes/ndmi300xv5-series-specs.md:18 with its NVMe size written another way
    n = normalize([edited(MI300X, old, new)])
    assert read([c for c in n.claims if c.line == 22 and c.attribute.startswith("nvme")]) == claims


def test_a_made_of_note_in_a_part_whose_cells_do_not_pair_up_is_read_for_its_own_piece_only() -> None:
    # ACD/gpu-accelerated/includes/nd-gb200-v6-series-specs.md:18 with a temp disk listed first: the
    # Quantity cell's two pieces no longer stand beside the Specs cell's one, so "(NVMe)" does not say
    # which of them are NVMe.
    n = normalize([edited(GB200, "| 4 Disks           |", "| 1 Temp Disk <br> 4 Disks |")])
    found = [c for c in n.claims if c.line == 19 and c.attribute.startswith("nvme")]
    assert read(found) == [
        ("nvme_disk_total_gib", 16384.0, "part_table", f"{NVME_MADE_OF}; {NVME_TOTAL.format(16384)}")
    ]


@pytest.mark.parametrize(
    ("line", "row", "kept", "units_alone"),
    [
        # ACD/gpu-accelerated/includes/ncv3-series-specs.md:20: the bandwidth's number left out.
        (21, "| Network        | 4 - 8 NICs          |  Mbps ", {"max_nics": ["4-8"]}, ["Mbps"]),
        # :18: the temp disk's IOPS and MBps left out, its size given.
        (
            19,
            "| Local Storage  | 1 Disk           | 736 - 2,948 GiB <br> IOPS <br> MBps ",
            {"temp_disk_count": ["1"], "temp_storage_gib": ["736-2948"]},
            ["IOPS", "MBps"],
        ),
    ],
)
def test_a_part_table_unit_without_its_number_is_no_value(
    line: int, row: str, kept: dict[str, list[str]], units_alone: list[str]
) -> None:
    assert fixture_line(NCV3, line).startswith(row)
    n = normalized(NCV3)
    found = [c for c in n.claims if c.line == line]
    assert {a: [c.value for c in found if c.attribute == a] for a in {c.attribute for c in found}} == kept
    said = [d for d in n.diagnostics if d.code == "unit-without-number"]
    assert [(d.severity, d.document, d.line) for d in said if d.line == line] == [
        ("info", f"{FOLDER}/{NCV3}", line)
    ] * len(units_alone)
    assert [d.message.split(": ", 1)[1] for d in said if d.line == line] == [
        f"{unit!r} is a unit without a number; no value taken" for unit in units_alone
    ]


@pytest.mark.parametrize(
    ("name", "line", "row", "kept", "unmapped"),
    [
        # ACD/gpu-accelerated/includes/ncadsh100v5-series-specs.md:20: the NICs' interfaces, not
        # the GPU interconnect.
        (
            NCADSH100,
            21,
            "| Network        | 2 - 4 NICs          | 40,000 - 80,000 Mbps <br>Interfaces: NetVSC, ConnectX ",
            {"max_nics": ["2-4"], "network_bandwidth_mbps": ["40000-80000"]},
            [
                "'Interfaces: NetVSC, ConnectX' is labeled 'Interfaces', which names no attribute of its text "
                "(interconnect)"
            ],
        ),
        # A label the headers give the part's text attribute: taken, without the label.
        (
            LABELED,
            13,
            "| Network        | 8 NICs          | 80,000 Mbps <br>Interconnect: InfiniBand NDR ",
            {"max_nics": ["8"], "network_bandwidth_mbps": ["80000"], "interconnect": ["InfiniBand NDR"]},
            [],
        ),
        (
            LABELED,
            14,
            "| Memory         | 1,900 GiB          | Kind: DDR5 ",
            {"memory_gib": ["1900"]},
            ["'Kind: DDR5' is labeled 'Kind', which names no attribute of its text (memory_type)"],
        ),
    ],
)
def test_a_part_table_piece_with_a_label_is_taken_only_where_the_label_names_its_attribute(
    name: str, line: int, row: str, kept: dict[str, list[str]], unmapped: list[str]
) -> None:
    assert fixture_line(name, line).startswith(row)
    n = normalized(name)
    found = [c for c in n.claims if c.line == line]
    assert {a: [c.value for c in found if c.attribute == a] for a in {c.attribute for c in found}} == kept
    said = [d for d in n.diagnostics if d.code == "unmapped-label" and d.line == line]
    assert [d.message.split(": ", 1)[1] for d in said] == unmapped
    assert {d.severity for d in said} <= {"info"}


@pytest.mark.parametrize(
    ("line", "row", "interconnect", "bandwidth", "said"),
    [
        (18, "| Standard_ND96isr_H100_v5 | 96 | Interconnect: InfiniBand / 400 Gbps |", ["InfiniBand"], [400000.0], []),
        (
            19,
            "| Standard_ND48isr_H100_v5 | 48 | Mbps |",
            [],
            [],
            [("unit-without-number", "'Network': 'Mbps' is a unit without a number; no value taken")],
        ),
    ],
)
def test_a_network_cell_reads_its_text_as_a_part_does(
    line: int, row: str, interconnect: list[str], bandwidth: list[float], said: list[tuple[str, str]]
) -> None:
    """The size tables' Network cells and the parts' pieces go through the same rules: a label
    the headers give the interconnect is taken without it, a unit alone is no value."""
    assert fixture_line(LABELED, line) == row
    n = normalized(LABELED)
    assert [c.value_text for c in claims_at(n, LABELED, line, "interconnect")] == interconnect
    assert [c.value_number for c in claims_at(n, LABELED, line, "network_bandwidth_mbps")] == bandwidth
    assert [(d.code, d.message) for d in n.diagnostics if d.line == line] == said


# --------------------------------------------------------------------- series membership


@pytest.mark.parametrize(
    ("line", "written", "entity", "series"),
    [
        (7, "| ND6 ", "Standard_ND6", "ND"),
        # A v2 size cannot be of the first ND series, whatever heading a page lists it under.
        (8, r"| ND40rs\_v2 ", "Standard_ND40rs_v2", None),
    ],
)
def test_a_size_gets_the_series_of_its_page_only_when_its_name_can_belong_to_it(
    line: int, written: str, entity: str, series: str | None
) -> None:
    assert fixture_line(THIRD_PARTY, 1) == "# Azure ND-Series: GPU Virtual Machines"
    assert fixture_line(THIRD_PARTY, line).startswith(written)
    n = normalized(THIRD_PARTY)
    assert [c.value_text for c in claims_at(n, THIRD_PARTY, line, "series")] == ([series] if series else [])
    assert claims_at(n, THIRD_PARTY, line, "vcpus") != []


def test_a_page_whose_sizes_cannot_be_of_the_series_its_title_claims_is_reported_at_its_title() -> None:
    # ACD/gpu-accelerated/nvcadbA10M5+serbes.md: titled NVcadbA10_M5+, its table lists NVadsA10_v5 sizes.
    assert fixture_line(GARBLED, 2) == "title: NVcadbA10_M5+ size series"
    n = normalized(GARBLED)
    assert [(d.severity, d.code, d.document, d.line) for d in n.diagnostics] == [
        ("warning", "page-not-what-it-claims", f"{FOLDER}/{GARBLED}", 2)
    ]
    assert n.diagnostics[0].message.startswith(
        "the page's title names series 'NVcadbA10_M5+', but none of the 6 size(s) its tables list can belong to it "
        "by the naming convention (Standard_NV12ads_A10_v5, Standard_NV18ads_A10_v5, "
    )
    # Its rows still count for the sizes they name; none of them is put in the claimed series.
    assert {c.attribute for c in n.claims} == {"vcpus", "memory_gib"}
    assert one_claim(GARBLED, 29, "vcpus").entity == "Standard_NV6ads_A10_v5"


def test_a_page_whose_sizes_belong_to_its_series_is_not_reported() -> None:
    assert [d for d in normalized(NVV3).diagnostics if d.code == "page-not-what-it-claims"] == []


# ----------------------------------------------------------- comparison tables and headers


def test_comparison_table_rows_are_mentions_and_state_no_values_but_their_series() -> None:
    """ACD/lifecycle/retirement/n-series-migration.md:50-53, 63-65 and 96-99: the other columns of a
    comparison table describe the target sizes, so each row's sizes are mentions, with no value
    but the series the heading above places them in (`### NC-Series VMs featuring NVIDIA K80 GPUs`)."""
    n = normalized(MIGRATION)
    placed = [(c.line, c.entity, c.attribute, c.value, c.method) for c in n.claims if c.table_index is not None]
    assert placed == [
        (25, "Standard_NC6", "series", "NC", "mention"),
        (25, "Standard_NC6_Promo", "series", "NC", "mention"),
        (26, "Standard_NC12", "series", "NC", "mention"),
        (26, "Standard_NC12_Promo", "series", "NC", "mention"),
        (34, "Standard_NC6s_v2", "series", "NC v2", "mention"),
        (45, "Standard_NP10s", "series", "NP", "mention"),
        (46, "Standard_NP20s", "series", "NP", "mention"),
    ]
    assert [(m.line, m.written, m.size, m.table) for m in n.mentions] == [
        (25, "Standard_NC6", "Standard_NC6", "comparison"),
        (25, "Standard_NC6_Promo", "Standard_NC6_Promo", "comparison"),
        (26, "Standard_NC12", "Standard_NC12", "comparison"),
        (26, "Standard_NC12_Promo", "Standard_NC12_Promo", "comparison"),
        (34, "Standard_NC6s_v2", "Standard_NC6s_v2", "comparison"),
        (45, "Standard_NP10s", "Standard_NP10s", "comparison"),
        (46, "Standard_NP20s", "Standard_NP20s", "comparison"),
    ]


@pytest.mark.parametrize(
    ("name", "line", "column", "attribute", "value"),
    [
        (FSV2, 15, "vCPU's", "vcpus", 2.0),
        (H100, 14, "Temp storage (SSD) Gib", "temp_storage_gib", 1000.0),
        (H100, 14, "Memory:GiB", "memory_gib", 1900.0),
        (A10, 14, "GPU partition", "gpu_count", pytest.approx(1 / 6)),
        (A10, 14, "Max NICs / Expected network bandwidth (MBps)", "max_nics", 2.0),
    ],
)
def test_header_spellings_are_read_as_their_attribute(
    name: str, line: int, column: str, attribute: str, value: object
) -> None:
    claim = one_claim(name, line, attribute, column)
    assert (claim.entity_kind, claim.method, claim.value_number) == ("size", "table", value)


@pytest.mark.parametrize(
    "column",
    [
        "Max cached and temp storage throughput: IOPS/MBps (cache size in GiB)",
        "Max burst uncached disk throughput: IOPS/MBps",
    ],
)
def test_a_column_no_header_rule_maps_is_not_read(column: str) -> None:
    n = normalized(FSV2)
    assert [c for c in n.claims if c.column == column] == []
    assert {c.column for c in n.claims if c.line == 15} >= {"vCPU's", "Memory: GiB", "Max NICs"}


# ------------------------------------------------------------------------ the memo


def edited(name: str, old: str, new: str) -> Extraction:
    text = (FIXTURES / name).read_text(encoding="utf-8")
    assert old in text
    doc, _ = parse_bytes(f"{FOLDER}/{name}", text.replace(old, new, 1).encode("utf-8"))
    assert doc is not None
    return extract(doc)


def memo_run(tmp_path: Path, extractions: list[Extraction]) -> tuple[Normalized, tuple[int, int]]:
    memo = Cache(tmp_path).memo("normalize", "test")
    result = run_normalize(extractions, knowledge.load(), split=False, memo=memo).whole()
    memo.save()
    return result, (memo.hits, memo.misses)


def test_unchanged_documents_keep_their_claims_from_the_memo(tmp_path: Path) -> None:
    names = (LEARN, THIRD_PARTY, A100)
    assert memo_run(tmp_path, [extraction(n) for n in names])[1] == (0, 3)
    again, counts = memo_run(tmp_path, [extraction(n) for n in names])
    assert counts == (3, 0)
    assert again == normalized(*names)


def test_the_claims_the_memo_gives_are_unpickled_only_when_asked_for(tmp_path: Path) -> None:
    """A build that takes its tables from the output it replaces reads only what normalize gave
    besides the claims (`Normalizing.head`): the memo keeps a shard's claims in a pickle of
    their own, unpickled when a document's claims are first read."""
    names = (LEARN, THIRD_PARTY, A100)
    memo_run(tmp_path, [extraction(n) for n in names])
    memo = Cache(tmp_path).memo("normalize", "test")
    normalizing = run_normalize([extraction(n) for n in names], knowledge.load(), split=False, memo=memo)
    bags = [part.packed.bag for part in normalizing.parts.values() if isinstance(part.packed, _InBag)]
    assert len(bags) == 3 and not any(bag.loaded for bag in bags)
    whole = normalized(*names)
    assert normalizing.head == replace(whole, claims=())
    assert normalizing.whole() == whole
    assert all(bag.loaded for bag in bags)


def test_an_edited_document_is_the_only_one_normalized_again(tmp_path: Path) -> None:
    memo_run(tmp_path, [extraction(LEARN), extraction(THIRD_PARTY)])
    changed = [edited(LEARN, "| Standard_ND128isr_GB300_v6 | 112 |", "| Standard_ND128isr_GB300_v6 | 113 |")]
    again, counts = memo_run(tmp_path, [*changed, extraction(THIRD_PARTY)])
    assert counts == (1, 1)
    assert again == normalize([*changed, extraction(THIRD_PARTY)])
    assert {c.value for c in claims_at(again, LEARN, 11, "memory_gib")} == {"113"}


def test_a_new_series_spelling_normalizes_every_document_again(tmp_path: Path) -> None:
    """The series index is shared by every document: when it changes, so may any claim."""
    memo_run(tmp_path, [extraction(LEARN), extraction(THIRD_PARTY)])
    again, counts = memo_run(tmp_path, [extraction(n) for n in (LEARN, THIRD_PARTY, V620)])
    assert counts == (0, 3)
    assert again == normalized(LEARN, THIRD_PARTY, V620)


def test_the_runner_keys_a_documents_claims_by_its_parse_key_when_it_has_one(tmp_path: Path) -> None:
    """A document's parse key (its bytes, path, limits and the code) determines its extraction,
    so the memo need not pickle the extraction to know it: a new key normalizes it again."""
    exs = [extraction(LEARN), extraction(THIRD_PARTY)]
    paths = [ex.document.path for ex in exs]

    def run(content: dict[str, str]) -> tuple[int, int]:
        memo = Cache(tmp_path).memo("normalize", "test")
        got = run_normalize(exs, knowledge.load(), split=False, memo=memo, content=content).whole()
        assert got == normalized(LEARN, THIRD_PARTY)
        memo.save()
        return memo.hits, memo.misses

    assert run({paths[0]: "bytes-1", paths[1]: "bytes-2"}) == (0, 2)
    assert run({paths[0]: "bytes-1", paths[1]: "bytes-2"}) == (2, 0)
    assert run({paths[0]: "bytes-1", paths[1]: "bytes-2, edited"}) == (1, 1)


def test_the_runner_keeps_a_digest_of_what_each_document_states_about_each_entity(tmp_path: Path) -> None:
    """A bucket of decisions reads a document by what it states about the bucket's entities
    (`_bucket_keys`): an edit of one size's value changes that size's digest alone, and a
    line that states nothing changes none, though the document is normalized again."""
    page = "nvv3-series.md"  # three sizes, rows at file lines 30-32
    path = f"{FOLDER}/{page}"

    def digests(ex: Extraction) -> tuple[Mapping[str, str], tuple[int, int]]:
        memo = Cache(tmp_path).memo("normalize", "test")
        stated: dict[str, Mapping[str, str]] = {}
        run_normalize([ex], knowledge.load(), split=False, memo=memo, stated=stated)
        memo.save()
        return stated[path], (memo.hits, memo.misses)

    before, counts = digests(extraction(page))
    assert counts == (0, 1)
    size = "Standard_NV24s_v3"
    assert {size, "Standard_NV12s_v3", "Standard_NV48s_v3"} <= set(before)
    assert digests(extraction(page)) == (before, (1, 0)), "kept in the memo beside the claims"
    value = edited(page, "| Standard_NV24s_v3 | 2 | 16 |", "| Standard_NV24s_v3 | 2 | 17 |")
    after, counts = digests(value)
    assert counts == (0, 1)
    assert {e for e in before if after[e] != before[e]} == {size}
    text = (FIXTURES / page).read_text(encoding="utf-8")
    appended, counts = digests(edited(page, text, text + "\nEdited.\n"))
    assert counts == (0, 1) and appended == before


def test_without_a_memo_the_runner_states_no_digests() -> None:
    stated: dict[str, Mapping[str, str]] = {}
    run_normalize([extraction(LEARN)], knowledge.load(), split=False, memo=None, stated=stated)
    assert stated == {}


def test_each_document_adds_its_series_and_models_to_the_shared_context() -> None:
    """What a document adds to the context reads that document alone, so it is made where the
    document is parsed and kept with the parse; the context joined from those parts is the one
    read from the documents."""
    from pipeline.stages.normalize import Contribution, context, contribution

    know = knowledge.load()
    # gpu-cells.md: the official ND A100 v4-series page, one row of Standard_ND96asr_v4 with "8 A100 40 GB GPUs".
    assert contribution(extraction(A100), know) == Contribution(
        official=True,
        keys=("nda100v4",),
        spellings=(("nda100v4", "ND A100 v4"),),
        sized=(("standard_nd96asr_v4", "nda100v4"),),
        models=(("nda100v4", "A100"),),
    )
    third = contribution(extraction(THIRD_PARTY), know)
    assert (third.official, third.spellings, third.sized, third.models) == (
        False,
        (("ndv1", "ND"),),
        (),
        (("ndv1", "V100"),),
    )
    extractions = [extraction(name) for name in (LEARN, A100, THIRD_PARTY)]
    made = {ex.document.path: contribution(ex, know) for ex in extractions}
    ctx = context(extractions, know, made)
    assert ctx.series.names == {"ndgb300v6": "ND_GB300_v6", "nda100v4": "ND A100 v4", "ndv1": "ND"}
    assert ctx.series.sized == ("ND A100 v4", "ND_GB300_v6")  # the series official pages list sizes under
    assert ctx.models == {"nda100v4": ["A100"], "ndv1": ["V100"]}
    assert ctx.fingerprint() == context(extractions, know).fingerprint()


@pytest.mark.parametrize(
    ("attribute", "column", "claim_id"),
    [
        ("series", None, "3ad6e590bfa72a68"),  # no column: the page's series, for the row's size
        ("scaleout_bandwidth_mbps", "Max Scale-Out Bandwidth (Gbps)", "aa0bfc905e65c1ec"),
        ("memory_gib", "Memory (GB)", "8ebb573c5d094775"),
        ("temp_storage_gib", "Temp Disk Size (TB)", "6b8aa9481723d0a4"),
    ],
)
def test_a_claims_id_is_the_one_earlier_code_made(attribute: str, column: str | None, claim_id: str) -> None:
    """`| Standard_ND128isr_GB300_v6 | 112 | 16 | 4x800 |` (learn-sizes.md, line 11): the ids the
    code gave these claims before their id was written out by field (SHA-1 of the place and the
    value). Analysts hold the ids of the published tables: a claim that does not change keeps it."""
    [claim] = [c for c in claims_at(normalized(LEARN), LEARN, 11, attribute) if c.column == column]
    assert (claim.entity, claim.claim_id) == (GB300, claim_id)
