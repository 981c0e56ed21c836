"""Unit tests through the run service with a scripted judge: outcomes, PA/NR, rates, run failures apart, files."""

import json
from dataclasses import replace

from conftest import ROOT, record, reply, run_tests, scripted_judge, write_jsonl

from judges.calls.backend import CallError
from judges.calls.scripted import by_metric
from judges.render.plot import plot_result_matrix
from judges.suite.loading import load_unit_tests
from judges.suite.outcome_summary import outcomes_of
from judges.types import FailureKind


def perfect_script():
    return by_metric(
        {
            "answer_relevancy": reply("answer_relevancy", 5),
            "completeness": reply("completeness", 5),
            "faithfulness": reply("faithfulness", 1),
        }
    )


def test_a_correct_judge_passes_all_six_metrics(tmp_path):
    tests = load_unit_tests(write_jsonl(tmp_path / "u.jsonl", [record()]))
    judge, _ = scripted_judge(perfect_script())
    [result] = run_tests(tests, judge, tmp_path).records
    assert {m: e.outcome for m, e in result.metrics.items()} == {
        "answer_relevancy": "pass",
        "completeness": "pass",
        "faithfulness": "pass",
        "usefulness": "pass",
        "positive_acceptance": "pass",
        "negative_rejection": "pass",
    }
    row = json.loads((tmp_path / "results.jsonl").read_text())
    [call] = row["metrics"]["completeness"]["calls"]
    assert row["passed_all"] and len(call["prompt_sha256"]) == 64
    assert call["reply"] == reply("completeness", 5)


def test_rates_count_run_failures_apart_from_wrong_grades(tmp_path):
    records = [record(id=f"t{i}", actual_output=f"answer {i} [1].") for i in range(4)]
    tests = load_unit_tests(write_jsonl(tmp_path / "u.jsonl", records))
    by_answer = {
        "answer 0": reply("completeness", 5),
        "answer 1": reply("completeness", 3),
        "answer 2": "garbage",
        "answer 3": CallError(FailureKind.TIMEOUT, "slow"),
    }

    def script(request):
        if request.metric != "completeness":
            return reply(request.metric, 5 if request.metric == "answer_relevancy" else 1)
        prompt = request.messages[0]["content"]
        return next(r for marker, r in by_answer.items() if marker in prompt)

    judge, _ = scripted_judge(script)
    judge.runtime.settings.max_attempts = 2
    run = run_tests(tests, judge, tmp_path)
    summary = run.summary
    stats = summary.metrics["completeness"]
    assert (stats.passed, stats.wrong_grades, stats.failures, stats.completed) == (1, 1, 2, 2)
    assert stats.pass_rate == 0.5 and stats.failure_rate == 0.5  # the pass rate is over completed tests
    kinds = sorted(
        r.metrics["completeness"].verdict.failure_kind
        for r in run.records
        if r.metrics["completeness"].verdict.state == "failure"
    )
    assert kinds == ["timeout", "unparseable"]
    assert stats.failure_kinds == {"timeout": 1, "unparseable": 1}
    # PA and NR derive from C: a failed C is a run failure there too, never a silent null
    assert summary.metrics["positive_acceptance"].failures == 2
    assert summary.total_pass_rate == sum(m.pass_rate for m in summary.metrics.values()) / 6
    # the counts in run.json are those of results.jsonl
    saved = json.loads((tmp_path / "run.json").read_text())["summary"]["metrics"]["completeness"]
    lines = [json.loads(line) for line in (tmp_path / "results.jsonl").read_text().splitlines()]
    assert saved["failures"] == sum(r["metrics"]["completeness"]["outcome"] == "failure" for r in lines) == 2


def test_a_failed_relevancy_fails_what_depends_on_it_and_is_never_a_wrong_grade(tmp_path):
    """Regression: a failed answer-relevancy call took the branch meant for a legitimate null, so usefulness was
    judged, faithfulness came back null, and the test counted a wrong grade against the judge."""
    tests = load_unit_tests(write_jsonl(tmp_path / "u.jsonl", [record()]))
    judge, backend = scripted_judge(
        by_metric(
            {
                "answer_relevancy": CallError(FailureKind.API_ERROR, "HTTP 500"),
                "completeness": reply("completeness", 5),
                "usefulness": reply("usefulness", None),
            }
        )
    )
    judge.runtime._answered = True  # an endpoint that has answered before: the failure is this call's alone
    [row] = run_tests(tests, judge, tmp_path).records
    metrics = row.metrics
    assert metrics["answer_relevancy"].verdict.failure_kind == "api_error"
    assert metrics["usefulness"].verdict.failure_kind == "upstream_failed"
    assert metrics["faithfulness"].verdict.failure_kind == "upstream_failed"
    assert {m: e.outcome for m, e in metrics.items()} == {
        "answer_relevancy": "failure",
        "completeness": "pass",
        "faithfulness": "failure",
        "usefulness": "failure",
        "positive_acceptance": "failure",
        "negative_rejection": "failure",
    }
    assert [r.metric for r in backend.requests].count("usefulness") == 0  # nothing judged downstream of a failure


def test_abstention_test_expects_nulls_and_pa_nr(tmp_path):
    abstain = record(
        actual_output="No document seems to precisely answer your question.",
        conditions={
            "answer_relevancy_condition": "==None",
            "completeness_condition": "<5",
            "faithfulness_condition": "==None",
            "usefulness_condition": "==None",
        },
        metadata={"test_type": "Low completeness 2", "goal": "false abstention"},
    )
    tests = load_unit_tests(write_jsonl(tmp_path / "u.jsonl", [abstain]))
    judge, backend = scripted_judge(
        by_metric(
            {
                "answer_relevancy": reply("answer_relevancy", None),
                "completeness": reply("completeness", 1),
                "usefulness": reply("usefulness", None),
            }
        )
    )
    [result] = run_tests(tests, judge).records
    assert all(e.outcome == "pass" for e in result.metrics.values())
    pa = result.metrics["positive_acceptance"]
    assert pa.condition == "==0" and pa.verdict.grade == 0
    assert "faithfulness" not in [r.metric for r in backend.requests]


def test_by_type_breakdown_and_plot_on_the_train_split(tmp_path):
    tests = load_unit_tests(ROOT / "unit_tests", "train")[:16]
    judge, _ = scripted_judge(perfect_script())
    run = run_tests(tests, judge)
    by_type = outcomes_of(run.summary.part).by_test_type
    assert len(by_type) == 16
    assert by_type["Highest marks 1"].total == 1.0
    assert by_type["Low faithfulness 1"].pass_rates["faithfulness"] == 0.0
    png = plot_result_matrix(run, tmp_path / "m.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_template_error_stops_the_run_before_any_call(tmp_path):
    from judges.errors import PromptError
    from judges.judging.prompts import PromptSet, PromptTemplate

    tests = load_unit_tests(write_jsonl(tmp_path / "u.jsonl", [record()]))
    judge, backend = scripted_judge(perfect_script())
    broken = PromptTemplate("faithfulness", tmp_path / "f", "{{ retrieved_contexts }}")
    judge.prompts = PromptSet("broken", tmp_path, {**judge.prompts.templates, "faithfulness": broken})
    try:
        run_tests(tests, judge)
    except PromptError as err:
        assert "retrieved_contexts" in str(err)
    else:
        raise AssertionError("a missing template variable must stop the run")
    assert backend.requests == []


def test_max_cost_stops_cleanly_and_keeps_finished_tests(tmp_path):
    from judges.calls.runtime import CallRuntime, RuntimeSettings
    from judges.calls.scripted import ScriptedBackend

    tests = load_unit_tests(write_jsonl(tmp_path / "u.jsonl", [record(id=f"t{i}") for i in range(10)]))
    judge, _ = scripted_judge(perfect_script())
    backend = ScriptedBackend(perfect_script(), cost_per_call=0.01)
    judge.runtime = CallRuntime(backend, None, RuntimeSettings(concurrency=1, max_cost=0.05))
    run = run_tests(tests, judge, tmp_path)
    assert run.stop_reason == "budget" and "--max-cost 0.05" in run.stop_message and run.exit_code == 4
    assert 1 <= len(run.records) < 10 and len(backend.requests) <= 6
    written = (tmp_path / "results.jsonl").read_text().splitlines()
    assert len(written) == len(run.records)  # every finished test is kept, no half-judged one is written
    assert json.loads((tmp_path / "run.json").read_text())["stop_reason"] == "budget"


def test_samples_report_grade_variance_and_flips(tmp_path):
    from judges.suite.outcome_tally import stability

    tests = load_unit_tests(write_jsonl(tmp_path / "u.jsonl", [record(id="a"), record(id="b")]))

    def script(request):  # completeness wavers between draws on test "a" only
        if request.metric == "completeness":
            prompt = request.messages[0]["content"]
            return reply("completeness", 5 if request.draw == 0 or "WAVER" not in prompt else 3)
        return reply(request.metric, 5 if request.metric == "answer_relevancy" else 1)

    tests[0] = replace(tests[0], sample=replace(tests[0].sample, actual_output="WAVER 52 weeks [1]."))
    judge, _ = scripted_judge(script)
    run = run_tests(tests, judge, draws=3)
    assert [(r.id, r.draw) for r in run.records] == [("a", 0), ("b", 0), ("a", 1), ("b", 1), ("a", 2), ("b", 2)]
    repeats = stability(run.records)
    assert repeats is not None and repeats.draws == 3 and repeats.tests == 2
    assert repeats.metrics["completeness"].flip_rate == 0.5
    assert abs(repeats.metrics["completeness"].mean_grade_variance - (8 / 9) / 2) < 1e-9
    assert repeats.metrics["answer_relevancy"].flip_rate == 0.0


def test_a_serial_judge_gets_each_tests_calls_back_to_back(tmp_path):
    """On a one-slot (local) judge a test's calls are not interleaved with other tests', so llama.cpp can reuse
    the prompt prefix they share; with more slots, tests overlap to keep the slots full."""
    from judges.calls.runtime import RuntimeSettings

    records = [record(id=f"t{i}", actual_output=f"answer {i} [1].") for i in range(5)]
    tests = load_unit_tests(write_jsonl(tmp_path / "u.jsonl", records))

    def test_of(request):
        return next(i for i in range(5) if f"answer {i} [1]." in request.messages[0]["content"])

    def order(concurrency):
        judge, backend = scripted_judge(perfect_script(), settings=RuntimeSettings(concurrency=concurrency))
        run_tests(tests, judge)
        return [test_of(r) for r in backend.requests]

    serial = order(1)
    assert serial == sorted(serial) and len(serial) == 15  # t0 x3, t1 x3, ...
    parallel = order(2)
    assert sorted(parallel) == serial and parallel != serial
