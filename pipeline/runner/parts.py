"""Reconcile in parts: the entities decided a few buckets at a time, in two processes, the
facts of each part joined in order, and the decisions of each bucket kept for the next build
(the reconcile memo) and taken from it."""

from __future__ import annotations

import pickle
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pipeline.knowledge.registry import Source
from pipeline.records import Claim, Conflict, Fact, Mention, Reconciled
from pipeline.runner.bucketing import Shape, buckets, reads, shape
from pipeline.runner.cache import digest
from pipeline.runner.documents import code_fingerprint
from pipeline.runner.pool import give_back
from pipeline.stages.reconcile import (
    Failure,
    NameRules,
    Plan,
    Siblings,
    last_checks,
)

RECONCILE_BUCKETS = 32
"""Buckets of entities whose decisions a build keeps for the next (`bucketing.buckets`): an edit
decides again the few whose inputs it changed, and the rows of the others are loaded."""
BUCKETS_AT_ONCE = 4
"""Buckets a process decides and finishes at a time (the `part` inside `runner._compute`),
letting go of their votes and facts before the next: at 10,000 documents the process deciding
half of the entities (before `runner.DECIDE_SHARE`) peaked at 1,070 MiB where it took 1,237 MiB
deciding them at once, for about 0.4 s more of reconcile (one bucket at a time: 1,048 MiB, 1.2 s
more)."""


def _early_keys(
    claims: Sequence[Claim],
    sources: Mapping[str, Source],
    names: NameRules,
    siblings: Siblings,
    unverified: Mapping[str, str],
    stale_after_days: int,
    stated: Mapping[str, Mapping[str, str]],
    moved: Sequence[tuple[str, str, str]],
    prices: Sequence[Mapping[str, Any]],
    mentions: Sequence[Mention] = (),
) -> dict[int, str]:
    """`_bucket_keys` before the plan is made, from its shape, which is all they read of it."""
    shaped = shape(claims, sources, names, siblings, stale_after_days=stale_after_days, unverified=unverified)
    return _bucket_keys(shaped, buckets(shaped, RECONCILE_BUCKETS), stated, moved, sources, prices, mentions)


def _bucket_keys(
    p: Plan | Shape,
    bucket_of: Mapping[str, int],
    stated: Mapping[str, Mapping[str, str]],
    moved: Sequence[tuple[str, str, str]],
    sources: Mapping[str, Source],
    prices: Sequence[Mapping[str, Any]],
    mentions: Sequence[Mention] = (),
) -> dict[int, str]:
    """Each bucket's key: a digest of all that deciding and finishing its entities reads
    (`bucketing.reads`), their prices, the comparison tables that name them (their rows of
    vm_sizes count those documents), the rule-made claims about them, and the claims the
    documents that state them state about them. Those are given by their digests in the
    normalize memo (`stated`, by the entity each names), with the claims moved to another name
    by the certain aliases (`moved`): hashing every claim in every build cost more than
    deciding what changed, and a whole document's key would decide again every entity it
    states after an edit of one of them."""
    shared, series, own = reads(p)
    into = {name: size for name, size, _ in moved}
    cited: dict[str, set[str]] = defaultdict(set)
    # A document the memo did not key (none did without a cache) stands for itself by its claims.
    unkeyed: dict[tuple[str, str], list[Claim]] = defaultdict(list)
    for c in p.claims:
        cited[c.entity].add(c.document)
        if c.document not in stated:
            unkeyed[c.document, c.entity].append(c)
    made: dict[str, list[Claim]] = defaultdict(list)
    for c in p.name_claims:
        made[c.entity].append(c)
    priced: dict[str, list[object]] = defaultdict(list)
    for row in prices:
        priced[row["size"]].append(row)
    for m in mentions:
        if m.size:
            priced[m.size].append(m)
    citing = {d for docs in cited.values() for d in docs}
    about: dict[tuple[str, str], list[tuple[str, str]]] = defaultdict(list)
    for d in citing & stated.keys():
        for named, said in sorted(stated[d].items()):
            about[d, into.get(named, named)].append((named, said))
    of_source = {d: digest(sources.get(d)) for d in citing}

    def said_of(d: str, entity: str) -> object:
        if d not in stated:
            return unkeyed[d, entity]
        # A claim no alias moved under a name an alias moves (not a size's): the whole document.
        return about.get((d, entity)) or sorted(stated[d].items())

    def read_of(entity: str) -> list[tuple[str, object, str]]:
        return [(d, said_of(d, entity), of_source[d]) for d in sorted(cited.get(entity, ()))]

    # The series' claims by their documents' digests, like an entity's: pickling the 132,000
    # claims of 10,000 documents' series for every build cost 0.3 s.
    # Which names stand for which sizes; not why (the words of its evidence move with any value).
    base = digest(
        code_fingerprint(), shared, [m[:2] for m in moved], [(s, read_of(s), made.get(s, [])) for s in series]
    )
    inputs: dict[int, list[object]] = defaultdict(list)
    for entity in sorted(bucket_of):
        inputs[bucket_of[entity]].append((own[entity], read_of(entity), made.get(entity, []), priced.get(entity, [])))
    return {b: digest(base, bucket) for b, bucket in inputs.items()}


def _still_holds(kept: _Part, rules: Mapping[tuple[str, str], float]) -> bool:
    """Whether a bucket's kept decisions hold in this build: its key matched, and every rate of
    the rules' agreement that its confidences read is the same."""
    return isinstance(kept.facts, _Packed) and all(
        rules.get(rule, 0.0) == rate for read in kept.rates.values() for rule, rate in read
    )


def _by_bucket(
    parts: Sequence[_Part], bucket_of: Mapping[str, int], decided: Iterable[int]
) -> Iterator[tuple[int, _Part]]:
    """The parts' rows regrouped by bucket, one for each bucket `decided` (an empty one too: it
    is kept as decided, not as missing), its facts packed (`_Packed`) one bucket at a time. A
    claim checked for keys of a bucket keeps the checks of its last one there, as `merge`
    keeps the last of all the buckets."""
    import numpy as np
    import pandas as pd

    rows_of: list[tuple[Any, Any]] = []
    sizes_of: list[tuple[Any, Any]] = []
    conflicts: dict[int, list[Conflict]] = defaultdict(list)
    failures: dict[int, list[Failure]] = defaultdict(list)
    members: dict[int, list[tuple[str, str]]] = defaultdict(list)
    rates: dict[int, dict[str, tuple[tuple[tuple[str, str], float], ...]]] = defaultdict(dict)
    for part in parts:
        for entity, read in part.rates.items():
            rates[bucket_of[entity]][entity] = read
        rec = part.rec
        rows_of.append((part.facts, _buckets_of_rows(part.facts["entity"], bucket_of)))
        sizes_of.append((part.sizes, _buckets_of_rows(part.sizes["size"], bucket_of)))
        for c in rec.conflicts:
            conflicts[bucket_of[c.entity]].append(c)
        # Each bucket keeps the checks of its own last key for a claim: a series' claim is
        # checked for sizes in several buckets, and any of them may be decided again alone.
        for failure in part.failures:
            failures[bucket_of[failure[1][1][0]]].append(failure)
        for size, series in part.members:
            members[bucket_of[size]].append((size, series))
    for b in sorted(set(decided)):
        # Plain text, as kept: a column one part encoded (`_compact`) and another did not
        # would join as Python objects.
        facts = pd.concat(
            [_decoded(rows.take(np.flatnonzero(of_row == b))) for rows, of_row in rows_of], ignore_index=True
        )
        sizes = pd.concat([rows.take(np.flatnonzero(of_row == b)) for rows, of_row in sizes_of], ignore_index=True)
        yield (
            b,
            _Part(
                Reconciled((), tuple(conflicts[b]), (), *last_checks(failures[b])),
                _Packed.of(facts),
                sizes,
                members[b],
                rates[b],
            ),
        )


def _buckets_of_rows(names: Any, bucket_of: Mapping[str, int]) -> Any:
    """The bucket of each row whose entity `names` (a column) gives, as a numpy array: each
    distinct name looked up once, since the facts hold an entity's name for each attribute."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    column = _one_array(names.array)
    encoded = column if pa.types.is_dictionary(column.type) else pc.dictionary_encode(column)  # `_compact`
    of_name = np.array([bucket_of[name] for name in encoded.dictionary.to_pylist()], dtype=np.int64)
    return of_name[encoded.indices.to_numpy(zero_copy_only=False)]


@dataclass(frozen=True, slots=True)
class _Packed:
    """A DataFrame's columns, each pickled and compressed (zstd): a kept bucket's facts take a
    tenth of the room on disk and in the process that saves them, and a build that joins the
    kept buckets' facts unpacks one column of them at a time (`_in_order`), not every bucket's
    whole table at once."""

    columns: tuple[str, ...]
    data: tuple[bytes, ...]
    sizes: tuple[int, ...]

    @classmethod
    def of(cls, frame: Any) -> _Packed:
        import pyarrow as pa

        raws = [pickle.dumps(frame[name], protocol=pickle.HIGHEST_PROTOCOL) for name in frame.columns]
        data = tuple(pa.compress(raw, codec="zstd", asbytes=True) for raw in raws)
        return cls(tuple(frame.columns), data, tuple(len(raw) for raw in raws))

    def column(self, name: str) -> Any:
        import pyarrow as pa

        i = self.columns.index(name)
        return pickle.loads(pa.decompress(self.data[i], decompressed_size=self.sizes[i], codec="zstd", asbytes=True))

    def frame(self) -> Any:
        import pandas as pd

        return pd.DataFrame({name: self.column(name) for name in self.columns}, columns=list(self.columns), copy=False)


@dataclass(frozen=True, slots=True)
class _Part:
    """What a part of the entities (`divide`) gives the tables, made where it was decided."""

    rec: Reconciled
    """Its facts only when the caller keeps the records: else they are in `facts`."""
    facts: Any
    """The rows of the facts table, as a DataFrame: its text encoded where one of two parts
    holds it (`_compact`), or a kept bucket's `_Packed` columns."""
    sizes: Any
    """Its rows of vm_sizes, as a DataFrame in size order: as Python dicts, the rows of both
    parts were held at once in the build process (20 MB more at 10,000 documents)."""
    members: list[tuple[str, str]]
    """(size, series) for each size whose series is known (`runner._not_built`)."""
    rates: Mapping[str, tuple[tuple[tuple[str, str], float], ...]] = field(default_factory=dict)
    """The rules' agreement its entities' confidences read (`bucketing.rates_read`), when kept."""
    failures: Sequence[Failure] = ()
    """Every check its keys failed (`Decided.failures`), when kept: split by bucket."""


def _chunks(bucket_of: Mapping[str, int], entities: frozenset[str] | None) -> list[frozenset[str]]:
    """The entities (every one, without `entities`) by runs of `BUCKETS_AT_ONCE` buckets, in
    the buckets' order."""
    of: dict[int, set[str]] = defaultdict(set)
    for entity in bucket_of if entities is None else entities:
        of[bucket_of[entity] // BUCKETS_AT_ONCE].add(entity)
    return [frozenset(of[b]) for b in sorted(of)]


def _series_members(facts: Iterable[Fact]) -> list[tuple[str, str]]:
    return [
        (f.entity, f.value_text) for f in facts if f.entity_kind == "size" and f.attribute == "series" and f.value_text
    ]


def _in_order(parts: list[Any], by: list[str]) -> Any:
    """The rows of frames with the same columns as one frame sorted by the `by` columns (text,
    compared as Python compares it); each part is already in that order. Made a column at a
    time, each part's column let go once it is in the whole: the parts are not copied at once.
    The list should be all that holds its frames: each is replaced there by its columns, which
    are let go as they are joined. A part may be a kept bucket's `_Packed` frame, whose columns
    are unpacked one at a time. A text column a part holds encoded (`_compact`) is plain in
    the whole."""
    import pandas as pd
    import pyarrow as pa
    import pyarrow.compute as pc

    def column(part: Any, name: str) -> Any:
        # A part at a time: joining the parts' encoded chunks first would unify their
        # dictionaries, a hash of every value (in a trial with two parts of 320,000 reasons,
        # 200,000 of them distinct: 115 MiB more).
        return _decoded(part.column(name) if isinstance(part, _Packed) else part[name]).array

    if len(parts) == 1:
        return _decoded(parts[0].frame() if isinstance(parts[0], _Packed) else parts[0])
    columns = list(parts[0].columns)
    # Each frame's columns by name, in its place in the list: a column is let go once it is in
    # the whole. Deleting the frames' columns one at a time cost pandas more than joining them
    # (at 10,000 documents, one change: 28 parts of vm_sizes' 52 columns, a third of the time).
    # The sort keys are decoded here, once: they are read for the order and joined after.
    for i, part in enumerate(parts):
        if not isinstance(part, _Packed):
            parts[i] = {name: _decoded(part[name]) if name in by else part[name] for name in part.columns}
        del part  # nor does the loop hold the last frame
    keys = pa.table({name: pa.chunked_array([pa.array(column(part, name)) for part in parts]) for name in by})
    order = pc.sort_indices(keys, sort_keys=[(name, "ascending") for name in by]).to_numpy()
    del keys
    # Parts that follow each other (the two parts of a divided reconcile) are joined as they are.
    ordered = bool((order[1:] > order[:-1]).all())
    whole: dict[str, Any] = {}
    for name in columns:
        # Joined and put in order as arrays, not as Series: pandas' concat and take of a
        # Series make and check an index for each column (at 10,000 documents, the facts of
        # 32 buckets: 0.95-1.09 -> 0.70-0.87 s).
        arrays = [column(part, name) for part in parts]
        for part in parts:
            if isinstance(part, dict):
                del part[name]
        joined = type(arrays[0])._concat_same_type(arrays)  # pandas' extension array interface
        del arrays
        if isinstance(joined, pd.arrays.ArrowStringArray):
            # One chunk before the rows are put in order: Arrow takes from a column of many
            # chunks by joining them first, a copy beside the parts' own. The parts' chunks
            # go here, before the take: not three copies of the column at once, but two.
            joined = _one_array(joined)
        # The parts' columns were unpickled into the C heap, the whole is made in Arrow's pool:
        # what the parts free is handed back as it goes, or the two would add up (10,000
        # documents, one change: the build's peak 1,532 -> 1,407 MiB).
        give_back()
        if isinstance(joined, pa.Array):
            joined = pd.arrays.ArrowStringArray(joined if ordered else joined.take(order))
        elif not ordered:
            joined = joined.take(order)
        whole[name] = pd.Series(joined, name=name, copy=False)
        del joined
    # Not copied again: a frame made from a dict copies its columns unless told not to (the
    # masked numbers of facts, 41 MiB at 10,000 documents).
    return pd.DataFrame(whole, columns=columns, copy=False)


def _compact(frame: Any) -> Any:
    """`frame`, each text column whose values repeat (its dictionary encoding at most
    `ENCODED_AT_MOST` of its size) dictionary-encoded in place. The facts of each of two parts
    wait, encoded, until they are joined (`_in_order`), the other part's having come through
    the pipe: at 10,000 documents the facts' text is 178 MB plain and 67 MB encoded (the
    reasons 69 MB and 25 MB), and the other part's plain table, arriving, made the build's peak."""
    import pandas as pd
    import pyarrow.compute as pc

    if frame.empty:
        return frame
    for name in frame.columns:
        if isinstance(array := frame[name].array, pd.arrays.ArrowStringArray):
            plain = _one_array(array)
            coded = pc.dictionary_encode(plain)
            if coded.nbytes <= ENCODED_AT_MOST * plain.nbytes:
                frame[name] = pd.Series(pd.arrays.ArrowExtensionArray(coded), index=frame.index, copy=False)
    return frame


ENCODED_AT_MOST = 0.5
"""The share of its plain size that a text column's dictionary encoding may take for
`_compact` to keep it encoded: a column of mostly distinct values (claim ids) stays plain."""


def _is_encoded(array: Any) -> bool:
    """Whether a pandas array is a text column `_compact` encoded (Arrow's dictionary type)."""
    import pandas as pd
    import pyarrow as pa

    return isinstance(array.dtype, pd.ArrowDtype) and pa.types.is_dictionary(array.dtype.pyarrow_dtype)


def _decoded(data: Any) -> Any:
    """A frame or Series with every encoded text column (`_compact`) plain again."""
    import pandas as pd
    import pyarrow as pa

    if isinstance(data, pd.Series):
        if not _is_encoded(data.array):
            return data
        plain = pa.array(data.array).cast(pa.large_string())  # chunk by chunk, if several
        return pd.Series(pd.arrays.ArrowStringArray(plain), index=data.index, name=data.name, copy=False)
    if not any(_is_encoded(data[name].array) for name in data.columns):
        return data
    return pd.DataFrame({name: _decoded(data[name]) for name in data.columns}, columns=list(data.columns), copy=False)


def _one_array(text: Any) -> Any:
    """The Arrow array of a text column's pandas array: its chunks joined if it has several,
    as it is if it has one (pandas gives a one-chunk array without a copy; joining one chunk
    would copy it). A column joined from parts is a chunk per part, which writing joins
    (`write._arrow_table`: a table's bytes must not depend on how it was put together) while
    every table is held; joined where the parts are, before the other tables are made, the copy
    of the longest (facts.reason, 70 MB at 10,000 documents) costs that much less at the peak."""
    import pyarrow as pa

    array = pa.array(text)
    return array.combine_chunks() if isinstance(array, pa.ChunkedArray) else array
