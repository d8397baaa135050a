"""What a build knows of the output it replaces, and keeps for the next build: the digests of
its files with the stamps that vouch for them, and what made its tables (`_Decided`), from which
the runner takes them whole when the stages after normalize would read all that made them."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pipeline.outputs.write import Digests, Previous, Stamp
from pipeline.records import Diagnostic
from pipeline.runner.cache import Cache
from pipeline.runner.documents import code_fingerprint
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
    digest of all they read (`key`, `runner._decided_key`), with each table's rows and its files'
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
"""The cache entry that holds the last build's page, one per output folder: its `runner._page_key`
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
    """What `runner.build`, `runner.compute` and `runner._write` share about the output a build
    replaces (`previous`). When the stages after normalize would read all that made that output's
    tables (`_Decided.key` in the cache, and the same files), the tables are taken from there, each
    file checked against the digest the cache and the manifest list; otherwise `decided` is what
    this build's tables were made with, which the build keeps in the cache once they are written. An
    edit that changes no claim (one that moves no statement: a word of prose, a title, lines after
    the last statement) then decides nothing again; if it changes nothing the page shows either, the
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
