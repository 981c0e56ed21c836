"""CONTRIBUTING.md's three recipes, done word for word: each reads the recipe's code blocks from the page, writes them
where the recipe says (a copy of the repository, or an installed package's folder), touching no other file, and
checks that judgelab's own commands then show the new metric family, run kind or statistic."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

from conftest import ROOT, hang_guard

GUIDE = ROOT / "CONTRIBUTING.md"
HELPERS = sorted(p.name for p in (ROOT / "tests").glob("*.py") if not p.name.startswith("test_"))  # conftest, ...
BLOCK = re.compile(r"^```\w+ file=(\S+)\n(.*?)^```$", re.MULTILINE | re.DOTALL)


def blocks() -> dict[str, str]:
    """Each code block of CONTRIBUTING.md by the `file=` it names (a path, or path:part for a piece of a file)."""
    found = {name: text for name, text in BLOCK.findall(GUIDE.read_text(encoding="utf-8"))}
    assert len(found) == len(BLOCK.findall(GUIDE.read_text(encoding="utf-8"))), "two blocks name the same file"
    return found


def repository_copy(tmp_path: Path) -> Path:
    """The package, its prompts and the tests' helpers (conftest and the modules it and the RAG tests import)."""
    copy = tmp_path / "repo"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for folder in ("judges", "prompts"):
        shutil.copytree(ROOT / folder, copy / folder, ignore=ignore)
    (copy / "tests").mkdir()
    for helper in HELPERS:
        shutil.copy(ROOT / "tests" / helper, copy / "tests" / helper)
    return copy


def changed_files(copy: Path) -> set[str]:
    """The files of the copy that differ from the repository's or are new (the helpers copied in left out)."""
    changed = set()
    for path in copy.rglob("*"):
        relative = path.relative_to(copy).as_posix()
        if path.is_dir() or "__pycache__" in relative or relative.removeprefix("tests/") in HELPERS:
            continue
        original = ROOT / relative
        if not original.is_file() or original.read_bytes() != path.read_bytes():
            changed.add(relative)
    return changed


def python(copy_or_site: list[Path], *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(str(p) for p in copy_or_site)}
    env.pop("JUDGELAB_DATA", None)  # the copy's own prompts/
    command = [sys.executable, *args]
    return subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True, timeout=hang_guard())


def test_the_metric_family_recipe_adds_a_listed_metric_whose_own_test_passes(tmp_path: Path) -> None:
    recipe = {name: text for name, text in blocks().items() if "brevity" in name}
    assert set(recipe) == {
        "prompts/rag/brevity_concise.txt.jinja",
        "judges/rag/brevity.py",
        "judges/rag/brevity_specs.py",
        "tests/test_rag_brevity.py",
    }
    copy = repository_copy(tmp_path)
    for name, text in recipe.items():
        (copy / name).write_text(text, encoding="utf-8")
    assert changed_files(copy) == set(recipe)
    listed = python([copy], "-m", "judges.cli.main", "metrics", "--list", cwd=copy)
    assert listed.returncode == 0, listed.stderr
    line = next(line for line in listed.stdout.splitlines() if line.startswith("brevity_concise "))
    assert line.split()[1:4] == ["brevity", "needs", "input,actual_output"]
    assert line.rstrip().endswith("yes = 1: says what is asked, no more")
    own = python([copy], "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_rag_brevity.py", cwd=copy)
    assert own.returncode == 0 and "1 passed" in own.stdout, own.stdout + own.stderr


def test_the_run_kind_recipe_adds_a_command_whose_runs_carry_the_kind_part_and_section(tmp_path: Path) -> None:
    recipe = blocks()
    module, entry_points = recipe["judgelab_lengths.py"], tomllib.loads(recipe["pyproject.toml"])
    site = tmp_path / "site"  # the package as pip installs it: its module and its metadata
    info = site / "judgelab_lengths-0.1.dist-info"
    info.mkdir(parents=True)
    (site / "judgelab_lengths.py").write_text(module, encoding="utf-8")
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: judgelab-lengths\nVersion: 0.1\n", encoding="utf-8")
    groups = entry_points["project"]["entry-points"]
    text = "".join(
        f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in names.items()) for group, names in groups.items()
    )
    (info / "entry_points.txt").write_text(text, encoding="utf-8")
    data = tmp_path / "answers.jsonl"
    data.write_text('{"id": "a", "actual_output": "twelve chars"}\n{"id": "b", "actual_output": "short"}\n')
    out = tmp_path / "runs" / "lengths"

    def judgelab(*args: str) -> subprocess.CompletedProcess[str]:
        return python([ROOT, site], "-m", "judges.cli.main", *args, cwd=tmp_path)

    assert "lengths" in judgelab("--help").stdout
    done = judgelab("lengths", str(data), "--out", str(out))
    assert done.returncode == 0, done.stderr
    meta = json.loads((out / "run.json").read_text())
    assert meta["kind"] == "lengths" and meta["summary"]["lengths"] == {"longest": 12, "answers": 2}
    assert "The longest of 2 answers has 12 characters." in (out / "summary.md").read_text()
    assert "Answer lengths" in (out / "report.html").read_text()
    shown = judgelab("show", str(out), "--print")
    assert shown.returncode == 0 and "The longest of 2 answers has 12 characters." in shown.stdout


def with_statistic(index: str, recipe: dict[str, str]) -> str:
    """statistic_index.py as the recipe says: numpy imported, the functions above STATISTICS, the descriptor last."""
    imports, functions = (
        recipe["judges/agreement/statistic_index.py:imports"],
        recipe["judges/agreement/statistic_index.py:functions"],
    )
    descriptor = recipe["judges/agreement/statistic_index.py:descriptor"]
    first_import = "from judges.agreement import chance\n"
    assert index.count(first_import) == index.count("\nSTATISTICS = (\n") == index.count("\n)\nINDEX = ") == 1
    index = index.replace(first_import, imports + "\n" + first_import)
    index = index.replace("\nSTATISTICS = (\n", "\n" + functions + "\n\nSTATISTICS = (\n")
    return index.replace("\n)\nINDEX = ", "\n" + descriptor.rstrip("\n") + "\n)\nINDEX = ")


def test_the_statistic_recipe_adds_a_figure_to_the_agreement_report_and_the_board(tmp_path: Path) -> None:
    recipe = blocks()
    copy = repository_copy(tmp_path)
    index = copy / "judges/agreement/statistic_index.py"
    index.write_text(with_statistic(index.read_text(encoding="utf-8"), recipe), encoding="utf-8")
    (copy / "tests/test_agreement_accuracy.py").write_text(recipe["tests/test_agreement_accuracy.py"], encoding="utf-8")
    assert changed_files(copy) == {"judges/agreement/statistic_index.py", "tests/test_agreement_accuracy.py"}
    own = python([copy], "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_agreement_accuracy.py", cwd=copy)
    assert own.returncode == 0 and "1 passed" in own.stdout, own.stdout + own.stderr

    labels, predictions = tmp_path / "labels.jsonl", tmp_path / "judge.jsonl"
    said = [(1, 1), (1, 0), (0, 0), (0, 0), (1, 1), (0, 1), (1, 1), (0, 0), (1, 1), (0, 0)]  # right on 8 of 10
    labels.write_text("".join(json.dumps({"id": str(n), "label": h}) + "\n" for n, (h, _) in enumerate(said)))
    predictions.write_text("".join(json.dumps({"id": str(n), "score": j}) + "\n" for n, (_, j) in enumerate(said)))
    out = tmp_path / "agreement"
    argv = ["agreement", "--labels", str(labels), "--label-type", "binary", "--metric", "faithfulness"]
    done = python(
        [copy], "-m", "judges.cli.main", *argv, "--predictions", str(predictions), "--out", str(out), cwd=copy
    )
    assert done.returncode == 0, done.stderr
    report = json.loads((out / "agreement.json").read_text())
    figures = {f["statistic"]: f for f in report["metrics"]["faithfulness"]["judge"]}
    assert list(figures)[-1] == "accuracy" and figures["accuracy"]["value"] == 0.8
    assert "| accuracy " in (out / "agreement.md").read_text()
    board = "from judges.leaderboard.columns import chance, label_statistics as s; print(chance('accuracy'), 'accuracy' in s())"
    assert python([copy], "-c", board, cwd=copy).stdout.split() == ["0.5", "True"]
