"""The thin command line over `build`, `drift` and `explain`."""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from pipeline.build import build
from pipeline.write import OutputLocked

EPILOG_BUILD = """example:
  python -m pipeline build --sources sources --out output
  python -m pipeline build --strict      # exit 1 when any document has an error"""


def _progress_printer(enabled: bool):  # type: ignore[no-untyped-def]
    def show(message: str) -> None:
        if enabled:
            print(f"\r{message}", end="", file=sys.stderr, flush=True)

    return show


def cmd_build(args: argparse.Namespace) -> int:
    interactive = sys.stderr.isatty() and not args.quiet
    try:
        result = build(Path(args.sources), Path(args.out), progress=_progress_printer(interactive))
    except OutputLocked as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if interactive:
        print("\r" + " " * 40 + "\r", end="", file=sys.stderr)
    sev = Counter(d.severity for d in result.diagnostics)
    print(
        f"documents: {len(result.documents)}  claims: {len(result.claims)}  "
        f"sizes: {result.tables.get('vm_sizes', 0)}  diagnostics: {len(result.diagnostics)} "
        f"({sev.get('error', 0)} errors, {sev.get('warning', 0)} warnings, {sev.get('info', 0)} info)"
    )
    print(f"wrote {', '.join(sorted(result.tables))} to {args.out}/ (Parquet and CSV)")
    if args.strict and result.errors:
        print(f"--strict: {len(result.errors)} error(s):", file=sys.stderr)
        for d in result.errors:
            print(f"  {d}", file=sys.stderr)
        return 1
    return 0


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m pipeline",
        description="Turn GPU VM documentation into one dataset with provenance, confidence and conflicts.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="commands:\n  build    read sources/ and write the tables to output/\n\n"
        "example:\n  python -m pipeline build --sources sources --out output",
    )
    sub = p.add_subparsers(dest="command", required=True)
    b = sub.add_parser(
        "build",
        help="read the documents and write the tables",
        description="Read every .md/.txt file under --sources and write documents, claims, "
        "vm_sizes and diagnostics as Parquet and CSV into --out.",
        epilog=EPILOG_BUILD,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    b.add_argument("--sources", default="sources", help="folder of documents (default: sources)")
    b.add_argument("--out", default="output", help="output folder (default: output)")
    b.add_argument("--strict", action="store_true", help="exit 1 and list the errors when any diagnostic is an error")
    b.add_argument("--quiet", action="store_true", help="no progress display")
    b.set_defaults(func=cmd_build)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    code: int = args.func(args)
    return code
