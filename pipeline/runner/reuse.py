"""What a build reuses and keeps for the next, behind one door (`Store`): the memos of the
stages' results in the cache (each document's parse and claims, each bucket's decisions), and
what it knows of the output it replaces: the digests of its files with the stamps that vouch for
them, and what made its tables (`_Decided`), from which the build takes them whole when the
stages after normalize would read all that made them (`decided_key`)."""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

from pipeline.outputs.write import Digests, Previous, Stamp
from pipeline.records import Diagnostic
from pipeline.runner.cache import Cache, Memo, code_fingerprint, digest
from pipeline.runner.pool import Beside, HelperDied, beside
from pipeline.stages.calibrate import Label

DOCUMENTATION = ("SCHEMA.md", "datapackage.json", "report.html", "errata.md")

TAKEN_TABLES = ("claims", "vm_sizes", "names", "facts", "conflicts", "errata", "prices")
"""The tables the stages after normalize make (the prices too: a retired size's are marked): what
a build may take from the output it replaces (`_Reuse`). The others are cheap to make again, and
the documents' and the diagnostics' depend on more than those stages read."""


@dataclass(frozen=True, slots=True)
class _Taken:
    """A table taken whole from the output the build replaces (`_Reuse`): its files are linked
    into the new output, and what reads the table reads them."""

    rows: int


@dataclass(frozen=True, slots=True)
class _Decided:
    """What the stages after normalize gave besides their tables (`TAKEN_TABLES`), under the
    digest of all they read (`key`, `decided_key`), with each table's rows and its files'
    digests once written (`tables`: rows, CSV, Parquet). The cache keeps the last build's."""

    key: str
    diagnostics: tuple[Diagnostic, ...]
    claims_per_document: Mapping[str, int]
    """The rules' claims too: the documents table counts them."""
    labels: tuple[Label, ...]
    tables: Mapping[str, tuple[int, str, str]] = field(default_factory=dict)


DECIDED_ENTRY = "decided"
"""The cache entry that holds the last build's `_Decided`, one per output folder (`_Reuse.name`)."""

PAGE_ENTRY = "page"
"""The cache entry that holds the last build's page, one per output folder: its `writing._page_key`
and the digest of its report.html."""

STAMPS_ENTRY = "stamps"
"""The cache entry that holds the digests of an output folder's files, each with the stamp that
vouches for it (`write.Digests`), one per output folder: a build that finds a file's stamp as
recorded there does not read it again (at 10,000 documents, 419 MB: about 0.9 s on two cores)."""


def _out_name(out: Path) -> str:
    """The output folder's name in its cache entries: the default cache is shared by every
    output folder beside it, and each keeps what its own last build made."""
    return hashlib.sha256(os.fsencode(out.resolve())).hexdigest()[:16]


def _recorded(cache: Cache, out: Path) -> Digests:
    """The digests of `out`'s files as the last build recorded them (`STAMPS_ENTRY`); none when
    there is no record or it is not one."""
    known = cache.load(f"{STAMPS_ENTRY}-{_out_name(out)}")
    if isinstance(known, dict) and all(_is_vouched(name, v) for name, v in known.items()):
        return Digests(known)
    return Digests()


def _is_vouched(name: object, v: object) -> bool:
    """Whether a record's entry is a file's name with a stamp and a digest (`Vouched`)."""
    if not (isinstance(name, str) and isinstance(v, tuple) and len(v) == 2):
        return False
    return isinstance(v[0], Stamp) and isinstance(v[1], str)


def _record(cache: Cache, out: Path, digests: Digests, listed: Collection[str] | None = None) -> None:
    """Record for the next build the digests this one vouched for (of the files `listed`, when
    given), unless they are those recorded already: each whose file in `out` still has the
    stamp it had when it was read, so that a change since (by hand, while the build ran) is
    read by the next build."""
    vouched = {
        name: (stamp, sha)
        for name, (stamp, sha) in digests.vouched.items()
        if (listed is None or name in listed) and Stamp.of(out / name) == stamp
    }
    if vouched != digests.known:
        cache.put(f"{STAMPS_ENTRY}-{_out_name(out)}", vouched)


@dataclass
class _Reuse:
    """What `runner.build`, `runner.compute` and `writing.write` share about the output a build
    replaces (`previous`). When the stages after normalize would read all that made that output's
    tables (`_Decided.key` in the cache, and the same files), the tables are taken from there, each
    file checked against the digest the cache and the manifest list; otherwise `decided` is what
    this build's tables were made with, which the build keeps in the cache once they are written. An
    edit that changes no claim nor diagnostic (one that moves no statement: a word of prose, a
    title, lines after the last statement) then decides nothing again; if it changes nothing the page shows either, the
    page is taken too (`page`)."""

    previous: Previous | None
    stage: Path
    """The folder this build writes into, where the tables taken are linked."""
    threads: int
    name: str
    """The output folder's, in the names of its cache entries: the default cache is shared by
    every output folder beside it, and each keeps what its own last build made."""
    digests: Digests
    """The digests of the output folder's files the last build recorded, and those of this
    build's files (`STAMPS_ENTRY`)."""
    page: tuple[str, str] | None = None
    """The last build's page (`PAGE_ENTRY`)."""
    decided: _Decided | None = None
    """What this build made its tables with, when it made them."""
    made_page: tuple[str, str] | None = None
    """This build's page, once written."""

    @classmethod
    def of(cls, cache: Cache, out: Path, stage: Path, threads: int, digests: Digests) -> _Reuse:
        name = _out_name(out)
        page = cache.load(f"{PAGE_ENTRY}-{name}")
        if not (isinstance(page, tuple) and len(page) == 2 and all(isinstance(k, str) for k in page)):
            page = None
        return cls(Previous.of(out, code_fingerprint(), digests), stage, threads, name, digests, page)

    def keep(self, cache: Cache, out: Path, outputs: Mapping[str, Any]) -> None:
        """What the next build may take, now that this one's files are known."""
        _record(cache, out, self.digests, {*_files_of(outputs, outputs), *DOCUMENTATION})
        if self.decided:
            tables = {n: _as_listed(outputs[n]) for n in TAKEN_TABLES}
            cache.put(f"{DECIDED_ENTRY}-{self.name}", replace(self.decided, tables=tables))
        if self.made_page and self.made_page != self.page:
            cache.put(f"{PAGE_ENTRY}-{self.name}", self.made_page)


def _as_listed(entry: Mapping[str, Any]) -> tuple[Any, Any, Any]:
    """A table's entry in a manifest's outputs: its rows and its CSV's and Parquet file's digests."""
    return (entry.get("rows"), entry.get("sha256"), entry.get("parquet_sha256"))


def _files_of(outputs: Mapping[str, Mapping[str, Any]], names: Iterable[str]) -> dict[str, str]:
    """The files of the tables `names`, by file name, with the digests a manifest's outputs list."""
    return {f"{n}.{suffix}": outputs[n][key] for n in names for suffix, key in SUFFIX_DIGEST}


SUFFIX_DIGEST = (("csv", "sha256"), ("parquet", "parquet_sha256"))
"""A table's two files, and the manifest key of each one's digest."""


def _table_files(name: str) -> tuple[str, ...]:
    """The files a table is written as (`write_table`): its CSV and its Parquet file."""
    return tuple(f"{name}.{suffix}" for suffix, _ in SUFFIX_DIGEST)


class Store:
    """The one door to what a build reuses and keeps. The stages' results are kept in the cache
    by the digest of their inputs (`memo`: each document's parse and claims, each bucket's
    decisions) and saved beside the build (`keep`); the tables the stages after normalize make
    are taken whole from the output the build replaces (`output`) when those stages would read
    what made them (`taken`). A store without a cache reuses and keeps nothing. The memos
    being saved are waited for when the store closes."""

    def __init__(self, cache: Cache | None = None, output: _Reuse | None = None) -> None:
        self.cache = cache
        self.output = output
        self.parallel = False
        """Whether a memo is saved by a forked process: only for a build of enough documents
        (`runner.documents.read` says), as a fork of a small build costs more than it saves."""
        self._saving = contextlib.ExitStack()
        self._saved: list[Beside[int]] = []
        self._key: str | None = None

    def __enter__(self) -> Store:
        self._saving.__enter__()
        if self.cache is not None:  # once every memo is written (the callbacks run last-in first-out)
            stats = self.cache.stats
            self._saving.callback(lambda: setattr(stats, "write_errors", stats.write_errors + _failed(self._saved)))
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> bool | None:
        return self._saving.__exit__(kind, error, trace)

    def hold(self, context: contextlib.AbstractContextManager[_T]) -> _T:
        """`context` entered until the store closes: work the build waits for at its end (a
        process that writes a table beside the build)."""
        return self._saving.enter_context(context)

    def memo(self, stage: str) -> Memo | None:
        """What `stage` kept of its results the last time this code ran, or None without a cache."""
        return self.cache.memo(stage, code_fingerprint()) if self.cache is not None else None

    def keep(self, memo: Memo, fill: Callable[[], None] | None = None) -> None:
        """Save `memo` for the next build, beside this one (`_save_beside`); `fill` puts its
        results first."""
        self._saved.append(_save_beside(memo, self.parallel, self._saving, fill))

    def taken(self, key: str | None) -> _Decided | None:
        """What made the tables of the output replaced, when it is `key` (all the stages after
        normalize read, `decided_key`) and that output still holds them: their files
        are then in the staging folder. None otherwise, and this build makes them (`made`)."""
        if self.cache is None or self.output is None or key is None:
            return None
        self._key = key
        return _taken(self.cache, self.output, key)

    def made(self, diagnostics: Sequence[Diagnostic], per_document: Mapping[str, int], labels: Sequence[Label]) -> None:
        """What this build made its tables with, kept once they are written (`_Reuse.keep`)."""
        if self.output is not None and self._key is not None:
            self.output.decided = _Decided(self._key, tuple(diagnostics), dict(per_document), tuple(labels))


def decided_key(
    stated: Mapping[str, Mapping[str, str]],
    mentions: Sequence[object],
    prices: Sequence[object],
    diagnostics: Sequence[Diagnostic],
    sources: Mapping[str, object],
    upstream: Mapping[str, object],
    stale_after_days: int,
) -> str:
    """A digest of all the stages after normalize read: each document's claims by their digests
    in the normalize memo (`stated`), the sizes mentioned, the prices, the diagnostics of the
    steps so far (the errata read normalize's `unit-mismatch`: a cell under a header whose unit
    is wrong yields no claim, only that), every document's source as classified (its copies
    found), the upstream lock, the setting they use and the code."""
    claims = sorted((path, sorted(by_entity.items())) for path, by_entity in stated.items())
    said = sorted({(d.document, d.line or 0, d.code, d.message, d.severity) for d in diagnostics})
    return digest(
        code_fingerprint(),
        stale_after_days,
        claims,
        mentions,
        prices,
        said,
        sorted(sources.items()),
        sorted(upstream.items()),
    )


def _taken(cache: Cache, reuse: _Reuse, key: str) -> _Decided | None:
    """The last build's `_Decided` when its key is `key` and the output it replaces holds its
    tables, each file as the cache and that output's manifest list it: then the files are
    linked into the staging folder, each checked there (`Previous.take`), their digests known
    for the manifest. None otherwise, and the staging folder holds none of them."""
    previous = reuse.previous
    kept = cache.load(f"{DECIDED_ENTRY}-{reuse.name}")
    if previous is None or not isinstance(kept, _Decided) or kept.key != key or set(kept.tables) != set(TAKEN_TABLES):
        return None
    if any(_as_listed(previous.outputs.get(name, {})) != kept.tables[name] for name in TAKEN_TABLES):
        return None
    listed = _files_of(previous.outputs, TAKEN_TABLES)
    taken = each(sorted(listed), reuse.threads, lambda file: previous.take(file, listed[file], reuse.stage))
    if all(taken):
        return kept
    for file in listed:
        (reuse.stage / file).unlink(missing_ok=True)
        previous.hashes.pop(file, None)  # not in the staging folder: no digest for the manifest
    return None


def _failed(saved: Sequence[Beside[int]]) -> int:
    """Entries not written; a writer stopped by an error of the build has no answer."""
    return sum(handle.result() for handle in saved if handle.done)


def _save_beside(
    memo: Memo, parallel: bool, saving: contextlib.ExitStack, fill: Callable[[], None] | None = None
) -> Beside[int]:
    """Count what `memo` reused, and write it in a forked process (with `parallel`) while the
    build goes on: pickling every result of a large build is seconds of work nothing waits for.
    `fill` puts the results first, where making them is work nothing waits for either. The
    handle's result is the number of entries that could not be written."""

    def write() -> int:
        failed = 0
        if fill is not None:
            try:
                fill()
            except Exception:  # the memo is a cache: what could not be put is made again next time
                failed = 1
        return failed + memo.write()

    memo.count()
    handle = saving.enter_context(_writing(memo, write, parallel))
    memo.release()
    return handle


@contextlib.contextmanager
def _writing(memo: Memo, write: Callable[[], int], parallel: bool) -> Iterator[Beside[int]]:
    """`write` beside the build; a writer that dies (the system kills the largest process when
    memory runs out) loses a cache, not the build, whose output is written by then: the next
    build computes again what it would have kept, and the build says so (`CacheStats.lost`)."""
    try:
        with beside(write, parallel=parallel, what=f"saving of the {memo.name} memo") as handle:
            yield handle
    except HelperDied as exc:
        memo.cache.stats.write_errors += 1
        memo.cache.stats.lost.append(f"{exc}; the next build computes it again")


_T = TypeVar("_T")


def each(names: Sequence[str], threads: int, work: Callable[[str], _T]) -> list[_T]:
    """`work` on each of `names`, by `threads` threads: it hashes files, and hashlib and the
    reads let go of the interpreter's lock (a large build's files are hundreds of MB)."""
    with ThreadPoolExecutor(max_workers=max(1, threads)) as pool:
        return list(pool.map(work, names))
