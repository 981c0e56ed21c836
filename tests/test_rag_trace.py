"""TRACe from one scripted labelling call: paper definitions, the popular variant, keys and edge cases."""

import json

from rag_helpers import scores

from judges.calls.scripted import by_metric
from judges.types import FailureKind, Sample, VerdictState

ALL = [
    "trace_relevance",
    "trace_utilization",
    "trace_completeness",
    "trace_adherence",
    "trace_relevance_popular",
    "trace_utilization_popular",
]
SAMPLE = Sample(
    id="t",
    input="How long is the Thames?",
    actual_output="The Thames is 346 km long. It is the longest river in Europe.",
    references=(
        "The Thames is 346 km long. It rises in the Cotswolds. It flows into the North Sea.",
        "London grew on its banks. The Volga is the longest river in Europe.",
    ),
)


def labels(**overrides):
    reply = {
        "relevance_explanation": "length is in doc 0",
        "relevant_keys": ["0a", "0b", "1a"],
        "sentences": {
            "a": {"explanation": "0a", "fully_supported": True, "supporting_keys": ["0a"]},
            "b": {"explanation": "contradicted by 1b", "fully_supported": False, "supporting_keys": []},
        },
        "utilized_keys": ["0a", "1b"],
    }
    reply.update(overrides)
    return json.dumps(reply)


def test_paper_definitions_and_popular_variant_from_one_call():
    results, backend = scores(ALL, SAMPLE, by_metric({"trace_labels": labels()}))
    values = {name: round(r.value, 3) for name, r in results.items()}
    assert values == {
        "trace_relevance": 0.6,
        "trace_utilization": 0.4,
        "trace_completeness": 0.333,
        "trace_adherence": 0.0,
        "trace_relevance_popular": 0.15,
        "trace_utilization_popular": 0.667,
    }
    assert len(backend.requests) == 1
    details = results["trace_adherence"].details
    assert details["response_sentences"]["b"]["fully_supported"] is False
    assert details["document_sentences"]["1b"] == "The Volga is the longest river in Europe."
    prompt = backend.requests[0].messages[0]["content"]
    assert "0c. It flows into the North Sea." in prompt and "b. It is the longest river in Europe." in prompt


def test_ratios_by_sentence_length():
    results, _ = scores(["trace_relevance"], SAMPLE, by_metric({"trace_labels": labels()}), trace_by_length=True)
    docs = {
        "0a": "The Thames is 346 km long.",
        "0b": "It rises in the Cotswolds.",
        "0c": "It flows into the North Sea.",
        "1a": "London grew on its banks.",
        "1b": "The Volga is the longest river in Europe.",
    }
    expected = sum(len(docs[k]) for k in ("0a", "0b", "1a")) / sum(map(len, docs.values()))
    assert round(results["trace_relevance"].value, 3) == round(expected, 3)


def test_unknown_keys_are_dropped_and_recorded():
    results, _ = scores(["trace_relevance"], SAMPLE, by_metric({"trace_labels": labels(relevant_keys=["0a", "9z"])}))
    assert results["trace_relevance"].value == 0.2 and results["trace_relevance"].details["unknown_keys"] == ["9z"]


def test_no_relevant_sentence_makes_completeness_null_not_zero():
    results, _ = scores(
        ["trace_completeness", "trace_utilization_popular"],
        SAMPLE,
        by_metric({"trace_labels": labels(relevant_keys=[])}),
    )
    assert all(r.verdict.state is VerdictState.NULL for r in results.values())


def test_a_reply_missing_a_response_sentence_is_asked_again_then_fails():
    partial = labels(sentences={"a": {"explanation": "", "fully_supported": True, "supporting_keys": []}})
    results, backend = scores(["trace_adherence"], SAMPLE, by_metric({"trace_labels": partial}))
    assert results["trace_adherence"].verdict.failure_kind is FailureKind.UNPARSEABLE
    assert len(backend.requests) == 2 and "no entry for b" in results["trace_adherence"].verdict.message


def test_empty_contexts_need_no_call():
    sample = Sample(id="e", input="Q?", actual_output="It is long.", references=())
    results, backend = scores(["trace_relevance", "trace_adherence"], sample, by_metric({}))
    assert results["trace_relevance"].verdict.state is VerdictState.NULL
    assert results["trace_adherence"].value == 0.0 and backend.requests == []
