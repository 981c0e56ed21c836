"""The package's layout as a test: no import cycle among judges' modules, no module over 300 lines, and no module
or test importing another module's private (`_`-prefixed) name.

Imports are read with `ast` from every module, at any depth: module level and inside functions (a lazy import
still ties two modules together, and is how cycles hide). Imports under `if TYPE_CHECKING:` are left out: they
never run, and annotations may name a type from a module that imports this one.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "judges"
MAX_LINES = 300
# `from judges.x import _y` allowed, as "importer: judges.x._y" with the reason it is needed; none is today
PRIVATE_IMPORTS_ALLOWED: dict[str, str] = {}


def modules() -> dict[str, Path]:
    """Dotted module name -> file, for every module of the package (a package is its __init__.py)."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _type_checking(node: ast.AST) -> bool:
    if not isinstance(node, ast.If):
        return False
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(node: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement under `node` that can run (the body of `if TYPE_CHECKING:` cannot)."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.Import, ast.ImportFrom)):
            yield child
        elif _type_checking(child):
            for branch in child.orelse:  # type: ignore[attr-defined]
                yield from _imports(branch)
        else:
            yield from _imports(child)


def _owner(name: str, known: dict[str, Path]) -> str | None:
    """The package module that `name` (a module, or a name defined in one) resolves to."""
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def import_graph() -> dict[str, set[str]]:
    """Module -> the package modules it imports (outside TYPE_CHECKING blocks)."""
    known = modules()
    graph: dict[str, set[str]] = {}
    for name, path in known.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        targets: set[str] = set()
        for node in _imports(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    base = ".".join([*anchor, *([base] if base else [])])
                names = [f"{base}.{alias.name}" for alias in node.names]
            for target in names:
                owner = _owner(target, known)
                if owner is not None and owner != name:
                    targets.add(owner)
        graph[name] = targets
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def test_the_graph_sees_lazy_imports_and_skips_type_checking_ones() -> None:
    graph = import_graph()
    assert "judges.runs.summary" in graph["judges.runs.service"]  # module level
    assert "judges.judging.factory" in graph["judges.api"]  # module level, `from x import y`
    assert "judges.runs.tasks" in graph["judges.api"]  # inside a function
    assert "judges.api" not in graph["judges"]  # under TYPE_CHECKING (and loaded by name at run time)


def test_cycle_finder_reports_each_cycle_once() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a", "e"}, "e": {"d"}, "f": set()}
    assert cycles(graph) == [["a", "b", "c"], ["d", "e"]]


def test_no_import_cycle_among_the_package_modules() -> None:
    assert cycles(import_graph()) == []


def test_no_module_over_300_lines() -> None:
    long = {
        name: n
        for name, path in modules().items()
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert long == {}


def private_imports(source: str, importer: str) -> list[str]:
    """`importer: judges.x._y` for each `from judges.x import _y` in `source`, at any depth (TYPE_CHECKING too: a
    private name is private to its module in annotations as well). Dunder names (`__version__`) are public."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and not node.level and (node.module or "").split(".")[0] == "judges":
            for alias in node.names:
                if alias.name.startswith("_") and not alias.name.startswith("__"):
                    found.append(f"{importer}: {node.module}.{alias.name}")
    return found


def test_the_private_import_finder_sees_a_private_name_at_any_depth() -> None:
    source = (
        "from judges.runs import api\nfrom judges import __version__\nfrom os import _exit\n"
        "def f():\n    from judges.api import run_config, _hidden\n"
    )
    assert private_imports(source, "m") == ["m: judges.api._hidden"]


def test_no_module_or_test_imports_another_modules_private_name() -> None:
    root = PACKAGE.parent
    found = [
        line
        for folder in ("judges", "tests", "benchmarks")
        for path in sorted((root / folder).rglob("*.py"))
        if ".venvs" not in path.parts
        for line in private_imports(path.read_text(encoding="utf-8"), str(path.relative_to(root)))
    ]
    assert [line for line in found if line not in PRIVATE_IMPORTS_ALLOWED] == []
