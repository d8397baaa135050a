"""Frames joined and held small: the parts of a table joined in order a column at a time
(`_in_order`), and a kept bucket's rows packed a column at a time (`_Packed`)."""

from __future__ import annotations

import pickle
from dataclasses import dataclass
from typing import Any

from pipeline.runner.pool import give_back


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


def _in_order(parts: list[Any], by: list[str]) -> Any:
    """The rows of frames with the same columns as one frame sorted by the `by` columns (text,
    compared as Python compares it); each part is already in that order. Made a column at a
    time, each part's column let go once it is in the whole: the parts are not copied at once.
    The list should be all that holds its frames: each is replaced there by its columns, which
    are let go as they are joined. A part may be a kept bucket's `_Packed` frame, whose columns
    are unpacked one at a time."""
    import pandas as pd
    import pyarrow as pa
    import pyarrow.compute as pc

    def column(part: Any, name: str) -> Any:
        return (part.column(name) if isinstance(part, _Packed) else part[name]).array

    if len(parts) == 1:
        return parts[0].frame() if isinstance(parts[0], _Packed) else parts[0]
    columns = list(parts[0].columns)
    # Each frame's columns by name, in its place in the list: a column is let go once it is in
    # the whole. Deleting the frames' columns one at a time cost pandas more than joining them
    # (at 10,000 documents, one change: 28 parts of vm_sizes' 52 columns, a third of the time).
    for i, part in enumerate(parts):
        if not isinstance(part, _Packed):
            parts[i] = {name: part[name] for name in part.columns}
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
