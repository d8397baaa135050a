"""Stage 4: for each (entity, attribute), one value out of the claims that state it.

This first version takes the most authoritative claim: an official page before a blog
before a third party, the newer document first, a value read directly before one derived
from another cell, a table before running text.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pipeline.records import Claim, Document

KIND_RANK = {"official_spec": 0, "vendor_blog": 1, "third_party": 2}
METHOD_RANK = {
    "table": 0,
    "part_table": 1,
    "feature_table": 1,
    "key_value": 2,
    "derived": 3,
    "note": 4,
    "bullet": 4,
    "paragraph": 5,
}


@dataclass(frozen=True, slots=True)
class DocInfo:
    """What reconciliation needs to know about a document."""

    path: str
    kind: str
    as_of: dt.date | None


def authority_key(claim: Claim, docs: Mapping[str, DocInfo]) -> tuple[object, ...]:
    info = docs[claim.document]
    newest_first = -(info.as_of.toordinal() if info.as_of else 0)
    return (
        KIND_RANK.get(info.kind, 9),
        newest_first,
        METHOD_RANK.get(claim.method, 9),
        claim.document,
        claim.line,
        claim.claim_id,
    )


def most_authoritative(claims: Sequence[Claim], docs: Mapping[str, DocInfo]) -> dict[tuple[str, str], Claim]:
    """The winning claim per (entity, attribute); ranges never win a single value."""
    by_key: dict[tuple[str, str], list[Claim]] = defaultdict(list)
    for c in claims:
        if not c.is_range:
            by_key[(c.entity, c.attribute)].append(c)
    return {k: min(v, key=lambda c: authority_key(c, docs)) for k, v in by_key.items()}


def doc_infos(documents: Sequence[Document], kinds: Mapping[str, str]) -> dict[str, DocInfo]:
    return {d.path: DocInfo(d.path, kinds[d.path], d.metadata.date) for d in documents}
