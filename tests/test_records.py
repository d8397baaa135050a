"""The records that flow between stages: frozen, and pickled as their field values in order,
which is how they cross processes and the cache."""

from __future__ import annotations

import dataclasses
import datetime as dt
import pickle

import pytest

from pipeline.records import Claim, Diagnostic, Metadata

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


def test_a_claim_is_pickled_as_its_values_and_made_without_init(monkeypatch: pytest.MonkeyPatch) -> None:
    """Unpickling half a million claims was mostly their `__init__` (each field set by name);
    the record's own maker sets each slot directly."""
    blob = pickle.dumps(ND40, protocol=pickle.HIGHEST_PROTOCOL)
    assert b"Standard_ND40rs_v2" in blob and b"claim_id" not in blob  # values, not field names

    def refuse(self: Claim, *args: object) -> None:
        raise AssertionError("__init__ ran")

    monkeypatch.setattr(Claim, "__init__", refuse)
    back = pickle.loads(blob)
    assert (back.entity, back.value_number, back.is_range, back.name_as_written) == (
        "Standard_ND40rs_v2",
        32.0,
        False,
        "ND40rs\\_v2",
    )
