"""GPUs in size and part tables, and what a GPU memory number means.

The GPU cell (`8 A100 40 GB GPUs (NVLink 3.0)`), a model named by its architecture and the
memory beside it, the memory written beside a model, and whether a GPU memory column states
memory per GPU, the total or whole cards (`_decide_gpu_memory`), from the row's GPU count and
the model's memory sizes and cards in gpus.toml.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from pipeline.knowledge import GpuModel
from pipeline.knowledge.values import format_number, parse_number
from pipeline.records import Diagnostic, Statement
from pipeline.stages.normalize.claims import _Context, _convert, _emit, _not_a_value, _Value
from pipeline.stages.normalize.sources import SourceFamily
from pipeline.stages.normalize.values import _link_values

# Compiled once, as the stage's patterns are (see `pipeline.stages.normalize`).
_GPU_COUNT = re.compile(r"^\s*(\d+\s*/\s*\d+|\d+(?:\.\d+)?)(?:\s*[x×])?", re.IGNORECASE)
_BRACKETED = re.compile(r"\(([^)]*)\)")  # where a GPU cell writes the link: `(NVLink 3.0)`
_GB = re.compile(r"(\d+(?:\.\d+)?)\s*(GB|GiB)\b")


@dataclass(frozen=True, slots=True)
class _PendingMemory:
    statement: Statement
    entity: str
    value: float
    raw: float
    written: str | None
    note: str | None
    count: float | None
    models: tuple[str, ...]
    default: str
    row_per_gpu: float | None = None


def _gpu_cell(ctx: _Context, fam: SourceFamily, st: Statement) -> list[_Value]:
    """`8 A100 40 GB GPUs (NVLink 3.0)`, `1 x V100`, `1/4`: count, model, memory, link."""
    text = st.raw_text
    out: list[_Value] = []
    m = _GPU_COUNT.match(text)
    if m:
        count = parse_number(m.group(1))
        if count is not None:
            note = f"fraction {m.group(1).strip()} of one GPU" if "/" in m.group(1) else None
            out.append(_Value("gpu_count", number=count, low=count, high=count, interpretation=note))
    rest = text[m.end() :] if m else text
    models = ctx.know.find_gpus(rest)
    if models:
        out.append(
            _Value(
                "gpu_model",
                text=models[0].name,
                interpretation=None if len(models) == 1 else f"first of {len(models)} models named",
            )
        )
    memory = _memory_beside(ctx, fam, st, models[0] if models else None, rest)
    out.extend(memory)
    count_v = next((v.number for v in out if v.attribute == "gpu_count"), None)
    if memory and memory[0].number is not None and count_v is not None:
        per = memory[0].number
        total = round(per * count_v, 6)
        out.append(
            _Value(
                "gpu_memory_total_gib",
                number=total,
                low=total,
                high=total,
                unit_written=memory[0].unit_written,
                derived=True,
                interpretation=f"derived: {format_number(count_v)} GPUs x {format_number(per)} GiB",
            )
        )
    # The link is written in brackets (`(NVLink 3.0)`): the first that names one of phrases.toml's
    # `[[link]]`, read as running text's are (its normal form, and the flag it states).
    for bracketed in _BRACKETED.finditer(rest):
        if link := _link_values(ctx, "interconnect", bracketed.group(1), None):
            out.extend(link)
            break
    if not out:
        _not_a_value(ctx, st)
    return out


def _named_gpu(ctx: _Context, fam: SourceFamily, st: Statement, text: str) -> GpuModel | None:
    """The GPU model a spec names: by one of its names, else by its architecture and the
    memory written beside it (`Nvidia Blackwell GPU (192 GiB)` is a B200)."""
    models = ctx.know.find_gpus(text)
    if models:
        return models[0]
    mem = _GB.search(text)
    conv = _convert(ctx, fam, "gpu_memory_gib", float(mem.group(1)), mem.group(2), None, st) if mem else None
    return ctx.know.gpu_of_family(text, conv[0]) if conv else None


def _family_note(model: GpuModel, text: str) -> str | None:
    """How a model named only by its architecture was told apart."""
    if any(a.lower() in text.lower() for a in model.aliases):
        return None
    return f"the {model.family} GPU made with the memory written beside it is the {model.name}"


def _memory_beside(ctx: _Context, fam: SourceFamily, st: Statement, model: GpuModel | None, text: str) -> list[_Value]:
    """The memory written beside a GPU model (`A100 40 GB`, `Tesla M60 GPU (16GB)`) as the
    memory of one GPU: per GPU, or one card of several GPUs for a model that has them."""
    mem = _GB.search(text)
    if not mem:
        return []
    conv = _convert(ctx, fam, "gpu_memory_gib", float(mem.group(1)), mem.group(2), None, st)
    if not conv:
        return []
    per, card = _card_memory(model, conv[0])
    note = card or "memory printed beside the GPU model is per GPU"
    note += f"; {conv[2]}" if conv[2] else ""
    return [_Value("gpu_memory_gib", number=per, low=per, high=per, unit_written=conv[1], interpretation=note)]


def _fits(value: float, sizes: Iterable[float]) -> bool:
    return any(abs(value - s) <= 0.02 * s for s in sizes)


def _snap(per: float, model: GpuModel | None) -> tuple[float, str | None]:
    """A per-GPU memory computed from a total (1535 / 8 = 191.875) is the model's own size
    when within 2% of it: pages round totals, GPUs are made in whole sizes."""
    if model is None:
        return per, None
    near = [m for m in model.memory_gib if _fits(per, [m])]
    if near and near[0] != per:
        return near[0], (
            f"{format_number(round(per, 4))} GiB per GPU is within 2% of the {model.name}'s "
            f"{format_number(near[0])} GiB; read as {format_number(near[0])}"
        )
    return per, None


def _card_memory(model: GpuModel | None, memory: float) -> tuple[float, str | None]:
    """Memory printed beside a model is per GPU, except where it is one card of a model whose
    cards carry several GPUs (`Tesla M60 GPU (16GB)`: two GPUs of 8 GiB)."""
    if (
        model
        and model.gpus_per_board > 1
        and not _fits(memory, model.memory_gib)
        and _fits(memory, model.board_memory_gib)
    ):
        per = memory / model.gpus_per_board
        return per, (
            f"{format_number(memory)} GiB is one {model.name} card of {model.gpus_per_board} GPUs: "
            f"{format_number(per)} GiB per GPU"
        )
    return memory, None


def _readings(p: _PendingMemory, model: GpuModel | None, sizes: Iterable[float], who: str) -> dict[str, str]:
    """Every reading of a GPU memory number that physics allows, and why: per GPU, the total
    of all GPUs, or (for a model with several GPUs on a card) the total of that many cards;
    `sizes` are the model's memory sizes, or every known one where no model is named."""
    v, n = p.raw, p.count
    out: dict[str, str] = {}
    if n is None:
        return out
    if n == 1 and _fits(v, sizes):
        out["one"] = "one GPU: per-GPU and total memory are the same"
    elif n != 1 and _fits(v, sizes):
        out["per_gpu"] = (
            f"{format_number(v)} GiB matches the {who} and {format_number(v)} / {format_number(n)} does not"
        )
    if n and n != 1 and _fits(v / n, sizes):
        out["total"] = f"{format_number(v)} / {format_number(n)} GPUs = {format_number(v / n)} GiB matches the {who}"
    if model and n and model.gpus_per_board > 1 and _fits(v / n, model.board_memory_gib):
        gpus = n * model.gpus_per_board
        out["card"] = (
            f"{format_number(n)} {model.name} card(s) of {model.gpus_per_board} GPUs = {format_number(gpus)} GPU(s): "
            f"{format_number(v)} / {format_number(n)} = {format_number(v / n)} GiB is one card"
        )
    return out


def _decide_gpu_memory(ctx: _Context, fam: SourceFamily, pending: list[_PendingMemory]) -> None:
    """Per GPU, total, or cards? Decided per row from the count and the GPU model's memory
    sizes (and cards, for models that carry several GPUs on one); a row the numbers cannot
    decide follows the other rows of its column, else the header."""
    decisions: dict[int, tuple[str | None, str]] = {}
    models: dict[int, GpuModel | None] = {}
    readings_of: dict[int, dict[str, str]] = {}
    known = tuple(sorted(ctx.know.all_gpu_memory_sizes()))  # the sizes where a row names no model
    for i, p in enumerate(pending):
        model = ctx.know.gpu(p.models[0]) if p.models else None
        models[i] = model
        sizes = model.memory_gib if model else known
        who = (
            f"{model.name} memory sizes {'/'.join(format_number(s) for s in sizes)} GiB"
            if model
            else "known GPU memory sizes"
        )
        v = p.raw  # GPU memory is sold in binary sizes however a page prints the unit
        if p.count is None:
            if _fits(v, sizes):
                decisions[i] = (
                    "per_gpu",
                    f"{format_number(v)} GiB is one of the {who}; read as per GPU (GPU count not in this row)",
                )
            else:
                decisions[i] = (
                    "total",
                    f"{format_number(v)} GiB is not one of the {who}; read as the total (GPU count not in this row)",
                )
            continue
        readings = readings_of[i] = _readings(p, model, sizes, who)
        if len(readings) == 1:
            ((reading, why),) = readings.items()
            decisions[i] = (reading, why + ("" if reading == "one" else f"; read as {_READING[reading]}"))
        elif (
            len(readings) > 1
            and p.row_per_gpu is not None
            and "per_gpu" in readings
            and _fits(p.row_per_gpu, [p.value])
        ):
            decisions[i] = (
                "per_gpu",
                f"both readings fit the {who}; the GPU cell of this row gives "
                f"{format_number(p.row_per_gpu)} GiB per GPU, so read as per GPU",
            )
        elif (
            len(readings) > 1
            and p.row_per_gpu is not None
            and "total" in readings
            and _fits(p.row_per_gpu * p.count, [p.value])
        ):
            decisions[i] = (
                "total",
                f"both readings fit the {who}; the GPU cell of this row gives "
                f"{format_number(p.row_per_gpu)} GiB per GPU, so read as the total",
            )
        elif readings:
            decisions[i] = (None, "readings " + " and ".join(_READING[r] for r in readings) + " all fit")
        else:
            decisions[i] = (None, "neither reading fits the " + who)
    by_column: dict[tuple[str, int | None, str | None], Counter[str]] = defaultdict(Counter)
    for i, p in enumerate(pending):
        d = decisions[i][0]
        if d in ("per_gpu", "total", "card"):
            by_column[(p.statement.document, p.statement.table_index, p.statement.column)][d] += 1
    for i, p in enumerate(pending):
        decision, why = decisions[i]
        if decision is None:
            votes = by_column[(p.statement.document, p.statement.table_index, p.statement.column)]
            allowed = set(readings_of[i]) or {"per_gpu", "total"}  # an undecided row has a count
            usual = [d for d in votes if d in allowed or "neither" in why]
            if len(usual) == 1:
                decision = usual[0]
                why += f"; read as {_READING[decision]} like the other rows of this column"
            else:
                decision = "per_gpu" if p.default == "per_gpu" else "total"
                why += f"; read as {_READING[decision]}, the header's usual meaning"
                if "neither" in why:
                    ctx.diagnostics.append(
                        Diagnostic(
                            "warning",
                            "gpu-memory-implausible",
                            p.statement.document,
                            p.statement.line,
                            f"{p.entity}: GPU memory {p.statement.raw_text!r} fits neither per-GPU nor total "
                            f"for {format_number(p.count or 0)} GPU(s) of {'/'.join(p.models) or 'unknown model'}",
                        )
                    )
        _emit_memory(ctx, p, decision, why, models[i])


_READING = {"per_gpu": "per GPU", "one": "per GPU", "total": "the total", "card": "the total of whole cards"}


def _emit_memory(ctx: _Context, p: _PendingMemory, decision: str, why: str, model: GpuModel | None) -> None:
    """The claims a decided GPU memory cell makes: per-GPU and total memory, and for cards the
    GPU count they hold."""
    note = why + (f"; {p.note}" if p.note else "")
    st = p.statement
    v, n = p.value, p.count

    def emit(attribute: str, number: float, derived: bool, interpretation: str = note) -> None:
        value = _Value(
            attribute,
            number=number,
            low=number,
            high=number,
            unit_written=p.written if attribute != "gpu_count" else None,
            interpretation=interpretation,
            derived=derived,
        )
        _emit(ctx, st, p.entity, "size", value)

    if decision in ("per_gpu", "one"):
        emit("gpu_memory_gib", v, False)
        if n is not None:
            emit("gpu_memory_total_gib", round(v * n, 6), decision != "one")
        return
    emit("gpu_memory_total_gib", v, False)
    if decision == "card" and model is not None and n:
        gpus = n * model.gpus_per_board
        per, snapped = _snap(v / gpus, model)
        emit("gpu_count", gpus, True)
        emit("gpu_memory_gib", round(per, 6), True, note + (f"; {snapped}" if snapped else ""))
    elif n:
        per, snapped = _snap(v / n, model)
        emit("gpu_memory_gib", round(per, 6), True, note + (f"; {snapped}" if snapped else ""))
