"""The tokenizer: markdown-it's Rust port where installed, markdown-it-py as the reference.

A page tokenized by the port must give extract exactly what the reference gives: the same
statements, includes, diagnostics and subject. Each case below sets a page beside what the
rebuilt tokens hold; the parity tests then run both tokenizers over every page of sources/, of
the test fixtures, of a generated corpus and of pages made from pieces by hypothesis.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it.token import Token as ReferenceToken

from bench import corpus
from pipeline import knowledge
from pipeline.records import Extraction
from pipeline.stages.extract import extract, plain_parts
from pipeline.stages.markdown import NESTING_MARKS, PORT, PORT_DEPTH, REFERENCE, Token, _port_may_differ, tokenize
from pipeline.stages.read import discover, parse_bytes, read_document

ROOT = Path(__file__).resolve().parent.parent
KNOW = knowledge.load()

pytestmark = pytest.mark.skipif(PORT is None, reason="markdown-it-pyrs is not installed (no wheel for this Python)")

READ = frozenset(
    {
        "heading_open",
        "table_open",
        "thead_open",
        "thead_close",
        "tr_open",
        "tr_close",
        "blockquote_open",
        "blockquote_close",
        "bullet_list_open",
        "bullet_list_close",
        "ordered_list_open",
        "ordered_list_close",
        "inline",
    }
)
"""The tokens extract's walk reads; markdown-it-py's others (paragraph_open, th_open...) it passes."""


def shape(tokens: Sequence[Token]) -> list[tuple[str, str, int | None, str]]:
    """What extract reads of each token: type, tag, first line (0-based) and, for an inline
    token, its children as plain text (pieces joined by ` / `)."""
    out = []
    for t in tokens:
        if t.type not in READ:
            continue
        text = " / ".join(plain_parts(t.children).parts) if t.type == "inline" else ""
        out.append((t.type, t.tag, t.map[0] if t.map else None, text))
    return out


def ported(text: str) -> bool:
    """Whether the port tokenized the page (markdown-it-py's tokens are its own class)."""
    return not any(isinstance(t, ReferenceToken) for t in tokenize(text))


CASES = [
    pytest.param(
        "# ND40rs\\_v2 series\n\nGPU memory: 80 GB\n",
        [("heading_open", "h1", 0, ""), ("inline", "", 0, "ND40rs_v2 series"), ("inline", "", 2, "GPU memory: 80 GB")],
        id="heading-escape-and-paragraph",
    ),
    pytest.param(
        "- vCPU: 40\n  RAM: 672 GiB\n- [!INCLUDE [x](includes/a.md)]\n",
        [
            ("bullet_list_open", "ul", 0, ""),
            ("inline", "", 0, "vCPU: 40 RAM: 672 GiB"),
            ("inline", "", 2, "[!INCLUDE x]"),
            ("bullet_list_close", "ul", None, ""),
        ],
        id="tight-list-items-are-one-inline-each",
    ),
    pytest.param(
        "| Size | vCPU<sup>1</sup> | GPU |\n|---|---|---|\n"
        "| Standard_ND40rs_v2 | 40 | 8 V100<br>NVLink |\n| NC6 | 6 |\n",
        [
            ("table_open", "table", 0, ""),
            ("thead_open", "thead", 0, ""),
            ("tr_open", "tr", 0, ""),
            ("inline", "", 0, "Size"),
            ("inline", "", 0, "vCPU"),
            ("inline", "", 0, "GPU"),
            ("tr_close", "tr", None, ""),
            ("thead_close", "thead", None, ""),
            ("tr_open", "tr", 2, ""),
            ("inline", "", 2, "Standard_ND40rs_v2"),
            ("inline", "", 2, "40"),
            ("inline", "", 2, "8 V100 / NVLink"),
            ("tr_close", "tr", None, ""),
            ("tr_open", "tr", 3, ""),
            ("inline", "", 3, "NC6"),
            ("inline", "", 3, "6"),
            ("inline", "", 3, ""),
            ("tr_close", "tr", None, ""),
        ],
        id="table-short-row-padded-footnote-set-aside",
    ),
    pytest.param(
        "> [!NOTE]\n> The <br> break `code`\n\nAfter\n",
        [
            ("blockquote_open", "blockquote", 0, ""),
            ("inline", "", 0, "[!NOTE] The / break code"),
            ("blockquote_close", "blockquote", None, ""),
            ("inline", "", 3, "After"),
        ],
        id="docfx-note",
    ),
    pytest.param(
        "é€ 😀\n\n| A | B |\n|---|---|\n| ü | ñ |\n",
        [
            ("inline", "", 0, "é€ 😀"),
            ("table_open", "table", 2, ""),
            ("thead_open", "thead", 2, ""),
            ("tr_open", "tr", 2, ""),
            ("inline", "", 2, "A"),
            ("inline", "", 2, "B"),
            ("tr_close", "tr", None, ""),
            ("thead_close", "thead", None, ""),
            ("tr_open", "tr", 4, ""),
            ("inline", "", 4, "ü"),
            ("inline", "", 4, "ñ"),
            ("tr_close", "tr", None, ""),
        ],
        id="lines-counted-in-characters-not-bytes",
    ),
    pytest.param(
        "![alt *b*](i.png) <http://a.b/%20x> &amp; &#35; ` x\ny `\n",
        [("inline", "", 0, "alt *b* http://a.b/ x & # x y")],
        id="image-alt-as-written-autolink-entities-code",
    ),
    pytest.param(
        "Title\n===\n\n1. one\n\n   two: 2\n",
        [
            ("heading_open", "h1", 0, ""),
            ("inline", "", 0, "Title"),
            ("ordered_list_open", "ol", 3, ""),
            ("inline", "", 3, "one"),
            ("inline", "", 5, "two: 2"),
            ("ordered_list_close", "ol", None, ""),
        ],
        id="setext-heading-and-loose-list",
    ),
]


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_rebuilt_tokens(text: str, expected: list[tuple[str, str, int | None, str]]) -> None:
    tokens = tokenize(text)
    assert ported(text)
    assert shape(tokens) == expected
    assert shape(tokens) == shape(tokenize(text, reference=True))


def test_inline_content_is_the_source_with_one_newline_per_break() -> None:
    """Extract reads an inline token's content for include lines and tables markdown did not
    recognise: each line as written, without the quote's markers."""
    (inline,) = [t for t in tokenize("> a [!INCLUDE [x](y.md)]\n> b | c\n") if t.type == "inline"]
    assert inline.content == "a [!INCLUDE [x](y.md)]\nb | c"


def _nested(depth: int) -> str:
    return "".join("  " * k + "- item\n" for k in range(depth))


FALLBACKS = [
    pytest.param(_nested(PORT_DEPTH), id="nested-deeper-than-the-port-depth"),
    pytest.param("> [!NOTE]\n> text\n| A | B |\n|---|---|\n| 1 | 2 |\n", id="quote-paragraph-runs-on"),
    pytest.param("> text\nlazy line\n", id="quote-lazy-line"),
    pytest.param("~\n|-\n", id="table-header-without-pipe"),
    pytest.param("<!b\n", id="html-declaration"),
    pytest.param("*~B_*_a_\n", id="star-beside-underscore"),
    pytest.param("[`a`:`:``\n", id="double-backtick-and-bracket"),
    pytest.param("[`\n", id="port-panics"),
    pytest.param("a \ud800 b\n", id="unpaired-surrogate"),
]


@pytest.mark.parametrize("text", FALLBACKS)
def test_pages_the_port_may_read_otherwise_go_to_the_reference(text: str, capfd: pytest.CaptureFixture[str]) -> None:
    assert not ported(text)
    assert shape(tokenize(text)) == shape(REFERENCE.parse(text))
    assert capfd.readouterr().err == "", "a panic of the port must not reach the build's output"


MAY_DIFFER = [
    ("<!DOCTYPE html>\n", True),
    ("<!-- a comment -->\n", False),
    ("a *_b_*\n", True),
    ("a _*b*_\n", True),
    ("a * _ b\n", False),
    ("- a\n\tb\n", True),
    ("a\tb\n", False),
    ("a\x00b\n", True),
    ("`a`\n|---|---|\n", True),
    ("<br>\n:-|-:\n", True),
    ("| A | B |\n|---|---|\n", False),
    ("[a] ``b``\n", True),
    ("``b``\n", False),
    ("[a]\n```\ncode\n```\n", False),
    ("*" * NESTING_MARKS, False),
    ("*" * NESTING_MARKS + "\n", False),
    ("*" * NESTING_MARKS + "\n*", True),
    ("*" * (NESTING_MARKS + 1), True),
    ("- " * (NESTING_MARKS + 1), True),
    ("a\n\u00a0\nb\n", True),
    ("a *\u00ae* b\n", True),
    ("a *\u00e9* b\n", False),
]
"""Pages beside whether the port may read them otherwise (`_port_may_differ`): one for each
thing it looks for, and a near miss of each."""


@pytest.mark.parametrize(("text", "differs"), MAY_DIFFER)
def test_what_sends_a_page_to_the_reference(text: str, differs: bool) -> None:
    assert _port_may_differ(text.encode("utf-8"), text) is differs


def test_a_shallow_list_is_ported() -> None:
    assert ported(_nested(3))


SAME = [
    pytest.param(">\t[!INCLUDE [x](includes/a.md)]\n", id="tab-after-quote-mark"),
    pytest.param("- Sizes\n\n\t[!INCLUDE [x](includes/a.md)]\n", id="tab-indented-include-in-list"),
    pytest.param("- x\n\n\tSize | vCPU | GPU\n\t---|---\n\tNC6 | 6 | 1\n", id="tab-indented-malformed-table"),
    pytest.param(">>- \te", id="tab-after-a-list-marker-in-quotes"),
    pytest.param("1.\n\tx", id="tab-indented-line-after-an-empty-item"),
    pytest.param("> *<\n> a*", id="emphasis-across-quote-lines"),
    pytest.param("- *[!INCLUDE [x](includes/a.md)]**\n", id="unmatched-emphasis-shifts-offsets"),
    pytest.param("NVIDIA**®**: x", id="symbol-inside-strong"),
    pytest.param("Price: a**€5**", id="currency-inside-strong"),
    pytest.param("See **→**next", id="arrow-inside-strong"),
    pytest.param("~~😀~~1", id="emoji-inside-strikethrough"),
    pytest.param("| Size | vCPU |\n|---|---|\n| Standard_NC6 | 6 |\n2. Deploy: now\n", id="list-item-under-table"),
    pytest.param("| Size |\n--\n| Standard_NC6 |\n", id="setext-underline-under-pipe"),
    pytest.param("\xa0\nvCPU: 4", id="no-break-space-line"),
    pytest.param("> [!NOTE]\n> ![a\n> b](x.png) c: 1", id="image-alt-across-quote-lines"),
    pytest.param("|\n-\\\n|", id="backslash-hard-break"),
    pytest.param("<div>|)\n-|-", id="delimiter-under-html"),
    pytest.param("x\n<n>\n:-", id="delimiter-under-inline-html"),
    pytest.param("> > [!NOTE]\n> > text: 1\n> -", id="lazy-line-in-nested-quote"),
    pytest.param("# Foo ##\n\n## Bar \\#\n\n#\n", id="atx-closing-sequences"),
    pytest.param("- a\n  ```\n  code\n  ```\n  b: 2\n- c\n", id="tight-item-text-after-a-fence"),
    pytest.param("> - a\n>   b: 1\n>\n> 1. c\n>    d: 2\n", id="lists-in-a-quote"),
]
"""Pages where the two were found to differ (in review and on generated pages), and pages
whose content the rebuild reads off block spans; each must give the same statements."""


@pytest.mark.parametrize("text", SAME)
def test_pages_found_to_differ_give_the_same_statements(text: str) -> None:
    doc, _ = parse_bytes("articles/page.md", text.encode("utf-8"))
    assert doc is not None
    _same(extract(doc, KNOW), extract(doc, KNOW, reference=True))


@pytest.mark.parametrize(
    "page", ['"> " * 60_000', '">" * 60_000', '"1. " * 100_000', '"*" * 200_000 + "a" + "*" * 200_000']
)
def test_pages_deep_enough_to_crash_the_port_go_to_the_reference(page: str) -> None:
    """The port's tree of such a page crashes the process when it is freed (a segmentation
    fault), so the page must never reach the port: tried in a process of its own."""
    code = f"from pipeline.stages.markdown import tokenize; tokenize({page}); print('read')"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)
    assert (done.returncode, done.stdout.strip()) == (0, "read")


def test_a_panic_is_quiet_from_threads_and_without_stderr(monkeypatch: pytest.MonkeyPatch) -> None:
    before = os.fstat(2)
    with ThreadPoolExecutor(4) as pool:
        shapes = list(pool.map(lambda text: shape(tokenize(text)), ["[`\n", "a: 1\n"] * 50))
    assert shapes[:2] == [shape(REFERENCE.parse("[`\n")), shape(REFERENCE.parse("a: 1\n"))]
    after = os.fstat(2)
    assert (after.st_dev, after.st_ino) == (before.st_dev, before.st_ino), "stderr must be put back"
    monkeypatch.setattr(sys, "stderr", None)
    assert shape(tokenize("[`\n")) == shape(REFERENCE.parse("[`\n"))


def _same(a: Extraction, b: Extraction) -> None:
    assert a.statements == b.statements
    assert (a.includes, a.diagnostics, a.subject) == (b.includes, b.diagnostics, b.subject)


def _pages(root: Path) -> list[Path]:
    files, _ = discover(root)
    return [f for f in files if f.suffix == ".md"]


@pytest.mark.parametrize("root", ["sources", "tests/fixtures"])
def test_every_page_gives_the_same_statements(root: str) -> None:
    pages, ports = 0, 0
    for path in _pages(ROOT / root):
        doc, _ = read_document(path, ROOT / root)
        if doc is None:
            continue
        pages += 1
        body = "\n" * doc.front_matter_lines + "\n".join(doc.text.split("\n")[doc.front_matter_lines :])
        ports += ported(body)
        _same(extract(doc, KNOW), extract(doc, KNOW, reference=True))
    assert pages > 40
    assert ports >= 0.9 * pages, "the port must read most pages, or this test compares the reference with itself"


def test_a_generated_corpus_gives_the_same_statements(tmp_path: Path) -> None:
    corpus.generate(300, tmp_path, seed=11)
    for path in _pages(tmp_path):
        doc, _ = read_document(path, tmp_path)
        assert doc is not None
        _same(extract(doc, KNOW), extract(doc, KNOW, reference=True))


PIECES = [
    "# ND40rs\\_v2 series",
    "## Sizes *x*",
    "Title é\n===",
    "### Foo ##",
    "| Size | vCPU<sup>1</sup> | GPU |\n|---|---|---|\n"
    "| Standard_ND40rs_v2 | 40 | 8 V100 32 GB<br>NVLink |\n| NC6 | 6 |\n| a | b | c | d |",
    "Size | GPU\n--|--\nStandard_NC6 | 1 K80 \\| x\n`a|b` | c",
    "| Size | GPU |\n|---|---|---|\n| x | y |",
    "| A | B |\n|:-:|--:|\n| &amp; | &nbsp;x |",
    "> [!NOTE]\n> Some note with `code` and <br> break\n> second line",
    "> [!WARNING]\n> key: value\nlazy line",
    "> [!TIP]\n> tip: 1\n>",
    "- key: value **bold** [link](http://x.com) ![alt *t*](img.png)\n- [!INCLUDE [x](includes/a.md)]\n"
    "  - nested: 5 GB\n    1. deep",
    "1. one\n\n2. two\n\n   para: 3",
    "GPU memory: 80 GB  \nvCPU: 96\\\nRAM: 1,900 GiB",
    "<div>\nhtml: block\n</div>",
    "    indented: code",
    "```\nfenced: code\n```",
    "Auto <http://a.b/%20x> and <me@x.org> and <https://é.com/ü>",
    "Entities &foo; &#35; &#x27; &copy; é€ 😀 中文: 值",
    "` x\ny ` and `` a ` b ``",
    "[!INCLUDE [n](../outside.md)] text\n[!INCLUDE [m](inc/b.md)]",
    "~~struck: 3~~ *em: 4* __st__ ND40rs_v2_x",
    "[ref]: http://x\n\nSee [ref].",
    "- | A | B |\n  |---|---|\n  | 1 | 2 |",
    "Setext\n---\n| A |\n|---|\n| 1 |",
    "| H1 | H2 |\n| -- | -- |\n| a<br>b | c<br/>d<br>e |",
    "<!-- comment: 1 -->\nafter: 2",
    "x<BR>y<br />z<sup><sup>n</sup></sup>",
    '[link *t*](http://x "title") [a [b] c](u) ![i ![j](k)](l) see [`Standard_NC6`](u)',
    "| `a \\| b` | c |\n|---|---|\n|  | 2 |\n| 1 |  |",
    "\u00a0nbsp: 1\u00a0GB\ta\tb: c",
    "- Sizes\n\n\t[!INCLUDE [x](includes/a.md)]",
    "NVIDIA**®** GPUs: 8 *™* _→_",
    "| Size | vCPU |\n|---|---|\n| Standard_NC6 | 6 |\n2. Deploy: now\n- item: 1",
    "\u00a0\nvCPU: 4",
    "- *[!INCLUDE [x](includes/a.md)]**",
]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(PIECES), min_size=1, max_size=7), st.sampled_from(["\n", "\n\n"]))
def test_pages_made_of_pieces_give_the_same_statements(pieces: list[str], sep: str) -> None:
    doc, _ = parse_bytes("articles/page.md", sep.join(pieces).encode("utf-8"))
    assert doc is not None
    _same(extract(doc, KNOW), extract(doc, KNOW, reference=True))


BLOCK_BITS = [
    "\t",
    "  ",
    "> ",
    "- ",
    "1. ",
    "| a | b |",
    "|---|---|",
    "[!INCLUDE [x](i/a.md)]",
    "key: value",
    "x",
    "\n",
    "\n\n",
]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(BLOCK_BITS), min_size=1, max_size=30))
def test_block_structure_with_tabs_gives_the_same_statements(bits: list[str]) -> None:
    """Quotes, lists, tables and indentation (tabs too) in any order: where containers open and
    close, and on which lines, is what the rebuild reads off the port's block spans."""
    doc, _ = parse_bytes("articles/page.md", "".join(bits).encode("utf-8"))
    assert doc is not None
    _same(extract(doc, KNOW), extract(doc, KNOW, reference=True))
