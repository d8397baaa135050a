"""The house rules a newcomer relies on to find their room (issue 65): no function over 100
lines, no module over 900, no two modules of `pipeline` importing each other, even by a ring."""

from __future__ import annotations

import ast
import graphlib
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "pipeline"
MAX_FUNCTION_LINES = 100
MAX_MODULE_LINES = 900


def modules(package: Path) -> dict[str, Path]:
    """Each module's dotted name (a package by its own name, not `__init__`) and its file."""
    found: dict[str, Path] = {}
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(package.parent).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The modules of the package `name` imports anywhere in its file, with the packages that
    importing them imports first (`a.b.c` runs `a.b`'s `__init__`)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    named: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            named.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{base}" if base else anchor
            named.update(f"{base}.{alias.name}" for alias in node.names)
            named.add(base)
    reached: set[str] = set()
    for dotted in named:
        parts = dotted.split(".")
        for end in range(2, len(parts) + 1):
            parent = ".".join(parts[:end])
            if parent in known and parent != name and not name.startswith(parent + "."):
                reached.add(parent)
    return reached


def circle(package: Path) -> list[str]:
    """A ring of modules that import each other, or none."""
    known = modules(package)
    graph = {name: imports(name, path, known) for name, path in known.items()}
    try:
        tuple(graphlib.TopologicalSorter(graph).static_order())
    except graphlib.CycleError as error:
        return list(error.args[1])
    return []


def test_no_function_is_over_100_lines() -> None:
    long = [
        f"{path.relative_to(PACKAGE.parent)}:{node.lineno} {node.name} ({length} lines)"
        for path in modules(PACKAGE).values()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and (length := (node.end_lineno or node.lineno) - node.lineno + 1) > MAX_FUNCTION_LINES
    ]
    assert long == []


def test_no_module_is_over_900_lines() -> None:
    long = [
        f"{path.relative_to(PACKAGE.parent)} ({lines} lines)"
        for path in modules(PACKAGE).values()
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    ]
    assert long == []


def test_no_modules_import_each_other() -> None:
    assert circle(PACKAGE) == []


@pytest.mark.parametrize(
    ("files", "ring"),
    [
        pytest.param(
            {"a.py": "from pkg import b\n", "b.py": "import pkg.a\n"},
            {"pkg.a", "pkg.b"},
            id="two modules, absolute imports",
        ),
        pytest.param(
            {
                "stage/__init__.py": "from pkg.stage.rules import RULE\n",
                "stage/rules.py": "def late() -> None:\n    from pkg.calibrate import fit\n",
                "calibrate.py": "from pkg.stage import votes\n",
            },
            {"pkg.stage", "pkg.calibrate", "pkg.stage.rules"},
            id="a ring through a package and an import inside a function",
        ),
        pytest.param(
            {"x/__init__.py": "", "x/one.py": "from . import two\n", "x/two.py": "from .one import f\n"},
            {"pkg.x.one", "pkg.x.two"},
            id="relative imports",
        ),
        pytest.param(
            {"x/__init__.py": "from pkg.x.one import f\n", "x/one.py": "import json\n"},
            set(),
            id="a package importing its own module is no ring",
        ),
    ],
)
def test_the_circle_check_finds_rings(tmp_path: Path, files: dict[str, str], ring: set[str]) -> None:
    package = tmp_path / "pkg"
    for name, text in {"__init__.py": "", **files}.items():
        (package / name).parent.mkdir(parents=True, exist_ok=True)
        (package / name).write_text(text, encoding="utf-8")
    assert set(circle(package)) == ring
