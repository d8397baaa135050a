"""The normalize stage: statements become typed claims about one entity and one attribute.

Each case names a cell or line of a small page under `tests/fixtures/extract/` (shown
beside it as written) and the claim it must become: the entity, the attribute, the value
in the attribute's canonical unit, and how the stage read it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.cache import Cache
from pipeline.extract import extract
from pipeline.normalize import Normalized, normalize
from pipeline.read import parse_bytes
from pipeline.records import Claim, Diagnostic, Extraction, Mention

FIXTURES = Path(__file__).parent / "fixtures" / "extract"
FOLDER = "articles/virtual-machines"

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


@pytest.mark.parametrize(
    "names",
    [
        pytest.param(("ndasra100v4.md",), id="one-page-alone"),
        pytest.param((A100, "ndasra100v4-blog.md"), id="second-page-not-official"),
    ],
)
def test_series_are_not_merged_without_official_evidence(names: tuple[str, ...]) -> None:
    n = normalized(*names)
    assert n.series.canonical("NDasrA100_v4") == "NDasrA100_v4"
    assert n.series.canonical("ND A100 v4") == "ND A100 v4"


# ------------------------------------------------------------------------ the memo


def edited(name: str, old: str, new: str) -> Extraction:
    text = (FIXTURES / name).read_text(encoding="utf-8")
    assert old in text
    doc, _ = parse_bytes(f"{FOLDER}/{name}", text.replace(old, new, 1).encode("utf-8"))
    assert doc is not None
    return extract(doc)


def memo_run(tmp_path: Path, extractions: list[Extraction]) -> tuple[Normalized, tuple[int, int]]:
    memo = Cache(tmp_path).memo("normalize", "test")
    result = normalize(extractions, memo=memo)
    memo.save()
    return result, (memo.hits, memo.misses)


def test_unchanged_documents_keep_their_claims_from_the_memo(tmp_path: Path) -> None:
    names = (LEARN, THIRD_PARTY, A100)
    assert memo_run(tmp_path, [extraction(n) for n in names])[1] == (0, 3)
    again, counts = memo_run(tmp_path, [extraction(n) for n in names])
    assert counts == (3, 0)
    assert again == normalized(*names)


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
