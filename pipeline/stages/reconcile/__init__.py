"""Stage 4: one value per (entity, attribute), with a confidence and a reason. Each rule lives in
one of the rooms below; the stage keeps no cache: the runner keeps each bucket's decisions
(`pipeline.runner.parts`), and chooses the buckets and the parts it decides at a time
(`pipeline.runner.bucketing`).

Evidence comes from documents (fixed authority tiers, newer over older within a tier),
from the size names themselves (the naming convention, a separate weaker voice) and from
the series a size belongs to (inherited unless the size or its name says otherwise). Physical
checks (count x per-GPU = total, a GPU model's memory sizes, vCPUs in the name) lower the weight
of the claims that fail them. Entities no official document names, and the sizes only a
superseded version of a page lists (`pipeline.stages.aliases`), are kept apart: unverified, and
given nothing of their series. Every fact says what its value rests on (`Fact.basis`).

This module is the stage's entry (`reconcile`: `plan`, then `decide`, then `finish`). The rooms:

- `votes`: a claim as a vote, weighed by its source's tier (sources.toml), and the votes that
  state one value grouped and ranked;
- `rules`: what the size names say (the naming convention, naming.toml), the values a size takes
  from its siblings, and how far each rule is trusted, measured on the corpus;
- `checks`: the physical checks (attributes.toml, gpus.toml), a size's value against its series'
  range and pattern, and the series values a size's name denies it;
- `planning`: the plan (the votes every part reads, the series decided), each part's keys voted
  on, a series' values inherited by its sizes, and every key checked and decided in order;
- `deciding`: one key's votes made a fact (status, basis, evidence) and its conflict rows;
- `reasons`: the words of a fact's reason (what decided, who agrees, the sibling a losing value
  matches);
- `finishing`: the facts finished (staleness, reasons, confidences by the model of
  `pipeline.stages.calibrate`), and parts decided apart joined (`merge`).

The rooms share their helpers by their underscored names: those are the stage's own; what
other modules use is exported here (`__all__`), with the records the stage makes (`Fact`,
`Conflict`, `Reconciled`: `pipeline.records`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pipeline.knowledge import Knowledge
from pipeline.knowledge.registry import Source
from pipeline.records import Claim, Conflict, Fact, Reconciled
from pipeline.stages.calibrate import Model
from pipeline.stages.reconcile.finishing import finish, merge
from pipeline.stages.reconcile.planning import Decided, Failure, Plan, decide, last_checks, plan
from pipeline.stages.reconcile.reasons import listed
from pipeline.stages.reconcile.rules import (
    NameRules,
    Siblings,
    home_series,
    name_rules,
    name_vcpus_hold,
    rule_made,
    sibling_claims,
)
from pipeline.stages.reconcile.votes import NAME_CONVENTION, SIBLING

__all__ = [
    "NAME_CONVENTION",
    "SIBLING",
    "Conflict",
    "Decided",
    "Fact",
    "Failure",
    "NameRules",
    "Plan",
    "Reconciled",
    "Siblings",
    "decide",
    "finish",
    "home_series",
    "last_checks",
    "listed",
    "merge",
    "name_rules",
    "name_vcpus_hold",
    "plan",
    "reconcile",
    "rule_made",
    "sibling_claims",
]


def reconcile(
    claims: Sequence[Claim],
    sources: Mapping[str, Source],
    know: Knowledge | None = None,
    stale_after_days: int = 730,
    *,
    calibration_model: Model | None = None,
    unverified: Mapping[str, str] | None = None,
) -> Reconciled:
    """Facts and conflicts for every entity the claims mention.

    A fact whose newest support is more than `stale_after_days` older than the newest
    document about the same entity is flagged stale: a newer page says nothing about it.
    `unverified` are the sizes no current page lists (`pipeline.stages.aliases.superseded`), each
    with why: unverified whoever names them, and given nothing of their series.
    In three steps: `plan` (the shared votes, the series decided), `decide` (every other key's
    votes, checked and decided), `finish` (staleness, reasons, confidences); `merge` joins parts
    of the entities decided and finished apart (the runner divides them: `pipeline.runner.bucketing`).
    """
    p = plan(claims, sources, know, stale_after_days, calibration_model=calibration_model, unverified=unverified)
    return finish(p, decide(p))
