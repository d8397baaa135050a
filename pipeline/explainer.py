"""`explain(size, attribute)`: everything behind one value, for a person.

Reads the tables a build wrote (never the documents), so what it shows is exactly what
analysts have: each claim with document, line and raw text, the checks, the winner and why.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from pipeline.knowledge.names import parse_size

CHECKS = {
    "vcpus": "vcpus_name: the vCPU count in the size name, where the series' other sizes bear the convention out",
    "gpu_model": "gpu_model_memory: the model is made with the stated per-GPU memory",
    "gpu_count": "gpu_count_memory: the count x the model's memory per GPU = the memory the same row states",
    "gpu_memory_gib": "gpu_model_memory: the GPU model is made with this memory size",
    "gpu_memory_total_gib": "gpu_total: GPU count x per-GPU memory = total",
    "network_bandwidth_mbps": "plausible_per_vcpu: bandwidth per vCPU above the floor in attributes.toml",
}
"""Checks applied per attribute, besides the series checks every number of a size gets:
`series_range` (within its series' official range) and `series_value` (within half or twice
the one value a series spec table states)."""


INFERRED = {
    "inherited": "inherited from series",
    "sibling": "copied from the sibling size",
    "name": "read from its name",
}
"""How explain says a value rests on no statement about the size itself (`facts.basis`)."""


class NotFound(LookupError):
    """The entity or attribute is not in the dataset."""


def _entity(
    facts: pd.DataFrame, name: str, claims: pd.DataFrame | None = None, names: pd.DataFrame | None = None
) -> str:
    entities = set(facts["entity"].dropna())
    if name in entities:
        return name
    size = parse_size(name)
    if size and size.canonical in entities:
        return size.canonical
    if size and names is not None and size.canonical in set(names["name"]):
        # A name that stands for another size (the names table): explain the size it stands for.
        return str(names.loc[names["name"] == size.canonical, "size"].iloc[0])
    if size and claims is not None and "name_as_written" in claims.columns:
        # A name read as another name of a size (pipeline.stages.aliases): explain the size it means.
        written = claims.dropna(subset=["name_as_written"])
        for as_written, entity in zip(written["name_as_written"], written["entity"], strict=True):
            if (alias := parse_size(str(as_written))) and alias.canonical == size.canonical:
                return str(entity)
    folded = {e.casefold().replace("_", " "): e for e in entities}
    key = name.casefold().replace("_", " ")
    if key in folded:
        return str(folded[key])
    close = sorted(e for e in entities if key.replace(" ", "") in e.casefold().replace("_", ""))[:5]
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    raise NotFound(f"{name!r} is not a size or series in the dataset{hint}")


def _permalinks(out: Path) -> dict[str, str]:
    """Each document's permalink, for the documents that have one (upstream.lock lists them)."""
    documents = pd.read_parquet(out / "documents.parquet")
    if "url" not in documents.columns:  # built before documents had permalinks
        return {}
    linked = documents[documents["url"].notna()]
    return dict(zip(linked["document"], linked["url"], strict=True))


def explain(entity: str, attribute: str | None = None, out: Path = Path("output")) -> str:
    """A readable account of the value(s) of one entity, built from the output tables."""
    facts = pd.read_parquet(out / "facts.parquet")
    claims = pd.read_parquet(out / "claims.parquet").set_index("claim_id")
    sizes = pd.read_parquet(out / "vm_sizes.parquet").set_index("size")
    names = pd.read_parquet(out / "names.parquet") if (out / "names.parquet").exists() else None
    urls = _permalinks(out)
    name = _entity(facts, entity, claims, names)
    mine = facts[facts["entity"] == name].sort_values("attribute")
    if attribute is not None:
        mine = mine[mine["attribute"] == attribute]
        if mine.empty:
            known = ", ".join(sorted(facts[facts["entity"] == name]["attribute"]))
            raise NotFound(f"{name} has no value for {attribute!r}; it has: {known}")
    lines = [f"{name}"]
    if name in sizes.index and "status" in sizes.columns:
        row = sizes.loc[name]
        lines[0] += f"  ({row['status']}, lowest confidence {row['confidence']:.3f})"
        if "value_basis" in sizes.columns and pd.notna(row.get("inferred_attributes")):
            lines.append(f"  values: {row['value_basis']}")
    if names is not None:
        for _, n in names[names["size"] == name].iterrows():
            lines.append(f"  also written {n['name']} ({n['certainty']}): {n['evidence']}; used at {n['uses']}")
    for _, f in mine.iterrows():
        unit = f" {f['unit']}" if pd.notna(f["unit"]) and f["unit"] != "count" else ""
        lines.append("")
        lines.append(f"{f['attribute']} = {f['value']}{unit}   [{f['status']}, confidence {f['confidence']:.3f}]")
        lines.append(f"  why: {f['reason']}")
        basis = f.get("basis")
        if basis in INFERRED:
            source = f.get("basis_from")
            lines.append(f"  not stated for {name}: {INFERRED[basis]}{'' if pd.isna(source) else f' {source}'}")
        elif pd.notna(f["inherited_from"]):
            lines.append(f"  inherited from series {f['inherited_from']}")
        check = CHECKS.get(str(f["attribute"]))
        lines.append(
            f"  checks: {check or 'none beyond series_range and series_value'}"
            + (f"; the winner fails {f['checks_failed']}" if pd.notna(f["checks_failed"]) else "")
        )
        ids = [("+", i) for i in str(f["supporting_claims"]).split()]
        if pd.notna(f["contradicting_claims"]):
            ids += [("-", i) for i in str(f["contradicting_claims"]).split()]
        lines.append("  claims (+ supports the chosen value, - contradicts it):")
        for sign, cid in ids:
            if cid not in claims.index:
                continue
            c = claims.loc[cid]
            cu = f" {c['unit']}" if pd.notna(c["unit"]) and c["unit"] != "count" else ""
            where = f"{c['document']}:{c['line']}"
            via = f" (series {c['entity']})" if c["entity"] != name else ""
            lines.append(f"   {sign} {c['value']}{cu}  {where}{via}  [{c['method']}]  {str(c['raw_text'])[:80]!r}")
            written = c.get("name_as_written")
            if isinstance(written, str) and (p := parse_size(written)) is not None and p.canonical != c["entity"]:
                lines.append(f"       written as: {written!r}")
            url = urls.get(str(c["document"]))
            if url:
                lines.append(f"       upstream: {url}#L{c['line']}")
            if pd.notna(c["interpretation"]):
                lines.append(f"       read as: {c['interpretation']}")
            if pd.notna(c["checks_failed"]):
                lines.append(f"       fails: {c['checks_failed']}")
    return "\n".join(lines) + "\n"
