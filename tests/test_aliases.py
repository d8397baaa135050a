"""Names that do not exist: a misspelled size name is evidence about the size it means.

The fixtures under tests/fixtures/aliases/ are two real Microsoft Learn pages about the NC A100
v4 series, copied unchanged from sources/ (the current page and the older one). Each scenario
writes the current page's `Standard_NC24ads_A100_v4` row (file line 35:
`| Standard_NC24ads_A100_v4 | 24 | 220 |`) in another way and builds both pages."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

from pipeline.differ import drift, render_text
from pipeline.explainer import explain
from pipeline.knowledge.names import parse_size, skeleton, token_difference
from pipeline.records import BuildResult
from pipeline.runner import build

FIXTURES = Path(__file__).parent / "fixtures" / "aliases"
PAGE = "nca100v4-series.md"
OLD_PAGE = "nc-a100-v4-series.md"
ROW = "| Standard_NC24ads_A100_v4 | 24 | 220 |"
ROW_LINE = 35
SIZE = "Standard_NC24ads_A100_v4"


@pytest.mark.parametrize(
    ("name", "known", "difference"),
    [
        ("Standard_ND96isr_v5", "Standard_ND96isr_H100_v5", ("dropped", "H100")),
        ("Standard_NC24ads_A100_NCv4_v4", "Standard_NC24ads_A100_v4", ("added", "NCv4")),
        ("Standard_ND96isr_H200_v5", "Standard_ND96isr_H100_v5", None),  # another token, not one more or less
        ("Standard_NC6_Promo", "Standard_NC6", ("added", "Promo")),
        ("Standard_ND40s_v2", "Standard_ND40rs_v2", None),  # a letter, not a token
    ],
)
def test_token_difference(name: str, known: str, difference: tuple[str, str] | None) -> None:
    a, b = parse_size(name), parse_size(known)
    assert a is not None and b is not None
    assert token_difference(a, b) == difference


@pytest.mark.parametrize(
    ("written", "canonical"),
    [
        ("Standard ND96asr_v4", "Standard_ND96asr_v4"),  # a space for the underscore after the tier
        ("standard_nc24ads_a100_v4", "Standard_NC24ads_A100_v4"),
        ("Standard\\_NC24ads\\_A100\\_v4", "Standard_NC24ads_A100_v4"),
        ("Standard_NC24ads_A100_v4<sup>1</sup>", "Standard_NC24ads_A100_v4"),
    ],
)
def test_spellings_of_one_name_read_as_it(written: str, canonical: str) -> None:
    size = parse_size(written)
    known = parse_size(canonical)
    assert size is not None and known is not None
    assert skeleton(size) == skeleton(known)


def test_a_missing_underscore_is_the_same_skeleton_but_another_canonical_name() -> None:
    joined, known = parse_size("Standard_NC24adsA100_v4"), parse_size(SIZE)
    assert joined is not None and known is not None
    assert joined.canonical != known.canonical and skeleton(joined) == skeleton(known)


# ----------------------------------------------------------------------------- builds of the fixture


def sources_with(tmp: Path, row: str | None = None, old_row: tuple[str, str] | None = None) -> Path:
    sources = tmp / "sources"
    sources.mkdir(parents=True)
    for name in (PAGE, OLD_PAGE):
        shutil.copy(FIXTURES / name, sources / name)
    if row is not None:
        page = sources / PAGE
        lines = page.read_text(encoding="utf-8").split("\n")
        assert lines[ROW_LINE - 1] == ROW
        lines[ROW_LINE - 1] = row
        page.write_text("\n".join(lines), encoding="utf-8")
    if old_row is not None:
        page = sources / OLD_PAGE
        text = page.read_text(encoding="utf-8")
        assert old_row[0] in text
        page.write_text(text.replace(old_row[0], old_row[1], 1), encoding="utf-8")
    return sources


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("base")
    out = tmp / "output"
    build(sources_with(tmp), out)
    return out


WAYS = {
    "case": "| standard_nc24ads_a100_v4 | 24 | 220 |",
    "escaped underscores": "| Standard\\_NC24ads\\_A100\\_v4 | 24 | 220 |",
    "space for the tier's underscore": "| Standard NC24ads_A100_v4 | 24 | 220 |",
    "missing underscore before the GPU token": "| Standard_NC24adsA100_v4 | 24 | 220 |",
    "footnote mark": "| Standard_NC24ads_A100_v4<sup>1</sup> | 24 | 220 |",
    "series token added": "| Standard_NC24ads_A100_NCv4_v4 | 24 | 220 |",
    "GPU token dropped": "| Standard_NC24ads_v4 | 24 | 220 |",
}
SUSPECT = {  # the ways that make a name of its own, which the build reads as the known size's
    "missing underscore before the GPU token": "Standard_NC24adsA100_v4",
    "series token added": "Standard_NC24ads_A100_NCv4_v4",
    "GPU token dropped": "Standard_NC24ads_v4",
}


@pytest.fixture(scope="module", params=sorted(WAYS))
def renamed(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    tmp = tmp_path_factory.mktemp("renamed")
    out = tmp / "output"
    build(sources_with(tmp, WAYS[request.param]), out)
    yield request.param, out


def test_a_misspelled_name_adds_no_size(base: Path, renamed: tuple[str, Path]) -> None:
    way, out = renamed
    before = pd.read_parquet(base / "vm_sizes.parquet")
    after = pd.read_parquet(out / "vm_sizes.parquet")
    assert sorted(after["size"]) == sorted(before["size"]), way
    assert set(after["status"]) <= set(before["status"]) | {"agreed"}, way


def test_drift_says_renamed_once_and_nothing_about_a_new_size(base: Path, renamed: tuple[str, Path]) -> None:
    way, out = renamed
    report = drift(base, out)
    written = WAYS[way].split(" | ")[0].removeprefix("| ")
    [rename] = [c for c in report.changes if c.kind == "renamed"]
    assert (rename.section, rename.key, rename.old, rename.new) == ("sizes", f"in {PAGE}", SIZE, written)
    assert rename.where == f"{PAGE}:{ROW_LINE}"
    if way in SUSPECT:
        assert rename.detail == f"treated as an alias of {SIZE}"
    else:
        assert rename.detail == f"the same size {SIZE}, spelled another way"
    assert [c for c in report.changes if c.section in ("sizes", "facts") and c.kind != "renamed"] == []
    line = f"  renamed     in {PAGE}: {SIZE} -> {written}  [{PAGE}:{ROW_LINE}]  ({rename.detail})"
    assert line in render_text(report).splitlines()


def test_the_misspelling_is_a_diagnostic_with_file_and_line(renamed: tuple[str, Path]) -> None:
    way, out = renamed
    diagnostics = pd.read_parquet(out / "diagnostics.parquet")
    suspects = diagnostics[diagnostics["code"] == "suspect_size_name"]
    if way not in SUSPECT:
        assert suspects.empty
        return
    [row] = suspects.to_dict("records")
    assert (row["document"], row["line"], row["severity"]) == (PAGE, ROW_LINE, "warning")
    assert row["message"].startswith(f"{SUSPECT[way]} is not a size the sources know; it most likely means {SIZE}")
    assert row["message"].endswith(f"its claims count for {SIZE}")


def test_explain_lists_the_claims_made_under_the_other_name(renamed: tuple[str, Path]) -> None:
    way, out = renamed
    if way not in SUSPECT:
        return
    text = explain(SIZE, "memory_gib", out)
    # The row's 220 GB, read as 220 GiB (Learn tables' GB are GiB), under the name as written.
    claim = f"   + 220 GiB  {PAGE}:{ROW_LINE}  [table]  '220'"
    lines = text.splitlines()
    assert claim in lines
    assert lines[lines.index(claim) + 1] == f"       written as: {WAYS[way].split(' | ')[0].removeprefix('| ')!r}"
    # and explain finds the size by the misspelled name too
    assert explain(SUSPECT[way], "memory_gib", out).startswith(f"{SIZE}  (")


CATALOG_ROW = "Standard_NC24ads_A100_v4,A100,1,24.0,220,A100,3.673,0.7346,eastus,V2"
"""One SkyPilot catalog row, in the shape of sources/catalogs/skypilot/v6-azure-vms-N.csv."""


def test_a_suspect_two_documents_name_stays_a_size_unverified_and_linked(tmp_path: Path) -> None:
    """Both pages drop the GPU token, and an API catalog lists the size with it: two voices
    behind the name make it no certain misspelling, so it stays a size, unverified and linked."""
    sources = sources_with(
        tmp_path,
        "| Standard_NC24ads_v4 | 24 | 220 |",
        ("| Standard_NC24ads_A100_v4   | 24  | 220 |", "| Standard_NC24ads_v4   | 24  | 220 |"),
    )
    (sources / "catalogs").mkdir()
    header = "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,Generation"
    (sources / "catalogs" / "vms.csv").write_text(f"{header}\n{CATALOG_ROW}\n", encoding="utf-8")
    (sources / "registry.toml").write_text(
        '[[source]]\npath = "catalogs/vms.csv"\npublisher = "test"\nkind = "api_catalog"\n', encoding="utf-8"
    )
    out = tmp_path / "output"
    result = build(sources, out)
    sizes = pd.read_parquet(out / "vm_sizes.parquet").set_index("size")
    assert sizes.loc["Standard_NC24ads_v4", "status"] == "unverified"
    assert sizes.loc["Standard_NC24ads_v4", "linked_to"] == SIZE
    evidence = str(sizes.loc["Standard_NC24ads_v4", "link_evidence"])
    assert evidence.startswith(f"drops the token A100 of {SIZE}; every value equal to {SIZE}")
    assert evidence.endswith("named by 2 documents; absent from the API")
    found = sorted((d.document, d.line) for d in result.diagnostics if d.code == "suspect_size_name")
    assert found == [(OLD_PAGE, 57), (PAGE, ROW_LINE)]
    assert all(
        "kept as an unverified size of its own" in d.message
        for d in result.diagnostics
        if d.code == "suspect_size_name"
    )


def test_a_new_name_with_other_values_is_a_new_size(base: Path, tmp_path: Path) -> None:
    out = tmp_path / "output"
    build(sources_with(tmp_path, "| Standard_NC24ads_A100_v4_Preview | 24 | 440 |"), out)
    sizes = pd.read_parquet(out / "vm_sizes.parquet").set_index("size")
    assert "Standard_NC24ads_A100_v4_Preview" in sizes.index
    assert sizes.loc["Standard_NC24ads_A100_v4_Preview", "status"] != "unverified"
    diagnostics = pd.read_parquet(out / "diagnostics.parquet")
    assert (diagnostics["code"] == "suspect_size_name").sum() == 0
    [rename] = [c for c in drift(base, out).changes if c.kind == "renamed"]
    assert rename.detail == "now the size Standard_NC24ads_A100_v4_Preview"


def test_a_series_name_where_a_size_belongs_says_which_sizes_it_may_mean(tmp_path: Path) -> None:
    sources = sources_with(tmp_path)
    (sources / "third-party.md").write_text(
        "# Cheap GPUs\n\n| Instance | vCPUs | RAM |\n|---|---|---|\n| NC A100 v4 | 24 | 220 GB |\n", encoding="utf-8"
    )
    result = build(sources, tmp_path / "output")
    [diag] = [d for d in result.diagnostics if d.document == "third-party.md" and d.code == "suspect_size_name"]
    assert diag.line == 5
    assert diag.message == (
        "'NC A100 v4' names the series NC A100 v4 where a size name belongs; it most likely means one of "
        "Standard_NC24ads_A100_v4, Standard_NC48ads_A100_v4, Standard_NC96ads_A100_v4; the row's values are not read"
    )


# ----------------------------------------------------------------------------- the shipped sources


def test_no_real_size_of_the_shipped_sources_is_read_as_an_alias(shipped: BuildResult) -> None:
    """Every size name in sources/ against the detector: the one suspect is the older ND H100 v5
    page's Standard_ND96isr_v5 (nd-h100-v5-series.md:51), which no API catalog lists and whose
    row repeats Standard_ND96isr_H100_v5's values but for its network bandwidth (2400 against
    the current page's 80000): unverified and linked, not merged."""
    claims = [c for c in shipped.claims if c.method not in ("name_convention", "sibling")]
    suspects = [d for d in shipped.diagnostics if d.code == "suspect_size_name"]
    assert [(d.document, d.line) for d in suspects] == [
        ("azure-docs/azure-docs/articles/virtual-machines/nd-h100-v5-series.md", 51)
    ]
    assert "kept as an unverified size of its own, linked to Standard_ND96isr_H100_v5" in suspects[0].message
    moved = [
        c for c in claims if c.name_as_written and (p := parse_size(c.name_as_written)) and p.canonical != c.entity
    ]
    assert moved == []
    link = {lk.entity: lk.linked_to for lk in shipped.links}
    assert link["Standard_ND96isr_v5"] == "Standard_ND96isr_H100_v5"
    # No name an API catalog lists is ever a suspect.
    listed = {c.entity for c in claims if c.document.startswith("catalogs/")}
    assert len(listed) >= 60 and "Standard_ND96isr_v5" not in listed


def test_a_token_several_names_carry_is_the_convention_not_a_misspelling(tmp_path: Path) -> None:
    """`_Promo` on three names, each with its plain size's values (as Azure's promotional sizes
    have; data disks 8, 16, 32 as nc-a100-v4-series.md lines 57-59 give them): three sizes, no
    suspect. A token one name alone adds would be one."""
    sources = sources_with(tmp_path)
    sizes_and_values = ((24, 220, 8), (48, 440, 16), (96, 880, 32))
    rows = "\n".join(f"| Standard_NC{n}ads_A100_v4_Promo | {n} | {m} | {d} |" for n, m, d in sizes_and_values)
    (sources / "promo.md").write_text(
        "---\ntitle: NC A100 v4 promotional sizes\nms.service: virtual-machines\nms.topic: conceptual\n"
        "ms.date: 01/15/2024\n---\n\n# Promotional sizes\n\n"
        f"| Size | vCPU | Memory: GiB | Max data disks |\n|---|---|---|---|\n{rows}\n",
        encoding="utf-8",
    )
    result = build(sources, tmp_path / "output")
    assert [d for d in result.diagnostics if d.code == "suspect_size_name"] == []
    sizes = set(pd.read_parquet(tmp_path / "output" / "vm_sizes.parquet")["size"])
    assert {f"Standard_NC{n}ads_A100_v4_Promo" for n in (24, 48, 96)} <= sizes
