"""`explain`: what a person sees when asking why a value is what it is."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from pipeline.explainer import NotFound, explain


def test_explain_shows_every_claim_the_checks_the_winner_and_why(shipped_output: Path) -> None:
    text = explain("ND40rs_v2", "gpu_memory_gib", shipped_output)
    assert text.startswith("Standard_ND40rs_v2")
    assert "gpu_memory_gib = 32 GiB   [resolved" in text
    assert "why: Official Microsoft Learn page (2020-02-03) over a third-party page" in text
    assert "checks: gpu_model_memory" in text
    assert "   + 32 GiB  seeds/seed-ndv2-series-2020.txt:42  [table]  '8 V100 32 GB (NVLink)'" in text
    assert "   - 16 GiB  seeds/thirdparty-azure-nd-series.txt:58  [derived]  '128 GB'" in text


def test_explain_gives_each_claim_of_a_learn_page_its_line_upstream(shipped_output: Path) -> None:
    lines = explain("ND40rs_v2", "memory_gib", shipped_output).splitlines()
    learn = next(i for i, line in enumerate(lines) if "azure-docs/articles/virtual-machines/ndv2-series.md:41" in line)
    assert lines[learn + 1] == (
        "       upstream: https://github.com/MicrosoftDocs/azure-docs/blob/00e046fdd31b252b88de7f61be9023afc3dd5b31/"
        "articles/virtual-machines/ndv2-series.md#L41"
    )
    seed = next(i for i, line in enumerate(lines) if "seeds/seed-ndv2-series-2020.txt:42" in line)
    assert "upstream:" not in lines[seed + 1], "a seed has no upstream"


def test_a_name_that_stands_for_another_size_is_explained_as_that_size(shipped_output: Path) -> None:
    """seeds/thirdparty-azure-nd-series.txt:55 "| ND6 | 6 | 112 GB | 1 x V100 | 16 GB | InfiniBand |":
    the third party's ND6 is most likely Standard_ND6s, whose P40 its V100 contradicts."""
    text = explain("ND6", "gpu_model", shipped_output)
    lines = text.splitlines()
    assert lines[0].startswith("Standard_ND6s  (")
    assert any(
        line.startswith("  also written Standard_ND6 (likely): leaves out the feature letter 's'") for line in lines
    )
    assert "gpu_model = P40" in text
    v100 = next(
        i for i, line in enumerate(lines) if line.startswith("   - V100  seeds/thirdparty-azure-nd-series.txt:55")
    )
    assert lines[v100 + 1] == "       written as: 'ND6'"


def test_a_value_no_document_states_for_the_size_says_where_it_comes_from(shipped_output: Path) -> None:
    """nvv3-series-retirement.md:19 names Standard_NV12hs_v3; its GPU count is Standard_NV12s_v3's."""
    text = explain("NV12hs_v3", "gpu_count", shipped_output)
    assert "  not stated for Standard_NV12hs_v3: copied from the sibling size Standard_NV12s_v3" in text.splitlines()
    assert text.splitlines()[1].startswith("  values: stated for this size: 2 values;")


@pytest.mark.parametrize("spelling", ["standard_nd96asr_v4", "ND96asr_v4", "Standard_ND96asr_v4"])
def test_every_spelling_of_a_size_is_understood(shipped_output: Path, spelling: str) -> None:
    assert explain(spelling, "vcpus", shipped_output).startswith("Standard_ND96asr_v4")


def test_every_row_of_vm_sizes_can_be_explained(shipped_output: Path) -> None:
    sizes = pd.read_parquet(shipped_output / "vm_sizes.parquet")
    for size in sizes["size"]:
        text = explain(size, None, shipped_output)
        assert "why:" in text and "claims (+ supports" in text


@pytest.mark.parametrize(
    ("entity", "attribute", "message"),
    [
        ("Standard_ZZ9_v9", None, "is not a size or series in the dataset"),
        ("ND40rs_v2", "colour", "has no value for 'colour'"),
    ],
)
def test_unknown_names_are_errors_with_a_hint(
    shipped_output: Path, entity: str, attribute: str | None, message: str
) -> None:
    with pytest.raises(NotFound, match=message):
        explain(entity, attribute, shipped_output)
