"""What kind of publisher a document comes from, as far as its text shows (sources.toml's
`[family]` tables): a Microsoft Learn page is known by its ms.* front-matter, and its size
tables mean GiB where they print GB (`binary_capacity`)."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from importlib import resources

from pipeline.records import Document, compact


@compact
@dataclass(frozen=True, slots=True)
class SourceFamily:
    """What kind of publisher a document comes from, as far as its text shows."""

    name: str
    kind: str
    binary_capacity: bool
    binary_note: str | None


def _families() -> dict[str, dict[str, object]]:
    text = resources.files("pipeline.knowledge").joinpath("sources.toml").read_text(encoding="utf-8")
    fams: dict[str, dict[str, object]] = tomllib.loads(text)["family"]
    return fams


_FAMILIES = _families()


def source_family(doc: Document) -> SourceFamily:
    """Microsoft Learn pages are known by their ms.* front-matter; anything else is other."""
    for name, spec in _FAMILIES.items():
        prefix = spec.get("front_matter_prefix")
        if isinstance(prefix, str) and any(k.startswith(prefix) for k in doc.metadata.keys):
            return SourceFamily(
                name,
                str(spec["kind"]),
                bool(spec.get("binary_capacity")),
                str(spec.get("binary_note")) if spec.get("binary_note") else None,
            )
    spec = _FAMILIES["other"]
    return SourceFamily("other", str(spec["kind"]), bool(spec.get("binary_capacity")), None)
