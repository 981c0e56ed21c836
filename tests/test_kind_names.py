"""No line of judges/ outside a run kind's own package names a run kind: the core, the pages, the viewer, labelling
and the comparisons ask the kind object (`judges.runs.kinds.kind_of`), never compare its name.

The kinds are the names judgelab's packages register (`judges.plugins.builtin_kinds`, their `KINDS` tables; so the
list cannot go stale), and a kind's own package is the package of its registered target (`judges.suite`, `judges.grading`, `judges.rag`, `judges.probes`),
plus the cascade's. Read with `ast` from every module and with a pattern from every page template, a line is
flagged when it
- names `RunKind` (the closed enum of built-in kinds this replaced);
- compares a kind's name with something named like a kind (`run.kind == "unit_tests"`, `kind in ("grade", ...)`);
- gives a kind's name to something named like a kind (`kind: str = "metrics"`, `GRADED_KINDS = ("grade", ...)`,
  `f(kind="probes")`);
- hands a kind's name to the run core's functions that take one (`summarize(records, "unit_tests")`, `Run(...)`).
A leaderboard's evaluation kinds (`kind = "unit_tests"` in a board's TOML) are the board config's vocabulary, not run
kinds: their module (`leaderboard/config_types.py`) and comparisons of `evaluation.kind` are not run-kind lines.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from judges.plugins import builtin_kinds

PACKAGE = Path(__file__).resolve().parent.parent / "judges"
KINDS = frozenset(builtin_kinds())
OWN = {target.split(":")[0].split(".")[1] for target in builtin_kinds().values()} | {"cascade"}
BOARD_VOCABULARY = {"leaderboard/config_types.py"}  # the board config's evaluation kinds
TAKES_A_KIND = {"summarize", "SummaryBuilder", "Run", "kind_of", "run_kind"}


def _kind_literal(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Constant) and n.value in KINDS for n in ast.walk(node))


def _kind_named(node: ast.AST) -> bool:
    text = ast.unparse(node)
    return "kind" in text.lower() and "evaluation.kind" not in text


def _findings(tree: ast.AST) -> list[int]:
    lines = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Name) and node.id == "RunKind") or (
            isinstance(node, ast.Attribute | ast.alias)
            and "RunKind" in (getattr(node, "attr", None), getattr(node, "name", None))
        ):
            lines.append(node.lineno)
        elif isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            if any(_kind_literal(o) for o in operands) and any(_kind_named(o) for o in operands):
                lines.append(node.lineno)
        elif isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(_kind_named(t) for t in targets) and _kind_literal(node.value):
                lines.append(node.lineno)
        elif isinstance(node, ast.Call):
            name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
            named = [k.value for k in node.keywords if k.arg and "kind" in k.arg.lower()]
            if (name in TAKES_A_KIND and any(_kind_literal(a) for a in node.args)) or any(map(_kind_literal, named)):
                lines.append(node.lineno)
    return sorted(set(lines))


def _checked(path: Path) -> bool:
    relative = path.relative_to(PACKAGE).as_posix()
    return relative.split("/")[0] not in OWN and relative not in BOARD_VOCABULARY


def kind_name_lines() -> list[str]:
    """Every flagged line of judges/, as `path:line: text`."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if _checked(path):
            text = path.read_text(encoding="utf-8")
            found += [
                f"{path.relative_to(PACKAGE)}:{n}: {text.splitlines()[n - 1].strip()}"
                for n in _findings(ast.parse(text))
            ]
    names = "|".join(re.escape(k) for k in sorted(KINDS))
    compared = re.compile(
        rf"kind\s*(==|!=|in|not in)\s*[(\[]?[^)\]]*[\"']({names})[\"']|[\"']({names})[\"']\s*(==|!=)\s*\S*kind"
    )
    for path in sorted(PACKAGE.rglob("*.jinja")):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if compared.search(line):
                found.append(f"{path.relative_to(PACKAGE)}:{n}: {line.strip()}")
    return found


def test_the_built_in_kinds_are_registered_as_plug_ins():
    assert {"unit_tests", "grade", "metrics", "probes"} <= KINDS
    assert {"suite", "grading", "rag", "probes", "cascade"} == OWN


def test_no_line_outside_a_kinds_own_package_names_a_run_kind():
    assert kind_name_lines() == []


@pytest.mark.parametrize(
    "line",
    [
        'if run.kind == "unit_tests":\n    pass',
        'unit = "test" if task.kind == RunKind.UNIT_TESTS else "sample"',
        'GRADED_KINDS = ("grade", "metrics")',
        'ok = run.kind not in ("grade", "metrics")',
        'kind: str = "probes"',
        'summary = summarize(records, "unit_tests")',
        'run = Run("metrics", {}, [], None)',
        'task = make(kind="grade")',
        "from judges.records.header import RunKind",
    ],
)
def test_each_way_of_naming_a_kind_is_caught(line):
    assert _findings(ast.parse(line)) != []


@pytest.mark.parametrize(
    "line",
    [
        'if verdict.state == "grade":\n    pass',
        'out["metrics"] = {}',
        'folder = bundled_dir("unit_tests")',
        'if evaluation.kind == "unit_tests":\n    pass',
        'row = ["metric", "state", "grade", "failure kind"]',
        'GROUPS = ("metrics", "probes", "kinds")',
    ],
)
def test_what_only_shares_a_kinds_word_is_not_caught(line):
    assert _findings(ast.parse(line)) == []


def test_a_kind_gives_its_own_traits_and_takes_the_defaults_for_the_rest(monkeypatch):
    from judges.runs import kinds
    from judges.runs.kinds import Kind, kind_of

    unit_tests, grade, metrics, probes = (kind_of(name) for name in ("unit_tests", "grade", "metrics", "probes"))
    assert (unit_tests.unit, unit_tests.not_passed) == ("test", ["wrong_grade", "failure"])
    assert [k.labelling for k in (unit_tests, grade, metrics, probes)] == [False, True, True, False]
    assert grade.judge_grades and not metrics.judge_grades
    assert probes.tally() is not None and unit_tests.tally() is not None and grade.tally() is None
    assert probes.item_headers and not unit_tests.item_headers and probes.type_label == "Probe"

    class Pages:  # a plug-in kind's object giving one trait and no part
        unit = "page"

    own = Kind("pages_read", Pages())
    assert (own.unit, own.labelling, own.tally(), own.type_label, own.filter_words) == (
        "page",
        False,
        None,
        "Test type",
        ("failed", "Only failures"),
    )
    assert own.references(None, {}) == [] and own.conclusion(None, {}) is None  # type: ignore[arg-type]
    assert own.markdown(None) is None and own.compare(None, None) is None  # type: ignore[arg-type]
    assert not hasattr(kinds.KindTraits, "outcomes")  # the unit-test kind's figures are its hooks, not a core flag
    monkeypatch.setattr(kinds, "names", lambda group: [])
    assert kind_of("unit_tests").tally() is None  # a name no package registers: every default
