"""Data contracts: the shipped tables keep them, and a table broken on purpose is named, with
the column, the rule and an example, in one sentence per problem."""

from __future__ import annotations

import datetime as dt
import subprocess
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from pipeline.outputs.contracts import schemas, validate
from pipeline.outputs.schema import tables
from pipeline.runner import compute

SOURCES = Path(__file__).resolve().parent.parent / "sources"


@pytest.fixture(scope="module")
def frames() -> dict[str, pd.DataFrame]:
    _, frames = compute(SOURCES)
    return frames


def broken(frames: dict[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
    return {name: df.copy() for name, df in frames.items()}


def test_every_table_has_a_contract() -> None:
    assert list(schemas()) == list(tables())


def test_shipped_frames_keep_the_contract(frames: dict[str, pd.DataFrame]) -> None:
    assert validate(frames) == []


def test_written_parquet_keeps_the_contract(shipped_output: Path) -> None:
    """What a reader loads back from disk keeps the same promises as what the build computed."""
    loaded = {name: pd.read_parquet(shipped_output / f"{name}.parquet") for name in tables()}
    assert validate(loaded) == []


def test_the_caller_is_called_after_each_table_checked(frames: dict[str, pd.DataFrame]) -> None:
    """`between` runs after each table that is there to check, so that a process checking a
    large build can hand back what one table's checks left free before the next."""
    seen: list[int] = []
    assert validate(frames, between=lambda: seen.append(len(seen))) == []
    assert len(seen) == len(tables())
    seen.clear()
    bad = {name: df for name, df in frames.items() if name != "prices"}
    assert validate(bad, between=lambda: seen.append(len(seen))) == ["prices: table is missing"]
    assert len(seen) == len(tables()) - 1


def test_confidence_out_of_range(frames: dict[str, pd.DataFrame]) -> None:
    bad = broken(frames)
    bad["facts"].loc[3, "confidence"] = 1.5
    assert validate(bad) == ["facts.confidence: must be between 0 and 1; 1 row(s) fail, e.g. 1.5 at row(s) 3"]


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (dt.datetime(2024, 5, 1, 12, 0), "2024-05-01 12:00:00"),  # a date with a time of day is not a date
        ("2024-05-01", "'2024-05-01'"),  # nor is its text
    ],
)
def test_a_date_column_holds_dates(frames: dict[str, pd.DataFrame], value: object, shown: str) -> None:
    """The dates are checked a type at a time (`_dates`); a column that fails is checked value
    by value, so the message names the row."""
    bad = broken(frames)
    bad["facts"]["as_of"] = bad["facts"]["as_of"].astype(object)
    bad["facts"].loc[2, "as_of"] = value
    assert validate(bad) == [f"facts.as_of: must be a date (datetime.date); 1 row(s) fail, e.g. {shown} at row(s) 2"]


def test_duplicate_size(frames: dict[str, pd.DataFrame]) -> None:
    bad = broken(frames)
    sizes = bad["vm_sizes"]
    row = sizes[sizes["size"] == "Standard_ND40rs_v2"]
    bad["vm_sizes"] = pd.concat([sizes, row], ignore_index=True)
    assert validate(bad) == ["vm_sizes.size: must be unique; duplicated: Standard_ND40rs_v2"]


def test_unknown_status(frames: dict[str, pd.DataFrame]) -> None:
    bad = broken(frames)
    bad["facts"].loc[4, "status"] = "bogus"
    assert validate(bad) == [
        "facts.status: must be one of agreed, resolved, single_source, unverified, unresolved; "
        "1 row(s) fail, e.g. 'bogus' at row(s) 4"
    ]


def test_duplicate_fact_and_claim(frames: dict[str, pd.DataFrame]) -> None:
    bad = broken(frames)
    bad["facts"] = pd.concat([bad["facts"], bad["facts"].iloc[[0]]], ignore_index=True)
    bad["claims"] = pd.concat([bad["claims"], bad["claims"].iloc[[5]]], ignore_index=True)
    first = bad["facts"].iloc[0]
    problems = validate(bad)
    assert (
        f"facts: (entity, attribute) must be unique; duplicated: ({first['entity']}, {first['attribute']})" in problems
    )
    assert any(p.startswith("claims.claim_id: must be unique") for p in problems)
    assert len(problems) == 2, problems


@pytest.mark.parametrize(
    ("table", "column", "value", "expected"),
    [
        ("claims", "line", 0, "claims.line: must be >= 1"),
        ("claims", "entity_kind", "region", "claims.entity_kind: must be one of size, series"),
        ("diagnostics", "severity", "fatal", "diagnostics.severity: must be one of error, warning, info"),
        (
            "documents",
            "kind",
            "forum",
            "documents.kind: must be one of official_spec, api_catalog, vendor_blog, third_party",
        ),
        ("documents", "claims", -1, "documents.claims: must be >= 0"),
        ("facts", "sources", -2, "facts.sources: must be >= 0"),
        ("vm_sizes", "confidence", -0.1, "vm_sizes.confidence: must be between 0 and 1"),
        ("facts", "entity", None, "facts.entity: must not be empty"),
        (
            "vm_sizes",
            "found_in",
            "everywhere",
            "vm_sizes.found_in: must be one of docs and API, docs only, API only, third parties only",
        ),
        ("prices", "on_demand_usd_per_hour", -98.32, "prices.on_demand_usd_per_hour: must be >= 0"),
        ("prices", "region", None, "prices.region: must not be empty"),
        ("calibration", "accuracy", 1.5, "calibration.accuracy: must be between 0 and 1"),
        ("documents", "commit", "1dc6d3b", "documents.commit: must be 40 lowercase hex digits"),
        *(
            ("documents", "url", url, "documents.url: must start with https://github.com/ and name a 40-hex commit")
            for url in (
                "https://github.com/MicrosoftDocs/azure-docs/blob/main/articles/virtual-machines/nc-series.md",
                f"http://github.com/MicrosoftDocs/azure-docs/blob/{'0' * 40}/articles/virtual-machines/nc-series.md",
                f"https://learn.microsoft.com/MicrosoftDocs/azure-docs/blob/{'0' * 40}/nc-series.md",
            )
        ),
        (
            "conflicts",
            "links",
            f"https://github.com/MicrosoftDocs/azure-docs/blob/{'0' * 40}/articles/virtual-machines/nc-series.md",
            "conflicts.links: must be GitHub permalinks ending in #L<line>, joined with '; '",
        ),
    ],
)
def test_one_broken_value_gives_one_sentence(
    frames: dict[str, pd.DataFrame], table: str, column: str, value: Any, expected: str
) -> None:
    bad = broken(frames)
    bad[table].loc[1, column] = value
    problems = validate(bad)
    assert len(problems) == 1, problems
    assert problems[0].startswith(expected)
    assert "row(s) 1" in problems[0]


def test_conflict_with_two_winners(frames: dict[str, pd.DataFrame]) -> None:
    bad = broken(frames)
    conflicts = bad["conflicts"]
    loser = conflicts.index[conflicts["won"] == False][0]  # noqa: E712 (nullable boolean)
    conflicts.loc[loser, "won"] = True
    problems = validate(bad)
    assert len(problems) == 1, problems
    assert problems[0].startswith("conflicts: each disputed (entity, attribute) must have one winner")


def test_shape_problems(frames: dict[str, pd.DataFrame]) -> None:
    bad = broken(frames)
    del bad["documents"]
    bad["facts"] = bad["facts"].drop(columns=["reason"])
    bad["claims"]["claim_id"] = bad["claims"]["claim_id"].astype(object)
    bad["vm_sizes"]["vcpus"] = bad["vm_sizes"]["vcpus"].astype("Float64")
    bad["diagnostics"]["extra"] = 1
    bad["notes"] = pd.DataFrame()
    problems = validate(bad)
    assert "documents: table is missing" in problems
    assert "facts: column reason is missing" in problems
    assert "claims.claim_id: must have a pandas string dtype (found object)" in problems
    assert "vm_sizes.vcpus: has type Float64, expected Int64" in problems
    assert "diagnostics: unexpected column extra" in problems
    assert "notes: unexpected table" in problems


def test_never_raises_on_garbage(frames: dict[str, pd.DataFrame]) -> None:
    bad: dict[str, object] = dict(broken(frames))
    bad["facts"] = "not a table"
    bad["claims"] = pd.DataFrame({"claim_id": [[1, 2], {"a": 1}]})
    confidence = bad["vm_sizes"]
    assert isinstance(confidence, pd.DataFrame)
    confidence["confidence"] = confidence["confidence"].astype(str)
    problems = validate(bad)  # type: ignore[arg-type]
    assert "facts: expected a pandas DataFrame, got str" in problems
    assert any(p.startswith("claims:") for p in problems)
    assert any(p.startswith("vm_sizes.confidence:") for p in problems)


def test_empty_tables_keep_the_contract() -> None:
    from pipeline.outputs.write import frame

    assert validate({name: frame({}, cols) for name, cols in tables().items()}) == []


def test_a_dispute_with_no_fact_is_named(frames: dict[str, pd.DataFrame]) -> None:
    """Each conflicts row disputes a fact: the (entity, attribute) pair must be in facts."""
    bad = broken(frames)
    facts = bad["facts"]
    disputed = bad["conflicts"].iloc[0]
    pair = (disputed["entity"], disputed["attribute"])
    bad["facts"] = facts[~((facts["entity"] == pair[0]) & (facts["attribute"] == pair[1]))].reset_index(drop=True)
    assert validate(bad) == [f"conflicts: disputes with no row in facts: {str(pair)!r}"]


def test_a_claim_from_a_document_the_documents_table_lacks_is_named(frames: dict[str, pd.DataFrame]) -> None:
    bad = broken(frames)
    bad["claims"].loc[0, "document"] = "seeds/not-a-document.md"
    assert validate(bad) == ["claims.document: names documents not in documents: 'seeds/not-a-document.md'"]


def test_a_frame_is_checked_as_given_and_left_as_it_was(frames: dict[str, pd.DataFrame]) -> None:
    """The build's frames are checked in place (no copy of a large table), so checking must not
    change them; a frame with another index is reported by row position all the same."""
    before = {name: df.copy() for name, df in frames.items()}
    assert validate(frames) == []
    for name, df in frames.items():
        pd.testing.assert_frame_equal(df, before[name])
    bad = broken(frames)
    bad["facts"].loc[3, "confidence"] = 1.5
    bad["facts"].index = bad["facts"].index + 100
    assert validate(bad) == ["facts.confidence: must be between 0 and 1; 1 row(s) fail, e.g. 1.5 at row(s) 3"]


def test_only_the_tables_asked_for_are_checked_with_what_they_point_at(frames: dict[str, pd.DataFrame]) -> None:
    """A build whose claims table is written by a process of its own checks it there, against
    the documents it names, and the other tables apart: each violation is found once."""
    bad = broken(frames)
    bad["claims"].loc[0, "document"] = "seeds/not-a-document.md"
    bad["facts"].loc[3, "confidence"] = 1.5
    claims_problem = "claims.document: names documents not in documents: 'seeds/not-a-document.md'"
    facts_problem = "facts.confidence: must be between 0 and 1; 1 row(s) fail, e.g. 1.5 at row(s) 3"
    assert validate(bad, tables=("claims",)) == [claims_problem]
    rest = [name for name in tables() if name != "claims"]
    assert validate({k: v for k, v in bad.items() if k != "claims"}, tables=rest) == [facts_problem]
    assert sorted(validate(bad)) == [claims_problem, facts_problem]


def _fresh(folder: Path, *lines: str) -> subprocess.CompletedProcess[str]:
    """`lines` run as a script in a fresh interpreter, from `folder`: whether hypothesis is
    imported depends on what the process imported first, which in pytest's is hypothesis."""
    script = folder / "script.py"
    script.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return subprocess.run([sys.executable, str(script)], capture_output=True, text=True, cwd=folder)


def test_checking_a_table_does_not_import_hypothesis_which_stays_importable(tmp_path: Path) -> None:
    """pandera imports hypothesis (and with it trio and pytest) for data synthesis the contracts
    never use: in a fresh interpreter, checking a broken table leaves it unimported, finds the
    problem all the same, and hypothesis still imports afterwards."""
    run = _fresh(
        tmp_path,
        "import sys",
        "import pandas as pd",
        "from pipeline.outputs.contracts import validate",
        "problems = validate({'prices': pd.DataFrame({'size': ['x']})}, tables=['prices'])",
        "print(len(problems) > 0, 'hypothesis' in sys.modules, 'pytest' in sys.modules)",
        "import hypothesis.strategies",
        "print(hypothesis.strategies.integers().example() is not None)",
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["True", "False", "False", "True"]


def test_a_pandera_without_those_strategies_has_nothing_to_hide(tmp_path: Path) -> None:
    run = _fresh(
        tmp_path,
        "import sys",
        "from pipeline.outputs.contracts import _without_hypothesis",
        "_without_hypothesis('pandera.strategies.moved_elsewhere')",
        "print('hypothesis' in sys.modules)",
        "import hypothesis",
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["False"]


def test_a_module_that_needs_one_missing_is_an_error_not_hidden(tmp_path: Path) -> None:
    # The missing module's name begins the name of the one imported: a package of it would be
    # "strategies_of.", not "strategies_of".
    (tmp_path / "strategies_of_another_kind.py").write_text("import strategies_of\n", encoding="utf-8")
    run = _fresh(
        tmp_path,
        "from pipeline.outputs.contracts import _without_hypothesis",
        "_without_hypothesis('strategies_of_another_kind')",
    )
    assert run.returncode == 1 and "No module named 'strategies_of'" in run.stderr
