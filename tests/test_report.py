"""The HTML report: every section, the right counts, the disputes with their documents, and
document text that can never become markup."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pandas as pd
import pytest

from pipeline.outputs.report import render_report
from pipeline.runner import compute

SOURCES = Path(__file__).resolve().parent.parent / "sources"
SCRIPT = "<script>alert(1)</script>"
IMG = "<img src=x onerror=alert(1)>"


@pytest.fixture(scope="module")
def frames() -> dict[str, pd.DataFrame]:
    _, frames = compute(SOURCES)
    return frames


@pytest.fixture(scope="module")
def page(frames: dict[str, pd.DataFrame]) -> str:
    return render_report(frames)


class _Text(HTMLParser):
    """Visible text of a fragment, tags dropped and entities decoded, as a reader sees it."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []

    def handle_data(self, data: str) -> None:
        self.parts.append(data)


def text(fragment: str) -> str:
    parser = _Text()
    parser.feed(fragment)
    return " ".join("".join(parser.parts).split())


def counts(page: str) -> dict[str, int]:
    return {k: int(v) for k, v in re.findall(r'data-count="([^"]+)">(\d+)<', page)}


def conflict_block(page: str, entity: str, attribute: str) -> str:
    found = re.findall(
        rf'<article [^>]*data-entity="{re.escape(entity)}" data-attribute="{re.escape(attribute)}".*?</article>',
        page,
        flags=re.S,
    )
    assert len(found) == 1, f"expected one conflict block for {entity} {attribute}, found {len(found)}"
    return str(found[0])


def test_sections_present(page: str) -> None:
    for section in ("summary", "sizes", "conflicts", "documents", "diagnostics"):
        assert f'id="{section}"' in page
    assert page.startswith("<!DOCTYPE html>")
    assert page.count("<script") == 1, "the page's own script is the only one"


def test_summary_counts(page: str, frames: dict[str, pd.DataFrame]) -> None:
    got = counts(page)
    assert got["documents"] == len(frames["documents"])
    assert got["sizes"] == len(frames["vm_sizes"])
    assert got["facts"] == len(frames["facts"])
    assert got["diagnostics"] == len(frames["diagnostics"])
    for status, n in frames["facts"]["status"].value_counts().items():
        assert got[f"facts.{status}"] == n
    for status, n in frames["vm_sizes"]["status"].value_counts().items():
        assert got[f"sizes.{status}"] == n
    for severity in ("error", "warning", "info"):
        assert got[f"diagnostics.{severity}"] == int((frames["diagnostics"]["severity"] == severity).sum())
    for kind, n in frames["documents"]["kind"].value_counts().items():
        assert got[f"documents.{kind}"] == n
    disputes = frames["conflicts"][["entity", "attribute"]].drop_duplicates()
    assert got["conflicts"] == len(disputes)
    assert page.count('<article id="conflict-') == len(disputes)


def test_every_size_has_a_row_with_marked_values(page: str, frames: dict[str, pd.DataFrame]) -> None:
    for size in frames["vm_sizes"]["size"]:
        assert f'data-size="{size}"' in page
    row = re.search(r'<tr data-item data-size="Standard_ND40rs_v2"[^>]*>.*?</tr>', page, flags=re.S)
    assert row is not None
    cell = re.search(r'<td [^>]*data-attribute="gpu_memory_gib"[^>]*>.*?</td>', row.group(0), flags=re.S)
    assert cell is not None
    facts = frames["facts"]
    fact = facts[(facts["entity"] == "Standard_ND40rs_v2") & (facts["attribute"] == "gpu_memory_gib")].iloc[0]
    shown = text(cell.group(0))
    # Status as a word and confidence as a number, not only as a colour.
    assert "32" in shown
    assert str(fact["status"]).replace("_", " ") in shown
    assert f"{float(fact['confidence']):.2f}" in shown


def size_cell(page: str, size: str, attribute: str) -> str:
    """The first cell of `attribute` in the first size table that has the column, for `size`."""
    rows = re.findall(rf'<tr data-item data-size="{re.escape(size)}"[^>]*>.*?</tr>', page, flags=re.S)
    cells = [re.search(rf'<td [^>]*data-attribute="{attribute}"[^>]*>.*?</td>', row, flags=re.S) for row in rows]
    found = [cell.group(0) for cell in cells if cell]
    assert found, f"no {attribute} cell for {size}"
    return found[0]


@pytest.mark.parametrize(
    ("size", "attribute", "opening", "shown"),
    [
        # ndv2-series.md:41 `| Standard_ND40rs_v2 | 40 | 672 | 2948 | 8 V100 32 GB (NVLink) | 32 | ...`
        pytest.param(
            "Standard_ND40rs_v2",
            "vcpus",
            '<td class="v num" data-attribute="vcpus" data-status="agreed" data-sort="40.0"',
            "40✓agreed 1.00",
            id="a-number-every-source-agrees-on",
        ),
        pytest.param(
            "Standard_ND40rs_v2",
            "gpu_memory_gib",
            '<td class="v num" data-attribute="gpu_memory_gib" data-status="resolved" data-sort="32.0"',
            # The official page that won is of 2020-02-03, 1,688 days before the newest page.
            "32◆resolved 0.95stale",
            id="a-number-a-stronger-but-stale-source-won",
        ),
        # nc-series.md:14 "powered by the NVIDIA Tesla K80": stated for the series, not the size.
        pytest.param(
            "Standard_NC12",
            "gpu_model",
            '<td class="v txt" data-attribute="gpu_model" data-status="agreed" data-sort="K80"',
            "K80✓agreed 0.99inherited",
            id="a-text-inherited-from-its-series",
        ),
        # nvv3-series-retirement.md:19 names Standard_NV12hs_v3 and no value of it: its GPU count is copied
        # from Standard_NV12s_v3 (nvv3-series.md:111), shown apart as no statement about the size.
        pytest.param(
            "Standard_NV12hs_v3",
            "gpu_count",
            '<td class="v num inferred" data-attribute="gpu_count" data-status="single_source" data-sort="1.0"',
            "1○single source 0.95copied from",
            id="a-number-copied-from-a-sibling-is-shown-apart",
        ),
        # ndv2-series.md states each GPU's memory; nothing states ND40s_v2's total.
        pytest.param(
            "Standard_ND40s_v2",
            "gpu_memory_total_gib",
            '<td class="v empty" data-attribute="gpu_memory_total_gib" data-sort="">',
            "—",
            id="no-value-no-fact",
        ),
    ],
)
def test_a_size_cell_shows_its_value_status_confidence_and_flags(
    page: str, size: str, attribute: str, opening: str, shown: str
) -> None:
    cell = size_cell(page, size, attribute)
    assert cell.startswith(opening)
    assert text(cell) == shown


def test_an_inherited_value_says_where_from_when_hovered(page: str) -> None:
    tip = re.search(r'title="([^"]*)"', size_cell(page, "Standard_NC12", "gpu_model"))
    assert tip is not None and tip.group(1).endswith("agree. inherited from series NC")


def size_tables(page: str) -> dict[str, list[tuple[str, str, str]]]:
    """Each size table's title and its columns in order, each as its name, label and unit."""
    found = re.findall(r'<h3 class="table-title">([^<]*)</h3>.*?<thead>(.*?)</thead>', page, flags=re.S)
    heading = (
        r'<th scope="col" title="(\w+): [^"]*"><button type="button">'
        r'<span>([^<]*?)\s*(?:<span class="core">core</span>)?</span>(?:<span class="unit">([^<]*)</span>)?'
    )
    return {title: re.findall(heading, head) for title, head in found}


@pytest.mark.parametrize(
    ("title", "before", "after"),
    [
        pytest.param(
            "Compute and GPU",
            ("gpu_memory_gib", "GPU memory", "GiB per GPU"),
            ("gpu_memory_total_gib", "GPU memory", "GiB in total"),
            id="gpu-memory-total",
        ),
        pytest.param(
            "Storage and network",
            ("nvme_disk_size_gib", "NVMe disk size", "GiB"),
            ("nvme_disk_total_gib", "NVMe disks", "GiB in total"),
            id="nvme-total",
        ),
    ],
)
def test_a_total_is_headed_in_words_beside_the_size_of_one(
    page: str, title: str, before: tuple[str, str, str], after: tuple[str, str, str]
) -> None:
    tables = size_tables(page)
    columns = tables[title]
    assert columns[columns.index(before) + 1] == after
    assert after[0] not in [name for name, _, _ in tables.get("Other attributes", [])]


@pytest.mark.parametrize(
    ("size", "family"),
    [
        pytest.param("Standard_NC24ads_A100_v4", "NC", id="NC"),
        pytest.param("Standard_NCC40ads_H100_v5", "NC", id="NCC-is-an-NC-size"),
        pytest.param("Standard_ND96isr_H100_v5", "ND", id="ND"),
        pytest.param("Standard_NG8ads_V620_v1", "NG", id="NG"),
        pytest.param("Standard_NV6", "NV", id="NV"),
    ],
)
def test_each_size_row_is_filed_under_its_family(page: str, size: str, family: str) -> None:
    rows = re.findall(rf'<tr data-item data-size="{re.escape(size)}"[^>]*>', page)
    assert rows and all(f'data-family="{family}"' in row for row in rows)


def test_the_family_filter_lists_each_family_with_its_count(page: str, frames: dict[str, pd.DataFrame]) -> None:
    select = re.search(r'<select data-family="sizes">(.*?)</select>', page, flags=re.S)
    assert select is not None
    options = dict(re.findall(r'<option value="([^"]*)">[^<]*?\((\d+)\)</option>', select.group(1)))
    families = frames["vm_sizes"]["size"].str.extract(r"^Standard_(N[A-Z])")[0].value_counts()
    assert options.pop("") == str(len(frames["vm_sizes"]))
    assert options == {f: str(n) for f, n in families.items()}
    assert set(options) == {"NC", "ND", "NG", "NP", "NV"}


def test_retired_sizes_are_shown_as_retired(page: str, frames: dict[str, pd.DataFrame]) -> None:
    sizes = frames["vm_sizes"]
    retired = set(sizes.loc[sizes["lifecycle"] == "retired", "size"])
    # The NV-series retired on 2023-09-06 (nv-series.md:17); NVv3 retires on 2026-09-30, after the newest page.
    assert {"Standard_NV6", "Standard_NC6", "Standard_ND6s"} <= retired and "Standard_NV12s_v3" not in retired
    for size in sizes["size"]:
        [row] = re.findall(rf'<tr data-item data-size="{re.escape(size)}"[^>]*>.*?</tr>', page, flags=re.S)[:1]
        assert ('class="retired"' in row.split(">", 1)[0]) == (size in retired), size
        assert ("RETIRED" in text(row)) == (size in retired), size
    nv6 = re.search(r'<tr data-item data-size="Standard_NV6"[^>]*>.*?</tr>', page, flags=re.S)
    assert nv6 is not None and "retirement: 2023-09-06" in text(nv6.group(0))
    assert f"hide the {len(retired)} retired sizes" in text(page)


def test_nd40rs_v2_gpu_memory_conflict(page: str, frames: dict[str, pd.DataFrame]) -> None:
    block = conflict_block(page, "Standard_ND40rs_v2", "gpu_memory_gib")
    assert 'data-value="32"' in block
    assert 'data-value="16"' in block
    shown = text(block)
    rows = frames["conflicts"]
    rows = rows[(rows["entity"] == "Standard_ND40rs_v2") & (rows["attribute"] == "gpu_memory_gib")]
    for documents in rows["documents"]:
        for ref in documents.split("; "):
            assert ref in shown, f"{ref} missing from the conflict block"
    assert "seeds/thirdparty-azure-nd-series.txt:58" in shown
    facts = frames["facts"]
    reason = facts[(facts["entity"] == "Standard_ND40rs_v2") & (facts["attribute"] == "gpu_memory_gib")]["reason"]
    # The whole reason, not only the conflict row's shorter note (its first clause).
    assert "the third-party value 16 GiB matches the retired ND40s_v2" in reason.iloc[0]
    assert f"Why the chosen value won: {reason.iloc[0]}" in shown
    # The winner comes first, marked as chosen in words.
    assert block.index('data-value="32"') < block.index('data-value="16"')
    assert "chosen" in shown.lower()


def test_the_names_section_says_what_each_name_stands_for_and_where_it_is_used(page: str) -> None:
    """seeds/thirdparty-azure-ng-series.txt:47 "| NG8 | 8 | 112 GB | 1 x A100 | 40 GB | ..." stands for
    Standard_NG8ads_V620_v1; the older ND H100 v5 page's line 51 for Standard_ND96isr_H100_v5."""
    section = re.search(r'<section id="names".*?</section>', page, flags=re.S)
    assert section is not None
    rows = {
        text(cells[0]): [text(cell) for cell in cells[1:]]
        for cells in (
            re.findall(r"<td[^>]*>(.*?)</td>", row) for row in re.findall(r"<tr data-item>(.*?)</tr>", section.group(0))
        )
    }
    assert len(rows) == 8
    size, certainty, evidence, used = rows["Standard_NG8written NG8"]
    assert (size, certainty, used) == ("Standard_NG8ads_V620_v1", "likely", "seeds/thirdparty-azure-ng-series.txt:47")
    assert evidence.startswith("leaves out the feature letters 'ads'")
    # A use by a page with an upstream copy links to its line there (sources/upstream.lock's commit).
    upstream = (
        "https://github.com/MicrosoftDocs/azure-docs/blob/142681b3e310d39cd4ac4667663e23c2f7cd5eb3/"
        "articles/virtual-machines/nd-h100-v5-series.md#L51"
    )
    assert rows["Standard_ND96isr_v5written Standard_ND96isr_v5"][0] == "Standard_ND96isr_H100_v5"
    assert f'href="{upstream}"' in section.group(0)


LINE_12 = f"https://github.com/o/r/blob/{'0' * 40}/b.md#L12"


@pytest.mark.parametrize(
    ("links", "linked"),
    [
        # seeds/a.md has no upstream copy, b.md has: its line 12 is not a.md's.
        (f"; {LINE_12}", [(LINE_12, '<span class="dir">docs/</span><b>b.md</b><span class="line">:12</span>')]),
        # Links that do not line up with the uses (one for two): none, rather than another line's.
        (LINE_12, []),
    ],
)
def test_a_name_used_on_the_same_line_of_two_documents_links_each_to_its_own(
    links: str, linked: list[tuple[str, str]]
) -> None:
    name = {"name": "Standard_X", "written": "X", "size": "Standard_Xs", "certainty": "likely", "evidence": "e"}
    page = render_report({"names": pd.DataFrame([{**name, "uses": "seeds/a.md:12; docs/b.md:12", "links": links}])})
    section = re.search(r'<section id="names".*?</section>', page, flags=re.S)
    assert section is not None
    assert re.findall(r'href="([^"]*)"[^>]*>(.*?)</a>', section.group(0)) == linked


def test_flags_read_yes_and_no_as_in_the_size_tables(page: str) -> None:
    block = conflict_block(page, "ND A100 v4", "accelerated_networking")
    assert 'data-value="true"' in block and 'data-value="false"' in block, "the stored values stay in the data"
    assert '<span class="big">yes</span>' in block and '<span class="big">no</span>' in block
    assert block.index('<span class="big">yes</span>') < block.index('<span class="big">no</span>'), "winner first"


def hostile(frames: dict[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
    """The shipped frames with markup in the places documents feed."""
    out = {name: df.copy() for name, df in frames.items()}
    bad = f"{SCRIPT} {IMG}"
    out["documents"].loc[0, "title"] = bad
    conflicts = out["conflicts"]
    pick = conflicts.index[(conflicts["entity"] == "Standard_ND40rs_v2") & (conflicts["value"] == "16")][0]
    conflicts.loc[pick, "value"] = bad
    conflicts.loc[pick, "note"] = bad
    claims = out["claims"]
    for claim_id in str(conflicts.loc[pick, "claims"]).split():
        claims.loc[claims["claim_id"] == claim_id, "raw_text"] = bad
    out["facts"].loc[0, "reason"] = bad
    out["diagnostics"].loc[0, "message"] = bad
    out["vm_sizes"].loc[0, "gpu_model"] = bad
    out["vm_sizes"].loc[0, "value_basis"] = bad
    out["names"].loc[0, "evidence"] = bad
    out["names"].loc[0, "written"] = bad
    return out


def test_document_text_is_escaped(frames: dict[str, pd.DataFrame]) -> None:
    page = render_report(hostile(frames), title=f"Report {SCRIPT}")
    assert SCRIPT not in page
    assert IMG not in page
    assert "<img" not in page
    assert page.count("<script") == 1
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "&lt;img src=x onerror=alert(1)&gt;" in page
    # Escaped, the text still reaches the reader: the title, the raw text, the note.
    shown = text(page)
    assert shown.count(SCRIPT) >= 6


PERMALINK_TO_A_LINE = re.compile(r"https://github\.com/MicrosoftDocs/[\w-]+/blob/[0-9a-f]{40}/\S+#L\d+")


def test_deterministic_and_offline(frames: dict[str, pd.DataFrame], page: str) -> None:
    assert render_report(frames) == page
    assert not re.search(r'src="(?:https?:)?//', page), "the page loads nothing from the network"
    assert not re.search(r'<link [^>]*href="(?:https?:)?//', page), "the page loads nothing from the network"
    # The only addresses elsewhere are links a reader may follow: the lines upstream.
    links = re.findall(r'<a [^>]*href="((?:https?:)?//[^"]*)"', page)
    assert links and all(PERMALINK_TO_A_LINE.fullmatch(link) for link in links)
    assert "Content-Security-Policy" in page


def test_a_claims_document_and_line_link_to_the_line_upstream(page: str) -> None:
    block = conflict_block(page, "Standard_ND40rs_v2", "gpu_memory_gib")
    upstream = (
        "https://github.com/MicrosoftDocs/azure-docs/blob/00e046fdd31b252b88de7f61be9023afc3dd5b31/"
        "articles/virtual-machines/ndv2-series.md#L41"
    )
    assert re.search(rf'<a class="where mono" href="{re.escape(upstream)}">.*?<span class="line">:41</span></a>', block)
    # A seed has no upstream: its document and line stay plain text.
    assert re.search(r'<span class="where mono">.*?thirdparty-azure-nd-series\.txt</b><span class="line">:58<', block)


def test_a_permalink_is_escaped_like_any_other_text(frames: dict[str, pd.DataFrame]) -> None:
    out = {name: df.copy() for name, df in frames.items()}
    docs = out["documents"]
    docs.loc[docs["document"] == "azure-docs/azure-docs/articles/virtual-machines/ndv2-series.md", "url"] = (
        f'https://github.com/x"><{SCRIPT}'
    )
    page = render_report(out)
    assert SCRIPT not in page
    assert 'href="https://github.com/x&quot;&gt;&lt;&lt;script&gt;alert(1)&lt;/script&gt;#L41"' in page


def test_missing_tables_do_not_break_the_page() -> None:
    page = render_report({})
    for section in ("summary", "sizes", "conflicts", "diagnostics"):
        assert f'id="{section}"' in page
    assert counts(page)["documents"] == 0


def test_long_sections_show_the_first_items_and_name_the_table_with_the_rest(
    frames: dict[str, pd.DataFrame], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 3,000-document corpus made an 84 MB page; past the limit a section shows its first
    items and says where every row is, while the summary still counts them all."""
    monkeypatch.setattr("pipeline.outputs.report.rows.SECTION_LIMIT", 5)
    page = render_report(frames)
    sizes = list(frames["vm_sizes"]["size"])
    n_sizes, n_documents = len(sizes), len(frames["documents"])
    assert n_sizes > 5 and n_documents > 5
    assert f'data-size="{sizes[4]}"' in page and f'data-size="{sizes[5]}"' not in page
    assert f"Showing the first 5 of {n_sizes}; every row is in vm_sizes.parquet and vm_sizes.csv." in text(page)
    assert f"Showing the first 5 of {n_documents}; every row is in documents.parquet and documents.csv." in text(page)
    assert page.count('<article id="conflict-') == 5
    assert counts(page)["sizes"] == n_sizes and counts(page)["documents"] == n_documents


def test_an_attribute_only_sizes_past_the_limit_have_is_not_called_empty(
    frames: dict[str, pd.DataFrame], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The page converts only the facts of the sizes it shows; whether a column is empty
    is still answered from every fact."""
    from pipeline.outputs.report import ROW_HEAD_ATTRIBUTES
    from pipeline.outputs.schema import VM_SIZE_ATTRIBUTES

    monkeypatch.setattr("pipeline.outputs.report.rows.SECTION_LIMIT", 5)
    sizes, facts = frames["vm_sizes"].copy(), frames["facts"]
    last = sizes["size"].iloc[-1]
    attr = next(
        a
        for a in VM_SIZE_ATTRIBUTES
        if a not in ROW_HEAD_ATTRIBUTES and ((facts["entity"] == last) & (facts["attribute"] == a)).any()
    )
    sizes[attr] = pd.NA
    of_attr = facts["attribute"] == attr
    only_last = {**frames, "vm_sizes": sizes, "facts": facts[~of_attr | (facts["entity"] == last)]}
    none_at_all = {**frames, "vm_sizes": sizes, "facts": facts[~of_attr]}
    said = re.compile(r"No size has a value for ([^.]*)\.")
    assert attr not in " ".join(said.findall(text(render_report(only_last))))
    assert attr in " ".join(said.findall(text(render_report(none_at_all))))


def test_docs_vs_api_lists_each_disagreement_and_the_reliability_table(page: str) -> None:
    section = re.search(r'<section id="docs-vs-api".*?</section>', page, flags=re.S)
    assert section is not None
    cells = [
        [text(cell) for cell in re.findall(r"<td[^>]*>(.*?)</td>", row)]
        for row in re.findall(r"<tr data-item>(.*?)</tr>", section.group(0))
    ]
    rows = {(size, attribute): rest for size, attribute, *rest in cells}
    # The H100's GPU count: the page's 8 (ndh100v5-series.md:121, "8 | 640") against the v6
    # catalog's 12 (line 124), which cannot have 640 GiB of H100 memory.
    docs, api, why = rows[("Standard_ND96isr_H100_v5", "gpu_count")]
    assert (docs, api) == ("8 GPU ✓", "12 GPU") and "fails gpu_count_memory" in why
    # ND96amsr's memory: 1,900 GiB on the pages, 1,924 in the v4 catalog (line 126), 1,800 in v6 (line 118).
    docs, api, _ = rows[("Standard_ND96amsr_A100_v4", "memory_gib")]
    assert docs == "1,900 GiB" and "1,800 GiB ✓" in api and "1,924 GiB" in api
    # The reliability table: one bin of 298 values, the ECE to four places (output/calibration.csv).
    shown = text(section.group(0))
    assert "Does confidence mean what it says?" in shown
    assert "310 values the pages alone give" in shown
    assert re.search(r"Expected calibration error 0\.0\d\d\d", shown)
    assert "<td>0.95-1.00</td>" in section.group(0)


def test_the_written_page_is_the_rendered_page(frames: dict[str, pd.DataFrame], page: str, tmp_path: Path) -> None:
    """The build writes the page a section at a time (the whole of it at once was the largest
    memory of its process): the file is the page `render_report` gives, in UTF-8, LF only."""
    from pipeline.outputs.report import write_report

    write_report(frames, tmp_path / "report.html")
    written = (tmp_path / "report.html").read_bytes()
    assert written == page.encode("utf-8")
    # A process that only makes the report gives the frames up: they are let go once read.
    given = {name: df.copy() for name, df in frames.items()}
    write_report(given, tmp_path / "given.html", consume=True)
    assert given == {}
    assert (tmp_path / "given.html").read_bytes() == written
    assert b"\r" not in written and written.startswith(b"<!DOCTYPE html>\n")
    assert written.count(b"<section") >= 6 and written.endswith(b"</body></html>\n")


def test_of_the_two_largest_tables_the_page_holds_only_the_rows_and_columns_it_shows(
    frames: dict[str, pd.DataFrame],
) -> None:
    """At 10,000 documents the claims and facts tables are hundreds of MB: the page converts the
    claims its disputes cite and the facts it shows, with only the columns it reads of them."""
    from pipeline.outputs.report import CLAIM_COLUMNS, FACT_COLUMNS, _rows

    rows = _rows(frames)
    assert {k for r in rows["claims"] for k in r} == set(CLAIM_COLUMNS)
    assert {k for r in rows["facts"] for k in r} == set(FACT_COLUMNS)
    cited = {i for r in rows["conflicts"] for i in str(r.get("claims") or "").split()}
    assert {r["claim_id"] for r in rows["claims"]} == cited & set(frames["claims"]["claim_id"])
    assert 0 < len(rows["claims"]) < len(frames["claims"])


def test_the_page_reads_only_its_tables_and_converts_no_other(frames: dict[str, pd.DataFrame], page: str) -> None:
    """The page reads no prices: its rows hold none, and without them it is the same page (a
    build hands it, and reads back from their files, only the tables it reads)."""
    from pipeline.outputs import report

    assert "prices" in frames and "prices" not in report.rows.TABLES
    assert set(report._rows(frames)) == set(report.rows.TABLES)
    assert render_report({n: df for n, df in frames.items() if n in report.rows.TABLES}) == page


@pytest.mark.parametrize("limit", [None, 1, 5])
def test_the_page_reads_no_column_but_those_reads_names(
    frames: dict[str, pd.DataFrame], page: str, limit: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A build that takes the tables and the page of the output it replaces knows a page by the
    columns `READS` names of those tables (of the documents, not their digests or line counts):
    given only those columns, the page is the same, however many rows it shows in full."""
    from pipeline.outputs import report

    if limit is not None:
        monkeypatch.setattr(report.rows, "SECTION_LIMIT", limit)
    whole = render_report(frames)
    assert limit is not None or whole == page
    only = {n: df[[c for c in df.columns if c in report.READS.get(n, df.columns)]] for n, df in frames.items()}
    assert set(only["documents"].columns) == set(report.READS["documents"]) < set(frames["documents"].columns)
    assert render_report(only) == whole


@pytest.mark.parametrize("limit", [1, 5, 40])
def test_rows_the_page_does_not_show_are_held_in_part_and_the_page_is_the_same(
    frames: dict[str, pd.DataFrame], monkeypatch: pytest.MonkeyPatch, limit: int
) -> None:
    """Past the limit, a size or a dispute's values are only counted (and a dispute with an API
    catalog is shown whatever the limit, in Docs vs API): their rows hold the counted columns.
    The page is the one every row held whole gives; a value only a size past the limit has
    still keeps its column from being called empty."""
    from pipeline.outputs import report

    monkeypatch.setattr(report.rows, "SECTION_LIMIT", limit)
    sizes = frames["vm_sizes"].copy()
    sizes.loc[: min(limit, len(sizes)) - 1, "max_data_disks"] = pd.NA  # a value only past the limit
    assert sizes["max_data_disks"].notna().any()
    # and no fact of it: whether the column is empty is then read from vm_sizes alone
    given = {**frames, "vm_sizes": sizes, "facts": frames["facts"].query("attribute != 'max_data_disks'")}
    held = report._rows(given)
    assert {k for r in held["vm_sizes"][limit:] for k in r} == set(report.SIZE_COUNTED)
    assert any(set(r) == set(report.CONFLICT_COUNTED) for r in held["conflicts"])
    page = render_report(given)
    monkeypatch.setattr(report.rows, "_COUNTED", {})
    assert report._rows(given)["vm_sizes"][limit:][0].keys() == set(sizes.columns)
    assert render_report(given) == page


def test_the_facts_the_page_shows_are_picked_a_block_of_rows_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """The rows of a frame whose string columns are several Arrow chunks (the halves of a
    divided reconcile) are picked block by block, with the same rows and values as a filter of
    the whole frame gives, across the blocks' and the chunks' edges alike."""
    import numpy as np
    import pyarrow as pa

    from pipeline.outputs import report

    halves = [
        pa.array(["NC6", None, "ND40rs_v2", "NC6"], pa.large_string()),
        pa.array(["NV12", "NC6"], pa.large_string()),
    ]
    df = pd.DataFrame(
        {
            "entity": pd.Series(pd.arrays.ArrowStringArray(pa.chunked_array(halves))),
            "confidence": pd.array([0.9, 0.5, None, 0.7, 0.1, 0.3], dtype="Float64"),
            "unshown": [1, 2, 3, 4, 5, 6],
        }
    )
    pick = np.array([True, True, False, True, False, True])
    whole = report._dicts(df[pick], ("entity", "confidence"))
    monkeypatch.setattr(report.rows, "PICK_BLOCK", 3)
    assert report._picked(df, pick, ("entity", "confidence")) == whole
    assert [row["entity"] for row in whole] == ["NC6", pd.NA, "NC6", "NC6"]
    assert [row["confidence"] for row in whole] == [0.9, 0.5, 0.7, 0.3]
    assert report._picked(df, np.zeros(6, dtype=bool), ("entity",)) == []


AMONG = [
    pytest.param({"NC6", "NV12"}, [True, False, False, True, True, True], id="two-names"),
    pytest.param({"ND40rs_v2"}, [False, False, True, False, False, False], id="one-name"),
    pytest.param(set(), [False] * 6, id="none-wanted"),
    pytest.param({"NC24"}, [False] * 6, id="a-name-not-there"),
]


@pytest.mark.parametrize(("wanted", "expected"), AMONG)
def test_a_text_column_is_looked_up_by_arrow_as_pandas_would(wanted: set[str], expected: list[bool]) -> None:
    """A null is in no set; a column of several Arrow chunks and one of Python objects give the
    answer pandas' `isin` gives, as an array the caller may write to."""
    import pyarrow as pa

    from pipeline.outputs import report

    halves = [
        pa.array(["NC6", None, "ND40rs_v2", "NC6"], pa.large_string()),
        pa.array(["NV12", "NC6"], pa.large_string()),
    ]
    arrow = pd.Series(pd.arrays.ArrowStringArray(pa.chunked_array(halves)))
    plain = pd.Series(["NC6", None, "ND40rs_v2", "NC6", "NV12", "NC6"], dtype=object)
    for column in (arrow, plain):
        got = report._among(column, wanted)
        assert got.tolist() == expected == column.isin(wanted).tolist()
        got[0] = not got[0]  # writable: the caller narrows it in place


def test_a_number_cell_is_the_same_whichever_cell_came_first() -> None:
    """What a number shows is made once per page (cached by value): 0.0 and -0.0 are one key
    there, and sort apart, so a zero is never taken from the cache."""
    from pipeline.outputs import report, schema

    column = {c.name: c for c in schema.tables()["vm_sizes"]}["gpu_count"]
    cells = [report._value_cell("Standard_X", "gpu_count", v, None, column) for v in (0.0, -0.0, 8.0, 8.0)]
    sorts = [re.search(r'data-sort="([^"]*)"', cell).group(1) for cell in cells]  # type: ignore[union-attr]
    assert sorts == ["0.0", "-0.0", "8.0", "8.0"]
    assert cells[2] == cells[3]


def test_the_errata_section_lists_each_erratum_with_its_line_upstream(
    page: str, frames: dict[str, pd.DataFrame]
) -> None:
    """nvadsv710-v5-series.md:79 "| Standard_NV4ads_V710_v5 | 2 | 7600 | 180 |": ten times its series' pattern."""
    section = re.search(r'<section id="errata".*?</section>', page, flags=re.S)
    assert section is not None
    rows = [
        [text(cell) for cell in re.findall(r"<td[^>]*>(.*?)</td>", row)]
        for row in re.findall(r"<tr data-item[^>]*>(.*?)</tr>", section.group(0))
    ]
    assert len(rows) == len(frames["errata"]) > 20
    where = "azure-docs/azure-compute-docs/articles/virtual-machines/sizes/gpu-accelerated/nvadsv710-v5-series.md:79"
    [slip] = [r for r in rows if r[0] == where]
    assert slip[1:5] == [
        "series_pattern",
        "7600",
        "uncached_disk_iops of Standard_NV4ads_V710_v5: 7600 IOPS",
        "760 IOPS",
    ]
    url = frames["errata"].set_index(["document", "line"]).loc[(where.rsplit(":", 1)[0], 79), "url"]
    assert f'href="{url}"' in section.group(0)
