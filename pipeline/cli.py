"""The thin command line over `build`, `drift`, `explain` and `sync`.

Stage modules are imported inside each command so that `--help` answers at once.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pipeline.records import BuildResult, ContractViolation

EPILOG = """commands:
  build    read the documents under sources/ and write the tables, report.html, errata.md,
           SCHEMA.md and datapackage.json to output/
  explain  show every claim behind a size's value, the checks applied and why the value was chosen
  drift    build sources/ into a temporary folder and compare it with the committed output/
  calibrate  set each value's confidence against the API catalogs; fit the confidence model
  sync     take the Learn pages that sources/upstream.toml names from a docs repository

example:
  python -m pipeline build --sources sources --out output
  python -m pipeline explain ND40rs_v2 gpu_memory_gib
  python -m pipeline drift --format markdown
  python -m pipeline calibrate --sources sources
  python -m pipeline sync --from ../azure-compute-docs

'python -m pipeline COMMAND --help' describes each command."""

EPILOG_BUILD = """Besides the tables (Parquet and CSV), --out gets report.html (one static page for people),
errata.md (what the pages and catalogs get wrong, as issues to send upstream), SCHEMA.md and
datapackage.json (the data dictionary) and manifest.json. The tables are checked
against their contracts first: a build whose data would break them writes nothing, lists every
violation and exits 1.

Builds are incremental: each document is parsed once and kept in .pipeline-cache beside --out
(keyed by its bytes, the settings and the pipeline's code), and when nothing changed --out is
left as it is. --no-cache rebuilds everything from scratch.

example:
  python -m pipeline build --sources sources --out output
  python -m pipeline build --strict      # exit 1 when any document has an error"""


def _progress_printer(enabled: bool):  # type: ignore[no-untyped-def]
    def show(message: str) -> None:
        if enabled:
            print(f"\r{message}", end="", file=sys.stderr, flush=True)

    return show


def cmd_build(args: argparse.Namespace) -> int:
    from pipeline.outputs.write import OutputLocked
    from pipeline.records import ContractViolation
    from pipeline.runner import Settings, build

    interactive = sys.stderr.isatty() and not args.quiet
    settings = Settings(incremental=not args.no_cache, workers=args.workers)
    try:
        result = build(Path(args.sources), Path(args.out), settings=settings, progress=_progress_printer(interactive))
    except OutputLocked as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except ContractViolation as exc:
        if interactive:
            print("\r" + " " * 40 + "\r", end="", file=sys.stderr)
        _print_violations(exc, f"{args.out}/")
        return 1
    if interactive:
        print("\r" + " " * 40 + "\r", end="", file=sys.stderr)
    sev = Counter(d.severity for d in result.diagnostics)
    print(
        f"documents: {result.tables.get('documents', 0)}  claims: {result.tables.get('claims', 0)}  "
        f"sizes: {result.tables.get('vm_sizes', 0)}  diagnostics: {len(result.diagnostics)} "
        f"({sev.get('error', 0)} errors, {sev.get('warning', 0)} warnings, {sev.get('info', 0)} info)"
    )
    if result.up_to_date:
        print(f"{args.out}/ is up to date: no document, setting or pipeline code changed (--no-cache rebuilds)")
    else:
        print(f"wrote {', '.join(sorted(result.tables))} to {args.out}/ (Parquet and CSV)")
        print(f"wrote report.html, errata.md, SCHEMA.md, datapackage.json and manifest.json to {args.out}/")
        if result.cache is not None:
            c = result.cache
            print(
                f"parse cache: {c.hits} unchanged document(s) reused, {c.misses} parsed"
                + (f", {c.corrupt} damaged entr{'y' if c.corrupt == 1 else 'ies'} rebuilt" if c.corrupt else "")
            )
            if "normalize" in c.reused:
                reused, total = c.reused["normalize"]
                print(f"normalize: {reused} of {total} documents' claims reused")
            reused, total = c.reused.get("reconcile", (0, 0))
            if total:
                print(f"reconcile: {reused} of {total} buckets of decisions reused")
            for lost in c.lost:
                print(f"warning: cache: {lost}", file=sys.stderr)
            if c.write_errors > len(c.lost):
                n = c.write_errors - len(c.lost)
                print(
                    f"warning: cache: {n} write{'s' if n > 1 else ''} failed; the next build computes again what "
                    f"{'they' if n > 1 else 'it'} would have kept",
                    file=sys.stderr,
                )
    if args.timings:
        # Not in the output folder: a time is not data about the documents, and would drift.
        Path(args.timings).write_text(json.dumps(timings(result), indent=1) + "\n", encoding="utf-8")
    if args.strict and result.errors:
        print(f"--strict: {len(result.errors)} error(s):", file=sys.stderr)
        for d in result.errors:
            print(f"  {d}", file=sys.stderr)
        return 1
    return 0


def _print_violations(exc: ContractViolation, out: str) -> None:
    print(
        f"error: the tables break their contract ({len(exc.violations)} violation(s)); nothing was written to {out}:",
        file=sys.stderr,
    )
    for v in exc.violations:
        print(f"  {v}", file=sys.stderr)


def cmd_explain(args: argparse.Namespace) -> int:
    from pipeline.explainer import NotFound, explain

    out = Path(args.out)
    if not (out / "facts.parquet").exists():
        print(f"error: {out}/facts.parquet not found; run 'make build' first", file=sys.stderr)
        return 2
    try:
        print(explain(args.entity, args.attribute, out), end="")
    except NotFound as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


def cmd_drift(args: argparse.Namespace) -> int:
    import tempfile

    from pipeline.differ import DriftReport, render_json, render_markdown, render_text
    from pipeline.differ import drift as compare
    from pipeline.records import ContractViolation
    from pipeline.runner import build, unchanged

    against = Path(args.against)
    render = {"text": render_text, "markdown": render_markdown, "json": render_json}[args.format]
    if not args.rebuild and unchanged(Path(args.sources), against) is not None:
        # Builds are deterministic: the same build key (documents, settings, code, libraries)
        # and every output file as the manifest lists it means a build would write these bytes.
        same = f"a build of {args.sources} (same documents, settings, code and libraries; every file as listed)"
        print(render(DriftReport((), str(against), same)), end="")
        return 0
    with tempfile.TemporaryDirectory(prefix="pipeline-drift-") as tmp:
        fresh = Path(tmp) / "output"
        try:
            build(Path(args.sources), fresh)
        except ContractViolation as exc:
            _print_violations(exc, "the temporary folder")
            return 1
        report = compare(against, fresh)
    text = render(report)
    text = text.replace(str(fresh), f"a fresh build of {args.sources}")
    print(text, end="")
    return 1 if report.differs else 0


EPILOG_SYNC = """--from is a git URL or a local clone; its last path component (azure-compute-docs,
azure-docs) says which repository of upstream.toml it is. The files matching that repository's
globs at --ref are written below --sources at their repository paths, files gone upstream are
removed, and upstream.lock records each file's last commit and SHA-256. The new sources folder is
swapped in only when complete: a sync that fails or is interrupted changes nothing. It runs the
git command line; a shallow clone must reach back to each file's last commit (a clone made with
--filter=blob:none and no --depth always does). Exit 2 with one line on stderr when it cannot sync.

example:
  git clone --filter=blob:none --sparse https://github.com/MicrosoftDocs/azure-compute-docs.git
  git -C azure-compute-docs sparse-checkout set articles/virtual-machines/sizes
  python -m pipeline sync --from azure-compute-docs
  python -m pipeline sync --from https://github.com/MicrosoftDocs/azure-docs.git --ref main"""


def cmd_sync(args: argparse.Namespace) -> int:
    from pipeline.sync import LOCK_FILE, Failed, sync

    try:
        result = sync(args.repo, Path(args.sources), args.ref)
    except OSError as exc:
        result = Failed(f"sync failed ({exc}); {args.sources}/ was left as it was")
    if isinstance(result, Failed):
        print(f"error: {result.message}", file=sys.stderr)
        return 2
    print(result.summary(), end="")
    if result.changes:
        print(f"wrote {args.sources}/ and {args.sources}/{LOCK_FILE}")
    return 0


def cmd_calibrate(args: argparse.Namespace) -> int:
    from collections import Counter
    from dataclasses import replace
    from importlib import resources

    from pipeline.runner import Settings, compute
    from pipeline.stages.calibrate import (
        FEATURES,
        expected_calibration_error,
        fit,
        held_out,
        model,
        model_text,
        reliability,
        table_text,
    )

    result, _ = compute(Path(args.sources), Settings(incremental=False))
    labels = result.labels
    if not labels:
        print(f"error: {args.sources} holds no API catalog to check the documents against", file=sys.stderr)
        return 2
    current = model()
    before = reliability([(label.confidence, label.correct) for label in labels])
    fitted = fit(labels, current)
    after_points = [(fitted.judges(label), label.correct) for label in labels]
    after = reliability(after_points)
    wrong = sum(not label.correct for label in labels)
    print(f"{len(labels)} values the documents give and an API catalog also states; {wrong} of them disagree.\n")
    print(f"With the coefficients in use (ECE {expected_calibration_error(before):.4f}):\n{table_text(before)}\n")
    print(f"Fitted (ECE {expected_calibration_error(after):.4f}):\n{table_text(after)}\n")
    low = sum(c < 0.5 and ok and label.official for (c, ok), label in zip(after_points, labels, strict=True))
    high_wrong = sum(c >= 0.9 and not ok for c, ok in after_points)
    print(f"Right official values below 0.5: {low}; wrong values at 0.9 or more: {high_wrong}.")
    for name, old, new in zip(FEATURES, current.coefficients, fitted.coefficients, strict=True):
        print(f"  {name:<11} {old:8.4f} -> {new:8.4f}")
    counts = Counter(label.attribute for label in labels)
    misses = Counter(label.attribute for label in labels if not label.correct)
    print("\nAgreement per attribute (log-odds measured, expected at all labels' rate; the term is their difference):")
    for attribute, (measured, expected) in fitted.agreement.items():
        print(
            f"  {attribute:<17} {counts[attribute]:4d} labels, {misses[attribute]} wrong: "
            f"{measured:7.4f} - {expected:7.4f} = {fitted.attribute_terms[attribute]:+.4f}"
        )
    held = held_out(labels, current)
    print("\nEach family's labels scored by the model fitted without them (pages it has never seen):")
    for h in held:
        print(f"  {h.family:<3} {h.labels:4d} labels  ECE {h.ece:.4f}")
    scored = [h for h in held if h.labels]
    if scored:
        worst = max(scored, key=lambda h: h.ece)
        print(f"Worst held-out ECE: {worst.ece:.4f} ({worst.family}).")
    if args.write:
        hand = replace(fitted, coefficients=fitted.prior)
        prior_ece = expected_calibration_error(reliability([(hand.judges(x), x.correct) for x in labels]))
        note = (
            f"Fitted on {len(labels)} labels ({wrong} wrong): ECE {prior_ece:.4f} with the prior, "
            f"{expected_calibration_error(after):.4f} fitted."
        )
        target = resources.files("pipeline.knowledge").joinpath("calibration.toml")
        fitted = replace(fitted, fitted_on=f"{len(labels)} labels, {wrong} wrong")
        Path(str(target)).write_text(model_text(fitted, note), encoding="utf-8")
        print("\nwrote the fitted model to pipeline/knowledge/calibration.toml; run 'make build' to use it")
    return 0


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m pipeline",
        description="Turn GPU VM documentation into one dataset with provenance, confidence and conflicts.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=EPILOG,
    )
    sub = p.add_subparsers(dest="command", required=True)
    b = sub.add_parser(
        "build",
        help="read the documents and write the tables",
        description="Read every .md/.txt file under --sources and write documents, claims, "
        "vm_sizes, facts, conflicts and diagnostics as Parquet and CSV into --out.",
        epilog=EPILOG_BUILD,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    b.add_argument("--sources", default="sources", help="folder of documents (default: sources)")
    b.add_argument("--out", default="output", help="output folder (default: output)")
    b.add_argument("--strict", action="store_true", help="exit 1 and list the errors when any diagnostic is an error")
    b.add_argument("--quiet", action="store_true", help="no progress display")
    b.add_argument(
        "--no-cache",
        action="store_true",
        help="parse every document again and rebuild even when nothing changed (the cache is .pipeline-cache "
        "beside --out)",
    )
    b.add_argument("--workers", type=int, default=None, help="parsing processes (default: one per core)")
    b.add_argument(
        "--timings",
        metavar="FILE",
        help="write the seconds and CPU seconds each step took, the build's peak memory (MB) when it ended, "
        "and the peak memory and CPU seconds of the parse workers and of each forked process, to FILE (JSON)",
    )
    b.set_defaults(func=cmd_build)
    e = sub.add_parser(
        "explain",
        help="show the claims, checks and reason behind a size's values",
        description="Print, for a person, each claim about a size or series (document, line, raw "
        "text), the checks applied, the value chosen and why. Reads --out.",
        epilog="example:\n  python -m pipeline explain Standard_ND40rs_v2 gpu_memory_gib\n"
        "  python -m pipeline explain ND40rs_v2          # every attribute",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    e.add_argument("entity", help="size (any spelling: ND40rs_v2, standard_nd40rs_v2) or series name")
    e.add_argument("attribute", nargs="?", help="one attribute (default: all)")
    e.add_argument("--out", default="output", help="output folder to read (default: output)")
    e.set_defaults(func=cmd_explain)
    d = sub.add_parser(
        "drift",
        help="report what the documents would change in the committed output",
        description="Build --sources into a temporary folder and compare it, table by table and "
        "value by value, with --against. Exit 0 when they match, 1 when they differ or when the "
        "fresh build breaks its contract.",
        epilog="example:\n  python -m pipeline drift\n"
        '  python -m pipeline drift --format markdown >> "$GITHUB_STEP_SUMMARY"',
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    d.add_argument("--sources", default="sources", help="folder of documents (default: sources)")
    d.add_argument("--against", default="output", help="committed output folder (default: output)")
    d.add_argument("--format", choices=("text", "markdown", "json"), default="text", help="report format")
    d.add_argument(
        "--rebuild",
        action="store_true",
        help="build and compare table by table even when --against's manifest shows it was built from exactly "
        "these documents, settings, code and libraries",
    )
    d.set_defaults(func=cmd_drift)
    c = sub.add_parser(
        "calibrate",
        help="check confidence against the API catalogs and fit the confidence model",
        description="Reconcile the documents without the API catalogs, set each value against the newest catalog "
        "snapshot that states it (leaving out catalog values that fail a physical check), and print the "
        "reliability table and the expected calibration error (ECE) before and after fitting the confidence "
        "model's coefficients and the attributes' agreement, then each GPU family's ECE with the model fitted "
        "without its labels. --write saves the fitted model in pipeline/knowledge/calibration.toml.",
        epilog="example:\n  python -m pipeline calibrate --sources sources\n"
        "  python -m pipeline calibrate --write && make build",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    c.add_argument("--sources", default="sources", help="folder of documents and catalogs (default: sources)")
    c.add_argument(
        "--write",
        action="store_true",
        help="save the fitted model: coefficients and attributes' agreement (calibration.toml)",
    )
    c.set_defaults(func=cmd_calibrate)
    s = sub.add_parser(
        "sync",
        help="take the upstream documentation files into sources/ and record their commits",
        description="Copy the files sources/upstream.toml names from a docs repository at a commit into "
        "--sources, remove those gone upstream, update sources/upstream.lock and print what changed.",
        epilog=EPILOG_SYNC,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    s.add_argument("--from", dest="repo", required=True, metavar="REPO", help="git URL or local clone to take from")
    s.add_argument("--ref", default=None, help="branch, tag or commit to take (default: the clone's HEAD)")
    s.add_argument("--sources", default="sources", help="folder of documents (default: sources)")
    s.set_defaults(func=cmd_sync)
    return p


MB = 1_000_000
"""Memory is written in MB of 10^6 bytes, as the benchmark reports it (its target is in GiB)."""


def timings(result: BuildResult) -> list[dict[str, object]]:
    """What `build --timings` writes: each step's seconds, the CPU seconds of the build and of
    the processes waited for in it (`BuildResult.cpu`) and the build's peak memory when it ended,
    then the peak memory (in MB) and CPU seconds of the parse workers and of each process forked
    beside the build: the largest is often one of them, and on two cores they do half the work."""
    peaks = dict(result.peaks)
    cpu = {step: (own, children) for step, own, children in result.cpu}
    steps: list[dict[str, object]] = []
    for step, seconds in result.timings:
        own, children = cpu.get(step, (0.0, 0.0))
        peak = round(peaks.get(step, 0) / MB, 1)
        steps.append({"step": step, "seconds": seconds, "cpu_s": own, "children_cpu_s": children, "peak_rss_mb": peak})
    return steps + [
        {"process": what, "peak_rss_mb": round(peak / MB, 1), "cpu_s": round(used, 4)}
        for what, peak, used in result.helpers
    ]


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    code: int = args.func(args)
    return code
