"""`drift(old, new)`: what changed between two builds, value by value.

Reads only what the write stage wrote. Tables are compared by content (pyarrow tables,
not file bytes: Parquet bytes carry library versions), and the differences are reported
the way a maintainer thinks about them: documents, sizes, the names that stand for other
sizes, series, facts, conflicts, diagnostics and the schema itself. A name that was a row of
vm_sizes and is now a row of `names` (or the other way round) is said once, as a move.

When a document's upstream commit moved between the two builds (a sync took a newer version
of the page), every change that document is behind names the move, `old -> new` in short
commits, so a reviewer can open the upstream commit that made the value drift.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from pipeline.knowledge.names import parse_size
from pipeline.knowledge.values import with_unit
from pipeline.outputs.schema import tables
from pipeline.outputs.text import cell
from pipeline.sync import short

SECTIONS = (
    "schema",
    "documents",
    "sizes",
    "names",
    "series",
    "facts",
    "claims",
    "conflicts",
    "errata",
    "diagnostics",
    "tables",
)
CONFIDENCE_STEP = 0.0005


@dataclass(frozen=True, slots=True)
class Change:
    """One difference: `kind` is added, removed, changed, renamed (a line names its size another
    way) or moved (a name between vm_sizes and names); `where` is file:line when known."""

    section: str
    kind: str
    key: str
    old: str | None = None
    new: str | None = None
    where: str | None = None
    detail: str | None = None
    commit: str | None = None
    """`old -> new` (short commits) of the upstream document(s) behind the change, when they moved."""


@dataclass(frozen=True, slots=True)
class DriftReport:
    changes: tuple[Change, ...]
    old: str
    new: str

    @property
    def differs(self) -> bool:
        return bool(self.changes)

    def by_section(self) -> dict[str, list[Change]]:
        out: dict[str, list[Change]] = {s: [] for s in SECTIONS}
        for c in self.changes:
            out[c.section].append(c)
        return {k: v for k, v in out.items() if v}


def _read(folder: Path, name: str) -> pa.Table | None:
    path = folder / f"{name}.parquet"
    if not path.exists():
        return None
    return pq.read_table(path)


def _frame(table: pa.Table | None, name: str) -> pd.DataFrame:
    if table is None:
        return pd.DataFrame(columns=[c.name for c in tables()[name]])
    df: pd.DataFrame = table.to_pandas()
    return df


def _s(value: Any) -> str | None:
    if value is None or (not isinstance(value, (list, tuple)) and pd.isna(value)):
        return None
    return str(value)


def drift(old: Path, new: Path) -> DriftReport:
    """Every difference between the output folders `old` and `new`."""
    changes: list[Change] = []
    raw = {name: (_read(old, name), _read(new, name)) for name in tables()}
    changes.extend(_schema(raw))
    frames = {name: (_frame(a, name), _frame(b, name)) for name, (a, b) in raw.items()}
    moved = _moved(*frames["documents"])
    changes.extend(_documents(*frames["documents"], moved))
    renames, renamed_sizes, renamed_claims = _renames(*frames["claims"], frames["names"][1])
    changes.extend(renames)
    names, moved_names = _names(*frames["names"], *frames["vm_sizes"])
    changes.extend(names)
    changes.extend(
        c
        for c in _entities(*frames["facts"])
        if not (c.section == "sizes" and (c.key in renamed_sizes or c.key in moved_names))
    )
    changes.extend(c for c in _facts(*frames["facts"]) if c.key.split(" ")[0] not in renamed_sizes)
    changes.extend(c for c in _claims(*frames["claims"]) if (c.where, c.key.split(" ")[0]) not in renamed_claims)
    changes.extend(_conflicts(*frames["conflicts"]))
    changes.extend(_errata(*frames["errata"], frames["documents"][1]))
    changes.extend(_diagnostics(*frames["diagnostics"]))
    explained = {c.section for c in changes}
    if renames:  # a name written another way changes claims' names and the ids of their facts' claims
        explained |= {"claims", "facts"}
    for name, (a, b) in raw.items():
        same = a is not None and b is not None and _content(a, name).equals(_content(b, name), check_metadata=False)
        if not same and name not in explained and not (name == "vm_sizes" and {"facts", "sizes", "names"} & explained):
            rows_a = 0 if a is None else a.num_rows
            rows_b = 0 if b is None else b.num_rows
            changes.append(
                Change("tables", "changed", name, f"{rows_a} rows", f"{rows_b} rows", detail="content differs")
            )
    return DriftReport(tuple(_naming_commits(c, moved) for c in changes), str(old), str(new))


DERIVED = {"conflicts": ("links",)}
"""Columns made from other tables' columns: the permalinks to lines come from the documents'
permalinks, whose moves the documents section reports."""


def _content(table: pa.Table, name: str) -> pa.Table:
    return table.drop_columns([c for c in DERIVED.get(name, ()) if c in table.column_names])


def _moved(a: pd.DataFrame, b: pd.DataFrame) -> dict[str, str]:
    """Documents whose upstream commit differs between the two builds: `old -> new`, short."""

    def commits(df: pd.DataFrame) -> dict[str, str | None]:
        if df.empty or "commit" not in df.columns:
            return {}
        return {str(d): _s(c) for d, c in zip(df["document"], df["commit"], strict=True)}

    old, new = commits(a), commits(b)
    return {
        doc: f"{short(old.get(doc))} -> {short(new.get(doc))}"
        for doc in sorted(old.keys() | new.keys())
        if old.get(doc) != new.get(doc)
    }


def _naming_commits(change: Change, moved: dict[str, str]) -> Change:
    """`change` with the commit moves of the documents behind it (its key for a document, else
    the documents its `where` names)."""
    behind = [change.key] if change.section == "documents" else [_document(r) for r in (change.where or "").split("; ")]
    commits = "; ".join(dict.fromkeys(moved[d] for d in behind if d in moved))
    return replace(change, commit=commits) if commits else change


def _document(where: str) -> str:
    """The document of a `document:line` (or of a bare document)."""
    document, _, line = where.rpartition(":")
    return document if document and line.isdigit() else where


def _schema(raw: dict[str, tuple[pa.Table | None, pa.Table | None]]) -> list[Change]:
    out = []
    for name, (a, b) in raw.items():
        if a is None and b is None:
            continue
        if a is None or b is None:
            out.append(Change("schema", "added" if a is None else "removed", name, detail="table"))
            continue
        old_fields = {f.name: f.type for f in a.schema}
        new_fields = {f.name: f.type for f in b.schema}
        for col in sorted(set(old_fields) - set(new_fields)):
            out.append(Change("schema", "removed", f"{name}.{col}", str(old_fields[col]), None, detail="column"))
        for col in sorted(set(new_fields) - set(old_fields)):
            out.append(Change("schema", "added", f"{name}.{col}", None, str(new_fields[col]), detail="column"))
        for col in sorted(set(old_fields) & set(new_fields)):
            if old_fields[col] != new_fields[col]:
                out.append(
                    Change(
                        "schema",
                        "changed",
                        f"{name}.{col}",
                        str(old_fields[col]),
                        str(new_fields[col]),
                        detail="column type",
                    )
                )
    return out


def _keyed(df: pd.DataFrame, key: Iterable[str]) -> dict[tuple[Any, ...], dict[str, Any]]:
    cols = list(key)
    if df.empty:
        return {}
    return {tuple(r[c] for c in cols): {str(k): v for k, v in r.items()} for r in df.to_dict("records")}


def _documents(a: pd.DataFrame, b: pd.DataFrame, moved: dict[str, str]) -> list[Change]:
    old, new = _keyed(a, ["document"]), _keyed(b, ["document"])
    out = []
    for (doc,) in sorted(set(new) - set(old)):
        out.append(
            Change(
                "documents",
                "added",
                doc,
                None,
                _s(new[(doc,)]["sha256"])[:12],  # type: ignore[index]
                detail=f"as_of {_s(new[(doc,)]['as_of']) or 'none'}",
            )
        )
    for (doc,) in sorted(set(old) - set(new)):
        out.append(Change("documents", "removed", doc, _s(old[(doc,)]["sha256"])[:12], None))  # type: ignore[index]
    for (doc,) in sorted(set(old) & set(new)):
        o, n = old[(doc,)], new[(doc,)]
        if o["sha256"] != n["sha256"] or _s(o["as_of"]) != _s(n["as_of"]) or doc in moved:
            if _s(o["as_of"]) != _s(n["as_of"]):
                detail = f"as_of {_s(o['as_of']) or 'none'} -> {_s(n['as_of']) or 'none'}"
            else:
                detail = f"as_of {_s(n['as_of']) or 'none'} (unchanged)"
            out.append(
                Change(
                    "documents",
                    "changed",
                    doc,
                    f"sha256 {str(o['sha256'])[:12]}",
                    f"sha256 {str(n['sha256'])[:12]}",
                    detail=detail,
                )
            )
    return out


def _entities(a: pd.DataFrame, b: pd.DataFrame) -> list[Change]:
    """Sizes and series that appear or disappear; a series counts when any fact names it,
    as an entity of its own or as the series of a size."""

    def named(df: pd.DataFrame, kind: str) -> set[str]:
        if df.empty:
            return set()
        found = set(df[df["entity_kind"] == kind]["entity"])
        if kind == "series":
            found |= set(df[df["attribute"] == "series"]["value"].dropna())
        return found

    out = []
    for kind, section in (("size", "sizes"), ("series", "series")):
        old, new = named(a, kind), named(b, kind)
        out += [Change(section, "added", e) for e in sorted(new - old)]
        out += [Change(section, "removed", e) for e in sorted(old - new)]
    return out


def _renames(
    a: pd.DataFrame, b: pd.DataFrame, names: pd.DataFrame
) -> tuple[list[Change], set[str], set[tuple[str, str]]]:
    """Lines of a document that name a size in another way than before: one `renamed` entry
    each, saying what the build made of the new name (the same size, another name of it in
    `names`, or a new size). Returns also the sizes that appeared only through such renames and
    the (document:line, entity) of the claims they explain, whose entries the rename line
    replaces."""

    def spelled(df: pd.DataFrame) -> dict[tuple[str, int], dict[str, str]]:
        out: dict[tuple[str, int], dict[str, str]] = {}
        if df.empty:
            return out
        size_rows = df[(df["entity_kind"] == "size") & ~df["method"].isin(["name_convention", "sibling"])]
        written = size_rows["name_as_written"] if "name_as_written" in size_rows else size_rows["entity"]
        for doc, line, entity, name in zip(
            size_rows["document"], size_rows["line"], size_rows["entity"], written, strict=True
        ):
            out.setdefault((str(doc), int(line)), {})[str(entity)] = str(_s(name) or entity).strip()
        return out

    likely: set[str] = set()
    if not names.empty and "certainty" in names:
        likely = {str(n) for n, c in zip(names["name"], names["certainty"], strict=True) if c == "likely"}
    old, new = spelled(a), spelled(b)
    before = {e for found in old.values() for e in found}
    out: list[Change] = []
    appeared: set[str] = set()
    explained: set[tuple[str, str]] = set()
    for (doc, line), now in sorted(new.items()):
        was = old.get((doc, line))
        if not was or len(was) != 1 or len(now) != 1 or was == now:
            continue
        [(old_entity, old_name)] = was.items()
        [(entity, name)] = now.items()
        parsed = parse_size(name)
        if entity != old_entity and name == old_name:
            # The same words, read as another size's name now (or no longer): `names` says so.
            explained |= {(f"{doc}:{line}", entity), (f"{doc}:{line}", old_entity)}
            continue
        if entity == old_entity and parsed is not None and parsed.canonical == entity:
            what = f"the same size {entity}, spelled another way"
        elif entity == old_entity:
            written = parsed.canonical if parsed else name
            what = f"{'most likely ' if written in likely else ''}another name of {entity}"
        else:
            what = f"now the size {entity}"
        out.append(Change("sizes", "renamed", f"in {doc}", old_name, name, where=f"{doc}:{line}", detail=what))
        if entity != old_entity:
            explained |= {(f"{doc}:{line}", entity), (f"{doc}:{line}", old_entity)}
            if entity not in before:
                appeared.add(entity)
    return out, appeared, explained


def _names(
    a: pd.DataFrame, b: pd.DataFrame, sizes_a: pd.DataFrame, sizes_b: pd.DataFrame
) -> tuple[list[Change], set[str]]:
    """The names that stand for another size: added, removed or read another way (another size,
    another certainty); a name that was a row of vm_sizes and is now a name, or the other way
    round, said once as `moved`. Returns also the names that moved, whose entries in the sizes
    section the move replaces."""

    def keyed(df: pd.DataFrame) -> dict[str, tuple[str, str]]:
        if df.empty or "name" not in df:
            return {}
        return {str(n): (str(s), str(c)) for n, s, c in zip(df["name"], df["size"], df["certainty"], strict=True)}

    def rows(df: pd.DataFrame) -> set[str]:
        return set() if df.empty or "size" not in df else {str(s) for s in df["size"]}

    old, new = keyed(a), keyed(b)
    was_size, is_size = rows(sizes_a), rows(sizes_b)
    out: list[Change] = []
    moved: set[str] = set()
    for name in sorted(old.keys() | new.keys()):
        before, after = old.get(name), new.get(name)
        if before == after:
            continue
        if after and not before:
            if name in was_size:
                moved.add(name)
                detail = f"no longer a size: {_reading(after)}"
                out.append(Change("names", "moved", name, "a row of vm_sizes", f"a name of {after[0]}", detail=detail))
            else:
                out.append(Change("names", "added", name, new=_reading(after)))
        elif before and not after:
            if name in is_size:
                moved.add(name)
                detail = f"no longer read as {before[0]}"
                out.append(Change("names", "moved", name, f"a name of {before[0]}", "a row of vm_sizes", detail=detail))
            else:
                out.append(Change("names", "removed", name, old=_reading(before)))
        elif before and after:
            out.append(Change("names", "changed", name, _reading(before), _reading(after)))
    return out, moved


def _reading(name: tuple[str, str]) -> str:
    """`another name of X` (certain) or `most likely another name of X` (likely)."""
    size, certainty = name
    return f"{'most likely ' if certainty == 'likely' else ''}another name of {size}"


def _valued(value: Any, row: dict[str, Any]) -> str:
    """`value` with the unit of its fact or conflict `row`."""
    return with_unit(str(value), _s(row.get("unit")))


def _facts(a: pd.DataFrame, b: pd.DataFrame) -> list[Change]:
    old, new = _keyed(a, ["entity", "attribute"]), _keyed(b, ["entity", "attribute"])
    gone = set(a["entity"]) - set(b["entity"]) if not a.empty and not b.empty else set()
    out = []
    for key in sorted(set(old) & set(new)):
        o, n = old[key], new[key]
        parts = []
        if o["value"] != n["value"]:
            parts.append(f"value {_valued(o['value'], o)} -> {_valued(n['value'], n)}")
        if o["status"] != n["status"]:
            parts.append(f"status {o['status']} -> {n['status']}")
        if abs(float(o["confidence"]) - float(n["confidence"])) > CONFIDENCE_STEP:
            parts.append(f"confidence {float(o['confidence']):.3f} -> {float(n['confidence']):.3f}")
        if parts and o["value"] == n["value"]:
            # The value stands; what moved is how sure the data is of it, and that is what is said.
            out.append(
                Change(
                    "facts",
                    "changed",
                    f"{key[0]} {key[1]}",
                    _standing(o, o["status"] != n["status"]),
                    _standing(n, o["status"] != n["status"]),
                    where=f"{n['document']}:{n['line']}",
                    detail=f"value {_valued(n['value'], n)} unchanged; {n['reason']}",
                )
            )
        elif parts:
            out.append(
                Change(
                    "facts",
                    "changed",
                    f"{key[0]} {key[1]}",
                    _valued(o["value"], o),
                    _valued(n["value"], n),
                    where=f"{n['document']}:{n['line']}",
                    detail="; ".join(parts) + f"; {n['reason']}",
                )
            )
    for key in sorted(set(new) - set(old)):
        n = new[key]
        out.append(
            Change(
                "facts",
                "added",
                f"{key[0]} {key[1]}",
                None,
                _valued(n["value"], n),
                where=f"{n['document']}:{n['line']}",
                detail=str(n["status"]),
            )
        )
    for key in sorted(set(old) - set(new)):
        if key[0] in gone:
            continue
        o = old[key]
        out.append(
            Change(
                "facts",
                "removed",
                f"{key[0]} {key[1]}",
                _valued(o["value"], o),
                None,
                where=f"{o['document']}:{o['line']}",
            )
        )
    return out


def _standing(row: dict[str, Any], status: bool) -> str:
    """`resolved, confidence 0.998`: a fact's status (when it moved) and confidence."""
    return (f"{row['status']}, " if status else "") + f"confidence {float(row['confidence']):.3f}"


def _claims(a: pd.DataFrame, b: pd.DataFrame) -> list[Change]:
    """Claims whose value changed in place (same document, entity, attribute, column)."""

    def group(df: pd.DataFrame) -> dict[tuple[Any, ...], list[dict[str, Any]]]:
        out: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
        if df.empty:
            return out
        for r in df.to_dict("records"):
            key = (r["document"], r["entity"], r["attribute"], _s(r["column"]) or "", r["method"])
            out.setdefault(key, []).append({str(k): v for k, v in r.items()})
        return out

    old, new = group(a), group(b)
    out = []
    for key in sorted(set(old) & set(new), key=str):
        ov = sorted(str(r["value"]) for r in old[key])
        nv = sorted(str(r["value"]) for r in new[key])
        if ov != nv:
            r = new[key][0]
            out.append(
                Change(
                    "claims",
                    "changed",
                    f"{key[1]} {key[2]}",
                    ", ".join(ov),
                    ", ".join(nv),
                    where=f"{key[0]}:{r['line']}",
                    detail=f"{key[4]} {key[3]}".strip(),
                )
            )
    for key in sorted(set(new) - set(old), key=str):
        r = new[key][0]
        out.append(
            Change(
                "claims",
                "added",
                f"{key[1]} {key[2]}",
                None,
                ", ".join(str(x["value"]) for x in new[key]),
                where=f"{key[0]}:{r['line']}",
                detail=f"{key[4]} {key[3]}".strip(),
            )
        )
    for key in sorted(set(old) - set(new), key=str):
        r = old[key][0]
        out.append(
            Change(
                "claims",
                "removed",
                f"{key[1]} {key[2]}",
                ", ".join(str(x["value"]) for x in old[key]),
                None,
                where=f"{key[0]}:{r['line']}",
                detail=f"{key[4]} {key[3]}".strip(),
            )
        )
    return out


def _conflicts(a: pd.DataFrame, b: pd.DataFrame) -> list[Change]:
    old, new = _keyed(a, ["entity", "attribute", "value"]), _keyed(b, ["entity", "attribute", "value"])
    out = []
    for key in sorted(set(new) - set(old)):
        n = new[key]
        out.append(
            Change(
                "conflicts",
                "appeared",
                f"{key[0]} {key[1]}",
                None,
                _valued(key[2], n),
                where=str(n["documents"]),
                detail="won" if n["won"] else "lost",
            )
        )
    for key in sorted(set(old) - set(new)):
        o = old[key]
        out.append(
            Change(
                "conflicts",
                "resolved",
                f"{key[0]} {key[1]}",
                _valued(key[2], o),
                None,
                where=str(o["documents"]),
                detail="no longer in dispute",
            )
        )
    for key in sorted(set(old) & set(new)):
        if bool(old[key]["won"]) != bool(new[key]["won"]):
            out.append(
                Change(
                    "conflicts",
                    "changed",
                    f"{key[0]} {key[1]}",
                    f"{key[2]} {'won' if old[key]['won'] else 'lost'}",
                    f"{key[2]} {'won' if new[key]['won'] else 'lost'}",
                    where=str(new[key]["documents"]),
                )
            )
    return out


_ERRATUM = ["kind", "document", "attribute", "entities", "value"]
"""What an erratum is, wherever its line moves: two builds' errata are matched by it."""


def _errata(a: pd.DataFrame, b: pd.DataFrame, documents: pd.DataFrame) -> list[Change]:
    """Errata found anew (`new erratum in DOC:LINE`) and errata gone: where the document's
    upstream commit moved, `erratum fixed in DOC at COMMIT` (the drift names the commits too)."""
    old, new = _keyed(a, _ERRATUM), _keyed(b, _ERRATUM)
    commits = (
        {}
        if documents.empty or "commit" not in documents
        else dict(zip(documents["document"], documents["commit"], strict=True))
    )
    out = []
    for key in sorted(set(new) - set(old)):
        n = new[key]
        where = f"{n['document']}:{n['line']}"
        out.append(
            Change(
                "errata",
                "new",
                f"{n['attribute']} of {n['entities']}",
                None,
                _reading_of(n),
                where,
                f"new erratum in {where} ({n['kind']})",
            )
        )
    for key in sorted(set(old) - set(new)):
        o = old[key]
        document = str(o["document"])
        commit = _s(commits.get(document))
        fixed = f"erratum fixed in {document} at {short(commit)}" if commit else f"no longer an erratum in {document}"
        out.append(
            Change(
                "errata",
                "fixed",
                f"{o['attribute']} of {o['entities']}",
                _reading_of(o),
                None,
                f"{document}:{o['line']}",
                fixed,
            )
        )
    return out


def _reading_of(row: dict[str, Any]) -> str:
    supported = _s(row.get("supported"))
    return f"{row['value']} -> {supported}" if supported else str(row["value"])


def _diagnostics(a: pd.DataFrame, b: pd.DataFrame) -> list[Change]:
    cols = ["severity", "code", "document", "line", "message"]

    def rows(df: pd.DataFrame) -> set[tuple[Any, ...]]:
        return set() if df.empty else {tuple(_s(r[c]) for c in cols) for r in df.to_dict("records")}

    old, new = rows(a), rows(b)
    out = [
        Change("diagnostics", "appeared", f"{sev} {code}", None, msg, where=f"{doc}:{line}" if line else doc)
        for sev, code, doc, line, msg in sorted(new - old, key=str)
    ]
    out += [
        Change("diagnostics", "disappeared", f"{sev} {code}", msg, None, where=f"{doc}:{line}" if line else doc)
        for sev, code, doc, line, msg in sorted(old - new, key=str)
    ]
    return out


# ------------------------------------------------------------------------------ rendering


def render_text(report: DriftReport, limit: int = 200) -> str:
    if not report.differs:
        return f"no drift: {report.new} matches {report.old}\n"
    lines = [f"drift: {len(report.changes)} difference(s) between {report.old} and {report.new}"]
    for section, items in report.by_section().items():
        lines.append(f"\n{section} ({len(items)})")
        for c in items[:limit]:
            arrow = (
                f"{c.old or '-'} -> {c.new or '-'}"
                if c.kind in ("changed", "renamed", "moved")
                else (c.new or c.old or "")
            )
            where = f"  [{_place(c)}]" if _place(c) else ""
            detail = f"  ({c.detail})" if c.detail else ""
            lines.append(f"  {c.kind:<11} {c.key}: {arrow}{where}{detail}".rstrip())
        if len(items) > limit:
            lines.append(f"  ... {len(items) - limit} more")
    return "\n".join(lines) + "\n"


def _place(c: Change) -> str | None:
    """Where the change stands and, when its upstream document moved, the commits."""
    return ", ".join(p for p in (c.where, c.commit and f"commit {c.commit}") if p) or None


def render_markdown(report: DriftReport, limit: int = 200) -> str:
    if not report.differs:
        return "### Data drift\n\nNo drift: the committed `output/` matches what `sources/` builds.\n"
    lines = [
        "### Data drift",
        "",
        f"{len(report.changes)} difference(s). Run `make build` and commit `output/` if they are intended.",
        "",
    ]
    for section, items in report.by_section().items():
        lines += [
            f"#### {section} ({len(items)})",
            "",
            "| change | what | old | new | where | detail |",
            "|---|---|---|---|---|---|",
        ]
        for c in items[:limit]:
            lines.append(
                f"| {c.kind} | {cell(c.key)} | {cell(c.old)} | {cell(c.new)} | {cell(_place(c))} | {cell(c.detail)} |"
            )
        if len(items) > limit:
            lines.append(f"| ... | {len(items) - limit} more | | | | |")
        lines.append("")
    return "\n".join(lines)


def render_json(report: DriftReport) -> str:
    data = {
        "differs": report.differs,
        "old": report.old,
        "new": report.new,
        "summary": {k: len(v) for k, v in report.by_section().items()},
        "changes": [asdict(c) for c in report.changes],
    }
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
