"""The rows of the tables (pipeline/runner/tables.py) on the build of the shipped sources: what an
analyst who counts, filters and prices sizes from vm_sizes relies on, each asserted."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from pipeline.outputs.schema import VM_SIZE_ATTRIBUTES

RULES = ("name_convention", "sibling")


@pytest.fixture(scope="module")
def tables(shipped_output: Path) -> dict[str, pd.DataFrame]:
    names = ("vm_sizes", "facts", "claims", "prices", "diagnostics", "names")
    return {name: pd.read_parquet(shipped_output / f"{name}.parquet") for name in names}


def test_no_value_a_document_does_not_state_for_the_size_is_unmarked(tables: dict[str, pd.DataFrame]) -> None:
    """For every row of vm_sizes and every column with a value: a document states that value for
    the size itself (a supporting claim about the size, not a rule's), or the column is in the
    row's `inferred_attributes` and its fact says where the value comes from. And the other way:
    nothing stated is marked inferred."""
    sizes, facts, claims = tables["vm_sizes"], tables["facts"], tables["claims"].set_index("claim_id")
    about = {(str(f["entity"]), str(f["attribute"])): f for f in facts.to_dict("records")}
    columns = ["series", *VM_SIZE_ATTRIBUTES]
    checked = 0
    for row in sizes.to_dict("records"):
        inferred = set(str(row["inferred_attributes"]).split(", ")) if pd.notna(row["inferred_attributes"]) else set()
        for column in columns:
            fact = about.get((row["size"], column))
            if fact is None or pd.isna(row.get(column)):
                continue
            support = claims.loc[[i for i in str(fact["supporting_claims"]).split() if i in claims.index]]
            stated = bool(((support["entity"] == row["size"]) & ~support["method"].isin(RULES)).any())
            assert stated != (column in inferred), (row["size"], column, fact["basis"])
            assert (fact["basis"] in ("stated", "computed")) == stated, (row["size"], column, fact["basis"])
            if not stated:
                assert fact["basis"] in ("inherited", "sibling", "name")
                assert pd.notna(fact["basis_from"]) or fact["basis"] == "name"
            checked += 1
    assert checked > 1500 and (sizes["inferred_attributes"].notna()).sum() > 50


def test_the_row_says_where_each_inferred_value_comes_from(tables: dict[str, pd.DataFrame]) -> None:
    """Standard_NV12hs_v3 is named by the NVv3 retirement list alone (nvv3-series-retirement.md:19, "will
    retire the Standard_NV12s_v3, Standard_NV12hs_v3, ..."): its GPU count is copied from
    Standard_NV12s_v3, its GPU model is the NVv3 series', its vCPU count is read from its name."""
    row = tables["vm_sizes"].set_index("size").loc["Standard_NV12hs_v3"]
    basis = str(row["value_basis"])
    assert basis.startswith("stated for this size: 2 values; computed from stated values: lifecycle")
    assert "copied from the sibling size Standard_NV12s_v3: gpu_count, temp_storage_gib" in basis
    assert "inherited from series NVv3: gpu_model, gpu_memory_gib" in basis
    assert basis.endswith("read from the name: vcpus")
    assert {"gpu_count", "gpu_model", "vcpus"} <= set(str(row["inferred_attributes"]).split(", "))
    assert row["documents"] == 1  # the retirement list, not the sibling's pages


def test_a_size_every_value_of_which_is_stated_says_so(tables: dict[str, pd.DataFrame]) -> None:
    row = tables["vm_sizes"].set_index("size").loc["Standard_NC40ads_H100_v5"]
    assert not str(row["value_basis"]).startswith("stated for this size: 0")
    sizes = tables["vm_sizes"]
    assert sizes["value_basis"].nunique() > 20  # a per-row account, not one sentence for all


def test_a_series_statement_never_gives_a_size_what_its_name_denies(tables: dict[str, pd.DataFrame]) -> None:
    """The NDv2 pages say InfiniBand is supported (ndv2-series.md:36, "InfiniBand: Supported"), of
    ND40rs_v2: ND40s_v2, which their note names (line 27), has no `r` in its name, so no InfiniBand."""
    sizes = tables["vm_sizes"].set_index("size")
    assert pd.isna(sizes.loc["Standard_ND40s_v2", "infiniband"])
    assert sizes.loc["Standard_ND40rs_v2", "infiniband"]


@pytest.mark.parametrize(
    ("size", "series", "retired_on"),
    [
        # The migration guide's table under "NC-Series VMs featuring NVIDIA K80 GPUs"
        # (n-series-migration.md:52-55), and "These products will be retired on August 31st 2023" (l.18).
        ("Standard_NC6_Promo", "NC", "2023-08-31"),
        ("Standard_NC24r_Promo", "NC", "2023-08-31"),
        # Only the API catalogs list it; its name is of the NV_Promo series, which nv-series-summary.md:16
        # retires: "NV and NV_Promo series Azure virtual machines (VMs) will be retired on September 6, 2023".
        ("Standard_NV6_Promo", "NV_Promo", "2023-09-06"),
        ("Standard_NV24_Promo", "NV_Promo", "2023-09-06"),
    ],
)
def test_a_size_a_list_or_its_name_puts_in_a_retired_series_is_retired(
    tables: dict[str, pd.DataFrame], size: str, series: str, retired_on: str
) -> None:
    row = tables["vm_sizes"].set_index("size").loc[size]
    assert (row["series"], row["lifecycle"], str(row["retirement_date"])) == (series, "retired", retired_on)
    assert pd.isna(row["lowest_price_usd_per_hour"]) and pd.isna(row["price_per_gpu_hour_usd"])


def test_every_size_of_a_retired_series_is_retired(tables: dict[str, pd.DataFrame]) -> None:
    sizes = tables["vm_sizes"]
    for series in ("NC", "NC v2", "ND", "NV", "NV_Promo"):
        rows = sizes[sizes["series"] == series]
        assert len(rows) >= 3 and set(rows["lifecycle"]) == {"retired"}, series
        assert rows["retirement_date"].notna().all(), series


def test_a_size_the_migration_guide_names_is_found_in_the_docs(tables: dict[str, pd.DataFrame]) -> None:
    """n-series-migration.md:52 names Standard_NC6_Promo beside Standard_NC6: docs and API, not API only."""
    row = tables["vm_sizes"].set_index("size").loc["Standard_NC6_Promo"]
    assert row["found_in"] == "docs and API" and row["documents"] == 3  # the guide and the two catalog snapshots


def test_the_a100_rows_are_the_a100_sizes_the_official_pages_name(tables: dict[str, pd.DataFrame]) -> None:
    """The A100 sizes official pages name: the NC A100 v4 series' three (nca100v4-series.md) and the
    ND A100 v4 and NDm A100 v4 series' one each. The third party's NG8, NG16 and NG32 with their
    A100s are names of the NGads V620 sizes, never A100 rows."""
    sizes = tables["vm_sizes"]
    assert sorted(sizes.loc[sizes["gpu_model"] == "A100", "size"]) == [
        "Standard_NC24ads_A100_v4",
        "Standard_NC48ads_A100_v4",
        "Standard_NC96ads_A100_v4",
        "Standard_ND96amsr_A100_v4",
        "Standard_ND96asr_v4",
    ]
    assert not set(tables["names"]["name"]) & set(sizes["size"])


def test_no_retired_size_has_a_current_price(tables: dict[str, pd.DataFrame]) -> None:
    sizes, prices = tables["vm_sizes"], tables["prices"]
    retired = sizes[sizes["lifecycle"] == "retired"]
    assert len(retired) > 20 and retired["lowest_price_usd_per_hour"].isna().all()
    # Their catalog rows stay, marked: catalogs/skypilot/v6-azure-vms-N.csv:2 prices Standard_NC12 at 2.16.
    v6 = prices["document"] == "catalogs/skypilot/v6-azure-vms-N.csv"
    nc12 = prices[v6 & (prices["size"] == "Standard_NC12") & (prices["line"] == 2)]
    assert nc12[["on_demand_usd_per_hour", "listed_after_retirement"]].values.tolist() == [[2.16, True]]
    assert not prices.loc[
        prices["size"].isin(set(sizes.loc[sizes["lifecycle"] != "retired", "size"])), "listed_after_retirement"
    ].any()


def test_no_spot_price_equals_the_on_demand_price(tables: dict[str, pd.DataFrame]) -> None:
    """catalogs/skypilot/v6-azure-vms-N.csv:54 "Standard_NC40ads_H100_v5,H100,1,40.0,320,H100,6.98,6.98,eastus,V2":
    the same number in both price columns is no spot price."""
    prices, diagnostics = tables["prices"], tables["diagnostics"]
    assert not (prices["spot_usd_per_hour"] == prices["on_demand_usd_per_hour"]).fillna(False).any()
    row = prices[(prices["document"] == "catalogs/skypilot/v6-azure-vms-N.csv") & (prices["line"] == 54)]
    assert row[["size", "on_demand_usd_per_hour"]].values.tolist() == [["Standard_NC40ads_H100_v5", 6.98]]
    assert pd.isna(row["spot_usd_per_hour"].iloc[0])
    said = diagnostics[(diagnostics["code"] == "spot-equals-on-demand") & (diagnostics["line"] == 54)]
    assert said["message"].tolist() == [
        "Standard_NC40ads_H100_v5 in eastus: the spot price 6.98 is the on-demand price; no spot price is taken"
    ]


@pytest.mark.parametrize(
    ("table", "refs", "links"),
    [("conflicts", "documents", "links"), ("names", "uses", "links"), ("errata", "evidence_at", "evidence_links")],
)
def test_each_reference_has_its_own_permalink_in_its_place(
    shipped_output: Path, table: str, refs: str, links: str
) -> None:
    """One link per `document:line`, in order, empty where the document has no upstream copy: the
    conflicts of ND40rs_v2's GPU memory cite ndv2-series.md:16 and the 2020 seed's line 16."""
    urls = pd.read_parquet(shipped_output / "documents.parquet").set_index("document")["url"].dropna().to_dict()
    rows = pd.read_parquet(shipped_output / f"{table}.parquet")
    linked = 0
    for at, cell in zip(rows[refs], rows[links], strict=True):
        if pd.isna(cell):
            assert pd.isna(at) or not any(a.rpartition(":")[0] in urls for a in at.split("; "))
            continue
        expected = []
        for a in at.split("; "):
            document, _, line = a.rpartition(":")
            expected.append(f"{urls[document]}#L{line}" if document in urls else "")
        assert cell.split("; ") == expected
        linked += 1
    assert linked
