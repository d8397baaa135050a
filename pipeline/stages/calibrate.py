"""Confidence that means what it says: the chance that a chosen value is right. The model is data
(`knowledge/calibration.toml`), fitted by `make calibrate`; a confidence is cached with its bucket's
decisions (`runner.parts`), which the model keys.

A fact's confidence is a small logistic function of its evidence (`records.Evidence`): the weight of the
claim that won (its tier, how it was read, the checks it fails), how many independent sources
state the value, how strong the strongest other value is, how often its attribute's values
agree with the API where the documents alone give them, and whether the value is inherited
from its series, unverified, disputed by a source of equal standing, or older than a newer page
about the entity. The coefficients and the attributes' agreement are data
(`knowledge/calibration.toml`), fitted by
`python -m pipeline calibrate` (`make calibrate`) on the docs-against-API agreement: every value
the documents alone give that an API catalog also states is a label, right when the two agree.
A catalog value that fails a physical check (the API's 12 GPUs for an 8-GPU size) is no label:
the API is known to be wrong there. `held_out` measures the fit where unseen pages will test
it: on each GPU family's labels, fitted without them.
"""

from __future__ import annotations

import functools
import itertools
import math
import tomllib
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from importlib import resources

from pipeline.knowledge.names import parse_size
from pipeline.knowledge.values import same_value
from pipeline.records import Claim, Evidence, Fact

FEATURES = (
    "intercept",
    "weight",
    "official",
    "rule",
    "agreement",
    "voices",
    "rival",
    "tied",
    "unverified",
    "inherited",
    "failed",
    "stale",
)
"""The terms of the model, in the order of calibration.toml's coefficients."""


@dataclass(frozen=True, slots=True)
class Model:
    """The coefficients of the confidence model and the prior they were fitted against."""

    coefficients: tuple[float, ...]
    prior: tuple[float, ...]
    prior_sd: tuple[float, ...]
    """How far the fit may move each coefficient from its prior: a small one keeps it."""
    fitted_on: str
    agreement: Mapping[str, tuple[float, float]] = field(default_factory=dict)
    """Per attribute with enough labels (`attribute_agreement`): the log-odds that a value the
    documents alone give agrees with the API, and the log-odds expected of it at all labels' rate."""
    attribute_terms: Mapping[str, float] = field(init=False, repr=False, compare=False)
    """Each attribute's `Evidence.agreement`: measured less expected, made once (facts read it)."""

    def __post_init__(self) -> None:
        terms = {a: round(measured - expected, 4) for a, (measured, expected) in self.agreement.items()}
        object.__setattr__(self, "attribute_terms", terms)

    def agreement_of(self, attribute: str, evidence: Evidence) -> float:
        """The agreement term of a value of `attribute` with `evidence`: 0 for a catalog's value
        and for an attribute with too few labels, which keep the prior."""
        return 0.0 if evidence.catalog else self.attribute_terms.get(attribute, 0.0)

    def confidence(self, evidence: Evidence) -> float:
        z = sum(c * x for c, x in zip(self.coefficients, evidence.terms(), strict=True))
        return round(1 / (1 + math.exp(-max(min(z, 30.0), -30.0))), 3)

    def judges(self, label: Label) -> float:
        """The confidence this model gives a label's value: its evidence with the attribute's
        agreement as this model measured it (the label's own is the model's it was built with)."""
        evidence = label.evidence
        term = self.agreement_of(label.attribute, evidence)
        return self.confidence(evidence if term == evidence.agreement else replace(evidence, agreement=term))


@functools.cache
def _table() -> dict[str, object]:
    """knowledge/calibration.toml, read once per process."""
    text = resources.files("pipeline.knowledge").joinpath("calibration.toml").read_text(encoding="utf-8")
    return tomllib.loads(text)


@functools.cache
def model() -> Model:
    """The model of knowledge/calibration.toml."""
    return parse_model(_table())


def held_out_min_labels() -> int:
    """Labels a family needs to be scored apart (`held_out`), from calibration.toml's `[held_out]`."""
    held = _table()["held_out"]
    assert isinstance(held, dict)
    return int(held["min_labels"])


def parse_model(data: dict[str, object]) -> Model:
    coefficients, prior, sd = data["coefficients"], data["prior"], data["prior_sd"]
    measured, expected = data.get("attribute_agreement", {}), data.get("attribute_expected", {})
    assert isinstance(coefficients, dict) and isinstance(prior, dict) and isinstance(sd, dict)
    assert isinstance(measured, dict) and isinstance(expected, dict)
    return Model(
        coefficients=tuple(float(coefficients[f]) for f in FEATURES),
        prior=tuple(float(prior[f]) for f in FEATURES),
        prior_sd=tuple(float(sd[f]) for f in FEATURES),
        fitted_on=str(data.get("fitted_on", "")),
        agreement={a: (float(measured[a]), float(expected[a])) for a in sorted(measured) if a in expected},
    )


def model_text(fitted: Model, note: str, min_labels: int | None = None) -> str:
    """calibration.toml's text for `fitted`; `[held_out]` keeps `min_labels`, else the shipped one."""
    lines = [
        "# The confidence model (pipeline/stages/calibrate.py): confidence = 1 / (1 + exp(-z)), where z is the sum",
        "# of each coefficient times its term of the evidence: 1 (intercept); the logit of the winning",
        "# claim's weight; 1 when that claim is from an official page or an API catalog; for a value only",
        "# a rule gives, the log-odds that the rule is right, measured on the corpus (0 for a stated",
        "# value); for a value the documents give (not an API catalog), its attribute's agreement: the",
        "# attribute's [attribute_agreement] less its [attribute_expected] (0 for an attribute not listed);",
        "# the log of the number of independent sources; the strongest other value's share of the",
        "# weights; and 1 or 0 for tied, unverified, inherited, failed (a check) and stale.",
        "# Written by `make calibrate`, which fits the coefficients (maximum a posteriori, a normal prior",
        "# of mean `prior` and deviation `prior_sd` on each) on the docs-against-API labels; the prior is",
        "# the hand-set model, so that what the labels do not cover keeps it. The intercept and the",
        "# weight's slope are held (their deviations are small): the labels are nearly all official",
        "# values, so the fit lifts those through `official` and leaves weaker claims where the prior puts them.",
        f"# {note}",
        "",
        f'fitted_on = "{fitted.fitted_on}"',
        "",
        "[coefficients]",
        *(f"{name} = {value:.4f}" for name, value in zip(FEATURES, fitted.coefficients, strict=True)),
        "",
        "[prior]",
        *(f"{name} = {value:.4f}" for name, value in zip(FEATURES, fitted.prior, strict=True)),
        "",
        "[prior_sd]",
        *(f"{name} = {value:.4f}" for name, value in zip(FEATURES, fitted.prior_sd, strict=True)),
        "",
        f"# Per attribute with at least {MIN_LABELS} labels: the log-odds that a value the documents alone",
        "# give agrees with the newest API catalog snapshot, log((right + 1) / (wrong + 1)).",
        "[attribute_agreement]",
        *(f"{name} = {measured:.4f}" for name, (measured, _) in sorted(fitted.agreement.items())),
        "",
        "# The same log-odds for an attribute of as many labels that agrees as often as all labels do:",
        "# the term is how far an attribute lies above or below it, not how many labels it has.",
        "[attribute_expected]",
        *(f"{name} = {expected:.4f}" for name, (_, expected) in sorted(fitted.agreement.items())),
        "",
        "# Labels a GPU family's sizes need before `held_out` scores the family by the model fitted",
        "# without them: an ECE of a few labels is one value's luck. A family of fewer always trains.",
        "[held_out]",
        f"min_labels = {held_out_min_labels() if min_labels is None else min_labels}",
        "",
    ]
    return "\n".join(lines)


# --------------------------------------------------------------------------- labels and bins


@dataclass(frozen=True, slots=True)
class Label:
    """A value the documents alone give, set against an API catalog's value of it."""

    entity: str
    attribute: str
    value: str
    catalog_value: str
    catalog: str
    """document:line of the catalog's value."""
    confidence: float
    correct: bool
    official: bool
    evidence: Evidence


@dataclass(frozen=True, slots=True)
class Bin:
    low: float
    high: float
    facts: int
    confidence: float
    """Mean confidence of the bin's facts."""
    accuracy: float
    """Share of the bin's facts whose value the catalog confirms."""


EDGES = (0.0, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 1.0)
"""Bins of the reliability table: finer where most confidences are."""


def reliability(points: Sequence[tuple[float, bool]], edges: Sequence[float] = EDGES) -> list[Bin]:
    """Points grouped by confidence, each bin's mean confidence beside how often it was right."""
    bins = []
    for i, (low, high) in enumerate(itertools.pairwise(edges)):
        last = i == len(edges) - 2
        inside = [(c, ok) for c, ok in points if low <= c < high or (last and c == high)]
        if inside:
            bins.append(
                Bin(
                    low,
                    high,
                    len(inside),
                    round(sum(c for c, _ in inside) / len(inside), 4),
                    round(sum(ok for _, ok in inside) / len(inside), 4),
                )
            )
    return bins


def expected_calibration_error(bins: Sequence[Bin]) -> float:
    """The mean gap between confidence and accuracy, each bin weighted by its facts."""
    total = sum(b.facts for b in bins)
    return round(sum(b.facts * abs(b.accuracy - b.confidence) for b in bins) / total, 4) if total else 0.0


def table_text(bins: Sequence[Bin]) -> str:
    rows = [f"| {b.low:.2f}-{b.high:.2f} | {b.facts} | {b.confidence:.3f} | {b.accuracy:.3f} |" for b in bins]
    return "\n".join(["| confidence | facts | mean confidence | right |", "|---|---:|---:|---:|", *rows])


# --------------------------------------------------------------------------------- fitting


MIN_LABELS = 3
"""Labels an attribute needs before its agreement is a term, as many as a rule's measured
agreement needs (`reconcile.rules.SIBLING_PAIRS`). Below it one wrong value is half the measure or all
of it: 1 wrong of 2 would mark the attribute down by 1.08, over twice memory's 1 wrong of 50
(0.43), on one page's slip. Few labels all right need no minimum: the expected rate holds them
near 0 (3 of 3: +0.02)."""


def log_odds(right: float, wrong: float) -> float:
    """The log-odds of agreement from `right` agreements and `wrong` misses, one of each added so
    that three of three is not certainty: an attribute's agreement with the API here
    (`attribute_agreement`), a rule's with the official pages (`reconcile.rules.rule_agreement`)."""
    return math.log((right + 1) / (wrong + 1))


def attribute_agreement(labels: Sequence[Label]) -> dict[str, tuple[float, float]]:
    """For each attribute with at least MIN_LABELS labels, the log-odds that a value the documents
    alone give agrees with the API, and the log-odds the same smoothing gives an attribute of as
    many labels that agrees as often as all labels do. Their difference is the term: set against
    that rather than a log-odds of all labels, an attribute of few labels, all right, is not
    marked down for being few (a smoothed log-odds grows with the labels), and where no label is
    wrong every term is 0: there is nothing to tell the attributes apart."""
    counts = Counter(label.attribute for label in labels)
    right = Counter(label.attribute for label in labels if label.correct)
    share = sum(right.values()) / len(labels) if labels else 1.0
    return {
        attribute: (
            round(log_odds(right[attribute], n - right[attribute]), 4),
            round(log_odds(n * share, n * (1 - share)), 4),
        )
        for attribute, n in sorted(counts.items())
        if n >= MIN_LABELS
    }


def fit(labels: Sequence[Label], prior: Model, iterations: int = 50) -> Model:
    """The attributes' agreement measured on `labels`, and the coefficients of largest posterior:
    the labels' likelihood under the logistic model (each label's agreement term that measure's)
    times a normal prior around the hand-set coefficients (Newton's method; the prior keeps the
    problem well posed with few labels and few wrong ones)."""
    import numpy as np

    measured = Model(prior.coefficients, prior.prior, prior.prior_sd, prior.fitted_on, attribute_agreement(labels))
    rows = [
        replace(label.evidence, agreement=measured.agreement_of(label.attribute, label.evidence)) for label in labels
    ]
    x = np.array([evidence.terms() for evidence in rows], dtype=float)
    y = np.array([float(label.correct) for label in labels])
    mean = np.array(prior.prior)
    precision = np.diag(1 / np.array(prior.prior_sd) ** 2)
    beta = mean.copy()
    for _ in range(iterations):
        p = 1 / (1 + np.exp(-np.clip(x @ beta, -30, 30)))
        gradient = x.T @ (y - p) - precision @ (beta - mean)
        hessian = -(x.T * (p * (1 - p))) @ x - precision
        step = np.linalg.solve(hessian, gradient)
        beta = beta - step
        if float(np.abs(step).max()) < 1e-9:
            break
    return replace(measured, coefficients=tuple(round(float(b), 4) for b in beta))


@dataclass(frozen=True, slots=True)
class HeldOut:
    """A family's labels scored by the model fitted without them."""

    family: str
    labels: int
    ece: float


def family_of(label: Label) -> str | None:
    """The family of the size a label is about (`ND` of `Standard_ND96asr_v4`)."""
    size = parse_size(label.entity)
    return size.family if size else None


def families(labels: Sequence[Label], min_labels: int | None = None) -> list[str]:
    """The families `held_out` leaves out one at a time: those of the labels' sizes (by the
    naming convention, `family_of`) with at least `min_labels` labels (`held_out_min_labels`),
    in order of name. Known from the labels, not listed: a new family's pages are scored once
    the API catalogs state enough of its values."""
    least = held_out_min_labels() if min_labels is None else min_labels
    counts = Counter(family_of(label) for label in labels)
    return sorted(family for family, n in counts.items() if family is not None and n >= least)


def held_out(labels: Sequence[Label], prior: Model, scored: Sequence[str] | None = None) -> list[HeldOut]:
    """For each family (`families`, unless `scored` names them), the ECE on its labels of the
    model (coefficients and attributes' agreement) fitted on the other labels alone: how the fit
    does on pages it has never seen, as a new page of a new series will test it. Labels of sizes
    of no family scored always train."""
    out = []
    for family in families(labels) if scored is None else scored:
        inside = [x for x in labels if family_of(x) == family]
        fitted = fit([x for x in labels if family_of(x) != family], prior)
        bins = reliability([(fitted.judges(x), x.correct) for x in inside])
        out.append(HeldOut(family, len(inside), expected_calibration_error(bins)))
    return out


def labels(
    facts: Sequence[Fact],
    catalog: Sequence[Claim],
    snapshot: Mapping[str, int],
    official: set[str],
    failing: set[str],
) -> list[Label]:
    """Each value of `facts` (reconciled from the documents alone) that the newest snapshot of an
    API catalog also states, right when the two agree. `catalog` holds the catalogs' claims,
    `snapshot` each catalog document's order, `official` the entities an official page names,
    and `failing` the catalog claims that fail a physical check (no label there)."""
    newest: dict[tuple[str, str], Claim] = {}
    for c in catalog:
        held = newest.get((c.entity, c.attribute))
        if held is None or snapshot.get(c.document, 0) > snapshot.get(held.document, 0):
            newest[(c.entity, c.attribute)] = c
    out = []
    for f in facts:
        stated = newest.get((f.entity, f.attribute))
        if stated is None or f.evidence is None or stated.claim_id in failing:
            continue
        out.append(
            Label(
                entity=f.entity,
                attribute=f.attribute,
                value=f.value,
                catalog_value=stated.value,
                catalog=f"{stated.document}:{stated.line}",
                confidence=f.confidence,
                correct=same_value(f, stated, 0.001),
                official=f.entity in official,
                evidence=f.evidence,
            )
        )
    return out
