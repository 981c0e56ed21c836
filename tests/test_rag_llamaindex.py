"""LlamaIndex family: retrieval metrics over ids without a judge, and the judged pass/fail and 1-5 metrics."""

import json
import math

import pytest
from rag_helpers import LogprobBackend, embedder, score, scores, unit_vector

from judges.calls.scripted import by_metric
from judges.types import FailureKind, Sample

IDS = Sample(id="ids", retrieved_ids=("d7", "d2", "d9", "d4"), expected_ids=("d2", "d4", "d5"))
QA = Sample(
    id="qa",
    input="How long is the Thames?",
    actual_output="About 346 km.",
    references=("The Thames is 346 km long.",),
    expected_output="It is 346 km long.",
    guidelines="Give the unit. One sentence.",
)
RETRIEVAL = ["hit_rate", "mrr", "precision_at_k", "recall_at_k", "ndcg"]


def test_retrieval_metrics_need_no_judge():
    results, backend = scores(RETRIEVAL, IDS, by_metric({}))
    dcg = 1 / math.log2(3) + 1 / math.log2(5)
    ideal = 1 + 1 / math.log2(3) + 1 / math.log2(4)
    assert {n: round(r.value, 3) for n, r in results.items()} == {
        "hit_rate": 1.0,
        "mrr": 0.5,
        "precision_at_k": 0.5,
        "recall_at_k": 0.667,
        "ndcg": round(dcg / ideal, 3),
    }
    assert backend.requests == []
    assert results["mrr"].details["retrieved_top_k"] == ["d7", "d2", "d9", "d4"]


def test_retrieval_metrics_at_k_1_and_without_ids():
    results, _ = scores(RETRIEVAL, IDS, by_metric({}), k=1)
    assert {n: r.value for n, r in results.items()} == dict.fromkeys(RETRIEVAL, 0.0)
    results, _ = scores(["hit_rate"], Sample(id="none", retrieved_ids=("a",), expected_ids=()), by_metric({}))
    assert not results["hit_rate"].applicable and "expected_ids" in results["hit_rate"].verdict.message


def grade(value, reason="feedback"):
    return json.dumps({"reason": reason, "grade": value})


@pytest.mark.parametrize("value, passing", [(4, True), (3, False)])
def test_correctness_is_1_to_5_with_a_pass_at_4(value, passing):
    result, backend = score("llamaindex_correctness", QA, by_metric({"llamaindex_correctness": grade(value)}))
    assert result.value == value and result.details["passing"] is passing and result.details["reason"] == "feedback"
    assert "Reference answer:\nIt is 346 km long." in backend.requests[0].messages[0]["content"]


def test_correctness_out_of_range_is_asked_again_then_a_failure():
    result, backend = score("llamaindex_correctness", QA, by_metric({"llamaindex_correctness": grade(7)}))
    assert result.verdict.failure_kind is FailureKind.UNPARSEABLE and len(backend.requests) == 2


def test_correctness_weighted_by_logprobs():
    backend = LogprobBackend(
        by_metric({"llamaindex_correctness": grade(4)}),
        {"llamaindex_correctness": {"4": math.log(0.6), "5": math.log(0.3), "The": math.log(0.1)}},
    )
    result, _ = score("llamaindex_correctness", QA, backend=backend, logprobs=True)
    assert round(result.value, 3) == 4.333 and result.details["grade"] == 4.0 and result.details["passing"]
    assert round(result.details["weighted"]["coverage"], 3) == 0.9
    token_call = backend.requests[-1]
    assert token_call.params["max_tokens"] == 1 and token_call.params["top_logprobs"] == 5
    assert token_call.messages[0]["content"].endswith("Grade (1-5):")


def test_logprob_weighting_fails_cleanly_without_a_grade_token():
    backend = LogprobBackend(by_metric({"llamaindex_correctness": grade(4)}), {"llamaindex_correctness": {"The": -0.1}})
    result, _ = score("llamaindex_correctness", QA, backend=backend, logprobs=True)
    assert (
        result.verdict.failure_kind is FailureKind.UNPARSEABLE
        and "no grade among the top tokens" in result.verdict.message
    )


@pytest.mark.parametrize(
    "metric, template",
    [
        ("llamaindex_guideline_adherence", "llamaindex_guidelines"),
        ("llamaindex_faithfulness", "llamaindex_faithfulness"),
        ("llamaindex_relevancy", "llamaindex_relevancy"),
    ],
)
def test_pass_fail_metrics(metric, template):
    result, _ = score(metric, QA, by_metric({template: grade("yes")}))
    assert result.value == 1.0 and result.details["passing"]
    result, _ = score(metric, QA, by_metric({template: grade("no", "breaks rule 2")}))
    assert result.value == 0.0 and not result.details["passing"] and result.details["reason"] == "breaks rule 2"


def test_guidelines_reach_the_prompt():
    _, backend = score("llamaindex_guideline_adherence", QA, by_metric({"llamaindex_guidelines": grade("yes")}))
    assert "Give the unit. One sentence." in backend.requests[0].messages[0]["content"]


def test_semantic_similarity_with_a_pass_threshold():
    vectors = {QA.actual_output: unit_vector(0), QA.expected_output: unit_vector(30)}
    result, _ = score("llamaindex_semantic_similarity", QA, by_metric({}), embedder=embedder(vectors))
    assert round(result.value, 3) == 0.866 and result.details["passing"]
    result, _ = score(
        "llamaindex_semantic_similarity", QA, by_metric({}), embedder=embedder(vectors), similarity_threshold=0.9
    )
    assert not result.details["passing"]
