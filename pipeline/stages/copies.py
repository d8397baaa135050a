"""Documents that repeat another: another version of a page, or a page copied under another name.
Not cached: found again by each build from the table cells the parse memo keeps (`runner.normalizing`).

A copy must never count as a second voice agreeing with its original. What a document is
compared by is made where it is parsed (`table_cells`), so that a build which takes a
document's parse from its cache need not load the document's statements to find its copies.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence

from pipeline.knowledge.labels import normalize_label
from pipeline.knowledge.names import parse_size
from pipeline.knowledge.registry import Source
from pipeline.records import Diagnostic, Extraction

COPY_SHARE = 0.8
"""Share of the smaller document's table values another document must repeat to be its copy."""
COPY_MIN_VALUES = 5


def table_cells(ex: Extraction) -> bytes:
    """The cells of a document's tables as written (the size a row names, the column's label,
    the text without spaces or thousands separators), each as a 64-bit fingerprint, in one
    string of bytes: a few hundred thousand of them are held while the documents are read, and
    cross processes and the cache, yet they are only ever compared."""
    cells: set[bytes] = set()
    for st in ex.statements:
        if st.method == "table" and st.subject:
            size = parse_size(st.subject)
            item = "\x1f".join(
                (size.key if size else st.subject, normalize_label(st.key), _WRITTEN.sub("", st.raw_text))
            )
            cells.add(hashlib.blake2b(item.encode(), digest_size=CELL).digest())
    return b"".join(sorted(cells))


CELL = 8
"""Bytes of a cell's fingerprint (`table_cells`)."""

_WRITTEN = re.compile(r"[\s,]")


def find_copies(
    extractions: Sequence[Extraction],
    sources: Mapping[str, Source],
    cells: Mapping[str, bytes] | None = None,
) -> tuple[dict[str, str], list[Diagnostic]]:
    """Documents that repeat another of the same tier: another version of the same page (the
    same title in the same folder) or a copy under another name (nearly all of its table
    cells the same, as written). Each group speaks with one voice, the newest version's, so
    that copies never count as agreement; every other member names it in `copy_of`. Pages of
    another format that state the same values are not copies: they are read as two voices.
    `cells` are the documents' `table_cells` (by path) where they were made already."""
    cells = cells or {}
    parent: dict[str, str] = {}

    def find(a: str) -> str:
        while parent.setdefault(a, a) != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    def union(a: str, b: str, reason: str) -> None:
        why.setdefault((a, b), reason)
        why.setdefault((b, a), reason)
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)

    why: dict[tuple[str, str], str] = {}
    by_title: dict[tuple[str, str, str], list[str]] = defaultdict(list)
    counted: dict[str, int] = {}
    holders: dict[tuple[str, bytes], list[str]] = defaultdict(list)
    for ex in extractions:
        path, title = ex.document.path, ex.document.metadata.title
        kind = sources[path].kind
        if ex.subject and title:
            words = " ".join(re.findall(r"[a-z0-9]+", title.casefold()))
            by_title[(kind, path.rsplit("/", 1)[0] if "/" in path else "", words)].append(path)
        mine = cells[path] if path in cells else table_cells(ex)
        counted[path] = len(mine) // CELL
        for at in range(0, len(mine), CELL):
            holders[(kind, mine[at : at + CELL])].append(path)
    for paths in by_title.values():
        for other in paths[1:]:
            union(paths[0], other, "the same title, in the same folder")
    snapshots: dict[str, list[str]] = defaultdict(list)
    for ex in extractions:
        if (catalog := sources[ex.document.path].catalog) is not None:
            snapshots[catalog].append(ex.document.path)
    for catalog, paths in snapshots.items():
        for other in paths[1:]:
            union(paths[0], other, f"another snapshot of the {catalog} catalog")
    shared: Counter[tuple[str, str]] = Counter()
    for docs in holders.values():
        for i, a in enumerate(docs):
            for b in docs[i + 1 :]:
                shared[(min(a, b), max(a, b))] += 1
    for (a, b), n in sorted(shared.items()):
        smaller = min(counted[a], counted[b])
        if n >= COPY_MIN_VALUES and n >= COPY_SHARE * smaller:
            union(a, b, f"{n} of its {smaller} table cells as written")
    groups: dict[str, list[str]] = defaultdict(list)
    for path in parent:
        groups[find(path)].append(path)
    newest = {
        ex.document.path: (
            ex.document.metadata.date or dt.date.min,
            sources[ex.document.path].snapshot or 0,
            ex.document.path,
        )
        for ex in extractions
    }
    copies: dict[str, str] = {}
    diagnostics = []
    for members in groups.values():
        if len(members) < 2:
            continue
        voice = max(members, key=lambda p: newest[p])
        for path in sorted(members):
            if path == voice:
                continue
            copies[path] = voice
            reason = why.get((path, voice)) or next(
                (why[(path, m)] for m in sorted(members) if (path, m) in why), "a chain of such copies"
            )
            diagnostics.append(
                Diagnostic(
                    "info",
                    "duplicate-page",
                    path,
                    None,
                    f"repeats {voice} ({reason}); the two count as one voice, and where they disagree the newer wins",
                )
            )
    return copies, diagnostics
