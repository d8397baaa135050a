"""The checks that lower a vote's weight (`CHECK_PENALTY`) and say why: the physical ones (vCPUs in
the name, a GPU model's memory sizes and a GPU count against the memory, gpus.toml; a total against
its factors and a floor per vCPU, attributes.toml), a size's value against its series' range or
value and against its series' pattern (`pipeline.stages.patterns`); and the series values a size's
name denies it (`_denied`, naming.toml)."""

from __future__ import annotations

from collections.abc import Container, Iterable, Mapping, Sequence
from dataclasses import replace

from pipeline.knowledge import GpuModel, Knowledge
from pipeline.knowledge.names import parse_size
from pipeline.knowledge.values import close, format_number
from pipeline.records import Claim, Fact
from pipeline.stages.patterns import Patterns
from pipeline.stages.reconcile.votes import NAME_CONVENTION, _Vote

CHECK_PENALTY = 0.5
NO_PATTERNS = Patterns()
"""No value is a slip of its series' pattern: what `_check` is given where none were read."""
_CHECKED = frozenset(("vcpus", "gpu_memory_gib", "gpu_model", "gpu_count"))
"""The attributes `_check` sets against the name, the GPU model or the entity's other values;
besides these and a total with a check of its factors (`derived_from`, attributes.toml), any
other attribute is checked only against the vCPU count (its floor) and its series."""


def _check(
    key: tuple[str, str],
    votes: list[_Vote],
    facts: Mapping[tuple[str, str], Fact],
    by_key: Mapping[tuple[str, str], list[_Vote]],
    know: Knowledge,
    vcpus_hold: bool = True,
    patterns: Patterns = NO_PATTERNS,
) -> None:
    """Lower the weight of claims that break physical consistency or their series' pattern
    (`patterns`), and say which check.

    `vcpus_hold` says whether the size's name gives its vCPU count (`name_vcpus_hold`): only
    then does a vCPU count that differs from the name fail a check. A claim's checks, in the
    order it is told them: vcpus_name, the GPU model's memory (`_model_memory`) and the GPU
    count's (`_count_memory`), a total against its factors, plausible_per_vcpu, its series'
    range or value (`_series_check`), its series' pattern."""
    entity, attribute = key
    attr = know.attributes.get(attribute)
    floor = attr.min_per_vcpu if attr else None
    # A total stated beside its factors (GPU count x per-GPU memory, NVMe disks x one disk's size).
    product = attr if attr and attr.check and len(attr.derived_from) == 2 else None
    vcpus = facts.get((entity, "vcpus")) if floor else None
    series_votes = _series_votes(facts, by_key, key)
    slips = patterns.failed if entity in patterns.of_entity else {}
    if (
        attribute not in _CHECKED
        and not product
        and not (vcpus and vcpus.value_number)
        and not series_votes
        and not slips
    ):
        return  # nothing to set its votes against: a third of the keys (10,000 documents)
    # A range that ends on a value off its series' pattern was copied from that value: it says
    # nothing against the sizes that fit the pattern.
    copied = patterns.outliers.get((series_votes[0].claim.entity, attribute), ()) if series_votes else ()
    # What every vote of the key is set against, looked up once.
    size = parse_size(entity) if attribute == "vcpus" else None
    named = (size.constrained_vcpus or size.vcpus) if size and vcpus_hold else None
    model_fact = facts.get((entity, "gpu_model"))
    for i, v in enumerate(votes):
        c = v.claim
        failed: list[str] = []
        if (
            attribute == "vcpus"
            and c.value_number is not None
            and v.source_kind != NAME_CONVENTION
            and named is not None
            and abs(c.value_number - named) > 1e-9
        ):
            failed.append(f"vcpus_name: the name {entity} says {named} vCPUs")
        if attribute in ("gpu_memory_gib", "gpu_model") and (
            why := _model_memory(entity, attribute, c, model_fact, by_key, know)
        ):
            failed.append(why)
        if (
            attribute == "gpu_count"
            and c.value_number
            and model_fact
            and (model := know.gpu(model_fact.value_text or ""))
            and (why := _count_memory(entity, c, c.value_number, model, by_key))
        ):
            failed.append(why)
        if product and c.value_number is not None:
            count = _same_doc_number(by_key, entity, product.derived_from[0], c)
            per = _same_doc_number(by_key, entity, product.derived_from[1], c)
            if count is not None and per is not None and not close(count * per, c.value_number, 0.02):
                failed.append(
                    f"{product.check}: {format_number(count)} x {format_number(per)} {c.unit or ''} is not "
                    f"{format_number(c.value_number)} {c.unit or ''}".replace("  ", " ")
                )
        if floor and c.value_number is not None and vcpus and vcpus.value_number:
            per = c.value_number / vcpus.value_number
            if per < floor:
                failed.append(
                    f"plausible_per_vcpu: {format_number(c.value_number)} {c.unit or ''} is "
                    f"{format_number(round(per, 2))} per vCPU, below the floor of {format_number(floor)}"
                )
        # The size's name settles its vCPU count where the convention holds: a newer series
        # range that leaves the size out does not make that count wrong.
        name_settles = attribute == "vcpus" and named is not None and abs((c.value_number or 0) - named) < 1e-9
        if v.inherited_from is None and c.value_number is not None and c.entity_kind == "size" and not name_settles:
            failed.extend(_series_check(series_votes, attribute, c.value_number, model_fact, know, copied))
        if v.inherited_from is None and (slip := slips.get(c.claim_id)):
            failed.append(slip)
        if failed and v.shared:  # this key's own copy (`_inherit`)
            v = votes[i] = replace(v, failed=[], shared=False)
        for message in failed:
            if message not in v.failed:
                v.failed.append(message)
                v.weight *= CHECK_PENALTY


def _model_memory(
    entity: str,
    attribute: str,
    c: Claim,
    model_fact: Fact | None,
    by_key: Mapping[tuple[str, str], list[_Vote]],
    know: Knowledge,
) -> str | None:
    """The `gpu_model_memory` check of a GPU model or a memory per GPU (`attribute`): the model
    must be made with the memory stated beside it (by the same document; for a memory with no
    model beside it, the entity's model), or, a model with no memory beside it, with one of
    the memories the entity's pages state."""
    model_name = c.value_text if attribute == "gpu_model" else _same_doc_value(by_key, entity, "gpu_model", c)
    if model_name is None and attribute == "gpu_memory_gib":
        model_name = model_fact.value_text if model_fact else None
    memory = c.value_number if attribute == "gpu_memory_gib" else _same_doc_number(by_key, entity, "gpu_memory_gib", c)
    model = know.gpu(model_name) if model_name else None
    if attribute == "gpu_model" and memory is None and model is not None:
        # No memory beside it: the model must still fit what the entity's pages state.
        stated = [w.claim.value_number for w in by_key.get((entity, "gpu_memory_gib"), ())]
        numbers = [m for m in stated if m is not None]
        if numbers and not any(_fits_any(m, model.memory_gib) for m in numbers):
            memory = numbers[0]
    if model is not None and memory is not None and not _fits_any(memory, model.memory_gib):
        return (
            f"gpu_model_memory: {model.name} is made with "
            f"{'/'.join(format_number(m) for m in model.memory_gib)} GiB, not {format_number(memory)}"
        )
    return None


def _count_memory(
    entity: str, c: Claim, gpus: float, model: GpuModel, by_key: Mapping[tuple[str, str], list[_Vote]]
) -> str | None:
    """The `gpu_count_memory` check of a GPU count `gpus` of `model`: so many of its GPUs must
    make the total memory the same row states, or, a count with no memory beside it (an API
    catalog's), one of the totals the entity's pages state."""
    total = _same_line_number(by_key, entity, "gpu_memory_total_gib", c)
    # A count with no memory beside it (an API catalog's) must fit what the pages state.
    totals: list[float] = (
        [total]
        if total is not None
        else sorted(
            {
                t
                for w in by_key.get((entity, "gpu_memory_total_gib"), ())
                if w.inherited_from is None and (t := w.claim.value_number) is not None
            }
        )
    )
    if totals and not any(close(gpus * m, t, 0.02) for m in model.memory_gib for t in totals):
        where = "the same row states" if total is not None else "the pages state"
        return (
            f"gpu_count_memory: {format_number(gpus)} {model.name} GPU(s) of "
            f"{'/'.join(format_number(m) for m in model.memory_gib)} GiB cannot have the "
            f"{'/'.join(format_number(t) for t in totals)} GiB {where}"
        )
    return None


def _series_check(
    series_votes: Sequence[_Vote],
    attribute: str,
    value: float,
    model_fact: Fact | None,
    know: Knowledge,
    copied: Container[float] = frozenset(),
) -> list[str]:
    """A number a size states must lie within what an official page states for its series:
    its range (`6 - 24 vCPUs`), or its one value (`16 Disks`) when the series states one. A
    GPU count may be counted in cards of a model with several GPUs per card. `series_votes` are
    the series' votes for `attribute` (`_series_votes`), looked up once for all the key's votes.
    A range with an end among `copied` (values off the series' pattern) holds no size that fits
    the pattern to it."""
    model = know.gpu(model_fact.value_text or "") if model_fact and attribute == "gpu_count" else None
    scales = (1.0, float(model.gpus_per_board)) if model else (1.0,)
    for r in series_votes:
        rc = r.claim
        if r.source_kind != "official_spec" or rc.range_min is None or rc.range_max is None:
            continue
        if rc.is_range and value not in copied and (rc.range_min in copied or rc.range_max in copied):
            continue
        if any(rc.range_min * k - 1e-9 <= value <= rc.range_max * k + 1e-9 for k in scales):
            continue
        if rc.is_range:
            return [
                f"series_range: series {rc.entity} spans {format_number(rc.range_min)}-{format_number(rc.range_max)}"
            ]
        # A spec table's one value is every size's; a size value more than twice or less than
        # half of it is a slip (`316` disks where the series has 16), not a difference of sizes.
        if rc.method == "part_table" and not rc.range_min / 2 <= value <= rc.range_min * 2:
            return [
                f"series_value: series {rc.entity} states {format_number(rc.range_min)} for its sizes, "
                f"and {format_number(value)} is not within half or twice of it"
            ]
    return []


def _series_votes(
    facts: Mapping[tuple[str, str], Fact], by_key: Mapping[tuple[str, str], list[_Vote]], key: tuple[str, str]
) -> Sequence[_Vote]:
    """The votes of the series the entity of `key` is decided to be in, for the same attribute:
    what `_series_check` sets a size's number against."""
    series = facts.get((key[0], "series"))
    return by_key.get((series.value_text, key[1]), ()) if series and series.value_text else ()


def _same_line_number(
    by_key: Mapping[tuple[str, str], list[_Vote]], entity: str, attribute: str, c: Claim
) -> float | None:
    """The number the same row or line of the same document states for `attribute`."""
    same = [v for v in _same_doc_votes(by_key, entity, attribute, c) if v.claim.line == c.line]
    return same[0].claim.value_number if same else None


def _same_doc_votes(
    by_key: Mapping[tuple[str, str], list[_Vote]], entity: str, attribute: str, c: Claim
) -> list[_Vote]:
    return [
        v for v in by_key.get((entity, attribute), ()) if v.claim.document == c.document and v.inherited_from is None
    ]


def _same_doc_value(by_key: Mapping[tuple[str, str], list[_Vote]], entity: str, attribute: str, c: Claim) -> str | None:
    votes = _same_doc_votes(by_key, entity, attribute, c)
    return votes[0].claim.value_text if votes else None


def _same_doc_number(
    by_key: Mapping[tuple[str, str], list[_Vote]], entity: str, attribute: str, c: Claim
) -> float | None:
    same_line = [v for v in _same_doc_votes(by_key, entity, attribute, c) if v.claim.line == c.line]
    votes = same_line or _same_doc_votes(by_key, entity, attribute, c)
    return votes[0].claim.value_number if votes else None


def _fits_any(value: float, sizes: Iterable[float]) -> bool:
    return any(close(value, s, 0.02) for s in sizes)


def _denied(know: Knowledge, features: str, c: Claim) -> bool:
    """Whether a size name with `features` says the series' value of `c` is not the size's:
    a series statement never gives a size what its own name contradicts (naming.toml)."""
    value = c.value_bool if c.value_bool is not None else c.value_text
    return any(letter.contradicts(features, c.attribute, value) for letter in know.letters)
