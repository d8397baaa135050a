"""The typed records that flow between stages.

Every stage takes and returns these frozen dataclasses, never loose dicts, so that a
reader can see at a glance what a stage promises to the next one. A record is complete once
another stage receives it; the one stage that fills a record in after making it (reconcile's
facts, `Plan.facts`) does so before anyone else holds it.
"""

from __future__ import annotations

import ast
import datetime as dt
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import MISSING, Field, dataclass, field, fields
from functools import cache, partial
from operator import attrgetter
from typing import Any, Literal, TypeVar

Severity = Literal["error", "warning", "info"]
ERRATA_KINDS = (
    "page_vs_include",
    "page_vs_page",
    "docs_vs_api",
    "physical_check",
    "series_pattern",
    "header_unit",
    "api_physics",
)
"""What an erratum (`pipeline.stages.errata`) contradicts: its own include (or the series its
include states), another current official page, the API (or, for a catalog's value, the pages),
physics, its series' pattern, the numbers under its header's unit; `api_physics` is a catalog
value physics rules out."""
BASES = ("stated", "computed", "inherited", "sibling", "name")
"""What a fact's value may rest on (`Fact.basis`): the first two, a document states for
the entity; the others the pipeline infers (from its series, a sibling size, its name)."""
TABULAR_METHODS = ("table", "part_table", "key_value", "feature_table")
"""How a claim is read where a document states it in a table or a `key: value` line, not in
running text nor by a rule: what a series' pattern is read from, and what a reason calls a table."""
EntityKind = Literal["size", "series"]
R = TypeVar("R")


def compact(cls: type[R]) -> type[R]:
    """A frozen record made and pickled for speed: made by an `__init__` that writes the fields
    as a mutable record of the same slots would (`_init`), and pickled as its class and its
    field values in order.

    Records cross process boundaries and the cache by the hundred thousand; the pickling
    dataclasses give slotted classes looks up the field list once per object, which made
    pickling most of what a worker's answer cost. A compact record is final: its `__init__`
    gives the object back its own class, which would drop a subclass."""
    every = fields(cls)  # type: ignore[arg-type]
    assert all(f.init and not f.kw_only for f in every), f"{cls.__name__}: compact needs positional fields"
    assert not hasattr(cls, "__post_init__"), f"{cls.__name__}: compact writes the whole __init__"
    cls.__init__ = _init(cls, every)  # type: ignore[method-assign]
    cls.__init_subclass__ = classmethod(partial(_final, cls))  # type: ignore[assignment]
    get = values_of(cls)
    if len(every) == 1:
        cls.__reduce__ = lambda self: (cls, (get(self),))  # type: ignore[method-assign]
    else:
        cls.__reduce__ = lambda self: (cls, get(self))  # type: ignore[method-assign]
    return cls


def _final(record: type, subclass: type, /, **kwargs: Any) -> None:
    raise TypeError(f"{subclass.__name__}: {record.__name__} is a compact record, which cannot be subclassed")


def values_of(cls: type) -> Callable[[Any], Any]:
    """A record's field values in their order, as one tuple made in C (the value itself for a
    record of one field): what pickling a record and hashing many of them read. Pickling the
    records themselves calls Python (`__reduce__`) for each one."""
    return attrgetter(*(f.name for f in fields(cls)))


def _init(cls: type, every: Sequence[Field[Any]]) -> Callable[..., None]:
    """The record's `__init__`, with the parameters and defaults `dataclass` gives it.

    A frozen dataclass's `__init__` sets each field through `object.__setattr__`, and setting
    each by its slot's descriptor took half as long; at 10,000 documents, loading the normalize
    memo's 519,067 claims was mostly making them. This one lends the object, for the time it
    sets its fields, the class of a mutable record with the same slots (`twin_of`): there each
    field is a plain attribute store, which the interpreter does without a call (a claim made
    in 0.93 us here, against 2.0 by descriptors). Written out for the class's fields, as
    `dataclasses` writes its own."""
    twin = twin_of(cls)
    scope: dict[str, Any] = {"FACTORY": _FACTORY, "LEND": object.__setattr__, "TWIN": twin, "CLS": cls}
    params, made, body = [], [], []
    for i, f in enumerate(every):
        if f.default is not MISSING:
            scope[f"default_{i}"] = f.default
            params.append(f"{f.name}=default_{i}")
        elif f.default_factory is not MISSING:
            scope[f"factory_{i}"] = f.default_factory
            params.append(f"{f.name}=FACTORY")
            made.append(f"    if {f.name} is FACTORY:\n        {f.name} = factory_{i}()\n")
        else:
            params.append(f.name)
        body.append(f"    self.{f.name} = {f.name}\n")
    # The defaults are made before the object is lent: nothing between the two class changes
    # raises (an interrupt there leaves the object unreachable: the call that made it raised).
    lent = "    LEND(self, '__class__', TWIN)\n" + "".join(body) + "    self.__class__ = CLS\n"
    exec(f"def __init__(self, {', '.join(params)}):\n{''.join(made)}{lent}", scope)
    init: Callable[..., None] = scope["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    return init


@cache
def twin_of(cls: type) -> type:
    """A mutable class whose objects lay out their slots as `cls`'s do, so that an object of
    either may be given the other's class: how a record is made (`_init`), and how a stage
    completes a record that it made and that no one else holds yet (`reconcile.finishing._finished`)."""
    slots = tuple(cls.__dict__.get("__slots__", ()))
    assert slots and cls.__bases__ == (object,), f"{cls.__name__}: compact needs slots and no base"
    twin = type(f"_{cls.__name__}Fields", (), {"__slots__": slots, "__module__": cls.__module__})
    probe: Any = object.__new__(cls)
    object.__setattr__(probe, "__class__", twin)  # raises here, once, if the layouts differ
    probe.__class__ = cls
    return twin


_FACTORY = object()
"""The default of a field whose default is made by a factory (`_init`)."""


@compact
@dataclass(frozen=True, slots=True)
class Diagnostic:
    """A problem found in the input, shown to the user rather than raised."""

    severity: Severity
    code: str
    document: str
    line: int | None
    message: str

    def __str__(self) -> str:
        where = f"{self.document}:{self.line}" if self.line is not None else self.document
        return f"{where}: {self.severity}: {self.message} [{self.code}]"


@dataclass(frozen=True, slots=True)
class UnitMismatch:
    """A cell normalize skips because its header's unit is no unit of the attribute: what the
    `unit-mismatch` diagnostic says, written (`message`) and read back (`read`) here alone, so that
    errata find the cell whatever quotes or backslashes its text holds."""

    raw_text: str
    key: str
    unit: str
    attribute: str

    @property
    def message(self) -> str:
        cell = f"{self.raw_text!r} under {self.key!r}"
        return f"{cell}: unit {self.unit} is not a unit of {self.attribute}; value skipped"

    @classmethod
    def read(cls, message: str) -> UnitMismatch | None:
        """The mismatch `message` states; None for any other text."""
        m = _UNIT_MISMATCH.fullmatch(message)
        if m is None:
            return None
        return cls(ast.literal_eval(m["raw"]), ast.literal_eval(m["key"]), m["unit"], m["attribute"])


_REPR = r"'(?:[^'\\]|\\.)*'" + r'|"(?:[^"\\]|\\.)*"'
"""A `str` as `repr` writes it: in single quotes, or in double quotes where it holds a single
quote and no double one; a backslash escapes the next character."""
_UNIT_MISMATCH = re.compile(
    rf"(?P<raw>{_REPR}) under (?P<key>{_REPR}): unit (?P<unit>.+?) is not a unit of (?P<attribute>\w+); value skipped",
    re.DOTALL,
)


@compact
@dataclass(frozen=True, slots=True)
class Metadata:
    """What a document's front-matter says about the document itself."""

    title: str | None = None
    author: str | None = None
    date: dt.date | None = None
    date_field: str | None = None
    service: str | None = None
    canonical_url: str | None = None
    tags: tuple[str, ...] = ()
    keys: tuple[str, ...] = ()


@compact
@dataclass(frozen=True, slots=True)
class Document:
    """One file under the sources folder, decoded and repaired.

    `text` keeps the file's own line numbering (front-matter included) so that every
    later line number is a line number of the file.
    """

    path: str
    sha256: str
    encoding: str
    text: str
    front_matter_lines: int
    metadata: Metadata
    has_front_matter: bool


@compact
@dataclass(frozen=True, slots=True)
class Statement:
    """One thing a document states, as written, with where it stands.

    `subject` is the entity named on the same row or line (a size name as written);
    `context` is the series the surrounding page or heading is about.
    """

    document: str
    line: int
    section: str
    method: str
    key: str
    raw_text: str
    parts: tuple[str, ...] = ()
    subject: str | None = None
    context: str | None = None
    table_index: int | None = None
    row_index: int | None = None
    column: str | None = None
    subject_as_written: str | None = None
    """The subject's cell as the source line has it (escapes, footnote marks): `subject` is
    its text as read."""


@compact
@dataclass(frozen=True, slots=True)
class Include:
    """A DocFX `[!INCLUDE]` directive and the file it names, when that file is allowed."""

    document: str
    line: int
    target: str
    resolved: str | None
    context: str | None


@compact
@dataclass(frozen=True, slots=True)
class Price:
    """What a catalog row says one size costs in one region, in US dollars an hour."""

    document: str
    line: int
    size: str
    """The size as the catalog writes it; normalize gives it its canonical name."""
    region: str | None
    os: str | None
    on_demand: float | None
    spot: float | None


@compact
@dataclass(frozen=True, slots=True)
class Extraction:
    """Everything the extract stage found in one document."""

    document: Document
    subject: str | None
    statements: tuple[Statement, ...]
    includes: tuple[Include, ...]
    diagnostics: tuple[Diagnostic, ...]
    prices: tuple[Price, ...] = ()


@compact
@dataclass(frozen=True, slots=True)
class Mention:
    """A size a table row names, with or without values for it: the build reports each one
    that yields no row of `vm_sizes` (`size_not_built`), so nothing is dropped in silence."""

    document: str
    line: int
    written: str
    size: str | None
    """The canonical size name, or None when the text does not follow the naming convention."""
    table: str
    """What kind of table named it: `spec` (a size table) or `comparison` (its other columns
    describe another size)."""


@compact
@dataclass(frozen=True, slots=True)
class Claim:
    """A normalized statement about one attribute of one entity, with its provenance."""

    claim_id: str
    document: str
    line: int
    section: str
    table_index: int | None
    row_index: int | None
    column: str | None
    raw_text: str
    method: str
    entity: str
    entity_kind: EntityKind
    attribute: str
    value: str
    value_number: float | None = None
    value_text: str | None = None
    value_bool: bool | None = None
    range_min: float | None = None
    range_max: float | None = None
    unit: str | None = None
    unit_as_written: str | None = None
    interpretation: str | None = None
    name_as_written: str | None = None
    """For a size, its name as the statement's row or line writes it: a misspelling read as
    another size's name (`pipeline.stages.aliases`) keeps it here."""

    @property
    def is_range(self) -> bool:
        return self.range_min is not None and self.range_max is not None and self.range_min != self.range_max


@dataclass(frozen=True, slots=True)
class Evidence:
    """What a fact's value rests on, as the confidence model reads it (`pipeline.stages.calibrate`)."""

    weight: float
    """The weight of the best claim for the value: its tier's trust, less for running text,
    derived values and inherited ones, halved for each check it fails."""
    voices: int
    """Independent sources stating the value (copies of one page are one)."""
    rival: float
    """The strongest other value's share of the two weights; 0 when no source disagrees."""
    official: bool = False
    """The value's best claim comes from an authoritative source (an official page, an API
    catalog): the labels are nearly all such values, so the fit lifts these through this term
    and leaves the weight's slope, which also sets the confidence of weaker claims, near its prior."""
    rule_of: str | None = None
    """The rule that gives the value, when no page states it: the naming convention, a sibling."""
    rule: float = 0.0
    """The log-odds that that rule is right, measured on the corpus where official pages state the
    value too (`pipeline.stages.reconcile.rules.rule_agreement`); 0 for a stated value."""
    catalog: bool = False
    """The value's best claim is from an API catalog: no docs-only value, so its attribute's
    docs-vs-API agreement says nothing of it (`agreement` is 0)."""
    agreement: float = 0.0
    """How much more often than the average attribute's the documents' values of this fact's
    attribute agree with the API (`calibrate.Model.attribute_terms`); 0 when the value is a catalog's."""
    tied: bool = False
    """Sources of equal standing disagree (the fact is `unresolved`)."""
    unverified: bool = False
    inherited: bool = False
    failed: bool = False
    stale: bool = False

    def terms(self) -> tuple[float, ...]:
        w = min(max(self.weight, 0.01), 0.99)
        return (
            1.0,
            math.log(w / (1 - w)),
            float(self.official),
            self.rule,
            self.agreement,
            math.log(max(self.voices, 1)),
            self.rival,
            float(self.tied),
            float(self.unverified),
            float(self.inherited),
            float(self.failed),
            float(self.stale),
        )


@compact
@dataclass(frozen=True, slots=True)
class Fact:
    """The value chosen for one attribute of one entity, and why."""

    entity: str
    entity_kind: str
    attribute: str
    value: str
    value_number: float | None
    value_text: str | None
    value_bool: bool | None
    range_min: float | None
    range_max: float | None
    unit: str | None
    confidence: float
    status: str
    reason: str
    supporting: tuple[str, ...]
    contradicting: tuple[str, ...]
    sources: int
    document: str
    line: int
    as_of: dt.date | None
    inherited_from: str | None
    basis: str
    """What the value rests on (`BASES`): `stated` for the entity itself, `computed` from values
    stated for it, or inferred: `inherited` from its series, copied from a `sibling` size, or
    read from its `name`."""
    basis_from: str | None
    """The series a value is inherited from, or the sibling it is copied from."""
    checks_failed: tuple[str, ...]
    stale: bool = False
    evidence: Evidence | None = None
    """What the confidence was computed from (`pipeline.stages.calibrate`); not a column."""


@compact
@dataclass(frozen=True, slots=True)
class Conflict:
    """One competing value for an (entity, attribute), with the documents behind it."""

    entity: str
    attribute: str
    value: str
    unit: str | None
    won: bool
    superseded: bool
    claims: tuple[str, ...]
    documents: tuple[str, ...]
    kinds: tuple[str, ...]
    newest: dt.date | None
    checks_failed: tuple[str, ...]
    note: str


@compact
@dataclass(frozen=True, slots=True)
class Reconciled:
    facts: tuple[Fact, ...]
    conflicts: tuple[Conflict, ...]
    name_claims: tuple[Claim, ...]
    checks: Mapping[str, tuple[str, ...]]
    checked_at: Mapping[str, tuple[int, tuple[str, str]]] = field(default_factory=dict)
    """For each claim in `checks`, the place in the decide order of the key whose checks it holds:
    a series' claim is checked again for each size that inherits it, and the last key's checks
    are the claim's, whichever part decided it (`reconcile.merge`)."""


class ContractViolation(RuntimeError):
    """A build computed tables that break their own contract (`pipeline.outputs.contracts`); `out` was left as it was.

    `violations` holds every broken promise, one sentence each, as `validate` gives them."""

    def __init__(self, violations: Sequence[str]) -> None:
        self.violations = tuple(violations)
        listed = "\n".join(f"  {v}" for v in self.violations)
        super().__init__(f"the tables break their contract ({len(self.violations)} violation(s)):\n{listed}")


@dataclass(frozen=True, slots=True)
class BuildResult:
    """What a build produced: `compute` fills every field; `build` returns the summary only
    (`tables`, `diagnostics`, `cache`), the records being in the tables it wrote."""

    documents: tuple[Document, ...]
    claims: tuple[Claim, ...]
    diagnostics: tuple[Diagnostic, ...]
    tables: dict[str, int] = field(default_factory=dict)
    facts: tuple[Any, ...] = ()
    conflicts: tuple[Any, ...] = ()
    names: tuple[Any, ...] = ()
    """The names that stand for another size (`pipeline.stages.aliases.Alias`)."""
    up_to_date: bool = False
    """True when nothing had changed and `out` was left as it was: `tables` and `diagnostics`
    are then read back from `out`."""
    cache: Any = None
    """The parse cache's counts (`pipeline.runner.cache.CacheStats`), when a cache was used."""
    labels: tuple[Any, ...] = ()
    """The docs-against-API labels the confidence is calibrated on (`pipeline.stages.calibrate.Label`)."""
    timings: tuple[tuple[str, float], ...] = ()
    """Seconds each step of the build took, in order (`python -m pipeline build --timings`)."""
    peaks: tuple[tuple[str, int], ...] = ()
    """The build process's peak resident memory in bytes when each step ended (`--timings`)."""
    cpu: tuple[tuple[str, float, float], ...] = ()
    """For each step, in order: the CPU seconds (user and system) of the build process in it, and
    of its processes that ended and were waited for in it, the parse workers and the forked
    helpers (one that ended early is waited for when the next is forked) (`--timings`)."""
    helpers: tuple[tuple[str, int, float], ...] = ()
    """Each process the build forked to work beside it, named by what it did, with its peak
    resident memory in bytes and its CPU seconds, in the order they answered, and its parse
    workers (their CPU seconds together, and the largest one's own peak, which it says as it
    exits) (`--timings`)."""

    @property
    def errors(self) -> tuple[Diagnostic, ...]:
        return tuple(d for d in self.diagnostics if d.severity == "error")
