"""Series patterns (pipeline/stages/patterns.py): a value off the pattern every other size of its
series follows is a slip, and a range its include copied from the slip is no evidence.

tests/fixtures/patterns/ holds the real NGads V620 page and its specs include, copied unchanged
from sources/. Its remote-storage table (ngadsv620-series.md:65-70) reads, by hand:

    | Standard_NG8ads_V620_v1 | 8 | 12,800 | 200 |      8 vCPUs: 1,600 IOPS per vCPU
    | Standard_NG16ads_V620_v1 | 16 | 25,600 | 384 |   16 vCPUs: 1,600
    | Standard_NG32ads_V620_v1 | 32 | 51,200 | 768 |   32 vCPUs: 1,600
    | Standard_NG32adms_V620_v1 | 32 | 51,200 | 768 |  32 vCPUs: 1,600

and the include's line 19 `| Remote Storage | 8 - 32 Disks  | 12,800 - 51,200 IOPS <br>200 - 768 MBps |`.
"""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from pipeline import knowledge
from pipeline.knowledge.registry import Source
from pipeline.records import BuildResult, Claim
from pipeline.runner import compute
from pipeline.runner.cache import digest
from pipeline.stages.patterns import series_patterns
from tests.conftest import SOURCES

FIXTURES = Path(__file__).parent / "fixtures" / "patterns"
GPU = "azure-docs/azure-compute-docs/articles/virtual-machines/sizes/gpu-accelerated"
PAGE, SPECS = "ngadsv620-series.md", "includes/ngadsv620-series-specs.md"
SLIP_LINE = 67


def test_the_fixture_is_the_real_page_and_include() -> None:
    for name in (PAGE, SPECS):
        assert (FIXTURES / name).read_bytes() == (SOURCES / GPU / name).read_bytes()


def _slipped(tmp_path: Path) -> BuildResult:
    """The fixture with NG8ads' 12,800 IOPS written 128,000 (ten times) and the include's range
    edited to match, as a page copied from that slip would print it (`128,000 - 51,200 IOPS`)."""
    sources = tmp_path / "sources"
    shutil.copytree(FIXTURES, sources)
    page, specs = sources / PAGE, sources / SPECS
    text = page.read_text(encoding="utf-8")
    assert "| Standard_NG8ads_V620_v1 | 8 | 12,800 | 200 |" in text.split("\n")[SLIP_LINE - 1]
    page.write_text(text.replace("| 8 | 12,800 | 200 |", "| 8 | 128,000 | 200 |", 1), encoding="utf-8")
    include = specs.read_text(encoding="utf-8")
    specs.write_text(include.replace("12,800 - 51,200 IOPS", "128,000 - 51,200 IOPS", 1), encoding="utf-8")
    return compute(sources)[0]


def test_a_value_ten_times_off_its_series_pattern_is_doubted_and_the_others_are_not(tmp_path: Path) -> None:
    result = _slipped(tmp_path)
    iops = {f.entity: f for f in result.facts if f.attribute == "uncached_disk_iops" and f.entity_kind == "size"}
    slip = iops.pop("Standard_NG8ads_V620_v1")
    assert slip.value_number == 128000 and slip.confidence < 0.7
    assert slip.checks_failed == (
        "series_pattern: the other 3 sizes of NGads_V620 state 1600 IOPS per vCPU (25600-51200 for 16/32 vCPUs); "
        "128000 for 8 vCPUs is 10 times off it (12800 would fit)",
    )
    # The include's range ends on the slip: it does not count against the sizes that fit the pattern.
    assert {f.entity: (f.value_number, f.checks_failed) for f in iops.values()} == {
        "Standard_NG16ads_V620_v1": (25600, ()),
        "Standard_NG32ads_V620_v1": (51200, ()),
        "Standard_NG32adms_V620_v1": (51200, ()),
    }
    assert all(f.confidence >= 0.9 for f in iops.values())


def test_the_slip_is_one_erratum_naming_its_line_and_the_copied_range_another(tmp_path: Path) -> None:
    result = _slipped(tmp_path)
    out = tmp_path / "output"
    from pipeline.runner import build

    build(tmp_path / "sources", out)
    import pandas as pd

    errata = pd.read_parquet(out / "errata.parquet")
    at_page = errata[errata["document"] == PAGE]
    assert at_page[["line", "kind", "written", "value", "supported"]].values.tolist() == [
        [SLIP_LINE, "series_pattern", "128,000", "128000 IOPS", "12800 IOPS"]
    ]
    at_specs = errata[errata["document"] == SPECS]
    assert at_specs[["line", "kind", "value", "supported"]].values.tolist() == [
        [19, "series_pattern", "51200-128000 IOPS", "12800-51200 IOPS"]
    ]
    assert result.facts  # the build above is the one compute made


def test_a_series_in_two_equal_camps_is_a_note_in_the_build_s_diagnostics(tmp_path: Path) -> None:
    """NG32ads and NG32adms written 512,000 IOPS (16,000 per vCPU) against NG8ads' and NG16ads'
    1,600 per vCPU: two camps of two, neither the series' pattern."""
    sources = tmp_path / "sources"
    shutil.copytree(FIXTURES, sources)
    page = sources / PAGE
    text = page.read_text(encoding="utf-8")
    for size in ("NG32ads", "NG32adms"):
        row = f"| Standard_{size}_V620_v1 | 32 | 51,200 | 768 |"
        assert row in text
        text = text.replace(row, row.replace("51,200", "512,000"))
    page.write_text(text, encoding="utf-8")
    result = compute(sources)[0]
    notes = [d for d in result.diagnostics if d.code == "series_pattern_split"]
    assert [(d.severity, d.document, d.line) for d in notes] == [("info", PAGE, SLIP_LINE)]
    assert notes[0].message.startswith("the 4 sizes of NGads_V620 that state uncached_disk_iops split into two camps")
    assert not [f for f in result.facts if any(c.startswith("series_pattern") for c in f.checks_failed)]


def test_the_unaltered_fixture_follows_its_pattern(tmp_path: Path) -> None:
    result = compute(FIXTURES)[0]
    assert not [f for f in result.facts if any(c.startswith("series_pattern") for c in f.checks_failed)]


# --------------------------------------------------------------------------------- the rule


def _claim(size: str, value: float, vcpus: float, attribute: str = "uncached_disk_iops") -> list[Claim]:
    doc = "page.md"
    return [
        Claim(f"{size}-a", doc, 10, "", 1, 1, "IOPS", str(value), "table", size, "size", attribute, str(value), value),
        Claim(f"{size}-v", doc, 10, "", 1, 1, "vCPUs", str(vcpus), "table", size, "size", "vcpus", str(vcpus), vcpus),
        Claim(f"{size}-s", doc, 10, "", 1, 1, None, "NX", "table", size, "size", "series", "NX", value_text="NX"),
    ]


SOURCE = {"page.md": Source("page.md", "x", "official_spec", None, None, 0.95, None, "registry")}


@pytest.mark.parametrize(
    ("rows", "flagged"),
    [
        # One slip against three that hold 1,000 IOPS per vCPU.
        ([(8, 8000), (16, 16000), (32, 32000), (64, 640000)], {"Standard_NX64_v1"}),
        # One value held by every size: a slip against it too (16 disks, one written 160).
        ([(8, 16), (16, 16), (32, 160), (64, 16)], {"Standard_NX32_v1"}),
        # Fewer than three sizes state it: no pattern is judged.
        ([(8, 8000), (16, 160000)], set()),
        # Steps of up to twice per vCPU are a pattern the others follow: 4 times is no slip.
        ([(8, 8000), (16, 8000), (32, 16000), (64, 16000)], set()),
        # A value off the one-value pattern but on the per-vCPU one fits (NCasT4_v3's temp storage:
        # 180, 360, 360 and 2880 GiB for 4, 8, 16 and 64 vCPUs, nct4-v3-series.md:31-34).
        ([(4, 180), (8, 360), (16, 360), (64, 2880)], set()),
    ],
)
def test_which_values_are_off_their_series_pattern(rows: list[tuple[int, float]], flagged: set[str]) -> None:
    claims = [c for vcpus, value in rows for c in _claim(f"Standard_NX{vcpus}_v1", value, vcpus)]
    found = series_patterns(claims, SOURCE, knowledge.load())
    assert {c.entity for c in claims if c.claim_id in found.failed} == flagged
    assert found.diagnostics == ()


def test_two_equal_camps_flag_nothing_and_say_so() -> None:
    rows = [(8, 8000), (16, 16000), (32, 320000), (64, 640000)]
    claims = [c for vcpus, value in rows for c in _claim(f"Standard_NX{vcpus}_v1", value, vcpus)]
    found = series_patterns(claims, SOURCE, knowledge.load())
    assert found.failed == {}
    [note] = found.diagnostics
    assert (note.severity, note.code, note.document, note.line) == ("info", "series_pattern_split", "page.md", 10)
    assert note.message.startswith("the 4 sizes of NX that state uncached_disk_iops split into two camps of equal size")


def test_the_values_off_patterns_are_data_a_memo_key_can_digest() -> None:
    """A bucket's key digests the values off their series' patterns (`runner.parts._bucket_keys`):
    as sets, 60 of them broke the digest's pickling (a KeyError, CPython's fast mode) and the
    build kept no decision; their order may not depend on how they were found either."""
    claims = []
    for i in range(60):
        rows = [(8, 8000), (16, 16000), (32, 32000), (64, 640000 + i)]
        for vcpus, value in rows:
            size = f"Standard_NX{vcpus}_v{i + 1}"
            for c in _claim(size, value, vcpus):
                claims.append(replace(c, value_text=f"NX{i}", value=f"NX{i}") if c.attribute == "series" else c)
    found = series_patterns(claims, SOURCE, knowledge.load())
    assert len(found.outliers) == 60
    again = series_patterns(claims[::-1], SOURCE, knowledge.load())
    assert digest(sorted(found.outliers.items())) == digest(sorted(again.outliers.items()))


# ------------------------------------------------------------------------- the shipped sources


def test_on_every_series_of_the_sources_the_one_slip_is_nv4ads_v710_iops(shipped: BuildResult) -> None:
    """Read by hand, nvadsv710-v5-series.md:79-83 gives 7600, 1520, 2280, 4560 and 5320 IOPS for 4, 8, 12,
    24 and 28 vCPUs: 190 per vCPU but for NV4ads (1,900). Its include's line 19 prints `7,600 - 5,320 IOPS`,
    copied from the slip. No other value of any series in sources/ is off its pattern."""
    failing = [f for f in shipped.facts if any(c.startswith("series_pattern") for c in f.checks_failed)]
    assert [(f.entity, f.attribute, f.value) for f in failing] == [
        ("Standard_NV4ads_V710_v5", "uncached_disk_iops", "7600")
    ]
    assert failing[0].confidence < 0.7
    others = [
        f
        for f in shipped.facts
        if f.attribute == "uncached_disk_iops" and f.entity.endswith("_V710_v5") and f.entity != failing[0].entity
    ]
    assert len(others) == 4 and all(f.confidence >= 0.9 and not f.checks_failed for f in others)
