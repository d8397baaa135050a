"""The backbone end to end: sources in, typed Parquet and CSV out."""

from __future__ import annotations

import gc
import hashlib
import json
import os
import re
import shutil
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from types import FrameType
from typing import Any

import pandas as pd
import pyarrow.parquet as pq
import pytest

from pipeline import ContractViolation, build, runner
from pipeline.outputs import write
from pipeline.outputs.schema import tables
from pipeline.outputs.write import frame
from pipeline.records import BuildResult, Reconciled
from pipeline.runner.cache import Cache, Memo
from tests.conftest import forged, settle

TABLES = ["documents", "claims", "vm_sizes", "diagnostics"]


@pytest.mark.parametrize("name", TABLES)
def test_every_table_is_written_as_parquet_and_csv_with_the_same_columns(shipped_output: Path, name: str) -> None:
    parquet = pd.read_parquet(shipped_output / f"{name}.parquet")
    csv = pd.read_csv(shipped_output / f"{name}.csv")
    assert list(parquet.columns) == list(csv.columns) == [c.name for c in tables()[name]]
    assert len(parquet) == len(csv) > 0


def test_vm_sizes_loads_with_pandas_with_proper_dtypes(shipped_output: Path) -> None:
    df = pd.read_parquet(shipped_output / "vm_sizes.parquet")
    expected = {
        "size": "string",
        "series": "string",
        "vcpus": "Int64",
        "memory_gib": "Float64",
        "gpu_count": "Float64",
        "gpu_model": "string",
        "gpu_memory_gib": "Float64",
        "temp_storage_gib": "Float64",
        "max_data_disks": "Int64",
        "uncached_disk_iops": "Int64",
        "uncached_disk_mbps": "Float64",
        "max_nics": "Int64",
        "network_bandwidth_mbps": "Float64",
    }
    assert {k: str(df[k].dtype) for k in expected} == expected
    assert df["size"].is_unique
    assert list(df["size"]) == sorted(df["size"])


@pytest.mark.parametrize("name", TABLES)
def test_every_parquet_field_carries_its_meaning(shipped_output: Path, name: str) -> None:
    schema = pq.read_schema(shipped_output / f"{name}.parquet")
    for field in schema:
        meta = field.metadata or {}
        assert meta.get(b"description"), f"{name}.{field.name} has no description"


def test_vm_sizes_row_for_nd96asr_v4_takes_official_values(shipped_output: Path) -> None:
    df = pd.read_parquet(shipped_output / "vm_sizes.parquet").set_index("size")
    row = df.loc["Standard_ND96asr_v4"]
    assert (row.vcpus, row.memory_gib, row.gpu_count, row.gpu_model) == (96, 900, 8, "A100")
    assert (row.gpu_memory_gib, row.gpu_memory_total_gib, row.temp_storage_gib) == (40, 320, 6000)
    assert (row.max_data_disks, row.uncached_disk_iops, row.uncached_disk_mbps) == (32, 80000, 800)
    assert (row.max_nics, row.network_bandwidth_mbps, row.series) == (8, 24000, "ND A100 v4")


def test_documents_table_records_metadata(shipped_output: Path) -> None:
    docs = pd.read_parquet(shipped_output / "documents.parquet").set_index("document")
    seed = docs.loc["seeds/seed-nd-a100-v4-series-2021.txt"]
    assert seed.title == "ND A100 v4-series"
    assert seed.author == "iafinder"
    assert str(seed.as_of) == "2021-05-26"
    assert seed.kind == "official_spec"
    blog = docs.loc["seeds/blog-nd-gb300-v6-ga-aggregator.txt"]
    assert str(blog.as_of) == "2025-11-19"
    assert blog.canonical_url.startswith("https://techcommunity.microsoft.com/")
    assert pd.isna(docs.loc["seeds/thirdparty-azure-ng-series.txt"].title)


# --------------------------------------------------------------------------- upstream provenance

NDV2_PAGE = "azure-docs/azure-compute-docs/articles/virtual-machines/sizes/gpu-accelerated/ndv2-series.md"
PROVENANCE = ["repository", "commit", "upstream_path", "url"]


def test_every_learn_document_carries_a_permalink_to_the_commit_it_was_taken_at(shipped_output: Path) -> None:
    docs = pd.read_parquet(shipped_output / "documents.parquet")
    learn = docs[docs["document"].str.startswith("azure-docs/")]
    assert len(learn) == 79
    permalink = r"https://github\.com/MicrosoftDocs/azure(?:-compute)?-docs/blob/[0-9a-f]{40}/\S+"
    assert learn["url"].str.fullmatch(permalink).fillna(False).mean() == 1.0  # 100% of the Learn documents
    for row in learn.itertuples():
        assert row.url == f"https://github.com/{row.repository}/blob/{row.commit}/{row.upstream_path}"
        assert row.document.endswith(f"/{row.upstream_path}")
    seeds = docs[docs["document"].str.startswith("seeds/")]
    assert len(seeds) == 5 and seeds[PROVENANCE].isna().all().all()


def test_each_competing_value_links_to_its_lines_upstream(shipped_output: Path) -> None:
    conflicts = pd.read_parquet(shipped_output / "conflicts.parquet")
    dispute = conflicts[(conflicts["entity"] == "Standard_ND40rs_v2") & (conflicts["attribute"] == "gpu_memory_gib")]
    links = dict(zip(dispute["value"], dispute["links"], strict=True))
    page = (
        "https://github.com/MicrosoftDocs/azure-docs/blob/00e046fdd31b252b88de7f61be9023afc3dd5b31/"
        "articles/virtual-machines/ndv2-series.md"
    )
    # One link a line, in order: the two seed lines behind 32 (16 and 42) have no upstream.
    assert dispute.loc[dispute["value"] == "32", "documents"].item().endswith("; seeds/seed-ndv2-series-2020.txt:42")
    assert links["32"] == f"{page}#L16; {page}#L41; ; "
    assert pd.isna(links["16"])  # stated by a third-party page only


def one_learn_page(tmp_path: Path, commit: str) -> Path:
    """Sources of one Learn page, locked at `commit`."""
    from pipeline.sync import LOCK_FILE, lock_text, read_lock

    root = Path(__file__).resolve().parent.parent / "sources"
    sources = tmp_path / "sources"
    (sources / NDV2_PAGE).parent.mkdir(parents=True)
    shutil.copyfile(root / NDV2_PAGE, sources / NDV2_PAGE)
    locked = read_lock(root)
    assert isinstance(locked, tuple)
    [entry] = [replace(f, commit=commit) for f in locked if f.document == NDV2_PAGE]
    (sources / LOCK_FILE).write_text(lock_text([entry]), encoding="utf-8")
    return sources


def test_the_upstream_lock_is_an_input_of_the_build(tmp_path: Path) -> None:
    out = tmp_path / "output"
    sources = one_learn_page(tmp_path, "1" * 40)
    build(sources, out)
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    lock_sha = hashlib.sha256((sources / "upstream.lock").read_bytes()).hexdigest()
    assert manifest["inputs"]["upstream.lock"] == lock_sha
    one_learn_page(tmp_path / "next", "2" * 40).joinpath("upstream.lock").replace(sources / "upstream.lock")
    result = build(sources, out)
    assert not result.up_to_date, "a new commit in the lock is a new build"
    [commit] = pd.read_parquet(out / "documents.parquet")["commit"]
    assert commit == "2" * 40


def test_an_unreadable_lock_is_an_error_of_the_build_not_its_end(tmp_path: Path) -> None:
    sources = one_learn_page(tmp_path, "1" * 40)
    (sources / "upstream.lock").write_text("[[file]\n", encoding="utf-8")
    result, frames = runner.compute(sources)
    [problem] = [d for d in result.diagnostics if d.code == "upstream-lock-invalid"]
    assert (problem.severity, problem.document) == ("error", "upstream.lock")
    assert "upstream.lock is not valid TOML: " in problem.message
    assert frames["documents"][PROVENANCE].isna().all().all()
    assert result.tables["claims"] > 0


def test_missing_include_targets_are_reported_not_fatal(shipped: BuildResult) -> None:
    missing = [d for d in shipped.diagnostics if d.code == "include-missing"]
    assert any(d.document.endswith("gpu-accelerated/nd-series.md") and d.line == 19 for d in missing)
    outside = [d for d in shipped.diagnostics if d.code == "include-outside-sources"]
    assert {(d.document, d.line) for d in outside} == {
        ("seeds/seed-nd-a100-v4-series-2021.txt", 45),
        ("seeds/seed-ndv2-series-2020.txt", 44),
    }


def test_mojibake_repairs_are_diagnostics_with_lines(shipped: BuildResult) -> None:
    repaired = {(d.document, d.line) for d in shipped.diagnostics if d.code == "mojibake-repaired"}
    assert ("seeds/seed-nd-a100-v4-series-2021.txt", 18) in repaired
    assert ("seeds/thirdparty-azure-nd-series.txt", 26) in repaired
    assert ("seeds/blog-nd-gb300-v6-ga-aggregator.txt", 55) in repaired


def test_a_bad_document_does_not_stop_the_others(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    shutil.copy(Path(__file__).parent.parent / "sources/seeds/seed-ndv2-series-2020.txt", src / "good.md")
    (src / "bad.md").write_bytes(b"---\ntitle: [unclosed\n---\n\x00\x01binary")
    (src / "broken.md").write_text("---\ntitle: [oops\n---\n| Size | vCPU |\n|---|---|\n| Standard_ND6s | 6 |\n")
    out = tmp_path / "out"
    result = build(src, out)
    codes = {(d.document, d.code) for d in result.diagnostics}
    assert ("bad.md", "binary-file") in codes
    assert ("broken.md", "front-matter-invalid") in codes
    sizes = pd.read_parquet(out / "vm_sizes.parquet")
    # the note about the retired ND40s_v2 names a size too
    assert set(sizes["size"]) == {"Standard_ND40rs_v2", "Standard_ND40s_v2", "Standard_ND6s"}


DOCUMENTATION = ("report.html", "SCHEMA.md", "datapackage.json", "errata.md")


def test_same_sources_give_identical_bytes_wherever_they_are(tmp_path: Path) -> None:
    """Two copies of the sources in different folders give the same tables, report and dictionary,
    byte for byte: nothing in them depends on the clock or on where this machine keeps the files."""
    shipped = Path(__file__).parent.parent / "sources"
    src_a, src_b = tmp_path / "one" / "sources", tmp_path / "two" / "deeper" / "docs"
    shutil.copytree(shipped, src_a)
    shutil.copytree(shipped, src_b)
    a, b = tmp_path / "a", tmp_path / "b"
    build(src_a, a)
    build(src_b, b)
    for name in [*(f"{t}.csv" for t in TABLES), *DOCUMENTATION, "manifest.json"]:
        assert (a / name).read_bytes() == (b / name).read_bytes(), name
    for name in [*DOCUMENTATION, "manifest.json"]:
        text = (a / name).read_text(encoding="utf-8")
        for folder in (tmp_path, shipped.parent, Path.home()):
            assert str(folder) not in text, f"{name} names a folder of this machine: {folder}"


def test_build_writes_the_report_and_the_data_dictionary(shipped_output: Path) -> None:
    page = (shipped_output / "report.html").read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    assert 'data-entity="Standard_ND40rs_v2" data-attribute="gpu_memory_gib"' in page
    assert '<tr data-item data-size="Standard_ND96asr_v4" data-family="ND">' in page
    package = json.loads((shipped_output / "datapackage.json").read_text(encoding="utf-8"))
    assert [r["path"] for r in package["resources"]] == [f"{name}.csv" for name in tables()]
    manifest = json.loads((shipped_output / "manifest.json").read_text(encoding="utf-8"))
    assert set(manifest["outputs"]) == set(tables()), "outputs stay the tables that drift compares"
    assert set(manifest["documentation"]) == set(DOCUMENTATION)
    for name, entry in manifest["documentation"].items():
        assert entry["sha256"] == hashlib.sha256((shipped_output / name).read_bytes()).hexdigest(), name


@pytest.mark.parametrize("name", list(tables()))
def test_schema_md_describes_every_parquet_field_as_its_metadata_does(shipped_output: Path, name: str) -> None:
    """SCHEMA.md says, for each column of each Parquet file, the unit and meaning the file itself carries."""
    text = (shipped_output / "SCHEMA.md").read_text(encoding="utf-8")
    section = re.search(rf"^### {name}\n(.*?)(?=^### |^## |\Z)", text, flags=re.S | re.M)
    assert section, f"SCHEMA.md has no section for {name}"
    for field in pq.read_schema(shipped_output / f"{name}.parquet"):
        meta = {k.decode(): v.decode() for k, v in (field.metadata or {}).items()}
        unit = meta.get("unit", "")
        row = f"| `{field.name}` | "
        line = next((ln for ln in section.group(1).splitlines() if ln.startswith(row)), None)
        assert line, f"SCHEMA.md does not list {name}.{field.name}"
        assert line.endswith(f"| {unit} | {meta['description'].replace('|', chr(92) + '|')} |"), line


def _tiny_sources(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    src.mkdir()
    shutil.copy(Path(__file__).parent.parent / "sources/seeds/seed-ndv2-series-2020.txt", src / "ndv2.md")
    return src


def _duplicate_a_size(monkeypatch: pytest.MonkeyPatch) -> None:
    """`compute` as it is, but with the row of Standard_ND40rs_v2 twice in vm_sizes."""
    real = runner.compute

    def compute(*args: Any, **kwargs: Any) -> tuple[BuildResult, dict[str, Any]]:
        result, frames = real(*args, **kwargs)
        sizes = frames["vm_sizes"]
        frames["vm_sizes"] = pd.concat([sizes, sizes[sizes["size"] == "Standard_ND40rs_v2"]], ignore_index=True)
        return result, frames

    monkeypatch.setattr(runner, "compute", compute)


def test_a_build_breaking_its_contract_fails_and_keeps_the_previous_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    src, out = _tiny_sources(tmp_path), tmp_path / "out"
    build(src, out)
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    assert {"vm_sizes.parquet", *DOCUMENTATION, "manifest.json"} <= set(before)
    # The next build, of a changed value, would write a size twice.
    page = src / "ndv2.md"
    page.write_text(page.read_text(encoding="utf-8").replace("| 672 |", "| 673 |", 1), encoding="utf-8")
    _duplicate_a_size(monkeypatch)
    with pytest.raises(ContractViolation) as caught:
        build(src, out)
    assert caught.value.violations == ("vm_sizes.size: must be unique; duplicated: Standard_ND40rs_v2",)
    assert "vm_sizes.size: must be unique; duplicated: Standard_ND40rs_v2" in str(caught.value)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before, "the previous output was touched"
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".out.")) == [".out.lock"]


def test_the_command_line_lists_the_violations_and_exits_1(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from pipeline.cli import main

    src, out = _tiny_sources(tmp_path), tmp_path / "out"
    _duplicate_a_size(monkeypatch)
    assert main(["build", "--sources", str(src), "--out", str(out), "--quiet"]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "the tables break their contract (1 violation(s)); nothing was written to" in captured.err
    assert "\n  vm_sizes.size: must be unique; duplicated: Standard_ND40rs_v2\n" in captured.err
    assert not out.exists()


# --------------------------------------------------------------------------- incremental builds


@pytest.fixture
def seeds(tmp_path: Path) -> Path:
    """The five seed documents: a small real corpus to build again and again."""
    dest = tmp_path / "sources"
    shutil.copytree(Path(__file__).resolve().parent.parent / "sources" / "seeds", dest / "seeds")
    return dest


def _files(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(out.iterdir())}


def test_a_build_with_nothing_changed_leaves_the_output_alone(seeds: Path, tmp_path: Path) -> None:
    out = tmp_path / "output"
    first = build(seeds, out)
    before = _files(out)
    again = build(seeds, out)
    assert not first.up_to_date and again.up_to_date
    assert again.tables == first.tables and again.diagnostics == first.diagnostics
    assert _files(out) == before


def test_a_changed_document_is_the_only_one_parsed_again(seeds: Path, tmp_path: Path) -> None:
    out = tmp_path / "output"
    build(seeds, out)
    page = seeds / "seeds" / "seed-ndv2-series-2020.txt"
    page.write_text(page.read_text(encoding="utf-8").replace("| 672 |", "| 673 |", 1), encoding="utf-8")
    result = build(seeds, out)
    assert not result.up_to_date
    assert (result.cache.hits, result.cache.misses) == (4, 1)
    row = pd.read_csv(out / "claims.csv").query("entity == 'Standard_ND40rs_v2' and attribute == 'memory_gib'")
    assert "673" in set(row["value"].astype(str))


def test_an_incremental_build_after_an_edit_writes_what_a_build_from_scratch_writes(
    seeds: Path, tmp_path: Path
) -> None:
    """The memos reuse the parses and the claims of unchanged documents; what they give must be
    exactly what computing everything gives."""
    out = tmp_path / "output"
    build(seeds, out)
    page = seeds / "seeds" / "seed-ndv2-series-2020.txt"
    page.write_text(page.read_text(encoding="utf-8").replace("| 672 |", "| 673 |", 1), encoding="utf-8")
    result = build(seeds, out)
    assert result.cache.reused["normalize"] == (4, 5)
    scratch = tmp_path / "scratch"
    build(seeds, scratch, settings=runner.Settings(incremental=False))
    assert _files(out) == _files(scratch)


def test_kept_decisions_are_not_reused_once_the_rules_agreement_they_read_moved(tmp_path: Path) -> None:
    """ND40rs_v2's official vCPU count, 40, becomes 41: the naming convention agrees with one
    official count fewer, a rate the confidences of sizes in every bucket read. Buckets are
    still kept, and the tables are what a build from scratch writes."""
    from tests.conftest import SOURCES

    sources = tmp_path / "sources"
    shutil.copytree(SOURCES, sources)
    out = tmp_path / "output"
    build(sources, out)
    page = sources / "seeds" / "seed-ndv2-series-2020.txt"
    text = page.read_text(encoding="utf-8")
    page.write_text(text.replace("| Standard_ND40rs_v2 | 40 |", "| Standard_ND40rs_v2 | 41 |"), encoding="utf-8")
    result = build(sources, out)
    reused, buckets = result.cache.reused["reconcile"]
    assert 0 < reused < buckets
    scratch = tmp_path / "scratch"
    build(sources, scratch, settings=runner.Settings(incremental=False))
    assert _files(out) == _files(scratch)


def test_two_cores_keep_the_buckets_one_core_keeps_and_write_the_same_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With decisions kept, a build on two cores (the entities decided in two parts) keeps the
    buckets a build on one keeps, and writes the same files."""
    from tests.conftest import SOURCES

    monkeypatch.setattr(runner.settings, "MIN_PARALLEL", 1)
    results: dict[int, BuildResult] = {}
    for workers in (1, 2):
        sources, out = tmp_path / f"w{workers}" / "sources", tmp_path / f"w{workers}" / "output"
        shutil.copytree(SOURCES, sources)
        build(sources, out, settings=runner.Settings(workers=workers))
        page = sources / "seeds" / "seed-ndv2-series-2020.txt"
        page.write_text(page.read_text(encoding="utf-8").replace("| 672 |", "| 673 |", 1), encoding="utf-8")
        results[workers] = build(sources, out, settings=runner.Settings(workers=workers))
    one, two = (results[w].cache for w in (1, 2))
    assert one is not None and two is not None
    reused, buckets = two.reused["reconcile"]
    assert one.reused["reconcile"] == (reused, buckets) and 0 < reused < buckets
    assert "claims table" in {what for what, *_ in results[2].helpers} and results[1].helpers == ()
    assert _files(tmp_path / "w1" / "output") == _files(tmp_path / "w2" / "output")


def test_kept_decisions_hold_while_the_rates_they_read_are_the_same() -> None:
    """A bucket's key leaves out the rules' agreement, which moves with any official value
    anywhere: the rates its confidences read are checked instead."""
    rule = ("name_convention", "vcpus")
    kept = runner.parts._Part(
        Reconciled((), (), (), (), {}), runner.frames._Packed.of(pd.DataFrame()), [], [], {"NC6": ((rule, 4.5),)}
    )
    assert runner.parts._still_holds(kept, {rule: 4.5})
    assert not runner.parts._still_holds(kept, {rule: 4.4})
    assert not runner.parts._still_holds(kept, {})
    assert runner.parts._still_holds(replace(kept, rates={}), {rule: 4.4})
    assert not runner.parts._still_holds(replace(kept, facts=pd.DataFrame()), {rule: 4.5}), "a memo of other code"


def test_a_claim_checked_in_two_buckets_keeps_its_checks_in_each() -> None:
    """A series' claim inherited by sizes of two buckets fails a check for both: each bucket
    keeps its own, so that when one is decided again (and the claim passes there), the other's
    kept checks still say what a build from scratch says."""
    empty = pd.DataFrame({"entity": pd.Series([], dtype="string[pyarrow]")})
    a, b = ("Standard_NC12s_v3", "gpu_memory_gib"), ("Standard_NC6s_v3", "gpu_memory_gib")
    failures = [("c1", (3, a), ("model_memory: K80",)), ("c1", (3, b), ("model_memory: M60",))]
    part = runner.parts._Part(Reconciled((), (), (), (), {}), empty, runner.tables.sizes_frame([]), [], {}, failures)
    pieces = dict(runner.parts._by_bucket([part], {a[0]: 1, b[0]: 2}, {1, 2}))
    assert pieces[1].rec.checks == {"c1": ("model_memory: K80",)}
    assert pieces[2].rec.checks == {"c1": ("model_memory: M60",)}
    assert pieces[2].rec.checked_at == {"c1": (3, b)}


def test_each_bucket_keeps_its_rows_of_every_part_in_order() -> None:
    """The parts' facts and vm_sizes rows regrouped by bucket: a bucket's rows of the first part,
    then of the second, each in the order its part had them; a bucket decided with no rows gets
    an empty frame, and a bucket not decided is not given."""
    bucket_of = {"Standard_NC6": 2, "Standard_NC12": 0, "Standard_ND40rs_v2": 2, "Standard_NV6": 1}

    def facts(*rows: tuple[str, str]) -> pd.DataFrame:
        entity, attribute = zip(*rows, strict=True)
        return pd.DataFrame(
            {"entity": pd.array(entity, dtype="string[pyarrow]"), "attribute": pd.array(attribute, dtype="string")}
        )

    first = facts(("Standard_NC6", "vcpus"), ("Standard_NC12", "vcpus"), ("Standard_NC6", "gpu_count"))
    second = facts(("Standard_ND40rs_v2", "vcpus"), ("Standard_NC12", "memory_gib"))
    sizes = [
        runner.tables.sizes_frame([{"size": "Standard_NC6"}]),
        runner.tables.sizes_frame([{"size": "Standard_NV6"}]),
    ]
    parts = [
        runner.parts._Part(Reconciled((), (), (), (), {}), f, z, [], {})
        for f, z in zip((first, second), sizes, strict=True)
    ]
    pieces = dict(runner.parts._by_bucket(parts, bucket_of, [2, 0, 3, 2]))
    assert sorted(pieces) == [0, 2, 3]
    held = {b: list(p.facts.frame().itertuples(index=False, name=None)) for b, p in pieces.items()}
    assert held == {
        0: [("Standard_NC12", "vcpus"), ("Standard_NC12", "memory_gib")],
        2: [("Standard_NC6", "vcpus"), ("Standard_NC6", "gpu_count"), ("Standard_ND40rs_v2", "vcpus")],
        3: [],
    }
    for piece in pieces.values():
        assert [str(piece.facts.frame()[name].dtype) for name in ("entity", "attribute")] == ["string", "string"]
    assert {b: p.sizes["size"].tolist() for b, p in pieces.items()} == {0: [], 2: ["Standard_NC6"], 3: []}


def test_the_tables_an_edit_leaves_alone_keep_their_csv_files(seeds: Path, tmp_path: Path) -> None:
    """A line added after the last table changes the documents' table (the page's hash) and no
    claim: the claims' CSV is the previous build's file, and every file is what a build from
    scratch writes."""
    out = tmp_path / "output"
    build(seeds, out)
    before = {name: (out / name).stat().st_ino for name in ("claims.csv", "documents.csv")}
    page = seeds / "seeds" / "seed-ndv2-series-2020.txt"
    page.write_text(page.read_text(encoding="utf-8") + "\nEdited.\n", encoding="utf-8")
    build(seeds, out)
    assert (out / "claims.csv").stat().st_ino == before["claims.csv"]
    assert (out / "documents.csv").stat().st_ino != before["documents.csv"]
    scratch = tmp_path / "scratch"
    build(seeds, scratch, settings=runner.Settings(incremental=False))
    assert _files(out) == _files(scratch)


def _built_and_recorded(sources: Path, out: Path) -> None:
    """`out` built from `sources`, its files as if written a while ago, then found unchanged by a
    build, which records each file's digest with the stamp that vouches for it (`write.Digests`):
    a file that changed a moment before it is hashed is not vouched for, and a small build's are."""
    build(sources, out)
    settle(*out.iterdir())
    assert build(sources, out).up_to_date


@pytest.mark.parametrize("recorded", [False, True], ids=["just built", "its stamps recorded"])
@pytest.mark.parametrize(
    ("name", "edit"),
    [
        ("vm_sizes.csv", lambda data: data.replace(b"Standard_ND40rs_v2", b"Standard_ND41rs_v2\n")),
        ("vm_sizes.csv", lambda data: data.replace(b"Standard_ND40rs_v2", b"Standard_ND41rs_v2")),
        ("facts.parquet", lambda data: data[:-9] + bytes([data[-9] ^ 1]) + data[-8:]),  # a byte of its footer
        ("report.html", lambda data: data + b"<!-- edited -->"),
        ("claims.csv", None),  # removed
    ],
    ids=[
        "a CSV edited",
        "a CSV edited, its size and times kept",
        "a Parquet file edited, its size and times kept",
        "the report edited",
        "a file removed",
    ],
)
def test_an_output_edited_by_hand_is_rebuilt(
    name: str, edit: Callable[[bytes], bytes] | None, recorded: bool, seeds: Path, tmp_path: Path
) -> None:
    """A build with nothing changed in the sources checks every file the manifest lists against
    its digest: one edited or removed is written again, and the build after that finds it as
    written. A file whose stamp the last build recorded is not read, but any edit moves its
    change time, even one that keeps its size and sets its times back (a copy that keeps times)."""
    out = tmp_path / "output"
    if recorded:
        _built_and_recorded(seeds, out)
    else:
        build(seeds, out)
    original = (out / name).read_bytes()
    if edit is None:
        (out / name).unlink()
    elif len(edited := edit(original)) == len(original):
        forged(out / name, edited)
    else:
        (out / name).write_bytes(edited)
    result = build(seeds, out)
    assert not result.up_to_date
    assert (out / name).read_bytes() == original
    assert build(seeds, out).up_to_date


def test_a_file_changed_after_it_was_read_is_not_recorded(tmp_path: Path) -> None:
    """A build records the digests it read only for files that still have the stamps they had
    then: an edit made while it ran, even one that keeps the size and the times, is read by the
    next build."""
    out = tmp_path / "output"
    out.mkdir()
    (out / "facts.csv").write_bytes(b"entity\nStandard_ND40rs_v2\n")
    (out / "vm_sizes.csv").write_bytes(b"size\nStandard_NC6\n")
    settle(*out.iterdir())
    digests = write.Digests()
    for path in sorted(out.iterdir()):
        digests.sha256(path)
    forged(out / "facts.csv", b"entity\nStandard_ND41rs_v2\n")
    cache = Cache(tmp_path / "cache")
    runner.reuse._record(cache, out, digests)
    assert set(runner.reuse._recorded(cache, out).known) == {"vm_sizes.csv"}


def test_a_build_with_nothing_changed_reads_no_output_whose_stamp_vouches_for_it(
    seeds: Path, tmp_path: Path, reads: list[Path]
) -> None:
    """Each file the manifest lists is checked by the stamp recorded with its digest, not read
    again: at 10,000 documents that was 419 MB, most of such a build's time."""
    out = tmp_path / "output"
    _built_and_recorded(seeds, out)
    reads.clear()
    before = _files(out)
    assert build(seeds, out).up_to_date
    assert reads == []
    assert _files(out) == before


def test_a_rebuild_from_scratch_can_be_asked_for(seeds: Path, tmp_path: Path) -> None:
    out = tmp_path / "output"
    build(seeds, out)
    result = build(seeds, out, settings=runner.Settings(incremental=False))
    assert not result.up_to_date and result.cache is None
    assert result.tables["claims"] == len(pd.read_csv(out / "claims.csv")) > 0


@pytest.mark.parametrize("corpus_size", [0, 90], ids=["shipped sources", "generated corpus of 90"])
def test_a_build_split_across_two_processes_computes_the_same_tables(
    corpus_size: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """normalize and reconcile hand part of their work to a forked process; the parts must join
    into exactly what one process computes (same rows, same order). The facts of the two parts
    of the entities are joined once, the other part's come through the pipe; one process
    decides its entities in one part."""
    from bench import corpus
    from tests.conftest import SOURCES

    sources = SOURCES if not corpus_size else tmp_path / "corpus"
    if corpus_size:
        corpus.generate(corpus_size, sources, seed=11)
    monkeypatch.setattr(runner.settings, "MIN_PARALLEL", 1)
    joins: dict[int, list[int]] = {1: [], 2: []}
    workers = 1
    join = runner.frames._in_order

    def joined(parts: list[Any], by: list[str]) -> Any:
        joins[workers].append(len(parts))
        return join(parts, by)

    monkeypatch.setattr(runner.tables, "_in_order", joined)  # the facts of the parts, joined
    one, one_frames = runner.compute(sources, runner.Settings(workers=1))
    workers = 2
    two, two_frames = runner.compute(sources, runner.Settings(workers=2))
    assert (joins[1], joins[2]) == ([1], [2])
    assert len(one.facts) > 100 and len(one.conflicts) > 10
    assert one.claims == two.claims and one.facts == two.facts and one.conflicts == two.conflicts
    assert one.diagnostics == two.diagnostics
    for name, df in one_frames.items():
        pd.testing.assert_frame_equal(df, two_frames[name], obj=name)


def test_incremental_builds_after_edits_across_a_generated_corpus_match_builds_from_scratch(
    tmp_path: Path,
) -> None:
    """Edits of every kind a maintainer makes (a value changed, a page removed, a page added),
    built with the memos of the build before, must write what a build from scratch writes."""
    from bench import corpus

    sources = tmp_path / "corpus"
    corpus.generate(90, sources, seed=11)
    out = tmp_path / "output"
    build(sources, out)
    pages = sorted(p for p in sources.rglob("*.md") if "includes" not in p.parts)
    official = next(p for p in pages if re.search(r"^\| Standard_\w+ \| \d+ \|", p.read_text("utf-8"), re.M))
    text = official.read_text("utf-8")
    row = re.search(r"^(\| Standard_\w+ \| )(\d+)( \|)", text, re.M)
    assert row is not None
    official.write_text(text[: row.start(2)] + str(int(row[2]) * 2) + text[row.end(2) :], "utf-8")
    third = sorted((sources / "third-party").iterdir())
    third[0].unlink()
    shutil.copy(third[1], third[1].with_name("copied-" + third[1].name))
    result = build(sources, out)
    assert result.cache.misses == 2, "the edited page and the new copy are parsed; the rest come from the cache"
    scratch = tmp_path / "scratch"
    build(sources, scratch, settings=runner.Settings(incremental=False))
    assert _files(out) == _files(scratch)


def _generated_and_built(tmp_path: Path) -> tuple[Path, Path, list[Path]]:
    """A generated corpus of 90 documents, built once with a cache: its folder, the output and
    its pages (not the includes)."""
    from bench import corpus

    sources = tmp_path / "corpus"
    corpus.generate(90, sources, seed=11)
    out = tmp_path / "output"
    build(sources, out)
    pages = sorted(p for p in sources.rglob("*.*") if p.suffix in (".md", ".txt") and "includes" not in p.parts)
    return sources, out, pages


_CELL = re.compile(r"\| (\d+) \|")


def _one_more(page: Path) -> None:
    """The first whole number alone in a cell of `page`, one more."""
    text = page.read_text("utf-8")
    cell = _CELL.search(text)
    assert cell is not None
    page.write_text(text[: cell.start(1)] + str(int(cell[1]) + 1) + text[cell.end(1) :], "utf-8")


@pytest.mark.parametrize(
    ("edit", "decided"),
    [("third-party value", 1), ("official value", 2), ("series value", 26)],
)
def test_an_edit_decides_again_only_the_buckets_it_touches(edit: str, decided: int, tmp_path: Path) -> None:
    """The decisions of entities whose inputs an edit leaves alone are the last build's; the
    tables must still be exactly what a build from scratch writes. A value decides again the
    bucket of its size only, not every size its page states (a document is read by the claims
    it states about each entity). An official
    value also moves the rules' measured agreement, which the confidences of sizes in other
    buckets read: one more here. Every bucket reads the series' values (a size inherits them),
    so a series' value decides every bucket again."""
    sources, out, pages = _generated_and_built(tmp_path)
    if edit == "series value":  # an include's `| Remote Storage | 64 Disks |`: its series' data disks
        includes = sorted(sources.rglob("includes/*-series-specs.md"))
        page = next(p for p in includes if re.search(r"\| Remote Storage +\| \d+ Disks", p.read_text("utf-8")))
        text = page.read_text("utf-8")
        disks = re.search(r"\| Remote Storage +\| (\d+) Disks", text)
        assert disks is not None
        page.write_text(text[: disks.start(1)] + str(int(disks[1]) // 2) + text[disks.end(1) :], "utf-8")
    else:
        folder = "third-party" if edit == "third-party value" else "official"
        _one_more(next(p for p in pages if p.parts[-2].startswith(folder) and _CELL.search(p.read_text("utf-8"))))
    result = build(sources, out)
    reused, buckets = result.cache.reused["reconcile"]
    assert buckets == 26 and buckets - reused == decided
    scratch = tmp_path / "scratch"
    build(sources, scratch, settings=runner.Settings(incremental=False))
    assert _files(out) == _files(scratch)


@pytest.mark.parametrize(
    ("edit", "taken", "page"),
    [
        ("a line appended", True, True),
        ("a page's title changed", True, False),
        ("a line appended, facts.csv edited by hand", False, False),
        ("a line appended, a publisher's trust changed", False, False),
        ("a value changed", False, False),
    ],
)
def test_an_edit_that_changes_no_claim_takes_the_reconciled_tables_from_the_output_it_replaces(
    edit: str, taken: bool, page: bool, tmp_path: Path
) -> None:
    """When all that the stages after normalize read is what made the output a build replaces
    (every claim, mention and price, the sources as classified, the upstream lock, the code),
    the claims, facts, vm_sizes and conflicts tables are that output's own files, linked, not
    made again. A file edited by hand, a changed registry or a changed value makes them again.
    The page is taken too when all it shows is the same: a title is shown, so a new title makes
    it again. Either way, every file is what a build from scratch writes."""
    sources, out, pages = _generated_and_built(tmp_path)
    if edit == "a value changed":
        _one_more(next(p for p in pages if _CELL.search(p.read_text("utf-8"))))
    elif edit == "a page's title changed":
        titled = next(p for p in pages if re.search(r"^title: ", p.read_text("utf-8"), re.M))
        text = re.sub(r"^(title: .*)$", r"\1 (renamed)", titled.read_text("utf-8"), count=1, flags=re.M)
        titled.write_text(text, "utf-8")
    else:
        pages[3].write_text(pages[3].read_text("utf-8") + "\nEdited.\n", "utf-8")
    if "facts.csv" in edit:
        (out / "facts.csv").write_text("entity\nedited by hand\n", "utf-8")
    if "trust" in edit:
        registry = sources / "registry.toml"
        text = registry.read_text("utf-8")
        assert 'publisher = "unknown third party"' in text
        registry.write_text(text.replace('licence = "unknown"', 'licence = "unknown"\ntrust = 0.1', 1), "utf-8")
    files = {f"{name}.parquet": os.stat(out / f"{name}.parquet").st_ino for name in runner.reuse.TAKEN_TABLES}
    files["report.html"] = os.stat(out / "report.html").st_ino
    result = build(sources, out)
    assert {name: os.stat(out / name).st_ino == ino for name, ino in files.items()} == {
        **{f"{name}.parquet": taken for name in runner.reuse.TAKEN_TABLES},
        "report.html": page,
    }
    scratch = build(sources, tmp_path / "scratch", settings=runner.Settings(incremental=False))
    assert _files(out) == _files(tmp_path / "scratch")
    assert (result.tables, result.diagnostics, result.labels) == (scratch.tables, scratch.diagnostics, scratch.labels)


def test_tables_taken_from_the_output_replaced_are_not_read_where_their_stamps_vouch_for_them(
    tmp_path: Path, reads: list[Path]
) -> None:
    """An edit that changes no claim links the reconciled tables' files from the output it
    replaces; each whose stamp is the one recorded with its digest is not read to check it.
    Linking them, and removing the old output's links, moved their change times: this build
    does not vouch for them, and the next one reads them again (and records them)."""
    sources, out, pages = _generated_and_built(tmp_path)
    _built_and_recorded(sources, out)
    facts = os.stat(out / "facts.parquet").st_ino
    reads.clear()
    pages[3].write_text(pages[3].read_text("utf-8") + "\nEdited.\n", "utf-8")
    assert not build(sources, out).up_to_date
    assert os.stat(out / "facts.parquet").st_ino == facts, "the tables were taken"
    taken = {out / f"{name}.{suffix}" for name in runner.reuse.TAKEN_TABLES for suffix in ("csv", "parquet")}
    assert {path.name for path in reads} & {path.name for path in taken} == set()
    reads.clear()
    assert build(sources, out).up_to_date
    assert taken <= set(reads)


def test_output_folders_that_share_a_cache_each_take_from_their_own_last_build(tmp_path: Path) -> None:
    """The default cache is beside the output folder, so two output folders side by side share
    it: each keeps what its own last build made, and an edit that changes no claim takes the
    tables however the builds of the two alternate."""
    from bench import corpus

    sources = {name: tmp_path / f"corpus-{name}" for name in ("a", "b")}
    for seed, folder in enumerate(sources.values()):
        corpus.generate(40, folder, seed=seed)
    for name in ("a", "b", "a"):
        page = sorted(sources[name].rglob("*.md"))[3]
        facts = tmp_path / name / "facts.parquet"
        before = os.stat(facts).st_ino if facts.exists() else None
        page.write_text(page.read_text("utf-8") + "\nEdited.\n", "utf-8")
        build(sources[name], tmp_path / name)
        assert (os.stat(facts).st_ino == before) == (before is not None), f"{name}: taken only once built"
    assert {p.name for p in tmp_path.iterdir() if p.name.startswith(".")} == {".pipeline-cache", ".a.lock", ".b.lock"}


def test_a_build_that_takes_the_reconciled_tables_gives_what_they_were_made_with(tmp_path: Path) -> None:
    """On the real pages: a line appended to a Learn page changes no claim, so the tables are
    taken, and the build still gives the calibration labels and every diagnostic that a build
    from scratch gives."""
    from tests.conftest import SOURCES

    sources = tmp_path / "sources"
    shutil.copytree(SOURCES, sources)
    out = tmp_path / "output"
    build(sources, out)
    page = next(p for p in sorted(sources.rglob("*.md")) if p.read_text("utf-8").startswith("---"))
    page.write_text(page.read_text("utf-8") + "\nA line appended.\n", "utf-8")
    facts = os.stat(out / "facts.parquet").st_ino
    result = build(sources, out)
    assert os.stat(out / "facts.parquet").st_ino == facts, "the facts were taken"
    scratch = build(sources, tmp_path / "scratch", settings=runner.Settings(incremental=False))
    assert _files(out) == _files(tmp_path / "scratch")
    assert len(result.labels) > 10 and result.labels == scratch.labels
    assert result.diagnostics == scratch.diagnostics and result.tables == scratch.tables
    # Those the stages after normalize gave are kept beside the tables: a size no series reaches,
    # and a name that stands for another size.
    assert {"size_without_series", "suspect_size_name"} <= {d.code for d in result.diagnostics}


GB200_PAGE = "azure-docs/azure-compute-docs/articles/virtual-machines/sizes/gpu-accelerated/nd-gb200-v6-series.md"


@pytest.mark.parametrize(
    ("cell", "edited"),
    [("| 4 | 1.8 |", "| 4 | 1.9 |"), ("| 4 | 400 |", "| 4 | 800 |")],
    ids=["TBps under a Mbps header", "Gbps under a MB/s header"],
)
def test_an_edit_of_a_cell_whose_header_unit_is_wrong_makes_the_errata_again(
    cell: str, edited: str, tmp_path: Path
) -> None:
    """A cell under a header whose unit is wrong yields no claim, only normalize's `unit-mismatch`
    diagnostic, which the errata read: an edit of it changes no claim, yet the errata table is
    not the one the output replaced holds, but what a build from scratch writes."""
    sources = tmp_path / "sources"
    (sources / GB200_PAGE).parent.mkdir(parents=True)
    text = (Path(__file__).resolve().parent.parent / "sources" / GB200_PAGE).read_text("utf-8")
    assert text.count(cell) == 1
    (sources / GB200_PAGE).write_text(text, "utf-8")
    out = tmp_path / "output"
    build(sources, out)
    (sources / GB200_PAGE).write_text(text.replace(cell, edited), "utf-8")
    build(sources, out)
    build(sources, tmp_path / "scratch", settings=runner.Settings(incremental=False))
    errata = pd.read_parquet(out / "errata.parquet")
    assert edited.split()[-2] in set(errata.loc[errata["kind"] == "header_unit", "written"])
    pd.testing.assert_frame_equal(errata, pd.read_parquet(tmp_path / "scratch" / "errata.parquet"))
    assert _files(out) == _files(tmp_path / "scratch")


def test_with_a_second_core_the_claims_table_is_made_and_written_by_a_process_of_its_own(
    seeds: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The build process never holds the claims table: a forked process makes it, adds the
    checks each claim fails once they are decided, checks its contract and writes it, in a first
    build and in one that keeps decisions. The files are those of a build in one process."""
    monkeypatch.setattr(runner.settings, "MIN_PARALLEL", 1)
    settings = runner.Settings(workers=2)
    first = build(seeds, tmp_path / "output", settings=settings)
    assert "claims table" in {what for what, *_ in first.helpers}
    assert first.tables["claims"] == len(pd.read_parquet(tmp_path / "output" / "claims.parquet")) > 100
    build(seeds, tmp_path / "scratch", settings=runner.Settings(workers=1, incremental=False))
    assert _files(tmp_path / "output") == _files(tmp_path / "scratch")
    page = seeds / "seeds" / "seed-ndv2-series-2020.txt"
    page.write_text(page.read_text(encoding="utf-8").replace("| 672 |", "| 673 |", 1), encoding="utf-8")
    again = build(seeds, tmp_path / "output", settings=settings)
    assert "claims table" in {what for what, *_ in again.helpers}
    assert again.cache is not None and again.cache.reused["reconcile"][0] > 0
    build(seeds, tmp_path / "scratch", settings=runner.Settings(workers=1, incremental=False))
    assert _files(tmp_path / "output") == _files(tmp_path / "scratch")


def test_a_claims_table_breaking_its_contract_in_its_own_process_fails_the_build(
    seeds: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The process that writes the claims table checks its contract; what it finds fails the
    build as the other tables' violations do, and nothing is written."""
    from pipeline.outputs import contracts

    monkeypatch.setattr(runner.settings, "MIN_PARALLEL", 1)
    monkeypatch.setitem(contracts.REQUIRED, "claims", (*contracts.REQUIRED["claims"], "unit"))
    contracts.schemas.cache_clear()  # made from REQUIRED once
    try:
        with pytest.raises(ContractViolation) as caught:
            build(seeds, tmp_path / "output", settings=runner.Settings(workers=2))
    finally:
        monkeypatch.undo()
        contracts.schemas.cache_clear()
    assert (
        [v for v in caught.value.violations if v.startswith("claims.")]
        == [v for v in caught.value.violations if v.startswith("claims.unit: must not be empty; ")]
        != []
    )
    assert not (tmp_path / "output").exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".output.new")] == []


def test_a_build_failing_before_the_claims_table_is_written_stops_its_process(
    seeds: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The claims table's process waits for the checks and the folder to write into; a build
    that fails before telling it raises its own error, and leaves no process waiting."""
    import multiprocessing

    def fails(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("calibration failed")

    monkeypatch.setattr(runner.settings, "MIN_PARALLEL", 1)
    monkeypatch.setattr(runner.parts, "_calibration_labels", fails)
    with pytest.raises(RuntimeError, match="calibration failed"):
        build(seeds, tmp_path / "output", settings=runner.Settings(workers=2))
    assert multiprocessing.active_children() == []
    assert not (tmp_path / "output").exists()


def test_a_build_failing_after_the_claims_process_has_its_folder_leaves_nothing_behind(
    seeds: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once reconciling tells the claims table's process the checks, it writes the table into
    the staging folder while the build makes the other tables; a build failing there stops that
    process before the folder is removed, and the output is not made."""
    import multiprocessing
    import time

    written: list[bool] = []
    real_write, real_rmtree = runner.tables.write_table, shutil.rmtree
    alive: list[int] = []

    def slow_write(df: Any, columns: Any, name: str, folder: Path, **kwargs: Any) -> None:
        real_write(df, columns, name, folder, **kwargs)
        if name == "claims":  # in the claims process: still at work when the build fails
            time.sleep(5)

    def fails(*args: Any, **kwargs: Any) -> Any:
        # The claims table reaches the staging folder before the build writes any table.
        deadline = time.monotonic() + 30
        while not (found := list(tmp_path.glob(".output.new-*/claims.csv"))) and time.monotonic() < deadline:
            time.sleep(0.01)
        written.append(bool(found))
        raise RuntimeError("the small tables failed")

    def rmtree(path: Any, *args: Any, **kwargs: Any) -> None:
        if Path(path).name.startswith(".output.new"):  # the processes still running when it goes
            alive.append(len(multiprocessing.active_children()))
        real_rmtree(path, *args, **kwargs)

    monkeypatch.setattr(runner.settings, "MIN_PARALLEL", 1)
    monkeypatch.setattr(runner.tables, "write_table", slow_write)
    monkeypatch.setattr(runner.tables, "_small_tables", fails)
    monkeypatch.setattr(shutil, "rmtree", rmtree)
    with pytest.raises(RuntimeError, match="the small tables failed"):
        build(seeds, tmp_path / "output", settings=runner.Settings(workers=2))
    assert written == [True]
    # Made afresh when the build starts, removed when it fails: each time no process was left.
    assert alive == [0, 0], "the staging folder was removed while a process could still write into it"
    assert multiprocessing.active_children() == []
    assert sorted(p.name for p in tmp_path.iterdir()) == [".output.lock", ".pipeline-cache", "sources"]


def test_a_build_failing_before_its_plan_is_made_stops_the_claims_process_waiting_for_it(
    seeds: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The claims table's process is forked before the plan is made; a build failing in the
    plan raises its own error and leaves no process behind, and the output it would replace
    stays as it was."""
    import multiprocessing

    out = tmp_path / "output"
    monkeypatch.setattr(runner.settings, "MIN_PARALLEL", 1)
    build(seeds, out, settings=runner.Settings(workers=2))
    before = _files(out)
    page = seeds / "seeds" / "seed-ndv2-series-2020.txt"
    page.write_text(page.read_text(encoding="utf-8").replace("| 672 |", "| 673 |", 1), encoding="utf-8")

    def fails(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("the plan failed")

    monkeypatch.setattr(runner.parts, "plan", fails)
    with pytest.raises(RuntimeError, match="the plan failed"):
        build(seeds, out, settings=runner.Settings(workers=2))
    assert multiprocessing.active_children() == []
    assert _files(out) == before
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".output.new")] == []


def test_a_build_failing_while_the_tables_are_written_stops_the_claims_process_first(
    seeds: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The staging folder is removed once the process writing the claims table into it is
    stopped: none is left behind, and the output is not made."""
    import multiprocessing

    real = runner.writing.write_table

    def write_table(df: Any, columns: Any, name: str, folder: Path, **kwargs: Any) -> None:
        if name == "facts":
            raise OSError("disk full")
        real(df, columns, name, folder, **kwargs)

    monkeypatch.setattr(runner.settings, "MIN_PARALLEL", 1)
    monkeypatch.setattr(runner.writing, "write_table", write_table)
    with pytest.raises(OSError, match="disk full"):
        build(seeds, tmp_path / "output", settings=runner.Settings(workers=2))
    assert multiprocessing.active_children() == []
    assert sorted(p.name for p in tmp_path.iterdir()) == [".output.lock", ".pipeline-cache", "sources"]


def test_the_report_and_contracts_beside_the_writing_give_the_same_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With a second core the contracts and the report run in forked processes, one each, while
    the tables are written; the files are the same as a build in one process writes."""
    from tests.conftest import SOURCES

    monkeypatch.setattr(runner.settings, "MIN_PARALLEL", 1)
    one = build(SOURCES, tmp_path / "one", settings=runner.Settings(workers=1, incremental=False))
    two = build(SOURCES, tmp_path / "two", settings=runner.Settings(workers=2, incremental=False))
    assert _files(tmp_path / "one") == _files(tmp_path / "two")
    # Each forked process says its peak memory (`--timings` lists them): the build's own is not all.
    assert one.helpers == ()
    assert {what for what, *_ in two.helpers} >= {
        "normalizing",
        "report",
        "claims table",
        "deciding the other part of the entities",
    }
    assert all(peak > 10 * 2**20 for _, peak, _ in two.helpers)
    assert {"report.html", "SCHEMA.md", "datapackage.json", "manifest.json"} <= set(_files(tmp_path / "two"))


def test_tables_made_without_keeping_the_records_are_the_same_tables() -> None:
    """`build` asks `compute` not to keep the records, so that each is let go once its table
    is made; the tables must be exactly those of a compute that keeps them."""
    from tests.conftest import SOURCES

    kept, kept_frames = runner.compute(SOURCES, runner.Settings(workers=1))
    summary, frames = runner.compute(SOURCES, runner.Settings(workers=1), records=False)
    assert (summary.documents, summary.claims, summary.facts, summary.conflicts, summary.names) == ((),) * 5
    assert len(kept.facts) == summary.tables["facts"] > 1000
    assert summary.tables == kept.tables and summary.diagnostics == kept.diagnostics
    assert list(frames) == list(kept_frames)
    for name, df in kept_frames.items():
        pd.testing.assert_frame_equal(df, frames[name], obj=name)


def test_the_records_are_computed_without_the_garbage_collector_walking_them(tmp_path: Path) -> None:
    """Millions of records and no cycles among them: a full collection would walk them all and
    free nothing, so `compute` runs with the collector paused and hands it back afterwards."""
    (tmp_path / "nd.md").write_text(
        "# ND series\n\n| Size | vCPU | Memory: GiB |\n|---|---|---|\n| Standard_ND40rs_v2 | 40 | 672 |\n",
        encoding="utf-8",
    )
    started: list[int] = []

    def count(phase: str, info: dict[str, int]) -> None:
        frame: FrameType | None = sys._getframe(1)
        while phase == "start" and frame is not None:
            code = Path(frame.f_code.co_filename)
            if code.name in ("builder.py", "extract.py") or code.parent.name in ("normalize", "reconcile"):
                started.append(info["generation"])  # started by an allocation in the pipeline's stages
                return
            frame = frame.f_back

    gc.callbacks.append(count)
    try:
        result, _ = runner.compute(tmp_path, runner.Settings(workers=1))
    finally:
        gc.callbacks.remove(count)
    claimed = [(c.entity, c.value_number) for c in result.claims if c.attribute == "memory_gib"]
    assert claimed == [("Standard_ND40rs_v2", 672)]
    assert started == []
    assert gc.isenabled()


def test_a_build_of_the_shipped_sources_writes_the_committed_bytes(shipped_output: Path) -> None:
    """Every table (Parquet and CSV), the report and the dictionary as the committed output/
    lists them in its manifest: a change of the code that changes what a build writes must
    come with a rebuilt output/, on purpose (`make build`; `make drift` says what moved)."""
    import json

    def hashes(folder: Path) -> dict[str, object]:
        manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
        return {"outputs": manifest["outputs"], "documentation": manifest["documentation"]}

    committed = Path(__file__).resolve().parent.parent / "output"
    assert hashes(shipped_output) == hashes(committed)


def test_a_memo_writer_killed_loses_the_cache_not_the_build(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The memos are written by forked processes while the build goes on; the system may kill
    one (the largest process, when memory runs out). The output is complete by then: the build
    succeeds and says what was lost, and the next build decides everything again, to the files
    a build from scratch writes."""
    import os
    import signal

    from tests.conftest import SOURCES

    sources = tmp_path / "sources"
    shutil.copytree(SOURCES, sources)
    monkeypatch.setattr(runner.settings, "MIN_PARALLEL", 1)
    here = os.getpid()
    written = Memo.write

    def killed(self: Memo) -> int:
        if self.name == "reconcile" and os.getpid() != here:
            os.kill(os.getpid(), signal.SIGKILL)
        return written(self)

    monkeypatch.setattr(Memo, "write", killed)
    settings = runner.Settings(workers=2)
    result = build(sources, tmp_path / "output", settings=settings)
    assert result.cache is not None
    assert result.cache.lost == [
        "the process doing the saving of the reconcile memo ended without an answer (exit code -9); "
        "the next build computes it again"
    ]
    assert result.cache.write_errors == 1
    assert (tmp_path / "output" / "manifest.json").is_file()
    monkeypatch.setattr(Memo, "write", written)
    page = sources / "seeds" / "seed-ndv2-series-2020.txt"
    page.write_text(page.read_text(encoding="utf-8").replace("| 672 |", "| 673 |", 1), encoding="utf-8")
    again = build(sources, tmp_path / "output", settings=settings)
    assert again.cache is not None and again.cache.lost == []
    assert again.cache.reused["reconcile"] == (0, 0), "no bucket kept to look up: every one decided"
    build(sources, tmp_path / "scratch", settings=runner.Settings(incremental=False))
    assert _files(tmp_path / "output") == _files(tmp_path / "scratch")


def test_the_files_bytes_a_build_is_handed_are_let_go_once_parsed() -> None:
    """`build` surveys the files (their bytes make the build key) and hands them to `compute`,
    which empties the list once they are parsed: the bytes are not held through the build."""
    from pipeline.runner.documents import survey
    from pipeline.stages.read import Limits
    from tests.conftest import SOURCES

    inputs, found = survey(SOURCES, Limits())
    assert len(inputs) > 50 and all(item.data for item in inputs)
    result, _ = runner.compute(SOURCES, runner.Settings(workers=1), inputs=inputs, found=found)
    assert inputs == []
    assert len(result.documents) > 50


def test_where_no_process_can_be_forked_the_build_makes_the_claims_table_itself(
    seeds: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The claims table's process waits for orders only a build that forked it sends: where
    `beside` cannot fork (no memory or processes left, or no fork at all) and runs its work
    here instead, the build does not wait for itself, and writes the same files."""
    from pipeline.runner import pool

    monkeypatch.setattr(runner.settings, "MIN_PARALLEL", 1)
    monkeypatch.setattr(pool.multiprocessing, "get_all_start_methods", lambda: ["spawn"])
    result = build(seeds, tmp_path / "output", settings=runner.Settings(workers=2, incremental=False))
    assert result.helpers == ()
    build(seeds, tmp_path / "scratch", settings=runner.Settings(workers=1, incremental=False))
    assert _files(tmp_path / "output") == _files(tmp_path / "scratch")


@pytest.mark.parametrize(
    ("halves", "joined"),
    [
        # Halves that follow each other (a divided reconcile's) are joined as they are.
        ((["NC12", "NC6"], ["ND40rs_v2", "NV6"]), ["NC12", "NC6", "ND40rs_v2", "NV6"]),
        # Interleaved parts (kept buckets beside a decided one) are put in order.
        ((["NC6", "NV6"], ["NC12", "ND40rs_v2"]), ["NC12", "NC6", "ND40rs_v2", "NV6"]),
    ],
)
def test_parts_are_joined_in_order_with_each_text_column_one_chunk(
    halves: tuple[list[str], list[str]], joined: list[str]
) -> None:
    """Writing joins a column's Arrow chunks (a table's bytes must not depend on how it was
    put together), which at the peak of a large build was a copy of its longest column: the
    parts are joined into one chunk where they are put together, and numbers follow their rows."""
    import pyarrow as pa

    def part(entities: list[str], values: list[float]) -> pd.DataFrame:
        return frame(
            {"entity": entities, "attribute": ["gpu_count"] * len(entities), "confidence": values},
            [c for c in tables()["facts"] if c.name in ("entity", "attribute", "confidence")],
        )

    first, second = halves
    whole = runner.frames._in_order([part(first, [0.1, 0.2]), part(second, [0.3, 0.4])], ["entity", "attribute"])
    assert whole["entity"].tolist() == sorted([*first, *second]) == joined
    value = dict(zip([*first, *second], [0.1, 0.2, 0.3, 0.4], strict=True))
    assert whole["confidence"].tolist() == [value[e] for e in joined]
    assert not isinstance(pa.array(whole["entity"].array), pa.ChunkedArray)  # pandas' one chunk
    assert str(whole["entity"].dtype) == "string" and str(whole["confidence"].dtype) == "Float64"


@pytest.mark.parametrize(
    "forms",
    [("frame", "frame"), ("packed", "packed"), ("packed", "frame")],
    ids=["frames", "kept buckets packed", "a kept bucket beside a decided part"],
)
@pytest.mark.parametrize(
    "picked",
    [([0, 3], [1, 2, 4]), ([2, 4, 0], [1, 3])],
    ids=["interleaved", "one after the other"],
)
def test_parts_of_every_column_type_are_joined_as_the_whole_sorted(
    forms: tuple[str, str], picked: tuple[list[int], list[int]]
) -> None:
    """Each column is joined and put in order as a pandas array, whatever its type: text,
    whole numbers, numbers, flags and dates (as `datetime.date` objects), nulls kept in their
    rows, each column's dtype the one `frame` gives, each text column one Arrow chunk. A kept
    bucket's part comes packed; parts that follow each other are joined as they are."""
    import datetime as dt

    import pyarrow as pa

    columns = [
        c
        for c in tables()["facts"]
        if c.name in ("entity", "attribute", "value", "sources", "confidence", "stale", "as_of")
    ]
    rows = {
        "entity": ["NC6", "ND40rs_v2", "NC12", "NV6", "NC24"],
        "attribute": ["vcpus", "vcpus", "gpu_count", "vcpus", "memory_gib"],
        "value": ["6", None, "2", "6", "224"],
        "sources": [3, 1, None, 2, 4],
        "confidence": [0.9, None, 0.5, 0.75, 1.0],
        "stale": [False, True, None, False, True],
        "as_of": [dt.date(2020, 1, 2), None, dt.date(2019, 5, 6), dt.date(2021, 7, 8), dt.date(2018, 3, 4)],
    }

    def part(picked: list[int], form: str) -> Any:
        made = frame({name: [values[i] for i in picked] for name, values in rows.items()}, columns)
        ordered = made.sort_values(["entity", "attribute"], ignore_index=True)
        return runner.frames._Packed.of(ordered) if form == "packed" else ordered

    whole = frame(rows, columns).sort_values(["entity", "attribute"], ignore_index=True)
    joined = runner.frames._in_order(
        [part(p, form) for p, form in zip(picked, forms, strict=True)], ["entity", "attribute"]
    )
    pd.testing.assert_frame_equal(joined, whole)
    assert joined["entity"].tolist() == ["NC12", "NC24", "NC6", "ND40rs_v2", "NV6"]
    assert joined["as_of"].tolist()[3] is None and joined["as_of"].tolist()[0] == dt.date(2019, 5, 6)
    for name in ("entity", "attribute", "value"):
        assert not isinstance(pa.array(joined[name].array), pa.ChunkedArray), name  # pandas' one chunk


_COUNTING_POOLS: list[Any] = []
"""Arrow memory pools a test counted allocations with: kept for the process's life."""


def test_joining_interleaved_parts_holds_at_most_two_copies_of_a_text_column() -> None:
    """A text column's parts are let go once joined into one chunk, before the rows are put in
    order: the parts, the joined column and the ordered one are never held at once (the
    facts' reasons are 70 MB at 10,000 documents). Counted by a pool of Arrow's own."""
    import pyarrow as pa

    rows, reason = 50_000, "r" * 600
    pool, default = pa.proxy_memory_pool(pa.default_memory_pool()), pa.default_memory_pool()
    _COUNTING_POOLS.append(pool)  # what it allocated may be freed after the test: it must outlive that
    pa.set_memory_pool(pool)
    columns = [c for c in tables()["facts"] if c.name in ("entity", "attribute", "reason")]
    try:

        def part(offset: int) -> pd.DataFrame:
            entities = [f"Standard_NC{2 * n + offset:06d}" for n in range(rows)]
            return frame({"entity": entities, "attribute": ["vcpus"] * rows, "reason": [reason] * rows}, columns)

        parts = [part(0), part(1)]
        text = 2 * rows * len(reason)  # the reasons of both parts
        joined = runner.frames._in_order(parts, ["entity", "attribute"])
        assert joined["entity"].iloc[1] == "Standard_NC000001" and len(joined) == 2 * rows
        assert pool.max_memory() < 2.5 * text
    finally:
        pa.set_memory_pool(default)


def test_each_table_is_synced_as_it_is_written_before_the_output_is_swapped_in(
    seeds: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A table's two files go to disk on a thread while the next table is written, so the swap
    finds them there; every one of them is synced before the swap begins."""
    synced: list[str] = []
    swapped: list[int] = []
    real_sync, real_swap = runner.writing.sync_file, runner.writing.swap_in

    def sync_file(path: Path) -> None:
        synced.append(path.name)
        real_sync(path)

    def swap_in(stage: Path, out: Path) -> None:
        swapped.append(len(synced))
        real_swap(stage, out)

    monkeypatch.setattr(runner.writing, "sync_file", sync_file)
    monkeypatch.setattr(runner.writing, "swap_in", swap_in)
    out = tmp_path / "output"
    build(seeds, out, settings=runner.Settings(workers=1))
    # One core: every table is made and written by the build process, the claims' too.
    assert sorted(synced) == sorted(f"{name}.{suffix}" for name in tables() for suffix in ("csv", "parquet"))
    assert swapped == [len(synced)]
    assert sorted(p.name for p in out.glob("*.csv")) == sorted(f"{name}.csv" for name in tables())
