"""Values as documents print them: each case is the text of a cell beside the value read from it."""

from __future__ import annotations

import dataclasses
import datetime as dt

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pipeline import knowledge
from pipeline.knowledge.values import (
    Quantity,
    clean_cpu_model,
    format_number,
    generations_in,
    is_empty,
    ordinal,
    parse_date_text,
    parse_flag,
    parse_generations,
    parse_number,
    parse_ordinal,
    parse_quantity,
    prefix_twin_values,
    read_link,
    same_value,
    twin_values,
)

# Real cases cite the Learn page they were copied from as path:line under sources/azure-docs/, where
# ACD = azure-compute-docs/articles/virtual-machines/sizes and AD = azure-docs/articles/virtual-machines.

KNOW = knowledge.load()

# ------------------------------------------------------------------------ numbers


@pytest.mark.parametrize(
    ("text", "number"),
    [
        pytest.param("24,000", 24000, id="western-thousands"),
        pytest.param("1,000,000", 1000000, id="western-millions"),
        pytest.param("2,00,000", 200000, id="indian-lakh"),
        pytest.param("1,23,456", 123456, id="indian-grouping"),
        pytest.param("1 000", 1000, id="space-thousands"),
        pytest.param("24\u202f000", 24000, id="narrow-nbsp-thousands"),
        pytest.param("80000", 80000, id="plain"),
        pytest.param("1.8", 1.8, id="decimal"),
        pytest.param("1,000.5", 1000.5, id="grouped-decimal"),
        pytest.param(".5", 0.5, id="leading-point"),
        pytest.param(" 12 ", 12, id="padded"),
        pytest.param("1/4", 0.25, id="quarter"),
        pytest.param("1/2", 0.5, id="half"),
        pytest.param("1 / 4", 0.25, id="spaced-fraction"),
        pytest.param("two", 2, id="word"),
        pytest.param("Two", 2, id="capitalised-word"),
        pytest.param("thirty-two", 32, id="hyphenated-word"),
    ],
)
def test_parse_number(text: str, number: float) -> None:
    assert parse_number(text) == number


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("1,2,3", id="list-not-grouping"),
        pytest.param("12,34", id="short-last-group"),
        pytest.param("12,3456", id="long-last-group"),
        pytest.param("1,234,56,789", id="mixed-grouping"),
        pytest.param("1.8.2", id="version"),
        pytest.param("-5", id="signed"),
        pytest.param("abc", id="letters"),
        pytest.param("", id="empty"),
        pytest.param("   ", id="blank"),
        pytest.param("1/0", id="zero-denominator"),
        pytest.param("8 GB", id="number-with-unit"),
    ],
)
def test_parse_number_refuses_what_is_not_one_number(text: str) -> None:
    assert parse_number(text) is None


@given(st.text(max_size=40))
def test_parse_number_never_raises(text: str) -> None:
    result = parse_number(text)
    assert result is None or result >= 0


# ------------------------------------------------------------------------ quantities


@pytest.mark.parametrize(
    ("text", "quantity"),
    [
        pytest.param("6 - 24 vCPUs", Quantity(6, 24, "vCPUs", False, ""), id="range-with-unit"),
        pytest.param("6 to 24", Quantity(6, 24, None, False, ""), id="range-with-to"),
        pytest.param("24,000-30,000 Mbps", Quantity(24000, 30000, "Mbps", False, ""), id="grouped-range"),
        pytest.param("112 GB", Quantity(112, 112, "GB", False, ""), id="gigabytes"),
        pytest.param("1,800 GiB", Quantity(1800, 1800, "GiB", False, ""), id="gibibytes"),
        pytest.param("24,000 Mbps", Quantity(24000, 24000, "Mbps", False, ""), id="megabits"),
        pytest.param("900GB/s", Quantity(900, 900, "GB/s", False, ""), id="unit-without-space"),
        pytest.param("3.2 Tbps", Quantity(3.2, 3.2, "Tbps", False, ""), id="decimal-terabits"),
        pytest.param("1/4 - 1 GPUs", Quantity(0.25, 1, "GPUs", False, ""), id="fractional-gpu-range"),
        pytest.param("1 - 1/4", Quantity(0.25, 1, None, False, ""), id="range-written-high-first"),
        pytest.param("Up to 8", Quantity(8, 8, None, False, ""), id="up-to-is-not-approximate"),
        pytest.param("up to 30,000", Quantity(30000, 30000, None, False, ""), id="up-to-grouped"),
        pytest.param("~20TB", Quantity(20, 20, "TB", True, ""), id="tilde-approximate"),
        pytest.param("about 5 GB", Quantity(5, 5, "GB", True, ""), id="about-approximate"),
        pytest.param("approx. 2 PB", Quantity(2, 2, "PB", True, ""), id="approx-approximate"),
        pytest.param("16 TiB (NVMe)", Quantity(16, 16, "TiB", False, "(NVMe)"), id="unit-then-note"),
        pytest.param("80 GB HBM2e", Quantity(80, 80, "GB", False, "HBM2e"), id="unit-then-memory-type"),
        pytest.param("8 NVIDIA A100", Quantity(8, 8, None, False, "NVIDIA A100"), id="count-then-model"),
        pytest.param(
            "≈ 3.2 TB",
            Quantity(3.2, 3.2, "TB", True, ""),
            id="approx-sign-then-space",
        ),
        pytest.param(
            "~ 20 TB",
            Quantity(20, 20, "TB", True, ""),
            id="tilde-then-space",
        ),
    ],
)
def test_parse_quantity(text: str, quantity: Quantity) -> None:
    assert parse_quantity(text, KNOW) == quantity


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("N/A", id="n-a"),
        pytest.param("**N/A**", id="bold-n-a"),
        pytest.param("-", id="dash"),
        pytest.param("—", id="em-dash"),
        pytest.param("", id="empty"),
        pytest.param("TBD", id="tbd"),
        pytest.param("Not available", id="not-available"),
        pytest.param("LPDDR5X", id="digit-inside-word"),
        pytest.param("Intel Xeon E5-2690 v4", id="model-number"),
        pytest.param("8x", id="letter-glued-to-number"),
        pytest.param("Intel Xeon", id="no-number"),
    ],
)
def test_parse_quantity_refuses_text_that_does_not_start_with_a_number(text: str) -> None:
    assert parse_quantity(text, KNOW) is None


@pytest.mark.parametrize(
    ("text", "is_range"),
    [
        pytest.param("6 - 24 vCPUs", True, id="range"),
        pytest.param("8 - 8 GPUs", False, id="degenerate-range"),
        pytest.param("112 GB", False, id="single"),
    ],
)
def test_quantity_is_range(text: str, is_range: bool) -> None:
    quantity = parse_quantity(text, KNOW)
    assert quantity is not None
    assert quantity.is_range is is_range


@given(st.text(max_size=40))
def test_parse_quantity_never_raises_and_orders_its_range(text: str) -> None:
    quantity = parse_quantity(text, KNOW)
    if quantity is not None:
        assert quantity.low <= quantity.high


@pytest.mark.parametrize(
    ("text", "empty"),
    [
        pytest.param("N/A", True, id="n-a"),
        pytest.param(" **-** ", True, id="bold-dash"),
        pytest.param("Unknown", True, id="unknown"),
        pytest.param("0", False, id="zero"),
        pytest.param("None yet", False, id="words"),
    ],
)
def test_is_empty(text: str, empty: bool) -> None:
    assert is_empty(text) is empty


# ------------------------------------------------------------------------ flags


@pytest.mark.parametrize(
    ("text", "flag"),
    [
        pytest.param("Supported", True, id="supported"),
        pytest.param("supported", True, id="lowercase"),
        pytest.param("Supported (In preview)", True, id="supported-with-note"),
        pytest.param("Yes", True, id="yes"),
        pytest.param("✅", True, id="check-mark"),
        pytest.param("Available in preview", True, id="available"),
        pytest.param("Not Supported", False, id="not-supported"),
        pytest.param("Unsupported", False, id="unsupported"),
        pytest.param("No", False, id="no"),
        pytest.param("❌", False, id="cross"),
        pytest.param("Not available", False, id="not-available"),
        pytest.param("maybe", None, id="maybe"),
        pytest.param("Nope", None, id="no-needs-a-word-boundary"),
        pytest.param("Notes", None, id="not-is-not-notes"),
        pytest.param("N/A", None, id="n-a"),
        pytest.param("", None, id="empty"),
    ],
)
def test_parse_flag(text: str, flag: bool | None) -> None:
    assert parse_flag(text) is flag


# ------------------------------------------------------------------------ VM generations


@pytest.mark.parametrize(
    ("text", "generations"),
    [
        pytest.param("Generation 1 and 2", (1, 2), id="both"),
        pytest.param("Generation 2", (2,), id="two"),
        pytest.param("Generation 2, Generation 1", (1, 2), id="both-sorted"),
        pytest.param("Hyper-V Generation 2 VMs", (2,), id="in-a-sentence"),
        pytest.param("Gen 1", (1,), id="abbreviated"),
        pytest.param(
            "Gen2",
            (2,),
            id="abbreviated-without-space",
        ),
        pytest.param("1 and 2", None, id="no-generation-word"),
        pytest.param("Generation 3", None, id="no-such-generation"),
        pytest.param("Generation 12", None, id="digit-inside-number"),
    ],
)
def test_parse_generations(text: str, generations: tuple[int, ...] | None) -> None:
    assert parse_generations(text) == generations


@pytest.mark.parametrize(
    ("text", "generations"),
    [
        pytest.param("V1,V2", (1, 2), id="a-catalogs-both"),
        pytest.param("V2", (2,), id="a-catalogs-two"),
        pytest.param("1 and 2", (1, 2), id="no-generation-word-needed"),
        pytest.param("V12", (), id="digit-inside-number"),
    ],
)
def test_generations_in_a_text_known_to_name_them(text: str, generations: tuple[int, ...]) -> None:
    assert generations_in(text) == generations


# ------------------------------------------------------------------------ GPU interconnects


@pytest.mark.parametrize(
    ("text", "number"),
    [
        pytest.param("fifth", 5, id="word"),  # ACD/gpu-accelerated/includes/nd-gb200-v6-series-summary.md:15
        pytest.param("4th", 4, id="digits"),  # ACD/gpu-accelerated/includes/ndmi300xv5-series-summary.md:16
        pytest.param("Third", 3, id="capitalised"),
        pytest.param("next", None, id="not-an-ordinal"),
        pytest.param("4", None, id="a-cardinal"),
        pytest.param("", None, id="empty"),
    ],
)
def test_parse_ordinal(text: str, number: int | None) -> None:
    assert parse_ordinal(text) == number


@pytest.mark.parametrize(
    ("n", "text"), [(1, "1st"), (2, "2nd"), (3, "3rd"), (4, "4th"), (11, "11th"), (12, "12th"), (21, "21st")]
)
def test_ordinal(n: int, text: str) -> None:
    assert ordinal(n) == text


@pytest.mark.parametrize(
    ("text", "link", "name"),
    [
        # ACD/gpu-accelerated/includes/nd-gb200-v6-series-summary.md:15
        pytest.param("fifth-generation NVLink", "NVLink", "NVLink 5.0", id="ordinal-before"),
        # ACD/gpu-accelerated/includes/ndh100v5-series-summary.md:18
        pytest.param("NVLINK 4.0", "NVLink", "NVLink 4.0", id="version-after"),
        pytest.param("NVLink 3", "NVLink", "NVLink 3.0", id="version-without-point"),
        # ACD/gpu-accelerated/includes/nd-h200-v5-series-summary.md:17
        pytest.param("900 GB/s NVLink", "NVLink", "NVLink", id="a-bandwidth-is-no-generation"),
        # ACD/gpu-accelerated/includes/ndmi300xv5-series-summary.md:16
        pytest.param("4th-Gen AMD Infinity Fabric", "AMD Infinity Fabric", "AMD Infinity Fabric 4th gen", id="amd"),
        pytest.param("next-generation NVLink", "NVLink", "NVLink", id="an-unnumbered-generation"),
    ],
)
def test_read_link(text: str, link: str, name: str) -> None:
    found = read_link(text, knowledge.load())
    assert found is not None
    assert (found[0].name, found[1]) == (link, name)


def test_read_link_is_none_without_a_known_link() -> None:
    assert read_link("PCIe Gen4", knowledge.load()) is None


# ------------------------------------------------------------------------ formatting


@pytest.mark.parametrize(
    ("value", "text"),
    [
        pytest.param(40.0, "40", id="whole"),
        pytest.param(0.0, "0", id="zero"),
        pytest.param(-2.0, "-2", id="negative-whole"),
        pytest.param(24000.0, "24000", id="thousands-without-separator"),
        pytest.param(0.25, "0.25", id="quarter"),
        pytest.param(1.8, "1.8", id="decimal"),
        pytest.param(1 / 3, "0.333333", id="six-significant-digits"),
        pytest.param(1e15, "1e+15", id="huge"),
    ],
)
def test_format_number(value: float, text: str) -> None:
    assert format_number(value) == text


# ------------------------------------------------------------------------ dates in running text


@pytest.mark.parametrize(
    ("text", "date"),
    [
        # ACD/gpu-accelerated/nv-series.md:17
        pytest.param("September 6th, 2023", dt.date(2023, 9, 6), id="ordinal-and-comma"),
        # ACD/lifecycle/retirement/nd-series-retirement.md:13
        pytest.param("6 September 2023", dt.date(2023, 9, 6), id="day-first"),
        # ACD/lifecycle/retirement/n-series-migration.md:18
        pytest.param("August 31st 2023", dt.date(2023, 8, 31), id="ordinal-without-comma"),
        # AD/nv-series.md:18
        pytest.param("August 31st, 2023", dt.date(2023, 8, 31), id="st"),
        # ACD/gpu-accelerated/includes/nv-series-summary.md:16
        pytest.param("September 6, 2023", dt.date(2023, 9, 6), id="month-day-year"),
        # ACD/gpu-accelerated/nvv3-series-retirement.md:33
        pytest.param("September 30th, 2026", dt.date(2026, 9, 30), id="th"),
        # ACD/gpu-accelerated/nvv3-series-retirement.md:17
        pytest.param("November 2, 2025", dt.date(2025, 11, 2), id="one-digit-day"),
        # ACD/lifecycle/retirement/n-series-migration.md:84
        pytest.param("May 31, 2027", dt.date(2027, 5, 31), id="three-letter-month"),
        pytest.param("Aug. 31, 2023", dt.date(2023, 8, 31), id="abbreviated-with-point"),
        pytest.param("Sept 1 2024", dt.date(2024, 9, 1), id="sept"),
        pytest.param("Sept. 6th, 2023", dt.date(2023, 9, 6), id="sept-with-point"),
        pytest.param("31st December 2023", dt.date(2023, 12, 31), id="day-first-ordinal"),
        pytest.param("6 Sept, 2023", dt.date(2023, 9, 6), id="day-first-comma"),
        pytest.param("september 6, 2023", dt.date(2023, 9, 6), id="lowercase"),
        pytest.param("  September   6th,  2023 ", dt.date(2023, 9, 6), id="extra-spaces"),
        pytest.param("February 29, 2024", dt.date(2024, 2, 29), id="leap-day"),
        pytest.param("2023-09-06", dt.date(2023, 9, 6), id="iso"),
    ],
)
def test_parse_date_text(text: str, date: dt.date) -> None:
    assert parse_date_text(text) == date


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("February 30, 2024", id="february-30"),
        pytest.param("30 February 2024", id="february-30-day-first"),
        pytest.param("February 29, 2023", id="no-leap-day"),
        pytest.param("June 31, 2024", id="june-31"),
        pytest.param("Sep 0, 2023", id="day-zero"),
        pytest.param("2023-02-30", id="iso-february-30"),
        pytest.param("2023-13-01", id="iso-month-13"),
        pytest.param("2023-9-6", id="iso-without-zeros"),
        pytest.param("Smarch 3, 2024", id="not-a-month"),
        pytest.param("Ju 3, 2024", id="June-or-July"),
        pytest.param("No 5, 2023", id="two-letters"),
        pytest.param("3 Ju 2024", id="day-first-two-letters"),
        pytest.param("Septembre 6, 2023", id="longer-than-the-month"),
        pytest.param("Mayo 5, 2023", id="may-with-more-letters"),
        # ACD/gpu-accelerated/ngadsv620-series.md:8 (ms.date: 07/31/2024)
        pytest.param("07/31/2024", id="slashes"),
        pytest.param("September 2023", id="no-day"),
        pytest.param("Monday, September 6, 2023", id="weekday"),
        pytest.param("September 6th 2023.", id="sentence-not-date"),
        pytest.param("", id="empty"),
    ],
)
def test_parse_date_text_refuses_what_is_not_one_date(text: str) -> None:
    assert parse_date_text(text) is None


_DATES = st.dates(min_value=dt.date(1000, 1, 1))


@given(_DATES)
def test_parse_date_text_reads_isoformat_back(date: dt.date) -> None:
    assert parse_date_text(date.isoformat()) == date


@given(_DATES, st.sampled_from(["{B} {d}, {Y}", "{d} {B} {Y}", "{b}. {d}, {Y}", "{B} {d}th {Y}", "{d} {b} {Y}"]))
def test_parse_date_text_reads_every_day_written_in_words(date: dt.date, layout: str) -> None:
    text = layout.format(B=f"{date:%B}", b=f"{date:%b}", d=date.day, Y=date.year)
    assert parse_date_text(text) == date


@given(st.text(max_size=40))
def test_parse_date_text_never_raises(text: str) -> None:
    result = parse_date_text(text)
    assert result is None or isinstance(result, dt.date)


# ------------------------------------------------------------------------ CPU models


@pytest.mark.parametrize(
    ("text", "model", "architecture"),
    [
        # ACD/gpu-accelerated/nvv3-series-retirement.md:42 (with the instruction set as specs tables add it)
        pytest.param(
            "AMD EPYC™ 74F3V(Milan) [x86-64]", "AMD EPYC 74F3V (Milan)", "x86-64", id="trademark-and-glued-codename"
        ),
        # ACD/gpu-accelerated/includes/nvadsa10v5-series-specs.md:16
        pytest.param("AMD EPYC 74F3v (Milan) [x86-64]", "AMD EPYC 74F3v (Milan)", "x86-64", id="instruction-set"),
        # AD/sizes-gpu.md:24
        pytest.param(
            "Intel Xeon E5-2690 v3 2.60GHz v3 (Haswell)",
            "Intel Xeon E5-2690 v3 (Haswell)",
            None,
            id="clock-speed-and-repeated-version",
        ),
        # ACD/gpu-accelerated/includes/nd-gb300-v6-series-specs.md:17
        pytest.param("Nvidia Grace CPU", "Nvidia Grace", None, id="trailing-cpu"),
        # ACD/gpu-accelerated/includes/nd-gb200-v6-series-summary.md:15
        pytest.param("NVIDIA Grace CPUs", "NVIDIA Grace", None, id="trailing-cpus"),
        # AD/nc-series.md:14
        pytest.param(
            "Intel Xeon E5-2690 v3 (Haswell) processor", "Intel Xeon E5-2690 v3 (Haswell)", None, id="processor"
        ),
        # AD/ndm-a100-v4-series.md:21
        pytest.param("AMD Epyc™ 7V12 (Rome)", "AMD Epyc 7V12 (Rome)", None, id="trademark-sign"),
        # AD/nct4-v3-series.md:15
        pytest.param("AMD EPYC 7V12(Rome) CPUs", "AMD EPYC 7V12 (Rome)", None, id="glued-codename-and-cpus"),
        # ACD/gpu-accelerated/includes/nd-h200-v5-series-specs.md:16
        pytest.param(
            "Intel Xeon (Sapphire Rapids) [x86-64]", "Intel Xeon (Sapphire Rapids)", "x86-64", id="codename-only"
        ),
        # ACD/gpu-accelerated/includes/nvadsv710-v5-series-specs.md:16
        pytest.param("AMD EPYC 9V64 F (Genoa) [x86-64]", "AMD EPYC 9V64 F (Genoa)", "x86-64", id="spaced-suffix"),
        # ACD/gpu-accelerated/includes/nc-rtxpro6000-bse-v6-series-specs.md:15
        pytest.param(
            "Intel Xeon Granite Rapids-AP [x86-64]", "Intel Xeon Granite Rapids-AP", "x86-64", id="hyphen-kept"
        ),
        # ACD/gpu-accelerated/includes/ndv2-series-specs.md:15
        pytest.param(
            "Intel Xeon Platinum 8168 (Skylake) [x86-64]",
            "Intel Xeon Platinum 8168 (Skylake)",
            "x86-64",
            id="platinum",
        ),
        pytest.param("the Intel Xeon Scalable processor", "Intel Xeon Scalable", None, id="article-and-processor"),
        pytest.param("Intel(R) Xeon(R) Platinum 8168", "Intel Xeon Platinum 8168", None, id="r-in-brackets"),
        pytest.param("AMD EPYC 7V12 (Rome)", "AMD EPYC 7V12 (Rome)", None, id="already-clean"),
        pytest.param("", "", None, id="empty"),
    ],
)
def test_clean_cpu_model(text: str, model: str, architecture: str | None) -> None:
    assert clean_cpu_model(text) == (model, architecture)


@st.composite
def _decorated_cpu_models(draw: st.DrawFn) -> tuple[str, str, str | None]:
    """(text, model, instruction set): a clean model written with what pages add around it."""
    maker = draw(st.sampled_from(["Intel Xeon", "AMD EPYC", "Nvidia Grace"]))
    number = draw(st.sampled_from(["", "E5-2690 v4", "Platinum 8168", "7V12", "74F3V", "9V64 F"]))
    codename = draw(st.sampled_from(["", "Milan", "Rome", "Sapphire Rapids"]))
    arch = draw(st.sampled_from([None, "x86-64", "Arm64"]))
    model = " ".join(w for w in (maker, number, f"({codename})" if codename else "") if w)
    text = maker + draw(st.sampled_from(["", "™", "®", "(TM)"]))
    text += f" {number}" if number else ""
    text += draw(st.sampled_from(["", " 2.60GHz", " 3.2 GHz"]))
    text += (draw(st.sampled_from(["", " "])) + f"({codename})") if codename else ""
    text += f" [{arch}]" if arch else ""
    text += draw(st.sampled_from(["", " CPU", " CPUs", " processor", " processors"]))
    return text, model, arch


@given(_decorated_cpu_models())
def test_clean_cpu_model_removes_only_decorations(case: tuple[str, str, str | None]) -> None:
    text, model, arch = case
    assert clean_cpu_model(text) == (model, arch)
    assert clean_cpu_model(model) == (model, None)


@given(st.text(max_size=40))
def test_clean_cpu_model_never_raises(text: str) -> None:
    model, arch = clean_cpu_model(text)
    assert isinstance(model, str)
    assert arch is None or isinstance(arch, str)


@dataclasses.dataclass
class _V:
    value: str
    value_number: float | None = None
    value_text: str | None = None
    value_bool: bool | None = None


@pytest.mark.parametrize(
    ("a", "b", "tolerance", "same", "twin", "prefix"),
    [
        (_V("672", 672.0), _V("672", 672.0), 0.0, True, False, False),
        (_V("672", 672.0), _V("673", 673.0), 0.0, False, False, False),
        (_V("1900", 1900.0), _V("1901", 1901.0), 0.001, True, False, False),
        # 112 GB read as GiB is 104.3 GiB: one quantity read two ways, not the same number.
        (_V("112", 112.0), _V("104.31", 112e9 / 2**30), 0.001, False, True, False),
        # 1 TB written 1000 on one page and 1024 on another.
        (_V("1000", 1000.0), _V("1024", 1024.0), 0.001, False, False, True),
        (
            _V("AMD EPYC 74F3V", value_text="AMD EPYC 74F3V"),
            _V("x", value_text="AMD EPYC 74F3v (Milan)"),
            0,
            True,
            False,
            False,
        ),
        (_V("true", value_bool=True), _V("false", value_bool=False), 0.0, False, False, False),
        (_V("8", 8.0), _V("8", value_text="8"), 0.0, False, False, False),  # a number is never a text
    ],
)
def test_stated_values_compare(a: _V, b: _V, tolerance: float, same: bool, twin: bool, prefix: bool) -> None:
    assert same_value(a, b, tolerance) is same and same_value(b, a, tolerance) is same
    assert twin_values(a, b) is twin and twin_values(b, a) is twin
    assert prefix_twin_values(a, b) is prefix and prefix_twin_values(b, a) is prefix
