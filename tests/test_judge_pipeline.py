"""The judge against a scripted backend: GroUSE null rules, re-ask, failures with their kinds."""

import asyncio

from conftest import reply, scripted_judge

from judges.calls.backend import CallError
from judges.calls.scripted import by_metric
from judges.types import FailureKind, Sample, VerdictState

SAMPLE = Sample("Q?", ("ref one", "ref two"), "A [1].", "A [1].")


def judge_once(script, **kwargs):
    judge, backend = scripted_judge(script, **kwargs)
    return asyncio.run(judge.judge(SAMPLE)), backend


def metrics_called(backend):
    return [r.metric for r in backend.requests]


def test_graded_relevancy_skips_usefulness_and_judges_faithfulness():
    records, backend = judge_once(
        by_metric(
            {
                "answer_relevancy": reply("answer_relevancy", 5),
                "completeness": reply("completeness", 4),
                "faithfulness": reply("faithfulness", 1),
            }
        )
    )
    assert sorted(metrics_called(backend)) == ["answer_relevancy", "completeness", "faithfulness"]
    assert records["usefulness"].verdict.state is VerdictState.NULL and records["usefulness"].calls == []
    assert records["faithfulness"].verdict.grade == 1 and records["completeness"].verdict.grade == 4


def test_null_relevancy_and_null_usefulness_make_faithfulness_null_without_a_call():
    records, backend = judge_once(
        by_metric(
            {
                "answer_relevancy": reply("answer_relevancy", None),
                "completeness": reply("completeness", None),
                "usefulness": reply("usefulness", None),
            }
        )
    )
    assert "faithfulness" not in metrics_called(backend)
    assert records["faithfulness"].verdict.state is VerdictState.NULL
    assert "usefulness came back null" in records["faithfulness"].verdict.message


def test_null_relevancy_with_useful_information_judges_faithfulness():
    records, backend = judge_once(
        by_metric(
            {
                "answer_relevancy": reply("answer_relevancy", None),
                "completeness": reply("completeness", None),
                "usefulness": reply("usefulness", 1),
                "faithfulness": reply("faithfulness", 0),
            }
        )
    )
    assert metrics_called(backend).count("faithfulness") == 1
    assert records["usefulness"].verdict.grade == 1 and records["faithfulness"].verdict.grade == 0


def test_unparseable_reply_is_asked_again_once_then_fails():
    records, backend = judge_once(
        by_metric(
            {
                "answer_relevancy": ["not json", reply("answer_relevancy", 5)],
                "completeness": ["garbage", "still garbage"],
                "faithfulness": reply("faithfulness", 1),
            }
        )
    )
    relevancy, completeness = records["answer_relevancy"], records["completeness"]
    assert relevancy.verdict.grade == 5 and len(relevancy.calls) == 2 and relevancy.calls[0]["reply"] == "not json"
    assert relevancy.calls[0]["unusable"] == "unparseable" and "unusable" not in relevancy.calls[1]
    reask = [r for r in backend.requests if r.metric == "answer_relevancy"][1]
    assert [m["role"] for m in reask.messages] == ["user", "assistant", "user"]
    assert completeness.verdict.failure_kind is FailureKind.UNPARSEABLE and len(completeness.calls) == 2


def test_refusal_is_not_asked_again():
    records, backend = judge_once(
        by_metric(
            {
                "answer_relevancy": reply("answer_relevancy", 5),
                "completeness": "I cannot help with that.",
                "faithfulness": reply("faithfulness", 1),
            }
        )
    )
    assert records["completeness"].verdict.failure_kind is FailureKind.REFUSED
    assert metrics_called(backend).count("completeness") == 1


def test_api_error_becomes_a_failure_not_a_zero():
    error = CallError(FailureKind.API_ERROR, "HTTP 400 bad request")
    records, _ = judge_once(
        by_metric(
            {
                "answer_relevancy": error,
                "completeness": reply("completeness", 5),
                "usefulness": reply("usefulness", None),
            }
        )
    )
    verdict = records["answer_relevancy"].verdict
    assert verdict.is_failure and verdict.grade is None and "400" in verdict.message


def test_schema_is_sent_only_when_the_model_supports_it():
    script = by_metric(
        {
            "answer_relevancy": reply("answer_relevancy", 5),
            "completeness": reply("completeness", 5),
            "faithfulness": reply("faithfulness", 1),
        }
    )
    _, plain = judge_once(script)
    _, constrained = judge_once(script, json_schema=True)
    assert all("response_format" not in r.params for r in plain.requests)
    formats = [r.params["response_format"] for r in constrained.requests]
    assert all(f["type"] == "json_object" and "answer_2" in f["schema"]["properties"] for f in formats)


def test_every_record_carries_its_prompt_hash():
    records, _ = judge_once(
        by_metric(
            {
                "answer_relevancy": reply("answer_relevancy", 5),
                "completeness": reply("completeness", 5),
                "faithfulness": reply("faithfulness", 1),
            }
        )
    )
    assert all(
        len(records[m].calls[0]["prompt_sha256"]) == 64 for m in ("answer_relevancy", "completeness", "faithfulness")
    )
