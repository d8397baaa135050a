"""Stage 1, reading: bytes on disk become a `Document` plus diagnostics, and nothing raises.

Each case shows the bytes or text a file holds beside what reading makes of it.
"""

from __future__ import annotations

import codecs
import datetime as dt
import hashlib
import os
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.records import Diagnostic, Document
from pipeline.stages.read import Limits, discover, listing, load_bytes, parse_bytes, parse_date, read_document

FIXTURES = Path(__file__).parent / "fixtures" / "read"


DEFAULT_LIMITS = Limits()


def read_text(text: str, limits: Limits = DEFAULT_LIMITS) -> tuple[Document, list[Diagnostic]]:
    """Parse UTF-8 text that is expected to yield a document."""
    doc, diags = parse_bytes("doc.md", text.encode("utf-8"), limits)
    assert doc is not None
    return doc, diags


def summary(diags: list[Diagnostic]) -> list[tuple[str, str, int | None]]:
    """(severity, code, line) of each diagnostic: what the tests compare."""
    return [(d.severity, d.code, d.line) for d in diags]


# ------------------------------------------------------------------------ mojibake repair


@pytest.mark.parametrize(
    ("written", "repaired"),
    [
        pytest.param("AMD Epycâ„¢ 7V12", "AMD Epyc™ 7V12", id="trademark-ftfy-leaves-alone"),
        pytest.param("NVIDIAâ€™s GPUs", "NVIDIA’s GPUs", id="curly-apostrophe-kept-curly"),
        pytest.param("16â€“40 GB", "16–40 GB", id="en-dash"),
        pytest.param("InfiniBand â€” 200 Gb/s", "InfiniBand — 200 Gb/s", id="em-dash"),
        pytest.param("Ã©tÃ© 2024", "été 2024", id="two-byte-accents"),
        pytest.param("max 35 Â°C", "max 35 °C", id="degree-sign"),
    ],
)
def test_mojibake_is_repaired_with_one_info_diagnostic_on_its_line(written: str, repaired: str) -> None:
    doc, diags = read_text(f"# Sizes\n\n{written}\n")
    assert doc.text == f"# Sizes\n\n{repaired}\n"
    assert summary(diags) == [("info", "mojibake-repaired", 3)]


def test_each_repaired_line_gets_its_own_diagnostic() -> None:
    doc, diags = read_text("AMD Epycâ„¢ and NVIDIAâ€™s\nclean line\n16â€“40\n")
    assert doc.text == "AMD Epyc™ and NVIDIA’s\nclean line\n16–40\n"
    assert summary(diags) == [("info", "mojibake-repaired", 1), ("info", "mojibake-repaired", 3)]


def test_mojibake_in_front_matter_is_repaired_before_the_yaml_is_read() -> None:
    doc, diags = read_text("---\ntitle: AMD Epycâ„¢ sizes\n---\nbody\n")
    assert doc.metadata.title == "AMD Epyc™ sizes"
    assert summary(diags) == [("info", "mojibake-repaired", 2)]


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("naïve café", id="french-accents"),
        pytest.param("Größe ±5 °C × 2", id="german-and-symbols"),
        pytest.param("¿Qué? Ça, à la carte, niño", id="spanish-french"),
        pytest.param("NVIDIA’s 16–40 GB — Epyc™", id="already-correct-punctuation"),
        pytest.param("plain ASCII with 'straight' quotes", id="ascii"),
        pytest.param(
            "She said “café…”",
            id="accent-then-two-punctuation-marks",
        ),
        pytest.param(
            "„Fuß“",
            id="german-quote-after-eszett",
        ),
        pytest.param(
            "8×–16× faster",
            id="times-sign-then-en-dash",
        ),
    ],
)
def test_legitimate_text_is_left_alone(text: str) -> None:
    doc, diags = read_text(text + "\n")
    assert doc.text == text + "\n"
    assert diags == []


# ------------------------------------------------------------------------ decoding


@pytest.mark.parametrize(
    ("data", "encoding", "text"),
    [
        pytest.param(b"# ND\xe2\x84\xa2\n", "utf-8", "# ND™\n", id="utf-8"),
        pytest.param(codecs.BOM_UTF8 + b"# ND\xe2\x84\xa2\n", "utf-8-sig", "# ND™\n", id="utf-8-bom-dropped"),
    ],
)
def test_utf8_decodes_silently(data: bytes, encoding: str, text: str) -> None:
    doc, diags = parse_bytes("doc.md", data)
    assert doc is not None
    assert (doc.encoding, doc.text) == (encoding, text)
    assert diags == []


def test_front_matter_is_found_after_a_utf8_bom() -> None:
    doc, diags = parse_bytes("doc.md", codecs.BOM_UTF8 + b"---\ntitle: T\n---\nbody\n")
    assert doc is not None
    assert (doc.has_front_matter, doc.front_matter_lines, doc.metadata.title) == (True, 3, "T")
    assert diags == []


def test_bad_bytes_after_a_utf8_bom_are_reported() -> None:
    doc, diags = parse_bytes("doc.md", codecs.BOM_UTF8 + b"line one\nbad \xff byte\n")
    assert doc is not None
    assert [(d.severity, d.line) for d in diags] == [("warning", 2)]


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_utf16_is_decoded_by_its_bom_and_reported(codec: str) -> None:
    bom = codecs.BOM_UTF16_LE if codec.endswith("le") else codecs.BOM_UTF16_BE
    doc, diags = parse_bytes("doc.md", bom + "# ND A100 v4\r\nGPU: 8×A100\r\n".encode(codec))
    assert doc is not None
    assert (doc.encoding, doc.text) == ("utf-16", "# ND A100 v4\nGPU: 8×A100\n")
    assert summary(diags) == [("info", "encoding-utf16", 1)]


@pytest.mark.parametrize(
    ("data", "text", "line"),
    [
        pytest.param(b"na\xefve caf\xe9\n", "naïve café\n", 1, id="latin-1-on-line-1"),
        pytest.param(b"# Sizes\n\n16\x9640 GB \x93q\x94\n", "# Sizes\n\n16–40 GB “q”\n", 3, id="cp1252-on-line-3"),
    ],
)
def test_bytes_that_are_not_utf8_are_read_as_cp1252_and_reported(data: bytes, text: str, line: int) -> None:
    doc, diags = parse_bytes("doc.md", data)
    assert doc is not None
    assert (doc.encoding, doc.text) == ("cp1252", text)
    assert summary(diags) == [("warning", "encoding-not-utf8", line)]


def test_utf8_lines_in_a_cp1252_file_are_repaired_as_mojibake() -> None:
    doc, diags = parse_bytes("doc.md", b"ok\nUTF-8 \xe2\x84\xa2\nEpyc\x99\n")
    assert doc is not None
    assert (doc.encoding, doc.text) == ("cp1252", "ok\nUTF-8 ™\nEpyc™\n")
    assert summary(diags) == [("warning", "encoding-not-utf8", 3), ("info", "mojibake-repaired", 2)]


@pytest.mark.parametrize(
    ("data", "line"),
    [
        pytest.param(b"\x00\x01\x02PNG", 1, id="nul-first"),
        pytest.param(b"line one\nline two\nthree\x00", 3, id="nul-on-line-3"),
    ],
)
def test_nul_bytes_mean_binary_and_no_document(data: bytes, line: int) -> None:
    doc, diags = parse_bytes("doc.md", data)
    assert doc is None
    assert summary(diags) == [("error", "binary-file", line)]


@pytest.mark.parametrize(
    ("data", "text"),
    [
        pytest.param(b"one\r\ntwo\r\n", "one\ntwo\n", id="crlf"),
        pytest.param(b"one\rtwo\r", "one\ntwo\n", id="old-mac-cr"),
        pytest.param(b"one\r\ntwo\nthree\rfour", "one\ntwo\nthree\nfour", id="mixed"),
    ],
)
def test_line_endings_become_newlines(data: bytes, text: str) -> None:
    doc, diags = parse_bytes("doc.md", data)
    assert doc is not None
    assert doc.text == text
    assert diags == []


def test_crlf_front_matter_is_read_without_carriage_returns() -> None:
    doc, _ = parse_bytes("doc.md", b"---\r\ntitle: NDv2-series\r\nauthor: jushiman\r\n---\r\nbody\r\n")
    assert doc is not None
    assert (doc.front_matter_lines, doc.metadata.title, doc.metadata.author) == (4, "NDv2-series", "jushiman")


@pytest.mark.parametrize(
    ("data", "diagnostic"),
    [
        pytest.param(b"", ("warning", "empty-document", None), id="zero-bytes"),
        pytest.param(b"  \n\n\t\n", ("warning", "empty-document", None), id="whitespace"),
        pytest.param(b"---\ntitle: T\n---\n\n", ("info", "front-matter-only", None), id="front-matter-only"),
    ],
)
def test_documents_with_nothing_to_read_are_kept_and_reported(
    data: bytes, diagnostic: tuple[str, str, int | None]
) -> None:
    doc, diags = parse_bytes("doc.md", data)
    assert doc is not None
    assert summary(diags) == [diagnostic]


def test_document_keeps_its_path_and_the_hash_of_its_raw_bytes() -> None:
    data = codecs.BOM_UTF8 + b"one\r\n"
    doc, _ = parse_bytes("articles/nd-series.md", data)
    assert doc is not None
    assert doc.path == "articles/nd-series.md"
    assert doc.sha256 == hashlib.sha256(data).hexdigest()
    assert doc.sha256 != hashlib.sha256(doc.text.encode()).hexdigest()


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300))
def test_any_bytes_give_a_document_or_a_binary_file_error(data: bytes) -> None:
    doc, diags = parse_bytes("doc.md", data)
    if doc is None:
        assert [d.code for d in diags] == ["binary-file"]
    else:
        assert "\r" not in doc.text


# ------------------------------------------------------------------------ front-matter


@pytest.mark.parametrize(
    ("text", "lines", "has_front_matter"),
    [
        pytest.param("---\ntitle: T\n---\nbody\n", 3, True, id="one-key"),
        pytest.param("---\ntitle: T\nms.date: 05/26/2021\nms.author: a\n---\n\n# H\n", 5, True, id="three-keys"),
        pytest.param("---\n---\nbody\n", 2, True, id="empty-block"),
        pytest.param("---\ntitle: T\n...\nbody\n", 3, True, id="closed-with-dots"),
        pytest.param("# Title\n---\ntitle: T\n---\n", 0, False, id="not-on-first-line"),
        pytest.param("no front-matter\n", 0, False, id="none"),
    ],
)
def test_front_matter_lines_count_up_to_and_including_the_closing_line(
    text: str, lines: int, has_front_matter: bool
) -> None:
    doc, _ = read_text(text)
    assert (doc.front_matter_lines, doc.has_front_matter) == (lines, has_front_matter)


def test_microsoft_learn_front_matter() -> None:
    doc, diags = read_document(FIXTURES / "learn-page.md", FIXTURES)
    assert doc is not None
    assert diags == []
    assert doc.path == "learn-page.md"
    assert doc.front_matter_lines == 7
    assert doc.metadata.title == "ND A100 v4-series"
    assert doc.metadata.author == "jushiman"
    assert doc.metadata.date == dt.date(2021, 5, 26)
    assert doc.metadata.date_field == "ms.date"
    assert doc.metadata.service == "virtual-machines"
    assert doc.metadata.keys == ("description", "ms.author", "ms.date", "ms.service", "title")


def test_blog_front_matter() -> None:
    doc, diags = read_document(FIXTURES / "blog-post.txt", FIXTURES)
    assert doc is not None
    assert diags == []
    assert doc.front_matter_lines == 9
    assert doc.metadata.title == "Azure ND GB300 v6 Virtual Machines: General Availability"
    assert doc.metadata.author == "Nitin_Nagarkatte"
    assert doc.metadata.date == dt.date(2025, 11, 19)
    assert doc.metadata.date_field == "date"
    assert doc.metadata.tags == ("AI Infrastructure", "Azure ND GB300 V6", "InfiniBand")
    assert doc.metadata.canonical_url == (
        "https://techcommunity.microsoft.com/t5/azure-high-performance-computing/ba-p/4469475"
    )
    assert doc.metadata.service == "Microsoft Tech Community"


@pytest.mark.parametrize(
    ("front_matter", "author"),
    [
        pytest.param("author: vikancha-MSFT", "vikancha-MSFT", id="author"),
        pytest.param("ms.author: jushiman", "jushiman", id="ms-author"),
        pytest.param("author: vikancha-MSFT\nms.author: jushiman", "vikancha-MSFT", id="author-wins"),
        pytest.param("author: ''\nms.author: jushiman", "jushiman", id="empty-author-falls-back"),
        pytest.param("title: T", None, id="no-author"),
    ],
)
def test_author_comes_from_author_or_ms_author(front_matter: str, author: str | None) -> None:
    doc, _ = read_text(f"---\n{front_matter}\n---\nbody\n")
    assert doc.metadata.author == author


@pytest.mark.parametrize(
    ("front_matter", "date", "field"),
    [
        pytest.param("ms.date: 05/26/2021", dt.date(2021, 5, 26), "ms.date", id="learn-us-date"),
        pytest.param("date: 2025-11-19 01:13:53 +00:00", dt.date(2025, 11, 19), "date", id="yaml-timestamp"),
        pytest.param("date: '2025-11-19T01:13:53Z'", dt.date(2025, 11, 19), "date", id="quoted-iso-timestamp"),
        pytest.param("date: 2021-05-26", dt.date(2021, 5, 26), "date", id="iso-date"),
        pytest.param("ms.date: 2021/05/26", dt.date(2021, 5, 26), "ms.date", id="slashes-year-first"),
        pytest.param("published: 26 May 2021", dt.date(2021, 5, 26), "published", id="day-month-name"),
        pytest.param("updated: May 26, 2021", dt.date(2021, 5, 26), "updated", id="month-name-day"),
        pytest.param("ms.date: 05/26/2021\ndate: 2020-01-01", dt.date(2021, 5, 26), "ms.date", id="ms-date-wins"),
    ],
)
def test_front_matter_dates(front_matter: str, date: dt.date, field: str) -> None:
    doc, diags = read_text(f"---\n{front_matter}\n---\nbody\n")
    assert (doc.metadata.date, doc.metadata.date_field) == (date, field)
    assert diags == []


def test_a_date_that_is_not_a_date_is_reported() -> None:
    doc, diags = read_text("---\ndate: soon\n---\nbody\n")
    assert (doc.metadata.date, doc.metadata.date_field) == (None, "date")
    assert summary(diags) == [("warning", "bad-date", None)]


@pytest.mark.parametrize(
    ("value", "date"),
    [
        pytest.param(dt.datetime(2025, 11, 19, 1, 13, 53), dt.date(2025, 11, 19), id="datetime"),
        pytest.param(dt.date(2021, 5, 26), dt.date(2021, 5, 26), id="date"),
        pytest.param(" 05/26/2021 ", dt.date(2021, 5, 26), id="padded-string"),
        pytest.param("26/05/2021", None, id="day-first-is-not-a-us-date"),
        pytest.param(20210526, None, id="integer"),
        pytest.param(None, None, id="none"),
    ],
)
def test_parse_date(value: object, date: dt.date | None) -> None:
    assert parse_date(value) == date


@pytest.mark.parametrize(
    ("front_matter", "tags"),
    [
        pytest.param('tags: ["AI", "Azure ND GB300 V6"]', ("AI", "Azure ND GB300 V6"), id="flow-list"),
        pytest.param("tags:\n  - gpu\n  - 3\n  - {a: b}", ("gpu", "3"), id="block-list-skips-mappings"),
        pytest.param("tags: gpu, azure , ", ("gpu", "azure"), id="comma-string"),
        pytest.param("tags: {a: b}", (), id="mapping"),
        pytest.param("title: T", (), id="absent"),
    ],
)
def test_tags(front_matter: str, tags: tuple[str, ...]) -> None:
    doc, _ = read_text(f"---\n{front_matter}\n---\nbody\n")
    assert doc.metadata.tags == tags


@pytest.mark.parametrize(
    ("front_matter", "url"),
    [
        pytest.param("canonical_url: https://a.example/x", "https://a.example/x", id="canonical_url"),
        pytest.param("canonical: https://b.example/y", "https://b.example/y", id="canonical"),
        pytest.param("url: https://c.example/z", "https://c.example/z", id="url"),
        pytest.param("title: T", None, id="absent"),
    ],
)
def test_canonical_url(front_matter: str, url: str | None) -> None:
    doc, _ = read_text(f"---\n{front_matter}\n---\nbody\n")
    assert doc.metadata.canonical_url == url


# ------------------------------------------------------------------------ broken front-matter


@pytest.mark.parametrize(
    ("text", "diagnostic", "lines"),
    [
        pytest.param(
            "---\ntitle: [unclosed\nauthor: x\n---\nbody\n",
            ("error", "front-matter-invalid", 3),
            4,
            id="unclosed-flow-list",
        ),
        pytest.param("---\ntitle: a: b\n---\nbody\n", ("error", "front-matter-invalid", 2), 3, id="colon-in-value"),
        pytest.param(
            "---\ntitle: ok\n\tbad: tab\n---\nbody\n",
            ("error", "front-matter-invalid", 3),
            4,
            id="tab-indent",
        ),
        pytest.param("---\n- a\n- b\n---\nbody\n", ("error", "front-matter-not-mapping", 2), 4, id="list-not-mapping"),
        pytest.param(
            "---\njust a sentence\n---\nbody\n",
            ("error", "front-matter-not-mapping", 2),
            3,
            id="scalar-not-mapping",
        ),
        pytest.param("---\ntitle: T\n\n# Heading\nbody\n", ("error", "front-matter-unclosed", 1), 0, id="never-closed"),
    ],
)
def test_broken_front_matter_is_reported_and_ignored(text: str, diagnostic: tuple[str, str, int], lines: int) -> None:
    doc, diags = read_text(text)
    assert summary(diags) == [diagnostic]
    assert doc.metadata.keys == ()
    assert doc.metadata.title is None
    assert doc.front_matter_lines == lines
    assert doc.text == text


def test_unclosed_front_matter_is_read_as_markdown() -> None:
    doc, _ = read_text("---\ntitle: T\n\n# Heading\n")
    assert (doc.has_front_matter, doc.front_matter_lines) == (False, 0)


def test_python_tags_are_refused_and_never_executed(tmp_path: Path) -> None:
    marker = tmp_path / "executed"
    text = f"---\ntitle: ok\nbad: !!python/object/apply:os.system ['touch {marker}']\n---\nbody\n"
    doc, diags = read_text(text)
    assert not marker.exists()
    assert summary(diags) == [("error", "front-matter-invalid", 3)]
    assert "tag not allowed" in diags[0].message
    assert (doc.metadata.keys, doc.front_matter_lines) == ((), 4)


def test_duplicate_keys_are_reported_at_the_repeat_and_the_last_value_wins() -> None:
    doc, diags = read_text("---\ntitle: first\nauthor: x\ntitle: second\n---\nbody\n")
    assert summary(diags) == [("warning", "front-matter-duplicate-key", 4)]
    assert "'title'" in diags[0].message
    assert doc.metadata.title == "second"
    assert doc.metadata.keys == ("author", "title")


def _alias_bomb(levels: int) -> str:
    lines = ['l0: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for i in range(1, levels):
        lines.append(f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 9) + "]")
    return "---\n" + "\n".join(lines) + "\n---\nbody\n"


def test_alias_bomb_is_refused_quickly() -> None:
    text = _alias_bomb(9)  # 9 ** 9 strings if expanded
    start = time.perf_counter()
    doc, diags = read_text(text)
    assert time.perf_counter() - start < 2.0
    assert summary(diags) == [("error", "front-matter-too-large", 1)]
    assert doc.metadata.keys == ()
    assert doc.front_matter_lines == 11


@pytest.mark.parametrize(
    ("budget", "codes"),
    [
        pytest.param(7, [], id="mapping-of-three-is-7-nodes"),
        pytest.param(6, ["front-matter-too-large"], id="one-over"),
    ],
)
def test_front_matter_node_limit_is_configurable(budget: int, codes: list[str]) -> None:
    _, diags = read_text("---\na: 1\nb: 2\nc: 3\n---\nbody\n", Limits(max_front_matter_nodes=budget))
    assert [d.code for d in diags] == codes


# ------------------------------------------------------------------------ files on disk


def test_a_file_over_the_size_limit_is_not_read() -> None:
    doc, diags = read_document(FIXTURES / "learn-page.md", FIXTURES, Limits(max_file_bytes=100))
    assert doc is None
    assert summary(diags) == [("error", "file-too-large", None)]


def test_a_missing_file_is_reported_as_unreadable(tmp_path: Path) -> None:
    doc, diags = read_document(tmp_path / "gone.md", tmp_path)
    assert doc is None
    assert summary(diags) == [("error", "unreadable", None)]
    assert diags[0].document == "gone.md"


def _write(path: Path, text: str = "x\n") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_discover_finds_md_and_txt_sorted_by_relative_path(tmp_path: Path) -> None:
    root = tmp_path / "sources"
    # Written out of order, so that the order found cannot come from the order written.
    written = [
        "sub/c.md",
        "b.md",
        "a/z.md",
        "a.txt",
        "Upper.MD",
        "sub/image.png",
        "notes.rst",
        "md",
        "a/.md.bak",
    ]
    for rel in written:
        _write(root / rel)
    paths, diags = discover(root)
    assert [p.relative_to(root.resolve()).as_posix() for p in paths] == [
        "Upper.MD",
        "a.txt",
        "a/z.md",
        "b.md",
        "sub/c.md",
    ]
    assert diags == []


def test_discover_skips_links_that_leave_the_sources_folder(tmp_path: Path) -> None:
    root = tmp_path / "sources"
    outside = tmp_path / "elsewhere"
    _write(root / "inside.md")
    _write(outside / "secret.md")
    _write(outside / "folder" / "more.md")
    os.symlink(outside / "secret.md", root / "leak.md")
    os.symlink(outside / "folder", root / "leakdir", target_is_directory=True)
    os.symlink(root / "inside.md", root / "alias.md")

    paths, diags = discover(root)

    assert [p.relative_to(root.resolve()).as_posix() for p in paths] == ["alias.md", "inside.md"]
    assert sorted((d.severity, d.code, d.document, d.line) for d in diags) == [
        ("warning", "link-outside-sources", "leak.md", None),
        ("warning", "link-outside-sources", "leakdir", None),
    ]


def test_listing_gives_each_file_its_relative_path_and_load_bytes_reads_it_by_that_name(tmp_path: Path) -> None:
    root = tmp_path / "sources"
    _write(root / "official" / "nd-series.md")
    _write(root / "a.md")
    os.symlink(root / "gone.md", root / "broken.md")  # inside, but leads nowhere

    found, diags = listing(root)

    assert [rel for rel, _ in found] == ["a.md", "broken.md", "official/nd-series.md"]
    assert [path for _, path in found] == discover(root)[0]
    assert diags == []
    rel, data, problems = load_bytes(found[2][1], root, Limits(), found[2][0])
    assert (rel, problems) == ("official/nd-series.md", [])
    assert data == (root / "official" / "nd-series.md").read_bytes()
    rel, data, problems = load_bytes(found[1][1], root, Limits())  # its name made from the paths
    assert (rel, data, [(d.severity, d.code, d.document) for d in problems]) == (
        "broken.md",
        None,
        [("error", "unreadable", "broken.md")],
    )
    assert "cannot read file: No such file or directory" in problems[0].message
