"""Reconciliation on the shipped sources: the decisions an analyst relies on, each asserted."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from pipeline.cache import Cache
from pipeline.names import parse_size
from pipeline.reconcile import NAME_CONVENTION, Conflict, Fact, Reconciled, reconcile
from pipeline.records import BuildResult, Claim
from pipeline.registry import Source, classify, load_registry
from pipeline.values import format_number
from tests.conftest import SOURCES


def fact(result: BuildResult, entity: str, attribute: str) -> Fact:
    found = [f for f in result.facts if f.entity == entity and f.attribute == attribute]
    assert len(found) == 1, f"{entity}.{attribute}: {len(found)} facts"
    return found[0]


def conflicts(result: BuildResult, entity: str, attribute: str) -> list[Conflict]:
    return [c for c in result.conflicts if c.entity == entity and c.attribute == attribute]


def test_nd40rs_v2_gpu_memory_is_32_from_the_official_page_with_16_as_a_recorded_conflict(
    shipped: BuildResult,
) -> None:
    f = fact(shipped, "Standard_ND40rs_v2", "gpu_memory_gib")
    assert (f.value_number, f.status) == (32, "resolved")
    assert f.reason.startswith("Official Microsoft Learn page (2020-02-03) over a third-party page")
    assert "the third-party value 16 GiB matches the retired ND40s_v2" in f.reason
    rows = {c.value: c for c in conflicts(shipped, "Standard_ND40rs_v2", "gpu_memory_gib")}
    assert set(rows) == {"32", "16"}
    assert rows["32"].won and not rows["16"].won
    assert rows["16"].documents == ("seeds/thirdparty-azure-nd-series.txt:58",)
    assert rows["16"].kinds == ("third_party",)


@pytest.mark.parametrize("size", ["Standard_NG8", "Standard_NG16", "Standard_NG32"])
def test_third_party_ng_sizes_a100_conflicts_with_the_official_ngads_v620_gpu(shipped: BuildResult, size: str) -> None:
    f = fact(shipped, size, "gpu_model")
    assert (f.value_text, f.status) == ("A100", "unverified")
    rows = {c.value: c for c in conflicts(shipped, size, "gpu_model")}
    assert set(rows) == {"A100", "V620"}
    assert rows["V620"].won and rows["V620"].kinds == ("official_spec",)
    assert "NGads_V620" in rows["V620"].note or "NG" in rows["V620"].note
    assert rows["A100"].documents[0].startswith("seeds/thirdparty-azure-ng-series.txt:")


@pytest.mark.parametrize(
    ("size", "official"),
    [
        ("Standard_ND6", "Standard_ND6s"),
        ("Standard_ND12", "Standard_ND12s"),
        ("Standard_ND24", "Standard_ND24s"),
    ],
)
def test_third_party_nd_v100_16gb_conflicts_with_the_official_p40_24gb(
    shipped: BuildResult, size: str, official: str
) -> None:
    model = {c.value: c for c in conflicts(shipped, size, "gpu_model")}
    assert set(model) == {"V100", "P40"} and model["P40"].won
    memory = {c.value: c for c in conflicts(shipped, size, "gpu_memory_gib")}
    assert set(memory) == {"16", "24"} and memory["24"].won
    assert fact(shipped, official, "gpu_model").value_text == "P40"
    assert fact(shipped, official, "gpu_memory_gib").value_number == 24


def test_a_value_only_the_gb300_blog_states_is_single_source(shipped: BuildResult) -> None:
    f = fact(shipped, "ND GB300 v6", "gpus_per_rack")
    assert (f.value_number, f.status, f.sources) == (72, "single_source", 1)
    assert f.document == "seeds/blog-nd-gb300-v6-ga-aggregator.txt" and f.line == 28
    assert "vendor blog post (2025-11-19)" in f.reason


def test_a_value_the_blog_and_the_official_summary_both_state_is_agreed(shipped: BuildResult) -> None:
    f = fact(shipped, "ND GB300 v6", "vms_per_rack")
    assert (f.value_number, f.status, f.sources) == (18, "agreed", 2)


@pytest.mark.parametrize(
    "size", ["Standard_ND6", "Standard_ND12", "Standard_ND24", "Standard_NG8", "Standard_NG16", "Standard_NG32"]
)
def test_sizes_no_official_document_names_are_kept_unverified(shipped: BuildResult, size: str) -> None:
    facts = [f for f in shipped.facts if f.entity == size]
    assert facts and all(f.status == "unverified" for f in facts)


@pytest.mark.parametrize(
    ("size", "linked"),
    [
        ("Standard_ND6", "Standard_ND6s"),
        ("Standard_ND12", "Standard_ND12s"),
        ("Standard_ND24", "Standard_ND24s"),
        ("Standard_NG8", "Standard_NG8ads_V620_v1"),
        ("Standard_NG16", "Standard_NG16ads_V620_v1"),
        ("Standard_NG32", "Standard_NG32ads_V620_v1"),
    ],
)
def test_unverified_sizes_are_linked_to_the_closest_official_size(shipped: BuildResult, size: str, linked: str) -> None:
    links = {lk.entity: lk for lk in shipped.links}
    assert links[size].linked_to == linked
    assert "vCPUs in the name" in links[size].evidence


def test_newer_official_page_supersedes_older_one_of_the_same_tier(shipped: BuildResult) -> None:
    f = fact(shipped, "ND A100 v4", "accelerated_networking")
    assert (f.value_bool, f.status) == (True, "resolved")
    assert f.reason == "Newer official Microsoft Learn page (2024-07-31) supersedes the older (2021-05-26) value false."
    old = [c for c in conflicts(shipped, "ND A100 v4", "accelerated_networking") if not c.won]
    assert [(c.value, c.superseded, c.documents) for c in old] == [
        ("false", True, ("seeds/seed-nd-a100-v4-series-2021.txt:35",))
    ]


def test_series_values_are_inherited_by_sizes_that_state_none(shipped: BuildResult) -> None:
    f = fact(shipped, "Standard_ND24s", "gpu_model")
    assert (f.value_text, f.inherited_from) == ("P40", "ND")
    assert f.reason.startswith("Inherited from series ND:")


def test_a_size_value_failing_a_physical_check_loses_to_the_series_value(shipped: BuildResult) -> None:
    f = fact(shipped, "Standard_ND128isr_GB300_v6", "network_bandwidth_mbps")
    assert (f.value_number, f.inherited_from, f.status) == (160000, "ND GB300 v6", "resolved")
    assert "value 160 Mbps fails plausible_per_vcpu" in f.reason


def test_a_size_is_put_only_in_a_series_its_name_can_belong_to(shipped: BuildResult) -> None:
    # The third-party page lists ND40rs_v2 under its "ND-Series" heading; a v2 size cannot be of
    # the first-generation ND series, so only the official NDv2 pages give it a series.
    f = fact(shipped, "Standard_ND40rs_v2", "series")
    assert (f.value_text, f.status) == ("NDv2", "agreed")
    stated = {c.value_text for c in shipped.claims if c.entity == "Standard_ND40rs_v2" and c.attribute == "series"}
    assert stated == {"NDv2"}


def test_every_fact_has_a_reason_confidence_and_support(shipped: BuildResult) -> None:
    for f in shipped.facts:
        assert 0 <= f.confidence <= 1
        assert f.status in {"agreed", "resolved", "single_source", "unverified", "unresolved"}
        assert f.reason.endswith(".") and f.supporting


# --------------------------------------------------------------- the naming convention


def size_names(result: BuildResult) -> set[str]:
    return {c.entity for c in result.claims if c.entity_kind == "size"}


# Every size a page of sources/ names, read off the pages by hand: its spec tables, and the
# sizes running text names with a value (retirement notes list NV12hs_v3, NV4ahs_v4 and the NP
# sizes; the NDv2 page's note names ND40s_v2). The migration guide's comparison tables also
# name Standard_NC6_Promo and others, which no page gives a value: those are size_not_built.
SERIES_SIZES = {
    "NC": ["NC6", "NC12", "NC24", "NC24r"],
    "NC v2": ["NC6s_v2", "NC12s_v2", "NC24s_v2", "NC24rs_v2"],
    "NCv3": ["NC6s_v3", "NC12s_v3", "NC24s_v3", "NC24rs_v3"],
    "NCasT4_v3": ["NC4as_T4_v3", "NC8as_T4_v3", "NC16as_T4_v3", "NC64as_T4_v3"],
    "NC_A100_v4": ["NC24ads_A100_v4", "NC48ads_A100_v4", "NC96ads_A100_v4"],
    "NCads_H100_v5": ["NC40ads_H100_v5", "NC80adis_H100_v5"],
    "NCCads_H100_v5": ["NCC40ads_H100_v5"],
    "NC_RTXPRO6000BSE_v6": [
        f"NC{n}{letters}_xl_RTXPRO6000BSE_v6"
        for n, letters in [
            (16, "lds"),
            (32, "ds"),
            (32, "lds"),
            (32, "mds"),
            (64, "ds"),
            (64, "lds"),
            (64, "mds"),
            (128, "ds"),
            (128, "lds"),
            (128, "mds"),
            (256, "ds"),
            (256, "lds"),
            (320, "ds"),
            (320, "lds"),
        ]
    ],
    "ND": ["ND6s", "ND12s", "ND24s", "ND24rs"],
    "NDv2": ["ND40rs_v2", "ND40s_v2"],
    "ND A100 v4": ["ND96asr_v4"],
    "NDm_A100_v4": ["ND96amsr_A100_v4"],
    "ND H100 v5": ["ND96isr_H100_v5", "ND96isr_v5"],
    "ND H200 v5": ["ND96isr_H200_v5"],
    "ND MI300X v5": ["ND96isr_MI300X_v5"],
    "ND GB200 v6": ["ND128isr_NDR_GB200_v6"],
    "ND GB300 v6": ["ND128isr_GB300_v6", "ND128isrG5_GB300_v6"],
    "NGads V620": ["NG8ads_V620_v1", "NG16ads_V620_v1", "NG32ads_V620_v1", "NG32adms_V620_v1"],
    "NP": ["NP10s", "NP20s", "NP40s"],
    "NV": ["NV6", "NV12", "NV24"],
    "NVv3": ["NV12s_v3", "NV24s_v3", "NV48s_v3", "NV12hs_v3", "NV24ms_v3", "NV32ms_v3"],
    "NVv4": ["NV4as_v4", "NV8as_v4", "NV16as_v4", "NV32as_v4", "NV4ahs_v4", "NV8ahs_v4", "NV16ahs_v4", "NV32ahs_v4"],
    "NVadsA10_v5": [
        "NV6ads_A10_v5",
        "NV12ads_A10_v5",
        "NV18ads_A10_v5",
        "NV36ads_A10_v5",
        "NV36adms_A10_v5",
        "NV72ads_A10_v5",
    ],
    "NVads V710 v5": [
        "NV4ads_V710_v5",
        "NV8ads_V710_v5",
        "NV12ads_V710_v5",
        "NV24ads_V710_v5",
        "NV28adms_V710_v5",
    ],
}
THIRD_PARTY_ONLY = ["ND6", "ND12", "ND24", "NG8", "NG16", "NG32"]


def test_every_size_the_pages_name_is_a_size_and_in_its_series(shipped: BuildResult) -> None:
    official = {f"Standard_{name}": series for series, names in SERIES_SIZES.items() for name in names}
    assert size_names(shipped) == {*official, *(f"Standard_{n}" for n in THIRD_PARTY_ONLY)}
    assert all(parse_size(n) is not None for n in size_names(shipped))
    for size, series in official.items():
        assert fact(shipped, size, "series").value_text == series, size


def test_name_vcpus_agree_with_table_vcpus_for_every_size(shipped: BuildResult) -> None:
    table = {(c.entity, c.value_number) for c in shipped.claims if c.attribute == "vcpus" and c.method == "table"}
    for entity, vcpus in table:
        size = parse_size(entity)
        assert size is not None and size.vcpus == vcpus, entity


@pytest.mark.parametrize(
    ("name", "claims"),
    [
        (
            "Standard_ND96asr_v4",
            {("vcpus", "96"), ("premium_storage", "true"), ("infiniband", "true"), ("cpu_vendor", "AMD")},
        ),
        ("Standard_ND40rs_v2", {("vcpus", "40"), ("premium_storage", "true"), ("infiniband", "true")}),
        (
            "Standard_NG8ads_V620_v1",
            {("vcpus", "8"), ("premium_storage", "true"), ("cpu_vendor", "AMD"), ("gpu_model", "V620")},
        ),
        ("Standard_ND6", {("vcpus", "6")}),
    ],
)
def test_the_name_is_a_separate_weaker_source(shipped: BuildResult, name: str, claims: set[tuple[str, str]]) -> None:
    found = {(c.attribute, c.value) for c in shipped.claims if c.entity == name and c.method == "name_convention"}
    assert found == claims


# ------------------------------------------------------------------------ the memo


@pytest.fixture(scope="module")
def evidence(shipped: BuildResult) -> tuple[list[Claim], dict[str, Source]]:
    """What the build reconciles: the documents' claims (not the name's) and each document's source."""
    entries, _ = load_registry(SOURCES)
    sources = {d.path: classify(d, entries)[0] for d in shipped.documents}
    return [c for c in shipped.claims if c.method != NAME_CONVENTION], sources


def memo_run(tmp_path: Path, claims: list[Claim], sources: dict[str, Source]) -> tuple[Reconciled, tuple[int, int]]:
    memo = Cache(tmp_path).memo("reconcile", "test")
    result = reconcile(claims, sources, memo=memo)
    memo.save()
    return result, (memo.hits, memo.misses)


def test_entities_whose_evidence_did_not_change_keep_their_decisions(
    tmp_path: Path, evidence: tuple[list[Claim], dict[str, Source]]
) -> None:
    claims, sources = evidence
    first, (hits, misses) = memo_run(tmp_path, claims, sources)
    assert hits == 0 and misses > 10
    again, counts = memo_run(tmp_path, claims, sources)
    assert counts == (misses, 0)
    assert again == first == reconcile(claims, sources)


def test_a_changed_claim_decides_its_own_entity_again(
    tmp_path: Path, evidence: tuple[list[Claim], dict[str, Source]]
) -> None:
    """ND40rs_v2's memory on the 2020 official page, 672 GiB, becomes 673: only that size is decided again."""
    claims, sources = evidence
    _, (_, entities) = memo_run(tmp_path, claims, sources)
    (official,) = [
        c
        for c in claims
        if (c.entity, c.attribute, c.value) == ("Standard_ND40rs_v2", "memory_gib", "672")
        and c.document == "seeds/seed-ndv2-series-2020.txt"
    ]
    official_key = ("Standard_ND40rs_v2", "memory_gib")
    changed = [replace(c, value="673", value_number=673.0) if c is official else c for c in claims]
    again, counts = memo_run(tmp_path, changed, sources)
    assert counts == (entities - 1, 1)
    assert again == reconcile(changed, sources)
    # Newer official pages still say 672: the edit is now a competing value that lost.
    disputed = {c.value: c.won for c in again.conflicts if (c.entity, c.attribute) == official_key}
    assert disputed == {"672": True, "673": False}


def test_a_changed_series_value_decides_the_sizes_that_inherit_it_again(
    tmp_path: Path, evidence: tuple[list[Claim], dict[str, Source]]
) -> None:
    """A size's inherited values come from its series' claims: when one changes, every size
    that inherits it is decided again, though none of the size's own claims changed."""
    claims, sources = evidence
    first, _ = memo_run(tmp_path, claims, sources)
    inherited = next(
        f for f in first.facts if f.inherited_from and f.status == "single_source" and f.value_number is not None
    )
    (source,) = [c for c in claims if c.claim_id in inherited.supporting]
    assert source.entity == inherited.inherited_from and inherited.value_number is not None
    doubled = inherited.value_number * 2
    changed = [replace(c, value=format_number(doubled), value_number=doubled) if c is source else c for c in claims]
    again, (_, misses) = memo_run(tmp_path, changed, sources)
    assert again == reconcile(changed, sources)
    assert misses >= 2  # the series and at least the size the fact is about
    redone = next(f for f in again.facts if (f.entity, f.attribute) == (inherited.entity, inherited.attribute))
    assert redone.value_number == doubled
