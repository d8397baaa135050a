"""The normalize step (`normalize`): the documents that copy another found, then each document's
claims from the normalize memo where neither it nor what it reads changed, the others normalized
here and in a second process (`run_normalize`)."""

from __future__ import annotations

import pickle
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from pipeline import knowledge
from pipeline.records import Claim, Diagnostic, Extraction, Mention, values_of
from pipeline.runner.cache import Memo, digest
from pipeline.runner.documents import Corpus, Statements, with_statements
from pipeline.runner.pool import beside
from pipeline.runner.reuse import Store, decided_key
from pipeline.runner.settings import Settings
from pipeline.runner.tables import price_rows
from pipeline.stages.copies import find_copies
from pipeline.stages.normalize import (
    Contribution,
    DocumentClaims,
    Normalized,
    gather,
    gather_claims,
    normalize_document,
)
from pipeline.stages.normalize import context as normalize_context

NORMALIZE_SHARE = 0.58
"""The share of the documents to normalize that the build process keeps when it forks a
second one for the rest: the forked one also pickles its claims, which costs it more than
loading them costs the build (at 10,000 documents, 0.58 took 6.0 s where halves took 6.7)."""


def run_normalize(
    extractions: Sequence[Extraction],
    know: Any,
    split: bool,
    memo: Memo | None,
    content: Mapping[str, str] | None = None,
    stated: dict[str, Mapping[str, str]] | None = None,
    contributions: Mapping[str, Contribution] | None = None,
    statements: Mapping[str, bytes] | None = None,
) -> Normalizing:
    """`normalize` (`Normalizing.whole`), with each document's claims from `memo` when neither it
    nor the context it reads changed, and with `split` the other documents shared with a forked
    process (which takes all but `NORMALIZE_SHARE` of them).

    `content` gives a document's parse key (`documents.entry_key`: its bytes, path, limits and the
    code), which determines its extraction: keying the memo by it spares pickling every extraction.
    `stated`, when given with a memo, gets for each document the digest of its claims about each
    entity (`_Stated`), kept in the memo beside the claims. `contributions` are the documents' parts
    of the shared context made where they were parsed (`documents.parse_one`), and `statements` the
    statements of those whose extraction the parse memo gave without them (`Parsed.statements`):
    only the documents normalized again need them. The claims the memo gave are unpickled only when
    asked for (`Normalizing`)."""
    content, statements = content or {}, statements or {}
    ctx = normalize_context(extractions, know, contributions)
    done: dict[str, _Stated] = {}
    keys: dict[str, str] = {}
    if memo is not None:
        memo.pack = _Stated.bagged
        shared = digest(*ctx.fingerprint())
        for ex in extractions:
            path = ex.document.path
            # Without its parse key, a document is keyed by its whole extraction, statements too.
            whole = content[path] if path in content else with_statements(ex, statements)
            keys[path] = key = digest(shared, whole)
            if isinstance(hit := memo.get(key), _Stated):
                done[ex.document.path] = hit
    # Whatever is normalized again needs its statements, memo or not.
    todo = [with_statements(ex, statements) for ex in extractions if ex.document.path not in done]
    digests = memo is not None

    def part(chunk: Sequence[Extraction]) -> dict[str, _Stated]:
        return {ex.document.path: _Stated.of(normalize_document(ctx, ex), digests) for ex in chunk}

    # A fork pays only for a large share of the work; an edit of a few documents is done here.
    # The build process keeps the larger part (`NORMALIZE_SHARE`).
    split = split and len(todo) * 4 >= len(extractions)
    kept = int(len(todo) * NORMALIZE_SHARE) if split else len(todo)
    with beside(lambda: part(todo[kept:]), parallel=split, what="normalizing", stream=True) as rest:
        fresh = part(todo[:kept])
    fresh.update(rest.result())
    if memo is not None:
        for path, result in fresh.items():
            memo.put(keys[path], result)
    parts = {**done, **fresh}
    if stated is not None and memo is not None:  # without a memo, no digest was made
        stated.update((path, part.by_entity) for path, part in parts.items())
    return Normalizing(gather(extractions, ctx, {path: part.head for path, part in parts.items()}), parts)


@dataclass(frozen=True, slots=True)
class Normalizing:
    """What normalize gave: `head` is all of it but the claims, which `whole` joins from each
    document's part. A build that takes its tables from the output it replaces reads only the
    head, and never unpickles the claims the memo gave (at 10,000 documents, loading the memo
    took 0.98 s with them)."""

    head: Normalized
    parts: Mapping[str, _Stated]

    def whole(self) -> Normalized:
        return replace(self.head, claims=gather_claims({path: part.claims for path, part in self.parts.items()}))


_CLAIM_VALUES = values_of(Claim)


@dataclass(frozen=True, slots=True)
class _Stated:
    """A document's claims as the normalize memo keeps them, with the digest of its claims
    about each entity (by the entity it names, before any alias moves them): what a bucket of
    decisions reads of the document (`parts._bucket_keys`). An edit that leaves an entity's claims
    as they were then leaves the decisions about it kept.

    The memo keeps the claims of a shard's documents in one pickle of their own (`bagged`),
    unpickled when a document's `claims` are first read: a memo's entries load without them,
    and the documents of a shard still share the strings their claims repeat (pickled one
    document at a time, the claims of a one-value build at 10,000 documents took 65 MB more)."""

    packed: tuple[Claim, ...] | _InBag
    diagnostics: tuple[Diagnostic, ...]
    mentions: tuple[Mention, ...]
    by_entity: Mapping[str, str]

    @classmethod
    def of(cls, claims: DocumentClaims, digests: bool = True) -> _Stated:
        # Each claim by its values: hashing the records themselves called Python for each one
        # (at 10,000 documents, 0.82 s of CPU here; 0.46 s by their values).
        about: dict[str, list[tuple[object, ...]]] = defaultdict(list)
        for c in claims.claims if digests else ():  # without a memo to keep them in, no bucket to key
            about[c.entity].append(_CLAIM_VALUES(c))
        by_entity = {entity: digest(said) for entity, said in about.items()}
        return cls(claims.claims, claims.diagnostics, claims.mentions, by_entity)

    @property
    def claims(self) -> tuple[Claim, ...]:
        packed = self.packed
        return packed.bag.claims()[packed.key] if isinstance(packed, _InBag) else packed

    @property
    def head(self) -> DocumentClaims:
        """The document's part without its claims."""
        return DocumentClaims((), self.diagnostics, self.mentions)

    @staticmethod
    def bagged(shard: dict[str, Any]) -> dict[str, Any]:
        """A memo shard's entries as it writes them (`Memo.pack`): their claims in one bag."""
        stated = {key: value for key, value in shard.items() if isinstance(value, _Stated)}
        bag = _Bag({key: value.claims for key, value in stated.items()})
        return {**shard, **{key: replace(value, packed=_InBag(bag, key)) for key, value in stated.items()}}


class _Bag:
    """The claims of a memo shard's documents, by key: pickled as one pickle of its own, which
    is unpickled the first time a document's claims are read."""

    def __init__(self, claims: dict[str, tuple[Claim, ...]] | bytes) -> None:
        self._claims = claims

    def claims(self) -> dict[str, tuple[Claim, ...]]:
        if isinstance(self._claims, bytes):
            self._claims = pickle.loads(self._claims)
        return self._claims  # type: ignore[return-value]

    def __reduce__(self) -> tuple[Any, ...]:
        claims = self._claims
        if not isinstance(claims, bytes):
            claims = pickle.dumps(claims, protocol=pickle.HIGHEST_PROTOCOL)
        return (_Bag, (claims,))

    @property
    def loaded(self) -> bool:
        return not isinstance(self._claims, bytes)


@dataclass(frozen=True, slots=True)
class _InBag:
    """Where a document's claims are: in `bag` (shared by its shard's documents), under `key`."""

    bag: _Bag
    key: str


# ------------------------------------------------------------------------------ the step


@dataclass(frozen=True, slots=True)
class Normal:
    """What the normalize step gives the steps after it."""

    normalizing: Normalizing
    stated: Mapping[str, Mapping[str, str]]
    """Each document's digest of its claims about each entity (`_Stated.by_entity`), where the
    memo keeps them: what each bucket of decisions is keyed by (`parts._bucket_keys`)."""
    prices: tuple[dict[str, Any], ...]
    """The prices table's rows."""
    key: str | None
    """A digest of all the steps after this one read (`reuse.decided_key`), where the store may
    take their tables from the output the build replaces."""

    def claims(self) -> Normalized:
        return self.normalizing.whole()


def normalize(statements: Statements, corpus: Corpus, settings: Settings, store: Store) -> tuple[Normal, Corpus]:
    """normalize: the documents that copy another, found from their table cells
    (`copies.find_copies`), then each document's statements as claims, those of a document from
    the store's memo where neither it nor the context it reads changed (`run_normalize`). The
    corpus given back says which document each copies, and what normalize and finding copies
    said."""
    copies, found = find_copies(statements.extractions, corpus.sources, statements.cells)
    memo = store.memo("normalize")
    stated: dict[str, Mapping[str, str]] = {}
    normalizing = run_normalize(
        statements.extractions,
        knowledge.load(),
        settings.splits(len(statements.extractions)),
        memo,
        statements.keys,
        stated,
        statements.contributions,
        statements.statements,
    )
    if memo is not None:
        store.keep(memo)
    # A record made again only where a copy was found: `replace` of each of 10,000 took 0.05-0.07 s.
    sources = {
        path: src if (of := copies.get(path)) == src.copy_of else replace(src, copy_of=of)
        for path, src in corpus.sources.items()
    }
    head = normalizing.head
    corpus = replace(corpus, sources=sources, diagnostics=(*corpus.diagnostics, *head.diagnostics, *found))
    key = None
    if stated and store.keeps_output:
        key = decided_key(
            stated, head.mentions, head.prices, corpus.diagnostics, sources, corpus.upstream, settings.stale_after_days
        )
    return Normal(normalizing, stated, tuple(price_rows(head.prices, sources)), key), corpus
