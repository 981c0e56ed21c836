"""judgelab's commands are declared once (name, module, help line) in judges/cli/command_table.py, and the CLI is
built from that table; a package whose entry point takes a built-in command's name is refused in one line."""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import pytest
from conftest import ROOT

from judges import plugins
from judges.cli.command_table import COMMANDS
from judges.cli.main import build_parser, main

CLI = ROOT / "judges" / "cli"


@pytest.fixture(autouse=True)
def fresh_registry():
    """The registries read again from the metadata (a test may add a package to sys.path), before and after."""
    plugins.entries.cache_clear()
    plugins._warn_once.cache_clear()
    yield
    plugins.entries.cache_clear()
    plugins._warn_once.cache_clear()


def test_each_command_is_declared_once_with_a_module_and_a_help_line() -> None:
    names = [command.name for command in COMMANDS]
    modules = [command.module for command in COMMANDS]
    assert len(set(names)) == len(names) and len(set(modules)) == len(modules)
    assert all(command.help and "\n" not in command.help for command in COMMANDS)
    for command in COMMANDS:  # the module exists and is a command, found without importing it
        spec = importlib.util.find_spec(command.module)
        assert spec is not None and spec.origin is not None, command.module
        tree = ast.parse(Path(spec.origin).read_text(encoding="utf-8"))
        defined = {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}
        assigned = {
            t.id for node in tree.body if isinstance(node, ast.Assign) for t in node.targets if hasattr(t, "id")
        }
        assert {"configure", "run"} <= defined, command.module
        assert "HELP" not in assigned, f"{command.module} declares its help line again"


def test_every_command_module_of_the_cli_is_in_the_table() -> None:
    configured = {
        f"judges.cli.{path.stem}"
        for path in CLI.glob("*.py")
        if any(
            isinstance(node, ast.FunctionDef) and node.name == "configure"
            for node in ast.parse(path.read_text(encoding="utf-8")).body
        )
    }
    assert configured == {command.module for command in COMMANDS}


def test_the_cli_is_built_from_the_table_in_its_order_with_its_help_lines(capsys) -> None:
    assert plugins.names("commands") == [command.name for command in COMMANDS]
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    assert list(sub.choices) == [command.name for command in COMMANDS]
    shown = {action.dest: action.help for action in sub._choices_actions}
    assert shown == {command.name: command.help for command in COMMANDS}
    assert {name: parser.description for name, parser in sub.choices.items()} == shown


def shadowing_package(tmp_path: Path) -> Path:
    """`judgelab-shadow` 0.1, whose entry point takes the name of the built-in `evaluate`, beside a command of its
    own, `shade`."""
    site = tmp_path / "site"
    info = site / "judgelab_shadow-0.1.dist-info"
    info.mkdir(parents=True)
    (site / "judgelab_shadow.py").write_text(
        "def configure(parser):\n    pass\n\ndef run(args):\n    print('the shadow ran')\n    return 0\n",
        encoding="utf-8",
    )
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: judgelab-shadow\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(
        "[judgelab.commands]\nevaluate = judgelab_shadow\nshade = judgelab_shadow\n", encoding="utf-8"
    )
    return site


def test_a_package_command_named_as_a_built_in_is_refused_in_one_line_naming_both(tmp_path, monkeypatch, capsys):
    monkeypatch.syspath_prepend(str(shadowing_package(tmp_path)))
    assert main(["shade"]) == 0  # its own name works
    captured = capsys.readouterr()
    assert captured.out == "the shadow ran\n"
    assert captured.err == (
        "judgelab: warning: package judgelab-shadow 0.1, entry point judgelab.commands 'evaluate' (judgelab_shadow) "
        "refused: 'evaluate' is judgelab's built-in command (judges.cli.evaluate_cmd), which is kept\n"
    )
    assert plugins.entries("commands")["evaluate"] == plugins.Entry("commands", "evaluate", "judges.cli.evaluate_cmd")
    with pytest.raises(SystemExit, match="0"):
        main(["evaluate", "--help"])  # the built-in's help and options, not the package's empty parser
    shown = capsys.readouterr().out
    assert "grade your own grounded-QA JSONL with a judge (no conditions)" in shown and "--limit" in shown
