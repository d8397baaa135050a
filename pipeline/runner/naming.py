"""The aliases step (`aliases`): which names stand for another size (`pipeline.stages.aliases`),
the claims the size names and the sizes' siblings make (`pipeline.stages.reconcile`'s rules),
every claim then known, and the values their series' patterns say are slips
(`pipeline.stages.patterns`). The stage keeps no memo: it reads every claim, and takes a second."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from pipeline import knowledge
from pipeline.records import Claim, Diagnostic, Mention
from pipeline.runner.documents import Corpus
from pipeline.runner.normalizing import Normal
from pipeline.stages.aliases import Alias
from pipeline.stages.aliases import resolve as resolve_aliases
from pipeline.stages.normalize import provenance_order
from pipeline.stages.patterns import Patterns, series_patterns
from pipeline.stages.reconcile import NameRules, Siblings, home_series, name_rules, rule_made, sibling_claims


@dataclass(frozen=True, slots=True)
class Named:
    """Every claim under the size it is about, and what the names say."""

    resolved: tuple[Claim, ...]
    """The documents' claims, an alias's moved to the size it stands for."""
    claims: tuple[Claim, ...]
    """With the claims the names and the siblings make, in provenance order: every claim."""
    names: NameRules
    siblings: Siblings
    patterns: Patterns
    """Read from `resolved`, like the names' rules: what reconcile's checks ask of a series' pattern."""
    aliases: tuple[Alias, ...]
    unverified: Mapping[str, str]
    """The sizes no current page lists, each with why (`aliases.superseded`)."""
    mentions: tuple[Mention, ...]
    diagnostics: tuple[Diagnostic, ...]


def aliases(normal: Normal, corpus: Corpus) -> Named:
    """aliases: the names that stand for another size, their claims moved to it; then what each
    size's name says of it and what its siblings state, and which values break their series' pattern."""
    norm = normal.claims()
    spelled = resolve_aliases(norm.claims, corpus.sources, norm.mentions)
    resolved, know = spelled.claims, knowledge.load()
    homes = home_series(resolved, corpus.sources)  # each size's series, which both rules read
    names = name_rules(resolved, corpus.sources, know, spelled.mentions, homes)
    siblings = sibling_claims(resolved, corpus.sources, know, homes)
    patterns = series_patterns(resolved, corpus.sources, know)
    claims = tuple(sorted((*resolved, *rule_made(names, siblings)), key=provenance_order))
    return Named(
        resolved=resolved,
        claims=claims,
        names=names,
        siblings=siblings,
        patterns=patterns,
        aliases=spelled.aliases,
        unverified=dict(spelled.superseded),
        mentions=spelled.mentions,
        diagnostics=(*spelled.diagnostics, *names.diagnostics, *patterns.diagnostics),
    )
