"""Text as the outputs write it (pipeline/outputs/text.py): a Markdown table cell, and the
references of a table paired with their permalinks."""

from __future__ import annotations

from typing import Any

import pandas as pd
import pytest

from pipeline.outputs.text import cell, permalinks


@pytest.mark.parametrize(
    ("text", "markup", "expected"),
    [
        ("a | b\nc \\ d", True, "a \\| b c \\\\ d"),
        ("`vcpus` of *each* [size]", True, "`vcpus` of *each* [size]"),  # the pipeline's own markup stays
        ("`vcpus` of *each* [size] <b>&", False, "\\`vcpus\\` of \\*each\\* \\[size\\] &lt;b&gt;&amp;"),
        ("Standard_NC6", False, "Standard\\_NC6"),
        (None, False, ""),
        (pd.NA, False, ""),
        ("", True, ""),
    ],
)
def test_a_cell_escapes_what_would_break_its_row_and_a_documents_markup(text: Any, markup: bool, expected: str) -> None:
    assert cell(text, markup=markup) == expected


URL = f"https://github.com/o/r/blob/{'0' * 40}/b.md"


@pytest.mark.parametrize(
    ("refs", "links", "expected"),
    [
        ("a.md:12; b.md:12", f"; {URL}#L12", [("a.md:12", None), ("b.md:12", f"{URL}#L12")]),
        ("b.md:12; a.md:12", f"{URL}#L12; ", [("b.md:12", f"{URL}#L12"), ("a.md:12", None)]),
        ("a.md:12; a.md:13", None, [("a.md:12", None), ("a.md:13", None)]),
        ("a.md:12; b.md:12", f"{URL}#L12", [("a.md:12", None), ("b.md:12", None)]),  # not lined up: none
        (pd.NA, pd.NA, []),
    ],
)
def test_each_reference_is_paired_with_the_link_in_its_place(
    refs: Any, links: Any, expected: list[tuple[str, str | None]]
) -> None:
    assert permalinks(refs, links) == expected
