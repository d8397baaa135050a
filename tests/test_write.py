"""The CSV files analysts open: each value's text, quoting, and that every row comes back.

`write_csv` makes the text with Arrow's kernels rather than one Python call per field, so
these tests hold it to what Python's csv module writes and reads.
"""

from __future__ import annotations

import array
import csv
import datetime as dt
import hashlib
import io
import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pipeline.outputs import write
from pipeline.outputs.write import write_csv
from tests.conftest import SECOND, forged, settle


def _csv_text(table: pa.Table, tmp_path: Path) -> str:
    path = tmp_path / "t.csv"
    write_csv(table, path)
    return path.read_bytes().decode("utf-8")


@pytest.mark.parametrize(
    ("value", "kind", "field"),
    [
        ("8 A100 40 GB GPUs (NVLink 3.0)", pa.string(), "8 A100 40 GB GPUs (NVLink 3.0)"),
        ("80,000 / 800", pa.string(), '"80,000 / 800"'),
        ('the "NDv2" series', pa.string(), '"the ""NDv2"" series"'),
        ("two\nlines", pa.string(), '"two\nlines"'),
        ("carriage\rreturn", pa.string(), '"carriage\rreturn"'),
        (" leading space", pa.string(), " leading space"),
        ("", pa.string(), ""),
        (None, pa.string(), ""),
        (672, pa.int64(), "672"),
        (-3, pa.int64(), "-3"),
        (None, pa.int64(), ""),
        (80.0, pa.float64(), "80"),
        (0.1, pa.float64(), "0.1"),
        (1e-05, pa.float64(), "1e-05"),
        (2.5e20, pa.float64(), "2.5e+20"),
        (None, pa.float64(), ""),
        (True, pa.bool_(), "True"),
        (False, pa.bool_(), "False"),
        (None, pa.bool_(), ""),
        (dt.date(2024, 5, 1), pa.date32(), "2024-05-01"),
        (None, pa.date32(), ""),
    ],
)
def test_each_value_is_written_as_its_field(value: Any, kind: pa.DataType, field: str, tmp_path: Path) -> None:
    table = pa.table({"value": pa.array([value], kind), "next": pa.array(["x"])})
    assert _csv_text(table, tmp_path) == f"value,next\n{field},x\n"


@pytest.mark.parametrize(
    ("last", "lines"),
    [
        (pa.array(["x", None, "y,z"]), ["size,last", "NC6,x", "NC12,", 'ND40rs_v2,"y,z"']),
        (pa.array([None, None, None], pa.int64()), ["size,last", "NC6,", "NC12,", "ND40rs_v2,"]),
        (pa.array([True, None, False]), ["size,last", "NC6,True", "NC12,", "ND40rs_v2,False"]),
    ],
    ids=["text", "all null", "flags"],
)
def test_a_line_ends_after_its_last_field_null_or_not(last: pa.Array, lines: list[str], tmp_path: Path) -> None:
    """The line's end is joined to the last field alone: a null there is still an empty field."""
    table = pa.table({"size": ["NC6", "NC12", "ND40rs_v2"], "last": last})
    assert _csv_text(table, tmp_path) == "\n".join(lines) + "\n"


def test_each_float_keeps_its_own_text_when_a_column_repeats_numbers(tmp_path: Path) -> None:
    # Floats are formatted once per distinct value, then looked up: 0.0 and -0.0 are equal as
    # numbers yet print apart, and a repeated value prints the same each time.
    table = pa.table({"n": pa.array([0.0, -0.0, 1.5, None, 0.0, 1.5], pa.float64())})
    assert _csv_text(table, tmp_path).splitlines() == ["n", "0", "-0", "1.5", "", "0", "1.5"]


def test_an_empty_table_is_its_header(tmp_path: Path) -> None:
    table = pa.table({"size": pa.array([], pa.string()), "vcpus": pa.array([], pa.int64())})
    assert _csv_text(table, tmp_path) == "size,vcpus\n"


def test_rows_across_batches_and_slices_keep_their_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(write, "CSV_BATCH_ROWS", 3)
    sizes = [f"Standard_ND{n}rs_v2" for n in range(10)]
    table = pa.table({"size": sizes, "vcpus": list(range(10))}).slice(2, 7)
    assert _csv_text(table, tmp_path).splitlines() == ["size,vcpus"] + [f"{sizes[n]},{n}" for n in range(2, 9)]


@pytest.mark.parametrize("kind", [pa.string(), pa.large_string()], ids=["string", "large_string"])
def test_a_batch_is_quoted_by_its_own_values_not_its_neighbours(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: pa.DataType
) -> None:
    """A batch whose values hold no comma, quote or line break is written without matching
    each value; the scan that says so reads only the batch's own characters."""
    monkeypatch.setattr(write, "CSV_BATCH_ROWS", 2)
    values = ["ND40rs_v2", "NC6", 'the "v2"', "8 x V100, 32 GiB", "NC6", None, "a\nb"]
    table = pa.table({"text": pa.array(values, kind)}).slice(1, 6)
    assert _csv_text(table, tmp_path) == 'text\nNC6\n"the ""v2"""\n"8 x V100, 32 GiB"\nNC6\n\n"a\nb"\n'


def test_a_null_is_an_empty_field_whatever_bytes_its_slot_holds(tmp_path: Path) -> None:
    """Arrow may leave bytes under a null (an array made from buffers): they are no field's, so
    they neither quote it nor show."""
    data = pa.py_buffer(b'NC6a,b"ND40')
    offsets = pa.py_buffer(array.array("i", [0, 3, 7, 11]).tobytes())
    validity = pa.py_buffer(bytes([0b101]))  # the second value is null
    text = pa.Array.from_buffers(pa.string(), 3, [validity, offsets, data], null_count=1)
    assert _csv_text(pa.table({"text": text}), tmp_path) == "text\nNC6\n\nND40\n"


def test_a_batch_whose_text_could_pass_32_bit_offsets_is_made_as_large_strings() -> None:
    """A line's fields are joined in one array per batch: its type is chosen by what the batch
    could grow to, quoting doubling every string."""
    small = SimpleNamespace(nbytes=1 << 20, num_rows=1 << 14, num_columns=20)
    huge = SimpleNamespace(nbytes=1 << 30, num_rows=1 << 14, num_columns=20)
    assert write._text_type(small) == pa.string()  # type: ignore[arg-type]
    assert write._text_type(huge) == pa.large_string()  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("value", "field"),
    [("8 x V100, 32 GiB", '"8 x V100, 32 GiB"'), ('the "v2"', '"the ""v2"""'), ("a\rb", '"a\rb"'), ("a\nb", '"a\nb"')],
    ids=["comma", "quote", "carriage return", "line feed"],
)
def test_each_character_that_makes_a_field_quoted_does_so_alone_in_its_column(
    tmp_path: Path, value: str, field: str
) -> None:
    table = pa.table({"text": pa.array(["NC6", value], pa.string())})
    assert _csv_text(table, tmp_path) == f"text\nNC6\n{field}\n"


def _python_field(value: Any) -> Any:
    """What the CSV holds for `value`, as Python's csv module is given it."""
    if isinstance(value, float):
        return write._float_text(value)
    return value


TEXT = st.text(alphabet=st.sampled_from('ab ,"\n\r\té€_|0'), max_size=8)
ROWS = st.lists(
    st.tuples(
        st.none() | TEXT,
        st.none() | st.integers(-(2**63), 2**63 - 1),
        st.none() | st.floats(allow_nan=False, allow_infinity=False),
        st.none() | st.booleans(),
    ),
    max_size=12,
)


@given(rows=ROWS)
def test_the_text_is_what_pythons_csv_module_writes_and_reads_back(rows: list[tuple[Any, ...]]) -> None:
    names = ["text", "count", "number", "flag"]
    kinds = [pa.string(), pa.int64(), pa.float64(), pa.bool_()]
    table = pa.table([pa.array([r[i] for r in rows], kinds[i]) for i in range(4)], names=names)
    with tempfile.TemporaryDirectory() as folder:
        text = _csv_text(table, Path(folder))

    # Read back: every row, every field, as written (null is an empty field).
    read = list(csv.reader(io.StringIO(text, newline="")))
    assert read[0] == names
    expected = [["" if v is None else str(_python_field(v)) for v in row] for row in rows]
    assert read[1:] == expected
    for row, back in zip(rows, read[1:], strict=True):
        if row[2] is not None:
            assert float(back[2]) == row[2]

    # Byte for byte what Python's csv module writes, where it quotes as RFC 4180 asks: Python
    # 3.11 leaves a lone carriage return unquoted when lines end in "\n"; write_csv quotes it.
    if not any(r[0] and "\r" in r[0] for r in rows):
        reference = io.StringIO()
        writer = csv.writer(reference, lineterminator="\n")
        writer.writerow(names)
        writer.writerows([_python_field(v) for v in row] for row in rows)
        assert text == reference.getvalue()


@pytest.mark.parametrize(
    ("kind", "values"),
    [
        ("string", ["NC6", None, "", "ND40rs_v2 \u2013 \u00e9"]),
        ("string", ["text", 3]),  # not all text: pandas converts, as it always did
        ("int", [8, None, 0, -1, 2**40]),
        ("int", [8, 2.0]),  # a float in an int column: pandas decides
        ("float", [1.5, None, float("nan"), 40, 0.1 + 0.2]),
        ("bool", [True, None, False]),
        ("bool", [True, 1]),
        ("date", [dt.date(2024, 7, 31), None]),
    ],
)
def test_a_column_made_by_arrow_is_the_one_pandas_makes(kind: str, values: list[Any]) -> None:
    """`frame` converts a column with Arrow where it can; the Series must be exactly pandas' own."""
    import pandas as pd

    from pipeline.outputs.schema import Column

    column = Column("x", kind, "a column")
    try:
        expected = pd.Series(values, dtype=write._PANDAS[kind], name="x")
    except (TypeError, ValueError) as exc:
        with pytest.raises(type(exc)):
            write.frame({"x": values}, [column])
        return
    pd.testing.assert_series_equal(write.frame({"x": values}, [column])["x"], expected)


def test_a_frame_of_iterators_given_its_rows_is_the_frame_of_lists() -> None:
    """The runner hands `frame` each column as an iterator over the records, with the number of
    rows, so that one column's values are held at a time; the frame is the one lists make,
    and a column not given is all null for every row."""
    import pandas as pd

    from pipeline.outputs.schema import Column

    columns = [Column("size", "string", "a size"), Column("vcpus", "int", "vCPUs"), Column("note", "string", "x")]
    sizes, vcpus = ["Standard_ND40rs_v2", "Standard_NC6"], [40, 6]
    lazy = write.frame({"size": iter(sizes), "vcpus": (v for v in vcpus)}, columns, rows=2)
    pd.testing.assert_frame_equal(lazy, write.frame({"size": sizes, "vcpus": vcpus}, columns))
    assert lazy["note"].isna().tolist() == [True, True]


def test_a_table_read_back_from_its_file_is_the_frame_it_was_written_from(tmp_path: Path) -> None:
    """A build that takes a table from the output it replaces gives the report that table read
    from its Parquet file: it must be the frame the table was written from, dtype for dtype, or
    the page would differ. With `where`, only the rows whose value in that column is listed."""
    import pandas as pd

    from pipeline.outputs.schema import Column

    columns = [
        Column("claim_id", "string", "an id"),
        Column("vcpus", "int", "vCPUs"),
        Column("memory_gib", "float", "memory"),
        Column("stale", "bool", "stale"),
        Column("as_of", "date", "a date"),
    ]
    made = write.frame(
        {
            "claim_id": ["c1", "c2", None, "c4"],
            "vcpus": [40, None, 6, 0],
            "memory_gib": [672.0, 1.5, None, 0.1 + 0.2],
            "stale": [True, None, False, False],
            "as_of": [dt.date(2020, 5, 1), None, dt.date(2024, 7, 31), dt.date(2019, 1, 2)],
        },
        columns,
    )
    write.write_table(made, columns, "claims", tmp_path)
    pd.testing.assert_frame_equal(write.read_frame(tmp_path / "claims.parquet", columns), made)
    picked = write.read_frame(tmp_path / "claims.parquet", columns, where=("claim_id", {"c4", "c1", "c9"}))
    pd.testing.assert_frame_equal(picked, made.iloc[[0, 3]].reset_index(drop=True))
    assert write.read_frame(tmp_path / "claims.parquet", columns[:2], where=("claim_id", set())).empty


def test_a_frame_joined_from_parts_writes_the_bytes_of_the_whole(tmp_path: Path) -> None:
    """A large build joins the facts of two processes into one frame, whose text columns then
    hold one Arrow chunk per part. Parquet's pages follow the chunks, so the table must be
    written as one chunk per column: the bytes are those of the frame made whole."""
    import pandas as pd

    from pipeline.outputs.schema import Column

    columns = [Column("entity", "string", "a size"), Column("gpus", "int", "GPUs")]
    sizes = [f"Standard_ND{n}rs_v2 with a reason long enough to fill pages" for n in range(60_000)]
    whole = write.frame({"entity": sizes, "gpus": [n % 9 for n in range(60_000)]}, columns)
    joined = pd.concat([whole.iloc[:21_000], whole.iloc[21_000:]], ignore_index=True)
    assert joined["entity"].array._pa_array.num_chunks == 2  # what a join of parts gives
    for made, folder in ((whole, tmp_path / "whole"), (joined, tmp_path / "joined")):
        folder.mkdir()
        write.write_table(made, columns, "facts", folder)
    for name in ("facts.parquet", "facts.csv"):
        assert (tmp_path / "joined" / name).read_bytes() == (tmp_path / "whole" / name).read_bytes()


def test_a_consumed_frame_writes_the_bytes_of_pandas_conversion_and_is_let_go(tmp_path: Path) -> None:
    """A build gives each frame up to the writer, which drops a column once it is converted, so
    a large table is never held twice. The files are those of `pa.Table.from_pandas` (pandas'
    metadata included: it reads each column's dtype, not its values), and the frame is emptied."""
    import datetime as dt

    import pyarrow.parquet as pq

    from pipeline.outputs.schema import Column

    columns = [
        Column("size", "string", "a size"),
        Column("vcpus", "int", "vCPUs"),
        Column("memory_gib", "float", "memory", "GiB"),
        Column("official", "bool", "named by an official page"),
        Column("as_of", "date", "the page's date"),
    ]
    data = {
        "size": ["Standard_ND40rs_v2", None, "Standard_NC6"],
        "vcpus": [40, 6, None],
        "memory_gib": [672.0, None, 56.0],
        "official": [True, None, False],
        "as_of": [dt.date(2024, 3, 1), None, dt.date(2019, 5, 2)],
    }
    given = write.frame(data, columns)
    write.write_table(given, columns, "vm_sizes", tmp_path, consume=True)
    assert list(given.columns) == []
    schema = write.arrow_schema(columns, "vm_sizes")
    expected = pa.Table.from_pandas(write.frame(data, columns), schema=schema, preserve_index=False)
    expected = expected.replace_schema_metadata({**(expected.schema.metadata or {}), **(schema.metadata or {})})
    written = pq.read_table(tmp_path / "vm_sizes.parquet")
    assert written.equals(expected, check_metadata=True)
    assert written["size"].to_pylist() == ["Standard_ND40rs_v2", None, "Standard_NC6"]
    assert (tmp_path / "vm_sizes.csv").read_text().splitlines()[1] == "Standard_ND40rs_v2,40,672,True,2024-03-01"


def _written(folder: Path, sizes: list[str], previous: write.Previous | None = None) -> Path:
    """`vm_sizes` with one column, written into `folder` (with a manifest listing it, as a build's)."""
    from pipeline.outputs.schema import Column

    columns = [Column("size", "string", "a size")]
    folder.mkdir()
    write.write_table(write.frame({"size": sizes}, columns), columns, "vm_sizes", folder, previous=previous)
    entry = {
        "sha256": write.file_sha256(folder / "vm_sizes.csv"),
        "parquet_sha256": write.file_sha256(folder / "vm_sizes.parquet"),
    }
    write.write_json(folder / "manifest.json", {"code_sha256": "code A", "outputs": {"vm_sizes": entry}})
    return folder


def test_a_table_written_again_unchanged_takes_the_previous_csv(tmp_path: Path) -> None:
    """The Parquet file is written and compared: the same bytes mean the same table, whose CSV the
    same code already wrote. It is linked from the previous output, not made again."""
    before = _written(tmp_path / "before", ["Standard_ND40rs_v2", "Standard_NC6"])
    previous = write.Previous.of(before, "code A")
    assert previous is not None
    after = _written(tmp_path / "after", ["Standard_ND40rs_v2", "Standard_NC6"], previous)
    assert (after / "vm_sizes.csv").stat().st_ino == (before / "vm_sizes.csv").stat().st_ino
    assert (after / "vm_sizes.csv").read_text() == "size\nStandard_ND40rs_v2\nStandard_NC6\n"
    assert previous.hashes == {
        "vm_sizes.parquet": write.file_sha256(before / "vm_sizes.parquet"),
        "vm_sizes.csv": write.file_sha256(before / "vm_sizes.csv"),
    }


def test_a_changed_table_or_an_edited_csv_is_written_afresh(tmp_path: Path) -> None:
    before = _written(tmp_path / "before", ["Standard_ND40rs_v2"])
    changed = _written(tmp_path / "changed", ["Standard_ND96asr_v4"], write.Previous.of(before, "code A"))
    assert (changed / "vm_sizes.csv").read_text() == "size\nStandard_ND96asr_v4\n"
    (before / "vm_sizes.csv").write_text("size\nStandard_ND41rs_v2\n")  # by hand, after the manifest
    edited = _written(tmp_path / "edited", ["Standard_ND40rs_v2"], write.Previous.of(before, "code A"))
    assert (edited / "vm_sizes.csv").read_text() == "size\nStandard_ND40rs_v2\n"
    assert (before / "vm_sizes.csv").read_text() == "size\nStandard_ND41rs_v2\n"  # left as it was


@pytest.mark.parametrize(
    "manifest",
    ['{"code_sha256": "code B", "outputs": {}}', '{"outputs": {}}', "not json", '{"code_sha256": "code A"}', "[]"],
    ids=["other code", "no code", "unreadable", "no outputs", "not an object"],
)
def test_an_output_written_by_other_code_lends_nothing(manifest: str, tmp_path: Path) -> None:
    """The CSV is made from the table by the code: other code (or pyarrow) may make other text."""
    (tmp_path / "manifest.json").write_text(manifest)
    assert write.Previous.of(tmp_path, "code A") is None
    assert write.Previous.of(tmp_path / "missing", "code A") is None


# --------------------------------------------------------------------------- stamps vouching for digests


@pytest.mark.parametrize(
    ("mtime_ns", "ctime_ns", "age_ns", "expected"),
    [
        pytest.param(1_795_772_367_592_171_188, 1_795_772_367_592_171_188, 100_000_000, True, id="a tenth of a second"),
        pytest.param(1_795_772_367_592_171_188, 1_795_772_367_592_171_188, 99_999_999, False, id="just under"),
        pytest.param(1_795_772_367_592_171_188, 1_795_772_367_592_171_188, 0, False, id="as it is read"),
        pytest.param(1_795_772_360_000_000_001, 1_795_772_367_592_171_188, 100_000_000, True, id="times set back"),
        pytest.param(1_795_772_360_000_000_001, 1_795_772_367_592_171_188, 99_999_999, False, id="times just set back"),
        pytest.param(1_795_772_367 * SECOND, 1_795_772_367 * SECOND, SECOND, False, id="whole seconds, one"),
        pytest.param(1_795_772_367 * SECOND, 1_795_772_367 * SECOND, 2 * SECOND, True, id="whole seconds, two"),
    ],
)
def test_a_stamp_vouches_for_a_file_that_last_changed_a_tick_of_the_clock_before(
    mtime_ns: int, ctime_ns: int, age_ns: int, expected: bool
) -> None:
    """A change within the same tick as the last one leaves the times as they were: only a file
    that last changed (its bytes, or its times set back, which moves the change time) a tick
    before it is read can be vouched for by its stamp. `age_ns` is counted from the later of
    the two times. A file system that keeps whole seconds ticks every second or two (FAT)."""
    stamp = write.Stamp(1, 2, 3, mtime_ns, ctime_ns)
    assert stamp.settled(max(mtime_ns, ctime_ns) + age_ns) is expected


def test_a_file_whose_stamp_is_as_recorded_is_not_read(tmp_path: Path, reads: list[Path]) -> None:
    path = tmp_path / "facts.csv"
    path.write_bytes(b"entity,attribute\nStandard_ND40rs_v2,vcpus\n")
    settle(path)
    stamp, sha = write.Stamp.of(path), hashlib.sha256(path.read_bytes()).hexdigest()
    assert stamp is not None
    digests = write.Digests()
    assert digests.sha256(path) == sha
    assert digests.vouched == {"facts.csv": (stamp, sha)}
    assert reads == [path]
    # A record that says another digest is believed: the file is not read to check it.
    recorded = write.Digests(known={"facts.csv": (stamp, "the digest recorded")})
    assert recorded.sha256(path) == "the digest recorded"
    assert recorded.vouched == {"facts.csv": (stamp, "the digest recorded")}
    assert reads == [path]


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(lambda p: p.write_bytes(b"entity\nStandard_ND40rs_v2\n"), id="written a moment ago"),
        pytest.param(lambda p: os.utime(p, ns=(10**18, 10**18)), id="its times set a moment ago"),
    ],
)
def test_a_file_changed_a_moment_ago_is_read_but_not_vouched_for(
    change: Callable[[Path], object], tmp_path: Path
) -> None:
    path = tmp_path / "facts.csv"
    path.write_bytes(b"entity\nStandard_ND40rs_v2\n")
    settle(path)
    change(path)
    digests = write.Digests()
    assert digests.sha256(path) == hashlib.sha256(b"entity\nStandard_ND40rs_v2\n").hexdigest()
    assert digests.vouched == {}


def test_a_file_changed_while_it_is_read_is_not_vouched_for(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "facts.csv"
    path.write_bytes(b"entity\nStandard_ND40rs_v2\n")
    settle(path)
    hash_file = write.file_sha256

    def edited_as_it_is_read(read: Path) -> str:
        sha = hash_file(read)
        forged(read, b"entity\nStandard_ND41rs_v2\n")
        return sha

    monkeypatch.setattr(write, "file_sha256", edited_as_it_is_read)
    digests = write.Digests()
    digests.sha256(path)
    assert digests.vouched == {}


@pytest.mark.parametrize(
    "edit",
    [
        pytest.param(lambda p: forged(p, p.read_bytes().replace(b"40", b"41")), id="same size and times"),
        pytest.param(lambda p: p.write_bytes(p.read_bytes() + b"Standard_NC6\n"), id="a row added"),
        pytest.param(lambda p: (p.unlink(), p.write_bytes(b"entity\nStandard_ND41rs_v2\n")), id="another file"),
    ],
)
def test_a_file_changed_since_it_was_recorded_is_read_again(edit: Callable[[Path], object], tmp_path: Path) -> None:
    """The change time moves with every write and every setting of the times: an edit that keeps
    the size and sets the modification time back (a copy that keeps times) still shows."""
    path = tmp_path / "facts.csv"
    path.write_bytes(b"entity\nStandard_ND40rs_v2\n")
    settle(path)
    stamp = write.Stamp.of(path)
    assert stamp is not None
    edit(path)
    assert write.Digests(known={"facts.csv": (stamp, "the digest recorded")}).sha256(path) == (
        hashlib.sha256(path.read_bytes()).hexdigest()
    )


def _recorded_output(folder: Path, reads: list[Path]) -> write.Previous:
    """The output in `folder`, its files settled and recorded, as the next build's `Previous`
    finds it; `reads` emptied of the reading that recorded them."""
    paths = sorted(folder.iterdir())
    settle(*paths)
    recorded = write.Digests()
    for path in paths:
        recorded.sha256(path)
    assert set(recorded.vouched) == {path.name for path in paths}
    previous = write.Previous.of(folder, "code A", write.Digests(known=recorded.vouched))
    assert previous is not None
    reads.clear()
    return previous


def _listed(folder: Path) -> str:
    """The digest the manifest in `folder` lists for vm_sizes.csv."""
    return str(json.loads((folder / "manifest.json").read_text())["outputs"]["vm_sizes"]["sha256"])


def test_a_file_taken_whose_stamp_is_as_recorded_is_linked_without_reading_it(
    tmp_path: Path, reads: list[Path]
) -> None:
    before = _written(tmp_path / "before", ["Standard_ND40rs_v2"])
    previous = _recorded_output(before, reads)
    (tmp_path / "stage").mkdir()
    assert previous.take("vm_sizes.csv", _listed(before), tmp_path / "stage")
    assert reads == []
    assert (tmp_path / "stage" / "vm_sizes.csv").stat().st_ino == (before / "vm_sizes.csv").stat().st_ino
    assert previous.hashes == {"vm_sizes.csv": _listed(before)}
    # Linking moved its change time: this build does not vouch for it, the next reads it again.
    assert previous.digests.vouched == {}


def test_a_record_of_other_bytes_than_the_manifest_lists_vouches_for_nothing(tmp_path: Path, reads: list[Path]) -> None:
    """A file is taken by its stamp only when the digest recorded with it is the one the manifest
    lists: otherwise it is read, and taken if its bytes are those listed."""
    before = _written(tmp_path / "before", ["Standard_ND40rs_v2"])
    previous = _recorded_output(before, reads)
    stamp, _ = previous.digests.known["vm_sizes.csv"]
    previous.digests = write.Digests(known={**previous.digests.known, "vm_sizes.csv": (stamp, "another digest")})
    (tmp_path / "stage").mkdir()
    assert previous.take("vm_sizes.csv", _listed(before), tmp_path / "stage")
    assert reads == [tmp_path / "stage" / "vm_sizes.csv"]


def test_a_file_changed_since_it_was_recorded_is_not_taken(tmp_path: Path, reads: list[Path]) -> None:
    before = _written(tmp_path / "before", ["Standard_ND40rs_v2"])
    previous = _recorded_output(before, reads)
    forged(before / "vm_sizes.csv", b"size\nStandard_ND41rs_v2\n")
    (tmp_path / "stage").mkdir()
    assert not previous.take("vm_sizes.csv", _listed(before), tmp_path / "stage")
    assert reads == [tmp_path / "stage" / "vm_sizes.csv"]
    assert not (tmp_path / "stage" / "vm_sizes.csv").exists()
    assert previous.hashes == {} and previous.digests.vouched == {}
