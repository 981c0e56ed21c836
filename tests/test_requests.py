"""The one request builder: GroUSE and RAG requests, and their cache keys, are what they were before the merge."""

from __future__ import annotations

import pytest

from judges.calls.backend import CompletionRequest
from judges.calls.model_spec import JudgeModel
from judges.calls.runtime import CallRuntime
from judges.calls.scripted import ScriptedBackend
from judges.judging.grouse_judge import GroundedQAJudge
from judges.judging.prompts import load_prompt_set
from judges.judging.replies import reply_schema
from judges.judging.requests import build_request
from judges.rag.judging import LOGPROB_PARAMS, RagJudge
from judges.rag.prompting import RagPrompts

MESSAGES = [{"role": "user", "content": "Is the answer complete?"}]
SCHEMA = {"type": "object", "properties": {"verdict": {"type": "integer"}}, "required": ["verdict"]}
GROUSE_PARAMS = {"temperature": 0, "seed": 1}
RAG_PARAMS = {"temperature": 0, "max_tokens": 64}

# Cache keys computed with the two builders as they were before they became one (commit 387bed0).
KEYS_BEFORE = {
    (True, "grouse", "completeness", 0): "80904a287471b85437995bda76f4464adfeb5c5a9ecb13d420e3929756859f0e",
    (True, "grouse", "faithfulness", 2): "ec96df350dcf6be594b3231057a96c03a6ae77874f71419b105b517ef0aa341f",
    (True, "rag", "claims", 0): "6676cc7af52f8b8206d20980b626572121f39f12329f2a1770fc2c787f74853e",
    (True, "rag", "relevance", 0): "071c91888fc08c4c18410666cc491315d2ec309de6c683c5f7e421c7f5770957",
    (False, "grouse", "completeness", 0): "d24947a5f8fc366374e62b1080c710f1087cf4475cd3a94e8c69307a739a56f0",
    (False, "grouse", "faithfulness", 2): "3037c97b997da5ab37621c84715313b130587c1362cc8fb39e382c631968c3bc",
    (False, "rag", "claims", 0): "bbb180b588f8faec46180a2b8ef2e7e40700aae3807db1dd81e6b13ed8198e33",
    (False, "rag", "relevance", 0): "071c91888fc08c4c18410666cc491315d2ec309de6c683c5f7e421c7f5770957",
}


def judges_for(json_schema: bool) -> tuple[JudgeModel, GroundedQAJudge, RagJudge]:
    model = JudgeModel("m", "openai/m", json_schema=json_schema)
    runtime = CallRuntime(ScriptedBackend([]))
    grouse = GroundedQAJudge(runtime, load_prompt_set("default"), model, GROUSE_PARAMS)
    return model, grouse, RagJudge(runtime, model, RagPrompts(), RAG_PARAMS)


@pytest.mark.parametrize("json_schema", [True, False])
def test_a_grouse_request_is_the_call_it_was_and_keeps_its_cache_key(json_schema):
    _, grouse, _ = judges_for(json_schema)
    for metric, draw in (("completeness", 0), ("faithfulness", 2)):
        request = grouse.request(metric, MESSAGES, draw)
        params = dict(GROUSE_PARAMS)
        if json_schema:
            schema = reply_schema(metric, grouse.prompts.templates[metric].reply_format)
            params["response_format"] = {"type": "json_object", "schema": schema}
        assert request == CompletionRequest("openai/m", tuple(MESSAGES), params, metric=metric, draw=draw)
        assert request.cache_key() == KEYS_BEFORE[(json_schema, "grouse", metric, draw)]


@pytest.mark.parametrize("json_schema", [True, False])
def test_a_rag_request_is_the_call_it_was_and_keeps_its_cache_key(json_schema):
    _, _, rag = judges_for(json_schema)
    claims = rag.request("claims", MESSAGES, SCHEMA, None)
    with_format = {**RAG_PARAMS, "response_format": {"type": "json_object", "schema": SCHEMA}}
    assert claims == CompletionRequest(
        "openai/m", tuple(MESSAGES), with_format if json_schema else RAG_PARAMS, "claims"
    )
    assert claims.cache_key() == KEYS_BEFORE[(json_schema, "rag", "claims", 0)]
    relevance = rag.request("relevance", MESSAGES, None, LOGPROB_PARAMS)
    assert relevance.params == {"temperature": 0, "max_tokens": 1, "logprobs": True, "top_logprobs": 5}
    assert relevance.cache_key() == KEYS_BEFORE[(json_schema, "rag", "relevance", 0)]


def test_the_builder_sends_the_schema_only_to_a_model_that_takes_one_and_lets_extra_params_win():
    takes = JudgeModel("m", "openai/m", json_schema=True)
    request = build_request(takes, {"max_tokens": 64}, "t", MESSAGES, SCHEMA, {"max_tokens": 1}, draw=3)
    assert request.params == {"max_tokens": 1, "response_format": {"type": "json_object", "schema": SCHEMA}}
    assert (request.metric, request.draw) == ("t", 3)
    plain = build_request(JudgeModel("m", "openai/m"), {"max_tokens": 64}, "t", MESSAGES, SCHEMA)
    assert plain.params == {"max_tokens": 64}
    assert build_request(takes, {}, "t", MESSAGES).params == {}


@pytest.mark.parametrize("json_schema", [True, False])
def test_a_grouse_metric_from_the_rag_suite_sends_the_unit_test_paths_request(json_schema):
    """grouse_completeness in `judgelab metrics` and completeness in `judgelab run` share one cache entry."""
    import asyncio

    from conftest import reply
    from rag_helpers import score

    from judges.calls.scripted import by_metric
    from judges.types import Sample

    sample = Sample(
        input="How long is maternity leave?",
        actual_output="52 weeks [1].",
        references=("Statutory maternity leave lasts 52 weeks.",),
        expected_output="52 weeks [1].",
    )
    script = by_metric(
        {
            "answer_relevancy": reply("answer_relevancy", 5),
            "completeness": reply("completeness", 4),
            "faithfulness": reply("faithfulness", 1),
        }
    )
    result, rag_backend = score("grouse_completeness", sample, script, json_schema=json_schema)
    assert result.value == 4.0
    [from_rag] = [r for r in rag_backend.requests if r.metric == "completeness"]

    direct_backend = ScriptedBackend(script)
    model = JudgeModel("scripted", "scripted/model", json_schema=json_schema)
    judge = GroundedQAJudge(CallRuntime(direct_backend), load_prompt_set("default"), model, {"temperature": 0})
    assert asyncio.run(judge.grade("completeness", sample)).verdict.grade == 4
    [direct] = direct_backend.requests
    assert from_rag == direct
    assert from_rag.cache_key() == direct.cache_key()
