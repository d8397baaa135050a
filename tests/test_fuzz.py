"""Whole-build fuzz: folders of made-up documents, some of them garbage, built end to end.

Whatever the folder holds, `compute` returns, and every diagnostic points somewhere real:
a document that is in the folder (or the registry) and a line that the file has.

The suite runs 25 examples, a few seconds; `HYPOTHESIS_PROFILE=fuzz` runs the profile's
5,000 (see conftest.py):

    make fuzz                 # or: make fuzz EXAMPLES=600
"""

from __future__ import annotations

import codecs
import datetime as dt
import os
import re
import tempfile
from pathlib import Path

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.knowledge.registry import REGISTRY_FILE
from pipeline.runner import compute

EXAMPLES = (
    int(os.environ.get("FUZZ_EXAMPLES", settings().max_examples))
    if os.environ.get("HYPOTHESIS_PROFILE") == "fuzz"
    else 25
)

JUNK = st.text(alphabet=st.characters(exclude_categories=["Cs"]), max_size=30)
"""Any text at all (no lone surrogates: they cannot be written as UTF-8)."""
WORDS = st.text(alphabet="abcdefgNDSVv0123456789 _-:|*`<>/\\.,", max_size=24)
CELL = st.one_of(
    st.sampled_from(["Standard_ND6s", "ND40rs\\_v2", "Standard_NC24ads_A100_v4*", "Standard_ND24rs<sup>1</sup>"]),
    st.integers(min_value=0, max_value=10**6).map(str),
    st.sampled_from(["", "N/A", "-", "six", "6 - 24", "Up to 8", "24,000", "2,00,000", "8 x A100 80 GB", "1/4"]),
    st.sampled_from(["<br>", "<script>x</script>", "`a | b`", "a \\| b", "**1**", "Yes", "Not supported"]),
    WORDS,
    JUNK,
)
HEADER = st.one_of(
    st.sampled_from(["Size", "vCPU", "Memory: GiB", "GPU", "GPU memory: GiB", "Temp storage (SSD) GiB", "Max NICs"]),
    st.sampled_from(["Part", "Quantity", "Specs", "Feature", "Support"]),
    WORDS,
)
YAML_VALUE = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.dates(min_value=dt.date(1990, 1, 1), max_value=dt.date(2100, 1, 1)),
    WORDS,
    st.lists(WORDS, max_size=3),
)


@st.composite
def front_matter(draw: st.DrawFn) -> list[str]:
    kind = draw(st.sampled_from(["none", "mapping", "mapping", "junk", "unclosed"]))
    if kind == "none":
        return []
    if kind == "mapping":
        keys = st.one_of(st.sampled_from(["title", "ms.date", "ms.service", "date", "tags", "author", "url"]), WORDS)
        data = draw(st.dictionaries(keys, YAML_VALUE, max_size=5))
        body = yaml.safe_dump(data, allow_unicode=True, sort_keys=False) if data else ""
        return ["---", *body.splitlines(), "---"]
    if kind == "junk":
        return ["---", *draw(st.lists(st.one_of(JUNK, WORDS, st.just("a: &a [*a]")), max_size=4)), "---"]
    return ["---", *draw(st.lists(WORDS, max_size=3))]


@st.composite
def table(draw: st.DrawFn) -> list[str]:
    width = draw(st.integers(min_value=1, max_value=5))
    header = [draw(HEADER) for _ in range(width)]
    delimiter = ["---"] * draw(st.integers(min_value=max(1, width - 1), max_value=width + 1))
    rows = [
        [draw(CELL) for _ in range(draw(st.integers(min_value=0, max_value=width + 2)))]
        for _ in range(draw(st.integers(min_value=0, max_value=6)))
    ]
    return ["| " + " | ".join(cells) + " |" for cells in (header, delimiter, *rows)]


BLOCK = st.one_of(
    st.tuples(st.integers(min_value=1, max_value=6), WORDS).map(lambda h: ["#" * h[0] + " " + h[1]]),
    st.sampled_from(["# NDv2-series", "## ND A100 v4-series", "# ND family"]).map(lambda h: [h]),
    table(),
    WORDS.map(lambda t: [t]),
    JUNK.map(lambda t: [t]),
    st.tuples(WORDS, CELL).map(lambda kv: [f"{kv[0]}: {kv[1]}"]),
    st.tuples(st.sampled_from(["> [!NOTE]", "> ", "- ", "1. "]), WORDS).map(lambda b: [b[0] + b[1]]),
    st.sampled_from(["x.md", "../x.md", "/etc/passwd", "a/b.md", "https://x"]).map(
        lambda target: [f"[!INCLUDE [x]({target})]"]
    ),
    st.integers(min_value=1, max_value=400).map(lambda n: ["> " * n + "deep"]),
)


@st.composite
def document(draw: st.DrawFn) -> bytes:
    """One file's bytes: markdown in some encoding, or raw bytes."""
    if draw(st.integers(min_value=0, max_value=9)) == 0:
        return draw(st.binary(max_size=200))
    lines = draw(front_matter())
    for block in draw(st.lists(BLOCK, max_size=6)):
        lines += [*block, ""] if draw(st.booleans()) else block
    text = "\n".join(lines) + draw(st.sampled_from(["\n", ""]))
    encoding = draw(st.sampled_from(["utf-8", "utf-8", "utf-8", "utf-8-sig", "utf-16", "cp1252", "crlf"]))
    if encoding == "crlf":
        return text.replace("\n", "\r\n").encode("utf-8")
    return text.encode(encoding, errors="replace")


PATHS = st.tuples(
    st.sampled_from(["", "a/", "a/b/", "includes/"]),
    st.from_regex(r"[a-z0-9][a-z0-9._-]{0,7}", fullmatch=True),
    st.sampled_from([".md", ".md", ".txt"]),
).map("".join)

REGISTRY = st.one_of(
    st.none(),
    st.just('[[source]]\nmatch = "a/**"\nkind = "official_spec"\npublisher = "Microsoft"\ntrust = 0.9\n'),
    st.just("[[source]]\nkind = 7\ntrust = 2\n"),
    JUNK,
)


def line_count(data: bytes) -> int:
    """Lines of a file as the pipeline numbers them (`\\r\\n`, `\\r` and `\\n` each end a line)."""
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        text = data.decode("utf-16", errors="replace")
    else:
        text = data.decode("utf-8", errors="replace")
    return len(re.split(r"\r\n|\r|\n", text))


@settings(max_examples=EXAMPLES)
@given(st.dictionaries(PATHS, document(), min_size=1, max_size=4), REGISTRY)
def test_any_folder_of_documents_builds_and_every_diagnostic_points_at_a_real_line(
    files: dict[str, bytes], registry: str | None
) -> None:
    with tempfile.TemporaryDirectory(prefix="fuzz-") as tmp:
        sources = Path(tmp) / "sources"
        for rel, data in files.items():
            (sources / rel).parent.mkdir(parents=True, exist_ok=True)
            (sources / rel).write_bytes(data)
        if registry is not None:
            (sources / REGISTRY_FILE).write_text(registry, encoding="utf-8")
        result, frames = compute(sources)

    assert {d.path for d in result.documents} <= set(files)
    for d in result.diagnostics:
        assert d.document in files or d.document == REGISTRY_FILE, str(d)
        if d.line is not None and d.document in files:
            assert 1 <= d.line <= line_count(files[d.document]), str(d)
    for c in result.claims:
        assert 1 <= c.line <= line_count(files[c.document]), c
    assert len(frames["diagnostics"]) == len(result.diagnostics)
