"""The one refusing backend: a dry run that calls fails loudly; a run with no judge fails the item with a CallError."""

from __future__ import annotations

import asyncio

import pytest

from judges.calls.backend import CallError, CompletionRequest
from judges.calls.refusing import RefusingBackend, dry_run_backend, no_judge_backend
from judges.config.judge import JudgeConfig
from judges.judging.factory import planning_judge
from judges.types import FailureKind, Sample

REQUEST = CompletionRequest("openai/m", ({"role": "user", "content": "hi"},), metric="faithfulness_claims")
SAMPLE = Sample(
    input="What is the capital of France?",
    references=("Paris is the capital.",),
    expected_output="Paris [1]",
    actual_output="Paris",
)


def test_a_refused_call_is_a_call_error_naming_the_metric():
    with pytest.raises(CallError) as err:
        asyncio.run(RefusingBackend("refused for {metric}").complete(REQUEST))
    assert (err.value.kind, str(err.value)) == (FailureKind.API_ERROR, "refused for faithfulness_claims")


def test_the_no_judge_backend_keeps_its_message():
    with pytest.raises(CallError) as err:
        asyncio.run(no_judge_backend().complete(REQUEST))
    assert str(err.value) == "no judge was started for this run (faithfulness_claims asked for one)"
    assert err.value.kind is FailureKind.API_ERROR


def test_a_call_in_a_dry_run_is_a_bug_that_stops_loudly():
    with pytest.raises(AssertionError, match="^a dry run made a call$"):
        asyncio.run(dry_run_backend().complete(REQUEST))


def test_the_planning_judge_refuses_a_call_through_its_runtime(tmp_path):
    judge, cache = planning_judge(JudgeConfig(model="openai/x", cache=str(tmp_path / "none.sqlite")))
    assert cache is None
    with pytest.raises(AssertionError, match="a dry run made a call"):
        asyncio.run(judge.grade("completeness", SAMPLE))


def test_a_metrics_run_that_needs_no_judge_refuses_calls_with_the_no_judge_message():
    from judges.rag.rag_session import metrics_runtime

    with metrics_runtime(JudgeConfig(model="openai/x"), needs_judge=False) as (model, runtime):
        assert model.litellm_model == "openai/x"
        with pytest.raises(CallError, match=r"^no judge was started for this run \(claims asked for one\)$"):
            asyncio.run(runtime.backend.complete(CompletionRequest("openai/x", (), metric="claims")))
