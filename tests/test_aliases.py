"""Which size names are sizes: a name a document uses for another size is evidence about that
size and a row of `names`, never a row of `vm_sizes`; a size only a superseded version of a page
lists is not current.

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
from pipeline.knowledge.registry import Source
from pipeline.records import BuildResult, Claim
from pipeline.runner import build
from pipeline.stages.aliases import resolve

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
        assert rename.detail == f"another name of {SIZE}"
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
    assert row["message"].startswith(f"{SUSPECT[way]} is not a size the sources know; it is another name of {SIZE}")
    assert row["message"].endswith(f"its claims count for {SIZE}")
    names = pd.read_parquet(out / "names.parquet")
    assert names[["name", "size", "certainty", "uses"]].values.tolist() == [
        [SUSPECT[way], SIZE, "certain", f"{PAGE}:{ROW_LINE}"]
    ]


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


def test_a_name_two_documents_use_is_likely_the_size_and_no_row(tmp_path: Path) -> None:
    """Both pages drop the GPU token, and an API catalog lists the size with it: two voices
    behind the name make it no certain misspelling, but it most likely stands for the size: a
    row of `names` (likely), its claims the size's, and no row of `vm_sizes`."""
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
    assert "Standard_NC24ads_v4" not in sizes.index and sizes.loc[SIZE, "status"] != "unverified"
    [name] = pd.read_parquet(out / "names.parquet").to_dict("records")
    assert (name["name"], name["size"], name["certainty"], name["documents"]) == (
        "Standard_NC24ads_v4",
        SIZE,
        "likely",
        2,
    )
    assert name["uses"] == f"{OLD_PAGE}:57; {PAGE}:{ROW_LINE}"
    assert name["evidence"].startswith(f"drops the token A100 of {SIZE}; every value equal to {SIZE}")
    assert name["evidence"].endswith("named by 2 documents; absent from the API")
    found = sorted((d.document, d.line) for d in result.diagnostics if d.code == "suspect_size_name")
    assert found == [(OLD_PAGE, 57), (PAGE, ROW_LINE)]
    assert all(
        f"most likely is another name of {SIZE}" in d.message
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


# Every name of sources/ that stands for another size, read off the pages by hand: the third-party
# ND and NG pages' short names (thirdparty-azure-nd-series.txt:55-57 "| ND6 | 6 | 112 GB | 1 x V100 |",
# thirdparty-azure-ng-series.txt:47-49 "| NG8 | 8 | 112 GB | 1 x A100 |"), the migration guide's
# ND-series rows (n-series-migration.md:76-79 "|Standard_ND6 | Standard_NC4as_T4_v3<br>or<br>...", the
# ND series' sizes are ND6s, ND12s, ND24s and ND24rs), and the older ND H100 v5 page's row
# (nd-h100-v5-series.md:51 "| Standard_ND96isr_v5 | 96 | 1900 | 1000 | 8 H100 80 GB GPUs (NVLink) |").
SHIPPED_NAMES = {
    "Standard_ND6": ("Standard_ND6s", ["n-series-migration.md:76", "thirdparty-azure-nd-series.txt:55"]),
    "Standard_ND12": ("Standard_ND12s", ["n-series-migration.md:77", "thirdparty-azure-nd-series.txt:56"]),
    "Standard_ND24": ("Standard_ND24s", ["n-series-migration.md:78", "thirdparty-azure-nd-series.txt:57"]),
    "Standard_ND24r": ("Standard_ND24rs", ["n-series-migration.md:79"]),
    "Standard_ND96isr_v5": ("Standard_ND96isr_H100_v5", ["nd-h100-v5-series.md:51"]),
    "Standard_NG8": ("Standard_NG8ads_V620_v1", ["thirdparty-azure-ng-series.txt:47"]),
    "Standard_NG16": ("Standard_NG16ads_V620_v1", ["thirdparty-azure-ng-series.txt:48"]),
    "Standard_NG32": ("Standard_NG32ads_V620_v1", ["thirdparty-azure-ng-series.txt:49"]),
}


def test_every_name_of_the_shipped_sources_that_stands_for_another_size_is_a_name(shipped: BuildResult) -> None:
    """The third parties' and the superseded page's spellings are rows of `names`, each with the
    size it stands for and every line that uses it; none is a size, and no real size is a name."""
    found = {a.name: (a.size, sorted(f"{d.rsplit('/', 1)[-1]}:{line}" for d, line in a.uses)) for a in shipped.names}
    assert found == SHIPPED_NAMES
    assert all(not a.certain for a in shipped.names)  # none is a mere spelling of its size's name
    sizes = {f.entity for f in shipped.facts if f.entity_kind == "size"}
    assert not sizes & set(found) and {size for size, _ in found.values()} <= sizes
    # Their values count for the size they stand for, under the name as written.
    moved = [c for c in shipped.claims if c.name_as_written and c.name_as_written.strip() == "NG8"]
    assert moved and {c.entity for c in moved} == {"Standard_NG8ads_V620_v1"}
    # No name an API catalog lists is ever read as another's.
    listed = {c.entity for c in shipped.claims if c.document.startswith("catalogs/")}
    assert len(listed) >= 60 and not listed & set(found)


def test_a_name_with_fewer_letters_says_why_it_stands_for_the_size(shipped: BuildResult) -> None:
    [nd24r] = [a for a in shipped.names if a.name == "Standard_ND24r"]
    assert nd24r.why.startswith(
        "leaves out the feature letter 's' of Standard_ND24rs, the one size of family ND with 24 vCPUs and those "
        "letters that an API catalog and an official size table lists; no API catalog or official size table lists "
        "Standard_ND24r"
    )
    [ng8] = [a for a in shipped.names if a.name == "Standard_NG8"]
    assert "leaves out the feature letters 'ads', the accelerator V620 and the version v1" in ng8.why
    assert ng8.written == ("NG8",)
    # What its row says against the size's, read by hand: 112 GB of memory where the size has 16.
    assert "memory_gib 112 against 16" in ng8.why


@pytest.mark.parametrize(
    ("name", "listed", "means"),
    [
        # One size with the name's letters and more: it stands for that size.
        ("Standard_ND24r", ["Standard_ND24rs"], "Standard_ND24rs"),
        # The fewest added letters decide: s over rs.
        ("Standard_ND24", ["Standard_ND24s", "Standard_ND24rs"], "Standard_ND24s"),
        # Two sizes one letter away each: no single size it stands for, so it stays a size.
        ("Standard_ND96_v5", ["Standard_ND96a_v5", "Standard_ND96s_v5"], None),
        # Another version is another size, not a spelling.
        ("Standard_ND6_v3", ["Standard_ND6s"], None),
        # More letters than the listed size: another size (the NVv3 retirement list's NV12hs_v3).
        ("Standard_NV12hs_v3", ["Standard_NV12s_v3"], None),
        # Another accelerator than the listed size's.
        ("Standard_NG8_A100", ["Standard_NG8ads_V620_v1"], None),
    ],
)
def test_a_name_no_size_table_lists_stands_for_the_one_size_with_its_letters_and_more(
    name: str, listed: list[str], means: str | None
) -> None:
    """A name only a third party (or an official list) writes, against sizes an API catalog lists."""
    sources = {
        "third.md": Source("third.md", "x", "third_party", None, None, 0.4, None, "registry"),
        "api.csv": Source("api.csv", "x", "api_catalog", None, None, 0.95, None, "registry"),
    }
    claims = [_claim("third.md", name), *(_claim("api.csv", size) for size in listed)]
    names = resolve(claims, sources)
    assert [(a.name, a.size, a.certain) for a in names.aliases] == ([(name, means, False)] if means else [])


def test_a_page_that_names_both_tells_them_apart() -> None:
    """A list that names ND24r beside ND24rs names two sizes: ND24r is no spelling of the other."""
    sources = {
        "list.md": Source("list.md", "x", "official_spec", None, None, 0.95, None, "registry"),
        "api.csv": Source("api.csv", "x", "api_catalog", None, None, 0.95, None, "registry"),
    }
    claims = [
        _claim("list.md", "Standard_ND24r"),
        _claim("list.md", "Standard_ND24rs"),
        _claim("api.csv", "Standard_ND24rs"),
    ]
    assert resolve(claims, sources).aliases == ()


def _claim(document: str, size: str, attribute: str = "series", value: str = "ND") -> Claim:
    return Claim(
        f"{document}-{size}",
        document,
        3,
        "",
        None,
        None,
        None,
        size,
        "paragraph",
        size,
        "size",
        attribute,
        value,
        value_text=value,
    )


def test_a_size_only_the_older_version_of_a_page_lists_is_not_current(shipped: BuildResult) -> None:
    """nc-rtxpro6000bsev6-series.md (2025-10-21) lists Standard_NC16lds_xl_RTXPRO6000BSE_v6 (line 57:
    `|Standard_NC16lds_xl_RTXPRO6000BSE_v6|16|64|`); its newer version nc-rtxpro6000-bse-v6-series.md
    (2025-12-05) lists only the 128, 256 and 320 vCPU ds and lds sizes (lines 33-35, 124-126). No API
    catalog lists the older sizes: unverified, the reason naming both pages, and nothing of the series
    (the newer page's preview label) given to them."""
    older = "azure-docs/azure-compute-docs/articles/virtual-machines/sizes/gpu-accelerated/nc-rtxpro6000bsev6-series.md"
    newer = (
        "azure-docs/azure-compute-docs/articles/virtual-machines/sizes/gpu-accelerated/nc-rtxpro6000-bse-v6-series.md"
    )
    gone = {
        f"Standard_NC{n}_xl_RTXPRO6000BSE_v6"
        for n in ("16lds", "32ds", "32lds", "32mds", "64ds", "64lds", "64mds", "128mds")
    }
    kept = {f"Standard_NC{n}_xl_RTXPRO6000BSE_v6" for n in ("128ds", "128lds", "256ds", "256lds", "320ds", "320lds")}
    for size in gone:
        facts = {f.attribute: f for f in shipped.facts if f.entity == size}
        assert facts and all(f.status == "unverified" for f in facts.values()), size
        assert "lifecycle" not in facts and all(f.inherited_from is None for f in facts.values()), size
        assert facts["memory_gib"].reason.startswith(
            f"Not current: only {older} (2025-10-21) lists it; the current version {newer} (2025-12-05) lists 6 sizes "
            "of series NC_RTXPRO6000BSE_v6, and not this one"
        ), size
    for size in kept:
        facts = {f.attribute: f for f in shipped.facts if f.entity == size}
        assert facts["lifecycle"].value_text == "preview" and facts["memory_gib"].status != "unverified", size


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
