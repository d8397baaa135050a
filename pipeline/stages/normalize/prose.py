"""Values stated in running text, by the patterns of phrases.toml.

Each value goes to the sizes or series its sentence is about (`_subjects`: the size lists
and series names of the sentence, else of the paragraph, else the page's), a size named in
a sentence about a series to that series, and a phrase's value is read by its parser: GPU
links (phrases.toml `[[link]]`), GPU and CPU models, dates (a retirement date passed or not
by the newest document's date), texts and numbers.
"""

from __future__ import annotations

import datetime as dt
import re

from pipeline.knowledge import Phrase
from pipeline.knowledge.names import find_series_groups, parse_size
from pipeline.knowledge.values import format_number, parse_date_text, parse_number
from pipeline.records import EntityKind, Statement
from pipeline.stages.normalize.claims import _Context, _convert, _emit, _series_claim, _series_entity, _Value
from pipeline.stages.normalize.sources import SourceFamily
from pipeline.stages.normalize.values import _cpu_values, _link_values

# Compiled once, as the stage's patterns are (see `pipeline.stages.normalize`).
_RESPECTIVELY = re.compile(r"\brespectively\b", re.IGNORECASE)
_PRONOUN = re.compile(r"\s*(?:They|It)\b")
_COMPARED = re.compile(r"\b(?:over|than|versus|vs\.?|compared)\b", re.IGNORECASE)
_DIGIT_OR_PAREN = re.compile(r"\d|\(")


def _phrases(ctx: _Context, fam: SourceFamily, st: Statement) -> None:
    """Values stated in running text, by the patterns of phrases.toml, each given to the sizes
    or series its sentence is about (see `_subjects`)."""
    text = st.raw_text
    present = ctx.know.phrase_words(text.lower())
    seen: set[tuple[str, str, str]] = set()
    for n, phrase in enumerate(ctx.know.phrases):
        if not phrase.may_match(present):
            continue
        for m in phrase.pattern.finditer(text):
            values = _phrase_values(ctx, fam, st, phrase, m)
            if not values:
                continue
            if m.groupdict().get("size"):
                size = parse_size(m.group("size"))
                if size is None:
                    continue
                subjects: list[tuple[str, EntityKind]] = [(size.canonical, "size")]
            else:
                subjects = _subjects(ctx, st, m.start(), m.end())
            pairs = _pair(subjects, values, text, m)
            _prose_size_series(ctx, st, subjects, seen)
            for (entity, kind), group in pairs:
                for v in group:
                    flag = None if v.flag is None else str(v.flag)
                    key = (entity, v.attribute, v.text or flag or format_number(v.number or 0))
                    if key in seen:
                        continue
                    seen.add(key)
                    _emit(ctx, st, entity, kind, v, n)


def _prose_size_series(
    ctx: _Context, st: Statement, subjects: list[tuple[str, EntityKind]], seen: set[tuple[str, str, str]]
) -> None:
    """A size running text names belongs to the series its sentence (else its page or
    heading) names, when the naming convention allows it: "Standard_NV12hs_v3 ... in the
    NVv3-series" is of NVv3."""
    series = [name for name, kind in subjects if kind == "series"] or [s for s in [_series_entity(ctx, st)] if s]
    for name, kind in subjects:
        size = parse_size(name) if kind == "size" else None
        for home in series if size else ():
            # The first series the size can belong to is its home, said once: a series in `seen`
            # was said, so the size can belong to it, and it is the home.
            if (name, "series", home) in seen:
                break
            if _series_claim(ctx, st, name, size, home, home, f"named in a sentence about {home}"):
                seen.add((name, "series", home))
                break


def _pair(
    subjects: list[tuple[str, EntityKind]], values: list[_Value], text: str, m: re.Match[str]
) -> list[tuple[tuple[str, EntityKind], list[_Value]]]:
    """Which values go to which subject: all to each, except several GPU models, which go to
    as many series in order when the sentence says "respectively", and to none otherwise."""
    models = [v for v in values if v.attribute == "gpu_model"]
    if len(models) <= 1:
        return [(s, values) for s in subjects]
    sentence = _sentence_at(text, m.start())
    if _RESPECTIVELY.search(text[sentence[0] : sentence[1]]) and len(subjects) == len(models):
        return [(s, [v]) for s, v in zip(subjects, models, strict=True)]
    return []


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z\[*_(`\"'])")


def _sentence_at(text: str, pos: int) -> tuple[int, int]:
    """The start and end of the sentence of `text` that holds `pos`."""
    start = 0
    for m in _SENTENCE_END.finditer(text):
        if m.start() >= pos:
            return start, m.start()
        start = m.end()
    return start, len(text)


_SIZE_WORD = re.compile(
    r"\bStandard_[A-Z]{1,3}\d+(?:-\d+)?[A-Za-z0-9_]*|\b[A-Z]{1,3}\d+[a-z]*(?:_[A-Za-z0-9]+)*_v\d+\b"
)
"""A size name in running text: with its tier (`Standard_NC6`) or its version (`ND40s_v2`), so
that words such as HBM3e or E5 are not taken for sizes."""
_LIST_GAP = re.compile(r"^[\s,;()/&]*(?:(?:and|or)\b[\s,;()/&]*)?$", re.IGNORECASE)


def _size_lists(text: str) -> list[tuple[int, int, list[str]]]:
    """Runs of size names joined only by commas, brackets and `and`/`or`: (start, end, names)."""
    runs: list[tuple[int, int, list[str]]] = []
    for m in _SIZE_WORD.finditer(text):
        size = parse_size(m.group(0))
        if size is None:
            continue
        if runs and _LIST_GAP.match(text[runs[-1][1] : m.start()]):
            start, _, names = runs[-1]
            runs[-1] = (start, m.end(), [*names, size.canonical])
        else:
            runs.append((m.start(), m.end(), [size.canonical]))
    return runs


def _subjects(ctx: _Context, st: Statement, start: int, end: int) -> list[tuple[str, EntityKind]]:
    """What a statement in running text is about, nearest first: the sizes its sentence names
    before the match, else after it ("will retire the Standard_NV12s_v3, ..."), with the
    series the sentence names; else the series the sentence names before (else after) the
    match; else the series an earlier sentence of the same paragraph names ("These products
    will be retired ..."); else the series of the page or heading."""
    text = st.raw_text
    s_start, s_end = _sentence_at(text, start)
    out: list[tuple[str, EntityKind]] = []
    runs = _size_lists(text[s_start:s_end])
    before = [r for r in runs if r[1] <= start - s_start]
    after = [r for r in runs if r[0] >= end - s_start]
    sizes = before[-1][2] if before else (after[0][2] if after else [])
    out.extend((name, "size") for name in sizes)
    # "They ... that of the original NC-Series and are powered by P100 GPUs": a sentence whose
    # subject is a pronoun is about what an earlier sentence named, not the series it mentions.
    pronoun = _PRONOUN.match(text[s_start:])
    groups_before = () if pronoun else find_series_groups(text[s_start:start])
    groups_after = () if pronoun else find_series_groups(text[end:s_end])
    group = groups_before[-1] if groups_before else (groups_after[0] if groups_after else ())
    if not group and not sizes:
        earlier = find_series_groups(text[:s_start])
        group = earlier[-1] if earlier else ()
    series = [canonical for g in group if (canonical := ctx.series.canonical(g.written))]
    if not series and not sizes and (context := _series_entity(ctx, st)):
        series = [context]
    out.extend((name, "series") for name in dict.fromkeys(series))
    return out


def _phrase_values(ctx: _Context, fam: SourceFamily, st: Statement, phrase: Phrase, m: re.Match[str]) -> list[_Value]:
    """The value(s) a phrase's match states, read by the phrase's parser."""
    note = f"from running text: {m.group(0).strip()!r}"
    groups = m.groupdict()
    raw = groups.get("value")
    if isinstance(phrase.value, bool):  # a flag's, as phrases.toml must give it (`knowledge._phrase_value`)
        return [_Value(phrase.attribute, flag=phrase.value, interpretation=note)]
    if phrase.value is not None:
        return [_Value(phrase.attribute, text=phrase.value, interpretation=note)]
    if not raw:
        return []
    if phrase.parser == "interconnect":
        return _link_values(ctx, phrase.attribute, raw, note)
    if phrase.parser == "gpu_model":
        # A comparison names other models after the one meant: "the H200, ... over the H100".
        window = _COMPARED.split(raw, maxsplit=1)[0]
        return [_Value("gpu_model", text=g.name, interpretation=note) for g in ctx.know.find_gpus(window)]
    if phrase.parser == "cpu_model":
        if not _DIGIT_OR_PAREN.search(raw):
            return []  # "Intel Xeon Scalable processors" names a line, not a model
        return _cpu_values(ctx, raw, note)
    if phrase.parser == "date":
        when = parse_date_text(raw)
        if when is None:
            return []
        return [_Value(phrase.attribute, text=when.isoformat(), interpretation=note), *_lifecycle_of(ctx, when)]
    if phrase.parser == "text":
        return [_Value(phrase.attribute, text=raw.strip(), interpretation=note)]
    number = parse_number(raw)
    if number is None:
        return []
    conv = _convert(ctx, fam, phrase.attribute, number, groups.get("unit"), None, st)
    if conv is None:
        return []
    return [
        _Value(
            phrase.attribute,
            number=conv[0],
            low=conv[0],
            high=conv[0],
            unit_written=conv[1],
            interpretation=note + (f"; {conv[2]}" if conv[2] else ""),
        )
    ]


def _lifecycle_of(ctx: _Context, when: dt.date) -> list[_Value]:
    """A retirement date says the size is retired once it has passed, and retiring before:
    passed means before the newest document's date, never the clock (builds stay the same)."""
    if ctx.as_of is None:
        return []
    if when <= ctx.as_of:
        state, rel = "retired", "on or before"
    else:
        state, rel = "retiring", "after"
    why = f"retirement date {when.isoformat()} is {rel} {ctx.as_of.isoformat()}, the newest document's date"
    return [_Value("lifecycle", text=state, interpretation=why, derived=True)]
