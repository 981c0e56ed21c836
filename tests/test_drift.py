"""Drift: `validate --baseline` and `compare` pair two runs' outcomes (McNemar's exact test, the paired difference
and both fingerprints); the pytest plugin's `baseline` key."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT, hang_guard, record, reply, write_jsonl
from stub import stub_server

from judges.calls.cache import CacheMode, ReplyCache
from judges.calls.model_spec import JudgeModel
from judges.calls.runtime import CallRuntime, RuntimeSettings
from judges.calls.scripted import ScriptedBackend
from judges.cli.validate_cmd import check_drift
from judges.judging.grouse_judge import GroundedQAJudge
from judges.judging.prompts import load_prompt_set
from judges.runs.run import Run
from judges.runs.run_config import RunConfig
from judges.runs.run_writer import FolderRecorder
from judges.runs.service import run_task
from judges.suite.drift import drift, drift_lines
from judges.suite.loading import load_unit_tests
from judges.suite.unit_test_task import UnitTestTask

ENV = {**os.environ, "PYTHONPATH": str(ROOT), "OPENAI_API_KEY": "sk-fake"}
LOST = {3, 7, 11, 19, 23, 29}  # the six tests the drifted judge gets wrong


def unit_test_file(tmp_path: Path) -> Path:
    records = [record(id=f"t{n}", input=f"How long is statutory maternity leave? (case {n})") for n in range(32)]
    return write_jsonl(tmp_path / "tests.jsonl", records)


def run_judge(tmp_path: Path, name: str, lost: set[int], fingerprint: str) -> Run:
    """The 32 tests judged by a scripted judge that grades relevancy 3 (the condition is ==5) on the `lost` cases."""

    def script(request: Any) -> str:
        prompt = request.messages[0]["content"]
        wrong = any(f"(case {n})" in prompt for n in lost)
        grade = {"answer_relevancy": 3 if wrong else 5, "completeness": 5, "faithfulness": 1}[request.metric]
        return reply(request.metric, grade)

    runtime = CallRuntime(
        ScriptedBackend(script, model_version=fingerprint),
        ReplyCache(":memory:", CacheMode.OFF),
        RuntimeSettings(backoff_initial_s=0.0, backoff_max_s=0.0),
    )
    judge = GroundedQAJudge(runtime, load_prompt_set("default"), JudgeModel("scripted", "scripted/model"), {})
    tests = load_unit_tests(unit_test_file(tmp_path))
    return run_task(UnitTestTask(tests, judge), runtime, FolderRecorder(tmp_path / name), {"judge": "scripted"})


def test_a_judge_that_lost_6_of_32_tests_fell_significantly(tmp_path, capsys):
    baseline = run_judge(tmp_path, "baseline", set(), "fp_2026_10")
    after = run_judge(tmp_path, "after", LOST, "fp_2026_11")
    result = drift(baseline, after)
    assert result.n == 32 and result.lost == [f"t{n}" for n in sorted(LOST)] and result.gained == []
    assert result.p_value == pytest.approx(2 * 0.5**6)  # two-sided exact: 6 discordant pairs, all one way
    assert result.fell and result.difference == pytest.approx(-6 / 32)
    assert result.low < -0.05 and result.high < 0 and result.low <= -6 / 32 <= result.high
    assert result.fingerprints == (["fp_2026_10"], ["fp_2026_11"])
    assert check_drift(baseline, after) is True
    printed = capsys.readouterr().out
    assert "McNemar's exact test p = 0.03125 (a significant fall at 0.05)" in printed
    assert "fp_2026_10" in printed and "fp_2026_11" in printed
    assert "Lost (passed in baseline, not in after): t3, t7, t11, t19, t23, t29" in printed
    # the other way round, the same p-value is a significant rise, not "no significant fall"
    rise = drift(after, baseline)
    assert not rise.fell and rise.p_value == result.p_value
    assert "p = 0.03125 (a significant rise at 0.05)" in "\n".join(drift_lines(rise, "after", "baseline"))


def test_a_judge_that_lost_nothing_passes_and_one_lost_test_is_not_significant(tmp_path, capsys):
    baseline = run_judge(tmp_path, "baseline", set(), "fp_a")
    same = run_judge(tmp_path, "same", set(), "fp_a")
    assert check_drift(baseline, same) is False
    printed = capsys.readouterr().out.splitlines()
    assert "- flipped: none" in printed and not any("McNemar" in line for line in printed)  # no p from no flip
    one = run_judge(tmp_path, "one", {5}, "fp_a")
    result = drift(baseline, one)
    assert result.lost == ["t5"] and result.p_value == 1.0 and not result.fell


def test_runs_without_shared_tests_or_outcomes_are_refused(tmp_path):
    from judges.errors import InputError

    baseline = run_judge(tmp_path, "baseline", set(), "fp")
    probes = Run("probes", RunConfig.from_json({}), [], {}, folder=tmp_path)
    with pytest.raises(InputError, match="no pass/fail outcomes"):
        drift(baseline, probes)
    other = Run("unit_tests", RunConfig.from_json({}), [], {}, folder=tmp_path)
    with pytest.raises(InputError, match="share no completed test"):
        drift(baseline, other)
    # a meta-eval baseline (train by default) against validate's run (test by default) says which split to give
    trained = Run("unit_tests", RunConfig.from_json({"split": "train"}), baseline.records, {}, folder=tmp_path)
    tested = Run("unit_tests", RunConfig.from_json({"split": "test"}), [], {}, folder=tmp_path)
    with pytest.raises(
        InputError, match=r"share no completed test \(the baseline ran train, this run test: give --split train\)"
    ):
        drift(trained, tested)


def judgelab(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "judges.cli.main", *args],
        capture_output=True,
        text=True,
        env=ENV,
        cwd=cwd,
        timeout=hang_guard(),
    )


def doctored_baseline(run_dir: Path, out: Path, passes: int) -> list[str]:
    """A copy of a run where `passes` of its failed tests passed, under another fingerprint: the run then lost them."""
    import shutil

    shutil.copytree(run_dir, out)
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    flipped = []
    for row in rows:
        outcomes = {entry["outcome"] for entry in row["metrics"].values()}
        if "wrong_grade" in outcomes and "failure" not in outcomes and len(flipped) < passes:
            for entry in row["metrics"].values():  # every wrong grade made a pass: the test passed in the baseline
                entry["outcome"] = "pass"
            row["passed_all"] = True
            flipped.append(row["id"])
        for entry in row["metrics"].values():
            for call in entry.get("calls", []):
                call["model_version"] = "fp_baseline"
    (out / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    meta = json.loads((out / "run.json").read_text())
    meta["config"]["model_version"] = "fp_baseline"
    (out / "run.json").write_text(json.dumps(meta))
    return flipped


def test_validate_baseline_fails_with_exit_1_and_compare_shows_the_same_statistics(tmp_path):
    tests = str(unit_test_file(tmp_path))
    with stub_server(latency_ms=1) as base:
        common = ["--judge", "openai/stub", "--api-base", base, "--tests", tests, "--cache", str(tmp_path / "c.db")]
        first = judgelab("validate", *common, "--baseline", "none", "--out", str(tmp_path / "first"), cwd=tmp_path)
        assert first.returncode == 2 and "none" in first.stderr  # not a run folder: exit 2 before any bar
        first = judgelab("validate", *common, "--min", "total=0", "--out", str(tmp_path / "first"), cwd=tmp_path)
        assert first.returncode == 0, first.stderr
        lost = doctored_baseline(tmp_path / "first", tmp_path / "baseline", 6)
        assert len(lost) == 6  # the stub grades at random: most tests fail
        again = judgelab("validate", *common, "--baseline", str(tmp_path / "baseline"), cwd=tmp_path)
        same = judgelab("validate", *common, "--baseline", str(tmp_path / "first"), cwd=tmp_path)
        plugin = pytest_with_gate(tmp_path, base, tests)
    assert again.returncode == 1, again.stdout + again.stderr
    assert "McNemar's exact test p = 0.03125 (a significant fall at 0.05)" in again.stdout
    assert "fp_baseline" in again.stdout and "FAILED" in again.stdout
    assert "replies came from the cache" in again.stdout  # the note: this re-run asked nothing again
    assert all(test in again.stdout for test in lost)
    assert same.returncode == 0 and "- flipped: none" in same.stdout and "McNemar's" not in same.stdout
    compared = judgelab("compare", str(tmp_path / "baseline"), str(tmp_path / "first"), cwd=tmp_path)
    assert compared.returncode == 0 and "McNemar's exact test p = 0.03125" in compared.stdout

    assert plugin.returncode == 1, plugin.stdout[-3000:]
    assert "FAILED" in plugin.stdout and "judgelab[no drift from baseline]" in plugin.stdout
    assert (
        "McNemar's exact test p = 0.03125" in plugin.stdout
        and "judgelab[total >= 0]" not in plugin.stdout.split("short test summary")[-1]
    )


def pytest_with_gate(tmp_path: Path, base: str, tests: str) -> subprocess.CompletedProcess[str]:
    """`pytest --judgelab` with a gate whose `baseline` (relative to the config file) is the doctored run."""
    config = tmp_path / "gate.toml"
    config.write_text(
        f'baseline = "baseline"\n[judge]\nmodel = "openai/stub"\napi_base = "{base}"\ncache = "{tmp_path / "c.db"}"\n'
        f'[tests]\nsource = "{tests}"\n[min]\ntotal = 0.0\n'
    )
    command = [sys.executable, "-m", "pytest", "--judgelab", str(config), "-p", "no:cacheprovider", "-rf"]
    command += ["--basetemp", str(tmp_path / "basetemp"), "--rootdir", str(tmp_path), str(tmp_path)]
    return subprocess.run(command, capture_output=True, text=True, env=ENV, cwd=tmp_path, timeout=hang_guard())


def test_pairs_keep_the_first_runs_order_and_test_the_discordant_pairs_exactly():
    from judges.runs.paired_runs import Pairs

    pairs = Pairs.of({"d": 1.0, "a": 1.0, "b": 0.0, "c": 1.0}, {"b": 1.0, "a": 0.0, "d": 1.0, "e": 0.0})
    assert (pairs.n, list(pairs.before), pairs.lost(), pairs.gained()) == (3, ["d", "a", "b"], ["a"], ["b"])
    assert pairs.means() == (2 / 3, 2 / 3) and pairs.mcnemar_p() == 1.0
    six_lost = Pairs.of({f"t{n}": 1.0 for n in range(8)}, {f"t{n}": float(n > 5) for n in range(8)})
    assert six_lost.mcnemar_p() == 2 * 0.5**6 and six_lost.lost() == [f"t{n}" for n in range(6)]
    difference = six_lost.difference()
    assert difference is not None and difference.mean == -6 / 8 and difference.low <= -6 / 8 <= difference.high
    none = Pairs.of({"a": 1.0}, {"b": 1.0})
    assert (none.n, none.means(), none.mcnemar_p(), none.difference()) == (0, None, None, None)
    assert Pairs.of({"a": 1.0}, {"a": 0.0}).difference() is None  # a bootstrap needs two pairs


def scripted_run(tmp_path: Path, name: str, grades: Any, task: str = "unit_tests") -> Run:
    """The 32 tests (or their samples, graded with no conditions) judged by a scripted judge: `grades(metric, case)`."""
    from conftest import scripted_judge

    from judges.grading.grade_task import GradeTask

    def script(request: Any) -> str:
        case = int(request.messages[0]["content"].split("(case ")[1].split(")")[0])
        return reply(request.metric, grades(request.metric, case))

    judge, _ = scripted_judge(script)
    tests = load_unit_tests(unit_test_file(tmp_path))
    made = UnitTestTask(tests, judge) if task == "unit_tests" else GradeTask([(t.id, t.sample) for t in tests], judge)
    return run_task(made, judge.runtime, FolderRecorder(tmp_path / name), {"judge": "scripted"})


FAITHFUL_LOST = set(range(0, 32, 3))  # 11 tests that lose faithfulness after


def unfaithful_after(metric: str, case: int) -> Any:
    """Completeness 3 on every test (its condition is ==5: no test passes every metric), faithfulness 0 on the lost."""
    return {"answer_relevancy": 5, "completeness": 3, "faithfulness": 0 if case in FAITHFUL_LOST else 1}[metric]


def faithful(metric: str, case: int) -> Any:
    return {"answer_relevancy": 5, "completeness": 3, "faithfulness": 1}[metric]


def test_compare_of_unit_test_runs_whose_tests_never_pass_every_metric_gives_no_test_level_flip(tmp_path):
    from judges.runs.run_compare import comparison_markdown

    before, after = scripted_run(tmp_path, "a", faithful), scripted_run(tmp_path, "b", unfaithful_after)
    text = comparison_markdown([before, after])
    assert "## a -> b: 11 flipped outcomes (0 now pass, 11 now do not)" in text
    [faithfulness] = [line for line in text.splitlines() if line.startswith("| F ")]
    assert [cell.strip() for cell in faithfulness.split("|")[3:7]] == ["100.0%", "65.6%", "0", "11"]
    # the test-level outcome (every metric passed) flipped nowhere: said as such, with no McNemar p from nothing
    assert "Drift a -> b (each test's pass on every metric) over 32 tests both completed:" in text
    assert "- passed every metric: 0.0% -> 0.0% of the tests" in text
    assert "- flipped: none (no test passed every metric in either run: compare each metric's outcomes)" in text
    assert "McNemar's exact test p" not in text and "0 lost, 0 gained" not in text
    assert text.index("| F ") < text.index("Drift a -> b") < text.index("| t0 ")  # the per-metric table first


def test_compare_of_graded_runs_that_differ_counts_changed_verdicts_and_prints_no_drift(tmp_path):
    from judges.runs.run_compare import comparison_markdown

    before = scripted_run(tmp_path, "a", faithful, task="grade")
    after = scripted_run(tmp_path, "b", unfaithful_after, task="grade")
    assert before.kind == after.kind == "grade"
    text = comparison_markdown([before, after])
    assert "## a -> b: 11 changed verdicts" in text and "Drift" not in text and "McNemar" not in text
    [faithfulness] = [line for line in text.splitlines() if line.startswith("| F ")]
    cells = [cell.strip() for cell in faithfulness.split("|")[2:8]]
    assert cells == ["32", "1.000", "0.656", "0", "11", cells[5]] and cells[5].startswith("-0.344 [")
