"""The whole documented Azure GPU catalog, checked by hand against the pages of sources/.

Every expected value below was read by a person from the page itself (`cat -n`), never copied
from pipeline output; the comment beside it quotes the line (file line numbers, 1-based,
front-matter counted). Units, as in tests/test_expected_values.py:

- memory written in GB is binary: "440 GB" of RAM is 440 GiB, and so is a GPU's "80 GB";
- Microsoft Learn storage GB (and TB) are GiB (and TiB), as the pages' table definitions say;
- network bandwidth is in Mbps ("160 Gbps" is 160000);
- `gpu_memory_gib` is the memory of one physical GPU, `gpu_memory_total_gib` what the VM gets;
  `gpu_count` counts GPUs, a fraction for a partial GPU (1/6 of an A10).

Series are spelled as the pipeline names them (the names tests/test_reconcile.py uses).
"""

from __future__ import annotations

import datetime as dt
import numbers
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from pipeline.records import BuildResult, Claim, Conflict, Fact
from pipeline.runner import compute
from pipeline.stages.reconcile import NAME_CONVENTION, SIBLING

SOURCES = Path(__file__).parent.parent / "sources"
FIXTURES = Path(__file__).parent / "fixtures" / "gpu-catalog"

GPU = "azure-docs/azure-compute-docs/articles/virtual-machines/sizes/gpu-accelerated"
INC = f"{GPU}/includes"
LIFE = "azure-docs/azure-compute-docs/articles/virtual-machines/sizes/lifecycle/retirement"
OLD = "azure-docs/azure-docs/articles/virtual-machines"
MIGRATION = f"{LIFE}/n-series-migration.md"
GARBLED = f"{GPU}/nvcadbA10M5+serbes.md"

# The pages: the Microsoft Learn pages and the seeds (sources/ may hold other kinds of source).
PAGES = ("azure-docs/", "seeds/")

# Methods by which the build infers a value no page states for the size itself.
INFERRED = {NAME_CONVENTION, SIBLING}

Value = float | str


@pytest.fixture(scope="module")
def build() -> tuple[BuildResult, dict[str, Any]]:
    return compute(SOURCES)


@pytest.fixture(scope="module")
def result(build: tuple[BuildResult, dict[str, Any]]) -> BuildResult:
    return build[0]


@pytest.fixture(scope="module")
def sizes(build: tuple[BuildResult, dict[str, Any]]) -> pd.DataFrame:
    frame: pd.DataFrame = build[1]["vm_sizes"]
    return frame.set_index("size")


@pytest.fixture(scope="module")
def claims_by_id(result: BuildResult) -> dict[str, Claim]:
    return {c.claim_id: c for c in result.claims}


def fact(result: BuildResult, entity: str, attribute: str) -> Fact | None:
    found = [f for f in result.facts if f.entity == entity and f.attribute == attribute]
    assert len(found) <= 1, f"{entity}.{attribute}: {len(found)} facts"
    return found[0] if found else None


def conflicts(result: BuildResult, entity: str, attribute: str) -> list[Conflict]:
    return [c for c in result.conflicts if c.entity == entity and c.attribute == attribute]


def matches(expected: Value, actual: object) -> bool:
    if actual is None or actual is pd.NA or (isinstance(actual, float) and pd.isna(actual)):
        return False
    if isinstance(expected, str):
        return actual == expected
    return isinstance(actual, numbers.Real) and actual == pytest.approx(expected)


# ------------------------------------------------------------------ every size is present

# Every size a size table of sources/ names (tables whose first column is "Size", "Size Name"
# or "Instance Type"), by the series its page is about.
# fmt: off
TABLE_SIZES: dict[str, list[str]] = {
    "NC": ["NC6", "NC12", "NC24", "NC24r"],  # azure-docs nc-series.md:22-25
    "NC v2": ["NC6s_v2", "NC12s_v2", "NC24s_v2", "NC24rs_v2"],  # azure-docs ncv2-series.md:31-34
    "NCv3": ["NC6s_v3", "NC12s_v3", "NC24s_v3", "NC24rs_v3"],  # gpu-accelerated/ncv3-series.md:35-38
    "NCasT4_v3": ["NC4as_T4_v3", "NC8as_T4_v3", "NC16as_T4_v3", "NC64as_T4_v3"],  # ncast4v3-series.md:31-34
    "NC_A100_v4": ["NC24ads_A100_v4", "NC48ads_A100_v4", "NC96ads_A100_v4"],  # nca100v4-series.md:35-37
    "NCads_H100_v5": ["NC40ads_H100_v5", "NC80adis_H100_v5"],  # ncadsh100v5-series.md:41-42
    "NCCads_H100_v5": ["NCC40ads_H100_v5"],  # nccadsh100v5-series.md:41
    # nc-rtxpro6000bsev6-series.md:44-73 (2025-10-21) and nc-rtxpro6000-bse-v6-series.md:33-35, 124-126
    "NC_RTXPRO6000BSE_v6": [
        f"NC{n}{kind}_xl_RTXPRO6000BSE_v6"
        for n, kinds in [(16, ["lds"]), (32, ["ds", "lds", "mds"]), (64, ["ds", "lds", "mds"]),
                         (128, ["ds", "lds", "mds"]), (256, ["ds", "lds"]), (320, ["ds", "lds"])]
        for kind in kinds
    ],
    "ND": ["ND6s", "ND12s", "ND24s", "ND24rs"],  # gpu-accelerated/nd-series.md:35-38
    "NDv2": ["ND40rs_v2"],  # ndv2-series.md:41
    "ND A100 v4": ["ND96asr_v4"],  # ndasra100v4-series.md:31
    "NDm_A100_v4": ["ND96amsr_A100_v4"],  # ndma100v4-series.md:41
    "ND H100 v5": ["ND96isr_H100_v5"],  # ndh100v5-series.md:52
    "ND H200 v5": ["ND96isr_H200_v5"],  # nd-h200-v5-series.md:36
    "ND MI300X v5": ["ND96isr_MI300X_v5"],  # ndmi300xv5-series.md:31
    "ND GB200 v6": ["ND128isr_NDR_GB200_v6"],  # nd-gb200-v6-series.md:31
    "ND GB300 v6": ["ND128isr_GB300_v6", "ND128isrG5_GB300_v6"],  # nd-gb300-v6-series.md:31-32
    "NGads V620": ["NG8ads_V620_v1", "NG16ads_V620_v1", "NG32ads_V620_v1", "NG32adms_V620_v1"],  # ngadsv620:31-34
    "NV": ["NV6", "NV12", "NV24"],  # gpu-accelerated/nv-series.md:35-37
    "NVv3": ["NV12s_v3", "NV24s_v3", "NV48s_v3"],  # nvv3-series.md:34-36
    "NVv4": ["NV4as_v4", "NV8as_v4", "NV16as_v4", "NV32as_v4"],  # nvv4-series.md:34-37
    "NVadsA10_v5": [
        "NV6ads_A10_v5", "NV12ads_A10_v5", "NV18ads_A10_v5", "NV36ads_A10_v5", "NV36adms_A10_v5", "NV72ads_A10_v5",
    ],  # nvadsa10v5-series.md:31-36
    "NVads V710 v5": [
        "NV4ads_V710_v5", "NV8ads_V710_v5", "NV12ads_V710_v5", "NV24ads_V710_v5", "NV28adms_V710_v5",
    ],  # nvadsv710-v5-series.md:41-45
}
# fmt: on

# Sizes no size table lists, which running text names with something to say about them.
NAMED_IN_TEXT: dict[str, tuple[str, str]] = {
    # azure-docs ndv2-series.md:27: "> Please note: The ND40s_v2 featuring 16 GB of per-GPU memory is no
    # longer available for preview and has been superceded by the updated ND40rs_v2."
    "ND40s_v2": ("NDv2", "the NDv2 page's note"),
    # n-series-migration.md:84: "> NP-series sizes (Standard_NP10s, Standard_NP20s, Standard_NP40s) are
    # scheduled for **retirement on May 31, 2027**."
    "NP10s": ("NP", "the migration guide's NP note"),
    "NP20s": ("NP", "the migration guide's NP note"),
    "NP40s": ("NP", "the migration guide's NP note"),
    # nvv3-series-retirement.md:19: "On September 30, 2026, Microsoft Azure will retire the Standard_NV12s_v3,
    # Standard_NV12hs_v3, Standard_NV24s_v3, Standard_NV24ms_v3, Standard_NV32ms_v3, and Standard_NV48s_v3"
    "NV12hs_v3": ("NVv3", "the NVv3 retirement page"),
    "NV24ms_v3": ("NVv3", "the NVv3 retirement page"),
    "NV32ms_v3": ("NVv3", "the NVv3 retirement page"),
    # nvv4-retirement.md:22: "... will retire the Standard_NV4as_v4, Standard_NV4ahs_v4, Standard_NV8as_v4,
    # Standard_NV8ahs_v4, Standard_NV16as_v4, Standard_NV16ahs_v4, Standard_NV32as_v4, and Standard_NV32ahs_v4"
    "NV4ahs_v4": ("NVv4", "the NVv4 retirement page"),
    "NV8ahs_v4": ("NVv4", "the NVv4 retirement page"),
    "NV16ahs_v4": ("NVv4", "the NVv4 retirement page"),
    "NV32ahs_v4": ("NVv4", "the NVv4 retirement page"),
}

# Sizes only a comparison table names: n-series-migration.md:52-55 "Standard_NC6 <br> Standard_NC6_Promo"
# under "### NC-Series VMs featuring NVIDIA K80 GPUs" (line 39).
NAMED_IN_LISTS: dict[str, tuple[str, str]] = {
    name: ("NC", "the migration guide's comparison table")
    for name in ("NC6_Promo", "NC12_Promo", "NC24_Promo", "NC24r_Promo")
}

# Names that stand for another size, which the size tables (and the migration guide's table) write:
# the third-party seeds' short names (seeds/thirdparty-azure-nd-series.txt:55-57,
# seeds/thirdparty-azure-ng-series.txt:47-49), the older ND H100 v5 page's name without the GPU
# (azure-docs nd-h100-v5-series.md:51), and the migration guide's ND rows (n-series-migration.md:76-79).
NAMES: dict[str, str] = {
    "ND6": "ND6s",
    "ND12": "ND12s",
    "ND24": "ND24s",
    "NG8": "NG8ads_V620_v1",
    "NG16": "NG16ads_V620_v1",
    "NG32": "NG32ads_V620_v1",
    "ND96isr_v5": "ND96isr_H100_v5",
    "ND24r": "ND24rs",
}
IN_TABLES_AS_NAMES = ["ND6", "ND12", "ND24", "NG8", "NG16", "NG32", "ND96isr_v5"]

# The NP sizes carry FPGAs, not GPUs: n-series-migration.md:88 "The NP-series VMs are powered by
# AMD Xilinx Alveo U250 FPGAs".
NOT_GPU = {"Standard_NP10s", "Standard_NP20s", "Standard_NP40s"}

OFFICIAL_TABLE = {f"Standard_{n}": series for series, names in TABLE_SIZES.items() for n in names}
IN_TEXT = {f"Standard_{n}": series for n, (series, _where) in NAMED_IN_TEXT.items()}
IN_LISTS = {f"Standard_{n}": series for n, (series, _where) in NAMED_IN_LISTS.items()}
EVERY_SIZE = {*OFFICIAL_TABLE, *IN_TEXT, *IN_LISTS}

SUBJECT_HEADERS = {"size", "size name", "instance type"}


def _cells(line: str) -> list[str]:
    text = line.strip()
    text = text.removeprefix("|").removesuffix("|")
    return [c.strip() for c in text.split("|")]


def _header(cell: str) -> str:
    """A header cell as claims name their column: footnote marks dropped, spaces folded."""
    return " ".join(re.sub(r"<sup>.*?</sup>", " ", cell).split())


def size_tables() -> Iterator[tuple[str, int, list[str], list[tuple[int, list[str]]]]]:
    """Every size table of sources/: (document, header line, header cells, [(line, cells)])."""
    for path in sorted(SOURCES.rglob("*")):
        if path.suffix not in {".md", ".txt"}:
            continue
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        i = 0
        while i < len(lines) - 1:
            head = _cells(lines[i]) if lines[i].lstrip().startswith("|") else []
            if head and head[0].casefold() in SUBJECT_HEADERS and re.match(r"\s*\|?\s*:?-{3}", lines[i + 1]):
                j = i + 2
                rows = []
                while j < len(lines) and lines[j].lstrip().startswith("|"):
                    rows.append((j + 1, _cells(lines[j])))
                    j += 1
                yield path.relative_to(SOURCES).as_posix(), i + 1, head, rows
                i = j
            else:
                i += 1


def canonical(written: str) -> str:
    name = written.replace("\\_", "_").rstrip("*").strip()
    return name if name.startswith("Standard_") else f"Standard_{name}"


def test_the_hand_list_is_every_size_a_size_table_names() -> None:
    named = {canonical(cells[0]) for _doc, _line, _head, rows in size_tables() for _ln, cells in rows if cells[0]}
    assert named == {*OFFICIAL_TABLE, *(f"Standard_{n}" for n in IN_TABLES_AS_NAMES)}


def test_every_name_a_size_table_writes_is_a_row_of_vm_sizes_or_of_names(
    result: BuildResult, sizes: pd.DataFrame
) -> None:
    named = {canonical(cells[0]) for _doc, _line, _head, rows in size_tables() for _ln, cells in rows if cells[0]}
    means = {a.name: a.size for a in result.names}
    assert means == {f"Standard_{n}": f"Standard_{size}" for n, size in NAMES.items()}
    assert {means.get(name, name) for name in named} <= set(sizes.index)
    assert not set(means) & set(sizes.index)


def test_the_sizes_the_pages_name_are_exactly_the_hand_list_and_all_in_vm_sizes(
    result: BuildResult, sizes: pd.DataFrame
) -> None:
    assert len(EVERY_SIZE) == 89
    named = {c.entity for c in result.claims if c.entity_kind == "size" and c.document.startswith(PAGES)}
    assert named == EVERY_SIZE
    assert EVERY_SIZE - set(sizes.index) == set()


@pytest.mark.parametrize(("size", "series"), sorted({**OFFICIAL_TABLE, **IN_TEXT, **IN_LISTS}.items()))
def test_each_official_size_is_in_its_series(sizes: pd.DataFrame, size: str, series: str) -> None:
    assert sizes.at[size, "series"] == series


def test_at_least_80_sizes_have_gpus_and_every_one_names_its_model(sizes: pd.DataFrame) -> None:
    gpu_sizes = EVERY_SIZE - NOT_GPU
    assert len(gpu_sizes) == 86
    models = sizes.loc[sorted(gpu_sizes), "gpu_model"]
    assert list(models[models.isna()].index) == []
    assert sizes.loc[sorted(NOT_GPU), "gpu_model"].isna().all()


# ------------------------------------------------------------------------- GPU counts

_OLD_RTX = (
    "listed only by the older nc-rtxpro6000bsev6-series.md (2025-10-21), which has no accelerator table "
    "(its host table, line 32, says '1 - 4' GPUs for the whole series); the newer page lists only "
    "the 128, 256 and 320 ds and lds sizes"
)
_NVV3_NOTE = "named only in the retirement sentence nvv3-series-retirement.md:19"
_NVV4_NOTE = "named only in the retirement sentence nvv4-retirement.md:22"
_PROMO = "named only in the migration guide's comparison table n-series-migration.md:52-55; the API catalogs count it"

# GPU sizes whose GPU count no page of sources/ states, and why.
COUNT_NOT_STATED: dict[str, str] = {
    "Standard_NC16lds_xl_RTXPRO6000BSE_v6": _OLD_RTX,
    "Standard_NC32ds_xl_RTXPRO6000BSE_v6": _OLD_RTX,
    "Standard_NC32lds_xl_RTXPRO6000BSE_v6": _OLD_RTX,
    "Standard_NC32mds_xl_RTXPRO6000BSE_v6": _OLD_RTX,
    "Standard_NC64ds_xl_RTXPRO6000BSE_v6": _OLD_RTX,
    "Standard_NC64lds_xl_RTXPRO6000BSE_v6": _OLD_RTX,
    "Standard_NC64mds_xl_RTXPRO6000BSE_v6": _OLD_RTX,
    "Standard_NC128mds_xl_RTXPRO6000BSE_v6": _OLD_RTX,
    "Standard_NV12hs_v3": _NVV3_NOTE,
    "Standard_NV24ms_v3": _NVV3_NOTE,
    "Standard_NV32ms_v3": _NVV3_NOTE,
    "Standard_NV4ahs_v4": _NVV4_NOTE,
    "Standard_NV8ahs_v4": _NVV4_NOTE,
    "Standard_NV16ahs_v4": _NVV4_NOTE,
    "Standard_NV32ahs_v4": _NVV4_NOTE,
    "Standard_NC6_Promo": _PROMO,
    "Standard_NC12_Promo": _PROMO,
    "Standard_NC24_Promo": _PROMO,
    "Standard_NC24r_Promo": _PROMO,
}


def stated_by_a_page(result: BuildResult, attribute: str) -> set[str]:
    """Sizes a page states `attribute` for, itself or as one value for its whole series (the name
    and sibling sizes are not pages; a range such as "1 - 4 GPUs" is no size's value)."""
    stated = [
        c
        for c in result.claims
        if c.attribute == attribute and c.method not in INFERRED and c.document.startswith(PAGES)
    ]
    series = {c.entity for c in stated if c.entity_kind == "series" and not c.is_range}
    in_series = {size for size, name in {**OFFICIAL_TABLE, **IN_TEXT, **IN_LISTS}.items() if name in series}
    return {c.entity for c in stated if c.entity_kind == "size"} | in_series


def test_the_sizes_without_a_stated_gpu_count_are_exactly_the_listed_ones(result: BuildResult) -> None:
    unstated = (EVERY_SIZE - NOT_GPU) - stated_by_a_page(result, "gpu_count")
    assert unstated == set(COUNT_NOT_STATED)


def test_every_gpu_size_whose_count_a_page_states_has_it(sizes: pd.DataFrame) -> None:
    stated = sorted(EVERY_SIZE - NOT_GPU - set(COUNT_NOT_STATED))
    assert len(stated) == 67
    counts = sizes.loc[stated, "gpu_count"]
    assert counts.notna().all(), list(counts[counts.isna()].index)
    assert (counts > 0).all()


@pytest.mark.parametrize("size", sorted(COUNT_NOT_STATED))
def test_a_count_no_page_states_is_absent_or_a_low_confidence_inference(
    result: BuildResult, claims_by_id: dict[str, Claim], size: str
) -> None:
    f = fact(result, size, "gpu_count")
    if f is None:
        return
    behind = [claims_by_id[i] for i in f.supporting]
    assert not [c for c in behind if c.entity == size and c.document.startswith(PAGES) and c.method not in INFERRED]
    if all(c.method in INFERRED for c in behind):
        # An inference is as sure as its rule proved where pages state both sizes' counts (a
        # sibling's GPU count agreed in every such pair here, and the pages' GPU counts agree
        # with the API more often than their average attribute), and never as sure as a page:
        # below any GPU count a Microsoft Learn page states alone.
        assert f.evidence is not None and f.evidence.rule_of in INFERRED, f.reason
        page = min(
            x.confidence
            for x in result.facts
            if x.attribute == "gpu_count" and x.basis == "stated" and x.document.startswith("azure-docs/")
        )
        assert 0.5 < f.confidence < page, f.reason


def test_gpu_count_times_memory_per_gpu_is_the_total(sizes: pd.DataFrame) -> None:
    full = sizes[["gpu_count", "gpu_memory_gib", "gpu_memory_total_gib"]].dropna()
    assert len(full) >= 65
    # The NDv2 note (azure-docs ndv2-series.md:27) gives ND40s_v2 "16 GB of per-GPU memory" and no
    # total: a total is never taken from a sibling (ND40rs_v2's 8 x 32 GiB), whose memory differs.
    nd40s = sizes.loc["Standard_ND40s_v2"]
    assert nd40s["gpu_memory_gib"] == 16 and pd.isna(nd40s["gpu_memory_total_gib"])
    for size, row in full.iterrows():
        product = row["gpu_count"] * row["gpu_memory_gib"]
        # 8 x 192 GiB MI300X is printed as 1535 GB (ndmi300xv5-series.md:100): within 1%.
        assert row["gpu_memory_total_gib"] == pytest.approx(product, rel=0.01), size


# ------------------------------------------------------------------ retirement and lifecycle

# The newest ms.date of sources/: nd-gb300-v6-series.md:8 "ms.date: 08/12/2026". (The garbled
# page's "ms.date: 16/03/2026" is no date; day-first it would be 2026-03-16, older anyway.)
NEWEST = dt.date(2026, 8, 12)

NVV4_IN_TEXT = ["NV4ahs_v4", "NV8ahs_v4", "NV16ahs_v4", "NV32ahs_v4"]

# (series, date, lifecycle, sizes): the date each series retires on, as its newest page says.
RETIREMENTS: list[tuple[str, dt.date, str, list[str]]] = [
    # n-series-migration.md:18 (2023-02-27) "The first group of GPU products to be retired in Azure are the
    # original NC, NC v2 and ND-series VMs ... These products will be retired on August 31st 2023"
    ("NC", dt.date(2023, 8, 31), "retired", [*TABLE_SIZES["NC"], *NAMED_IN_LISTS]),
    ("NC v2", dt.date(2023, 8, 31), "retired", TABLE_SIZES["NC v2"]),
    # gpu-accelerated/nd-series.md:17 (2024-07-31) "The ND-series has retired as of September 6th, 2023";
    # nd-series-retirement.md:16 "we're retiring our ND GPU VM sizes, powered by NVIDIA Tesla P40 GPUs on
    # 6 September 2023". The migration guide's August 31st 2023 (line 18) is older: it loses.
    ("ND", dt.date(2023, 9, 6), "retired", TABLE_SIZES["ND"]),
    # gpu-accelerated/ncv3-series.md:17 "The NCv3-series will be retired on September 30, 2025."
    ("NCv3", dt.date(2025, 9, 30), "retired", TABLE_SIZES["NCv3"]),
    # gpu-accelerated/nv-series.md:17 (2024-07-31) "The NV-series is retired as of September 6th, 2023";
    # includes/nv-series-summary.md:16 "will be retired on September 6, 2023". The 2022 azure-docs
    # nv-series.md:18 "will be retired on August 31st, 2023" loses.
    ("NV", dt.date(2023, 9, 6), "retired", TABLE_SIZES["NV"]),
    # nvv3-series-retirement.md:19 "On September 30, 2026, Microsoft Azure will retire the Standard_NV12s_v3,
    # ..."; nvv3-series.md:17, nv-family.md:37, includes/nv-series-summary.md:18 agree.
    ("NVv3", dt.date(2026, 9, 30), "retiring", [*TABLE_SIZES["NVv3"], "NV12hs_v3", "NV24ms_v3", "NV32ms_v3"]),
    # nvv4-retirement.md:22 "On September 30, 2026, Microsoft Azure will retire the Standard_NV4as_v4, ...";
    # nvv4-series.md:17, nv-family.md:49, includes/nv-series-summary.md:18 agree.
    ("NVv4", dt.date(2026, 9, 30), "retiring", [*TABLE_SIZES["NVv4"], *NVV4_IN_TEXT]),
    # n-series-migration.md:84 "NP-series sizes (Standard_NP10s, Standard_NP20s, Standard_NP40s) are
    # scheduled for **retirement on May 31, 2027**."
    ("NP", dt.date(2027, 5, 31), "retiring", ["NP10s", "NP20s", "NP40s"]),
]

SERIES_RETIREMENTS = [pytest.param(series, date, lifecycle, id=series) for series, date, lifecycle, _ in RETIREMENTS]
SIZE_RETIREMENTS = [
    pytest.param(f"Standard_{size}", date, lifecycle, id=size)
    for _series, date, lifecycle, names in RETIREMENTS
    for size in names
]


def ms_dates() -> list[dt.date]:
    found = []
    for path in SOURCES.rglob("*.md"):
        for m in re.finditer(r"^\s*ms\.date:\s*(\d{2})/(\d{2})/(\d{4})\s*$", path.read_text(encoding="utf-8"), re.M):
            month, day, year = (int(g) for g in m.groups())
            if 1 <= month <= 12:
                found.append(dt.date(year, month, day))
    return found


def test_the_newest_document_date_is_the_newest_ms_date(build: tuple[BuildResult, dict[str, Any]]) -> None:
    assert max(ms_dates()) == NEWEST
    documents = build[1]["documents"]
    assert max(d for d in documents["as_of"] if d is not None) == NEWEST


@pytest.mark.parametrize(("series", "date", "lifecycle"), SERIES_RETIREMENTS)
def test_series_retirement_date(result: BuildResult, series: str, date: dt.date, lifecycle: str) -> None:
    assert lifecycle == ("retired" if date < NEWEST else "retiring")
    when, state = fact(result, series, "retirement_date"), fact(result, series, "lifecycle")
    assert when is not None and when.value == date.isoformat()
    assert state is not None and state.value == lifecycle


@pytest.mark.parametrize(("size", "date", "lifecycle"), SIZE_RETIREMENTS)
def test_each_size_carries_its_series_retirement_date(
    sizes: pd.DataFrame, size: str, date: dt.date, lifecycle: str
) -> None:
    when = sizes.at[size, "retirement_date"]
    assert isinstance(when, dt.date) and when == date
    assert sizes.at[size, "lifecycle"] == lifecycle


def test_every_dated_size_is_retired_exactly_when_its_date_has_passed(sizes: pd.DataFrame) -> None:
    dated = sizes[sizes["retirement_date"].notna()]
    assert set(dated.index) & EVERY_SIZE == {f"Standard_{n}" for *_, names in RETIREMENTS for n in names}
    for size, row in dated.iterrows():
        assert row["lifecycle"] == ("retired" if row["retirement_date"] < NEWEST else "retiring"), size


def test_the_only_size_retired_without_a_date_is_nd40s_v2(sizes: pd.DataFrame) -> None:
    # azure-docs ndv2-series.md:27 "The ND40s_v2 ... is no longer available" gives no date.
    undated = sizes[(sizes["lifecycle"] == "retired") & sizes["retirement_date"].isna()]
    assert set(undated.index) & EVERY_SIZE == {"Standard_ND40s_v2"}


# (series, winning date and some of its lines, losing date and exactly its lines)
DISPUTED = [
    pytest.param(
        "ND",
        "2023-09-06",
        {f"{GPU}/nd-series.md:17", f"{LIFE}/nd-series-retirement.md:13", f"{LIFE}/nd-series-retirement.md:16"},
        "2023-08-31",
        (f"{MIGRATION}:18",),
        id="ND",
    ),
    pytest.param(
        "NV",
        "2023-09-06",
        {f"{GPU}/nv-series.md:17", f"{INC}/nv-series-summary.md:16"},
        "2023-08-31",
        (f"{OLD}/nv-series.md:18",),
        id="NV",
    ),
]


@pytest.mark.parametrize(("series", "winner", "winner_lines", "loser", "loser_lines"), DISPUTED)
def test_the_older_retirement_date_is_a_losing_row_in_conflicts(
    result: BuildResult, series: str, winner: str, winner_lines: set[str], loser: str, loser_lines: tuple[str, ...]
) -> None:
    for entity in [series, *(f"Standard_{n}" for n in TABLE_SIZES[series])]:
        rows = {c.value: c for c in conflicts(result, entity, "retirement_date")}
        assert set(rows) == {winner, loser}, entity
        assert rows[winner].won and winner_lines <= set(rows[winner].documents), entity
        assert not rows[loser].won and rows[loser].superseded, entity
        assert rows[loser].documents == loser_lines, entity
        older, newer = rows[loser].newest, rows[winner].newest
        assert older is not None and newer is not None and older < newer, entity


@pytest.mark.parametrize("series", ["NC", "NC v2", "NCv3", "NVv3", "NVv4", "NP"])
def test_where_the_pages_agree_no_retirement_date_loses(result: BuildResult, series: str) -> None:
    assert [c.value for c in conflicts(result, series, "retirement_date") if not c.won] == []


# ------------------------------------------------------------------ reasons and their dates

DATE = r"(\d{4}-\d{2}-\d{2})"
SUPERSEDES = re.compile(r"newer (?:[^()]*)\(" + DATE + r"\) supersedes the older \(" + DATE + r"\)", re.IGNORECASE)
STALE = re.compile(r"newest support \(" + DATE + r"\) is (\d+) days older than (\S+) \(" + DATE + r"\)")
CITED = re.compile(r"\(" + DATE + r"\) (\S+):(\d+)")


def test_a_newer_page_always_prints_a_later_date_than_the_older_one_it_supersedes(result: BuildResult) -> None:
    texts = [f.reason for f in result.facts] + [c.note for c in result.conflicts]
    naming_newer = [t for t in texts if re.search(r"\bnewer\b", t, re.IGNORECASE)]
    assert len(naming_newer) >= 30
    for text in naming_newer:
        found = SUPERSEDES.findall(text)
        assert found, f"names a newer page without the dates: {text}"
        for newer, older in found:
            assert dt.date.fromisoformat(newer) > dt.date.fromisoformat(older), text


def test_each_superseding_reason_prints_the_dates_of_the_winning_and_losing_rows(result: BuildResult) -> None:
    checked = 0
    for f in result.facts:
        for newer, older in SUPERSEDES.findall(f.reason):
            rows = conflicts(result, f.entity, f.attribute)
            assert [c.newest for c in rows if c.won] == [dt.date.fromisoformat(newer)], f.reason
            assert dt.date.fromisoformat(older) in {c.newest for c in rows if not c.won}, f.reason
            checked += 1
    assert checked >= 30


def test_stale_reasons_print_dates_that_are_as_far_apart_as_they_say(result: BuildResult) -> None:
    as_of = {d.path: d.metadata.date for d in result.documents}
    stale = [(f, m) for f in result.facts for m in STALE.finditer(f.reason)]
    assert len(stale) >= 10
    for f, m in stale:
        support, newer = dt.date.fromisoformat(m[1]), dt.date.fromisoformat(m[4])
        assert support < newer and (newer - support).days == int(m[2]), f.reason
        assert as_of[m[3]] == newer, f.reason


def test_every_date_a_reason_prints_beside_a_document_is_that_documents_date(result: BuildResult) -> None:
    as_of = {d.path: d.metadata.date for d in result.documents}
    cited = [(f, m) for f in result.facts for m in CITED.finditer(f.reason)]
    assert len(cited) >= 100
    for f, m in cited:
        assert as_of[m[2]] == dt.date.fromisoformat(m[1]), f.reason


# ------------------------------------------------------------- vCPUs and the naming convention


def test_no_vcpu_count_an_official_table_states_is_below_half_confidence(build: tuple[BuildResult, Any]) -> None:
    result, frames = build
    official = set(frames["documents"].query("kind == 'official_spec'")["document"])
    tables: dict[str, set[float]] = {}
    for c in result.claims:
        if c.attribute == "vcpus" and c.method == "table" and c.document in official and c.value_number is not None:
            tables.setdefault(c.entity, set()).add(c.value_number)
    assert set(tables) == set(OFFICIAL_TABLE)
    for size, values in sorted(tables.items()):
        assert len(values) == 1, f"{size}: official tables disagree: {values}"
        f = fact(result, size, "vcpus")
        assert f is not None and f.value_number in values, size
        assert f.confidence >= 0.5, f"{size}: {f.confidence} {f.reason}"


# ------------------------------------------------------------------ values read by hand

Row = tuple[str, int, str, dict[str, Value]]

NCA100 = f"{GPU}/nca100v4-series.md"
NCH100 = f"{GPU}/ncadsh100v5-series.md"
NCT4 = f"{GPU}/ncast4v3-series.md"
RTX = f"{GPU}/nc-rtxpro6000-bse-v6-series.md"
NC_OLD = f"{OLD}/nc-series.md"
NDH100 = f"{GPU}/ndh100v5-series.md"
NDH200 = f"{GPU}/nd-h200-v5-series.md"
MI300X = f"{GPU}/ndmi300xv5-series.md"
GB200 = f"{GPU}/nd-gb200-v6-series.md"
GB300 = f"{GPU}/nd-gb300-v6-series.md"
NG = f"{GPU}/ngadsv620-series.md"
NV_NEW = f"{GPU}/nv-series.md"
NV_OLD = f"{OLD}/nv-series.md"
A10 = f"{GPU}/nvadsa10v5-series.md"
NVV4 = f"{GPU}/nvv4-series.md"
V710 = f"{GPU}/nvadsv710-v5-series.md"

A100_4 = "Standard_NC48ads_A100_v4"
H100_1 = "Standard_NC40ads_H100_v5"
T4_8 = "Standard_NC8as_T4_v3"
RTX_256 = "Standard_NC256ds_xl_RTXPRO6000BSE_v6"
ND_H100 = "Standard_ND96isr_H100_v5"
ND_H200 = "Standard_ND96isr_H200_v5"
ND_MI300X = "Standard_ND96isr_MI300X_v5"
ND_GB200 = "Standard_ND128isr_NDR_GB200_v6"
ND_GB300 = "Standard_ND128isr_GB300_v6"
NG_8 = "Standard_NG8ads_V620_v1"
A10_6 = "Standard_NV6ads_A10_v5"
V4_4 = "Standard_NV4as_v4"
V710_4 = "Standard_NV4ads_V710_v5"

# One entry per line read: (document, line, size, {attribute: value}). The comment above each
# entry quotes the line. Lines of an include file (the "Host specifications" table or the
# summary) state series values that each size of the series inherits.
# fmt: off
ROWS: list[Row] = [
    # --- NC: azure-docs nc-series.md (2020-02-03), the only table of the NC (K80) sizes ---
    # 14: "NC-series VMs are powered by the [NVIDIA Tesla K80](...) card and the Intel Xeon E5-2690 v3
    #     (Haswell) processor."  27: "1 GPU = one-half K80 card." (a K80 card is 2 GPUs of 12 GB)
    (NC_OLD, 14, "Standard_NC12", {
        "gpu_model": "K80", "cpu_model": "Intel Xeon E5-2690 v3 (Haswell)", "cpu_vendor": "Intel",
    }),
    # 23: | Standard_NC12   | 12 | 112 | 680  | 2 | 24 | 48 | 2 |
    #     (Size | vCPU | Memory: GiB | Temp storage (SSD) GiB | GPU | GPU memory: GiB | Max data disks | Max NICs)
    (NC_OLD, 23, "Standard_NC12", {
        "series": "NC", "vcpus": 12, "memory_gib": 112, "temp_storage_gib": 680, "gpu_count": 2,
        "gpu_memory_total_gib": 24, "gpu_memory_gib": 12, "max_data_disks": 48, "max_nics": 2,
    }),
    # --- NC A100 v4: gpu-accelerated/nca100v4-series.md (2024-07-31) ---
    # 36: | Standard_NC48ads_A100_v4 | 48 | 440 |                       (Size Name | vCPUs | Memory (GB))
    (NCA100, 36, A100_4, {"series": "NC_A100_v4", "vcpus": 48, "memory_gib": 440}),
    # 49: | Standard_NC48ads_A100_v4 | 1 | 128 |                        (Temp Disk Size (GiB) 128)
    (NCA100, 49, A100_4, {"temp_storage_gib": 128}),
    # 70: | Standard_NC48ads_A100_v4 | 16 | 60000 | 2000 |             (Max Remote Storage Disks 16)
    (NCA100, 70, A100_4, {"max_data_disks": 16}),
    # 94: | Standard_NC48ads_A100_v4 | 4 | 40000 |                      (Max NICs | Max Bandwidth (Mbps))
    (NCA100, 94, A100_4, {"max_nics": 4, "network_bandwidth_mbps": 40000}),
    # 113: | Standard_NC48ads_A100_v4 | 2 | 160 |                       (Accelerators | Accelerator-Memory (GB))
    #      160 GB for 2 A100 80GB is the total: 80 per GPU.
    (NCA100, 113, A100_4, {"gpu_count": 2, "gpu_memory_total_gib": 160, "gpu_memory_gib": 80}),
    # includes/nca100v4-series-specs.md
    # 16: | Processor      | 24 - 96 vCPUs       | AMD EPYC 7V13 (Milan) [x86-64]   |
    (f"{INC}/nca100v4-series-specs.md", 16, A100_4, {"cpu_model": "AMD EPYC 7V13 (Milan)", "cpu_vendor": "AMD"}),
    # 21: | Accelerators   | 1 - 4 GPUs              | Nvidia PCIe A100 GPU (80GB)  |
    (f"{INC}/nca100v4-series-specs.md", 21, A100_4, {"gpu_model": "A100"}),
    # --- NC H100: gpu-accelerated/ncadsh100v5-series.md (2024-07-31) ---
    # 41: | Standard_NC40ads_H100_v5 | 40 | 320 |
    (NCH100, 41, H100_1, {"series": "NCads_H100_v5", "vcpus": 40, "memory_gib": 320}),
    # 53: | Standard_NC40ads_H100_v5 | 1 | 3576 |
    (NCH100, 53, H100_1, {"temp_storage_gib": 3576}),
    # 73: | Standard_NC40ads_H100_v5 | 8 | 100000 | 3000 |
    (NCH100, 73, H100_1, {"max_data_disks": 8}),
    # 96: | Standard_NC40ads_H100_v5 | 2 | 40000 |
    (NCH100, 96, H100_1, {"max_nics": 2, "network_bandwidth_mbps": 40000}),
    # 114: | Standard_NC40ads_H100_v5 | 1 | 94 |
    (NCH100, 114, H100_1, {"gpu_count": 1, "gpu_memory_total_gib": 94, "gpu_memory_gib": 94}),
    # includes/ncadsh100v5-series-specs.md
    # 16: | Processor      | 40 - 80 vCPUs       | AMD EPYC (Genoa) [x86-64]   |
    (f"{INC}/ncadsh100v5-series-specs.md", 16, H100_1, {"cpu_model": "AMD EPYC (Genoa)", "cpu_vendor": "AMD"}),
    # 21: | Accelerators   | 1 - 2 GPUs              | Nvidia PCIe H100 GPU (94GB)  |
    (f"{INC}/ncadsh100v5-series-specs.md", 21, H100_1, {"gpu_model": "H100"}),
    # --- NCasT4_v3: gpu-accelerated/ncast4v3-series.md (2024-07-31) ---
    # 32: | Standard_NC8as_T4_v3 | 8 | 56 |
    (NCT4, 32, T4_8, {"series": "NCasT4_v3", "vcpus": 8, "memory_gib": 56}),
    # 46: | Standard_NC8as_T4_v3 | 1 | 352 |   (the 2020 azure-docs nct4-v3-series.md:32 says 360: it loses)
    (NCT4, 46, T4_8, {"temp_storage_gib": 352}),
    # 68: | Standard_NC8as_T4_v3 | 16 |
    (NCT4, 68, T4_8, {"max_data_disks": 16}),
    # 93: | Standard_NC8as_T4_v3 | 4 | 8,000 |
    (NCT4, 93, T4_8, {"max_nics": 4, "network_bandwidth_mbps": 8000}),
    # 113: | Standard_NC8as_T4_v3 | 1 | 16 |
    (NCT4, 113, T4_8, {"gpu_count": 1, "gpu_memory_total_gib": 16, "gpu_memory_gib": 16}),
    # includes/ncast4v3-series-specs.md
    # 16: | Processor      | 4 - 64 vCPUs       | AMD EPYC 7V12 (Rome) [x86-64]  |
    (f"{INC}/ncast4v3-series-specs.md", 16, T4_8, {"cpu_model": "AMD EPYC 7V12 (Rome)", "cpu_vendor": "AMD"}),
    # 21: | Accelerators   | 1 - 4 GPUs              | Nvidia Tesla T4 GPU (16GB)  |
    (f"{INC}/ncast4v3-series-specs.md", 21, T4_8, {"gpu_model": "T4"}),
    # --- NC RTX PRO 6000 BSE v6: gpu-accelerated/nc-rtxpro6000-bse-v6-series.md (2025-12-05) ---
    # 34: | Standard_NC256ds_xl_RTXPRO6000BSE_v6 | 256 | 1024 |
    (RTX, 34, RTX_256, {"series": "NC_RTXPRO6000BSE_v6", "vcpus": 256, "memory_gib": 1024}),
    # 47: | Standard_NC256ds_xl_RTXPRO6000BSE_v6 |  | 2048 |  |  |  |  |   (Temp Disk Size (GiB))
    (RTX, 47, RTX_256, {"temp_storage_gib": 2048}),
    # 68: | Standard_NC256ds_xl_RTXPRO6000BSE_v6 | 16 |  |  |  |  |  |  |  |  |
    (RTX, 68, RTX_256, {"max_data_disks": 16}),
    # 92: | Standard_NC256ds_xl_RTXPRO6000BSE_v6 | 8 | 100000 |          (Max Network Bandwidth (Mb/s))
    (RTX, 92, RTX_256, {"max_nics": 8, "network_bandwidth_mbps": 100000}),
    # 111: | Standard_NC256ds_xl_RTXPRO6000BSE_v6 | 2 | 192 |            (Accelerator Memory (GB))
    (RTX, 111, RTX_256, {"gpu_count": 2, "gpu_memory_total_gib": 192, "gpu_memory_gib": 96}),
    # includes/nc-rtxpro6000-bse-v6-series-specs.md (2025-11-21)
    # 15: | Processor      | 32 - 320 vCPUs       | Intel Xeon Granite Rapids-AP [x86-64]  |
    (f"{INC}/nc-rtxpro6000-bse-v6-series-specs.md", 15, RTX_256, {
        "cpu_model": "Intel Xeon Granite Rapids-AP", "cpu_vendor": "Intel",
    }),
    # 20: | Accelerators   | 0.25 - 2              | Nvidia RTX PRO 6000 Blackwell Server Edition GPU (96GB)|
    #     (the older nc-rtxpro6000bsev6-series.md:32 says "NVIDIA RTX Pro 6000 GPU (48GB GDDR6 ECC)": it loses)
    (f"{INC}/nc-rtxpro6000-bse-v6-series-specs.md", 20, RTX_256, {
        "gpu_model": "RTX PRO 6000 BSE", "gpu_memory_gib": 96,
    }),
    # --- ND H100 v5: gpu-accelerated/ndh100v5-series.md (2025-09-02) ---
    # 52: | Standard_ND96isr_H100_v5 | 96 | 1900 |
    (NDH100, 52, ND_H100, {"series": "ND H100 v5", "vcpus": 96, "memory_gib": 1900}),
    # 63: | Standard_ND96isr_H100_v5 | 1 | 1024 | 8 | 28 |
    (NDH100, 63, ND_H100, {"temp_storage_gib": 1024}),
    # 82: | Standard_ND96isr_H100_v5 | 32 | 40800 | 612 |
    (NDH100, 82, ND_H100, {"max_data_disks": 32}),
    # 104: | Standard_ND96isr_H100_v5 | 8 | 80000 |
    (NDH100, 104, ND_H100, {"max_nics": 8, "network_bandwidth_mbps": 80000}),
    # 121: | Standard_ND96isr_H100_v5 | 8 | 640 |                    (640 GB for 8 H100 80GB: the total)
    (NDH100, 121, ND_H100, {"gpu_count": 8, "gpu_memory_total_gib": 640, "gpu_memory_gib": 80}),
    # includes/ndh100v5-series-specs.md
    # 16: | Processor      |  96 vCPUs     | Intel Xeon (Sapphire Rapids) [x86-64] |
    (f"{INC}/ndh100v5-series-specs.md", 16, ND_H100, {
        "cpu_model": "Intel Xeon (Sapphire Rapids)", "cpu_vendor": "Intel",
    }),
    # 21: | Accelerators   |  8 GPUs            | Nvidia H100 GPU (80GB)    |
    (f"{INC}/ndh100v5-series-specs.md", 21, ND_H100, {"gpu_model": "H100"}),
    # --- ND H200 v5: gpu-accelerated/nd-h200-v5-series.md (2025-09-02) ---
    # 36: | Standard_ND96isr_H200_v5 | 96 | 1850 |
    (NDH200, 36, ND_H200, {"series": "ND H200 v5", "vcpus": 96, "memory_gib": 1850}),
    # 47: | Standard_ND96isr_H200_v5 | 1 | 1024 | 8 | 28 |
    (NDH200, 47, ND_H200, {"temp_storage_gib": 1024}),
    # 66: | Standard_ND96isr_H200_v5 | 16 | 40800 | 612 |
    (NDH200, 66, ND_H200, {"max_data_disks": 16}),
    # 88: | Standard_ND96isr_H200_v5 | 8 | 80000 |
    (NDH200, 88, ND_H200, {"max_nics": 8, "network_bandwidth_mbps": 80000}),
    # 105: | Standard_ND96isr_H200_v5 | 8 | 1128 |                   (1128 = 8 x 141)
    (NDH200, 105, ND_H200, {"gpu_count": 8, "gpu_memory_total_gib": 1128, "gpu_memory_gib": 141}),
    # includes/nd-h200-v5-series-specs.md
    # 16: | Processor      |  96 vCPUs     | Intel Xeon (Sapphire Rapids) [x86-64] |
    (f"{INC}/nd-h200-v5-series-specs.md", 16, ND_H200, {
        "cpu_model": "Intel Xeon (Sapphire Rapids)", "cpu_vendor": "Intel",
    }),
    # 21: | Accelerators   |  8 GPUs            | Nvidia H200 GPU (141GB)    |
    (f"{INC}/nd-h200-v5-series-specs.md", 21, ND_H200, {"gpu_model": "H200"}),
    # --- ND MI300X v5: gpu-accelerated/ndmi300xv5-series.md (2024-08-01) ---
    # 31: | Standard_ND96isr_MI300X_v5 | 96 | 1850 |
    (MI300X, 31, ND_MI300X, {"series": "ND MI300X v5", "vcpus": 96, "memory_gib": 1850}),
    # 42: | Standard_ND96isr_MI300X_v5 | 1 | 1000 | 8 | 28 |
    (MI300X, 42, ND_MI300X, {"temp_storage_gib": 1000}),
    # 61: | Standard_ND96isr_MI300X_v5 | 16 | 80000 | 1200 |
    (MI300X, 61, ND_MI300X, {"max_data_disks": 16}),
    # 83: | Standard_ND96isr_MI300X_v5 | 8 | 80000 |
    (MI300X, 83, ND_MI300X, {"max_nics": 8, "network_bandwidth_mbps": 80000}),
    # 100: | Standard_ND96isr_MI300X_v5 | 8 | 1535 |
    #      1535 GB for 8 MI300X is the total; one MI300X has 192 GB (specs line 21), 1535 / 8 = 191.9.
    (MI300X, 100, ND_MI300X, {"gpu_count": 8, "gpu_memory_total_gib": 1535, "gpu_memory_gib": 192}),
    # includes/ndmi300xv5-series-specs.md
    # 16: | Processor      | 96 vCPUs     | Intel Xeon (Sapphire Rapids) [x86-64] |
    (f"{INC}/ndmi300xv5-series-specs.md", 16, ND_MI300X, {
        "cpu_model": "Intel Xeon (Sapphire Rapids)", "cpu_vendor": "Intel",
    }),
    # 21: | Accelerators   | 8 GPUs            | AMD Instinct MI300X GPU (192GB)    |
    (f"{INC}/ndmi300xv5-series-specs.md", 21, ND_MI300X, {"gpu_model": "MI300X", "gpu_memory_gib": 192}),
    # --- ND GB200 v6: gpu-accelerated/nd-gb200-v6-series.md (2025-03-20) ---
    # 31: | Standard_ND128isr_NDR_GB200_v6 | 128 | 900 |
    (GB200, 31, ND_GB200, {"series": "ND GB200 v6", "vcpus": 128, "memory_gib": 900}),
    # 42: | Standard_ND128isr_NDR_GB200_v6 | 4 | 16 |        (Temp Storage Disks | Temp Disk Size (TB))
    #     16 TB of Learn storage is 16 TiB = 16384 GiB (specs line 18: "4 Disks | 16 TiB (NVMe)").
    (GB200, 42, ND_GB200, {"temp_storage_gib": 16384}),
    # 102: | Standard_ND128isr_NDR_GB200_v6 | 4 | 192 |
    #      192 is per GPU: specs line 21 "Nvidia Blackwell GPU (192 GiB)", 4 x 192 = 768 in total.
    (GB200, 102, ND_GB200, {"gpu_count": 4, "gpu_memory_gib": 192, "gpu_memory_total_gib": 768}),
    # includes/nd-gb200-v6-series-specs.md (2025-03-20)
    # 16: | Processor      | 128 vCPUs       | Nvidia Grace CPU    |
    (f"{INC}/nd-gb200-v6-series-specs.md", 16, ND_GB200, {"cpu_model": "Nvidia Grace", "cpu_vendor": "NVIDIA"}),
    # 19: | Remote Storage | 16 Disks    | 80,000 IOPS <br>1,200 MBps  |
    #     (the size table's line 61 "| Standard_ND128isr_NDR_GB200_v6 | 316 | 80,000 | 1,200 |" is a typo: it loses)
    (f"{INC}/nd-gb200-v6-series-specs.md", 19, ND_GB200, {"max_data_disks": 16}),
    # 20: | Network        | 1 NICs          |  160 Gbps Ethernet   |
    #     (the size table's line 83 "| ... | 1 | 160 | 4 | 400 | 4 | 1.8 |" prints 160 under "(Mbps)": it loses)
    (f"{INC}/nd-gb200-v6-series-specs.md", 20, ND_GB200, {"max_nics": 1, "network_bandwidth_mbps": 160000}),
    # 21: | Accelerators   | 4 GPUs              | Nvidia Blackwell GPU (192 GiB)   |   (the Blackwell of 192 GB: B200)
    (f"{INC}/nd-gb200-v6-series-specs.md", 21, ND_GB200, {"gpu_model": "B200"}),
    # --- ND GB300 v6: gpu-accelerated/nd-gb300-v6-series.md (2026-08-12) ---
    # 31: | Standard_ND128isr_GB300_v6 | 128 | 864 |
    (GB300, 31, ND_GB300, {"series": "ND GB300 v6", "vcpus": 128, "memory_gib": 864}),
    # 43: | Standard_ND128isr_GB300_v6 | 4 | 16 |                 (16 TB = 16 TiB = 16384 GiB)
    (GB300, 43, ND_GB300, {"temp_storage_gib": 16384}),
    # 63: | Standard_ND128isr_GB300_v6 | 16 | 80,000 | 1,200 |
    (GB300, 63, ND_GB300, {"max_data_disks": 16}),
    # 86: | Standard_ND128isr_GB300_v6 | 1 | 160 | 4 | 1.8 | 4 | 4x800 |  (Max Front-end NICs 1)
    (GB300, 86, ND_GB300, {"max_nics": 1}),
    # 106: | Standard_ND128isr_GB300_v6 | 4 | 288 |
    #      288 is per GPU: specs line 22 "Nvidia Blackwell Ultra GPU (288GB)"; summary line 16 "288 GB HBM3E per GPU".
    (GB300, 106, ND_GB300, {"gpu_count": 4, "gpu_memory_gib": 288, "gpu_memory_total_gib": 1152}),
    # includes/nd-gb300-v6-series-specs.md (2025-11-13)
    # 17: | Processor      | 128 vCPUs       | Nvidia Grace CPU    |
    (f"{INC}/nd-gb300-v6-series-specs.md", 17, ND_GB300, {"cpu_model": "Nvidia Grace", "cpu_vendor": "NVIDIA"}),
    # 21: | Network        | 1 NICs          |  160 Gbps Ethernet   |
    (f"{INC}/nd-gb300-v6-series-specs.md", 21, ND_GB300, {"network_bandwidth_mbps": 160000}),
    # 22: | Accelerators   | 4 GPUs              | Nvidia Blackwell Ultra GPU (288GB)   |
    (f"{INC}/nd-gb300-v6-series-specs.md", 22, ND_GB300, {"gpu_model": "B300"}),
    # --- NGads V620: gpu-accelerated/ngadsv620-series.md (2024-07-31) ---
    # 31: | Standard_NG8ads_V620_v1 | 8 | 16 |
    (NG, 31, NG_8, {"series": "NGads V620", "vcpus": 8, "memory_gib": 16}),
    # 45: | Standard_NG8ads_V620_v1  | 1 | 256  | 1  | 960 |
    (NG, 45, NG_8, {"temp_storage_gib": 256}),
    # 67: | Standard_NG8ads_V620_v1 | 8 | 12,800 | 200 |
    (NG, 67, NG_8, {"max_data_disks": 8}),
    # 92: | Standard_NG8ads_V620_v1 | 2 | 10,000 |
    (NG, 92, NG_8, {"max_nics": 2, "network_bandwidth_mbps": 10000}),
    # 112: | Standard_NG8ads_V620_v1 | 1/4 | 8 |          (a quarter of one V620 of 32 GB)
    (NG, 112, NG_8, {"gpu_count": 0.25, "gpu_memory_total_gib": 8, "gpu_memory_gib": 32}),
    # includes/ngadsv620-series-specs.md
    # 16: | Processor      | 8 - 32 vCPUs     | AMD EPYC 7763 (Milan) [x86-64] |
    (f"{INC}/ngadsv620-series-specs.md", 16, NG_8, {"cpu_model": "AMD EPYC 7763 (Milan)", "cpu_vendor": "AMD"}),
    # 21: | Accelerators   | 1/4 - 1 GPUs            | AMD Radeon PRO V620 GPU (32GB)    |
    (f"{INC}/ngadsv620-series-specs.md", 21, NG_8, {"gpu_model": "V620", "gpu_memory_gib": 32}),
    # --- NV: gpu-accelerated/nv-series.md (2024-07-31) counts M60 cards, azure-docs nv-series.md (2022-03-29)
    # counts GPUs ("42: 1 GPU = one-half M60 card."): an M60 card is two GPUs of 8 GB.
    # 35-37: | Standard_NV6 | 6 | 56 |   | Standard_NV12 | 12 | 112 |   | Standard_NV24 | 24 | 224 |
    (NV_NEW, 35, "Standard_NV6", {"series": "NV", "vcpus": 6, "memory_gib": 56}),
    (NV_NEW, 36, "Standard_NV12", {"series": "NV", "vcpus": 12, "memory_gib": 112}),
    (NV_NEW, 37, "Standard_NV24", {"series": "NV", "vcpus": 24, "memory_gib": 224}),
    # 48-50: | Standard_NV6 | 1 | 340 |   | Standard_NV12 | 1 | 680 |   | Standard_NV24 | 1 | 1440 |
    (NV_NEW, 48, "Standard_NV6", {"temp_storage_gib": 340}),
    (NV_NEW, 49, "Standard_NV12", {"temp_storage_gib": 680}),
    (NV_NEW, 50, "Standard_NV24", {"temp_storage_gib": 1440}),
    # 69-71: | Standard_NV6 | 24 |   | Standard_NV12 | 48 |   | Standard_NV24 | 64 |
    (NV_NEW, 69, "Standard_NV6", {"max_data_disks": 24}),
    (NV_NEW, 70, "Standard_NV12", {"max_data_disks": 48}),
    (NV_NEW, 71, "Standard_NV24", {"max_data_disks": 64}),
    # 93-95: | Standard_NV6 | 1 |   | Standard_NV12 | 2 |   | Standard_NV24 | 4 |
    (NV_NEW, 93, "Standard_NV6", {"max_nics": 1}),
    (NV_NEW, 94, "Standard_NV12", {"max_nics": 2}),
    (NV_NEW, 95, "Standard_NV24", {"max_nics": 4}),
    # 112: | Standard_NV6 | 1/2 | 8 |     113: | Standard_NV12 | 1 | 16 |     114: | Standard_NV24 | 2 | 32 |
    #      cards: half a card is 1 GPU, 1 card 2 GPUs, 2 cards 4 GPUs; the memory is the total.
    (NV_NEW, 112, "Standard_NV6", {"gpu_count": 1, "gpu_memory_total_gib": 8, "gpu_memory_gib": 8}),
    (NV_NEW, 113, "Standard_NV12", {"gpu_count": 2, "gpu_memory_total_gib": 16, "gpu_memory_gib": 8}),
    (NV_NEW, 114, "Standard_NV24", {"gpu_count": 4, "gpu_memory_total_gib": 32, "gpu_memory_gib": 8}),
    # azure-docs nv-series.md
    # 38: | Standard_NV6  | 6  | 56  | 340  | 1 | 8  | 24 | 1 | 1 | 25  |
    # 39: | Standard_NV12 | 12 | 112 | 680  | 2 | 16 | 48 | 2 | 2 | 50  |
    # 40: | Standard_NV24 | 24 | 224 | 1440 | 4 | 32 | 64 | 4 | 4 | 100 |
    (NV_OLD, 38, "Standard_NV6", {"gpu_count": 1, "gpu_memory_total_gib": 8}),
    (NV_OLD, 39, "Standard_NV12", {"gpu_count": 2, "gpu_memory_total_gib": 16}),
    (NV_OLD, 40, "Standard_NV24", {"gpu_count": 4, "gpu_memory_total_gib": 32}),
    # includes/nv-series-specs.md
    # 16: | Processor      | 6 - 24 vCPUs     | Intel Xeon E5-2690 v3 (Haswell) [x86-64] |
    (f"{INC}/nv-series-specs.md", 16, "Standard_NV6", {
        "cpu_model": "Intel Xeon E5-2690 v3 (Haswell)", "cpu_vendor": "Intel",
    }),
    # 21: | Accelerators   | 1/2 - 2 GPUs            | Nvidia Tesla M60 GPU (16GB)    |   (16 GB per card)
    (f"{INC}/nv-series-specs.md", 21, "Standard_NV6", {"gpu_model": "M60", "gpu_memory_gib": 8}),
    (f"{INC}/nv-series-specs.md", 21, "Standard_NV12", {"gpu_model": "M60", "gpu_memory_gib": 8}),
    (f"{INC}/nv-series-specs.md", 21, "Standard_NV24", {"gpu_model": "M60", "gpu_memory_gib": 8}),
    # --- NVadsA10_v5: gpu-accelerated/nvadsa10v5-series.md (2024-07-31) ---
    # 31: | Standard_NV6ads_A10_v5 | 6 | 55 |
    (A10, 31, A10_6, {"series": "NVadsA10_v5", "vcpus": 6, "memory_gib": 55}),
    # 47: | Standard_NV6ads_A10_v5 | 1 | 180 |
    (A10, 47, A10_6, {"temp_storage_gib": 180}),
    # 71: | Standard_NV6ads_A10_v5 | 4 | 6,400 | 100 |
    (A10, 71, A10_6, {"max_data_disks": 4}),
    # 98: | Standard_NV6ads_A10_v5 | 1 | 5,000 |   (the 2022 azure-docs nva10v5-series.md:36 "2 / 5000": 2 NICs lose)
    (A10, 98, A10_6, {"max_nics": 1, "network_bandwidth_mbps": 5000}),
    # 120: | Standard_NV6ads_A10_v5 | 1/6 | 4 |          (a sixth of one A10 of 24 GB)
    (A10, 120, A10_6, {"gpu_count": 1 / 6, "gpu_memory_total_gib": 4, "gpu_memory_gib": 24}),
    # includes/nvadsa10v5-series-specs.md
    # 16: | Processor      | 6 - 72 vCPUs     | AMD EPYC 74F3v (Milan) [x86-64] |
    (f"{INC}/nvadsa10v5-series-specs.md", 16, A10_6, {"cpu_model": "AMD EPYC 74F3v (Milan)", "cpu_vendor": "AMD"}),
    # 21: | Accelerators   | 1/6 - 2 GPUs            | Nvidia A10 GPU (24GB)    |
    (f"{INC}/nvadsa10v5-series-specs.md", 21, A10_6, {"gpu_model": "A10", "gpu_memory_gib": 24}),
    # --- NVv4: gpu-accelerated/nvv4-series.md (2024-07-31) ---
    # 34: | Standard_NV4as_v4 | 4 | 14 |
    (NVV4, 34, V4_4, {"series": "NVv4", "vcpus": 4, "memory_gib": 14}),
    # 48: | Standard_NV4as_v4 | 1 | 88 |
    (NVV4, 48, V4_4, {"temp_storage_gib": 88}),
    # 70: | Standard_NV4as_v4 | 4 | 6400 | 96 |
    (NVV4, 70, V4_4, {"max_data_disks": 4}),
    # 95: | Standard_NV4as_v4 | 2 | 1000 |
    (NVV4, 95, V4_4, {"max_nics": 2, "network_bandwidth_mbps": 1000}),
    # 115: | Standard_NV4as_v4 | 1/8 | 2 |              (an eighth of one MI25 of 16 GB)
    (NVV4, 115, V4_4, {"gpu_count": 0.125, "gpu_memory_total_gib": 2, "gpu_memory_gib": 16}),
    # includes/nvv4-series-specs.md
    # 16: | Processor      | 4 - 32 vCPUs     | AMD EPYC 7V12 (Rome) [x86-64] |
    (f"{INC}/nvv4-series-specs.md", 16, V4_4, {"cpu_model": "AMD EPYC 7V12 (Rome)", "cpu_vendor": "AMD"}),
    # 21: | Accelerators   | 1/8 - 1 GPUs            | AMD Instinct MI25 GPU (16GB)    |
    (f"{INC}/nvv4-series-specs.md", 21, V4_4, {"gpu_model": "MI25", "gpu_memory_gib": 16}),
    # --- NVads V710 v5: gpu-accelerated/nvadsv710-v5-series.md (2024-09-16) ---
    # 41: | Standard_NV4ads_V710_v5 | 4 | 16 |
    (V710, 41, V710_4, {"series": "NVads V710 v5", "vcpus": 4, "memory_gib": 16}),
    # 56: | Standard_NV4ads_V710_v5 | 2 | 256 |
    (V710, 56, V710_4, {"temp_storage_gib": 256}),
    # 79: | Standard_NV4ads_V710_v5 | 2 | 7600 | 180 |
    (V710, 79, V710_4, {"max_data_disks": 2}),
    # 105: | Standard_NV4ads_V710_v5 | 2 | 3300 |
    (V710, 105, V710_4, {"max_nics": 2, "network_bandwidth_mbps": 3300}),
    # 126: | Standard_NV4ads_V710_v5 | 1/6 | 4 |    (a sixth of one V710; 129: | Standard_NV24ads_V710_v5 | 1 | 24 |)
    (V710, 126, V710_4, {"gpu_count": 1 / 6, "gpu_memory_total_gib": 4, "gpu_memory_gib": 24}),
    # includes/nvadsv710-v5-series-specs.md
    # 16: | Processor      | 4 - 28 vCPUs       | AMD EPYC 9V64 F (Genoa) [x86-64]  |
    (f"{INC}/nvadsv710-v5-series-specs.md", 16, V710_4, {
        "cpu_model": "AMD EPYC 9V64 F (Genoa)", "cpu_vendor": "AMD",
    }),
    # 21: | Accelerators   | 1/6 - 1              |                AMD Radeon™ Pro V710     |
    (f"{INC}/nvadsv710-v5-series-specs.md", 21, V710_4, {"gpu_model": "V710"}),
]
# fmt: on


def _short(document: str) -> str:
    return "/".join(document.split("/")[-2:])


def _cases() -> Iterator[tuple[str, int, str, str, Value]]:
    for document, line, size, values in ROWS:
        for attribute, expected in values.items():
            yield document, line, size, attribute, expected


CASES = [pytest.param(*case, id=f"{_short(case[0])}:{case[1]}:{case[2]}:{case[3]}") for case in _cases()]


@pytest.mark.parametrize(("document", "line", "size", "attribute", "expected"), CASES)
def test_vm_sizes_holds_the_value_read_by_hand(
    sizes: pd.DataFrame, document: str, line: int, size: str, attribute: str, expected: Value
) -> None:
    actual = sizes.at[size, attribute]
    assert matches(expected, actual), f"{size}.{attribute}: {_short(document)}:{line} says {expected!r}, got {actual!r}"


@pytest.mark.parametrize(("document", "line", "size", "attribute", "expected"), CASES)
def test_the_line_read_is_behind_the_chosen_value(
    result: BuildResult,
    claims_by_id: dict[str, Claim],
    document: str,
    line: int,
    size: str,
    attribute: str,
    expected: Value,
) -> None:
    f = fact(result, size, attribute)
    assert f is not None, f"no {attribute} fact for {size}"
    behind = {(c.document, c.line) for c in (claims_by_id[i] for i in f.supporting)}
    assert (document, line) in behind, f"{size}.{attribute} = {f.value}: {f.reason} (supported by {sorted(behind)})"


# (size, attribute, losing value, the line that states it)
LOSERS = [
    # nc-rtxpro6000bsev6-series.md:32 |Accelerators|1 - 4|GPUs NVIDIA RTX Pro 6000 GPU (48GB GDDR6 ECC)|
    (RTX_256, "gpu_memory_gib", "48", f"{GPU}/nc-rtxpro6000bsev6-series.md:32"),
    ("NC_RTXPRO6000BSE_v6", "gpu_memory_gib", "48", f"{GPU}/nc-rtxpro6000bsev6-series.md:32"),
    # azure-docs nct4-v3-series.md:32 | Standard_NC8as_T4_v3 |8 |56 |360 | 1 | 16 | 16 | 4  |
    (T4_8, "temp_storage_gib", "360", f"{OLD}/nct4-v3-series.md:32"),
    # gpu-accelerated/nv-series.md:112-114, M60 cards read as GPUs
    ("Standard_NV6", "gpu_count", "0.5", f"{NV_NEW}:112"),
    ("Standard_NV12", "gpu_count", "1", f"{NV_NEW}:113"),
    ("Standard_NV24", "gpu_count", "2", f"{NV_NEW}:114"),
    # nd-gb200-v6-series.md:61 | Standard_ND128isr_NDR_GB200_v6 | 316 | 80,000 | 1,200 |
    (ND_GB200, "max_data_disks", "316", f"{GB200}:61"),
    # nd-gb200-v6-series.md:83 and nd-gb300-v6-series.md:86: 160 under "Max Front-end Bandwidth (Mbps)"
    (ND_GB200, "network_bandwidth_mbps", "160", f"{GB200}:83"),
    (ND_GB300, "network_bandwidth_mbps", "160", f"{GB300}:86"),
    # azure-docs nva10v5-series.md:36 | Standard_NV6ads_A10_v5 |6 |55 |180 | 1/6 | 4 | 4 | 2 / 5000 |
    (A10_6, "max_nics", "2", f"{OLD}/nva10v5-series.md:36"),
]


@pytest.mark.parametrize(("entity", "attribute", "value", "where"), LOSERS, ids=lambda v: str(v)[-40:])
def test_a_value_a_page_gets_wrong_is_a_losing_row_in_conflicts(
    result: BuildResult, entity: str, attribute: str, value: str, where: str
) -> None:
    rows = {c.value: c for c in conflicts(result, entity, attribute)}
    assert value in rows, f"{entity}.{attribute}: no row for {value} among {sorted(rows)}"
    assert not rows[value].won and where in rows[value].documents
    assert sum(c.won for c in rows.values()) == 1


# --------------------------------------------------------------------------- diagnostics


def test_the_garbled_page_is_flagged_at_its_title_line(result: BuildResult) -> None:
    # nvcadbA10M5+serbes.md:2 "title: NVcadbA10_M5+ size series"; its tables list the six
    # NVadsA10_v5 sizes (lines 27-32), none of which can be of a series 'NVcadbA10_M5+'.
    found = [d for d in result.diagnostics if d.document == GARBLED and d.code == "page-not-what-it-claims"]
    assert [(d.severity, d.line) for d in found] == [("warning", 2)]
    assert "NVcadbA10_M5+" in found[0].message and "Standard_NV12ads_A10_v5" in found[0].message


def test_the_garbled_page_is_noted_as_a_repeat_of_the_nvadsa10v5_page(result: BuildResult) -> None:
    found = [d for d in result.diagnostics if d.document == GARBLED and d.code == "duplicate-page"]
    assert [d.severity for d in found] == ["info"]
    assert f"{GPU}/nvadsa10v5-series.md" in found[0].message


# n-series-migration.md: comparison-table rows ("| Current VM Size | Target VM Size | ... |") naming
# sizes no size table lists, under the heading of their series.
LISTED = [
    # 52: Standard_NC6 <br> Standard_NC6_Promo | Standard_NC4as_T4_v3 <br>or<br>Standard_NC8as_T4 | ...
    # under 39: "### NC-Series VMs featuring NVIDIA K80 GPUs"
    (52, "Standard_NC6_Promo", "NC"),
    # 53: | Standard_NC12<br>Standard_NC12_Promo | Standard_NC16as_T4_v3 | ...
    (53, "Standard_NC12_Promo", "NC"),
    # 54: | Standard_NC24<br>Standard_NC24_Promo | Standard_NC64as_T4_v3* | ...
    (54, "Standard_NC24_Promo", "NC"),
    # 55: | Standard_NC24r<br>Standard_NC24r_Promo | Standard_NC64as_T4_v3* | ...
    (55, "Standard_NC24r_Promo", "NC"),
]


@pytest.mark.parametrize(("line", "size", "series"), LISTED, ids=[size for _, size, _ in LISTED])
def test_a_comparison_row_places_its_size_in_the_series_of_its_heading(
    result: BuildResult, sizes: pd.DataFrame, line: int, size: str, series: str
) -> None:
    [placed] = [c for c in result.claims if c.entity == size and c.document == MIGRATION and c.method == "mention"]
    assert (placed.line, placed.attribute, placed.value_text) == (line, "series", series)
    assert "under the heading 'NC-Series VMs featuring NVIDIA K80 GPUs'" in str(placed.interpretation)
    assert (sizes.at[size, "series"], sizes.at[size, "found_in"]) == (series, "docs and API")


def test_the_migration_guide_nd24r_is_another_name_of_nd24rs(result: BuildResult, sizes: pd.DataFrame) -> None:
    """79: "| Standard_ND24r |Standard_ND96amsr_A100_v4 | ..." under "### ND-Series VMs featuring NVIDIA Tesla
    P40 GPUs": the ND page's sizes are ND6s, ND12s, ND24s and ND24rs (gpu-accelerated/nd-series.md:35-38)."""
    [name] = [a for a in result.names if a.name == "Standard_ND24r"]
    assert (name.size, name.certain, name.uses) == ("Standard_ND24rs", False, ((MIGRATION, 79),))
    assert "Standard_ND24r" not in sizes.index


def test_no_comparison_row_is_left_unbuilt(result: BuildResult) -> None:
    assert [d for d in result.diagnostics if d.code == "size_not_built"] == []


def test_every_size_table_column_with_values_is_read_or_reported(result: BuildResult) -> None:
    read = {(c.document, c.column) for c in result.claims if c.column}
    reported = {(d.document, d.line) for d in result.diagnostics if d.severity in {"warning", "error"}}
    columns = 0
    for document, header_line, head, rows in size_tables():
        for k, cell in enumerate(head[1:], start=1):
            lines = [line for line, cells in rows if k < len(cells) and cells[k]]
            if not lines:
                continue
            columns += 1
            if (document, _header(cell)) in read:
                continue
            assert any((document, n) in reported for n in [header_line, *lines]), (document, header_line, cell)
    assert columns > 300
    assert [d for d in result.diagnostics if d.code == "unknown_header"] == []


def test_an_unknown_size_table_column_is_an_unknown_header_warning_at_its_line() -> None:
    # tests/fixtures/gpu-catalog/nv-rack.md
    # 11: | Size Name | vCPUs (Qty.) | Memory (GB) | Rack Slot |
    # 13: | Standard_NV12s_v3 | 12 | 112 | A-07 |
    result, _frames = compute(FIXTURES)
    document = "nv-rack.md"
    found = [d for d in result.diagnostics if d.code == "unknown_header"]
    assert [(d.severity, d.document, d.line) for d in found] == [("warning", document, 11)]
    assert "'Rack Slot'" in found[0].message
    read = {(c.entity, c.attribute, c.value) for c in result.claims if c.document == document and c.line == 13}
    assert {("Standard_NV12s_v3", "vcpus", "12"), ("Standard_NV12s_v3", "memory_gib", "112")} <= read
    assert not [c for c in result.claims if c.column == "Rack Slot"]
