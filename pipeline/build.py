"""`build(sources, out)`: read -> extract -> normalize -> reconcile -> write.

This module only wires the stages together and turns their records into table rows.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from pipeline import knowledge, schema
from pipeline.extract import extract
from pipeline.names import parse_size
from pipeline.normalize import Normalized, normalize, source_family
from pipeline.read import Limits, read_all
from pipeline.reconcile import doc_infos, most_authoritative
from pipeline.records import BuildResult, Claim, Diagnostic, Document, Extraction
from pipeline.write import frame, output_lock, recover, staging_folder, swap_in, write_table

Progress = Callable[[str], None]


@dataclass(frozen=True, slots=True)
class Settings:
    """Knobs a maintainer may turn; the defaults suit the shipped corpus."""

    limits: Limits = field(default_factory=Limits)


def build(
    sources: Path, out: Path, *, settings: Settings = Settings(), progress: Progress | None = None
) -> BuildResult:
    """Build every table from the documents under `sources` into `out`, atomically."""
    sources = Path(sources)
    out = Path(out)
    with output_lock(out):
        recover(out)
        result, frames = compute(sources, settings, progress)
        stage = staging_folder(out)
        cols = schema.tables()
        for name, df in frames.items():
            write_table(df, cols[name], name, stage)
        swap_in(stage, out)
    return result


def compute(
    sources: Path, settings: Settings = Settings(), progress: Progress | None = None
) -> tuple[BuildResult, dict[str, Any]]:
    """Everything but the writing: the result and one DataFrame per table."""
    diagnostics: list[Diagnostic] = []
    if not sources.is_dir():
        diagnostics.append(
            Diagnostic(
                "error", "sources-missing", str(sources), None, "sources folder does not exist or is not a folder"
            )
        )
    documents: list[Document] = []
    extractions: list[Extraction] = []
    know = knowledge.load()
    if sources.is_dir():
        for doc, diags in read_all(sources, settings.limits):
            diagnostics.extend(diags)
            if doc is None:
                continue
            documents.append(doc)
            try:
                ex = extract(doc, know)
            except RecursionError:
                diagnostics.append(
                    Diagnostic(
                        "error",
                        "markdown-too-deep",
                        doc.path,
                        None,
                        "markdown nests too deeply to parse; document skipped",
                    )
                )
                continue
            extractions.append(ex)
            diagnostics.extend(ex.diagnostics)
            if progress:
                progress(f"read {len(documents)} documents")
    diagnostics.extend(_include_diagnostics(extractions, {d.path for d in documents}))
    norm = normalize(extractions, know)
    diagnostics.extend(norm.diagnostics)
    diagnostics = sorted(set(diagnostics), key=lambda d: (d.document, d.line or 0, d.code, d.message))
    frames = _frames(documents, extractions, norm, diagnostics)
    result = BuildResult(
        documents=tuple(documents),
        claims=norm.claims,
        diagnostics=tuple(diagnostics),
        tables={k: len(v) for k, v in frames.items()},
    )
    return result, frames


def _include_diagnostics(extractions: Sequence[Extraction], paths: set[str]) -> list[Diagnostic]:
    out = []
    for ex in extractions:
        for inc in ex.includes:
            if inc.resolved is not None and inc.resolved not in paths:
                out.append(
                    Diagnostic(
                        "warning",
                        "include-missing",
                        inc.document,
                        inc.line,
                        f"[!INCLUDE] target {inc.target!r} is not in the sources folder",
                    )
                )
    return out


def _frames(
    documents: Sequence[Document],
    extractions: Sequence[Extraction],
    norm: Normalized,
    diagnostics: Sequence[Diagnostic],
) -> dict[str, Any]:
    cols = schema.tables()
    per_doc = Counter(c.document for c in norm.claims)
    subjects = {ex.document.path: ex.subject for ex in extractions}
    kinds = {d.path: source_family(d).kind for d in documents}
    doc_rows = [
        {
            "document": d.path,
            "sha256": d.sha256,
            "encoding": d.encoding,
            "title": d.metadata.title,
            "author": d.metadata.author,
            "as_of": d.metadata.date,
            "date_field": d.metadata.date_field,
            "service": d.metadata.service,
            "canonical_url": d.metadata.canonical_url,
            "tags": "; ".join(d.metadata.tags) or None,
            "family": source_family(d).name,
            "kind": kinds[d.path],
            "subject": subjects.get(d.path),
            "lines": d.text.count("\n") + 1,
            "claims": per_doc.get(d.path, 0),
        }
        for d in documents
    ]
    claim_rows = [asdict(c) for c in norm.claims]
    return {
        "documents": frame(doc_rows, cols["documents"]),
        "claims": frame(claim_rows, cols["claims"]),
        "vm_sizes": frame(_vm_size_rows(documents, norm.claims, kinds), cols["vm_sizes"]),
        "diagnostics": frame([asdict(d) for d in diagnostics], cols["diagnostics"]),
    }


def _vm_size_rows(
    documents: Sequence[Document], claims: Sequence[Claim], kinds: dict[str, str]
) -> list[dict[str, Any]]:
    docs = doc_infos(documents, kinds)
    winners = most_authoritative(claims, docs)
    sizes = sorted({c.entity for c in claims if c.entity_kind == "size" and parse_size(c.entity)})
    size_docs: dict[str, set[str]] = defaultdict(set)
    for c in claims:
        if c.entity_kind == "size":
            size_docs[c.entity].add(c.document)
    rows = []
    for size in sizes:
        row: dict[str, Any] = {"size": size}
        series = winners.get((size, "series"))
        row["series"] = series.value_text if series else None
        for attr in schema.VM_SIZE_ATTRIBUTES:
            w = winners.get((size, attr))
            if w is None:
                row[attr] = None
            elif w.value_number is not None:
                row[attr] = int(w.value_number) if _is_int_column(attr) else w.value_number
            elif w.value_bool is not None:
                row[attr] = w.value_bool
            else:
                row[attr] = w.value_text
        row["documents"] = len(size_docs[size])
        row["value_basis"] = (
            "most authoritative claim per attribute: official page before blog before third "
            "party, newer before older, table before text"
        )
        rows.append(row)
    return rows


def _is_int_column(attr: str) -> bool:
    return any(c.name == attr and c.type == "int" for c in schema.tables()["vm_sizes"])
