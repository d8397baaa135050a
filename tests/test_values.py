"""Values as documents print them: each case is the text of a cell beside the value read from it."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pipeline import knowledge
from pipeline.values import (
    Quantity,
    format_number,
    is_empty,
    parse_flag,
    parse_generations,
    parse_number,
    parse_quantity,
)

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
