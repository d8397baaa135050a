"""Hostile and broken documents: each becomes a diagnostic at the right place, never a crash.

Every case builds a small sources folder holding one hostile document (a fixture under
`tests/fixtures/hostile/`, or bytes made here when the hostility is in the bytes) beside a
good Microsoft Learn style page, and states two things: the exact diagnostic the hostile
document gets (severity, code, document, line), and that the good page's claims are still
produced. A diagnostic's line is a line of the file, front-matter included (1-based).

The last part checks guarantees of the build as a whole: a killed build leaves the previous
output intact, a second build is refused while one holds the output, and document text
never reaches the drift report as live HTML.
"""

from __future__ import annotations

import codecs
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest

from pipeline.differ import drift, render_markdown
from pipeline.outputs.write import output_lock
from pipeline.records import BuildResult
from pipeline.runner import Settings, build, compute
from pipeline.stages.read import Limits

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ROOT / "sources"
FIXTURES = Path(__file__).parent / "fixtures" / "hostile"

GOOD_DOC = "good/ncv3-series.md"
GOOD_CLAIM = (GOOD_DOC, 11, "Standard_NC6s_v3", "memory_gib", "112")
"""`| Standard_NC6s_v3 | 6 | 112 |` on line 11 of good.md: proof that the build went on."""

Diag = tuple[str, str, str, int | None]
"""(severity, code, document, line)."""


def fixture(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


def hostile_build(
    tmp_path: Path, files: dict[str, bytes], settings: Settings | None = None, good: bool = True
) -> BuildResult:
    """Write `files` (path relative to the sources folder -> bytes) beside the good page and
    compute the build; the good page's claim must be there whatever the hostile files hold."""
    sources = tmp_path / "sources"
    for rel, data in {**({GOOD_DOC: fixture("good.md")} if good else {}), **files}.items():
        path = sources / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    result, _ = compute(sources, settings or Settings())
    if good:
        assert GOOD_CLAIM in claims(result, GOOD_DOC), "the good document's claims were not produced"
    return result


def claims(result: BuildResult, document: str, method: str | None = None) -> set[tuple[object, ...]]:
    """(document, line, entity, attribute, value) of each claim of `document`."""
    return {
        (c.document, c.line, c.entity, c.attribute, c.value)
        for c in result.claims
        if c.document == document and (method is None or c.method == method)
    }


def table_claims(result: BuildResult, document: str) -> set[tuple[int, str, str, str]]:
    """(line, entity, attribute, value) of the claims read from table cells of `document` (not the
    series claim each row also gets from the heading above its table)."""
    return {
        (c.line, c.entity, c.attribute, c.value)
        for c in result.claims
        if c.document == document and c.method == "table" and c.attribute != "series"
    }


def alarms(result: BuildResult, document: str, infos: tuple[str, ...] = ()) -> list[Diag]:
    """The errors and warnings of `document`, and its infos whose code is in `infos`.

    Comparing this list with the expected one says "this diagnostic and no other alarm".
    """
    return [
        (d.severity, d.code, d.document, d.line)
        for d in result.diagnostics
        if d.document == document and (d.severity != "info" or d.code in infos)
    ]


def texts_of(result: BuildResult) -> str:
    """Everything the build read, as one string: to show that a text never got in."""
    parts = [d.text for d in result.documents]
    parts += [f"{c.entity} {c.raw_text} {c.value}" for c in result.claims]
    parts += [d.message for d in result.diagnostics]
    return "\n".join(parts)


# ------------------------------------------------------------------------ front-matter


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        # description: a: b                     (a second ': ' on line 3)
        pytest.param("fm-invalid-yaml.md", [("error", "front-matter-invalid", 3)], id="invalid-yaml"),
        # title: First title / ... / title: ND-series   (the repeat on line 4)
        pytest.param("fm-duplicate-key.md", [("warning", "front-matter-duplicate-key", 4)], id="duplicate-key"),
        # - title: ND-series                      (a YAML list, from line 2)
        pytest.param("fm-list.md", [("error", "front-matter-not-mapping", 2)], id="list"),
        # ND-series sizes                         (a YAML string, line 2)
        pytest.param("fm-scalar.md", [("error", "front-matter-not-mapping", 2)], id="scalar"),
        # --- on line 1 and never again
        pytest.param("fm-unclosed.md", [("error", "front-matter-unclosed", 1)], id="unclosed"),
        # a: &a [lol x 9], b: &b [*a x 9] ... i: &i [*h x 9]   (9 levels: 9^9 strings)
        pytest.param("fm-alias-bomb.md", [("error", "front-matter-too-large", 1)], id="alias-bomb"),
    ],
)
def test_broken_front_matter_is_one_diagnostic_and_the_body_is_still_read(
    tmp_path: Path, name: str, expected: list[tuple[str, str, int]]
) -> None:
    doc = f"articles/{name}"
    result = hostile_build(tmp_path, {doc: fixture(name)})
    assert alarms(result, doc) == [(sev, code, doc, line) for sev, code, line in expected]
    assert ("Standard_ND6s", "vcpus", "6") in {(c[2], c[3], c[4]) for c in claims(result, doc, "table")}


def test_a_duplicate_key_keeps_the_last_value(tmp_path: Path) -> None:
    doc = "articles/fm-duplicate-key.md"
    result = hostile_build(tmp_path, {doc: fixture("fm-duplicate-key.md")})
    assert {d.path: d.metadata.title for d in result.documents}[doc] == "ND-series"


def test_a_python_tag_in_front_matter_is_refused_and_never_executed(tmp_path: Path) -> None:
    # title: !!python/object/apply:os.system ["touch MARKER"]      (line 2)
    marker = tmp_path / "executed"
    data = fixture("fm-python-tag.md").replace(b"MARKER", str(marker).encode())
    doc = "articles/fm-python-tag.md"
    result = hostile_build(tmp_path, {doc: data})
    assert alarms(result, doc) == [("error", "front-matter-invalid", doc, 2)]
    assert not marker.exists(), "the YAML tag ran a shell command"


def test_an_alias_bomb_is_refused_fast(tmp_path: Path) -> None:
    from pipeline.stages.read import parse_bytes

    start = time.perf_counter()
    doc, diags = parse_bytes("bomb.md", fixture("fm-alias-bomb.md"))
    assert time.perf_counter() - start < 2.0
    assert doc is not None and doc.metadata.keys == ()
    assert [(d.severity, d.code, d.line) for d in diags] == [("error", "front-matter-too-large", 1)]


def test_a_utf8_bom_before_the_front_matter_is_read_normally(tmp_path: Path) -> None:
    doc = "articles/sizes.md"
    result = hostile_build(tmp_path, {doc: codecs.BOM_UTF8 + fixture("sizes.md")})
    assert alarms(result, doc) == []
    assert {d.path: d.metadata.title for d in result.documents}[doc] == "ND-series"


# ------------------------------------------------------------------------ encodings and bytes

SIZES_TEXT = fixture("sizes.md").decode("utf-8")
"""A page whose line 8 (`Disponibilité : générale`) is the first line that is not ASCII."""


@pytest.mark.parametrize(
    ("encode", "expected"),
    [
        pytest.param(lambda t: t.encode("utf-8"), [], id="utf-8"),
        pytest.param(lambda t: codecs.BOM_UTF8 + t.encode("utf-8"), [], id="utf-8-bom"),
        pytest.param(lambda t: t.encode("utf-16"), [("info", "encoding-utf16", 1)], id="utf-16-le-bom"),
        pytest.param(
            lambda t: codecs.BOM_UTF16_BE + t.encode("utf-16-be"), [("info", "encoding-utf16", 1)], id="utf-16-be-bom"
        ),
        pytest.param(lambda t: t.encode("latin-1"), [("warning", "encoding-not-utf8", 8)], id="latin-1"),
        pytest.param(lambda t: t.replace("\n", "\r\n").encode("utf-8"), [], id="crlf"),
        pytest.param(lambda t: t.rstrip("\n").encode("utf-8"), [], id="no-final-newline"),
    ],
)
def test_an_encoding_changes_no_claim_and_no_line(
    tmp_path: Path, encode: Callable[[str], bytes], expected: list[tuple[str, str, int]]
) -> None:
    doc = "articles/sizes.md"
    plain = hostile_build(tmp_path / "plain", {doc: SIZES_TEXT.encode("utf-8")}, good=False)
    result = hostile_build(tmp_path / "encoded", {doc: encode(SIZES_TEXT)})
    assert alarms(result, doc, infos=("encoding-utf16",)) == [(sev, code, doc, line) for sev, code, line in expected]
    assert claims(result, doc) == claims(plain, doc)
    assert (doc, 13, "Standard_ND12s", "memory_gib", "224") in claims(result, doc)
    assert "Disponibilité : générale" in {d.path: d.text for d in result.documents}[doc]


@pytest.mark.parametrize(
    ("data", "expected", "kept"),
    [
        # NUL bytes: not text at all; the line is the line of the first NUL
        pytest.param(b"# ND-series\n\nPK\x03\x04\x00\x00\x08\x00\n", ("error", "binary-file", 3), False, id="nul"),
        pytest.param(b"", ("warning", "empty-document", None), True, id="empty"),
        pytest.param(b"\n \n\t\n", ("warning", "empty-document", None), True, id="blank"),
        pytest.param(fixture("fm-only.md"), ("info", "front-matter-only", None), True, id="front-matter-only"),
    ],
)
def test_a_document_with_nothing_to_read_is_reported(
    tmp_path: Path, data: bytes, expected: tuple[str, str, int | None], kept: bool
) -> None:
    doc = "articles/page.md"
    result = hostile_build(tmp_path, {doc: data})
    assert alarms(result, doc, infos=("front-matter-only",)) == [(*expected[:2], doc, expected[2])]
    assert (doc in {d.path for d in result.documents}) is kept
    assert claims(result, doc) == set()


def test_a_file_over_the_size_limit_is_not_read(tmp_path: Path) -> None:
    rows = "".join(f"| Standard_ND{n}s | {n} | {n * 10} |\n" for n in range(1, 200))
    data = f"# ND-series\n\n| Size | vCPU | Memory: GiB |\n|---|---|---|\n{rows}".encode()
    assert len(data) > 4_000 > len(fixture("good.md"))
    doc = "articles/huge.md"
    result = hostile_build(tmp_path, {doc: data}, Settings(limits=Limits(max_file_bytes=4_000)))
    assert alarms(result, doc) == [("error", "file-too-large", doc, None)]
    assert doc not in {d.path for d in result.documents}
    assert claims(result, doc) == set()


# ------------------------------------------------------------------------ tables

ND6 = [(10, "Standard_ND6s", "vcpus", "6"), (10, "Standard_ND6s", "memory_gib", "112")]
ND12 = [(11, "Standard_ND12s", "vcpus", "12"), (11, "Standard_ND12s", "memory_gib", "224")]


@pytest.mark.parametrize(
    ("name", "expected", "read"),
    [
        # | Size | vCPU | Memory: GiB |  (line 8)   over   |---|---|   (two cells: no table for markdown-it)
        pytest.param("table-delimiter-short.md", [("warning", "table-malformed", 8)], ND6 + ND12, id="delimiter-short"),
        # | Size | vCPU | Memory: GiB |  (line 8)   over   |---|---|---|---|
        pytest.param("table-delimiter-long.md", [("warning", "table-malformed", 8)], ND6 + ND12, id="delimiter-long"),
        # | Standard_ND6s | 6 | 112 | see note 3 |   (line 10)
        pytest.param(
            "table-extra-cells.md", [("warning", "table-row-extra-cells", 10)], ND6 + ND12, id="row-extra-cells"
        ),
        # | Standard_ND12s | 12 |   (line 11)
        pytest.param(
            "table-missing-cells.md",
            [("info", "table-row-missing-cells", 11)],
            [*ND6, (11, "Standard_ND12s", "vcpus", "12")],
            id="row-missing-cells",
        ),
        # | Standard_ND6s | 6 | 112 |  |  |  |  |  |  Standard_ND12s...: blank rows on lines 11 and 12
        pytest.param(
            "table-empty-rows.md",
            [],
            [*ND6, (13, "Standard_ND12s", "vcpus", "12"), (13, "Standard_ND12s", "memory_gib", "224")],
            id="empty-rows",
        ),
        # | Standard_ND6s | 6 | 112 | (line 10) ... | Standard_ND6s | 6 | 128 | (line 12): both kept
        pytest.param(
            "table-duplicate-size.md",
            [("warning", "table-duplicate-size", 12)],
            [*ND6, *ND12, (12, "Standard_ND6s", "vcpus", "6"), (12, "Standard_ND6s", "memory_gib", "128")],
            id="duplicate-size",
        ),
        # | <b>Standard_ND6s</b> | ... | 224<br>(preview) | ... | <em>24</em> |: markup is not text
        pytest.param(
            "table-html.md",
            [],
            [*ND6, *ND12, (12, "Standard_ND24s", "vcpus", "24"), (12, "Standard_ND24s", "memory_gib", "448")],
            id="html-in-cells",
        ),
        # | Standard_ND24rs* |   and, in a second table,   | Standard_ND24rs<sup>1</sup> |
        pytest.param(
            "table-footnotes.md",
            [],
            [
                (10, "Standard_ND24rs", "vcpus", "24"),
                (10, "Standard_ND24rs", "memory_gib", "448"),
                (16, "Standard_ND24rs", "vcpus", "24"),
                (16, "Standard_ND24rs", "memory_gib", "448"),
            ],
            id="footnote-markers-on-names",
        ),
    ],
)
def test_a_broken_table_is_reported_at_its_line_and_its_rows_are_still_read(
    tmp_path: Path, name: str, expected: list[tuple[str, str, int]], read: list[tuple[int, str, str, str]]
) -> None:
    doc = f"articles/{name}"
    result = hostile_build(tmp_path, {doc: fixture(name)})
    infos = ("table-row-missing-cells",)
    assert alarms(result, doc, infos) == [(sev, code, doc, line) for sev, code, line in expected]
    assert table_claims(result, doc) == set(read)


def test_extra_cells_are_named_in_the_message(tmp_path: Path) -> None:
    doc = "articles/table-extra-cells.md"
    result = hostile_build(tmp_path, {doc: fixture("table-extra-cells.md")})
    (diag,) = [d for d in result.diagnostics if d.code == "table-row-extra-cells"]
    assert "see note 3" in diag.message


def test_blank_rows_are_skipped_silently(tmp_path: Path) -> None:
    doc = "articles/table-empty-rows.md"
    result = hostile_build(tmp_path, {doc: fixture("table-empty-rows.md")})
    assert [d for d in result.diagnostics if d.document == doc and d.line in (11, 12)] == []


def test_pipes_in_cells_do_not_shift_the_other_cells(tmp_path: Path) -> None:
    # | Standard_ND6s  | 6  | 112 | InfiniBand \| Ethernet |      (line 10: an escaped pipe)
    # | Standard_ND12s | 12 | 224 | `a \| b` |                     (line 11: escaped inside code)
    # | Standard_ND24s | 24 | 448 | `nvidia-smi | grep MiB` |      (line 12: GFM splits even inside code)
    doc = "articles/table-pipes.md"
    result = hostile_build(tmp_path, {doc: fixture("table-pipes.md")})
    sizes = {c for c in table_claims(result, doc) if c[2] in ("vcpus", "memory_gib")}
    assert sizes == {
        *ND6,
        *ND12,
        (12, "Standard_ND24s", "vcpus", "24"),
        (12, "Standard_ND24s", "memory_gib", "448"),
    }
    assert alarms(result, doc) == [("warning", "table-row-extra-cells", doc, 12)]


def test_rows_beyond_the_table_limit_are_reported_once_and_not_read(tmp_path: Path) -> None:
    # five rows on lines 10..14; with a limit of three, line 13 is the first row too many
    doc = "articles/table-too-large.md"
    result = hostile_build(tmp_path, {doc: fixture("table-too-large.md")}, Settings(limits=Limits(max_table_rows=3)))
    assert alarms(result, doc) == [("warning", "table-too-large", doc, 13)]
    assert {line for line, *_ in table_claims(result, doc)} == {10, 11, 12}


@pytest.mark.parametrize(
    "nested",
    [
        pytest.param("> " * 5000 + "text", id="blockquote-5000-deep"),
        pytest.param("+ " * 3000 + "item", id="list-3000-deep"),
        pytest.param("1. " * 3000 + "item", id="ordered-list-3000-deep"),
        pytest.param("> + " * 2000 + "text", id="quote-in-list-4000-deep"),
    ],
)
def test_markdown_nested_thousands_deep_is_reported_not_a_crash(tmp_path: Path, nested: str) -> None:
    doc = "articles/deep.md"
    start = time.perf_counter()
    result = hostile_build(tmp_path, {doc: f"# Deep\n\n{nested}\n".encode()})
    assert time.perf_counter() - start < 30, "a deeply nested document must not hang the build"
    assert alarms(result, doc) == [("warning", "markdown-too-deep", doc, 3)]


# ------------------------------------------------------------------------ includes and links


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        # [!INCLUDE [passwd](../../../../etc/passwd)]   (line 10)
        pytest.param("include-traversal.md", ("warning", "include-outside-sources", 10), id="dot-dot-traversal"),
        # [!INCLUDE [passwd](/etc/passwd)]   (line 10)
        pytest.param("include-absolute.md", ("warning", "include-outside-sources", 10), id="absolute-path"),
        # [!INCLUDE [secret](../../outside.md)]   (line 10; the file exists, beside the sources folder)
        pytest.param("include-outside-file.md", ("warning", "include-outside-sources", 10), id="real-file-outside"),
        # [!INCLUDE [sizes](includes/nd-series-sizes.md)]   (line 10; no such file)
        pytest.param("include-missing.md", ("warning", "include-missing", 10), id="missing-target"),
    ],
)
def test_an_include_that_cannot_be_followed_is_reported_and_nothing_is_read(
    tmp_path: Path, name: str, expected: tuple[str, str, int]
) -> None:
    (tmp_path / "outside.md").write_bytes(fixture("outside.md"))
    doc = f"articles/{name}"
    result = hostile_build(tmp_path, {doc: fixture(name)})
    assert alarms(result, doc) == [(*expected[:2], doc, expected[2])]
    read = texts_of(result)
    assert "root:" not in read
    assert "ND77secret" not in read


def test_an_include_cycle_is_reported_once_and_does_not_hang(tmp_path: Path) -> None:
    # include-cycle-a.md line 10: [!INCLUDE [b](include-cycle-b.md)]
    # include-cycle-b.md line 8:  [!INCLUDE [a](include-cycle-a.md)]
    a, b = "articles/include-cycle-a.md", "articles/include-cycle-b.md"
    result = hostile_build(tmp_path, {a: fixture("include-cycle-a.md"), b: fixture("include-cycle-b.md")})
    cycle = [(d.severity, d.code, d.document, d.line) for d in result.diagnostics if d.code == "include-cycle"]
    assert len(cycle) == 1
    assert cycle[0] in {("warning", "include-cycle", a, 10), ("warning", "include-cycle", b, 8)}
    assert alarms(result, a) + alarms(result, b) == cycle


@pytest.mark.parametrize(
    ("link", "target", "expected"),
    [
        pytest.param("articles/leak.md", "outside/outside.md", ("warning", "link-outside-sources", None), id="file"),
        pytest.param("articles/leaked", "outside", ("warning", "link-outside-sources", None), id="folder"),
    ],
)
def test_a_symbolic_link_out_of_the_sources_folder_is_not_followed(
    tmp_path: Path, link: str, target: str, expected: tuple[str, str, None]
) -> None:
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "outside.md").write_bytes(fixture("outside.md"))
    (tmp_path / "sources" / "articles").mkdir(parents=True)
    (tmp_path / "sources" / link).symlink_to(tmp_path / target)
    result = hostile_build(tmp_path, {})
    assert alarms(result, link) == [(*expected[:2], link, expected[2])]
    read = texts_of(result)
    assert "ND77secret" not in read
    assert "Secret pricing sheet" not in read


# ------------------------------------------------------------------------ values


def test_values_as_documents_write_them(tmp_path: Path) -> None:
    doc = "articles/values.md"
    result = hostile_build(tmp_path, {doc: fixture("values.md")})
    assert alarms(result, doc) == [("warning", "value-unreadable", doc, 10)]
    assert table_claims(result, doc) == {
        # | Standard_ND6s | six | 112 |: a word where a number belongs; the other cell is read
        (10, "Standard_ND6s", "memory_gib", "112"),
        # | Standard_ND12s | N/A | - |: nothing stated, nothing claimed, nothing reported
        # | Standard_ND24s | 6 - 24 | Up to 8 |
        (12, "Standard_ND24s", "vcpus", "6-24"),
        (12, "Standard_ND24s", "memory_gib", "8"),
        # | Standard_ND40s | 40 | 24,000 |   and   | Standard_ND48s | 48 | 2,00,000 |
        (13, "Standard_ND40s", "vcpus", "40"),
        (13, "Standard_ND40s", "memory_gib", "24000"),
        (14, "Standard_ND48s", "vcpus", "48"),
        (14, "Standard_ND48s", "memory_gib", "200000"),
    }
    (vcpus,) = [
        c
        for c in result.claims
        if c.document == doc and c.line == 12 and c.attribute == "vcpus" and c.method == "table"
    ]
    assert (vcpus.range_min, vcpus.range_max) == (6, 24)
    assert [d for d in result.diagnostics if d.document == doc and d.line == 11] == [], "N/A and - are not problems"


# ------------------------------------------------------------------------ guarantees of a build


def build_command(sources: Path, out: Path) -> list[str]:
    return [sys.executable, "-m", "pipeline", "build", "--sources", str(sources), "--out", str(out), "--quiet"]


def test_a_build_killed_midway_leaves_the_previous_output_intact(tmp_path: Path, shipped_output: Path) -> None:
    out = tmp_path / "out"
    shutil.copytree(shipped_output, out)
    before = {p.name: p.read_bytes() for p in sorted(out.iterdir())}
    big = tmp_path / "big"
    subprocess.run([sys.executable, "-m", "bench.corpus", "2000", str(big)], cwd=ROOT, check=True, capture_output=True)

    proc = subprocess.Popen(build_command(big, out), cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    lock = tmp_path / ".out.lock"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        if lock.exists() and lock.read_text().strip() == str(proc.pid):
            break  # the build holds the output: it is under way
        time.sleep(0.05)
    time.sleep(1.5)
    assert proc.poll() is None, "the build ended before it could be killed; make the corpus bigger"
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    # Nothing of the build is left running: its parse workers waited for work for ever.
    deadline = time.monotonic() + 10
    while (left := _processes_writing(out)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not left, f"processes of the killed build still run: {left}"

    after = {p.name: p.read_bytes() for p in sorted(out.iterdir())}
    assert sorted(after) == sorted(before), "files appeared in or vanished from the output folder"
    for name, data in before.items():
        assert after[name] == data, f"{name} changed"
    for csv in sorted(out.glob("*.csv")):
        assert len(pd.read_csv(csv)) == len(pd.read_parquet(csv.with_suffix(".parquet"))), csv.name


def _processes_writing(out: Path) -> list[int]:
    """The processes whose command line names `out`: a build and whatever it started."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                args = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:  # ended meanwhile
                continue
            if str(out).encode() in args:
                found.append(int(entry.name))
    return found


def test_a_second_build_is_refused_while_the_output_is_locked(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with output_lock(out):
        proc = subprocess.run(build_command(SOURCES, out), cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2
    assert "is being written by another build" in proc.stderr
    assert not out.exists()


XSS_DOC = """---
title: ND-series <script>window.x=1</script>
ms.date: 01/15/2026
---

# NDxss-series

| Size | vCPU | Memory: GiB |
|---|---|---|
| Standard_ND7s | <script>window.x=1</script> | <img src=x onerror=alert(1)> |
| Standard_ND9s | `<script>window.x=1</script>` | `<img src=x onerror=alert(1)>` |
| Standard_ND11s | &lt;script&gt;window.x=1&lt;/script&gt; | &lt;img src=x onerror=alert(1)&gt; |
"""


def test_html_in_a_document_never_reaches_the_drift_report_as_html(tmp_path: Path, shipped_output: Path) -> None:
    sources = tmp_path / "sources"
    shutil.copytree(SOURCES, sources)
    (sources / "extra").mkdir()
    (sources / "extra" / "xss.md").write_text(XSS_DOC, encoding="utf-8")
    build(sources, tmp_path / "out")
    report = render_markdown(drift(shipped_output, tmp_path / "out"))
    assert "extra/xss.md" in report
    assert "&lt;script&gt;" in report, "the hostile text should be in the report, escaped"
    assert "<script" not in report.lower()
    assert "<img" not in report.lower()
