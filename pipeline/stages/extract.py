"""Stage 2: a `Document` becomes `Statement`s, each with the file line it stands on. Header and key
synonyms are data (`knowledge/headers.toml`); each file's statements are cached in the runner's parse
memo (`runner.documents`).

`pipeline.stages.markdown` gives block tokens with line maps; this module walks them once, keeping
the heading path (the section) and the series the page or heading is about, and turns
tables, `key: value` lines, bullets, DocFX notes and includes into statements. Nothing
here interprets values: that is the normalize stage's job.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from pipeline import knowledge
from pipeline.knowledge.labels import normalize_label
from pipeline.knowledge.names import parse_series, parse_size
from pipeline.records import Diagnostic, Document, Extraction, Include, Statement, compact
from pipeline.stages.catalog import extract_catalog, is_catalog
from pipeline.stages.markdown import MAX_NESTING, REFERENCE, Token, tokenize
from pipeline.stages.read import Limits

# Compiled once, as `normalize`'s are: a pattern given as text is looked up in `re`'s cache
# at every call.
_URL_SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)

_INCLUDE_RE = re.compile(r"\[!INCLUDE\s*\[(?P<name>[^\]]*)\]\((?P<path>[^)]*)\)\s*\]", re.IGNORECASE)
_INCLUDE_PLAIN_RE = re.compile(r"^\[!INCLUDE\b", re.IGNORECASE)
"""An include directive once markdown has reduced its link to text: `[!INCLUDE name]`."""
_NOTE_RE = re.compile(r"^\s*\[!(?P<kind>NOTE|TIP|IMPORTANT|CAUTION|WARNING)\]\s*", re.IGNORECASE)
_URL_KEY_RE = re.compile(r"https?$|\bhttps?://")
"""A `key: value` line whose key ends in a URL's scheme or holds one: a link, not a key."""
_KEY_VALUE_RE = re.compile(r"^\s*(?P<key>[^:\n]{1,80}?)\s*:\s+(?P<value>\S.*?)\s*$")
_BR_RE = re.compile(r"^<br\s*/?>$", re.IGNORECASE)
_SUP_OPEN_RE = re.compile(r"^<sup>$", re.IGNORECASE)
_SUP_CLOSE_RE = re.compile(r"^</sup>$", re.IGNORECASE)
_SPACES = re.compile(r"[ \t\u00a0]+")


@compact
@dataclass(frozen=True, slots=True)
class Cell:
    """A table cell as plain text; `parts` are the pieces between `<br>` tags."""

    text: str
    parts: tuple[str, ...]
    footnotes: tuple[str, ...] = ()
    lines: tuple[tuple[int, str], ...] = ()


_EMPTY = Cell("", ())


def plain_parts(children: Sequence[Token] | None) -> Cell:
    """Inline tokens as plain text: markup stripped, escapes undone, split at `<br>`.

    `<sup>` content is set aside as footnotes so that `vCPU<sup>1</sup>` reads `vCPU`.
    """
    if children and len(children) == 1 and children[0].type in ("text", "code_inline"):
        # Most table cells: one piece of text, which the loop below would give as one part on
        # one line.
        text = _SPACES.sub(" ", children[0].content).strip()
        return Cell(text, (text,), (), ((0, text),)) if text else _EMPTY
    parts: list[str] = []
    notes: list[str] = []
    current: list[str] = []
    lines: list[tuple[int, str]] = []
    line: list[str] = []
    offset = 0
    in_sup = 0

    def end_line() -> None:
        text = _SPACES.sub(" ", "".join(line)).strip()
        if text:
            lines.append((offset, text))
        line.clear()

    for tok in children or ():
        if tok.type == "html_inline":
            tag = tok.content.strip()
            if _BR_RE.match(tag):
                parts.append("".join(current))
                current = []
                end_line()
            elif _SUP_OPEN_RE.match(tag):
                in_sup += 1
                notes.append("")
            elif _SUP_CLOSE_RE.match(tag):
                in_sup = max(0, in_sup - 1)
            continue
        if tok.type in ("text", "code_inline"):
            if in_sup:
                notes[-1] += tok.content
            else:
                current.append(tok.content)
                line.append(tok.content)
        elif tok.type in ("softbreak", "hardbreak"):
            current.append(" ")
            end_line()
            offset += 1
        elif tok.type == "image":
            current.append(tok.content)
            line.append(tok.content)
    parts.append("".join(current))
    end_line()
    cleaned = tuple(_SPACES.sub(" ", p).strip() for p in parts)
    kept = tuple(p for p in cleaned if p)
    return Cell(
        text=" ".join(kept).strip(),
        parts=kept,
        footnotes=tuple(n.strip() for n in notes if n.strip()),
        lines=tuple(lines),
    )


@dataclass
class _Walker:
    """State of one walk over a document's tokens."""

    doc: Document
    know: knowledge.Knowledge
    page_context: str | None
    limits: Limits
    lines: list[str]
    deferred: dict[int, int] = field(default_factory=dict)
    statements: list[Statement] = field(default_factory=list)
    includes: list[Include] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    headings: list[tuple[int, str, str | None]] = field(default_factory=list)
    tables: int = 0
    section: str = field(init=False, default="")
    """The headings above, joined: made when a heading comes, not for each statement (every
    cell of every table is one)."""
    context: str | None = field(init=False, default=None)
    """The series the nearest heading that names one names, else the page's."""

    def __post_init__(self) -> None:
        self.context = self.page_context

    def heading(self, level: int, text: str) -> None:
        while self.headings and self.headings[-1][0] >= level:
            self.headings.pop()
        series = parse_series(text)
        self.headings.append((level, text, series.written if series else None))
        self.section = " > ".join(h[1] for h in self.headings)
        self.context = next((s for _, _, s in reversed(self.headings) if s), self.page_context)

    def add(self, line: int, method: str, key: str, raw: str, parts: tuple[str, ...] = (), **kw: object) -> None:
        self.statements.append(
            Statement(
                document=self.doc.path,
                line=line,
                section=self.section,
                method=method,
                key=key,
                raw_text=raw,
                parts=parts or ((raw,) if raw else ()),
                context=self.context,
                **kw,  # type: ignore[arg-type]
            )
        )


def extract(
    doc: Document, know: knowledge.Knowledge | None = None, limits: Limits | None = None, *, reference: bool = False
) -> Extraction:
    """All statements of one document; never raises on odd markdown. With `reference`, the page
    is tokenized by markdown-it-py even where its faster port is installed."""
    know = know or knowledge.load()
    if is_catalog(doc.path):
        return extract_catalog(doc, know)
    limits = limits or Limits()
    lines = doc.text.split("\n")
    body_lines = [""] * doc.front_matter_lines + lines[doc.front_matter_lines :]
    deferred = _defer_long_tables(body_lines)
    tokens = tokenize("\n".join(body_lines), reference=reference)
    deep = _too_deep(tokens)
    title_series = parse_series(doc.metadata.title) if doc.metadata.title else None
    h1 = next((tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open" and t.tag == "h1"), None)
    h1_series = parse_series(plain_parts(_children_of(tokens, h1)).text) if h1 else None
    page = title_series or h1_series
    w = _Walker(
        doc=doc, know=know, page_context=page.written if page else None, limits=limits, lines=lines, deferred=deferred
    )
    if deep is not None:
        w.diagnostics.append(
            Diagnostic(
                "warning",
                "markdown-too-deep",
                doc.path,
                deep,
                f"block quotes or lists nest deeper than {MAX_NESTING - 1} levels; what lies deeper is not read",
            )
        )
    _walk(w, tokens)
    subject = page.written if page else None
    return Extraction(
        document=doc,
        subject=subject,
        statements=tuple(w.statements),
        includes=tuple(w.includes),
        diagnostics=tuple(w.diagnostics),
    )


def _too_deep(tokens: Sequence[Token]) -> int | None:
    """File line of the first block at markdown-it's nesting limit, where it stops reading."""
    for t in tokens:
        if t.level >= MAX_NESTING - 1 and t.map is not None:
            return t.map[0] + 1
    return None


def _children_of(tokens: Sequence[Token], content: str | None) -> Sequence[Token]:
    for t in tokens:
        if t.type == "inline" and t.content == content:
            return list(t.children or [])
    return []


def _walk(w: _Walker, tokens: Sequence[Token]) -> None:
    i = 0
    quote_depth = 0
    list_depth = 0
    note_kind: list[str | None] = []
    while i < len(tokens):
        tok = tokens[i]
        if tok.type == "heading_open":
            inline = tokens[i + 1]
            w.heading(int(tok.tag[1:]), plain_parts(inline.children).text)
            i += 3
            continue
        if tok.type == "table_open":
            end = _matching_close(tokens, i, "table_open", "table_close")
            _table(w, tokens[i : end + 1])
            i = end + 1
            continue
        if tok.type == "blockquote_open":
            quote_depth += 1
            note_kind.append(None)
        elif tok.type == "blockquote_close":
            quote_depth = max(0, quote_depth - 1)
            if note_kind:
                note_kind.pop()
        elif tok.type in ("bullet_list_open", "ordered_list_open"):
            list_depth += 1
        elif tok.type in ("bullet_list_close", "ordered_list_close"):
            list_depth = max(0, list_depth - 1)
        elif tok.type == "inline" and tok.map is not None:
            first_line = tok.map[0] + 1
            if "|" in tok.content and _recover_table(w, first_line, tok.content.split("\n")):
                i += 1
                continue
            _includes(w, tok, first_line)
            cell = plain_parts(tok.children)
            if quote_depth:
                m = _NOTE_RE.match(cell.text)
                if m and note_kind and note_kind[-1] is None:
                    note_kind[-1] = m.group("kind").upper()
                method = "note"
            else:
                method = "bullet" if list_depth else "paragraph"
            _paragraph(w, cell, first_line, method, note_kind[-1] if note_kind else None)
        i += 1


def _matching_close(tokens: Sequence[Token], start: int, open_type: str, close_type: str) -> int:
    depth = 0
    for j in range(start, len(tokens)):
        if tokens[j].type == open_type:
            depth += 1
        elif tokens[j].type == close_type:
            depth -= 1
            if depth == 0:
                return j
    return len(tokens) - 1


def _includes(w: _Walker, tok: Token, first_line: int) -> None:
    for m in _INCLUDE_RE.finditer(tok.content):
        line = first_line + tok.content[: m.start()].count("\n")
        target = m.group("path").strip()
        resolved, problem = resolve_include(w.doc.path, target)
        if problem:
            w.diagnostics.append(
                Diagnostic(
                    "warning",
                    "include-outside-sources",
                    w.doc.path,
                    line,
                    f"[!INCLUDE] target {target!r} {problem}; not read",
                )
            )
        w.includes.append(Include(document=w.doc.path, line=line, target=target, resolved=resolved, context=w.context))


def resolve_include(document: str, target: str) -> tuple[str | None, str | None]:
    """The sources-relative path an include names, or why it is refused.

    Resolution is purely textual, relative to the including file, so that a target can
    never escape the sources folder by `..`, an absolute path or a URL.
    """
    if not target:
        return None, "is empty"
    if _URL_SCHEME.match(target) or target.startswith(("/", "\\", "~")):
        return None, "is an absolute path or URL outside the sources folder"
    clean = target.split("#", 1)[0].split("?", 1)[0].replace("\\", "/")
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(document), clean))
    if joined == ".." or joined.startswith("../") or joined.startswith("/"):
        return None, "points outside the sources folder"
    return joined, None


def _paragraph(w: _Walker, cell: Cell, first_line: int, method: str, note_kind: str | None) -> None:
    """Each line of a block: a `key: value` statement where it has that shape, and always
    the line itself as running text (notes, bullets, paragraphs) for the phrase rules."""
    for k, (offset, line_text) in enumerate(cell.lines):
        if _INCLUDE_PLAIN_RE.match(line_text):
            continue
        if k == 0 and note_kind:
            line_text = _NOTE_RE.sub("", line_text, count=1)
            if not line_text:
                continue
        m = _KEY_VALUE_RE.match(line_text)
        if m and not _URL_KEY_RE.search(m.group("key")) and len(m.group("key").split()) <= 8:
            value = m.group("value")
            w.add(
                first_line + offset,
                "key_value",
                m.group("key"),
                value,
                parts=tuple(p.strip() for p in value.split(",") if p.strip()),
            )
        w.add(first_line + offset, "note" if method == "note" else method, note_kind or "", line_text)


_DELIMITER_RE = re.compile(r"^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$")
_PIPE_ROW_RE = re.compile(r"^\s*\|?[^|\n]*(?<!\\)\|.*$")
_UNESCAPED_PIPE_RE = re.compile(r"(?<!\\)\|")


def split_row(line: str) -> list[str]:
    """Cells of a pipe-table source line, honouring `\\|` escapes (as GFM does, a pipe inside a
    code span still splits)."""
    s = line.strip()
    if s.startswith("|"):
        s = s[1:]
    if s.endswith("|") and not s.endswith("\\|"):
        s = s[:-1]
    return [c.strip() for c in _UNESCAPED_PIPE_RE.split(s)]


def _cell(text: str) -> Cell:
    tokens = REFERENCE.parseInline(text)
    return plain_parts(tokens[0].children if tokens else None)


def _table(w: _Walker, tokens: Sequence[Token]) -> None:
    """One GFM table as markdown-it read it."""
    header: list[Cell] = []
    rows: list[tuple[int, list[Cell]]] = []
    in_head = False
    row: list[Cell] = []
    row_line = 0
    header_line = (tokens[0].map[0] + 1) if tokens and tokens[0].map else 0
    for tok in tokens:
        if tok.type == "thead_open":
            in_head = True
        elif tok.type == "thead_close":
            in_head = False
        elif tok.type == "tr_open":
            row = []
            row_line = (tok.map[0] + 1) if tok.map else 0
        elif tok.type == "inline":
            row.append(plain_parts(tok.children))
        elif tok.type == "tr_close":
            if in_head:
                header = row
            else:
                rows.append((row_line, row))
    if rows and rows[-1][0] in w.deferred:
        first, last = rows[-1][0] + 1, w.deferred[rows[-1][0]]
        rows.extend((n, [_cell(c) for c in split_row(w.lines[n - 1])[: len(header)]]) for n in range(first, last + 1))
    _check_cell_counts(w, len(header), [line for line, _ in rows])
    _table_rows(w, header, rows, header_line)


_STREAMED_ROWS = 500
"""Tables longer than this are tokenized row by row instead of by markdown-it as one block,
so that a table of 200,000 rows never becomes millions of tokens held at once."""


def _defer_long_tables(body: list[str]) -> dict[int, int]:
    """Blank out the body rows of very long pipe tables, keeping header, delimiter and the
    first row for markdown-it; returns {first row's file line: last row's file line}."""
    deferred: dict[int, int] = {}
    i = 0
    n = len(body)
    while i < n:
        if body[i].lstrip().startswith("|") and i + 1 < n and _DELIMITER_RE.match(body[i + 1]):
            j = i + 2
            while j < n and body[j].strip() and "|" in body[j]:
                j += 1
            if j - (i + 2) > _STREAMED_ROWS:
                deferred[i + 3] = j
                for k in range(i + 3, j):
                    body[k] = ""
            i = j
        else:
            i += 1
    return deferred


def _check_cell_counts(w: _Walker, width: int, lines: list[int]) -> None:
    """markdown-it pads short rows and drops extra cells without a word: say so, per row."""
    source = w.lines
    for line in lines:
        if not 0 < line <= len(source):
            continue
        cells = split_row(source[line - 1])
        if len(cells) > width:
            extra = ", ".join(repr(c) for c in cells[width:] if c) or "empty cells"
            w.diagnostics.append(
                Diagnostic(
                    "warning",
                    "table-row-extra-cells",
                    w.doc.path,
                    line,
                    f"row has {len(cells)} cells where the header has {width}; not read: {extra[:120]}",
                )
            )
        elif len(cells) < width and any(cells):
            w.diagnostics.append(
                Diagnostic(
                    "info",
                    "table-row-missing-cells",
                    w.doc.path,
                    line,
                    f"row has {len(cells)} cells where the header has {width}; the missing ones are read as empty",
                )
            )


def _recover_table(w: _Walker, first_line: int, text_lines: list[str]) -> bool:
    """A pipe table markdown-it read as a paragraph because its delimiter row does not match
    the header: report it and read the rows anyway, so no data is lost."""
    if len(text_lines) < 2 or not _DELIMITER_RE.match(text_lines[1]) or "|" not in text_lines[0]:
        return False
    header = [_cell(c) for c in split_row(text_lines[0])]
    delim = split_row(text_lines[1])
    w.diagnostics.append(
        Diagnostic(
            "warning",
            "table-malformed",
            w.doc.path,
            first_line,
            f"table delimiter row has {len(delim)} cells where the header has {len(header)}, so markdown does not read "
            "it as a table; its rows were recovered from the source lines",
        )
    )
    lines = [first_line + 2 + k for k in range(len(text_lines) - 2)]
    rows = []
    for line, raw in zip(lines, text_lines[2:], strict=True):
        cells = split_row(raw)
        rows.append((line, [_cell(c) for c in cells[: len(header)]]))
    _check_cell_counts(w, len(header), lines)
    _table_rows(w, header, rows, first_line)
    return True


def _table_rows(w: _Walker, header: list[Cell], rows: list[tuple[int, list[Cell]]], header_line: int) -> None:
    """Rows of a size table, a Part | Quantity | Specs table or a feature table as statements.

    A table with a column naming other sizes (`Target VM Size`) compares sizes: its other
    columns describe those sizes, so only each row's own size name is taken, as a `mention`.
    A size table column that no header rule maps is reported, never passed over in silence."""
    w.tables += 1
    index = w.tables
    limit = w.limits.max_table_rows
    if len(rows) > limit:
        w.diagnostics.append(
            Diagnostic(
                "warning",
                "table-too-large",
                w.doc.path,
                rows[limit][0],
                f"table {index} has {len(rows):,} rows, over the limit of {limit:,}; rows from here on are not read",
            )
        )
        rows = rows[:limit]
    labels = [c.parts[0] if c.parts else "" for c in header]
    norm = [normalize_label(lbl) for lbl in labels]
    know = w.know
    table_line = rows[0][0] - 2 if rows else 0
    if len(norm) >= 3 and know.part_table["part"].search(norm[0]) and know.part_table["quantity"].search(norm[1]):
        _part_rows(w, index, labels, rows)
        return
    if len(norm) == 2 and know.feature_table["key"].search(norm[0]) and know.feature_table["value"].search(norm[1]):
        _feature_rows(w, index, labels, rows)
        return
    rules = [know.column_rule(n) for n in norm]
    subject_col = next((k for k, rule in enumerate(rules) if rule and rule.role == "subject"), None)
    if subject_col is None:
        w.diagnostics.append(
            Diagnostic(
                "info",
                "table-not-recognised",
                w.doc.path,
                max(table_line, 1),
                f"table {index} has no size column (headers: {', '.join(labels)[:120]}); skipped",
            )
        )
        return
    if any(rule and rule.role == "target" for rule in rules):
        _mention_rows(w, index, header[subject_col], labels[subject_col], subject_col, rows)
        return
    for k, rule in enumerate(rules):
        if rule is None and labels[k].strip():
            w.diagnostics.append(
                Diagnostic(
                    "warning",
                    "unknown_header",
                    w.doc.path,
                    max(header_line, 1),
                    f"table {index} column {header[k].text or labels[k]!r} names no known attribute, so its "
                    "values are not read; add a synonym to headers.toml",
                )
            )
    _size_rows(w, index, header, labels, subject_col, rows)


def _part_rows(w: _Walker, index: int, labels: list[str], rows: list[tuple[int, list[Cell]]]) -> None:
    """A Part | Quantity | Specs table: each cell after the part's name, under its column."""
    for r, (line, cells) in enumerate(rows, start=1):
        if not cells or not cells[0].text:
            continue
        for c in range(1, min(len(cells), len(labels))):
            if cells[c].text:
                w.add(
                    line,
                    "part_table",
                    cells[0].text,
                    cells[c].text,
                    cells[c].parts,
                    table_index=index,
                    row_index=r,
                    column=labels[c],
                )


def _feature_rows(w: _Walker, index: int, labels: list[str], rows: list[tuple[int, list[Cell]]]) -> None:
    """A two-column feature table: each row a key and its value."""
    for r, (line, cells) in enumerate(rows, start=1):
        if len(cells) >= 2 and cells[0].text and cells[1].text:
            w.add(
                line,
                "feature_table",
                cells[0].text,
                cells[1].text,
                cells[1].parts,
                table_index=index,
                row_index=r,
                column=labels[1],
            )


def _mention_rows(
    w: _Walker, index: int, head: Cell, label: str, subject_col: int, rows: list[tuple[int, list[Cell]]]
) -> None:
    """A table comparing sizes: only each row's own size name, as a `mention`."""
    for r, (line, cells) in enumerate(rows, start=1):
        if subject_col < len(cells) and cells[subject_col].text:
            cell = cells[subject_col]
            w.add(
                line,
                "mention",
                label,
                cell.text,
                cell.parts,
                subject=cell.text,
                table_index=index,
                row_index=r,
                column=head.text,
            )


def _size_rows(
    w: _Walker, index: int, header: list[Cell], labels: list[str], subject_col: int, rows: list[tuple[int, list[Cell]]]
) -> None:
    """A size table: each cell of a row about the size its subject column names, with the name as
    the source line writes it; a size listed twice with other values is reported."""
    seen: dict[str, tuple[int, tuple[str, ...]]] = {}
    for r, (line, cells) in enumerate(rows, start=1):
        if subject_col >= len(cells) or not cells[subject_col].text:
            continue
        subject = cells[subject_col].text
        source = split_row(w.lines[line - 1]) if 0 < line <= len(w.lines) else []
        as_written = source[subject_col] if subject_col < len(source) and source[subject_col] else subject
        values = tuple(c.text for k, c in enumerate(cells) if k != subject_col)
        name = parse_size(subject)
        key = name.key if name else subject.casefold()
        if key in seen and seen[key][1] != values:
            w.diagnostics.append(
                Diagnostic(
                    "warning",
                    "table-duplicate-size",
                    w.doc.path,
                    line,
                    f"{subject} appears twice in table {index} (lines {seen[key][0]} and {line}) "
                    "with different values; both are kept",
                )
            )
        seen.setdefault(key, (line, values))
        for c, cell in enumerate(cells):
            if c == subject_col or c >= len(labels) or not cell.text:
                continue
            w.add(
                line,
                "table",
                labels[c],
                cell.text,
                cell.parts,
                subject=subject,
                subject_as_written=as_written,
                table_index=index,
                row_index=r,
                column=header[c].text,
            )
