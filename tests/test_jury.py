"""Juries on the leaderboard: verdicts combined from the members' runs (no new call), costed as their sum, crowned
only when they beat the baselines and their best member on the same items."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import hang_guard, record, reply, write_jsonl

from judges.calls.cache import CacheMode, ReplyCache
from judges.calls.model_spec import JudgeModel
from judges.calls.runtime import CallRuntime, RuntimeSettings
from judges.calls.scripted import ScriptedBackend
from judges.errors import ConfigError
from judges.judging.grouse_judge import GroundedQAJudge
from judges.judging.prompts import load_prompt_set
from judges.leaderboard.config import load_config
from judges.leaderboard.config_types import LeaderboardConfig
from judges.leaderboard.entries import Entry
from judges.leaderboard.jury import board_jury_entries, combine
from judges.leaderboard.select import pick_best
from judges.leaderboard.unit_test_entries import run_folder, run_to_entries
from judges.runs.run_writer import FolderRecorder
from judges.runs.service import run_task
from judges.suite.baselines import run_baseline
from judges.suite.loading import load_unit_tests
from judges.suite.unit_test_task import UnitTestTask
from judges.types import Verdict

N = 30  # three thirds of ten tests


def unit_tests(tmp_path: Path) -> Path:
    """Even cases must get relevancy 5, odd ones less than 5: neither constant baseline passes them all."""
    records = []
    for n in range(N):
        conditions = {**record()["conditions"], "answer_relevancy_condition": "==5" if n % 2 == 0 else "<5"}
        records.append(record(id=f"t{n}", input=f"How long is maternity leave? (case {n})", conditions=conditions))
    return write_jsonl(tmp_path / "tests.jsonl", records)


def config_file(tmp_path: Path, members: list[str], rule: str = "majority") -> LeaderboardConfig:
    candidates = "".join(f'[[candidates]]\nname = "{name}"\nmodel = "openai/{name}"\n\n' for name in "ABC")
    baselines = "".join(
        f'[[candidates]]\nname = "{name}"\nkind = "baseline"\nbaseline = "{name}"\n\n'
        for name in ("always-top", "always-lowest")
    )
    jury = f'[[jury]]\nname = "panel"\nmembers = {members!r}\nrule = "{rule}"\n'.replace("'", '"')
    path = tmp_path / "board.toml"
    path.write_text(f'{candidates}{baselines}[[evaluations]]\nkind = "unit_tests"\nsource = "tests.jsonl"\n\n{jury}')
    return load_config(path)


def member_entries(config: LeaderboardConfig, runs: Path, wrong_third: dict[str, int | None]) -> list[Entry]:
    """Each member's run (a scripted judge right on relevancy but for its `wrong_third`), and the baselines'."""
    evaluation = config.evaluations[0]
    tests = load_unit_tests(evaluation.source)
    entries = []
    for candidate in config.candidates:
        out = run_folder(runs, candidate, evaluation)
        if candidate.kind == "baseline":
            run = run_baseline(str(candidate.baseline), tests, recorder=FolderRecorder(out))
            base = dict(kind="baseline", baseline=candidate.baseline)
        else:
            scripted = judge(wrong_third[candidate.name])
            run = run_task(UnitTestTask(tests, scripted), scripted.runtime, FolderRecorder(out), {"judge": "s"})
            base = dict(kind="llm")
        common = dict(candidate=candidate.name, model=None, evaluation=evaluation.name, prompts=None, prompt_sha=None)
        entries += run_to_entries(run, {**common, **base}, 0.0)
    return entries


def judge(third: int | None) -> GroundedQAJudge:
    def script(request: Any) -> str:
        prompt = request.messages[0]["content"]
        case = int(prompt.split("(case ")[1].split(")")[0])
        right = 5 if case % 2 == 0 else 3
        wrong = 3 if case % 2 == 0 else 5
        grade = {"answer_relevancy": wrong if case // 10 == third else right, "completeness": 5, "faithfulness": 1}
        return reply(request.metric, grade[request.metric])

    runtime = CallRuntime(
        ScriptedBackend(script, cost_per_call=0.001),
        ReplyCache(":memory:", CacheMode.OFF),
        RuntimeSettings(backoff_initial_s=0.0, backoff_max_s=0.0),
    )
    return GroundedQAJudge(runtime, load_prompt_set("default"), JudgeModel("s", "scripted/s"), {})


def relevancy_pick(entries: list[Entry], config: LeaderboardConfig) -> Any:
    return next(p for p in pick_best(entries, config.selection) if p.metric == "answer_relevancy")


def test_a_jury_of_three_judges_each_wrong_on_another_third_is_crowned_over_each_member(tmp_path):
    unit_tests(tmp_path)
    config = config_file(tmp_path, ["A", "B", "C"])
    runs = tmp_path / "runs"
    entries = member_entries(config, runs, {"A": 0, "B": 1, "C": 2})
    jury = board_jury_entries(config, runs)
    relevancy = {e.candidate: e for e in entries + jury if e.metric == "answer_relevancy"}
    assert relevancy["panel"].value == 1.0 and relevancy["panel"].n == N
    assert [relevancy[m].value for m in "ABC"] == [pytest.approx(2 / 3)] * 3
    assert relevancy["always-top"].value == 0.5
    panel = next(e for e in jury if e.metric == "total")
    members = [e for e in entries if e.metric == "total" and e.candidate in "ABC"]
    assert panel.calls == sum(e.calls for e in members) and panel.calls > 0
    assert panel.cost_usd == pytest.approx(sum(e.cost_usd for e in members))
    pick = relevancy_pick(entries + jury, config)
    assert pick.winner is not None and pick.winner.candidate == "panel"
    assert "vs its best member A" in pick.reason()
    assert (runs / "panel--unit_tests_tests.jsonl_test" / "report.html").is_file()


def test_a_jury_that_does_not_beat_its_best_member_is_not_crowned(tmp_path):
    unit_tests(tmp_path)
    config = config_file(tmp_path, ["A", "B", "C"])
    runs = tmp_path / "runs"
    entries = member_entries(config, runs, {"A": None, "B": 0, "C": 1})  # A is always right: so is the jury
    jury = board_jury_entries(config, runs)
    assert next(e for e in jury if e.metric == "answer_relevancy").value == 1.0
    pick = relevancy_pick(entries + jury, config)
    assert pick.winner is not None and pick.winner.candidate == "A"
    assert pick.excluded["panel"].startswith("does not beat its best member: vs its best member A")


def test_rules_combine_verdicts_and_leave_failed_members_out():
    from judges.types import FailureKind

    five, three, one, null = Verdict.graded(5), Verdict.graded(3), Verdict.graded(1), Verdict.null()
    failed = Verdict.failed(FailureKind.TIMEOUT, "x")
    assert combine([five, three, five], "majority").grade == 5
    assert combine([five, three, one], "majority").grade == 5  # a tie goes to the member listed first
    assert combine([null, null, five], "majority").state.value == "null"
    assert combine([five, three, one], "median").grade == 3 and combine([five, three], "median").grade == 3
    assert combine([five, three, one], "mean").grade == 3 and combine([five, failed, one], "mean").grade == 3
    assert combine([null, null, five], "median").state.value == "null"
    assert combine([failed, failed], "mean").is_failure


def test_a_jury_names_existing_candidates_with_outputs_per_item(tmp_path):
    unit_tests(tmp_path)
    with pytest.raises(ConfigError, match=r"jury\[0\] \(panel\): member 'Z' is not a candidate"):
        config_file(tmp_path, ["A", "Z"])
    with pytest.raises(ConfigError, match="member 'always-top' is a baseline, not a judge with outputs per item"):
        config_file(tmp_path, ["A", "always-top"])
    with pytest.raises(ConfigError, match="rule"):
        config_file(tmp_path, ["A", "B"], rule="vote")


def test_the_leaderboard_command_rows_a_jury_with_its_members_summed_costs(tmp_path):
    import json
    import os
    import subprocess
    import sys

    from conftest import ROOT
    from stub import stub_server

    with stub_server(latency_ms=1) as base:
        config = tmp_path / "board.toml"
        config.write_text(
            f'cache = "{tmp_path / "cache.sqlite"}"\n\n'
            + "".join(
                f'[[candidates]]\nname = "{name}"\nmodel = "openai/stub"\napi_base = "{base}"\nprompts = "{prompts}"\n\n'
                for name, prompts in (("stub-default", "default"), ("stub-compact", "compact"))
            )
            + f'[[evaluations]]\nkind = "unit_tests"\nsource = "{ROOT / "unit_tests"}"\nsplit = "test"\nlimit = 8\n\n'
            + '[[jury]]\nname = "pair"\nmembers = ["stub-default", "stub-compact"]\nrule = "mean"\n'
        )
        result = subprocess.run(
            [sys.executable, "-m", "judges.cli.main", "leaderboard", str(config), "--out", str(tmp_path / "board")],
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONPATH": str(ROOT), "OPENAI_API_KEY": "sk-fake"},
            cwd=tmp_path,
            timeout=hang_guard(),
        )
    assert result.returncode == 0, result.stderr[-3000:]
    rows = json.loads((tmp_path / "board" / "leaderboard.json").read_text())
    entries = rows["entries"] if isinstance(rows, dict) else rows
    total = {e["candidate"]: e for e in entries if e["metric"] == "total"}
    assert total["pair"]["kind"] == "jury" and total["pair"]["members"] == ["stub-default", "stub-compact"]
    assert total["pair"]["calls"] == total["stub-default"]["calls"] + total["stub-compact"]["calls"] > 0
    assert total["pair"]["n"] == 8
    assert "runs/pair--" in (tmp_path / "board" / "leaderboard.html").read_text()
