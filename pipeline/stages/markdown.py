"""The Markdown tokens the extract stage walks.

markdown-it-py is the reference. Where its Rust port, markdown-it-pyrs, is installed, a page
is tokenized by the port about ten times faster, and `tokenize` rebuilds from the port's tree
the markdown-it-py tokens that extract reads. Those are headings, tables, block quotes and
lists, and each block's inline children as plain-text pieces. They must give the same
statements; tests/test_markdown.py holds that on every page of sources/ and of a generated
corpus.

The port gives a tree with byte offsets, where markdown-it-py gives flat tokens with line
maps. Three things are not rebuilt, so such pages are tokenized by markdown-it-py:
- a page whose blocks or inlines nest deeper than `PORT_DEPTH` (markdown-it-py's nesting
  limit decides what is read of it);
- a node the rebuild does not know;
- a page with a character the port counts otherwise than Python's UTF-8 codec does (an
  unpaired surrogate);
- markdown the two parse differently, found by comparing them on generated pages: a block
  quote with lazy continuation lines, a table header row without a pipe, `<!` before a
  letter, `*` beside `_`, a double backtick on a page with a `[` (the port reads code
  spans after an open bracket otherwise);
- a page the port fails on (it panics on some input).
"""

from __future__ import annotations

import os
import re
import sys
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


def _quietly(call: Callable[[str], Any], text: str) -> Any:
    """`call(text)` with file descriptor 2 pointed at the null device: the port panics on some
    input (`[` then a backtick, in 0.4.0), and Rust prints a panic to stderr before Python
    sees an exception. The page is then read by markdown-it-py, so the message would only
    be noise in the build's output."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        os.dup2(_NULL, 2)
        return call(text)
    finally:
        os.dup2(saved, 2)
        os.close(saved)


_NULL = os.open(os.devnull, os.O_WRONLY)


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


_DIFFERS = re.compile(rb"<![A-Za-z]|\*_|_\*")
"""Where the two parse a page differently (found by comparing them on generated pages): `<!`
and a letter (markdown-it-py reads an HTML declaration, the port text in some places), and
`*` beside `_` (emphasis delimiters mixed)."""


class _Unknown(Exception):
    """The tree holds what the rebuild does not model: markdown-it-py tokenizes the page."""


_TAGS = {"blockquote": "blockquote", "bullet_list": "ul", "ordered_list": "ol", "list_item": "li"}
"""The containers extract reads, with markdown-it-py's HTML tags."""
_SKIPPED = frozenset({"code_block", "fence", "html_block", "hr", "definition"})
"""Blocks with no inline content: extract reads nothing of them."""
_WRAPPERS = frozenset({"em", "strong", "strikethrough", "link"})
"""Inline nodes whose markup extract drops: their children are read in their place."""
_BREAKS = frozenset({"softbreak", "hardbreak"})


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
        data = self.data
        if (not data and self.text) or _DIFFERS.search(data) or (b"``" in data and b"[" in data):
            return None
        try:
            tree = _quietly(PORT.tree, self.text)
            for node in tree.children:
                self._block(node, 0)
        except (_Unknown, UnicodeDecodeError):  # an offset inside a character: the port miscounted
            return None
        except BaseException as exc:  # a Rust panic is a BaseException
            if type(exc).__name__ != "PanicException":
                raise
            return None
        return self.out

    def _line(self, offset: int) -> int:
        return bisect_right(self.starts, offset) - 1

    def _map(self, span: tuple[int, int]) -> tuple[int, int]:
        start, end = span
        first = self._line(start)
        return first, max(first + 1, self._line(end - 1) + 1 if end > start else first + 1)

    def _source_line(self, line: int) -> bytes:
        stop = self.starts[line + 1] if line + 1 < len(self.starts) else len(self.data)
        return self.data[self.starts[line] : stop]

    def _lazy(self, span: tuple[int, int]) -> bool:
        """Whether a block quote has a line without its `>`, or its last line has text and the
        next line is not blank: the two parsers read such lazy continuation lines differently."""
        first, last = self._line(span[0]), self._line(max(span[1] - 1, span[0]))
        if any(not self._source_line(k).lstrip().startswith(b">") for k in range(first + 1, last + 1)):
            return True
        open_paragraph = bool(self._source_line(last).lstrip(b" \t>").strip())
        return open_paragraph and last + 1 < len(self.starts) and bool(self._source_line(last + 1).strip())

    def _slice(self, start: int, end: int) -> str:
        if self.ascii:
            return self.text[start:end]
        return self.data[start:end].decode("utf-8")

    def _block(self, node: Any, level: int) -> None:
        if level >= PORT_DEPTH:
            raise _Unknown
        name, out = node.name, self.out
        if name == "paragraph":
            out.append(self._inline(node.children, self._map(node.srcmap), level + 1))
        elif name in ("heading", "lheading"):
            tag = f"h{node.meta['level']}"
            span = self._map(node.srcmap)
            out.append(Tok("heading_open", level, span, tag=tag))
            out.append(self._inline(node.children, span, level + 1))
            out.append(Tok("heading_close", level, tag=tag))
        elif name in _TAGS and name != "list_item":
            if name == "blockquote" and self._lazy(node.srcmap):
                raise _Unknown
            tag = _TAGS[name]
            out.append(Tok(f"{name}_open", level, self._map(node.srcmap), tag=tag))
            for child in node.children:
                self._block(child, level + 1)
            out.append(Tok(f"{name}_close", level, tag=tag))
        elif name == "list_item":
            self._list_item(node, level)
        elif name == "table":
            self._table(node, level)
        elif name not in _SKIPPED:
            raise _Unknown

    def _list_item(self, node: Any, level: int) -> None:
        """A tight item holds its inline nodes directly; markdown-it-py gives them a hidden
        paragraph, which is one inline token per run of them."""
        self.out.append(Tok("list_item_open", level, self._map(node.srcmap), tag="li"))
        run: list[Any] = []
        for child in node.children:
            if _is_block(child.name):
                if run:
                    self.out.append(self._inline(run, self._map(_span(run)), level + 2))
                    run = []
                self._block(child, level + 1)
            else:
                run.append(child)
        if run:
            self.out.append(self._inline(run, self._map(_span(run)), level + 2))
        self.out.append(Tok("list_item_close", level, tag="li"))

    def _table(self, node: Any, level: int) -> None:
        out, span = self.out, self._map(node.srcmap)
        if b"|" not in self._source_line(span[0]):
            raise _Unknown  # a header row without a pipe: markdown-it-py reads no table there
        out.append(Tok("table_open", level, span, tag="table"))
        for section in node.children:
            if section.name not in ("thead", "tbody"):
                raise _Unknown
            out.append(Tok(f"{section.name}_open", level + 1, self._map(section.srcmap), tag=section.name))
            for row in section.children:
                span = self._map(row.srcmap)
                out.append(Tok("tr_open", level + 2, span, tag="tr"))
                for cell in row.children:
                    out.append(self._inline(cell.children, span, level + 4))
                out.append(Tok("tr_close", level + 2, tag="tr"))
            out.append(Tok(f"{section.name}_close", level + 1, tag=section.name))
        out.append(Tok("table_close", level, tag="table"))

    def _inline(self, nodes: Sequence[Any], span: tuple[int, int], level: int) -> Tok:
        """One block's inline token: its children flattened as extract reads them, and its
        content as the source between its first and last node, each line break one `\\n`."""
        children: list[Tok] = []
        breaks: list[tuple[int, int]] = []
        self._flatten(nodes, children, breaks, level)
        content = ""
        if nodes:
            start, end = nodes[0].srcmap[0], nodes[-1].srcmap[1]
            pieces, at = [], start
            for a, b in breaks:
                pieces.append(self._slice(at, a))
                at = b
            pieces.append(self._slice(at, end))
            content = "\n".join(pieces)
        return Tok("inline", level, span, content=content, children=children)

    def _flatten(self, nodes: Sequence[Any], into: list[Tok], breaks: list[tuple[int, int]], level: int) -> None:
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
                # markdown-it-py keeps the alt text's source, markup and all.
                kids = node.children
                alt = self._slice(kids[0].srcmap[0], kids[-1].srcmap[1]) if kids else ""
                into.append(Tok("image", level, content=alt))
            elif name == "autolink":
                start, end = node.srcmap
                into.append(Tok("text", level, content=REFERENCE.normalizeLinkText(self._slice(start + 1, end - 1))))
            else:
                raise _Unknown


_INLINE = frozenset(
    {"text", "text_special", "softbreak", "hardbreak", "html_inline", "code_inline", "image", "autolink"}
)


def _is_block(name: str) -> bool:
    return name not in _INLINE and name not in _WRAPPERS


def _span(nodes: Sequence[Any]) -> tuple[int, int]:
    return nodes[0].srcmap[0], nodes[-1].srcmap[1]
