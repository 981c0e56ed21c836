"""The unit-test kind is a plug-in like the others: no module of judges/ outside judges/suite/ imports its code.

What is unit-test code, precisely:
- the kind's code: `judges/suite/suite_kind.py` (the object its `judgelab.kinds` entry names) and every
  `judges/suite/outcome_*.py` (its summary part, tally, summary.md and report.html sections, result matrix, a test's
  row, its figures and its comparison by pass). Outside judges/suite/ no module imports these, nor names them in a
  string (a "module:attr" target, an `import_module` argument): the core, the pages, the viewer and the comparisons
  reach the kind only through `judges.runs.kinds.kind_of`, and the kind registers itself in `judges/suite/__init__.py`.
- the rest of judges/suite/ (loading tests, conditions, scoring, baselines, the unit-test task, drift, the tests not
  passed) is the suite's own API, imported only by the commands and entry points that run unit tests (`OWN_COMMANDS`,
  an exact list: a new importer fails here until it is added, so the core never starts depending on the suite).

Every import is read with `ast`: at module level, under `if TYPE_CHECKING:` and inside functions alike.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "judges"
SUITE = "judges.suite"
# the modules outside judges/suite/ that run unit tests, and so may use the suite's API (never the kind's code)
OWN_COMMANDS = {
    "judges.api",  # run_unit_tests, load_tests
    "judges.cli.check_tests_cmd",
    "judges.cli.leaderboard_cmd",
    "judges.cli.validate_cmd",  # the drift gate and the tests not passed
    "judges.integrations.junit",  # the gate's JUnit XML names the tests not passed
    "judges.integrations.pytest_plugin",
    "judges.leaderboard.jury",
    "judges.leaderboard.unit_test_entries",
    "judges.rag.grouse",  # the GroUSE metrics' pass/fail conditions
    "judges.tuning.tuning_report",  # a tuned prompt's pass rate on the unit tests, with its interval
}


def kind_code(module: str) -> bool:
    """Whether `module` (dotted) is the unit-test kind's own code."""
    if not module.startswith(SUITE + "."):
        return False
    leaf = module.split(".")[2]
    return leaf == "suite_kind" or leaf.startswith("outcome_")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(tree: ast.AST, module: str) -> list[tuple[int, str]]:
    """Every module an import names (each `from x import y` as x and x.y, relative imports resolved) and every
    string constant that names a judges module, with its line: at any depth of the tree."""
    found = []
    package = module.rsplit(".", 1)[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(
                    [*package.split(".")[: len(package.split(".")) - node.level + 1], *filter(None, [base])]
                )
            found.append((node.lineno, base))
            found += [(node.lineno, f"{base}.{alias.name}") for alias in node.names]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith(SUITE):
            found.append((node.lineno, node.value.split(":")[0].split()[0]))
    return found


def outside_suite() -> list[tuple[str, ast.AST]]:
    modules = []
    for path in sorted(PACKAGE.rglob("*.py")):
        name = module_name(path)
        if not name.startswith(SUITE + ".") and name != SUITE and "_bundled" not in path.parts:
            modules.append((name, ast.parse(path.read_text(encoding="utf-8"))))
    return modules


def test_no_module_outside_the_suite_imports_the_unit_test_kinds_code():
    found = [
        f"{name}:{line} {target}"
        for name, tree in outside_suite()
        for line, target in imported(tree, name)
        if kind_code(target)
    ]
    assert found == []


def test_only_the_commands_that_run_unit_tests_import_the_suite():
    importers = {
        name
        for name, tree in outside_suite()
        for _, target in imported(tree, name)
        if target == SUITE or target.startswith(SUITE + ".")
    }
    assert importers == OWN_COMMANDS


def test_the_reading_sees_imports_in_functions_under_type_checking_and_in_targets():
    source = """
from typing import TYPE_CHECKING
if TYPE_CHECKING:
    from judges.suite.outcome_summary import OutcomeSummary
def later():
    from judges.suite import suite_kind  # defers nothing
    import judges.suite.outcome_tally
TARGET = "judges.suite.outcome_report:result_matrix"
from .outcome_markdown import outcome_markdown
"""
    seen = [target for _, target in imported(ast.parse(source), "judges.suite.x")]
    assert {".".join(t.split(".")[:3]) for t in seen if kind_code(t)} == {
        "judges.suite.outcome_summary",  # under TYPE_CHECKING
        "judges.suite.suite_kind",  # in a function, `from package import module`
        "judges.suite.outcome_tally",  # in a function, `import a.b.c`
        "judges.suite.outcome_report",  # a "module:attr" target
        "judges.suite.outcome_markdown",  # a relative import, resolved
    }
    assert not kind_code("judges.suite.loading") and not kind_code("judges.runs.kinds")
