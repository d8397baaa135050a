"""What a build reuses and keeps for the next, behind one door (`Store`): the memos of the
stages' results in the cache (each document's parse and claims, each bucket's decisions), and
what it knows of the output it replaces: the digests of its files with the stamps that vouch for
them, and what made its tables (`Decided`), from which the build takes them whole when the
stages after normalize would read all that made them (`decided_key`)."""

from __future__ import annotations

import contextlib
import csv
import hashlib
import json
import os
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

from pipeline.outputs.write import TABLE_FILES, Digests, Previous, Stamp, file_sha256, listed_files
from pipeline.records import BuildResult, Diagnostic
from pipeline.runner.cache import Cache, Memo, code_fingerprint, digest
from pipeline.runner.pool import Beside, HelperDied, beside
from pipeline.stages.calibrate import Label

DOCUMENTATION = ("SCHEMA.md", "datapackage.json", "report.html", "errata.md")

TAKEN_TABLES = ("claims", "vm_sizes", "names", "facts", "conflicts", "errata", "prices")
"""The tables the stages after normalize make (the prices too: a retired size's are marked): what
a build may take from the output it replaces (`Store.taken`). The others are cheap to make again, and
the documents' and the diagnostics' depend on more than those stages read."""


@dataclass(frozen=True, slots=True)
class Taken:
    """A table taken whole from the output the build replaces (`Store.taken`): its files are linked
    into the new output, and what reads the table reads them."""

    rows: int


@dataclass(frozen=True, slots=True)
class Decided:
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
"""The cache entry that holds the last build's `Decided`, one per output folder (`_out_name`)."""

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


def _diagnostics(path: Path) -> tuple[Diagnostic, ...]:
    """The diagnostics table as a build wrote it (`diagnostics.csv`)."""
    with open(path, encoding="utf-8", newline="") as f:
        return tuple(
            Diagnostic(r["severity"], r["code"], r["document"], int(r["line"]) if r["line"] else None, r["message"])  # type: ignore[arg-type]
            for r in csv.DictReader(f)
        )


def _as_listed(entry: Mapping[str, Any]) -> tuple[Any, ...]:
    """A table's entry in a manifest's outputs: its rows and its CSV's and Parquet file's digests."""
    return (entry.get("rows"), *(entry.get(key) for key in TABLE_FILES.values()))


class Store:
    """The one door to what a build reuses and keeps: asked "do you hold this step's result for
    these inputs?", it answers from the cache or from the output the build replaces, and keeps
    this build's results for the next.

    - The whole output (`unchanged`): the last build's summary when `out` was built from exactly
      these inputs (the build key) and holds every file its manifest lists.
    - A stage's results (`memo`, `keep`): kept in the cache by the digest of their inputs (each
      document's parse and claims, each bucket's decisions), saved beside the build, by a forked
      process in a build of enough documents (`parallel`); those being saved are waited for when
      the store closes.
    - The tables the stages after normalize make (`taken`, `made`): taken whole from the output
      replaced (`previous`) when those stages would read what made them (`decided_key`).
    - The page (`page`, `page_made`): taken when it would be made from what made the last one.
    - The output's files' digests, with the stamps that vouch for them (`digests`): those whose
      stamps are as recorded are not read again; `keep_output` records them for the next build.

    A store without a cache reuses and keeps nothing, though it tells whether `out` is unchanged;
    without `out`, it keeps memos only."""

    def __init__(
        self, cache: Cache | None = None, out: Path | None = None, *, threads: int = 1, parallel: bool = False
    ) -> None:
        self.cache = cache
        self.out = out
        self.threads = threads
        """Threads that hash the output's files."""
        self.parallel = parallel
        """Whether a memo is saved by a forked process: only for a build of enough documents
        (`Settings.splits`), as a fork of a small build costs more than it saves."""
        self.digests = _recorded(cache, out) if cache is not None and out is not None else Digests()
        """The digests of the output folder's files the last build recorded, and those of this
        build's files (`STAMPS_ENTRY`)."""
        self._saving = contextlib.ExitStack()
        self._saved: list[Beside[int]] = []
        self._listing: dict[str, Any] | None = None
        self._listed = False
        self._previous: Previous | None = None
        self._last_page: tuple[str, str] | None = None
        self._page_loaded = False
        self._decided: Decided | None = None
        self._made_page: tuple[str, str] | None = None

    @property
    def keeps_output(self) -> bool:
        """Whether the store keeps what made the output for the next build (it has a cache and
        an output folder)."""
        return self.cache is not None and self.out is not None

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

    # ---------------------------------------------------------------------- the stages' memos

    def memo(self, stage: str) -> Memo | None:
        """What `stage` kept of its results the last time this code ran, or None without a cache."""
        return self.cache.memo(stage, code_fingerprint()) if self.cache is not None else None

    def keep(self, memo: Memo, fill: Callable[[], None] | None = None) -> None:
        """Save `memo` for the next build, beside this one (`_save_beside`); `fill` puts its
        results first."""
        self._saved.append(_save_beside(memo, self.parallel, self._saving, fill))

    # ---------------------------------------------------------------------- the output replaced

    def _manifest(self) -> dict[str, Any] | None:
        """The output's manifest, read once a build: None where there is none or it is not one."""
        if not self._listed and self.out is not None:
            self._listed = True
            try:
                listing = json.loads((self.out / "manifest.json").read_text(encoding="utf-8"))
            except (OSError, ValueError):
                listing = None
            self._listing = listing if isinstance(listing, dict) else None
            if self.keeps_output:
                self._previous = Previous.listed(self.out, self._listing, code_fingerprint(), self.digests)
        return self._listing

    @property
    def previous(self) -> Previous | None:
        """The output the build replaces, when the same code wrote it and the store keeps what
        made it: its files may be taken (`Previous`)."""
        self._manifest()
        return self._previous

    def unchanged(self, key: str) -> BuildResult | None:
        """The previous build's summary when `out` was built from exactly these inputs (the build
        `key`) and every file the manifest lists is still there, unaltered (hashed by `threads`
        threads, but for those whose stamps vouch for their `digests`); otherwise None."""
        listing = self._manifest()
        if self.out is None or listing is None or listing.get("build_key") != key:
            return None
        try:
            listed = listed_files(listing["outputs"])
            listed |= {name: entry["sha256"] for name, entry in listing["documentation"].items()}
            if hashed(self.out, list(listed), self.threads, self.digests) != listed:
                return None
            diagnostics = _diagnostics(self.out / "diagnostics.csv")
            tables = {name: int(entry["rows"]) for name, entry in listing["outputs"].items()}
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None
        return BuildResult(documents=(), claims=(), diagnostics=diagnostics, tables=tables, up_to_date=True)

    def taken(self, key: str | None, stage: Path) -> Decided | None:
        """What made the tables of the output replaced, when it is `key` (all the stages after
        normalize read, `decided_key`) and that output still holds them: their files are then
        linked into the staging folder `stage`. None otherwise, and this build makes them (`made`)."""
        previous = self.previous
        if key is None or previous is None or self.cache is None or self.out is None:
            return None
        kept = self.cache.load(f"{DECIDED_ENTRY}-{_out_name(self.out)}")
        if not isinstance(kept, Decided) or kept.key != key or set(kept.tables) != set(TAKEN_TABLES):
            return None
        return kept if _taken(previous, kept, stage, self.threads) else None

    def made(
        self,
        key: str | None,
        diagnostics: Sequence[Diagnostic],
        per_document: Mapping[str, int],
        labels: Sequence[Label],
    ) -> None:
        """What this build made its tables with, under `key` (`decided_key`): kept once they are
        written (`keep_output`)."""
        if key is not None and self.keeps_output:
            self._decided = Decided(key, tuple(diagnostics), dict(per_document), tuple(labels))

    def page(self, key: str, stage: Path) -> bool:
        """Whether the last build's page, when it was made from `key` (`writing._page_key`), is
        taken into `stage` from the output replaced."""
        previous, last = self.previous, self._page_kept()
        if previous is None or last is None or last[0] != key:
            return False
        return previous.take("report.html", last[1], stage)

    def page_made(self, key: str, sha256: str) -> None:
        """This build's page, made from `key`, with its digest: kept for the next build."""
        if self.keeps_output:
            self._made_page = (key, sha256)

    def _page_kept(self) -> tuple[str, str] | None:
        """The last build's page (`PAGE_ENTRY`), loaded once."""
        if not self._page_loaded and self.cache is not None and self.out is not None:
            self._page_loaded = True
            page = self.cache.load(f"{PAGE_ENTRY}-{_out_name(self.out)}")
            if isinstance(page, tuple) and len(page) == 2 and all(isinstance(k, str) for k in page):
                self._last_page = page
        return self._last_page

    def keep_output(self, outputs: Mapping[str, Any] | None = None) -> None:
        """What the next build may take of the output, now that its files are known: their
        digests (of the files of the tables `outputs` lists and the documentation, when given),
        what made its tables and its page."""
        if self.cache is None or self.out is None:
            return
        name = _out_name(self.out)
        _record(
            self.cache, self.out, self.digests, None if outputs is None else {*listed_files(outputs), *DOCUMENTATION}
        )
        if self._decided and outputs is not None:
            tables = {n: _as_listed(outputs[n]) for n in TAKEN_TABLES}
            self.cache.put(f"{DECIDED_ENTRY}-{name}", replace(self._decided, tables=tables))
        if self._made_page and self._made_page != self._page_kept():
            self.cache.put(f"{PAGE_ENTRY}-{name}", self._made_page)


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


def _taken(previous: Previous, kept: Decided, stage: Path, threads: int) -> bool:
    """Whether the output replaced holds the tables `kept` lists, each file as the cache and its
    manifest list it: then the files are linked into `stage`, each checked there
    (`Previous.take`), their digests known for the manifest. If not, `stage` holds none of them."""
    if any(_as_listed(previous.outputs.get(name, {})) != kept.tables[name] for name in TAKEN_TABLES):
        return False
    listed = listed_files(previous.outputs, TAKEN_TABLES)
    if all(each(sorted(listed), threads, lambda file: previous.take(file, listed[file], stage))):
        return True
    for file in listed:
        (stage / file).unlink(missing_ok=True)
        previous.hashes.pop(file, None)  # not in the staging folder: no digest for the manifest
    return False


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


def hashed(folder: Path, names: Sequence[str], threads: int, digests: Digests | None = None) -> dict[str, str]:
    """The SHA-256 digest of each file `names` lists in `folder`, by `threads` threads: with
    `digests`, as they know it where a file's stamp vouches for it, and vouched for there."""
    sha256 = digests.sha256 if digests is not None else file_sha256
    return dict(zip(names, each(names, threads, lambda name: sha256(folder / name)), strict=True))
