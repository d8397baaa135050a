"""The Markdown tokens the extract stage walks.

markdown-it-py is the reference. Where its Rust port, markdown-it-pyrs, is installed, a page
is tokenized by the port about ten times faster, and `tokenize` rebuilds from the port's tree
the markdown-it-py tokens that extract reads. Those are headings, tables, block quotes and
lists, and each block's inline children as plain-text pieces. They must give the same
statements; tests/test_markdown.py holds that on every page of sources/ and of the fixtures,
on a generated corpus and on pages put together by hypothesis.

The port gives a tree with byte offsets, where markdown-it-py gives flat tokens with line
maps. These pages go to markdown-it-py instead (`_port_may_differ`, `_Unknown`):
- markdown the two were found to read differently, by comparing them on generated pages and
  in review: a block quote with lazy continuation lines, a table header row without a pipe,
  a list item right under a table row, a setext heading over a pipe, `<!` before a letter,
  `*` beside `_`, `*`, `_` or `~` beside a Unicode symbol (markdown-it-py follows CommonMark
  0.31 there), a double backtick on a page with a `[`, a tab in a line's indentation (the
  port's offsets are then wrong), a line of only Unicode white space, a NUL;
- a page that could nest deep enough to crash the port (`NESTING_MARKS`), or that nests
  deeper than `PORT_DEPTH` (markdown-it-py's nesting limit decides what is read of it);
- a node the rebuild does not know, an offset outside its parent or inside a character, a
  page that is not valid UTF-8 (an unpaired surrogate), and input the port panics on.
"""

from __future__ import annotations

import os
import re
import sys
import threading
import unicodedata
from bisect import bisect_right
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from markdown_it import MarkdownIt


class Token(Protocol):
    """What extract reads of a token, markdown-it-py's or rebuilt from the port's tree."""

    @property
    def type(self) -> str: ...
    @property
    def tag(self) -> str: ...
    @property
    def map(self) -> Sequence[int] | None: ...
    @property
    def level(self) -> int: ...
    @property
    def content(self) -> str: ...
    @property
    def children(self) -> Sequence[Token] | None: ...


def markdown() -> MarkdownIt:
    """The reference parser: CommonMark with raw HTML, plus GFM tables and strikethrough."""
    return MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])


REFERENCE = markdown()
MAX_NESTING = int(REFERENCE.options.get("maxNesting", 20))

PORT_DEPTH = 12
"""Pages nested deeper than this (block and inline nodes counted together) are tokenized by
markdown-it-py. This is well below markdown-it-py's nesting limit, so the port never reads
what the reference would cut."""


def _port() -> Any:
    try:  # not on every Python (pyproject.toml)
        import markdown_it_pyrs
    except ImportError:  # pragma: no cover - where the port is not installed
        return None
    return markdown_it_pyrs.MarkdownIt("commonmark").enable_many(
        ["table", "strikethrough", "html_block", "html_inline"]
    )


PORT = _port()


def tokenize(text: str, *, reference: bool = False) -> Sequence[Token]:
    """The page's tokens: from the port where it is installed and the page allows it (see the
    module's docstring), else from markdown-it-py (always with `reference`)."""
    if not reference and PORT is not None:
        rebuilt = _Rebuild(text).tokens()
        if rebuilt is not None:
            return rebuilt
    return REFERENCE.parse(text)


NESTING_MARKS = 20_000
"""Pages with more marks that can open a nested block or inline than this go to markdown-it-py:
the port's tree is freed recursively, and a page nested some 60,000 deep crashes the process
(a segmentation fault, which no handler catches)."""
_NESTING = (b">", b"*", b"_", b"[", b"~", b"- ", b"+ ", b". ", b") ")
assert len({mark[0] for mark in _NESTING}) == len(_NESTING), "no two marks may begin with one byte (_port_may_differ)"

_MAY_DIFFER_BYTES = (b"*_", b"_*", b"\x00")
"""Emphasis delimiters of both kinds side by side, and a NUL: found by a plain search."""
_DECLARATION = re.compile(rb"<![A-Za-z]")
"""An HTML declaration: markdown-it-py reads HTML, the port text in places."""
_TAB_INDENT = re.compile(rb"(?m)^[ >*+\-\d.)]*\t")
"""A tab in a line's indentation: the port's offsets go wrong."""
_ROW_UNDER_OPENER = re.compile(
    rb"(?m)^[ \t>]*[<`~\\][^\n]*\n[ \t>]*\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$"
)
"""A delimiter row under a line that opens HTML, code or an escape: the two disagree on a table."""
_DOUBLE_BACKTICK = re.compile(rb"(?m)^(?![ \t>]*```)[^\n]*``")
"""Two or more backticks in a line that does not open a fence: with a `[` on the page, the
port reads code spans otherwise (and panics on some)."""
_ODD_SPACE_LINE = re.compile(r"(?m)^[^\S\n]*[^\S \t\n][^\S\n]*$")
"""A line of white space other than spaces and tabs (a no-break space): markdown-it-py strips
it as Python does, the port keeps it."""
_BESIDE_DELIMITER = re.compile(r"[*_~][^\x00-\x7f]|[^\x00-\x7f][*_~]")


def _port_may_differ(data: bytes, text: str) -> bool:
    """Whether the page holds what the two parsers read differently, or may crash the port."""
    # Each pattern but the delimiter row's is looked for only where a plain search finds the
    # bytes it needs: one regular expression of all of them tried each alternative at every
    # byte of every page.
    if any(needle in data for needle in _MAY_DIFFER_BYTES):
        return True
    if b"<!" in data and _DECLARATION.search(data):
        return True
    if b"\t" in data and _TAB_INDENT.search(data):
        return True
    if _ROW_UNDER_OPENER.search(data) or (b"[" in data and b"``" in data and _DOUBLE_BACKTICK.search(data)):
        return True
    # Each mark begins with a byte no other mark begins with: a page holds no more marks than bytes.
    if len(data) > NESTING_MARKS and sum(map(data.count, _NESTING)) > NESTING_MARKS:
        return True
    if len(data) == len(text):  # ASCII: no symbol, no odd space
        return False
    if _ODD_SPACE_LINE.search(text):
        return True
    for m in _BESIDE_DELIMITER.finditer(text):
        if any(ord(ch) > 0x7F and unicodedata.category(ch).startswith("S") for ch in m.group()):
            return True
    return False


_PANIC_LOCK = threading.Lock()
_NULL = os.open(os.devnull, os.O_WRONLY) if PORT is not None else -1


def _quietly(call: Callable[[str], Any], text: str) -> Any:
    """`call(text)` with file descriptor 2 pointed at the null device. The port panics on some
    input (`[` then a backtick, in 0.4.0), and Rust prints the panic to stderr before Python
    sees an exception; the page is then read by markdown-it-py, so the message would only be
    noise in the build's output. One thread at a time: the descriptor is the process's."""
    with _PANIC_LOCK:
        if sys.stderr is not None:
            sys.stderr.flush()
        try:
            saved = os.dup(2)
        except OSError:  # no stderr to quiet
            return call(text)
        try:
            os.dup2(_NULL, 2)
            return call(text)
        finally:
            os.dup2(saved, 2)
            os.close(saved)


class Tok:
    """A token rebuilt from the port's tree, with markdown-it-py's names and meanings."""

    __slots__ = ("children", "content", "level", "map", "tag", "type")

    def __init__(
        self,
        type: str,
        level: int,
        map: tuple[int, int] | None = None,
        *,
        tag: str = "",
        content: str = "",
        children: list[Tok] | None = None,
    ) -> None:
        self.type = type
        self.tag = tag
        self.map = map
        self.level = level
        self.content = content
        self.children = children


class _Unknown(Exception):
    """The tree holds what the rebuild does not model: markdown-it-py tokenizes the page."""


_CONTAINERS = {"blockquote": "blockquote", "bullet_list": "ul", "ordered_list": "ol"}
"""The containers extract reads, with markdown-it-py's HTML tags."""
_SKIPPED = frozenset({"code_block", "fence", "html_block", "hr", "definition"})
"""Blocks with no inline content: extract reads nothing of them."""
_WRAPPERS = frozenset({"em", "strong", "strikethrough", "link"})
"""Inline nodes whose markup extract drops: their children are read in their place."""
_BREAKS = frozenset({"softbreak", "hardbreak"})
_INLINE = frozenset({"text", "text_special", "html_inline", "code_inline", "image", "autolink"}) | _WRAPPERS | _BREAKS
_LIST_MARKER = re.compile(rb"^(?:\d{1,9}[.)]|[-+*])(?:\s|$)")
_LIST_OPENER = re.compile(rb"^(?:\d{1,9}[.)]|[-+*])[ \t]*")

Span = tuple[int, int]


class _Rebuild:
    """One page's tree turned into markdown-it-py's flat tokens."""

    def __init__(self, text: str) -> None:
        self.text = text
        try:
            self.data = text.encode("utf-8")
        except UnicodeEncodeError:  # an unpaired surrogate
            self.data = b""
        self.ascii = len(self.data) == len(text)
        starts, at = [0], self.data.find(b"\n")
        while at >= 0:
            starts.append(at + 1)
            at = self.data.find(b"\n", at + 1)
        self.starts = starts
        self.out: list[Tok] = []

    def tokens(self) -> list[Tok] | None:
        if (not self.data and self.text) or _port_may_differ(self.data, self.text):
            return None
        quiet = b"[" in self.data and b"`" in self.data  # what made the port panic
        try:
            tree = _quietly(PORT.tree, self.text) if quiet else PORT.tree(self.text)
            for node in tree.children:
                self._block(node, 0, 0)
        except (_Unknown, UnicodeDecodeError):  # an offset inside a character: the port miscounted
            return None
        except BaseException as exc:  # a Rust panic is a BaseException
            if type(exc).__name__ != "PanicException":
                raise
            return None
        return self.out

    def _line(self, offset: int) -> int:
        return bisect_right(self.starts, offset) - 1

    def _map(self, span: Span) -> Span:
        """markdown-it-py's line map: the first line and the one after the last."""
        start, end = span
        return self._line(start), self._line(max(end - 1, start)) + 1

    def _source_line(self, line: int) -> bytes:
        stop = self.starts[line + 1] if line + 1 < len(self.starts) else len(self.data)
        return self.data[self.starts[line] : stop]

    def _lazy(self, span: Span, depth: int) -> bool:
        """Whether a block quote `depth` deep has a line with fewer `>`, or its last line has
        text and the next line is not blank: the two read such lazy lines differently."""
        first, last = self._line(span[0]), self._line(max(span[1] - 1, span[0]))
        if any(_quote_marks(self._source_line(k)) < depth for k in range(first + 1, last + 1)):
            return True
        open_paragraph = bool(self._source_line(last).lstrip(b" \t>").strip())
        return open_paragraph and last + 1 < len(self.starts) and bool(self._source_line(last + 1).strip())

    def _slice(self, start: int, end: int) -> str:
        if self.ascii:
            return self.text[start:end]
        return self.data[start:end].decode("utf-8")

    def _source(self, start: int, end: int, breaks: Sequence[Span]) -> str:
        """The source from `start` to `end`, each line break in `breaks` one `\\n` (a backslash
        that makes a hard break is kept)."""
        pieces, at = [], start
        for a, b in breaks:
            keep = a + 1 if self.data[a : a + 1] == b"\\" else a
            pieces.append(self._slice(at, keep))
            at = b
        pieces.append(self._slice(at, end))
        return "\n".join(pieces)

    def _content(self, span: Span, quotes: int, marker: bool = False) -> str:
        """A block's content as markdown-it-py gives it: its source, each later line without its
        indentation and `quotes` quote marks, stripped (with `marker`, without the list marker
        that opens it). Read off the block's span: the port's spans of inline nodes are not
        always right (an unmatched `*` shifts them)."""
        start, end = span
        if not 0 <= start <= end <= len(self.data):
            raise _Unknown
        first, *rest = self.data[start:end].split(b"\n")
        lines = [_LIST_OPENER.sub(b"", first, count=1) if marker else first]
        for line in rest:
            line = line.lstrip()
            for _ in range(quotes):
                if line.startswith(b">"):
                    line = line[1:].lstrip()
            lines.append(line)
        return b"\n".join(lines).decode("utf-8").strip()

    def _block(self, node: Any, level: int, quotes: int) -> None:
        if level >= PORT_DEPTH:
            raise _Unknown
        name, out, span = node.name, self.out, node.srcmap
        if name == "paragraph":
            out.append(self._inline(node.children, self._content(span, quotes), self._map(span), level + 1))
        elif name in ("heading", "lheading"):
            lines = self._map(span)
            if name == "lheading":
                if b"|" in self.data[span[0] : span[1]]:
                    raise _Unknown  # markdown-it-py may read a table there
                text = self._content((span[0], self.starts[lines[1] - 1] - 1), quotes)  # not the underline
            else:
                text = _atx_text(self.data[span[0] : span[1]])
            tag = f"h{node.meta['level']}"
            out.append(Tok("heading_open", level, lines, tag=tag))
            out.append(self._inline(node.children, text, lines, level + 1))
            out.append(Tok("heading_close", level, tag=tag))
        elif name in _CONTAINERS:
            quotes += name == "blockquote"
            if name == "blockquote" and self._lazy(span, quotes):
                raise _Unknown
            tag = _CONTAINERS[name]
            out.append(Tok(f"{name}_open", level, self._map(span), tag=tag))
            for child in node.children:
                self._block(child, level + 1, quotes)
            out.append(Tok(f"{name}_close", level, tag=tag))
        elif name == "list_item":
            self._list_item(node, level, quotes)
        elif name == "table":
            self._table(node, level)
        elif name not in _SKIPPED:
            raise _Unknown

    def _list_item(self, node: Any, level: int, quotes: int) -> None:
        """A tight item holds its inline nodes directly; markdown-it-py gives them a hidden
        paragraph, which is one inline token per run of them, between the item's blocks."""
        self.out.append(Tok("list_item_open", level, self._map(node.srcmap), tag="li"))
        run: list[Any] = []
        start = node.srcmap[0]  # where the next run's source begins
        for child in [*node.children, None]:
            if child is not None and child.name in _INLINE:
                run.append(child)
                continue
            if run:
                end = child.srcmap[0] if child is not None else node.srcmap[1]
                text = self._content((start, end), quotes, marker=start == node.srcmap[0])
                first = self._line(start if start == node.srcmap[0] else _skip_blank(self.data, start, end))
                self.out.append(self._inline(run, text, (first, self._line(max(end - 1, start)) + 1), level + 2))
                run = []
            if child is not None:
                self._block(child, level + 1, quotes)
                start = child.srcmap[1]
        self.out.append(Tok("list_item_close", level, tag="li"))

    def _table(self, node: Any, level: int) -> None:
        out, lines = self.out, self._map(node.srcmap)
        if b"|" not in self._source_line(lines[0]):
            raise _Unknown  # a header row without a pipe: markdown-it-py reads no table there
        out.append(Tok("table_open", level, lines, tag="table"))
        for section in node.children:
            if section.name not in ("thead", "tbody"):
                raise _Unknown
            out.append(Tok(f"{section.name}_open", level + 1, self._map(section.srcmap), tag=section.name))
            for row in section.children:
                row_lines = self._map(row.srcmap)
                if section.name == "tbody" and _LIST_MARKER.match(self._source_line(row_lines[0]).lstrip(b" \t>")):
                    raise _Unknown  # markdown-it-py ends the table at a list item
                out.append(Tok("tr_open", level + 2, row_lines, tag="tr"))
                for cell in row.children:  # extract reads a cell's children, not its content
                    out.append(self._inline(cell.children, "", row_lines, level + 4))
                out.append(Tok("tr_close", level + 2, tag="tr"))
            out.append(Tok(f"{section.name}_close", level + 1, tag=section.name))
        out.append(Tok("table_close", level, tag="table"))

    def _inline(self, nodes: Sequence[Any], content: str, lines: Span, level: int) -> Tok:
        """One block's inline token: its children flattened as extract reads them."""
        children: list[Tok] = []
        self._flatten(nodes, children, [], level)
        return Tok("inline", level, lines, content=content, children=children)

    def _flatten(self, nodes: Sequence[Any], into: list[Tok], breaks: list[Span], level: int) -> None:
        """`nodes` as markdown-it-py's inline tokens, into `into`; the spans of line breaks into
        `breaks`."""
        if level >= PORT_DEPTH:
            raise _Unknown
        for node in nodes:
            name = node.name
            if name == "text" or name == "text_special":
                into.append(Tok("text", level, content=node.meta["content"]))
            elif name in _WRAPPERS:
                self._flatten(node.children, into, breaks, level + 1)
            elif name in _BREAKS:
                into.append(Tok(name, level))
                breaks.append(node.srcmap)
            elif name == "html_inline":
                into.append(Tok(name, level, content=node.meta["content"]))
            elif name == "code_inline":
                into.append(Tok(name, level, content="".join(c.meta["content"] for c in node.children)))
            elif name == "image":
                into.append(Tok("image", level, content=self._alt(node, level)))
            elif name == "autolink":
                start, end = node.srcmap
                if self.data[start : start + 1] != b"<" or self.data[end - 1 : end] != b">":
                    raise _Unknown
                into.append(Tok("text", level, content=REFERENCE.normalizeLinkText(self._slice(start + 1, end - 1))))
            else:
                raise _Unknown

    def _alt(self, image: Any, level: int) -> str:
        """An image's alt text as markdown-it-py keeps it: the source of its label, markup and
        all. Its children's spans give the label; they are checked against the `![...]` around."""
        kids = image.children
        if not kids:
            return ""
        (start, end), breaks = image.srcmap, list[Span]()
        self._flatten(kids, [], breaks, level + 1)
        first, last = kids[0].srcmap[0], kids[-1].srcmap[1]
        if first != start + 2 or not first <= last <= end or self.data[last : last + 2] != b"](":
            raise _Unknown
        if any(not first <= a <= b <= last for a, b in breaks):
            raise _Unknown
        return self._source(first, last, breaks)


def _atx_text(line: bytes) -> str:
    """An ATX heading's text as markdown-it-py reads it: without the opening `#`s, nor a closing
    run of `#`s that follows a space."""
    text = line.strip().lstrip(b"#").rstrip()
    closed = text.rstrip(b"#")
    if closed != text and (not closed or closed[-1:] in (b" ", b"\t")):
        text = closed
    return text.decode("utf-8").strip()


def _skip_blank(data: bytes, start: int, end: int) -> int:
    """The first offset from `start` on that is not white space or a quote mark."""
    while start < end and data[start : start + 1] in (b" ", b"\t", b"\n", b">"):
        start += 1
    return start


def _quote_marks(line: bytes) -> int:
    """How many `>` open a source line (block quotes it continues)."""
    marks, rest = 0, line.lstrip()
    while rest.startswith(b">"):
        marks, rest = marks + 1, rest[1:].lstrip()
    return marks
