"""The confidence model: its terms, the reliability table, the ECE, the fit and the labels.

Figures are worked by hand beside each case; the shipped model is checked against the API
catalogs in sources/ (the labels of the shipped build)."""

from __future__ import annotations

import math
import re
import subprocess
import sys
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from pipeline.records import BuildResult, Claim, Evidence
from pipeline.stages import calibrate
from pipeline.stages.calibrate import (
    EDGES,
    FEATURES,
    Bin,
    HeldOut,
    Label,
    Model,
    attribute_agreement,
    expected_calibration_error,
    families,
    family_of,
    fit,
    held_out,
    held_out_min_labels,
    labels,
    model,
    model_text,
    parse_model,
    reliability,
    table_text,
)

ROOT = Path(__file__).resolve().parent.parent


def plain(measured: Mapping[str, tuple[float, float]] | None = None, **coefficients: float) -> Model:
    """A model of these coefficients (0 for the others) and attributes' agreement."""
    values = tuple(coefficients.get(f, 0.0) for f in FEATURES)
    return Model(values, values, tuple(1.0 for _ in FEATURES), "", measured or {})


@pytest.mark.parametrize(
    ("evidence", "coefficients", "expected"),
    [
        # z = 0: even odds.
        (Evidence(weight=0.5, voices=1, rival=0.0), {}, 0.5),
        # z = logit(0.95) = 2.944: the weight alone, at slope 1, gives the weight back.
        (Evidence(weight=0.95, voices=1, rival=0.0), {"weight": 1.0}, 0.95),
        # z = 1.8 * ln 3 = 1.978 -> 0.878.
        (Evidence(weight=0.5, voices=3, rival=0.0), {"voices": 1.8}, 0.878),
        # z = -1.5 * 0.5 - 1.6 = -2.35 -> 0.087.
        (Evidence(weight=0.5, voices=1, rival=0.5, tied=True), {"rival": -1.5, "tied": -1.6}, 0.087),
        # A rule right 3 times in 4 (log-odds ln 3 = 1.099), slope 1 -> 0.75.
        (Evidence(weight=0.5, voices=1, rival=0.0, rule=math.log(3)), {"rule": 1.0}, 0.75),
        # Flags add their coefficient: -0.9 (failed) - 0.3 (stale) = -1.2 -> 0.231.
        (Evidence(weight=0.5, voices=1, rival=0.0, failed=True, stale=True), {"failed": -0.9, "stale": -0.3}, 0.231),
        # An official claim adds its coefficient: 1.2 -> 0.769.
        (Evidence(weight=0.5, voices=1, rival=0.0, official=True), {"official": 1.2}, 0.769),
        # An attribute agreeing less often than the average (term -0.405), slope 1 -> 0.4.
        (Evidence(weight=0.5, voices=1, rival=0.0, agreement=math.log(2 / 3)), {"agreement": 1.0}, 0.4),
        # A weight of 1 is held below certainty: logit(0.99) = 4.595 -> 0.99.
        (Evidence(weight=1.0, voices=1, rival=0.0), {"weight": 1.0}, 0.99),
    ],
)
def test_confidence_is_the_logistic_of_the_weighted_terms(
    evidence: Evidence, coefficients: dict[str, float], expected: float
) -> None:
    assert plain(**coefficients).confidence(evidence) == pytest.approx(expected, abs=0.001)


def test_terms_follow_the_order_of_the_features() -> None:
    terms = Evidence(weight=0.8, voices=2, rival=0.25, official=True, rule=1.5, agreement=-0.4, inherited=True).terms()
    assert dict(zip(FEATURES, terms, strict=True)) == pytest.approx(
        {
            "intercept": 1.0,
            "weight": math.log(4),
            "official": 1.0,
            "rule": 1.5,
            "agreement": -0.4,
            "voices": math.log(2),
            "rival": 0.25,
            "tied": 0.0,
            "unverified": 0.0,
            "inherited": 1.0,
            "failed": 0.0,
            "stale": 0.0,
        }
    )


def test_reliability_bins_and_ece_by_hand() -> None:
    points = [(0.55, True), (0.58, False), (0.97, True), (1.0, True)]
    bins = reliability(points)
    # 0.55 and 0.58 share the 0.50-0.60 bin; 1.0 belongs to the last bin, whose top is inclusive.
    assert bins == [Bin(0.5, 0.6, 2, 0.565, 0.5), Bin(0.95, 1.0, 2, 0.985, 1.0)]
    # (2 * |0.5 - 0.565| + 2 * |1.0 - 0.985|) / 4 = (0.13 + 0.03) / 4 = 0.04
    assert expected_calibration_error(bins) == pytest.approx(0.04)
    assert "| 0.50-0.60 | 2 | 0.565 | 0.500 |" in table_text(bins)


def test_no_points_no_error() -> None:
    assert reliability([]) == []
    assert expected_calibration_error([]) == 0.0
    assert EDGES[0] == 0.0 and EDGES[-1] == 1.0


def label(weight: float, correct: bool, voices: int = 1) -> Label:
    evidence = Evidence(weight=weight, voices=voices, rival=0.0)
    return Label("Standard_X", "vcpus", "8", "8", "c.csv:2", 0.5, correct, True, evidence)


def test_the_fit_moves_toward_the_labels_and_the_prior_holds_what_they_do_not_cover() -> None:
    # Claims of weight 0.9 right 99 times in 100, of weight 0.6 right 7 times in 10: the prior
    # slope of 0.3 makes both underconfident, so the fit steepens the weight's slope.
    data = [label(0.9, i != 0) for i in range(100)] + [label(0.6, i < 7) for i in range(10)]
    prior = Model(
        tuple(0.3 if f == "weight" else 0.0 for f in FEATURES),
        tuple(0.3 if f == "weight" else 0.0 for f in FEATURES),
        tuple(0.01 if f == "intercept" else 1.0 for f in FEATURES),
        "",
    )
    fitted = fit(data, prior)
    slopes = dict(zip(FEATURES, fitted.coefficients, strict=True))
    assert slopes["weight"] > 1.0
    assert slopes["intercept"] == pytest.approx(0.0, abs=0.01)  # held by its small deviation
    assert slopes["tied"] == 0.0  # no label is tied: the prior stays
    before = expected_calibration_error(reliability([(prior.confidence(x.evidence), x.correct) for x in data]))
    after = expected_calibration_error(reliability([(fitted.confidence(x.evidence), x.correct) for x in data]))
    assert after < before


def test_model_text_reads_back() -> None:
    shipped = model()
    again = parse_model(tomllib.loads(model_text(shipped, "a note")))
    assert again == shipped
    assert "# a note" in model_text(shipped, "a note")
    # The held-out minimum is data beside the model: a fit written again keeps it, or the one given.
    assert tomllib.loads(model_text(shipped, "a note"))["held_out"] == {"min_labels": held_out_min_labels()}
    assert tomllib.loads(model_text(shipped, "a note", 7))["held_out"] == {"min_labels": 7}


def catalog_claim(entity: str, value: float, document: str, claim_id: str) -> Claim:
    return Claim(
        claim_id=claim_id,
        document=document,
        line=7,
        section="",
        table_index=None,
        row_index=None,
        column="MemoryGiB",
        raw_text=str(value),
        method="catalog",
        entity=entity,
        entity_kind="size",
        attribute="memory_gib",
        value=f"{value:g}",
        value_number=value,
        value_text=None,
        value_bool=None,
        range_min=None,
        range_max=None,
        unit="GiB",
    )


def test_labels_read_the_newest_snapshot_and_skip_values_that_fail_a_check(shipped: BuildResult) -> None:
    fact = next(f for f in shipped.facts if f.entity == "Standard_NC24ads_A100_v4" and f.attribute == "memory_gib")
    assert fact.value_number == 220 and fact.evidence is not None  # nca100v4-series.md line 35: 220 GiB
    old = catalog_claim(fact.entity, 216.0, "v4.csv", "a")
    new = catalog_claim(fact.entity, 220.0, "v6.csv", "b")
    snapshot = {"v4.csv": 4, "v6.csv": 6}
    [one] = labels([fact], [old, new], snapshot, {fact.entity}, set())
    assert (one.catalog_value, one.catalog, one.correct, one.official) == ("220", "v6.csv:7", True, True)
    [older_only] = labels([fact], [old], snapshot, set(), set())
    assert not older_only.correct and not older_only.official
    assert labels([fact], [old, new], snapshot, {fact.entity}, {"b"}) == []


def test_the_shipped_model_is_calibrated_against_the_api_catalogs(shipped: BuildResult) -> None:
    points = [(x.confidence, x.correct) for x in shipped.labels]
    assert len(points) >= 250
    assert expected_calibration_error(reliability(points)) <= 0.05
    assert not [x for x in shipped.labels if x.official and x.correct and x.confidence < 0.5]
    # The disagreement the labels hold: the pages' 1,900 GiB against the v6 catalog's 1,800.
    wrong = {(x.entity, x.attribute, x.value, x.catalog_value) for x in shipped.labels if not x.correct}
    assert ("Standard_ND96amsr_A100_v4", "memory_gib", "1900", "1800") in wrong


# ------------------------------------------------------------------ agreement per attribute


def said(attribute: str, correct: bool, entity: str = "Standard_NC6", catalog: bool = False) -> Label:
    """A label of a value the documents give for `attribute` of `entity`, with plain evidence."""
    evidence = Evidence(weight=0.9, voices=1, rival=0.0, official=True, catalog=catalog)
    return Label(entity, attribute, "1", "1", "c.csv:2", 0.5, correct, True, evidence)


def many(attribute: str, right: int, wrong: int, entity: str = "Standard_NC6") -> list[Label]:
    return [said(attribute, True, entity) for _ in range(right)] + [
        said(attribute, False, entity) for _ in range(wrong)
    ]


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        # Memory right 3 times in 4: log((3 + 1) / (1 + 1)) = log 2. vCPUs right 4 times in 4: log 5.
        # All labels: 7 right in 8; an attribute of 4 labels at that rate: log((3.5 + 1) / (0.5 + 1)) = log 3.
        (
            many("memory_gib", 3, 1) + many("vcpus", 4, 0),
            {"memory_gib": (math.log(2), math.log(3)), "vcpus": (math.log(5), math.log(3))},
        ),
        # Two GPU-count labels are too few (MIN_LABELS = 3): no entry, so no term. Memory 3 right
        # in 3: log 4; all labels 4 of 5 right, so at 3 labels log((2.4 + 1) / (0.6 + 1)) = log 2.125.
        (
            many("memory_gib", 3, 0) + many("gpu_count", 1, 1),
            {"memory_gib": (math.log(4), math.log(2.125))},
        ),
        # No label wrong: each attribute's measure is what its count alone gives, so every term is 0.
        (
            many("memory_gib", 5, 0) + many("vcpus", 9, 0),
            {"memory_gib": (math.log(6),) * 2, "vcpus": (math.log(10),) * 2},
        ),
        ([], {}),
    ],
)
def test_agreement_per_attribute_by_hand(data: list[Label], expected: dict[str, tuple[float, float]]) -> None:
    measured = attribute_agreement(data)
    assert measured.keys() == expected.keys()
    for attribute, pair in expected.items():
        assert measured[attribute] == pytest.approx(pair, abs=1e-4)


def test_the_model_reads_the_attributes_agreement_from_its_table() -> None:
    data = tomllib.loads(model_text(plain(agreement=1.0), "a note"))
    # As `make calibrate` writes them, to four places: log 2 and log 5 measured, log 3 expected.
    data["attribute_agreement"] = {"memory_gib": 0.6931, "vcpus": 1.6094}
    data["attribute_expected"] = {"memory_gib": 1.0986, "vcpus": 1.0986}
    read = parse_model(data)
    # The term is measured less expected: log(2 / 3) for memory, log(5 / 3) for vCPUs.
    assert read.attribute_terms == pytest.approx({"memory_gib": -0.4055, "vcpus": 0.5108})
    assert parse_model(tomllib.loads(model_text(read, "again"))) == read


def test_the_shipped_model_marks_memory_down_and_vcpus_up() -> None:
    """The pages' memory disagrees with the API where their vCPU counts never do."""
    terms = model().attribute_terms
    assert terms["memory_gib"] < 0 < terms["vcpus"]
    assert "nvme_disk_count" not in terms  # no catalog states it: no labels, no term


MEASURED = {"memory_gib": (math.log(2), math.log(3)), "vcpus": (math.log(5), math.log(3))}


@pytest.mark.parametrize(
    ("attribute", "catalog", "term"),
    [
        ("memory_gib", False, math.log(2 / 3)),  # agrees less often than the average attribute
        ("vcpus", False, math.log(5 / 3)),  # more often
        ("nvme_disk_count", False, 0.0),  # too few labels (none): keeps the prior
        ("memory_gib", True, 0.0),  # an API catalog's own value is no docs-only value
    ],
)
def test_a_docs_only_value_reads_its_attributes_agreement(attribute: str, catalog: bool, term: float) -> None:
    fitted = plain(MEASURED, agreement=1.0)
    label = said(attribute, True, catalog=catalog)
    assert fitted.agreement_of(attribute, label.evidence) == pytest.approx(term, abs=1e-4)
    # weight 0.9 at slope 0 and nothing else: z is the term alone.
    assert fitted.judges(label) == pytest.approx(1 / (1 + math.exp(-term)), abs=0.001)


def test_the_same_evidence_is_less_sure_of_a_low_agreement_attribute() -> None:
    fitted = plain(MEASURED, weight=1.0, official=1.2, agreement=1.0)
    memory, vcpus = fitted.judges(said("memory_gib", True)), fitted.judges(said("vcpus", True))
    assert said("memory_gib", True).evidence == said("vcpus", True).evidence
    assert memory < vcpus


def test_the_fit_learns_the_agreement_and_uses_it() -> None:
    """Memory wrong once in four, vCPUs never: the fitted model carries both rates, and the
    agreement's slope moves up from a prior of 0, since the term tells the two apart."""
    data = many("memory_gib", 30, 10) + many("vcpus", 40, 0)
    prior = plain(weight=1.0)
    fitted = fit(data, prior)
    assert fitted.agreement == attribute_agreement(data)
    assert dict(zip(FEATURES, fitted.coefficients, strict=True))["agreement"] > 0.5
    assert fitted.judges(said("memory_gib", True)) < fitted.judges(said("vcpus", True))


# --------------------------------------------------------------------- pages never seen


HELD_PRIOR = plain(weight=1.0, official=1.2, agreement=1.0)
HELD = ("NC", "ND", "NG", "NV")
"""The families `family_labels` has 12 labels of: those held out (NCC's 3 are too few)."""


def family_labels() -> list[Label]:
    """Per held-out family 12 labels (memory right 5 times in 6, vCPUs 6 in 6), and 3 of a family
    (NCC) never held out."""
    sizes = ("Standard_NC6", "Standard_ND40rs_v2", "Standard_NG8ads_V620_v1", "Standard_NV6")
    out = [x for entity in sizes for x in many("memory_gib", 5, 1, entity) + many("vcpus", 6, 0, entity)]
    return out + many("memory_gib", 3, 0, "Standard_NCC40ads_H100_v5")


@pytest.mark.parametrize(
    ("entity", "family"),
    [("Standard_ND96asr_v4", "ND"), ("Standard_NCC40ads_H100_v5", "NCC"), ("not a size", None)],
)
def test_a_labels_family_is_its_size_names(entity: str, family: str | None) -> None:
    assert family_of(said("vcpus", True, entity)) == family


@pytest.mark.parametrize(
    ("counts", "least", "expected"),
    [
        # (size, labels of it): the families of their names with at least `least` labels, by name.
        ((("Standard_NV6", 12), ("Standard_NC6", 12)), 10, ["NC", "NV"]),
        ((("Standard_NC6", 12), ("Standard_NCC40ads_H100_v5", 4), ("Standard_NP10s", 3)), 10, ["NC"]),
        ((("Standard_NC6", 12), ("Standard_NCC40ads_H100_v5", 4), ("Standard_NP10s", 3)), 4, ["NC", "NCC"]),
        ((("Standard_NC6", 6), ("Standard_NC12", 6), ("Standard_HB120rs_v3", 10)), 10, ["HB", "NC"]),
        ((("Standard_NC6", 12), ("not a size", 12)), 10, ["NC"]),
    ],
)
def test_the_families_held_out_are_those_of_the_labels_with_enough_of_them(
    counts: tuple[tuple[str, int], ...], least: int, expected: list[str]
) -> None:
    data = [x for entity, n in counts for x in many("vcpus", n, 0, entity)]
    assert families(data, least) == expected


def test_held_out_scores_the_families_the_labels_have_enough_of() -> None:
    """The shipped minimum: each family of 12 labels is scored, NCC's 3 labels only train."""
    assert held_out_min_labels() == 10
    assert [h.family for h in held_out(family_labels(), HELD_PRIOR)] == list(HELD)


@pytest.mark.parametrize("family", HELD)
def test_held_out_never_fits_on_the_family_it_scores(family: str, monkeypatch: pytest.MonkeyPatch) -> None:
    data = family_labels()
    trained: list[set[str | None]] = []
    real_fit = calibrate.fit

    def spy(train: Sequence[Label], prior: Model) -> Model:
        trained.append({family_of(x) for x in train})
        return real_fit(train, prior)

    monkeypatch.setattr(calibrate, "fit", spy)
    scores = held_out(data, HELD_PRIOR)
    i = HELD.index(family)
    # The fit that scores `family` saw every other family (NCC too) and none of its labels.
    assert trained[i] == {"NC", "ND", "NG", "NV", "NCC"} - {family}
    inside = [x for x in data if family_of(x) == family]
    model_without = real_fit([x for x in data if family_of(x) != family], HELD_PRIOR)
    ece = expected_calibration_error(reliability([(model_without.judges(x), x.correct) for x in inside]))
    assert scores[i] == HeldOut(family, 12, ece)


def test_a_familys_own_labels_never_move_the_fit_that_scores_it() -> None:
    """Every NC label turned around (right ones wrong, the wrong one right): the fit NC is scored
    with is the same, and NC's score is what that fit gives the turned labels."""
    prior = HELD_PRIOR
    data = family_labels()
    turned = [x if family_of(x) != "NC" else said(x.attribute, not x.correct, x.entity) for x in data]
    without_nc = fit([x for x in data if family_of(x) != "NC"], prior)
    assert without_nc == fit([x for x in turned if family_of(x) != "NC"], prior)
    nc = [x for x in turned if family_of(x) == "NC"]
    expected = expected_calibration_error(reliability([(without_nc.judges(x), x.correct) for x in nc]))
    assert held_out(turned, prior)[HELD.index("NC")] == HeldOut("NC", 12, expected)
    assert expected > held_out(data, prior)[HELD.index("NC")].ece  # 11 of 12 wrong now


def test_the_shipped_model_holds_on_each_family_it_never_saw() -> None:
    """`python -m pipeline calibrate` on the shipped sources: each of NC, ND, NG and NV scored
    by the model fitted without its labels, worst ECE at most 0.05; NCC's and NP's few labels
    (4 and 3, under `held_out_min_labels`) only train."""
    proc = subprocess.run(
        [sys.executable, "-m", "pipeline", "calibrate", "--sources", str(ROOT / "sources")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    scored = dict(re.findall(r"^  ([A-Z]+) +(\d+) labels  ECE", proc.stdout, re.MULTILINE))
    assert sorted(scored) == list(HELD) and all(int(n) >= 20 for n in scored.values())
    [worst] = re.findall(r"^Worst held-out ECE: (0\.\d{4}) \(N[CDGV]\)\.$", proc.stdout, re.MULTILINE)
    assert float(worst) <= 0.05
