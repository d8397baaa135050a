"""Azure VM names: size names and series names as documents write them, beside what they mean."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pipeline.names import SizeName, feature_meanings, parse_series, parse_size, series_key

# ------------------------------------------------------------------------ size names


@pytest.mark.parametrize(
    ("written", "canonical"),
    [
        pytest.param("ND40rs\\_v2", "Standard_ND40rs_v2", id="markdown-escaped-underscore"),
        pytest.param("ND40rs_v2", "Standard_ND40rs_v2", id="without-tier"),
        pytest.param("standard_nd40rs_v2", "Standard_ND40rs_v2", id="all-lowercase"),
        pytest.param("Standard_ND40rs_v2", "Standard_ND40rs_v2", id="canonical"),
        pytest.param("`Standard_NC6s_v3`", "Standard_NC6s_v3", id="code-ticks"),
        pytest.param("**Standard_NC6s_v3**", "Standard_NC6s_v3", id="bold"),
        pytest.param("Standard_ND24rs*", "Standard_ND24rs", id="footnote-asterisk"),
        pytest.param("Standard_ND96isr_H100_v5†", "Standard_ND96isr_H100_v5", id="footnote-dagger"),
        pytest.param("Standard_NV72ads_A10_v5¹", "Standard_NV72ads_A10_v5", id="footnote-superscript"),
        pytest.param("Standard_ND40rs_v2<sup>1</sup>", "Standard_ND40rs_v2", id="footnote-sup-tag"),
        pytest.param("Standard_NV6 [1]", "Standard_NV6", id="footnote-bracket"),
        pytest.param("ND6", "Standard_ND6", id="first-generation"),
        pytest.param("STANDARD_NG8ADS_V620_V1", "Standard_NG8ads_V620_v1", id="all-uppercase"),
        pytest.param("standard_nd96isr_mi300x_v5", "Standard_ND96isr_MI300X_v5", id="lowercase-accelerator"),
        pytest.param("basic_a1", "Basic_A1", id="basic-tier"),
    ],
)
def test_every_spelling_of_a_size_has_one_canonical_name(written: str, canonical: str) -> None:
    size = parse_size(written)
    assert size is not None
    assert size.canonical == canonical
    assert size.key == canonical.lower()


@pytest.mark.parametrize(
    ("written", "family", "vcpus", "constrained", "features", "accelerator", "version"),
    [
        pytest.param("Standard_NG8ads_V620_v1", "NG", 8, None, "ads", "V620", "v1", id="NG8ads_V620_v1"),
        pytest.param("Standard_ND96asr_v4", "ND", 96, None, "asr", None, "v4", id="ND96asr_v4"),
        pytest.param("Standard_NC24ads_A100_v4", "NC", 24, None, "ads", "A100", "v4", id="NC24ads_A100_v4"),
        pytest.param("Standard_ND128isrG5_GB300_v6", "ND", 128, None, "isrG5", "GB300", "v6", id="ND128isrG5_GB300_v6"),
        pytest.param("Standard_M416-208s_v2", "M", 416, 208, "s", None, "v2", id="constrained-vcpus"),
        pytest.param("Standard_ND6", "ND", 6, None, "", None, None, id="no-features-no-version"),
        pytest.param("Standard_ND24rs", "ND", 24, None, "rs", None, None, id="no-version"),
    ],
)
def test_size_name_parts(
    written: str,
    family: str,
    vcpus: int,
    constrained: int | None,
    features: str,
    accelerator: str | None,
    version: str | None,
) -> None:
    assert parse_size(written) == SizeName(
        canonical=written,
        family=family,
        vcpus=vcpus,
        constrained_vcpus=constrained,
        features=features,
        accelerator=accelerator,
        version=version,
    )


@pytest.mark.parametrize(
    "written",
    [
        pytest.param("InfiniBand", id="technology"),
        pytest.param("Nvidia", id="vendor"),
        pytest.param("GPU", id="letters-only"),
        pytest.param("", id="empty"),
        pytest.param("ND40rs v2", id="contains-space"),
        pytest.param("Standard_" + "ND" * 30, id="too-long"),
        pytest.param("vCPUs", id="column-header"),
    ],
)
def test_words_that_are_not_size_names(written: str) -> None:
    assert parse_size(written) is None


@pytest.mark.parametrize(
    ("written", "meanings"),
    [
        pytest.param(
            "Standard_ND96asr_v4",
            [("a", "AMD processor"), ("s", "premium storage capable"), ("r", "RDMA capable")],
            id="ND96asr_v4",
        ),
        pytest.param(
            "Standard_NG8ads_V620_v1",
            [("a", "AMD processor"), ("d", "local temp disk"), ("s", "premium storage capable")],
            id="NG8ads_V620_v1",
        ),
        pytest.param(
            "Standard_ND128isrG5_GB300_v6",
            [("i", "isolated size"), ("s", "premium storage capable"), ("r", "RDMA capable")],
            id="uppercase-part-has-no-meaning",
        ),
        pytest.param("Standard_ND6", [], id="no-features"),
    ],
)
def test_feature_meanings(written: str, meanings: list[tuple[str, str]]) -> None:
    size = parse_size(written)
    assert size is not None
    assert feature_meanings(size) == meanings


_SIZE_SPELLINGS = st.from_regex(
    r"(?:[Ss]tandard_)?N[CDGV][1-9][0-9]{0,2}[adimrs]{0,4}(?:_[ABHT][1-9][0-9]{0,2}_v[1-6]|_v[1-6])?",
    fullmatch=True,
)


@given(_SIZE_SPELLINGS)
def test_upper_lower_and_canonical_spellings_agree(written: str) -> None:
    size = parse_size(written)
    assert size is not None
    assert parse_size(written.upper()) == size
    assert parse_size(written.lower()) == size
    assert parse_size(size.canonical) == size


# ------------------------------------------------------------------------ series names


@pytest.mark.parametrize(
    ("title", "written", "key"),
    [
        pytest.param("ND A100 v4-series", "ND A100 v4", "nda100v4", id="learn-title"),
        pytest.param("Updated NDv2-series", "NDv2", "ndv2", id="updated-prefix"),
        pytest.param("Overview of NGads V620 Series (preview)", "NGads V620", "ngadsv620v1", id="overview-preview"),
        pytest.param("ND GB300-v6 size series", "ND GB300 v6", "ndgb300v6", id="hyphenated-version"),
        pytest.param("ND H200 v5 size series", "ND H200 v5", "ndh200v5", id="size-series"),
        pytest.param("NDasrA100_v4-series", "NDasrA100_v4", "ndasra100v4", id="underscore-spelling"),
        pytest.param("NC-series", "NC", "ncv1", id="first-generation"),
        pytest.param("Previous-generation ND-series", "ND", "ndv1", id="previous-generation"),
        pytest.param(
            "Azure ND-Series: AI and Deep Learning GPU Virtual Machines", "ND", "ndv1", id="third-party-title"
        ),
        pytest.param(
            "Azure ND GB300 v6 Virtual Machines: General Availability and Next-Gen AI Infrastructure",
            "ND GB300 v6",
            "ndgb300v6",
            id="blog-title",
        ),
        pytest.param(
            "Azure ND GB300 V6 Virtual Machines",
            "ND GB300 V6",
            "ndgb300v6",
            id="blog-tag-uppercase-version",
        ),
    ],
)
def test_parse_series(title: str, written: str, key: str) -> None:
    series = parse_series(title)
    assert series is not None
    assert (series.written, series.key) == (written, key)


@pytest.mark.parametrize(
    "title",
    [
        pytest.param("ND family virtual machine size series", id="family-page"),
        pytest.param("NC sub-family GPU accelerated VM size series", id="sub-family-page"),
        pytest.param("Other sizes", id="other-sizes"),
        pytest.param("Next steps", id="next-steps"),
        pytest.param("Azure VM sizes - GPU | Microsoft Docs", id="index-page"),
        pytest.param("GPU optimized virtual machine sizes", id="category-page"),
        pytest.param("Sizes for virtual machines in Azure", id="all-sizes-page"),
        pytest.param("NVIDIA GPU Driver Extension for Linux", id="no-anchor-word"),
    ],
)
def test_titles_about_no_single_series(title: str) -> None:
    assert parse_series(title) is None


@pytest.mark.parametrize(
    ("name", "key"),
    [
        pytest.param("NGads V620", "ngadsv620v1", id="space"),
        pytest.param("NGads_V620", "ngadsv620v1", id="underscore"),
        pytest.param("NDv2", "ndv2", id="version-glued"),
        pytest.param("NDv2 ", "ndv2", id="trailing-space"),
        pytest.param("ND A100 v4", "nda100v4", id="version-separate"),
        pytest.param("NDasrA100_v4", "ndasra100v4", id="version-after-underscore"),
        pytest.param("ND", "ndv1", id="first-generation-is-v1"),
        pytest.param(
            "NDv2-series",
            "ndv2",
            id="series-suffix-with-version",
        ),
        pytest.param(
            "ND A100 v4-series",
            "nda100v4",
            id="series-suffix-with-separate-version",
        ),
        pytest.param("ND-series", "ndv1", id="series-suffix-first-generation"),
    ],
)
def test_series_key(name: str, key: str) -> None:
    assert series_key(name) == key


@pytest.mark.parametrize(
    ("a", "b"),
    [
        pytest.param("NGads V620", "NGads_V620", id="space-or-underscore"),
        pytest.param("NDv2", "NDv2 ", id="trailing-space"),
        pytest.param("ND A100 v4", "nd a100 v4", id="case"),
        pytest.param(
            "ND GB300 v6",
            "ND GB300 V6",
            id="uppercase-version",
        ),
        pytest.param("ND GB300 v6", "ND-GB300-v6", id="hyphens"),
    ],
)
def test_spellings_of_one_series_share_a_key(a: str, b: str) -> None:
    assert series_key(a) == series_key(b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        pytest.param("ND", "NDv2", id="first-and-second-generation"),
        pytest.param("NDv2", "NDv3", id="versions"),
        pytest.param("NC A100 v4", "ND A100 v4", id="families"),
    ],
)
def test_different_series_have_different_keys(a: str, b: str) -> None:
    assert series_key(a) != series_key(b)
