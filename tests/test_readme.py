"""The README: under 260 lines, every docs/ page linked, and the file names it lists are those a real run writes
(a run of `evaluate` and `meta-eval` against the loopback stub, the labelling commands on scripted runs)."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest
from conftest import ROOT, hang_guard, write_jsonl
from labelling_helpers import graded_run, samples_file
from stub import stub_server

from judges.cli.main import main

README = (ROOT / "README.md").read_text(encoding="utf-8")
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "OPENAI_API_KEY": "sk-fake"}


def row(command: str) -> str:
    """The README's command-table row for `command` (e.g. "judgelab evaluate")."""
    [line] = [line for line in README.splitlines() if line.startswith(f"| `{command} ")]
    return line


def written(command: str) -> set[str]:
    """The file names the last cell of a command's row lists (backticked names with an extension)."""
    cell = row(command).rstrip(" |").rsplit(" | ", 1)[1]
    return {n.split("/")[-1] for n in re.findall(r"`([^`]+\.[a-z]+)`", cell)}


def test_the_readme_is_short_and_links_every_docs_page():
    assert len(README.splitlines()) < 260  # the leaderboard section shows the first rows of a committed board
    linked = set(re.findall(r"\]\((docs/[^)]+\.md)\)", README))
    assert all((ROOT / link).is_file() for link in linked), linked
    assert {f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md")} <= linked


def test_the_test_command_is_the_one_ci_runs():
    ci = (ROOT / ".ci" / "run").read_text().splitlines()[-1]
    assert f"```bash\n{ci}\n```" in README and ci.endswith("&& python -m pytest")


@pytest.mark.parametrize("command", ["evaluate", "meta-eval"])
def test_run_folder_names_match_a_real_run(tmp_path, command):
    data = write_jsonl(
        tmp_path / "mine.jsonl",
        [{"id": "a", "input": "Q?", "references": ["R."], "expected_output": "E [1].", "actual_output": "A [1]."}],
    )
    target = [str(data)] if command == "evaluate" else ["--limit", "2"]
    with stub_server(latency_ms=1) as base:
        result = subprocess.run(
            [sys.executable, "-m", "judges.cli.main", command, *target, "--judge", "openai/stub", "--api-base", base,
             "--out", str(tmp_path / "run"), "--cache", str(tmp_path / "c.sqlite"), "--quiet"],
            capture_output=True, text=True, env=ENV, cwd=tmp_path, timeout=hang_guard(),
        )  # fmt: skip
    assert result.returncode == 0, result.stderr[-2000:]
    files = {p.name for p in (tmp_path / "run").iterdir()}
    listed = written(f"judgelab {command}") - {"result_matrix.png"}  # drawn only with --plot
    assert files == listed == {"results.jsonl", "run.json", "summary.md", "report.html"}
    line = f"wrote {tmp_path / 'run'}/results.jsonl, run.json, summary.md, report.html"
    assert line in result.stdout.splitlines()
    assert "`wrote <folder>/results.jsonl, run.json, summary.md, report.html`" in " ".join(README.split())


def test_labelling_file_names_match_the_commands(tmp_path, capsys):
    data = samples_file(tmp_path / "samples.jsonl", n=12)
    runs = [graded_run(tmp_path / name, data, name, lambda _, g=grade: g) for name, grade in (("a", 1), ("b", 0))]
    queue = tmp_path / "QUEUE.jsonl"
    assert main(["label", "select", *map(str, runs), "--n", "4", "--out", str(queue)]) == 0
    assert written("judgelab label select") == {"QUEUE.jsonl", "QUEUE.md"}
    assert {p.name for p in tmp_path.glob("QUEUE*")} == {"QUEUE.jsonl", "QUEUE.md"}
    names = written("judgelab label export")
    for tool, companion in (("label-studio", "NAME.label_config.xml"), ("argilla", "NAME.settings.json")):
        folder = tmp_path / tool
        folder.mkdir()
        out = folder / "NAME.json"
        code = main(["label", "export", str(queue), "--format", tool, "--metric", "faithfulness", "--out", str(out)])
        assert code == 0
        assert {p.name for p in folder.iterdir()} == {"NAME.json", companion} and companion in names


def test_the_baseline_table_in_the_docs_is_what_check_tests_prints(capsys):
    """docs/metrics.md's discrimination table, row by row, as `judgelab check-tests unit_tests/ --baselines` prints."""
    from conftest import compact

    assert main(["check-tests", str(ROOT / "unit_tests"), "--baselines"]) == 0
    printed = compact(capsys.readouterr().out)
    docs = (ROOT / "docs" / "metrics.md").read_text(encoding="utf-8")
    rows = [line for line in docs.splitlines() if re.match(r"\| (oracle|always-\w+|random) \|", line)]
    assert len(rows) == 5
    for line in rows:
        assert compact(line.replace("|", " | ")).strip() in printed, line
