"""Who published each document, and how far it is trusted.

The registry (`sources/registry.toml`) names publisher, kind, canonical URL and licence;
a document it does not list is classified from its own evidence (Microsoft Learn
front-matter, a canonical URL's domain, no front-matter at all) and the build says so.
"""

from __future__ import annotations

import datetime as dt
import fnmatch
import functools
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from pipeline.records import Diagnostic, Document

REGISTRY_FILE = "registry.toml"


@dataclass(frozen=True, slots=True)
class Tier:
    name: str
    rank: int
    weight: float
    label: str
    attributes: Mapping[str, float] = field(default_factory=dict)
    """The weight for attributes this tier is stronger or weaker on (an API's GPU count)."""
    document: bool = False
    authoritative: bool = False
    plural: str = ""
    """The label of several (`2 official Microsoft Learn pages agree`)."""
    subject: str = ""
    """The tier as an erratum's evidence names who states a value (`official pages state 112 GiB`)."""

    def weight_for(self, attribute: str) -> float:
        return self.attributes.get(attribute, self.weight)


@dataclass(frozen=True, slots=True)
class Source:
    """A document as a source of claims."""

    document: str
    publisher: str
    kind: str
    canonical_url: str | None
    licence: str | None
    trust: float
    as_of: dt.date | None
    classified_by: str
    copy_of: str | None = None
    """The document this one repeats (another version or copy of the same page, an older
    snapshot of the same catalog): the two are one voice, so their agreement is not counted twice."""
    catalog: str | None = None
    """For a snapshot of a machine-made catalog: the catalog's name (registry.toml)."""
    snapshot: int | None = None
    """Its order among the catalog's snapshots: the highest is the newest."""

    @property
    def voice(self) -> str:
        return self.copy_of or self.document


@dataclass(frozen=True, slots=True)
class _Entry:
    pattern: str
    publisher: str
    kind: str
    canonical_url: str | None
    licence: str | None
    trust: float | None
    catalog: str | None = None
    snapshot: int | None = None


@functools.cache
def _sources_table() -> dict[str, Any]:
    """Read once per process (callers only read it): every document is classified with it."""
    text = resources.files("pipeline.knowledge").joinpath("sources.toml").read_text(encoding="utf-8")
    return tomllib.loads(text)


@functools.cache
def tiers() -> Mapping[str, Tier]:
    """The tiers of trust, made once per process: every document is classified with them (at
    10,000 documents, making them for each took 0.08 s of every build's)."""
    return {
        name: Tier(
            name,
            int(t["rank"]),
            float(t["weight"]),
            str(t["label"]),
            {a: float(w) for a, w in t.get("attributes", {}).items()},
            bool(t.get("document")),
            bool(t.get("authoritative")),
            str(t["plural"]),
            str(t["subject"]),
        )
        for name, t in _sources_table()["tier"].items()
    }


KINDS = tuple(name for name, t in tiers().items() if t.document)
"""What a document can be (registry.toml's `kind`): official_spec, api_catalog, vendor_blog, third_party."""
AUTHORITATIVE = frozenset(name for name, t in tiers().items() if t.authoritative)
"""Kinds whose naming a size makes it real: an official page, the Azure API's catalog."""


def load_registry(sources: Path) -> tuple[list[_Entry], list[Diagnostic]]:
    path = sources / REGISTRY_FILE
    if not path.is_file():
        return [], [
            Diagnostic(
                "info",
                "registry-missing",
                REGISTRY_FILE,
                None,
                "no source registry; every document is classified from its own evidence",
            )
        ]
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        return [], [_invalid(f"registry is not valid TOML: {exc}")]
    entries: list[_Entry] = []
    diags: list[Diagnostic] = []
    for i, raw in enumerate(data.get("source", []), start=1):
        kind = raw.get("kind")
        if not isinstance(raw.get("path"), str) or kind not in KINDS:
            diags.append(_invalid(f"entry {i} needs a path and a kind among {', '.join(KINDS)}"))
            continue
        trust = raw.get("trust")
        if trust is not None and not (isinstance(trust, (int, float)) and 0 <= trust <= 1):
            diags.append(_invalid(f"entry {i}: trust must be a number from 0 to 1"))
            trust = None
        catalog, snapshot = raw.get("catalog"), raw.get("snapshot")
        if (catalog is None) != (snapshot is None) or not isinstance(snapshot, (int, type(None))):
            diags.append(_invalid(f"entry {i}: catalog and snapshot (a whole number) go together; ignored"))
            catalog = snapshot = None
        entries.append(
            _Entry(
                raw["path"],
                str(raw.get("publisher", "unknown")),
                kind,
                raw.get("canonical_url"),
                raw.get("licence"),
                float(trust) if trust is not None else None,
                str(catalog) if catalog is not None else None,
                snapshot,
            )
        )
    return entries, diags


def _invalid(message: str) -> Diagnostic:
    return Diagnostic("error", "registry-invalid", REGISTRY_FILE, None, message)


def classify(doc: Document, entries: list[_Entry]) -> tuple[Source, Diagnostic | None]:
    """The registry's word on a document, else what its own evidence says."""
    tier = tiers()
    for e in entries:
        if fnmatch.fnmatchcase(doc.path, e.pattern):
            return Source(
                doc.path,
                e.publisher,
                e.kind,
                e.canonical_url or doc.metadata.canonical_url,
                e.licence,
                e.trust if e.trust is not None else tier[e.kind].weight,
                doc.metadata.date,
                "registry",
                catalog=e.catalog,
                snapshot=e.snapshot,
            ), None
    kind, why = _evidence(doc)
    source = Source(
        doc.path,
        "unknown",
        kind,
        doc.metadata.canonical_url,
        None,
        tier[kind].weight,
        doc.metadata.date,
        f"evidence: {why}",
    )
    return source, Diagnostic(
        "info", "source-unregistered", doc.path, None, f"not in {REGISTRY_FILE}; classified as {kind} because {why}"
    )


def _evidence(doc: Document) -> tuple[str, str]:
    learn: dict[str, Any] = _sources_table()["family"]["microsoft_learn"]
    ms_keys = sorted(k for k in doc.metadata.keys if k.startswith(learn["front_matter_prefix"]))
    if len(ms_keys) >= learn["min_keys"] and set(ms_keys) & set(learn["identifying_keys"]):
        return learn["kind"], f"its front-matter has Microsoft Learn ms.* keys ({', '.join(ms_keys)})"
    url = doc.metadata.canonical_url
    if url:
        host = (urlparse(url).hostname or "").lower()
        domains: dict[str, str] = _sources_table().get("domain", {})
        for domain, kind in domains.items():
            if host == domain or host.endswith("." + domain):
                return kind, f"its canonical URL is on {domain}"
        return "third_party", f"its canonical URL is on {host or 'an unknown host'}"
    if not doc.has_front_matter:
        return "third_party", "it has no front-matter naming a publisher"
    return "third_party", "its front-matter names no known publisher"
