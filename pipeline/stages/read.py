"""Stage 1: files under the sources folder become `Document`s. Its rules are here; each file's result is
cached with its extraction, in the runner's parse memo (`runner.documents`).

Reading never raises on bad input: undecodable bytes, broken front-matter and mojibake
become diagnostics, and the document is kept whenever any of it can be used.
"""

from __future__ import annotations

import codecs
import datetime as dt
import hashlib
import os
import re
from dataclasses import dataclass
from operator import itemgetter
from pathlib import Path, PurePosixPath
from typing import Any

import ftfy
import yaml

from pipeline.records import Diagnostic, Document, Metadata

SUFFIXES = (".md", ".txt", ".csv", ".json")
"""Markdown and text pages, and machine-made catalogs (see `pipeline.stages.catalog`)."""


@dataclass(frozen=True, slots=True)
class Limits:
    """Size limits; exceeding one is a diagnostic, not a crash."""

    max_file_bytes: int = 20_000_000
    max_front_matter_nodes: int = 10_000
    max_table_rows: int = 100_000


def discover(root: Path) -> tuple[list[Path], list[Diagnostic]]:
    """Every document file under `root`, sorted by relative path so order on disk never matters.

    Symbolic links that lead outside `root` are reported and skipped: nothing outside
    the sources folder is ever read.
    """
    found, diagnostics = listing(root)
    return [path for _, path in found], diagnostics


def listing(root: Path) -> tuple[list[tuple[str, Path]], list[Diagnostic]]:
    """`discover`'s files, each with its path relative to `root`, made once per folder from
    the walk's names: pathlib's parsing, `relpath` and `resolve` for every file were most of
    surveying 10,000 documents (0.4 s)."""
    root = root.resolve()
    found: list[tuple[str, Path]] = []
    diagnostics: list[Diagnostic] = []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        folder = _rel(Path(dirpath), root)
        prefix = "" if folder == "." else folder + "/"
        for name in list(dirnames):
            target = os.path.join(dirpath, name)
            if os.path.islink(target) and not _inside(Path(target).resolve(), root):
                diagnostics.append(
                    Diagnostic(
                        "warning",
                        "link-outside-sources",
                        prefix + name,
                        None,
                        "symbolic link to a folder outside the sources folder; not followed",
                    )
                )
                dirnames.remove(name)
        dirnames.sort()
        for name in sorted(filenames):
            if not name.lower().endswith(SUFFIXES):
                continue
            path = os.path.join(dirpath, name)
            if os.path.islink(path) and not _inside(Path(path).resolve(), root):
                diagnostics.append(
                    Diagnostic(
                        "warning",
                        "link-outside-sources",
                        prefix + name,
                        None,
                        "symbolic link to a file outside the sources folder; not read",
                    )
                )
                continue
            found.append((prefix + name, Path(path)))
    found.sort(key=itemgetter(0))
    return found, diagnostics


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def _rel(path: Path, root: Path) -> str:
    return PurePosixPath(os.path.relpath(path, root)).as_posix()


def read_document(path: Path, root: Path, limits: Limits = Limits()) -> tuple[Document | None, list[Diagnostic]]:
    """Decode, repair and split one file; None when nothing in it can be used."""
    rel, data, diagnostics = load_bytes(path, root, limits)
    if data is None:
        return None, diagnostics
    return parse_bytes(rel, data, limits, diagnostics)


def load_bytes(
    path: Path, root: Path, limits: Limits = Limits(), rel: str | None = None
) -> tuple[str, bytes | None, list[Diagnostic]]:
    """A file's path relative to `root` (`rel`, when the caller knows it: see `listing`) and
    its bytes, or None and why not (too large, unreadable)."""
    rel = _rel(path, root.resolve()) if rel is None else rel
    try:
        with open(path, "rb") as file:
            size = os.fstat(file.fileno()).st_size
            if size > limits.max_file_bytes:
                return (
                    rel,
                    None,
                    [
                        Diagnostic(
                            "error",
                            "file-too-large",
                            rel,
                            None,
                            f"file is {size:,} bytes, over the limit of {limits.max_file_bytes:,}; not read",
                        )
                    ],
                )
            return rel, file.read(), []
    except OSError as exc:
        return rel, None, [Diagnostic("error", "unreadable", rel, None, f"cannot read file: {exc.strerror or exc}")]


def parse_bytes(
    rel: str, data: bytes, limits: Limits = Limits(), diagnostics: list[Diagnostic] | None = None
) -> tuple[Document | None, list[Diagnostic]]:
    """The part of reading that needs no file system, so tests can feed bytes directly."""
    diags = diagnostics if diagnostics is not None else []
    digest = hashlib.sha256(data).hexdigest()
    text, encoding = decode(rel, data, diags)
    if text is None:
        return None, diags
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = repair_mojibake(rel, text, diags)
    fm_lines, raw_meta, has_fm = split_front_matter(rel, text, limits, diags)
    metadata = to_metadata(rel, raw_meta, diags)
    if not text.strip():
        diags.append(Diagnostic("warning", "empty-document", rel, None, "document is empty"))
    elif not "\n".join(text.split("\n")[fm_lines:]).strip():
        diags.append(Diagnostic("info", "front-matter-only", rel, None, "document has front-matter and no body"))
    return Document(
        path=rel,
        sha256=digest,
        encoding=encoding,
        text=text,
        front_matter_lines=fm_lines,
        metadata=metadata,
        has_front_matter=has_fm,
    ), diags


def decode(rel: str, data: bytes, diags: list[Diagnostic]) -> tuple[str | None, str]:
    """UTF-8 (BOM or not) silently; UTF-16 by its BOM; anything else best-effort, reported."""
    encoding = "utf-8"
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8) :]
        encoding = "utf-8-sig"
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        diags.append(Diagnostic("info", "encoding-utf16", rel, 1, "file is UTF-16; decoded by its byte-order mark"))
        return data.decode("utf-16", errors="replace"), "utf-16"
    if b"\x00" in data:
        line = data[: data.index(b"\x00")].count(b"\n") + 1
        diags.append(
            Diagnostic("error", "binary-file", rel, line, "file contains NUL bytes; it is not text and was skipped")
        )
        return None, "binary"
    try:
        return data.decode("utf-8"), encoding
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        text = data.decode("cp1252", errors="replace")
        diags.append(
            Diagnostic(
                "warning",
                "encoding-not-utf8",
                rel,
                line,
                f"byte 0x{data[exc.start]:02x} is not UTF-8; the file was decoded as Windows-1252",
            )
        )
        return text, "cp1252"


_FTFY = ftfy.TextFixerConfig(
    uncurl_quotes=False, fix_line_breaks=False, normalization=None, fix_character_width=False, explain=False
)

# A UTF-8 multi-byte sequence that was decoded as Windows-1252: a lead byte (Â..ô) and its
# continuation bytes, which in Windows-1252 are the 0x80..0xBF characters.
_CONT = (
    "\u0080-\u00bf\u20ac\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u017d"
    "\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u017e\u0178"
)
_MOJIBAKE_RE = re.compile(f"[\u00c2\u00c3][{_CONT}]|\u00e2[{_CONT}]{{2}}")
"""Only the lead bytes that real mojibake is made of (Â, Ã for Latin-1 letters and signs, â for
punctuation and symbols such as ™): a wider net corrupts real text like `“café…”`."""


def _undo_cp1252(match: re.Match[str]) -> str:
    chunk = match.group(0)
    try:
        fixed = chunk.encode("sloppy-windows-1252").decode("utf-8")
    except UnicodeError:
        return chunk
    return fixed if len(fixed) == 1 else chunk


def repair_mojibake(rel: str, text: str, diags: list[Diagnostic]) -> str:
    """Repair UTF-8 read as Windows-1252, line by line, reporting each repaired line.

    ftfy does most of the work; sequences its caution leaves alone (`Epycâ„¢`) are undone
    only when they are a complete, valid UTF-8 sequence of one character.
    """
    import ftfy.bad_codecs

    lines = text.split("\n")
    for i, line in enumerate(lines):
        if line.isascii():
            continue
        fixed = ftfy.fix_text(line, _FTFY)
        fixed = _MOJIBAKE_RE.sub(_undo_cp1252, fixed)
        if fixed != line:
            lines[i] = fixed
            before, after = _changed_span(line, fixed)
            diags.append(
                Diagnostic("info", "mojibake-repaired", rel, i + 1, f"repaired text encoding: {before!r} -> {after!r}")
            )
    return "\n".join(lines)


def _changed_span(a: str, b: str) -> tuple[str, str]:
    start = 0
    while start < min(len(a), len(b)) and a[start] == b[start]:
        start += 1
    end = 0
    while end < min(len(a), len(b)) - start and a[-1 - end] == b[-1 - end]:
        end += 1
    lo = max(0, start - 8)
    return a[lo : len(a) - end + 4], b[lo : len(b) - end + 4]


_SafeLoader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""libyaml's parser where PyYAML was built with it (several times faster); the same safe
constructors either way, so duplicate keys and alias bombs are caught alike."""


class _UniqueKeyLoader(_SafeLoader):  # type: ignore[valid-type,misc]
    """Safe YAML that reports duplicate keys and refuses to expand alias bombs."""

    duplicates: list[tuple[str, int]]
    node_budget: int


def _construct_mapping(
    loader: _UniqueKeyLoader | _ReferenceLoader, node: yaml.MappingNode, deep: bool = False
) -> dict[Any, Any]:
    seen: set[Any] = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if isinstance(key, str) and key in seen:
            loader.duplicates.append((key, key_node.start_mark.line))
        seen.add(key)
    mapping: dict[Any, Any] = loader.construct_mapping(node, deep=deep)
    return mapping


_UniqueKeyLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


class _ReferenceLoader(yaml.SafeLoader):
    """The pure-Python parser, whose error positions are the ones reported; otherwise as
    `_UniqueKeyLoader`."""

    duplicates: list[tuple[str, int]]
    node_budget: int


_ReferenceLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def _count_nodes(node: yaml.Node, budget: int) -> int:
    """Nodes the document expands to, counting each alias use again; stops past `budget`."""
    count = 0
    stack: list[yaml.Node] = [node]
    while stack:
        n = stack.pop()
        count += 1
        if count > budget:
            return count
        if isinstance(n, yaml.SequenceNode):
            stack.extend(n.value)
        elif isinstance(n, yaml.MappingNode):
            for k, v in n.value:
                stack.extend((k, v))
    return count


_TOO_LARGE = object()


def _load(
    block: str,
    rel: str,
    limits: Limits,
    diags: list[Diagnostic],
    kind: type[_UniqueKeyLoader] | type[_ReferenceLoader],
) -> tuple[Any, list[tuple[str, int]]]:
    """The block's value and its duplicate keys (`_TOO_LARGE`, said in `diags`, for an alias bomb)."""
    loader = kind(block)
    loader.duplicates = []
    try:
        node = loader.get_single_node()
        if node is not None and _count_nodes(node, limits.max_front_matter_nodes) > limits.max_front_matter_nodes:
            diags.append(
                Diagnostic(
                    "error",
                    "front-matter-too-large",
                    rel,
                    1,
                    f"front-matter expands to more than {limits.max_front_matter_nodes:,} "
                    "YAML nodes (alias bomb?); ignored",
                )
            )
            return _TOO_LARGE, []
        return (loader.construct_document(node) if node is not None else None), loader.duplicates
    finally:
        loader.dispose()


def split_front_matter(
    rel: str, text: str, limits: Limits, diags: list[Diagnostic]
) -> tuple[int, dict[str, Any], bool]:
    """Number of lines the front-matter takes and its mapping (safe YAML only)."""
    lines = text.split("\n")
    if not lines or lines[0].rstrip() != "---":
        return 0, {}, False
    close = next((i for i in range(1, len(lines)) if lines[i].rstrip() in ("---", "...")), None)
    if close is None:
        diags.append(
            Diagnostic(
                "error",
                "front-matter-unclosed",
                rel,
                1,
                "front-matter opened with '---' is never closed; the file is read as markdown",
            )
        )
        return 0, {}, False
    block = "\n".join(lines[1:close])
    try:
        value, duplicates = _load(block, rel, limits, diags, _UniqueKeyLoader)
    except yaml.YAMLError:
        # libyaml and the pure-Python parser place some errors on different lines; the message
        # of record is the reference parser's, which only an invalid block pays for.
        try:
            value, duplicates = _load(block, rel, limits, diags, _ReferenceLoader)
        except yaml.MarkedYAMLError as exc:
            mark = exc.problem_mark or exc.context_mark
            line = mark.line + 2 if mark is not None else 1
            problem = exc.problem or str(exc)
            if exc.problem and "could not determine a constructor" in exc.problem:
                problem = f"YAML tag not allowed in safe loading ({exc.problem.split('tag')[-1].strip()})"
            diags.append(
                Diagnostic("error", "front-matter-invalid", rel, line, f"front-matter is not valid YAML: {problem}")
            )
            return close + 1, {}, True
        except yaml.YAMLError as exc:
            diags.append(Diagnostic("error", "front-matter-invalid", rel, 1, f"front-matter is not valid YAML: {exc}"))
            return close + 1, {}, True
    if value is _TOO_LARGE:
        return close + 1, {}, True
    for key, line in duplicates:
        diags.append(
            Diagnostic(
                "warning",
                "front-matter-duplicate-key",
                rel,
                line + 2,
                f"front-matter key {key!r} appears more than once; the last value is used",
            )
        )
    if value is None:
        return close + 1, {}, True
    if not isinstance(value, dict):
        diags.append(
            Diagnostic(
                "error",
                "front-matter-not-mapping",
                rel,
                2,
                f"front-matter is a {type(value).__name__}, not a mapping of keys; ignored",
            )
        )
        return close + 1, {}, True
    return close + 1, {str(k): v for k, v in value.items()}, True


_DATE_FORMATS = ("%m/%d/%Y", "%Y-%m-%d", "%Y/%m/%d", "%d %B %Y", "%B %d, %Y")


def parse_date(value: Any) -> dt.date | None:
    """A front-matter date in any of the forms Microsoft Learn and blogs use."""
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    if not isinstance(value, str):
        return None
    s = value.strip()
    m = re.match(r"^(\d{4}-\d{2}-\d{2})[T ]", s)
    if m:
        s = m.group(1)
    for fmt in _DATE_FORMATS:
        try:
            return dt.datetime.strptime(s, fmt).date()
        except ValueError:
            continue
    return None


def _text(value: Any) -> str | None:
    if value is None or isinstance(value, (dict, list)):
        return None
    s = str(value).strip()
    return s or None


def to_metadata(rel: str, raw: dict[str, Any], diags: list[Diagnostic]) -> Metadata:
    """Pick the fields analysts need out of whatever keys a page's front-matter uses."""
    date_field = next((k for k in ("ms.date", "date", "updated", "published") if k in raw), None)
    date = parse_date(raw[date_field]) if date_field else None
    if date_field and date is None:
        diags.append(
            Diagnostic("warning", "bad-date", rel, None, f"front-matter {date_field} {raw[date_field]!r} is not a date")
        )
    tags_raw = raw.get("tags", ())
    if isinstance(tags_raw, str):
        tags = tuple(t.strip() for t in tags_raw.split(",") if t.strip())
    elif isinstance(tags_raw, list):
        tags = tuple(str(t) for t in tags_raw if isinstance(t, (str, int, float)))
    else:
        tags = ()
    return Metadata(
        title=_text(raw.get("title")),
        author=_text(raw.get("author")) or _text(raw.get("ms.author")),
        date=date,
        date_field=date_field,
        service=_text(raw.get("ms.service")) or _text(raw.get("service")) or _text(raw.get("feed_name")),
        canonical_url=_text(raw.get("canonical_url")) or _text(raw.get("canonical")) or _text(raw.get("url")),
        tags=tags,
        keys=tuple(sorted(raw)),
    )
