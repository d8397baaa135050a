"""Azure VM names: size names and series names as documents write them, beside what they mean."""

from __future__ import annotations

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from pipeline.knowledge.names import (
    SeriesParts,
    SizeName,
    feature_meanings,
    find_series,
    find_series_groups,
    member_of,
    parse_series,
    parse_size,
    series_key,
    series_parts,
)

# Real cases cite the Learn page they were copied from as path:line under sources/azure-docs/, where
# ACD = azure-compute-docs/articles/virtual-machines/sizes and AD = azure-docs/articles/virtual-machines.
# Markdown links are reduced to their text, as extraction hands running text to these functions.

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


# ------------------------------------------------------------------------ every series a sentence names


@pytest.mark.parametrize(
    ("text", "names"),
    [
        pytest.param(
            # ACD/lifecycle/retirement/n-series-migration.md:18
            "The first group of GPU products to be retired in Azure are the original NC, NC v2 and ND-series VMs, "
            "powered by NVIDIA Tesla K80, P100, and P40 datacenter GPU accelerators respectively.",
            ["NC", "NC v2", "ND"],
            id="list-ending-in-series",
        ),
        pytest.param(
            # ACD/gpu-accelerated/includes/nv-series-summary.md:16
            "NV and NV_Promo series Azure virtual machines (VMs) will be retired on September 6, 2023.",
            ["NV", "NV_Promo"],
            id="promo-variant",
        ),
        pytest.param(
            # ACD/gpu-accelerated/includes/nv-series-summary.md:18
            "NVv3 and NVv4 series VMs are planned to retire on September 30, 2026.",
            ["NVv3", "NVv4"],
            id="two-versions",
        ),
        pytest.param(
            # ACD/gpu-accelerated/nv-family.md:77
            "After their retirement on September 30, 2026, NVv3-series and NVv4-series will also be listed there "
            "as previous-generation sizes.",
            ["NVv3", "NVv4"],
            id="each-with-its-own-series",
        ),
        pytest.param(
            # ACD/lifecycle/retirement/n-series-migration.md:59
            "Like the NC and ND -Series, the NC v2-Series offers a configuration with a secondary low-latency, "
            "high-throughput network through RDMA, and InfiniBand connectivity",
            ["NC", "ND", "NC v2"],
            id="spaced-hyphen-and-capital-series",
        ),
        pytest.param(
            # AD/sizes-gpu.md:24
            "The NC-series uses the Intel Xeon E5-2690 v3 2.60GHz v3 (Haswell) processor, and the NCv2-series and "
            "NCv3-series VMs use the Intel Xeon E5-2690 v4 (Broadwell) processor.",
            ["NC", "NCv2", "NCv3"],
            id="cpu-model-versions-are-not-series",
        ),
        pytest.param(
            # ACD/lifecycle/retirement/n-series-migration.md:130
            "users of these sizes should consider achieving their performance goals with more powerful NVIDIA V100 "
            "GPU-based VM series like the NC v3-Series and ND v2-series, which typically enable the same level",
            ["NC v3", "ND v2"],
            id="series-after-vm-series",
        ),
        pytest.param(
            # ACD/lifecycle/retirement/n-series-migration.md:44
            "The NC (v1)-Series VMs are Azure’s oldest GPU-accelerated compute VM type",
            ["NC v1"],
            id="version-in-brackets",
        ),
        pytest.param(
            # ACD/gpu-accelerated/ndh100v5-series.md:2
            "ND-H100-v5 size series",
            ["ND H100 v5"],
            id="hyphenated-name",
        ),
        pytest.param(
            # ACD/gpu-accelerated/includes/ndmi300xv5-series-specs.md:12
            "I want to review the specifications of the ND-MI300X-v5 series VMs",
            ["ND MI300X v5"],
            id="hyphenated-amd-accelerator",
        ),
        pytest.param(
            # ACD/gpu-accelerated/includes/nvadsv710-v5-series-specs.md:2
            "NVads-V710 v5-series specs include",
            ["NVads V710 v5"],
            id="hyphen-after-feature-letters",
        ),
        pytest.param(
            # ACD/lifecycle/retirement/n-series-migration.md:84
            "> NP-series sizes (Standard_NP10s, Standard_NP20s, Standard_NP40s) are scheduled for "
            "**retirement on May 31, 2027**.",
            ["NP"],
            id="sizes-listed-after-the-series",
        ),
        pytest.param(
            # ACD/lifecycle/retirement/nd-series-retirement.md:13
            "we're extending the retirement date by one year to 6 September 2023, for the Azure ND-Series virtual "
            "machine to give you more time to plan  your migration.",
            ["ND"],
            id="after-azure",
        ),
        pytest.param(
            # ACD/gpu-accelerated/nc-rtxpro6000-bse-v6-series-overview.md:21
            "The NCv6-series is currently in public preview",
            ["NCv6"],
            id="single",
        ),
        pytest.param(
            # ACD/lifecycle/retirement/n-series-migration.md:48
            "In general, NC-Series customers should consider moving directly across from NC sizes to NC T4 v3 sizes",
            ["NC", "NC T4 v3"],
            id="each-series-once",
        ),
        pytest.param(
            # ACD/lifecycle/retirement/n-series-migration.md:130
            "All retired NC, NC v2, and ND-series sizes were available in multi-GPU sizes",
            ["NC", "NC v2", "ND"],
            id="comma-before-and",
        ),
        pytest.param(
            # ACD/lifecycle/retirement/nd-series-retirement.md:22
            "This retirement doesn't impact the newer NCv3, NC T4 v3, and ND v2 series virtual machines.",
            ["NCv3", "NC T4 v3", "ND v2"],
            id="comma-before-and-series-after",
        ),
        pytest.param(
            # AD/nd-h100-v5-series.md:6 (the front-matter title)
            "ND H100 v5-series- Azure Virtual Machines",
            ["ND H100 v5"],
            id="series-followed-by-a-dash",
        ),
    ],
)
def test_find_series(text: str, names: list[str]) -> None:
    assert [s.written for s in find_series(text)] == names


@pytest.mark.parametrize(
    "text",
    [
        # ACD/gpu-accelerated/nd-family.md:2
        pytest.param("ND family virtual machine size series", id="family-page-title"),
        # ACD/gpu-accelerated/nv-family.md:14
        pytest.param("'NV' sub-family GPU accelerated VM size series", id="sub-family-heading"),
        # ACD/gpu-accelerated/nc-family.md:10
        pytest.param(
            "I want to review the specifications and use cases of the NC family GPU-accelerated VM sizes",
            id="family-in-a-sentence",
        ),
        # ACD/lifecycle/retirement/n-series-migration.md:18
        pytest.param(
            "These products will be retired on August 31st 2023, and the oldest VMs in this series launched in 2016.",
            id="this-series",
        ),
        # ACD/lifecycle/retirement/n-series-migration.md:109
        pytest.param("Choose a series and size for modernization.", id="a-series"),
        # ACD/lifecycle/retirement/n-series-migration.md:14
        pytest.param("Modernization guide for GPU compute workloads in Azure", id="no-anchor-word"),
        pytest.param("", id="empty"),
    ],
)
def test_text_that_names_no_series(text: str) -> None:
    assert find_series(text) == ()


@pytest.mark.parametrize(
    ("text", "groups"),
    [
        pytest.param(
            # ACD/lifecycle/retirement/n-series-migration.md:48
            "In general, NC-Series customers should consider moving directly across from NC sizes to NC T4 v3 sizes",
            [["NC"], ["NC"], ["NC T4 v3"]],
            id="one-group-per-place",
        ),
        pytest.param(
            # ACD/lifecycle/retirement/n-series-migration.md:18
            "the original NC, NC v2 and ND-series VMs",
            [["NC", "NC v2", "ND"]],
            id="a-list-is-one-group",
        ),
        pytest.param(
            # ACD/gpu-accelerated/nv-family.md:77
            "NVv3-series and NVv4-series will also be listed there",
            [["NVv3"], ["NVv4"]],
            id="two-places",
        ),
        pytest.param(
            # ACD/lifecycle/retirement/n-series-migration.md:59
            "Like the NC and ND -Series, the NC v2-Series offers a configuration",
            [["NC", "ND"], ["NC v2"]],
            id="list-then-single",
        ),
        pytest.param(
            # ACD/gpu-accelerated/nd-h200-v5-series.md:17
            "ND-H200-v5 size series",
            [["ND H200 v5"]],
            id="size-series-is-one-place",
        ),
    ],
)
def test_find_series_groups(text: str, groups: list[list[str]]) -> None:
    assert [[s.written for s in group] for group in find_series_groups(text)] == groups


_SERIES_SPELLINGS = st.from_regex(
    r"N[CDGV](?:[adms]{1,3})?(?:v[2-6]|_[AHT][1-9][0-9]{1,2}_v[2-6]| [AHT][1-9][0-9]{1,2} v[2-6])?",
    fullmatch=True,
)


@given(_SERIES_SPELLINGS)
def test_a_series_in_a_sentence_is_found_as_written(name: str) -> None:
    found = find_series(f"The {name}-series VMs are available in preview.")
    assert [(s.written, s.key) for s in found] == [(name, series_key(name))]


@given(st.text(max_size=60))
def test_find_series_never_raises_and_flattens_its_groups(text: str) -> None:
    groups = find_series_groups(text)
    assert find_series(text) == tuple(dict.fromkeys(s for group in groups for s in group))


@given(st.text(max_size=60))
def test_text_about_a_family_names_no_series(text: str) -> None:
    assert find_series(f"{text} family") == ()


# ------------------------------------------------------------------------ parts of a series name


@pytest.mark.parametrize(
    ("name", "parts"),
    [
        # ACD/gpu-accelerated/ndma100v4-series.md:2
        pytest.param("NDm_A100_v4", SeriesParts("ND", "m", ("A100",), "v4"), id="NDm_A100_v4"),
        # ACD/gpu-accelerated/ndv2-series.md:2
        pytest.param("NDv2", SeriesParts("ND", "", (), "v2"), id="version-glued"),
        # ACD/lifecycle/retirement/n-series-migration.md:59
        pytest.param("NC v2", SeriesParts("NC", "", (), "v2"), id="version-separate"),
        # AD/ngads-v-620-series.md:2
        pytest.param("NGads V620", SeriesParts("NG", "ads", ("V620",), "v1"), id="no-version-is-v1"),
        # ACD/gpu-accelerated/includes/nv-series-summary.md:16
        pytest.param("NV_Promo", SeriesParts("NV", "", (), "v1", ("PROMO",)), id="variant"),
        # ACD/gpu-accelerated/nvadsa10v5-series.md:2
        pytest.param("NVadsA10_v5", SeriesParts("NV", "ads", ("A10",), "v5"), id="accelerator-glued"),
        # ACD/gpu-accelerated/ndasra100v4-series.md:2
        pytest.param("NDasrA100_v4", SeriesParts("ND", "asr", ("A100",), "v4"), id="NDasrA100_v4"),
        # AD/nda100-v4-series.md:2
        pytest.param("ND A100 v4", SeriesParts("ND", "", ("A100",), "v4"), id="words"),
        # ACD/gpu-accelerated/nccadsh100v5-series.md:2
        pytest.param("NCCads_H100_v5", SeriesParts("NCC", "ads", ("H100",), "v5"), id="three-letter-family"),
        # ACD/gpu-accelerated/ncast4v3-series.md:2
        pytest.param("NCasT4_v3", SeriesParts("NC", "as", ("T4",), "v3"), id="NCasT4_v3"),
        # ACD/gpu-accelerated/nc-rtxpro6000bsev6-series.md:2
        pytest.param("NC_RTXPRO6000BSE_v6", SeriesParts("NC", "", ("RTXPRO6000BSE",), "v6"), id="long-accelerator"),
        # ACD/gpu-accelerated/ndh100v5-series.md:2
        pytest.param("ND-H100-v5 size series", SeriesParts("ND", "", ("H100",), "v5"), id="hyphens-and-suffix"),
        # AD/nd-series.md:12
        pytest.param("ND-series", SeriesParts("ND", "", (), "v1"), id="first-generation"),
    ],
)
def test_series_parts(name: str, parts: SeriesParts) -> None:
    assert series_parts(name) == parts


@pytest.mark.parametrize(
    "name",
    [
        pytest.param("", id="empty"),
        pytest.param("nd", id="lowercase"),
        pytest.param("the ND-series", id="word-before-the-name"),
        pytest.param("40rs_v2", id="starts-with-a-number"),
    ],
)
def test_names_that_do_not_start_with_a_family_have_no_parts(name: str) -> None:
    assert series_parts(name) is None


# ------------------------------------------------------------------------ which series a size can belong to


@pytest.mark.parametrize(
    ("size", "series", "member"),
    [
        # ACD/gpu-accelerated/nvadsa10v5-series.md:31
        pytest.param("Standard_NV6ads_A10_v5", "NVadsA10_v5", True, id="NV6ads_A10_v5-of-NVadsA10_v5"),
        # ACD/gpu-accelerated/nvcadbA10M5+serbes.md:2 and :27, a garbled page title over the A10 table
        pytest.param("Standard_NV6ads_A10_v5", "NVcadbA10_M5+", False, id="garbled-title-letters-c-and-b-missing"),
        # ACD/gpu-accelerated/ndasra100v4-series.md:31
        pytest.param("Standard_ND96asr_v4", "NDasrA100_v4", True, id="accelerator-only-in-the-series"),
        # AD/nda100-v4-series.md:2
        pytest.param("Standard_ND96asr_v4", "ND A100 v4", True, id="series-spelled-in-words"),
        # ACD/gpu-accelerated/ndasra100v4-series.md:31 and ndma100v4-series.md:2
        pytest.param("Standard_ND96asr_v4", "NDm_A100_v4", False, id="letter-m-missing"),
        # ACD/gpu-accelerated/ndma100v4-series.md:41
        pytest.param("Standard_ND96amsr_A100_v4", "NDm_A100_v4", True, id="ND96amsr_A100_v4-of-NDm_A100_v4"),
        # ACD/gpu-accelerated/nccadsh100v5-series.md:41
        pytest.param("Standard_NCC40ads_H100_v5", "NCads_H100_v5", False, id="NCC-is-not-NC"),
        pytest.param("Standard_NCC40ads_H100_v5", "NCCads_H100_v5", True, id="NCC40ads_H100_v5-of-NCCads_H100_v5"),
        # ACD/gpu-accelerated/ndv2-series.md:41
        pytest.param("Standard_ND40rs_v2", "ND", False, id="ND-is-v1"),
        pytest.param("Standard_ND40rs_v2", "NDv2", True, id="ND40rs_v2-of-NDv2"),
        pytest.param("Standard_ND40rs_v2", "NDv2-series", True, id="series-suffix"),
        # ACD/gpu-accelerated/nv-series.md:35 and includes/nv-series-summary.md:16
        pytest.param("Standard_NV6", "NV_Promo", False, id="variant-not-carried"),
        pytest.param("Standard_NV6", "NV", True, id="first-generation"),
        # Spelled as the NC Promo sizes are, ACD/lifecycle/retirement/n-series-migration.md:52
        pytest.param("Standard_NV6_Promo", "NV", True, id="promo-size-of-its-series"),
        pytest.param("Standard_NV6_Promo", "NV_Promo", True, id="promo-size-of-the-promo-series"),
        # ACD/lifecycle/retirement/n-series-migration.md:52
        pytest.param("Standard_NC6_Promo", "NC", True, id="NC6_Promo-of-NC"),
        # ACD/lifecycle/retirement/n-series-migration.md:52, the page drops the version of NC8as_T4_v3
        pytest.param("Standard_NC8as_T4", "NCasT4_v3", False, id="size-without-version-is-v1"),
        # ACD/gpu-accelerated/ndh100v5-series.md:52 and nd-h200-v5-series.md:6
        pytest.param("Standard_ND96isr_H100_v5", "ND H100 v5", True, id="same-accelerator"),
        pytest.param("Standard_ND96isr_H100_v5", "ND H200 v5", False, id="other-accelerator"),
        # ACD/gpu-accelerated/nvadsa10v5-series.md:31 and nvadsv710-v5-series.md:2
        pytest.param("Standard_NV6ads_A10_v5", "NVads V710 v5", False, id="A10-is-not-V710"),
        # ACD/gpu-accelerated/ngadsv620-series.md:31 and :2
        pytest.param("Standard_NG8ads_V620_v1", "NGads_V620", True, id="explicit-v1-of-unversioned-series"),
        # ACD/gpu-accelerated/nvv3-series.md:34 and nvv4-series.md:2
        pytest.param("Standard_NV12s_v3", "NVv3", True, id="NV12s_v3-of-NVv3"),
        pytest.param("Standard_NV12s_v3", "NVv4", False, id="other-version"),
        # ACD/gpu-accelerated/nd-gb200-v6-series.md:31
        pytest.param("Standard_ND128isr_NDR_GB200_v6", "ND GB200 v6", True, id="extra-word-in-the-size"),
        # ACD/gpu-accelerated/nc-rtxpro6000bsev6-series.md:46 and :2
        pytest.param(
            "Standard_NC128ds_xl_RTXPRO6000BSE_v6", "NC_RTXPRO6000BSE_v6", True, id="NC128ds_xl_RTXPRO6000BSE_v6"
        ),
        # ACD/gpu-accelerated/nd-series.md:35
        pytest.param("Standard_ND6s", "ND", True, id="ND6s-of-ND"),
        pytest.param("Standard_ND6s", "NV", False, id="other-family"),
        pytest.param("Standard_NV6ads_A10_v5", "", False, id="empty-series"),
    ],
)
def test_member_of(size: str, series: str, member: bool) -> None:
    parsed = parse_size(size)
    assert parsed is not None
    assert member_of(parsed, series) is member


_FAMILIES = st.sampled_from(["NC", "NCC", "ND", "NG", "NP", "NV", "HB", "M"])
_SERIES_TAILS = st.from_regex(
    r"[adms]{0,3}(?:v[2-6]|_[AHT][1-9][0-9]{1,2}_v[2-6]| [AHT][1-9][0-9]{1,2} v[2-6])?(?:-series)?",
    fullmatch=True,
)


@given(_SIZE_SPELLINGS, _FAMILIES, _SERIES_TAILS)
def test_a_size_is_never_of_another_family(written: str, family: str, tail: str) -> None:
    size = parse_size(written)
    assert size is not None
    assume(family != size.family)
    assert not member_of(size, family + tail)


@given(_SIZE_SPELLINGS)
def test_a_size_is_of_the_series_its_name_spells(written: str) -> None:
    size = parse_size(written)
    assert size is not None
    name = size.family + size.features
    name += f"_{size.accelerator}" if size.accelerator else ""
    name += f"_{size.version}" if size.version else ""
    assert member_of(size, name)


@given(_SIZE_SPELLINGS, st.integers(min_value=1, max_value=9))
def test_a_size_is_never_of_another_version(written: str, version: int) -> None:
    size = parse_size(written)
    assert size is not None
    assume(f"v{version}" != (size.version or "v1"))
    assert not member_of(size, f"{size.family}v{version}")
