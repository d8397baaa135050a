"""The tables of knowledge: each case is text from a page beside what the tables make of it."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pipeline import knowledge
from pipeline.knowledge.values import parse_date_text
from pipeline.records import BuildResult

KNOW = knowledge.load()

# Real cases cite the Learn page they were copied from as path:line under sources/azure-docs/, where
# ACD = azure-compute-docs/articles/virtual-machines/sizes and AD = azure-docs/articles/virtual-machines.

# ------------------------------------------------------------------------ CPU makers


@pytest.mark.parametrize(
    ("model", "vendor"),
    [
        # ACD/gpu-accelerated/includes/nv-series-specs.md:16
        pytest.param("Intel Xeon E5-2690 v3 (Haswell)", "Intel", id="intel-xeon"),
        # AD/nva10v5-series.md:16
        pytest.param("AMD EPYC 74F3V (Milan)", "AMD", id="amd-epyc"),
        # ACD/gpu-accelerated/includes/nd-gb300-v6-series-specs.md:17
        pytest.param("Nvidia Grace", "NVIDIA", id="nvidia-grace"),
        # ACD/gpu-accelerated/includes/nd-gb200-v6-series-summary.md:15
        pytest.param("NVIDIA Grace CPUs", "NVIDIA", id="uppercase-nvidia"),
        # AD/ndm-a100-v4-series.md:21
        pytest.param("AMD Epyc 7V12 (Rome)", "AMD", id="mixed-case-epyc"),
        pytest.param("Xeon Platinum 8168", "Intel", id="line-without-maker"),
        pytest.param("EPYC 7V12", "AMD", id="amd-line-without-maker"),
        pytest.param("Grace CPU", "NVIDIA", id="grace-without-maker"),
        # Arm makers of cpus.toml; no GPU page of the corpus names one
        pytest.param("Ampere Altra", "Ampere", id="ampere-altra"),
        pytest.param("Azure Cobalt 100", "Microsoft", id="azure-cobalt"),
    ],
)
def test_cpu_vendor(model: str, vendor: str) -> None:
    found = KNOW.cpu_vendor(model)
    assert found is not None
    assert found.name == vendor


@pytest.mark.parametrize(
    "model",
    [
        # ACD/gpu-accelerated/includes/nc-rtxpro6000-bse-v6-series-specs.md:15, without its maker
        pytest.param("Granite Rapids-AP", id="codename-only"),
        # ACD/gpu-accelerated/includes/nd-gb300-v6-series-specs.md:18
        pytest.param("LPDDR5X", id="memory-type"),
        pytest.param("Intelligent", id="maker-inside-a-word"),
        pytest.param("Graceful", id="line-inside-a-word"),
        pytest.param("", id="empty"),
    ],
)
def test_cpu_vendor_is_none_when_no_maker_is_named(model: str) -> None:
    assert KNOW.cpu_vendor(model) is None


@pytest.mark.parametrize(
    ("vendor", "architecture"),
    [
        pytest.param("Intel", "x86-64", id="intel"),
        pytest.param("AMD", "x86-64", id="amd"),
        pytest.param("NVIDIA", "Arm64", id="nvidia"),
    ],
)
def test_cpu_vendor_architecture(vendor: str, architecture: str) -> None:
    assert {v.name: v.architecture for v in KNOW.cpu_vendors}[vendor] == architecture


# ------------------------------------------------------------------------ GPU models


@pytest.mark.parametrize(
    ("text", "memory_gib", "model"),
    [
        # ACD/gpu-accelerated/includes/nd-gb200-v6-series-specs.md:21
        pytest.param("Nvidia Blackwell GPU (192 GiB)", 192, "B200", id="blackwell-192-is-b200"),
        # ACD/gpu-accelerated/includes/nd-gb300-v6-series-specs.md:22
        pytest.param("Nvidia Blackwell Ultra GPU (288GB)", 288, "B300", id="blackwell-288-is-b300"),
        # ACD/gpu-accelerated/includes/nc-rtxpro6000-bse-v6-series-specs.md:20
        pytest.param(
            "Nvidia RTX PRO 6000 Blackwell Server Edition GPU (96GB)", 96, "RTX PRO 6000 BSE", id="blackwell-96"
        ),
        pytest.param("Nvidia Blackwell GPU", 190, "B200", id="within-two-percent"),
        pytest.param("nvidia blackwell gpu", 192, "B200", id="any-case"),
        pytest.param("Nvidia Hopper GPU", 141, "H200", id="hopper-141-is-h200"),
        pytest.param("Nvidia Ampere GPU", 24, "A10", id="ampere-24-is-a10"),
    ],
)
def test_gpu_of_family(text: str, memory_gib: float, model: str) -> None:
    found = KNOW.gpu_of_family(text, memory_gib)
    assert found is not None
    assert found.name == model


@pytest.mark.parametrize(
    ("text", "memory_gib"),
    [
        pytest.param("Nvidia Blackwell GPU (192 GiB)", 80, id="no-model-of-the-family-has-that-memory"),
        # ACD/lifecycle/retirement/n-series-migration.md:99: a T4 and a V100 are both made with 16 GiB
        pytest.param("Turing or Volta", 16, id="two-families-one-memory"),
        pytest.param("Nvidia GPU (192 GiB)", 192, id="no-family-named"),
        # ACD/gpu-accelerated/includes/nd-h200-v5-series-specs.md:21: a model, which find_gpus reads
        pytest.param("Nvidia H200 GPU (141GB)", 141, id="model-not-family"),
        pytest.param("Blackwellian GPU", 192, id="family-inside-a-word"),
        pytest.param("", 192, id="empty"),
    ],
)
def test_gpu_of_family_is_none_when_ambiguous_or_unnamed(text: str, memory_gib: float) -> None:
    assert KNOW.gpu_of_family(text, memory_gib) is None


@pytest.mark.parametrize(
    ("model", "board_memory_gib"),
    [
        # ACD/gpu-accelerated/includes/nvv3-series-specs.md:21: "Nvidia Tesla M60 GPU (16GB)", a card of 2 x 8 GiB
        pytest.param("M60", (16.0,), id="m60-two-gpus-per-card"),
        pytest.param("K80", (24.0,), id="k80-two-gpus-per-card"),
        pytest.param("A100", (40.0, 80.0), id="a100-one-gpu-per-card"),
        pytest.param("B200", (180.0, 186.0, 192.0), id="b200-every-memory-size"),
    ],
)
def test_board_memory_gib(model: str, board_memory_gib: tuple[float, ...]) -> None:
    gpu = KNOW.gpu(model)
    assert gpu is not None
    assert gpu.board_memory_gib == board_memory_gib


@pytest.mark.parametrize(
    ("text", "models"),
    [
        # ACD/gpu-accelerated/includes/nc-rtxpro6000-bse-v6-series-specs.md:20
        pytest.param(
            "Nvidia RTX PRO 6000 Blackwell Server Edition GPU (96GB)", ["RTX PRO 6000 BSE"], id="rtx-pro-full-name"
        ),
        # ACD/gpu-accelerated/nc-rtxpro6000bsev6-series.md:46
        pytest.param("Standard_NC128ds_xl_RTXPRO6000BSE_v6", ["RTX PRO 6000 BSE"], id="rtx-pro-in-a-size-name"),
        # ACD/gpu-accelerated/nc-rtxpro6000-bse-v6-series-overview.md:59
        pytest.param(
            "RTX Pro 6000 Blackwell GPUs in NCv6-series are exposed via SRIOV.",
            ["RTX PRO 6000 BSE"],
            id="rtx-pro-mixed-case",
        ),
        # ACD/gpu-accelerated/includes/nd-gb300-v6-series-specs.md:22
        pytest.param("Nvidia Blackwell Ultra GPU (288GB)", ["B300"], id="blackwell-ultra"),
        # ACD/gpu-accelerated/includes/nd-gb300-v6-series-summary.md:14
        pytest.param("These VMs are powered by NVIDIA GB300 NVL72", ["B300"], id="superchip-name"),
        # ACD/lifecycle/retirement/n-series-migration.md:18
        pytest.param(
            "powered by NVIDIA Tesla K80, P100, and P40 datacenter GPU accelerators respectively",
            ["K80", "P100", "P40"],
            id="list-in-order",
        ),
        # ACD/lifecycle/retirement/n-series-migration.md:99
        pytest.param("NVIDIA T4 or V100", ["T4", "V100"], id="either"),
        # ACD/gpu-accelerated/includes/nca100v4-series-specs.md:21
        pytest.param("Nvidia PCIe A100 GPU (80GB)", ["A100"], id="a100-is-not-a10"),
        # ACD/gpu-accelerated/nvadsa10v5-series.md:31
        pytest.param("Standard_NV6ads_A10_v5", ["A10"], id="a10-in-a-size-name"),
        # ACD/gpu-accelerated/includes/nvadsv710-v5-series-specs.md:21
        pytest.param("AMD Radeon™ Pro V710", ["V710"], id="radeon-with-trademark"),
        # ACD/gpu-accelerated/includes/ndmi300xv5-series-specs.md:21
        pytest.param("AMD Instinct MI300X GPU (192GB)", ["MI300X"], id="instinct"),
        # ACD/gpu-accelerated/includes/nvv3-series-specs.md:21
        pytest.param("Nvidia Tesla M60 GPU (16GB)", ["M60"], id="tesla"),
        pytest.param("T4 and T4", ["T4"], id="no-repeats"),
        pytest.param("nvidia tesla k80 and NVIDIA TESLA P100", ["K80", "P100"], id="any-case"),
        # ACD/gpu-accelerated/includes/nd-gb200-v6-series-specs.md:21: a family, which gpu_of_family reads
        pytest.param("Nvidia Blackwell GPU (192 GiB)", [], id="family-only"),
        # ACD/gpu-accelerated/includes/nd-gb300-v6-series-specs.md:17
        pytest.param("Nvidia Grace CPU", [], id="cpu"),
        pytest.param("A1000", [], id="alias-inside-a-longer-number"),
        pytest.param("NVA10", [], id="alias-glued-to-letters"),
    ],
)
def test_find_gpus(text: str, models: list[str]) -> None:
    assert [g.name for g in KNOW.find_gpus(text)] == models


def test_an_answer_given_again_is_a_fresh_list() -> None:
    # ACD/gpu-accelerated/includes/ndmi300xv5-series-specs.md:21: asked twice, answered from
    # the cache the second time; what one caller does with its list is not the next one's answer.
    first = KNOW.find_gpus("AMD Instinct MI300X GPU (192GB)")
    first.append(first[0])
    assert [g.name for g in KNOW.find_gpus("AMD Instinct MI300X GPU (192GB)")] == ["MI300X"]


def test_the_knowledge_digests_alike_whatever_was_asked_before() -> None:
    # The normalize memo's key holds a digest of the knowledge: the answers it caches must not
    # move it, or no document's claims would be reused by the next build.
    from pipeline.knowledge.values import parse_quantity
    from pipeline.runner.cache import digest

    fresh = knowledge.load.__wrapped__()
    before = digest(fresh)
    assert [g.name for g in fresh.find_gpus("8 NVIDIA H100 80GB")] == ["H100"]
    quantity = parse_quantity("1,900 GiB", fresh)
    assert quantity is not None and (quantity.low, quantity.unit) == (1900.0, "GiB")
    assert digest(fresh) == before


@pytest.mark.parametrize(
    ("name", "memory"),
    [("A100", (40.0, 80.0)), ("K80", (12.0,)), ("A1000", None), ("a100", None)],
    ids=["a100", "k80", "not-a-model", "names-keep-their-case"],
)
def test_gpu_by_name(name: str, memory: tuple[float, ...] | None) -> None:
    gpu = KNOW.gpu(name)
    assert (gpu.memory_gib if gpu else None) == memory


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("The rack is equipped with 72 GPUs", {"equipped", "gpus", "rack"}),
        ("No word a phrase needs", set()),
        ("CPUs", {"cpu", "cpus"}),
    ],
    ids=["several", "none", "a-word-inside-another"],
)
def test_phrase_words(text: str, words: set[str]) -> None:
    assert KNOW.phrase_words(text.lower()) == words


# ------------------------------------------------------------------------ Part | Quantity | Specs tables

_TEMP = {"disk": "temp_disk_count", "bare": "temp_disk_count", "information": "temp_storage_gib"}
_NVME = {"disk": "nvme_disk_count", "bare": "nvme_disk_count", "information": "nvme_disk_size_gib"}
_NVME_TOTAL = {"disk": "nvme_disk_count", "bare": "nvme_disk_count", "information": "nvme_disk_total_gib"}


@pytest.mark.parametrize(
    ("piece", "units", "also"),
    [
        # ACD/gpu-accelerated/includes/nca100v4-series-specs.md:18, the Quantity cell
        pytest.param("1 Temp Disk", _TEMP, None, id="temp-disk-count"),
        pytest.param("1 - 4 NVMe Disks", _NVME, None, id="nvme-disk-count"),
        # ACD/gpu-accelerated/includes/nca100v4-series-specs.md:18, the Specs cell
        pytest.param("64 - 256 GiB Temp Disk", _TEMP, None, id="temp-disk-size"),
        pytest.param("960 GiB NVMe Disks", _NVME, None, id="nvme-disk-size"),
        # ACD/gpu-accelerated/includes/ndmi300xv5-series-specs.md:18: other disks, not what these are
        pytest.param("28,000 GiB NVMe Disks", _NVME, None, id="grouped-nvme-size"),
        # ACD/gpu-accelerated/includes/ndv2-series-specs.md:17
        pytest.param("2948 GiB", _TEMP, None, id="no-qualifier"),
        pytest.param("960 GiB nvme disks", _NVME, None, id="qualifier-any-case"),
        pytest.param("960 GiB NVMeX", _TEMP, None, id="qualifier-inside-a-word"),
        pytest.param("28,000 GiB NVMe Disks in total", _NVME_TOTAL, None, id="nvme-total-said-after"),
        pytest.param("28 TiB total NVMe", _NVME_TOTAL, None, id="nvme-total-said-before"),
        pytest.param("28 TiB combined NVMe disks", _NVME_TOTAL, None, id="nvme-combined"),
        # ACD/gpu-accelerated/includes/nd-gb200-v6-series-specs.md:18: what the temp disks are made of,
        # read for them as NVMe disks as well; the Quantity cell beside it says nothing of it.
        pytest.param("16 TiB (NVMe)", _TEMP, _NVME, id="made-of-nvme"),
        pytest.param("16 TiB ( nvme )", _TEMP, _NVME, id="made-of-spaced-any-case"),
        pytest.param("4 Disks", _TEMP, None, id="says-nothing"),
    ],
)
def test_local_storage_piece_units(piece: str, units: Mapping[str, str], also: Mapping[str, str] | None) -> None:
    rule = KNOW.part_rule("Local Storage")
    assert rule is not None
    assert dict(rule.units_for(piece)) == units
    said = rule.also_for(piece)
    assert (dict(said) if said is not None else None) == also


# ------------------------------------------------------------------------ one item and the total


def test_an_nvme_disk_is_a_share_of_the_total_of_the_counted_disks() -> None:
    assert KNOW.shares == (("nvme_disk_size_gib", "nvme_disk_count", "nvme_disk_total_gib"),)
    one = KNOW.attributes["nvme_disk_size_gib"]
    assert (one.total, one.max, one.unit) == ("nvme_disk_total_gib", 8192, "GiB")
    assert KNOW.attributes["nvme_disk_total_gib"].derived_from == ("nvme_disk_count", "nvme_disk_size_gib")


def test_a_total_its_item_does_not_derive_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    real = knowledge._table

    def table(name: str) -> dict[str, Any]:
        found = real(name)
        if name == "attributes.toml":
            found["attribute"]["nvme_disk_total_gib"]["derived_from"] = ["nvme_disk_count"]
        return found

    monkeypatch.setattr(knowledge, "_table", table)
    with pytest.raises(ValueError, match=re.escape("not derived from them (derived_from): ['nvme_disk_size_gib']")):
        knowledge.load.__wrapped__()


# ------------------------------------------------------------------------ phrases


def test_a_phrase_of_a_flag_states_its_value_as_a_flag() -> None:
    # phrases.toml: `value = true` for `nvlink` ("... through NVLINK")
    [phrase] = [p for p in KNOW.phrases if p.attribute == "nvlink"]
    assert phrase.value is True
    assert phrase.pattern.search("Bandwidth is up to 72 GPUs per domain through NVLINK")


@pytest.mark.parametrize(
    ("attribute", "value"),
    [
        pytest.param("nvlink", "yes", id="a-flag-written-as-text"),
        pytest.param("lifecycle", True, id="a-text-written-as-a-flag"),
    ],
)
def test_a_fixed_value_not_of_its_attributes_kind_is_refused(
    monkeypatch: pytest.MonkeyPatch, attribute: str, value: str | bool
) -> None:
    real = knowledge._table

    def table(name: str) -> dict[str, Any]:
        found = real(name)
        if name == "phrases.toml":
            [phrase] = [p for p in found["phrase"] if p["attribute"] == attribute and "value" in p][:1]
            phrase["value"] = value
        return found

    monkeypatch.setattr(knowledge, "_table", table)
    with pytest.raises(ValueError, match=re.escape(f"the fixed value {value!r} of a phrase of {attribute} (kind")):
        knowledge.load.__wrapped__()


def test_link_placeholder_is_every_link_of_the_table() -> None:
    assert [(k.name, k.flag) for k in KNOW.links] == [("NVLink", "nvlink"), ("AMD Infinity Fabric", None)]
    [first, second] = [p for p in KNOW.phrases if p.attribute == "interconnect"]
    assert first.pattern.search("connected to one another via 4th-Gen AMD Infinity Fabric links")
    assert second.pattern.search("Each GPU features NVLINK 4.0 connectivity")


@pytest.mark.parametrize(
    ("part", "piece"),
    [
        # ACD/gpu-accelerated/includes/nca100v4-series-specs.md:16
        pytest.param("Processor", "AMD EPYC 7V13 (Milan) [x86-64]", id="processor"),
        # ACD/gpu-accelerated/includes/nca100v4-series-specs.md:19
        pytest.param("Remote Storage", "8 - 32 Disks", id="remote-storage"),
        pytest.param("Remote Storage", "8 NVMe Disks", id="qualifier-of-another-part"),
    ],
)
def test_parts_without_qualifiers_keep_their_units(part: str, piece: str) -> None:
    rule = KNOW.part_rule(part)
    assert rule is not None
    assert rule.units_for(piece) == rule.units


# ------------------------------------------------------------------------ dates in running text

_DATE_IN_TEXT = re.compile(knowledge.DATE_IN_TEXT, re.IGNORECASE)
"""Compiled as phrases.toml patterns are, ignoring case."""


@pytest.mark.parametrize(
    ("sentence", "written"),
    [
        # ACD/gpu-accelerated/nv-series.md:17
        pytest.param(
            "> The NV-series is retired as of September 6th, 2023, and is no longer available.",
            "September 6th, 2023",
            id="ordinal-and-comma",
        ),
        # ACD/lifecycle/retirement/nd-series-retirement.md:13
        pytest.param(
            "we're extending the retirement date by one year to 6 September 2023, for the Azure ND-Series",
            "6 September 2023",
            id="day-first",
        ),
        # ACD/lifecycle/retirement/n-series-migration.md:18
        pytest.param(
            "These products will be retired on August 31st 2023, and the oldest VMs in this series launched in 2016.",
            "August 31st 2023",
            id="ordinal-without-comma",
        ),
        # ACD/lifecycle/retirement/n-series-migration.md:84
        pytest.param("are scheduled for **retirement on May 31, 2027**.", "May 31, 2027", id="inside-bold"),
        # ACD/gpu-accelerated/nvv3-series-retirement.md:17
        pytest.param(
            "> 1-year and 3-year RI purchases for the NVv3-series ended November 2, 2025",
            "November 2, 2025",
            id="after-year-counts",
        ),
        pytest.param("retired on Aug. 31, 2023.", "Aug. 31, 2023", id="abbreviated-with-point"),
        pytest.param("available from Sept 1 2024 in preview", "Sept 1 2024", id="sept"),
        pytest.param("retired on 2023-09-06.", "2023-09-06", id="iso"),
    ],
)
def test_date_in_text_finds_the_date(sentence: str, written: str) -> None:
    match = _DATE_IN_TEXT.search(sentence)
    assert match is not None
    assert match.group(0) == written
    assert parse_date_text(match.group(0)) is not None


@pytest.mark.parametrize(
    "sentence",
    [
        # ACD/gpu-accelerated/ngadsv620-series.md:8
        pytest.param("ms.date: 07/31/2024", id="slashes"),
        # ACD/lifecycle/retirement/n-series-migration.md:18
        pytest.param("the oldest VMs in this series launched in 2016.", id="year-only"),
        # ACD/gpu-accelerated/includes/nv-series-specs.md:16
        pytest.param("Intel Xeon E5-2690 v3 (Haswell) [x86-64]", id="model-number"),
        # ACD/gpu-accelerated/nvadsa10v5-series.md:71
        pytest.param("| Standard_NV6ads_A10_v5 | 4 | 6,400 | 100 |", id="table-row"),
        pytest.param("in September 2023", id="no-day"),
        pytest.param("retired on September 6th, 20235", id="a-longer-number-than-a-year"),
    ],
)
def test_date_in_text_finds_no_date(sentence: str) -> None:
    assert _DATE_IN_TEXT.search(sentence) is None


@given(
    st.dates(min_value=dt.date(1000, 1, 1)),
    st.sampled_from(["{B} {d}, {Y}", "{d} {B} {Y}", "{b}. {d}, {Y}", "{B} {d}th {Y}", "{Y}-{m:02d}-{d:02d}"]),
)
def test_a_date_found_in_text_reads_back(date: dt.date, layout: str) -> None:
    written = layout.format(B=f"{date:%B}", b=f"{date:%b}", d=date.day, m=date.month, Y=date.year)
    match = _DATE_IN_TEXT.search(f"These sizes will be retired on {written}. Plan ahead.")
    assert match is not None
    assert match.group(0) == written
    assert parse_date_text(match.group(0)) == date


def test_no_phrase_matches_a_line_its_needs_would_skip(shipped: BuildResult) -> None:
    """`needs` only saves searching: on every line of running text of the shipped sources and
    the fixtures, each phrase that matches has one of its words in the line."""
    from pathlib import Path

    from pipeline.stages.extract import extract
    from pipeline.stages.read import parse_bytes

    know = knowledge.load()
    texts = []
    for path in sorted((Path(__file__).parent / "fixtures").rglob("*.md")):
        doc, _ = parse_bytes(path.name, path.read_bytes())
        if doc is not None:
            texts += [st.raw_text for st in extract(doc).statements if st.method in ("paragraph", "bullet", "note")]
    for document in shipped.documents:
        texts += [st.raw_text for st in extract(document).statements if st.method in ("paragraph", "bullet", "note")]
    assert len(texts) > 500
    matched = 0
    for phrase in know.phrases:
        assert phrase.needs, phrase.pattern.pattern
        for text in texts:
            if phrase.pattern.search(text):
                matched += 1
                assert phrase.may_match(know.phrase_words(text.lower())), (phrase.pattern.pattern, text)
    assert matched > 50
