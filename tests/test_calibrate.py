"""The confidence model: its terms, the reliability table, the ECE, the fit and the labels.

Figures are worked by hand beside each case; the shipped model is checked against the API
catalogs in sources/ (the labels of the shipped build)."""

from __future__ import annotations

import math
import tomllib

import pytest

from pipeline.records import BuildResult, Claim
from pipeline.stages.calibrate import (
    EDGES,
    FEATURES,
    Bin,
    Evidence,
    Label,
    Model,
    expected_calibration_error,
    fit,
    labels,
    model,
    model_text,
    parse_model,
    reliability,
    table_text,
)


def plain(**coefficients: float) -> Model:
    values = tuple(coefficients.get(f, 0.0) for f in FEATURES)
    return Model(values, values, tuple(1.0 for _ in FEATURES), "")


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
        # A weight of 1 is held below certainty: logit(0.99) = 4.595 -> 0.99.
        (Evidence(weight=1.0, voices=1, rival=0.0), {"weight": 1.0}, 0.99),
    ],
)
def test_confidence_is_the_logistic_of_the_weighted_terms(
    evidence: Evidence, coefficients: dict[str, float], expected: float
) -> None:
    assert plain(**coefficients).confidence(evidence) == pytest.approx(expected, abs=0.001)


def test_terms_follow_the_order_of_the_features() -> None:
    terms = Evidence(weight=0.8, voices=2, rival=0.25, official=True, rule=1.5, inherited=True).terms()
    assert dict(zip(FEATURES, terms, strict=True)) == pytest.approx(
        {
            "intercept": 1.0,
            "weight": math.log(4),
            "official": 1.0,
            "rule": 1.5,
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
