"""The records that flow between stages: frozen, and pickled as their field values in order,
which is how they cross processes and the cache."""

from __future__ import annotations

import dataclasses
import datetime as dt
import pickle

import pytest

from pipeline.records import Claim, Diagnostic, Metadata, Reconciled, UnitMismatch, values_of

ND40 = Claim(
    claim_id="3f1c2a9e0b7d4c11",
    document="azure-docs/articles/virtual-machines/ndv2-series.md",
    line=38,
    section="Host specifications",
    table_index=1,
    row_index=0,
    column="GPU memory: GiB",
    raw_text="8 V100 32 GB",
    method="table",
    entity="Standard_ND40rs_v2",
    entity_kind="size",
    attribute="gpu_memory_gib",
    value="32",
    value_number=32.0,
    range_min=32.0,
    range_max=32.0,
    unit="GiB",
    unit_as_written="GB",
    name_as_written="ND40rs\\_v2",
)


@pytest.mark.parametrize(
    "record",
    [
        ND40,
        Diagnostic("warning", "unknown_unit", "third-party/gpu-cloud.md", 12, "unit 'GBs' is not known"),
        Metadata(title="NDv2 series", date=dt.date(2024, 5, 1), tags=("gpu", "hpc")),
    ],
    ids=lambda r: type(r).__name__,
)
def test_a_record_comes_back_from_its_pickle_equal_and_frozen(record: object) -> None:
    back = pickle.loads(pickle.dumps(record, protocol=pickle.HIGHEST_PROTOCOL))
    assert type(back) is type(record) and back == record and hash(back) == hash(record)
    assert dataclasses.astuple(back) == dataclasses.astuple(record)  # type: ignore[call-overload]
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(back, dataclasses.fields(back)[0].name, None)  # type: ignore[arg-type]


def test_a_claim_is_pickled_as_its_values() -> None:
    blob = pickle.dumps(ND40, protocol=pickle.HIGHEST_PROTOCOL)
    assert b"Standard_ND40rs_v2" in blob and b"claim_id" not in blob  # values, not field names


def test_a_records_values_are_its_fields_in_order_and_tell_records_apart() -> None:
    values = values_of(Claim)
    assert values(ND40)[:3] == ("3f1c2a9e0b7d4c11", "azure-docs/articles/virtual-machines/ndv2-series.md", 38)
    assert values(ND40) == dataclasses.astuple(ND40) == ND40.__reduce__()[1]
    assert values(dataclasses.replace(ND40, unit_as_written="GiB")) != values(ND40)


def test_a_record_is_made_as_a_dataclass_is() -> None:
    """`compact` writes the record's `__init__` (the fields stored while the object has a
    mutable twin's class: unpickling half a million claims was mostly their `__init__`), with
    the same parameters and defaults."""
    values = dataclasses.astuple(ND40)
    assert Claim(*values) == ND40
    assert (ND40.value_text, ND40.value_bool, ND40.interpretation) == (None, None, None)  # defaults
    with pytest.raises(TypeError):
        Claim("3f1c2a9e0b7d4c11")  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Claim(*values, colour="red")  # type: ignore[call-arg]
    first, second = Reconciled((), (), (), (), {}), Reconciled((), (), (), (), {})
    assert first.checked_at == {} and first.checked_at is not second.checked_at  # a default factory's own


def test_a_compact_record_is_frozen_and_of_its_own_class_once_made() -> None:
    """The object is lent a mutable class only while its fields are set."""
    made = Claim(*dataclasses.astuple(ND40))
    again = pickle.loads(pickle.dumps(ND40, protocol=pickle.HIGHEST_PROTOCOL))
    for record in (made, again):
        assert type(record) is Claim and isinstance(record, Claim)
        with pytest.raises(dataclasses.FrozenInstanceError):
            record.value = "64"  # type: ignore[misc]
        assert record.value == "32" and hash(record) == hash(ND40)


def test_a_compact_record_cannot_be_subclassed() -> None:
    """Its `__init__` gives the object back the record's own class, which would drop a subclass's."""
    with pytest.raises(TypeError, match="Louder: Claim is a compact record, which cannot be subclassed"):
        type("Louder", (Claim,), {"__slots__": ()})
    with pytest.raises(TypeError, match="Mixed: Claim is a compact record, which cannot be subclassed"):
        type("Mixed", (type("Mixin", (), {"__slots__": ()}), Claim), {"__slots__": ()})  # named by the record


@pytest.mark.parametrize(
    ("mismatch", "message"),
    [
        (
            UnitMismatch("2/20,000", "Max NICs/network bandwidth (MBps)", "MBps", "network_bandwidth_mbps"),
            "'2/20,000' under 'Max NICs/network bandwidth (MBps)': unit MBps is not a unit of network_bandwidth_mbps; "
            "value skipped",
        ),
        # An apostrophe: repr writes the cell in double quotes.
        (
            UnitMismatch("8 x 12' GB", "GPU memory (in)", "in", "gpu_memory_gib"),
            "\"8 x 12' GB\" under 'GPU memory (in)': unit in is not a unit of gpu_memory_gib; value skipped",
        ),
        # Both quotes, and a backslash: repr escapes them.
        (
            UnitMismatch('it\'s "1\\2"', 'say "GB"', "in", "memory_gib"),
            "'it\\'s \"1\\\\2\"' under 'say \"GB\"': unit in is not a unit of memory_gib; value skipped",
        ),
        # A header that reads like the message itself, a unit of two words and a line break.
        (
            UnitMismatch("1\n' under 'x", "a': unit b is not a unit of c; value skipped", "fl oz", "memory_gib"),
            '"1\\n\' under \'x" under "a\': unit b is not a unit of c; value skipped": unit fl oz is not a unit of '
            "memory_gib; value skipped",
        ),
    ],
)
def test_a_unit_mismatch_is_read_back_from_the_message_it_writes(mismatch: UnitMismatch, message: str) -> None:
    assert mismatch.message == message
    assert UnitMismatch.read(message) == mismatch


@pytest.mark.parametrize(
    "message",
    [
        "unit 'GBs' is not known",
        "'2' under 'x': unit MBps is not a unit of y",
        "2 under 'x': unit a is not a unit of y; value skipped",
    ],
)
def test_another_message_is_no_unit_mismatch(message: str) -> None:
    assert UnitMismatch.read(message) is None
