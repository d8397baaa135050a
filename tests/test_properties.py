"""Properties that hold for every input, checked on inputs hypothesis makes up.

Three kinds: the readers never raise on any text or bytes; what is written can be read back
(`format_number`, canonical size names); and a size table generated with random spacing
and escaping is read cell by cell onto the right file line. The suite profile in
conftest.py derandomizes, so every machine runs the same examples.
"""

from __future__ import annotations

import string
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pipeline import knowledge
from pipeline.knowledge.labels import normalize_label
from pipeline.knowledge.names import clean_name, parse_series, parse_size
from pipeline.knowledge.values import format_number, parse_flag, parse_generations, parse_number, parse_quantity
from pipeline.stages.extract import extract
from pipeline.stages.read import parse_bytes

KNOW = knowledge.load()

DOCUMENTISH = st.text(
    alphabet="0123456789 ,.-/–~≈xX×_\\*`<>|()[]:#!&;aABcdDeGgiIKMNnprSsTtuUvV\u00a0\u202f\t\n",
    max_size=40,
)
"""Text made of what size tables are made of, so that the readers' regexes get exercised."""
ANY_TEXT = st.one_of(st.text(), DOCUMENTISH)


# ------------------------------------------------------------------------ never raises


@pytest.mark.parametrize(
    "reader",
    [
        pytest.param(parse_number, id="parse_number"),
        pytest.param(lambda t: parse_quantity(t, KNOW), id="parse_quantity"),
        pytest.param(parse_flag, id="parse_flag"),
        pytest.param(parse_generations, id="parse_generations"),
        pytest.param(parse_size, id="parse_size"),
        pytest.param(parse_series, id="parse_series"),
        pytest.param(clean_name, id="clean_name"),
        pytest.param(normalize_label, id="normalize_label"),
    ],
)
def test_a_reader_never_raises_on_any_text(reader: Callable[[str], object]) -> None:
    @given(ANY_TEXT)
    def check(text: str) -> None:
        reader(text)

    check()


MARKDOWNISH = st.lists(
    st.sampled_from(
        [
            b"---\n",
            b"title: ND-series\n",
            b"a: &a [1, *a]\n",
            b"# ND-series\n",
            b"| Size | vCPU | Memory: GiB |\n",
            b"|---|---|---|\n",
            b"| Standard_ND6s | 6 | 112 |\n",
            b"| x |\n",
            b"> [!NOTE]\n",
            b"> ",
            b"- ",
            b"[!INCLUDE [x](../x.md)]\n",
            b"<br>",
            b"<sup>1</sup>",
            b"\\|",
            b"`",
            b"\r\n",
            b"\xef\xbb\xbf",
            b"\xff\xfe",
            b"\xe9",
            b"\x00",
        ]
    ),
    max_size=30,
).map(b"".join)


@given(st.one_of(st.binary(max_size=400), MARKDOWNISH), st.sampled_from(["doc.md", "a/b/page.txt", "../x.md"]))
def test_any_bytes_read_and_extract_without_raising(data: bytes, rel: str) -> None:
    doc, diags = parse_bytes(rel, data)
    assert all(d.document == rel for d in diags)
    if doc is not None:
        ex = extract(doc, KNOW)
        lines = doc.text.count("\n") + 1
        assert all(1 <= s.line <= lines for s in ex.statements)


# ------------------------------------------------------------------------ round trips


@given(st.integers(min_value=0, max_value=10**15 - 1))
def test_an_integer_reads_back_from_how_it_is_written(n: int) -> None:
    assert parse_number(format_number(n)) == n


@given(st.integers(min_value=0, max_value=999_999), st.integers(min_value=0, max_value=3))
def test_a_simple_decimal_reads_back_from_how_it_is_written(digits: int, places: int) -> None:
    # 6 significant digits at most, as a table prints them: 0.25, 1.8, 1234.56
    x = digits / 10**places
    assert parse_number(format_number(x)) == x


SIZE_LIKE = st.from_regex(
    r"(?i)\A(standard_|basic_)?[a-z]{1,3}\d{1,4}(-\d{1,3})?"  # tier, family, vCPUs, constrained vCPUs
    r"[a-z]{0,4}([a-z]\d{1,3})?[a-z]{0,2}"  # features, with perhaps a letter and digits among them
    r"(_[a-z]{1,4}\d{0,4}){0,2}(_v\d{1,2})?\Z"  # accelerators, version
)
"""Strings shaped like size names in any casing, most of them parseable."""


@given(st.one_of(SIZE_LIKE, SIZE_LIKE.map(lambda s: s.replace("_", "\\_") + "*"), ANY_TEXT))
def test_a_canonical_size_name_is_its_own_canonical_name(text: str) -> None:
    size = parse_size(text)
    if size is not None:
        again = parse_size(size.canonical)
        assert again is not None
        assert again.canonical == size.canonical
        assert (again.family, again.vcpus, again.features, again.version) == (
            size.family,
            size.vcpus,
            size.features,
            size.version,
        )


@dataclass(frozen=True)
class Written:
    """A size name as generated, with the parts it was made of."""

    text: str
    family: str
    vcpus: int
    features: str
    accelerator: str | None
    version: str


@st.composite
def size_names(draw: st.DrawFn) -> Written:
    family = draw(st.text(alphabet=string.ascii_uppercase, min_size=1, max_size=3))
    vcpus = draw(st.integers(min_value=1, max_value=9999))
    features = "".join(draw(st.lists(st.sampled_from("adimrs"), unique=True, max_size=4)))
    accelerator = draw(st.sampled_from([None, "A100", "V620"]))
    version = f"v{draw(st.integers(min_value=1, max_value=6))}"
    prefix = draw(st.sampled_from(["Standard_", ""]))
    text = f"{prefix}{family}{vcpus}{features}{'_' + accelerator if accelerator else ''}_{version}"
    return Written(text, family, vcpus, features, accelerator, version)


@given(size_names())
def test_a_well_formed_size_name_is_read_part_by_part(name: Written) -> None:
    size = parse_size(name.text)
    assert size is not None, name.text
    assert (size.family, size.vcpus, size.features, size.accelerator, size.version) == (
        name.family,
        name.vcpus,
        name.features,
        name.accelerator,
        name.version,
    )
    assert size.canonical == (name.text if name.text.startswith("Standard_") else f"Standard_{name.text}")


# ------------------------------------------------------------------------ generated tables

HEADER = ("Size", "vCPU", "Memory: GiB")
SPACE = st.sampled_from(["", " ", "  ", "\t", " \t "])


@dataclass(frozen=True)
class Table:
    """A generated markdown page and the table statements it must give."""

    markdown: str
    expected: frozenset[tuple[int, str, str, str]]
    """(line, subject, column, cell text) of each non-empty value cell."""


@st.composite
def size_tables(draw: st.DrawFn) -> Table:
    lines: list[str] = []
    if draw(st.booleans()):
        lines += ["---", "title: Generated sizes", "ms.date: 01/15/2024", "---"]
    lines += [""] * draw(st.integers(min_value=0, max_value=2))
    lines += ["# Generated-series", ""]

    def row(cells: list[str]) -> str:
        indent = " " * draw(st.integers(min_value=0, max_value=3))
        return indent + "|" + "|".join(draw(SPACE) + c + draw(SPACE) for c in cells) + "|"

    lines.append(row(list(HEADER)))
    lines.append(row(["---", ":--", "--:"]))
    expected: set[tuple[int, str, str, str]] = set()
    for _ in range(draw(st.integers(min_value=1, max_value=12))):
        name = draw(size_names()).text
        written = name.replace("_", "\\_") if draw(st.booleans()) else name
        values = [draw(st.one_of(st.none(), st.integers(min_value=0, max_value=10**7))) for _ in HEADER[1:]]
        cells = [written] + ["" if v is None else str(v) for v in values]
        lines.append(row(cells))
        for column, v in zip(HEADER[1:], values, strict=True):
            if v is not None:
                expected.add((len(lines), name, column, str(v)))
    if draw(st.booleans()):
        lines.append("")
    return Table("\n".join(lines), frozenset(expected))


@given(size_tables())
def test_a_generated_size_table_gives_one_statement_per_cell_on_its_row_line(table: Table) -> None:
    doc, _ = parse_bytes("generated.md", table.markdown.encode("utf-8"))
    assert doc is not None
    ex = extract(doc, KNOW)
    got = [(s.line, s.subject, s.key, s.raw_text) for s in ex.statements if s.method == "table"]
    assert sorted(got) == sorted(table.expected)
