"""Regressions of issue 28: every bad input gets a named outcome before any call, and every degraded run says so."""

import json
import os
import re
import sqlite3
from pathlib import Path

import pytest
from conftest import ROOT, record, reply, run_tests, scripted_judge, write_jsonl
from stub import stats, stub_server

from judges.cli.main import main
from judges.runs.run_config import RunConfig
from judges.runs.run_writer import FolderRecorder
from judges.suite.loading import parse_unit_test

TESTS = ROOT / "unit_tests" / "test.jsonl"
DEAD = "http://127.0.0.1:9/v1"  # nothing listens: a call made here would end the run with exit 3, not 2


def cli(capsys, *args):
    """judgelab in this process: (exit code, stderr lines)."""
    code = main([str(a) for a in args])
    return code, capsys.readouterr().err.strip().splitlines()


def judged(*args, out):
    return ["--judge", "openai/stub", "--api-base", DEAD, "--cache-mode", "off", "--out", out, "--quiet", *args]


def first_test():
    return json.loads(TESTS.read_text(encoding="utf-8").splitlines()[0])


@pytest.fixture
def key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")


# -- bad input: exit 2, one line naming file, line and field, before any call ------------------------------------


def test_a_lone_surrogate_is_refused_at_load_naming_the_field(tmp_path, capsys, key):
    # JSON's "\ud800" escape decodes to a str that UTF-8 cannot encode: it used to crash the HTTP client mid-run
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps({**first_test(), "actual_output": "X is \ud800 1 [1]."}) + "\n", encoding="utf-8")
    expected = f"{path}:1:actual_output: text holds a lone surrogate \\ud800 at character 6"
    for args in (
        ["check-tests", path],
        ["evaluate", path, *judged(out=tmp_path / "e")],
        ["meta-eval", "--tests", path, *judged(out=tmp_path / "m")],
        ["metrics", "--metrics", "grouse", "--data", path, *judged(out=tmp_path / "r")],
    ):
        code, err = cli(capsys, *args)
        assert code == 2 and len(err) == 1 and err[0].startswith(f"judgelab: error: {expected}"), (args, err)
    assert not (tmp_path / "e").exists() and not (tmp_path / "m").exists()  # refused before any run began


def test_deep_nesting_is_refused_without_a_recursion_error(tmp_path, capsys, key):
    path = tmp_path / "deep.jsonl"
    path.write_text("[" * 100000 + "]" * 100000 + "\n")
    for args in (
        ["check-tests", path],
        ["evaluate", path, *judged(out=tmp_path / "e")],
        ["metrics", "--metrics", "grouse", "--data", path, *judged(out=tmp_path / "r")],
    ):
        code, err = cli(capsys, *args)
        assert (code, err) == (2, [f"judgelab: error: {path}:1: nested more than 64 levels deep"]), args
    fine_but_deep = tmp_path / "deep2.jsonl"  # parses (under Python's limit) but deeper than any later stage needs
    fine_but_deep.write_text(json.dumps({**first_test(), "metadata": {"x": json.loads("[" * 200 + "]" * 200)}}) + "\n")
    code, err = cli(capsys, "check-tests", fine_but_deep)
    assert code == 2 and err[0].startswith(f"judgelab: error: {fine_but_deep}:1:metadata.x") and "64 levels" in err[0]
    toml = tmp_path / "gate.toml"
    toml.write_text("x = " + "[" * 5000 + "]" * 5000 + "\n")
    code, err = cli(capsys, "validate", "--config", toml)
    assert code == 2 and len(err) == 1 and str(toml) in err[0] and "deep" in err[0]


def test_an_object_given_as_id_is_refused_not_repr_d(tmp_path, capsys, key):
    path = write_jsonl(tmp_path / "o.jsonl", [{**first_test(), "id": {"a": 1}}])
    for args in (
        ["check-tests", path],
        ["evaluate", path, *judged(out=tmp_path / "e")],
        ["metrics", "--metrics", "grouse", "--data", path, *judged(out=tmp_path / "r")],
    ):
        code, err = cli(capsys, *args)
        assert (code, err) == (2, [f"judgelab: error: {path}:1:id: expected a string or an integer, got an object"])


def test_a_folder_given_as_a_data_file_is_called_a_directory(tmp_path, capsys, key):
    folder = tmp_path / "data.jsonl"
    folder.mkdir()
    for args in (
        ["evaluate", folder, *judged(out=tmp_path / "e")],
        ["metrics", "--metrics", "grouse", "--data", folder],
    ):
        code, err = cli(capsys, *args)
        assert (code, err) == (2, [f"judgelab: error: {folder}: is a directory, not a file"])


def test_a_json_error_reads_once_column(tmp_path, capsys):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"id": 1, "input": }\n')
    code, err = cli(capsys, "check-tests", path)
    assert code == 2 and err == [f"judgelab: error: {path}:1: not valid JSON (Expecting value, column 20)"]
    assert "at at" not in err[0]


def test_a_fail_on_error_outside_0_1_is_bad_usage(tmp_path, capsys):
    code, err = cli(capsys, "evaluate", TESTS, "--fail-on-error", "1.5", "--cache-mode", "off")
    assert (code, err) == (2, ["judgelab: error: --fail-on-error must be a share between 0 and 1, got 1.5"])


# -- the reply cache ----------------------------------------------------------------------------------------------


def fill_cache(base, tmp_path, capsys):
    """A first run of 32 tests that fills the cache; returns the cache's path."""
    cache = tmp_path / "c.sqlite"
    common = ["--judge", "openai/stub", "--api-base", base, "--cache", cache, "--quiet"]
    code, _ = cli(capsys, "meta-eval", "--tests", TESTS, "--limit", "32", "--out", tmp_path / "first", *common)
    assert code == 0
    with sqlite3.connect(cache) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return cache, common


def damage_middle(cache):
    """Overwrite the middle third of the file (the issue's 200 KB at a third, scaled to this cache)."""
    size = cache.stat().st_size
    with cache.open("r+b") as handle:
        handle.seek(size // 3)
        handle.write(os.urandom(size // 3))


def test_a_cache_damaged_mid_file_is_refused_before_any_call(tmp_path, capsys, key):
    with stub_server(latency_ms=0) as base:
        cache, common = fill_cache(base, tmp_path, capsys)
        damage_middle(cache)
        before = stats(base)["requests"]
        code, err = cli(capsys, "meta-eval", "--tests", TESTS, "--limit", "32", "--out", tmp_path / "second", *common)
        assert stats(base)["requests"] == before  # no call was made
    assert code == 2 and len(err) == 1, err
    assert re.match(rf"judgelab: error: cache {re.escape(str(cache))} is damaged \(.+\): give another --cache", err[0])
    assert "delete the file" in err[0]
    assert not (tmp_path / "second").exists()


def test_a_cache_read_that_fails_mid_run_is_a_named_stop(tmp_path, capsys, key, monkeypatch):
    # damage the opening check does not see (as if it came after it): the first damaged read stops the run, named
    monkeypatch.setattr("judges.calls.cache.quick_check", lambda db, path: None)
    with stub_server(latency_ms=0) as base:
        cache, common = fill_cache(base, tmp_path, capsys)
        damage_middle(cache)
        code, err = cli(capsys, "meta-eval", "--tests", TESTS, "--limit", "32", "--out", tmp_path / "second", *common)
    meta = json.loads((tmp_path / "second" / "run.json").read_text())
    assert code == 2, err
    assert meta["stop_reason"] == "cache" and meta["stop_message"].startswith(f"cache {cache} failed mid-run (")
    assert err[-1].startswith(f"judgelab: stopped (cache): cache {cache} failed mid-run")
    assert "Traceback" not in "\n".join(err)
    summary = (tmp_path / "second" / "summary.md").read_text()
    assert summary.splitlines()[2].startswith("**Stopped early: the cache broke (cache):** cache ")


# -- stops written to the run folder ------------------------------------------------------------------------------


def test_a_crashed_run_is_marked_in_run_json_summary_and_report(tmp_path):
    calls = []

    def script(request):
        calls.append(request)
        if len(calls) > 4:  # the second test's calls: an error no layer expects
            return RuntimeError("backend fell over")
        return reply(request.metric, 5 if request.metric in ("answer_relevancy", "completeness") else 1)

    judge, _ = scripted_judge(script, settings=None)
    judge.runtime.settings.concurrency = 1
    tests = [parse_unit_test(record(id=f"t{i}"), path="t.jsonl", line=i, default_id=f"t{i}") for i in (1, 2)]
    with pytest.raises(RuntimeError):
        run_tests(tests, judge, out=tmp_path / "run")
    meta = json.loads((tmp_path / "run" / "run.json").read_text())
    assert meta["stop_reason"] == "crash"
    assert meta["stop_message"].startswith("unexpected error RuntimeError: backend fell over (a bug in judgelab")
    summary = (tmp_path / "run" / "summary.md").read_text().splitlines()
    assert summary[2].startswith("**Crashed (crash):** unexpected error RuntimeError: backend fell over")
    page = (tmp_path / "run" / "report.html").read_text()
    assert page.index('id="stopped"') < page.index("items passed in code") and "Crashed (crash):" in page


def test_a_metric_that_failed_on_every_call_ends_degraded(tmp_path):
    def script(request):
        if request.metric == "faithfulness":
            return "this is not JSON"
        return reply(request.metric, 5 if request.metric in ("answer_relevancy", "completeness") else 1)

    judge, _ = scripted_judge(script)
    tests = [parse_unit_test(record(id=f"t{i}"), path="t.jsonl", line=i, default_id=f"t{i}") for i in range(1, 5)]
    from judges.runs.service import run_task
    from judges.suite.unit_test_task import UnitTestTask

    config = {"judge": "scripted", "fail_on_error": 0.1}
    run = run_task(UnitTestTask(tests, judge), judge.runtime, FolderRecorder(tmp_path / "run"), config)
    assert run.stop_reason == "degraded" and run.exit_code == 5
    assert run.stop_message == (
        "4 of 4 faithfulness verdicts failed (100%, over --fail-on-error 0.1), mostly unparseable (4)"
    )
    summary = (tmp_path / "run" / "summary.md").read_text()
    assert summary.splitlines()[2].startswith("**Degraded run (degraded):** 4 of 4 faithfulness verdicts failed")
    assert (
        "†" in summary and "4 verdicts failed and are left out of the rates (most in faithfulness: 4 of 4)" in summary
    )
    assert "Degraded run (degraded):" in (tmp_path / "run" / "report.html").read_text()
    lenient = run_task(UnitTestTask(tests, judge), judge.runtime, None, {**config, "fail_on_error": 1.0})
    assert lenient.stop_reason is None and lenient.exit_code == 0


def test_the_cli_exits_5_with_one_line_when_every_call_is_unparseable(tmp_path, capsys, key):
    with stub_server(latency_ms=0, garbage_rate=1.0) as base:
        common = ["--judge", "openai/stub", "--api-base", base, "--cache-mode", "off", "--quiet"]
        code, err = cli(capsys, "evaluate", TESTS, "--limit", "4", "--out", tmp_path / "e", *common)
        assert code == 5
        assert err[-1].startswith("judgelab: degraded run: 4 of 4 ") and "mostly unparseable (4)" in err[-1]
        code, _ = cli(
            capsys, "evaluate", TESTS, "--limit", "4", "--out", tmp_path / "f", "--fail-on-error", "1", *common
        )
        assert code == 0
    assert json.loads((tmp_path / "e" / "run.json").read_text())["stop_reason"] == "degraded"


def test_max_cost_on_a_model_with_no_price_is_one_warning(tmp_path, capsys, key):
    with stub_server(latency_ms=0) as base:
        args = ["evaluate", TESTS, "--limit", "1", "--judge", "openai/stub", "--api-base", base, "--quiet"]
        code, err = cli(capsys, *args, "--cache-mode", "off", "--out", tmp_path / "e", "--max-cost", "1")
        assert code == 0
        warnings = [line for line in err if "warning" in line]
        assert warnings == [
            "judgelab: warning: --max-cost cannot stop this run: no price is known for openai/stub, so its calls "
            "count as $0"
        ]
        code, err = cli(capsys, *args, "--cache-mode", "off", "--out", tmp_path / "f")
        assert not [line for line in err if "warning" in line]


def test_the_budget_line_and_run_json_agree_on_the_spend(tmp_path, capsys, key):
    with stub_server(latency_ms=20) as base:
        code, err = cli(
            capsys,
            "evaluate",
            TESTS,
            "--limit",
            "16",
            "--judge",
            "gpt-4o-mini",  # priced by LiteLLM's table; the stub serves any model id
            "--api-base",
            base,
            "--cache",
            tmp_path / "c.sqlite",
            "--out",
            tmp_path / "run",
            "--max-cost",
            "0.002",
            "--quiet",
        )
    assert code == 4
    meta = json.loads((tmp_path / "run" / "run.json").read_text())
    spent = re.search(r"spent (\d+\.\d{4}) USD", err[-1])
    assert spent and spent.group(1) == f"{meta['usage']['cost']:.4f}"


# -- intervals inside each metric's range ---------------------------------------------------------------------------


def test_a_mean_grade_interval_stays_inside_its_metric_range():
    from judges.runs.intervals import mean_interval, metric_range

    # a t interval of these (mean 0.8, few values) was [0.245, 1.355] for a metric bounded by [0, 1]
    values = [1.0, 1.0, 1.0, 0.0, 1.0]
    low, high = mean_interval(values, (0.0, 1.0))
    assert 0.0 <= low < 0.8 < high <= 1.0 and high == 1.0
    low, high = mean_interval([5, 5, 1, 5, 5, 4], (1.0, 5.0))
    assert 1.0 <= low < high <= 5.0
    assert mean_interval([3.0, 3.0], (1.0, 5.0)) == (3.0, 3.0)
    assert metric_range("completeness", {}) == (1.0, 5.0) and metric_range("faithfulness", {}) == (0.0, 1.0)
    assert metric_range("x", {"range": [-1, 1]}) == (-1.0, 1.0)


def test_every_registered_metric_declares_a_range_its_description_agrees_with():
    from judges.rag.metric_registry import build_registry

    registry = build_registry()
    assert registry["llamaindex_correctness"].value_range == (1.0, 5.0)
    assert registry["trace_adherence"].value_range == (0.0, 1.0)
    assert registry["grouse_completeness"].value_range == (1.0, 5.0)
    assert registry["ragas_answer_similarity"].value_range == (-1.0, 1.0)
    for spec in registry.values():
        low, high = spec.value_range
        assert low < high and spec.describe()["range"] == [low, high]


def test_the_report_interval_of_a_metrics_run_stays_in_range(tmp_path):
    from judges.records import ItemRecord
    from judges.render.report_html import report_html
    from judges.runs.run import Run

    records = [
        ItemRecord.from_json(
            {"id": str(i), "metrics": {"trace_adherence": {"verdict": {"state": "grade", "grade": g}, "calls": []}}}
        )
        for i, g in enumerate([1, 1, 1, 0, 1])
    ]
    from judges.runs.summarizer import summarize

    info = {"trace_adherence": {"family": "trace", "higher_is_better": True, "range": [0.0, 1.0]}}
    run = Run("metrics", RunConfig.from_json({"metric_info": info}), records, summarize(records, "metrics"))
    page = report_html(run, Path(tmp_path))
    bounds = re.search(r"\[(-?\d\.\d{3}), (-?\d\.\d{3})\]", page)
    assert bounds and 0.0 <= float(bounds.group(1)) <= float(bounds.group(2)) <= 1.0


def test_a_degraded_leaderboard_candidate_is_noted_and_kept_while_other_stops_still_raise():
    from judges.errors import BudgetExhausted
    from judges.leaderboard.entries import Entry, check_stop, noted
    from judges.records import Summary
    from judges.runs.run import Run

    degraded = Run(
        "unit_tests",
        RunConfig.from_json({}),
        [],
        Summary(),
        stop_reason="degraded",
        stop_message="4 of 4 faithfulness verdicts failed",
    )
    entry = Entry("c", "llm", "m", "p", None, "e", "total", "pass rate", 0.5, 0.2, 0.8, 4, note="few items")
    assert (
        noted([entry], check_stop(degraded))[0].note == "few items; degraded run: 4 of 4 faithfulness verdicts failed"
    )
    assert check_stop(Run("unit_tests", RunConfig.from_json({}), [], Summary())) is None
    with pytest.raises(BudgetExhausted):
        check_stop(
            Run("unit_tests", RunConfig.from_json({}), [], Summary(), stop_reason="budget", stop_message="spent")
        )


def test_fail_on_error_has_one_default_for_the_cli_the_gate_and_the_api(tmp_path):
    from judges.cli.main import build_parser
    from judges.cli.options import config_from_args
    from judges.config.judge import JudgeConfig, judge_config
    from judges.errors import ConfigError
    from judges.integrations.gate import GateConfig

    args = build_parser().parse_args(["evaluate", "x.jsonl"])
    assert config_from_args(args).fail_on_error == judge_config().fail_on_error == JudgeConfig().fail_on_error == 0.1
    path = tmp_path / "gate.toml"
    path.write_text("[judge]\nfail_on_error = 1\n[min]\ntotal = 0.5\n")
    assert judge_config(**GateConfig.load(path).judge).fail_on_error == 1
    with pytest.raises(ConfigError, match="fail_on_error must be a share between 0 and 1, got 2"):
        judge_config(fail_on_error=2.0)
