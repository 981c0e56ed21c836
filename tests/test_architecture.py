"""The package's layout as a test: no import cycle between judges' subpackages nor between its modules, no import
inside a function unless it defers a third-party import, no two modules of one name, no module over 300 lines, and
no module or test importing another module's private (`_`-prefixed) name.

Imports are read with `ast` from every module, at any depth: module level and inside functions (a lazy import still
ties two modules together, and is how cycles hide). Imports under `if TYPE_CHECKING:` are left out: they never run,
and annotations may name a type from a module that imports this one. A subpackage is `judges.<name>` with all its
modules; a module at the root (`judges.errors`, `judges.api`, ...) is a node of its own.
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterator
from functools import cache
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "judges"
MAX_LINES = 300
# `from judges.x import _y` allowed, as "importer: judges.x._y" with the reason it is needed; none is today
PRIVATE_IMPORTS_ALLOWED: dict[str, str] = {}
NOT_HEAVY = {"typing_extensions"}  # third-party, but too small to be worth deferring
DEFERS = re.compile(r"defers ([A-Za-z_][\w.]*)")


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


def imports(
    node: ast.AST, in_function: bool = False, *, type_only: bool = False
) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
    """Every import statement under `node` that can run (the body of `if TYPE_CHECKING:` cannot; with `type_only` it
    counts too), and whether it sits inside a function (a class body runs at import time, like the module's)."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.Import, ast.ImportFrom)):
            yield child, in_function
        elif _type_checking(child):
            for branch in [*(child.body if type_only else []), *child.orelse]:  # type: ignore[attr-defined]
                yield from imports(ast.Module([branch], []), in_function, type_only=type_only)
        else:
            inner = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            yield from imports(child, inner, type_only=type_only)


def _owner(name: str, known: dict[str, Path]) -> str | None:
    """The package module that `name` (a module, or a name defined in one) resolves to."""
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def targets(node: ast.Import | ast.ImportFrom, importer: str, known: dict[str, Path]) -> tuple[set[str], set[str]]:
    """The package modules an import statement of `importer` loads, and the third-party top-level modules."""
    is_package = importer in known and known[importer].name == "__init__.py"
    package = importer if is_package else importer.rpartition(".")[0]
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        base = node.module or ""
        if node.level:
            anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
            base = ".".join([*anchor, *([base] if base else [])])
        names = [f"{base}.{alias.name}" for alias in node.names]
    internal, external = set(), set()
    for target in names:
        root = target.split(".")[0]
        if root == "judges":
            owner = _owner(target, known)
            if owner is not None and owner != importer:
                internal.add(owner)
        elif root not in sys.stdlib_module_names and root != "__future__":
            external.add(root)
    return internal, external


@cache
def parsed() -> dict[str, tuple[ast.Module, list[str]]]:
    """Module -> its syntax tree and its lines (read once per test session)."""
    return {
        name: (ast.parse(text := path.read_text(encoding="utf-8")), text.splitlines())
        for name, path in modules().items()
    }


def import_graph(*, at_import_only: bool = False, type_only: bool = False) -> dict[str, set[str]]:
    """Module -> the package modules it imports (outside TYPE_CHECKING blocks unless `type_only`; only those run at
    import time when `at_import_only`, with the packages above it, which Python runs first)."""
    known = modules()
    graph: dict[str, set[str]] = {}
    for name, (tree, _) in parsed().items():
        found: set[str] = set()
        for node, in_function in imports(tree, type_only=type_only):
            if not (at_import_only and in_function):
                found |= targets(node, name, known)[0]
        if at_import_only:
            found |= {parent for i in range(1, name.count(".") + 1) if (parent := name.rsplit(".", i)[0]) != name}
        graph[name] = found - {name}
    return graph


def package_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The module graph folded onto subpackages (an import inside one subpackage is no edge)."""

    def subpackage(module: str) -> str:  # judges.runs.service -> judges.runs; a root module is its own node
        return ".".join(module.split(".")[:2])

    folded: dict[str, set[str]] = {}
    for module, imported in graph.items():
        edges = folded.setdefault(subpackage(module), set())
        edges |= {subpackage(target) for target in imported} - {subpackage(module)}
    return folded


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan), each sorted."""
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


@cache
def loads_at_import() -> dict[str, frozenset[str]]:
    """Module -> the third-party modules importing it loads: its own module-level imports and those of every package
    module it imports at module level, transitively."""
    known, graph = modules(), import_graph(at_import_only=True)
    direct = {
        name: {x for node, inner in imports(tree) if not inner for x in targets(node, name, known)[1]} - NOT_HEAVY
        for name, (tree, _) in parsed().items()
    }
    done: dict[str, frozenset[str]] = {}

    def visit(name: str, seen: frozenset[str]) -> frozenset[str]:
        if name not in done:
            found = set(direct[name])
            for target in graph[name] - seen:
                found |= visit(target, seen | {name})
            done[name] = frozenset(found)
        return done[name]

    for name in known:
        visit(name, frozenset())
    return done


def unjustified(name: str, tree: ast.Module, lines: list[str]) -> list[str]:
    """`module:line` for each package import inside a function of `name` whose comment does not name (`defers
    numpy`) a third-party module that importing its target at module level would load and that the importer does not
    already load: an import deferred for nothing is a cycle hidden or a dependency kept out of sight."""
    known, loads = modules(), loads_at_import()
    found = []
    for node, in_function in imports(tree):
        internal = targets(node, name, known)[0]
        if not in_function or not internal:
            continue
        comment = " ".join(lines[node.lineno - 1 : node.end_lineno or node.lineno])
        named = {n.split(".")[0] for n in DEFERS.findall(comment.partition("#")[2])}
        deferred = set().union(*(loads[t] for t in internal)) - loads.get(name, frozenset())
        if not named & deferred:
            found.append(f"{name}:{node.lineno} defers {sorted(deferred) or 'nothing'}")
    return found


def test_the_graph_sees_lazy_imports_and_skips_type_checking_ones() -> None:
    graph = import_graph()
    assert "judges.runs.summarizer" in graph["judges.runs.service"]  # module level
    assert "judges.judging.factory" in graph["judges.api"]  # module level, `from x import y`
    assert "judges.rag.rag_session" in graph["judges.api"]  # inside a function
    assert "judges.api" not in graph["judges"]  # under TYPE_CHECKING (and loaded by name at run time)
    assert "judges.rag.rag_session" not in import_graph(at_import_only=True)["judges.api"]


def test_cycle_finder_reports_each_cycle_once_and_modules_fold_onto_subpackages() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a", "e"}, "e": {"d"}, "f": set()}
    assert cycles(graph) == [["a", "b", "c"], ["d", "e"]]
    graph = {"judges.a.x": {"judges.b.y", "judges.a.z"}, "judges.b.y": {"judges.errors"}, "judges.a.z": set()}
    assert package_graph(graph) == {"judges.a": {"judges.b"}, "judges.b": {"judges.errors"}}
    assert cycles(package_graph({**graph, "judges.b.w": {"judges.a.z"}})) == [["judges.a", "judges.b"]]


def test_no_import_cycle_between_subpackages_nor_between_modules() -> None:
    assert cycles(package_graph(import_graph())) == [] and cycles(import_graph()) == []


def test_no_import_cycle_counting_type_only_imports() -> None:  # a type of a higher layer is a knot too
    graph = import_graph(type_only=True)
    assert "judges.api" in graph["judges"]  # under TYPE_CHECKING, counted here
    assert cycles(package_graph(graph)) == [] and cycles(graph) == []


def test_the_deferral_check_knows_what_a_target_loads() -> None:
    loads = loads_at_import()
    assert "pydantic" in loads["judges.config.judge"]  # its own module-level import
    assert "pydantic" in loads["judges.api"]  # through judges.config.judge
    assert "numpy" in loads["judges.rag.embeddings"] and "numpy" not in loads["judges.api"]
    assert loads["judges.errors"] == frozenset()


def test_an_import_inside_a_function_needs_the_name_of_what_it_defers() -> None:
    source = (
        "def f():\n"
        "    from judges.rag.embeddings import open_embedder  # defers numpy\n"
        "    from judges.rag.embeddings import open_embedder\n"
        "    from judges.rag.embeddings import open_embedder  # defers pandas\n"
        "    from judges.errors import ConfigError  # defers numpy\n"
        "    import json\n"
    )
    assert unjustified("m", ast.parse(source), source.splitlines()) == [
        "m:3 defers ['numpy']",
        "m:4 defers ['numpy']",
        "m:5 defers nothing",
    ]


def test_every_import_inside_a_function_defers_a_third_party_import() -> None:
    assert [line for name, (tree, lines) in parsed().items() for line in unjustified(name, tree, lines)] == []


def test_no_two_modules_share_a_name() -> None:  # `report_html.py`, not a third `report.py` (__init__ aside)
    named = [path.name for path in modules().values() if path.name != "__init__.py"]
    assert sorted({file for file in named if named.count(file) > 1}) == []


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
        "from judges.runs import service\nfrom judges import __version__\nfrom os import _exit\n"
        "def f():\n    from judges.api import load_tests, _hidden\n"
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


MAX_FUNCTION_LINES = 80
# "path:function" of functions still over MAX_FUNCTION_LINES, each with why it is allowed for now: none today
LONG_FUNCTIONS_ALLOWED: set[str] = set()


def long_functions(source: str, where: str) -> list[str]:
    """`where:name` for each function or method in `source`, nested ones too, longer than MAX_FUNCTION_LINES."""
    return [
        f"{where}:{node.name}"
        for node in ast.walk(ast.parse(source))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        and (node.end_lineno or node.lineno) - node.lineno + 1 > MAX_FUNCTION_LINES
    ]


def test_the_long_function_finder_counts_nested_functions_and_methods() -> None:
    def body(indent: int, lines: int) -> str:
        return "".join(" " * indent + f"x{i} = {i}\n" for i in range(lines))

    source = "def short():\n" + body(4, MAX_FUNCTION_LINES - 1) + "class C:\n    async def long(self):\n"
    source += body(8, MAX_FUNCTION_LINES)  # the def line makes it one over
    nested = "def outer():\n    def inner():\n" + body(8, MAX_FUNCTION_LINES)
    assert long_functions(source, "m") == ["m:long"]
    assert long_functions(nested, "m") == ["m:outer", "m:inner"]


def test_no_function_over_80_lines() -> None:
    root = PACKAGE.parent
    found = [
        line
        for path in sorted(PACKAGE.rglob("*.py"))
        for line in long_functions(path.read_text(encoding="utf-8"), path.relative_to(root).as_posix())
    ]
    assert [line for line in found if line not in LONG_FUNCTIONS_ALLOWED] == []
    assert sorted(LONG_FUNCTIONS_ALLOWED - set(found)) == []  # an entry that no longer applies is removed


def test_measuring_agreement_runs_in_stages_of_at_most_60_lines() -> None:
    stages = [PACKAGE / "agreement" / "measure.py", PACKAGE / "agreement" / "threshold_fit.py"]
    lengths = {
        node.name: (node.end_lineno or node.lineno) - node.lineno + 1
        for path in stages
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    }
    assert "measure" in lengths and {name: n for name, n in lengths.items() if n > 60} == {}
