"""The layer rule of docs/layout.md as a test: judges' subpackages drawn on floors from the import graph (imports
under `if TYPE_CHECKING:` and inside functions counted), each on the lowest floor above everything it imports; the
diagram in docs/layout.md is that drawing, and no subpackage imports one on its own floor or above.

`python tests/test_layers.py` prints the diagram drawn from the code (paste it into docs/layout.md)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from test_architecture import import_graph, package_graph

LAYOUT = Path(__file__).resolve().parent.parent / "docs" / "layout.md"
DIAGRAM = re.compile(r"The package in layers.*?```\n(.*?)```", re.S)


def subpackage_graph() -> dict[str, set[str]]:
    """Subpackage (or root module) -> those it imports: any import, TYPE_CHECKING and in-function ones included."""
    return package_graph(import_graph(type_only=True))


def floors(graph: dict[str, set[str]]) -> dict[str, int]:
    """Each node's floor: 0 for one that imports nothing, else one above the highest floor it imports (a cycle is
    the architecture test's to report; here it would recurse without end, so it is refused)."""
    found: dict[str, int] = {}

    def floor(node: str, path: tuple[str, ...]) -> int:
        if node in path:
            raise ValueError(f"import cycle: {' -> '.join((*path, node))}")
        if node not in found:
            found[node] = 1 + max((floor(t, (*path, node)) for t in graph.get(node, ())), default=-1)
        return found[node]

    for node in graph:
        floor(node, ())
    return found


def shown(node: str) -> str:
    """How a node is drawn: `cli/` for a subpackage, `errors.py` for a root module, `__init__.py` for the root."""
    if node == "judges":
        return "__init__.py"
    name = node.removeprefix("judges.")
    return f"{name}.py" if (LAYOUT.parent.parent / "judges" / f"{name}.py").is_file() else f"{name}/"


def diagram(graph: dict[str, set[str]]) -> str:
    """The floors, top first, each with its nodes in alphabetical order."""
    by_floor: dict[int, list[str]] = {}
    for node, floor in floors(graph).items():
        by_floor.setdefault(floor, []).append(shown(node))
    return "".join(f"{floor:>3}  {'  '.join(sorted(by_floor[floor]))}\n" for floor in sorted(by_floor, reverse=True))


def drawn(text: str) -> dict[str, int]:
    """The floor of each node in a drawn diagram."""
    return {name: int(floor) for line in text.splitlines() for floor, *names in [line.split()] for name in names}


def climbs(graph: dict[str, set[str]], floor_of: dict[str, int]) -> list[str]:
    """Each import of a node from a node on its own floor or above, as `importer -> imported (floor a -> b)`."""
    return [
        f"{importer} -> {target} (floor {floor_of[shown(importer)]} -> {floor_of[shown(target)]})"
        for importer, targets in sorted(graph.items())
        for target in sorted(targets)
        if floor_of[shown(importer)] <= floor_of[shown(target)]
    ]


def documented() -> str:
    found = DIAGRAM.search(LAYOUT.read_text(encoding="utf-8"))
    assert found is not None, "docs/layout.md has no diagram after 'The package in layers'"
    return found.group(1)


def test_floors_put_each_node_just_above_what_it_imports() -> None:
    graph = {"judges.cli": {"judges.api", "judges.errors"}, "judges.api": {"judges.errors"}, "judges.errors": set()}
    assert floors(graph) == {"judges.cli": 2, "judges.api": 1, "judges.errors": 0}
    assert diagram(graph) == "  2  cli/\n  1  api.py\n  0  errors.py\n"


def test_an_import_of_the_same_floor_or_above_is_a_climb() -> None:
    floor_of = {"render/": 7, "integrations/": 10, "cascade/": 10, "labelling/": 10}
    graph = {"judges.render": {"judges.integrations"}, "judges.cascade": {"judges.labelling"}}
    assert climbs(graph, floor_of) == [
        "judges.cascade -> judges.labelling (floor 10 -> 10)",
        "judges.render -> judges.integrations (floor 7 -> 10)",
    ]


def test_the_graph_read_for_the_layers_counts_type_checking_imports() -> None:
    assert "judges.api" in subpackage_graph()["judges"]  # judges/__init__.py names the API under TYPE_CHECKING only


def test_no_subpackage_imports_one_on_its_own_floor_or_above_as_drawn_in_docs_layout() -> None:
    floor_of = drawn(documented())
    graph = subpackage_graph()
    assert sorted({shown(node) for node in graph} - set(floor_of)) == []  # every subpackage is drawn
    assert climbs(graph, floor_of) == []


def test_the_diagram_in_docs_layout_is_drawn_from_the_code() -> None:
    assert documented() == diagram(subpackage_graph())


if __name__ == "__main__":
    sys.stdout.write(diagram(subpackage_graph()))
