"""Confidence that means what it says: the chance that a chosen value is right.

A fact's confidence is a small logistic function of its evidence (`Evidence`): the weight of the
claim that won (its tier, how it was read, the checks it fails), how many independent sources
state the value, how strong the strongest other value is, and whether the value is inherited
from its series, unverified, disputed by a source of equal standing, or older than a newer page
about the entity. The coefficients are data (`knowledge/calibration.toml`), fitted by
`python -m pipeline calibrate` (`make calibrate`) on the docs-against-API agreement: every value
the documents alone give that an API catalog also states is a label, right when the two agree.
A catalog value that fails a physical check (the API's 12 GPUs for an 8-GPU size) is no label:
the API is known to be wrong there.
"""

from __future__ import annotations

import functools
import itertools
import math
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING

from pipeline.knowledge.values import same_value

if TYPE_CHECKING:  # types only: reconcile imports this module
    from pipeline.records import Claim
    from pipeline.stages.reconcile import Fact

FEATURES = (
    "intercept",
    "weight",
    "official",
    "rule",
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
class Evidence:
    """What a fact's value rests on, as the confidence model reads it."""

    weight: float
    """The weight of the best claim for the value: its tier's trust, less for running text,
    derived values and inherited ones, halved for each check it fails."""
    voices: int
    """Independent sources stating the value (copies of one page are one)."""
    rival: float
    """The strongest other value's share of the two weights; 0 when no source disagrees."""
    official: bool = False
    """The value's best claim comes from an authoritative source (an official page, an API
    catalog): the labels are nearly all such values, so the fit lifts these through this term
    and leaves the weight's slope, which also sets the confidence of weaker claims, near its prior."""
    rule_of: str | None = None
    """The rule that gives the value, when no page states it: the naming convention, a sibling."""
    rule: float = 0.0
    """The log-odds that that rule is right, measured on the corpus where official pages state the
    value too (`pipeline.stages.reconcile.rule_agreement`); 0 for a stated value."""
    tied: bool = False
    """Sources of equal standing disagree (the fact is `unresolved`)."""
    unverified: bool = False
    inherited: bool = False
    failed: bool = False
    stale: bool = False

    def terms(self) -> tuple[float, ...]:
        w = min(max(self.weight, 0.01), 0.99)
        return (
            1.0,
            math.log(w / (1 - w)),
            float(self.official),
            self.rule,
            math.log(max(self.voices, 1)),
            self.rival,
            float(self.tied),
            float(self.unverified),
            float(self.inherited),
            float(self.failed),
            float(self.stale),
        )


@dataclass(frozen=True, slots=True)
class Model:
    """The coefficients of the confidence model and the prior they were fitted against."""

    coefficients: tuple[float, ...]
    prior: tuple[float, ...]
    prior_sd: tuple[float, ...]
    """How far the fit may move each coefficient from its prior: a small one keeps it."""
    fitted_on: str

    def confidence(self, evidence: Evidence) -> float:
        z = sum(c * x for c, x in zip(self.coefficients, evidence.terms(), strict=True))
        return round(1 / (1 + math.exp(-max(min(z, 30.0), -30.0))), 3)


@functools.cache
def model() -> Model:
    """The model of knowledge/calibration.toml, read once per process."""
    text = resources.files("pipeline.knowledge").joinpath("calibration.toml").read_text(encoding="utf-8")
    return parse_model(tomllib.loads(text))


def parse_model(data: dict[str, object]) -> Model:
    coefficients, prior, sd = data["coefficients"], data["prior"], data["prior_sd"]
    assert isinstance(coefficients, dict) and isinstance(prior, dict) and isinstance(sd, dict)
    return Model(
        coefficients=tuple(float(coefficients[f]) for f in FEATURES),
        prior=tuple(float(prior[f]) for f in FEATURES),
        prior_sd=tuple(float(sd[f]) for f in FEATURES),
        fitted_on=str(data.get("fitted_on", "")),
    )


def model_text(fitted: Model, note: str) -> str:
    """calibration.toml's text for `fitted`."""
    lines = [
        "# The confidence model (pipeline/stages/calibrate.py): confidence = 1 / (1 + exp(-z)), where z is the sum",
        "# of each coefficient times its term of the evidence: 1 (intercept); the logit of the winning",
        "# claim's weight; 1 when that claim is from an official page or an API catalog; for a value only",
        "# a rule gives, the log-odds that the rule is right, measured on the corpus (0 for a stated",
        "# value); the log of the number of independent sources; the strongest other value's share of the",
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


def fit(labels: Sequence[Label], prior: Model, iterations: int = 50) -> Model:
    """The coefficients of largest posterior: the labels' likelihood under the logistic model
    times a normal prior around the hand-set coefficients (Newton's method; the prior keeps
    the problem well posed with few labels and few wrong ones)."""
    import numpy as np

    x = np.array([label.evidence.terms() for label in labels], dtype=float)
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
    return Model(tuple(round(float(b), 4) for b in beta), prior.prior, prior.prior_sd, prior.fitted_on)


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
