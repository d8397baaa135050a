"""The extract stage: what a document states, as written, and the file line it stands on.

Each case puts the markdown beside the statement it must become. Larger inputs are the
small pages under `tests/fixtures/extract/`; every line number asserted here is a line
number of that file, front-matter included (1-based).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline import knowledge
from pipeline.knowledge.labels import header_unit, normalize_label
from pipeline.records import Diagnostic, Document, Extraction, Include, Statement
from pipeline.stages.extract import extract, resolve_include
from pipeline.stages.read import parse_bytes

FIXTURES = Path(__file__).parent / "fixtures" / "extract"
FOLDER = "articles/virtual-machines"


def load(name: str) -> Document:
    """A fixture page as the read stage gives it, at `articles/virtual-machines/<name>`."""
    doc, _ = parse_bytes(f"{FOLDER}/{name}", (FIXTURES / name).read_bytes())
    assert doc is not None
    return doc


def extract_fixture(name: str) -> Extraction:
    return extract(load(name))


def extract_text(text: str, path: str = "page.md") -> Extraction:
    doc, _ = parse_bytes(path, text.encode("utf-8"))
    assert doc is not None
    return extract(doc)


def fixture_line(name: str, line: int) -> str:
    """Line `line` (1-based) of a fixture file, to show the input beside each case."""
    return (FIXTURES / name).read_text(encoding="utf-8").split("\n")[line - 1]


def of_method(ex: Extraction, method: str) -> list[Statement]:
    return [s for s in ex.statements if s.method == method]


# ------------------------------------------------------------------------ size tables

SIZE_TABLE = "size-table.md"
SIZE_DOC = f"{FOLDER}/{SIZE_TABLE}"
UNCACHED = "Max uncached disk throughput: IOPS / MBps"


def table_statement(
    line: int, section: str, table: int, row: int, subject: str, key: str, raw: str, parts: tuple[str, ...]
) -> Statement:
    return Statement(
        document=SIZE_DOC,
        line=line,
        section=section,
        method="table",
        key=key,
        raw_text=raw,
        parts=parts,
        subject=subject,
        context="NDv2",
        table_index=table,
        row_index=row,
        column=key,
        subject_as_written=subject.replace("_", "\\_") if line == 13 else subject,  # line 13 escapes its `_`
    )


SIZES = "Updated NDv2-series > Sizes"
ACCELERATORS = "Updated NDv2-series > Accelerators"

# | ND40rs\_v2        | 40 | 672 | 8 V100 32 GB<br>NVLink | 80000 / 800 |   (line 13)
# | Standard_ND40s_v2 | 40 |     | 8 V100 16 GB           | 80000 / 800 |   (line 14)
# | Standard_ND40rs_v2 | 32 |                                               (line 20, second table)
SIZE_TABLE_STATEMENTS = [
    table_statement(13, SIZES, 1, 1, "ND40rs_v2", "vCPU", "40", ("40",)),
    table_statement(13, SIZES, 1, 1, "ND40rs_v2", "Memory: GiB", "672", ("672",)),
    table_statement(13, SIZES, 1, 1, "ND40rs_v2", "GPU", "8 V100 32 GB NVLink", ("8 V100 32 GB", "NVLink")),
    table_statement(13, SIZES, 1, 1, "ND40rs_v2", UNCACHED, "80000 / 800", ("80000 / 800",)),
    table_statement(14, SIZES, 1, 2, "Standard_ND40s_v2", "vCPU", "40", ("40",)),
    table_statement(14, SIZES, 1, 2, "Standard_ND40s_v2", "GPU", "8 V100 16 GB", ("8 V100 16 GB",)),
    table_statement(14, SIZES, 1, 2, "Standard_ND40s_v2", UNCACHED, "80000 / 800", ("80000 / 800",)),
    table_statement(20, ACCELERATORS, 2, 1, "Standard_ND40rs_v2", "GPU Memory: GiB", "32", ("32",)),
]


@pytest.mark.parametrize("expected", SIZE_TABLE_STATEMENTS, ids=lambda s: f"line{s.line}-{s.key}")
def test_size_table_cell_becomes_one_statement(expected: Statement) -> None:
    found = [
        s
        for s in extract_fixture(SIZE_TABLE).statements
        if s.method == "table" and s.line == expected.line and s.key == expected.key
    ]
    assert found == [expected]


def test_size_table_has_one_statement_per_non_empty_cell() -> None:
    # Row 2 leaves its Memory cell empty: no statement stands for it.
    assert of_method(extract_fixture(SIZE_TABLE), "table") == SIZE_TABLE_STATEMENTS


@pytest.mark.parametrize(
    ("line", "written", "subject"),
    [
        (13, r"| ND40rs\_v2 | 40 |", "ND40rs_v2"),
        (14, "| Standard_ND40s_v2 | 40 |", "Standard_ND40s_v2"),
    ],
)
def test_size_cell_arrives_unescaped(line: int, written: str, subject: str) -> None:
    assert fixture_line(SIZE_TABLE, line).startswith(written)
    subjects = {s.subject for s in extract_fixture(SIZE_TABLE).statements if s.line == line}
    assert subjects == {subject}
    # and as written, for drift and for names read as another name (pipeline.stages.aliases)
    as_written = {s.subject_as_written for s in extract_fixture(SIZE_TABLE).statements if s.line == line}
    assert as_written == {written.split(" | ")[0].removeprefix("| ")}


def test_sup_footnote_is_dropped_from_header() -> None:
    assert "vCPU<sup>1</sup>" in fixture_line(SIZE_TABLE, 11)
    keys = [(s.key, s.column) for s in extract_fixture(SIZE_TABLE).statements if s.line == 13]
    assert keys[0] == ("vCPU", "vCPU")


def test_br_splits_cell_into_parts() -> None:
    assert "8 V100 32 GB<br>NVLink" in fixture_line(SIZE_TABLE, 13)
    (gpu,) = [s for s in extract_fixture(SIZE_TABLE).statements if s.line == 13 and s.key == "GPU"]
    assert gpu.parts == ("8 V100 32 GB", "NVLink")
    assert gpu.raw_text == "8 V100 32 GB NVLink"


def test_table_without_size_column_is_reported_at_its_header_line() -> None:
    ex = extract_text("# NDv2-series\n\n| Region | Price |\n|---|---|\n| East US | 1 |\n")
    assert of_method(ex, "table") == []
    assert ex.diagnostics == (
        Diagnostic(
            "info",
            "table-not-recognised",
            "page.md",
            3,
            "table 1 has no size column (headers: Region, Price); skipped",
        ),
    )


# ------------------------------------------------------------------ comparison tables

# Real pages cite the Learn page they were copied from as path:line under sources/azure-docs/, where
# ACD = azure-compute-docs/articles/virtual-machines/sizes and AD = azure-docs/articles/virtual-machines.

MIGRATION = "n-series-migration.md"  # ACD/lifecycle/retirement/n-series-migration.md, in parts


@pytest.mark.parametrize(
    ("line", "written", "names"),
    [
        # ACD/lifecycle/retirement/n-series-migration.md:52, a row the page writes without its leading pipe
        (
            25,
            "Standard_NC6 <br> Standard_NC6_Promo | Standard_NC4as_T4_v3 <br>or<br>Standard_NC8as_T4 | CPU: Intel",
            ("Standard_NC6", "Standard_NC6_Promo"),
        ),
        # ACD/lifecycle/retirement/n-series-migration.md:53
        (
            26,
            "| Standard_NC12<br>Standard_NC12_Promo | Standard_NC16as_T4_v3 | CPU: Intel Haswell vs AMD Rome<br>",
            ("Standard_NC12", "Standard_NC12_Promo"),
        ),
        # ACD/lifecycle/retirement/n-series-migration.md:65
        (
            34,
            "| Standard_NC6s_v2 | Standard_NC24ads_A100_v4 | CPU: Intel Broadwell vs AMD Milan <br>",
            ("Standard_NC6s_v2",),
        ),
        # ACD/lifecycle/retirement/n-series-migration.md:98, whose values beside the name are the target's
        (45, "| Standard_NP10s | Standard_NC4as_T4_v3 | NVIDIA T4 | 1 | Turing | 4 | 28 |", ("Standard_NP10s",)),
        # ACD/lifecycle/retirement/n-series-migration.md:99
        (
            46,
            "| Standard_NP20s | Standard_NC16as_T4_v3<br>or Standard_ND40rs_v2 (training) | NVIDIA T4 or V100 |",
            ("Standard_NP20s",),
        ),
    ],
)
def test_comparison_table_row_is_only_a_mention_of_its_own_sizes(
    line: int, written: str, names: tuple[str, ...]
) -> None:
    assert fixture_line(MIGRATION, line).startswith(written)
    found = [s for s in extract_fixture(MIGRATION).statements if s.line == line]
    assert [(s.method, s.key, s.column, s.parts, s.subject) for s in found] == [
        ("mention", "Current VM Size", "Current VM Size", names, " ".join(names))
    ]


def test_comparison_tables_state_no_values_and_report_no_column() -> None:
    # "Difference in Specification", "GPU Generation" and the rest describe the target size.
    assert fixture_line(MIGRATION, 23).startswith("| Current VM Size | Target VM Size | Difference in Specification |")
    assert fixture_line(MIGRATION, 43).startswith(
        "| Current VM Size | Target VM Size | GPU | GPU Count | GPU Generation |"
    )
    ex = extract_fixture(MIGRATION)
    assert [s for s in ex.statements if s.table_index is not None and s.method != "mention"] == []
    assert ex.diagnostics == ()


@pytest.mark.parametrize(
    "target",
    [
        "Target VM Size",  # ACD/lifecycle/retirement/n-series-migration.md:50
        "Recommended SKU to Migrate to",  # ACD/gpu-accelerated/nvv3-series-retirement.md:25
        "Recommended SKU",
        "Target Size",
        "Migrate to",
    ],
)
def test_a_column_naming_other_sizes_makes_the_table_a_comparison(target: str) -> None:
    # ACD/gpu-accelerated/nvv3-series.md:34 (12 vCPUs); the target is the series the NVv3 retirement
    # page recommends (ACD/gpu-accelerated/nvv3-series-retirement.md:21).
    ex = extract_text(
        f"# NVv3-series\n\n| Size | {target} | vCPU |\n|---|---|---|\n| Standard_NV12s_v3 | NVadsA10_v5 | 12 |\n"
    )
    assert [(s.line, s.method, s.raw_text) for s in ex.statements] == [(5, "mention", "Standard_NV12s_v3")]
    assert ex.diagnostics == ()


def test_without_a_column_naming_other_sizes_the_same_row_states_values() -> None:
    ex = extract_text("# NVv3-series\n\n| Size | vCPU |\n|---|---|\n| Standard_NV12s_v3 | 12 |\n")
    assert [(s.line, s.method, s.key, s.raw_text) for s in ex.statements] == [(5, "table", "vCPU", "12")]


# ------------------------------------------------------------------- size-table headers

FSV2 = "fsv2-series.md"  # articles/virtual-machines/fsv2-series.md of MicrosoftDocs/azure-docs
H100 = "nd-h100-v5-series.md"  # AD/nd-h100-v5-series.md
A10 = "nva10v5-series.md"  # AD/nva10v5-series.md


@pytest.mark.parametrize(
    ("written", "column"),
    [
        (
            "| Max cached and temp storage throughput: IOPS/MBps (cache size in GiB) |",
            "Max cached and temp storage throughput: IOPS/MBps (cache size in GiB)",
        ),
        (
            "|  Max burst uncached disk throughput: IOPS/MBps<sup>1</sup> |",
            "Max burst uncached disk throughput: IOPS/MBps",
        ),
    ],
)
def test_a_column_no_header_rule_maps_is_one_warning_at_the_header_line(written: str, column: str) -> None:
    # The header is line 13; the table has two rows, and the column is still reported once.
    assert written in fixture_line(FSV2, 13)
    ex = extract_fixture(FSV2)
    found = [d for d in ex.diagnostics if f"{column!r}" in d.message]
    assert found == [
        Diagnostic(
            "warning",
            "unknown_header",
            f"{FOLDER}/{FSV2}",
            13,
            f"table 1 column {column!r} names no known attribute, so its values are not read; add a synonym "
            "to headers.toml",
        )
    ]


def test_only_the_unmapped_columns_are_reported() -> None:
    assert [(d.code, d.line) for d in extract_fixture(FSV2).diagnostics] == [("unknown_header", 13)] * 2


@pytest.mark.parametrize(
    ("header", "reported"),
    [
        ("Notes", False),
        ("Note", False),
        ("Comments", False),
        ("Remarks", False),
        ("Description", False),
        ("Details", False),
        ("Rack position", True),
    ],
)
def test_free_text_columns_are_known_and_not_reported(header: str, reported: bool) -> None:
    # AD/nvv3-series.md:27 and the footnote of AD/nvv3-series.md:32 ("1 GPU = one-half M60 card.") in a column.
    ex = extract_text(
        f"# NVv3-series\n\n| Size | vCPU | {header} |\n|---|---|---|\n"
        "| Standard_NV12s_v3 |12 | 1 GPU = one-half M60 card. |\n"
    )
    assert [d.code for d in ex.diagnostics] == (["unknown_header"] if reported else [])


@pytest.mark.parametrize(
    ("name", "line", "header", "attributes"),
    [
        (FSV2, 13, "vCPU's", ("vcpus",)),
        (H100, 12, "Temp storage (SSD) Gib", ("temp_storage_gib",)),
        (H100, 12, "Memory:GiB", ("memory_gib",)),
        (A10, 12, "Max NICs / Expected network bandwidth (MBps)", ("max_nics", "network_bandwidth_mbps")),
        (A10, 12, "GPU partition", ("gpu_count",)),
    ],
)
def test_header_spelling_maps_to_attributes(name: str, line: int, header: str, attributes: tuple[str, ...]) -> None:
    assert f"| {header} " in fixture_line(name, line)
    rule = knowledge.load().column_rule(normalize_label(header))
    assert rule is not None and rule.attributes == attributes
    ex = extract_fixture(name)
    assert header in {s.key for s in of_method(ex, "table")}
    assert [d for d in ex.diagnostics if f"{header!r}" in d.message] == []


# ------------------------------------------------------------- Part | Quantity | Specs

PART_TABLE = "nv-specs.md"


@pytest.mark.parametrize(
    ("line", "row", "key", "column", "raw", "parts"),
    [
        # | Processor | 6 - 24 vCPUs | Intel Xeon E5-2690 v4 |
        (10, 1, "Processor", "Quantity", "6 - 24 vCPUs", ("6 - 24 vCPUs",)),
        (10, 1, "Processor", "Specs", "Intel Xeon E5-2690 v4", ("Intel Xeon E5-2690 v4",)),
        # | Accelerators | 1 - 4 GPUs | Nvidia Tesla P40 GPU (24GB) |
        (11, 2, "Accelerators", "Quantity", "1 - 4 GPUs", ("1 - 4 GPUs",)),
        (11, 2, "Accelerators", "Specs", "Nvidia Tesla P40 GPU (24GB)", ("Nvidia Tesla P40 GPU (24GB)",)),
        # | Remote Storage | 12 - 32 Disks | 20,000 - 80,000 IOPS <br> 200 - 800 MBps |
        (12, 3, "Remote Storage", "Quantity", "12 - 32 Disks", ("12 - 32 Disks",)),
        (
            12,
            3,
            "Remote Storage",
            "Specs",
            "20,000 - 80,000 IOPS 200 - 800 MBps",
            ("20,000 - 80,000 IOPS", "200 - 800 MBps"),
        ),
    ],
)
def test_part_table_row(line: int, row: int, key: str, column: str, raw: str, parts: tuple[str, ...]) -> None:
    assert fixture_line(PART_TABLE, line).startswith(f"| {key} |")
    found = [s for s in of_method(extract_fixture(PART_TABLE), "part_table") if s.line == line and s.column == column]
    assert found == [
        Statement(
            document=f"{FOLDER}/{PART_TABLE}",
            line=line,
            section="NV-series",
            method="part_table",
            key=key,
            raw_text=raw,
            parts=parts,
            subject=None,
            context="NV",
            table_index=1,
            row_index=row,
            column=column,
        )
    ]


def test_part_table_yields_only_part_statements() -> None:
    ex = extract_fixture(PART_TABLE)
    assert {s.method for s in ex.statements} == {"part_table"}
    assert len(ex.statements) == 6


# ------------------------------------------------------------------- feature tables

FEATURE_TABLE = "feature-table.md"


@pytest.mark.parametrize(
    ("line", "row", "key", "raw"),
    [
        (7, 1, "Premium Storage", "Supported"),
        (8, 2, "Live Migration", "Not Supported"),
    ],
)
def test_feature_table_row(line: int, row: int, key: str, raw: str) -> None:
    assert fixture_line(FEATURE_TABLE, line).startswith(f"|[{key}](")
    found = [s for s in of_method(extract_fixture(FEATURE_TABLE), "feature_table") if s.line == line]
    assert found == [
        Statement(
            document=f"{FOLDER}/{FEATURE_TABLE}",
            line=line,
            section="NGads_V620 sizes series > Feature support",
            method="feature_table",
            key=key,
            raw_text=raw,
            parts=(raw,),
            subject=None,
            context="NGads_V620",
            table_index=1,
            row_index=row,
            column="Support status",
        )
    ]


def test_feature_table_has_one_statement_per_row() -> None:
    assert len(extract_fixture(FEATURE_TABLE).statements) == 2


# --------------------------------------------------------------------- key: value lines

FEATURE_LIST = "feature-list.md"


@pytest.mark.parametrize(
    ("line", "written", "key", "value"),
    [
        (
            3,
            "[Premium Storage](premium-storage-performance.md): Supported<br>",
            "Premium Storage",
            "Supported",
        ),
        (
            4,
            "[Live Migration](maintenance-and-updates.md): Not Supported<br>",
            "Live Migration",
            "Not Supported",
        ),
        (
            5,
            "[VM Generation Support](generation-2.md): Generation 1 and 2<br>",
            "VM Generation Support",
            "Generation 1 and 2",
        ),
        (7, "Ultra Disks: Not Supported", "Ultra Disks", "Not Supported"),
        (8, "Nested Virtualization: Not Supported", "Nested Virtualization", "Not Supported"),
        (10, "- **Accelerated Networking**: Supported", "Accelerated Networking", "Supported"),
        (
            11,
            "- [Ephemeral OS Disk](../../ephemeral-os-disks.md): Supported",
            "Ephemeral OS Disk",
            "Supported",
        ),
    ],
)
def test_key_value_line(line: int, written: str, key: str, value: str) -> None:
    assert fixture_line(FEATURE_LIST, line) == written
    found = [s for s in of_method(extract_fixture(FEATURE_LIST), "key_value") if s.line == line]
    assert found == [
        Statement(
            document=f"{FOLDER}/{FEATURE_LIST}",
            line=line,
            section="NDv2-series",
            method="key_value",
            key=key,
            raw_text=value,
            parts=(value,),
            context="NDv2",
        )
    ]


def test_key_value_lines_one_per_line() -> None:
    assert [s.line for s in of_method(extract_fixture(FEATURE_LIST), "key_value")] == [3, 4, 5, 7, 8, 10, 11]


@pytest.mark.parametrize(
    ("line", "method", "text"),
    [
        (3, "paragraph", "Premium Storage: Supported"),
        (10, "bullet", "Accelerated Networking: Supported"),
    ],
)
def test_key_value_line_is_also_kept_as_running_text(line: int, method: str, text: str) -> None:
    found = [s for s in extract_fixture(FEATURE_LIST).statements if s.line == line and s.method == method]
    assert [(s.key, s.raw_text) for s in found] == [("", text)]


def test_value_with_commas_is_split_into_parts() -> None:
    ex = extract_text("# NDv2-series\n\nInfiniBand: Supported, GPUDirect RDMA, 8 x 200 Gigabit HDR\n")
    (kv,) = of_method(ex, "key_value")
    assert (kv.line, kv.key, kv.raw_text) == (
        3,
        "InfiniBand",
        "Supported, GPUDirect RDMA, 8 x 200 Gigabit HDR",
    )
    assert kv.parts == ("Supported", "GPUDirect RDMA", "8 x 200 Gigabit HDR")


# ---------------------------------------------------------------------------- notes

NOTE = "note.md"


@pytest.mark.parametrize(
    ("line", "text"),
    [
        (4, "Due to increased GPU memory, the ND40rs_v2 VM requires Generation 2 VMs."),
        (6, "The ND40s_v2 featuring 16 GB of per-GPU memory is no longer available."),
    ],
)
def test_docfx_note_line(line: int, text: str) -> None:
    assert fixture_line(NOTE, 3) == "> [!IMPORTANT]"
    assert fixture_line(NOTE, line) == f"> {text}"
    found = [s for s in extract_fixture(NOTE).statements if s.line == line]
    assert found == [
        Statement(
            document=f"{FOLDER}/{NOTE}",
            line=line,
            section="NDv2-series",
            method="note",
            key="IMPORTANT",
            raw_text=text,
            parts=(text,),
            context="NDv2",
        )
    ]


def test_docfx_note_marker_is_no_statement() -> None:
    ex = extract_fixture(NOTE)
    assert [s.line for s in ex.statements] == [4, 6]
    assert not any("[!IMPORTANT]" in s.raw_text for s in ex.statements)


def test_plain_quote_is_a_note_without_kind() -> None:
    ex = extract_text("# NDv2-series\n\n> Availability varies by region.\n")
    assert [(s.line, s.method, s.key, s.raw_text) for s in ex.statements] == [
        (3, "note", "", "Availability varies by region.")
    ]


# ---------------------------------------------------------------- headings and context


@pytest.mark.parametrize(
    ("text", "context"),
    [
        ("---\ntitle: NDv2-series\n---\n\n# GPU optimized sizes\n\nInfiniBand: Supported\n", "NDv2"),
        (
            "---\ntitle: NDasrA100_v4 size series\n---\n\n# Overview\n\nInfiniBand: Supported\n",
            "NDasrA100_v4",
        ),
        ("# Updated NDv2-series\n\nInfiniBand: Supported\n", "NDv2"),
        ("# ND A100 v4-series\n\nInfiniBand: Supported\n", "ND A100 v4"),
        ("---\ntitle: ND family size series\n---\n\n# ND family\n\nInfiniBand: Supported\n", None),
    ],
    ids=["title", "title-size-series", "h1", "h1-spaced", "family-page"],
)
def test_page_context_comes_from_title_or_h1(text: str, context: str | None) -> None:
    ex = extract_text(text)
    (kv,) = of_method(ex, "key_value")
    assert kv.context == context
    assert ex.subject == context


FAMILY = "family.md"
H1 = "'ND' sub-family GPU accelerated virtual machine size series"


@pytest.mark.parametrize(
    ("line", "written", "section", "context"),
    [
        (8, "Live Migration: Not Supported", H1, None),
        (14, "InfiniBand: Supported", f"{H1} > Series in family > NDv2-series", "NDv2"),
        (
            18,
            "Nested Virtualization: Not Supported",
            f"{H1} > Series in family > NDv2-series > Feature support",
            "NDv2",
        ),
        (
            22,
            "InfiniBand: Supported, GPUDirect RDMA",
            f"{H1} > Series in family > ND_A100_v4-series",
            "ND_A100_v4",
        ),
        (
            23,
            "VM Generation Support: Generation 2",
            f"{H1} > Series in family > ND_A100_v4-series",
            "ND_A100_v4",
        ),
        (27, "Ultra Disks: Not Supported", f"{H1} > Other sizes", None),
    ],
)
def test_heading_sets_section_and_context(line: int, written: str, section: str, context: str | None) -> None:
    assert fixture_line(FAMILY, line) == written
    ex = extract_fixture(FAMILY)
    assert ex.subject is None
    (kv,) = [s for s in of_method(ex, "key_value") if s.line == line]
    assert (kv.section, kv.context) == (section, context)


# ----------------------------------------------------------------------------- includes

INCLUDES = "includes.md"
INCLUDES_DOC = f"{FOLDER}/{INCLUDES}"


@pytest.mark.parametrize(
    ("line", "target", "resolved"),
    [
        (3, "./includes/ndv2-summary.md", "articles/virtual-machines/includes/ndv2-summary.md"),
        (5, "../../includes/table-defs.md", "includes/table-defs.md"),
        (7, "../../../etc/passwd", None),
        (9, "/etc/passwd", None),
        (11, "https://example.com/a.md", None),
    ],
)
def test_include_directive(line: int, target: str, resolved: str | None) -> None:
    assert f"]({target})]" in fixture_line(INCLUDES, line)
    found = [i for i in extract_fixture(INCLUDES).includes if i.line == line]
    assert found == [Include(document=INCLUDES_DOC, line=line, target=target, resolved=resolved, context="NDv2")]


def test_refused_includes_are_warnings_on_their_lines() -> None:
    diags = extract_fixture(INCLUDES).diagnostics
    assert [(d.severity, d.code, d.document, d.line) for d in diags] == [
        ("warning", "include-outside-sources", INCLUDES_DOC, 7),
        ("warning", "include-outside-sources", INCLUDES_DOC, 9),
        ("warning", "include-outside-sources", INCLUDES_DOC, 11),
    ]


def test_include_line_is_not_also_a_paragraph() -> None:
    assert extract_fixture(INCLUDES).statements == ()


@pytest.mark.parametrize(
    ("document", "target", "resolved"),
    [
        ("a/b.md", "./includes/c.md", "a/includes/c.md"),
        ("a/b.md", "includes/c.md#section", "a/includes/c.md"),
        ("a/b/c.md", "../d.md", "a/d.md"),
        ("a/b.md", "../x.md", "x.md"),
        ("a/b.md", "../../x.md", None),
        ("a/b.md", "../../../etc/passwd", None),
        ("a/b.md", "/etc/passwd", None),
        ("a/b.md", "\\\\server\\share\\x.md", None),
        ("a/b.md", "https://example.com/a.md", None),
        ("a/b.md", "file:///etc/passwd", None),
        ("a/b.md", "C:/x.md", None),
        ("a/b.md", "", None),
    ],
)
def test_resolve_include(document: str, target: str, resolved: str | None) -> None:
    got, problem = resolve_include(document, target)
    assert got == resolved
    assert (problem is None) == (resolved is not None)


# ---------------------------------------------------------------------------- labels


@pytest.mark.parametrize(
    ("label", "normalized"),
    [
        ("Memory: GiB", "memory"),
        ("vCPUs (Qty.)", "vcpus"),
        ("vCPU<sup>1</sup>", "vcpu"),
        ("Max uncached disk throughput: IOPS / MBps", "max uncached disk throughput"),
        ("Uncached Disk IOPS", "uncached disk iops"),
        ("Temp Storage (SSD): GiB", "temp storage ssd"),
        ("Memory (GB)", "memory"),
        ("Temp Disk Size (TB)", "temp disk size"),
        ("Max Scale-Out Bandwidth (Gbps)", "max scale out bandwidth"),
        ("Accelerator-Memory (GB)", "accelerator memory"),
        ("Max NICs / Max network bandwidth (Mbps)", "max nics max network bandwidth"),
        ("vCPU's", "vcpus"),
        ("Temp storage (SSD) Gib", "temp storage ssd"),
        ("Max NICs / Expected network bandwidth (MBps)", "max nics expected network bandwidth"),
        ("Max burst uncached disk throughput: IOPS/MBps<sup>1</sup>", "max burst uncached disk throughput"),
    ],
)
def test_normalize_label(label: str, normalized: str) -> None:
    assert normalize_label(label) == normalized


@pytest.mark.parametrize(
    ("label", "units"),
    [
        ("Max uncached disk throughput: IOPS / MBps", ["IOPS", "MBps"]),
        ("Max NICs / Max network bandwidth (Mbps)", [None, "Mbps"]),
        ("Memory: GiB", ["GiB"]),
        ("Temp Disk Size (TB)", ["TB"]),
        ("Max Scale-Out Bandwidth (Gbps)", ["Gbps"]),
        ("Max network bandwidth", [None]),
    ],
)
def test_header_unit(label: str, units: list[str | None]) -> None:
    assert header_unit(label) == tuple(units)
