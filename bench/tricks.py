"""What each of the build's tricks buys: the cold build again with one of them turned off.

A trick is a second process, a pool or a memory device the runner uses for speed or memory, not
for what it computes: a build without it writes the same bytes. One is kept only where it buys 5%
or more of the cold build at the benchmark's largest size, or where the largest process of that
build would be within 5% of 1 GiB without it (a one-change or one-value build peaks a little
above a cold one): `TRICKS` says which and why, and bench/results.md what each buys
("What each trick buys"). The pipeline has no switch for them: `python -m bench.tricks TRICK
build ...` turns one off in its own process, then runs `python -m pipeline build ...` there.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import pkgutil
import runpy
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

GIB = 2**30
MB = 1_000_000
SPEED_SHARE = 0.05
"""A trick for speed is kept where it buys this share of the cold build or more."""
MEMORY_MARGIN = 0.05
"""A trick for memory is kept where, without it, the largest process is within this share of 1 GiB."""


@dataclass(frozen=True, slots=True)
class Trick:
    """One trick, what it is for (`speed` or `memory`), and how a build goes without it."""

    name: str
    kind: str
    what: str
    turn_off: Callable[[], None]


def _runner_modules() -> list[Any]:
    import pipeline.runner as runner

    return [
        runner,
        *(importlib.import_module(f"pipeline.runner.{m.name}") for m in pkgutil.iter_modules(runner.__path__)),
    ]


def _here(label: str) -> Callable[[], None]:
    """Turn off the work `beside` runs in a forked process under a name starting with `label`:
    it runs in the build's process, as it does on one core."""

    def turn_off() -> None:
        import pipeline.runner.pool as pool

        real = pool.beside

        @contextlib.contextmanager
        def beside(
            fn: Callable[[], Any], *, parallel: bool = True, what: str = "work", stream: bool = False
        ) -> Iterator[Any]:
            with real(fn, parallel=parallel and not what.startswith(label), what=what, stream=stream) as handle:
                yield handle

        for module in _runner_modules():
            if getattr(module, "beside", None) is real:
                module.beside = beside

    return turn_off


def _one_parse_worker() -> None:
    """The documents parsed in the build's process, as with one worker (`Settings.workers`)."""
    import pipeline.runner.documents as documents

    real = documents.parse_all

    def parse_all(inputs: Any, settings: Any, *args: Any, **kwargs: Any) -> Any:
        return real(inputs, replace(settings, workers=1), *args, **kwargs)

    setattr(documents, "parse_all", parse_all)  # noqa: B010 (mypy: the name is the module's own)


def _collector_on() -> None:
    gc.disable = lambda: None


def _every_bucket_at_once() -> None:
    import pipeline.runner.parts as parts

    parts.BUCKETS_AT_ONCE = parts.RECONCILE_BUCKETS


def _arrow_default_pool() -> None:
    import pipeline.runner as runner

    setattr(runner, "arrow_pool", contextlib.nullcontext)  # noqa: B010 (mypy: the name is the module's own)


def _nothing_handed_back() -> None:
    import pipeline.runner.pool as pool

    real = pool.give_back
    for module in _runner_modules():
        if getattr(module, "give_back", None) is real:
            module.give_back = lambda: None


TRICKS = (
    Trick("parse workers", "speed", "documents parsed in a worker process per core", _one_parse_worker),
    Trick(
        "normalize in two", "speed", "the documents normalized again shared with a forked process", _here("normalizing")
    ),
    Trick(
        "reconcile in two",
        "speed",
        "the entities decided in two parts, one in a forked process",
        _here("deciding the other part"),
    ),
    Trick("memos saved beside", "speed", "the memos pickled and written by forked processes", _here("saving of the")),
    Trick("collector paused", "speed", "Python's garbage collector off while the records are made", _collector_on),
    Trick(
        "claims table apart",
        "memory",
        "the claims table made, checked and written by a process of its own",
        _here("claims table"),
    ),
    Trick("report beside", "memory", "the page made by a forked process while the tables are written", _here("report")),
    Trick(
        "buckets at a time",
        "memory",
        "a part decided four buckets at a time, what they put in the plan let go between them",
        _every_bucket_at_once,
    ),
    Trick("jemalloc", "memory", "Arrow allocating from jemalloc, which gives freed pages back", _arrow_default_pool),
    Trick(
        "memory handed back",
        "memory",
        "the C heap's free pages handed back to the system where large data is let go",
        _nothing_handed_back,
    ),
)
BY_NAME = {t.name: t for t in TRICKS}


def verdict(trick: Trick, cold: tuple[float, int], without: tuple[float, int]) -> tuple[str, bool]:
    """What the rule says of `trick`, from the cold build's seconds and largest process (bytes)
    with it and `without` it: why it is kept, or that it buys too little to be."""
    seconds, (slower, larger) = cold[0], without
    buys = (slower - seconds) / seconds
    if trick.kind == "speed":
        return f"buys {buys:.0%} of the cold build", buys >= SPEED_SHARE
    near = larger >= (1 - MEMORY_MARGIN) * GIB
    return f"without it the largest process is {larger / GIB:.2f} GiB", near


def section(cold: tuple[float, int] | None, measured: Mapping[str, tuple[float, int] | None], n: int) -> list[str]:
    """The Markdown section of bench/results.md: each trick's cold build without it, against the
    cold build with all of them."""
    if cold is None or not measured:
        return []
    lines = [
        f"The cold build of {n:,} documents again, once without each trick (`bench.tricks`), against the",
        f"cold build above ({cold[0]:.1f} s, largest process {cold[1] / MB:,.0f} MB). A trick for speed is kept",
        f"where it buys {SPEED_SHARE:.0%} of the cold build or more; one for memory where, without it, the largest",
        f"process is within {MEMORY_MARGIN:.0%} of 1 GiB. One run each: on a shared machine the seconds move by",
        "several percent.",
        "",
        "| trick | for | what it is | cold s without | largest process MB without | rule | kept |",
        "|---|---|---|---:|---:|---|---|",
    ]
    for trick in TRICKS:
        found = measured.get(trick.name)
        if trick.name not in measured:
            continue
        if found is None:
            lines.append(f"| {trick.name} | {trick.kind} | {trick.what} | failed | – | – | – |")
            continue
        said, kept = verdict(trick, cold, found)
        lines.append(
            f"| {trick.name} | {trick.kind} | {trick.what} | {found[0]:.1f} | {found[1] / MB:,.0f} | {said} | "
            f"{'yes' if kept else '**no**'} |"
        )
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m bench.tricks TRICK ARGS...`: `python -m pipeline ARGS...` with TRICK turned off,
    in this process, which ends as that command's does."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] not in BY_NAME:
        names = ", ".join(BY_NAME)
        print(f"usage: python -m bench.tricks TRICK ARGS... (TRICK one of: {names})", file=sys.stderr)
        return 2
    BY_NAME[args[0]].turn_off()
    sys.argv = ["python -m pipeline", *args[1:]]
    runpy.run_module("pipeline", run_name="__main__", alter_sys=True)
    return 0  # not reached: the command ends its process


if __name__ == "__main__":
    sys.exit(main())
