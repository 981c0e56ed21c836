"""The GroUSE adapter: the Foundation's judge and pipeline, reached through the metric registry."""

from conftest import reply
from rag_helpers import scores

from judges.calls.scripted import by_metric
from judges.types import Sample, VerdictState

SAMPLE = Sample(
    id="g",
    input="How long is maternity leave?",
    actual_output="52 weeks [1].",
    references=("Statutory maternity leave lasts 52 weeks.",),
    expected_output="52 weeks [1].",
)
GROUSE = [
    "grouse_answer_relevancy",
    "grouse_completeness",
    "grouse_faithfulness",
    "grouse_usefulness",
    "grouse_positive_acceptance",
    "grouse_negative_rejection",
]


def test_graded_sample_runs_the_grouse_pipeline_once():
    script = by_metric(
        {
            "answer_relevancy": reply("answer_relevancy", 5),
            "completeness": reply("completeness", 4),
            "faithfulness": reply("faithfulness", 1),
        }
    )
    results, backend = scores(GROUSE, SAMPLE, script)
    assert [results[m].value for m in GROUSE[:3]] == [5.0, 4.0, 1.0]
    assert results["grouse_usefulness"].verdict.state is VerdictState.NULL
    assert results["grouse_positive_acceptance"].verdict.state is VerdictState.NULL
    assert len(backend.requests) == 3
    assert len(results["grouse_answer_relevancy"].calls[0]["prompt_sha256"]) == 64


def test_abstention_gives_positive_acceptance_and_negative_rejection():
    script = by_metric(
        {
            "answer_relevancy": reply("answer_relevancy", None),
            "completeness": reply("completeness", None),
            "usefulness": reply("usefulness", None),
        }
    )
    results, _ = scores(GROUSE, SAMPLE, script)
    assert results["grouse_positive_acceptance"].value == 1.0 and results["grouse_negative_rejection"].value == 1.0
    assert "usefulness came back null" in results["grouse_faithfulness"].verdict.message


def test_a_failed_grouse_call_is_a_failure_of_the_derived_metrics_too():
    script = by_metric(
        {
            "answer_relevancy": "garbage",
            "completeness": reply("completeness", 4),
            "faithfulness": reply("faithfulness", 1),
            "usefulness": reply("usefulness", None),
        }
    )
    results, _ = scores(GROUSE, SAMPLE, script)
    assert results["grouse_answer_relevancy"].verdict.state is VerdictState.FAILURE
    assert results["grouse_positive_acceptance"].verdict.state is VerdictState.FAILURE
