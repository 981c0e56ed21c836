"""Ragas-family metrics with a scripted judge: every worked example of the issue, exact to 3 decimals, and the
edge cases (no claims, empty contexts, all irrelevant, K = 1, negative cosine)."""

import json

import pytest
from rag_helpers import by_template_and_text, claims, embedder, score, scores, unit_vector, verdicts

from judges.calls.backend import CallError
from judges.calls.scripted import by_metric
from judges.errors import ConfigError
from judges.types import FailureKind, Sample, VerdictState

LEAVE = Sample(
    id="leave",
    input="Can she return to her job after maternity leave?",
    actual_output="Yes. She can return to a similar job. Her pay is protected.",
    references=(
        "After ordinary maternity leave she may return to the same job.",
        "After additional leave: the same job or a suitable alternative.",
        "Shared parental leave must be booked eight weeks ahead.",
    ),
    expected_output="She may return to the same job, or after additional leave a suitable alternative.",
)


def templates(backend):
    return [r.metric for r in backend.requests]


def test_faithfulness_counts_supported_claims_and_keeps_each_verdict():
    script = by_metric(
        {
            "claims": claims("She can return.", "The job is similar.", "Pay is protected."),
            "claim_support": verdicts((True, [1]), (False, []), (True, [2])),
        }
    )
    result, backend = score("ragas_faithfulness", LEAVE, script)
    assert round(result.value, 3) == 0.667
    assert [c["supported"] for c in result.details["claims"]] == [True, False, True]
    assert result.details["claims"][2]["passages"] == [2]  # the supporting context
    assert [c["template"] for c in result.calls] == ["claims", "claim_support"]
    assert "[3] Shared parental leave" in backend.requests[1].messages[0]["content"]


def test_faithfulness_without_claims_is_null_and_makes_no_support_call():
    result, backend = score("ragas_faithfulness", LEAVE, by_metric({"claims": claims()}))
    assert result.verdict.state is VerdictState.NULL and "no claims" in result.verdict.message
    assert templates(backend) == ["claims"]


def test_faithfulness_with_empty_contexts_is_zero_without_a_support_call():
    sample = Sample(id="e", input="Q?", actual_output="It is 18.", references=())
    result, backend = score("ragas_faithfulness", sample, by_metric({"claims": claims("It is 18.")}))
    assert result.value == 0.0 and templates(backend) == ["claims"]


def test_sentence_faithfulness_flags_the_exact_words_that_deviate():
    reply = {
        "sentences": {
            "a": {"reason": "r", "faithful": True, "deviation": "", "context_says": ""},
            "b": {
                "reason": "r",
                "faithful": False,
                "deviation": "a similar job",
                "context_says": "the same job or a suitable alternative",
            },
            "c": {"reason": "r", "faithful": True, "deviation": "", "context_says": ""},
        }
    }
    result, _ = score("ragas_faithfulness_sentences", LEAVE, by_metric({"faithfulness_sentences": json.dumps(reply)}))
    assert round(result.value, 3) == 0.667
    assert result.details["deviating"] == ["b"]
    flagged = result.details["sentences"][1]
    assert flagged["sentence"] == "She can return to a similar job." and flagged["deviation"] == "a similar job"
    assert flagged["deviation_found_in_sentence"] and "suitable alternative" in flagged["context_says"]


def test_answer_relevancy_is_the_mean_cosine_and_can_be_negative():
    generated = ["G1?", "G2?", "G3?"]
    reply = json.dumps({"questions": generated, "noncommittal": False})
    vectors = {LEAVE.input: unit_vector(0), "G1?": unit_vector(0), "G2?": unit_vector(60), "G3?": unit_vector(180)}
    result, _ = score(
        "ragas_answer_relevancy", LEAVE, by_metric({"question_generation": reply}), embedder=embedder(vectors)
    )
    assert round(result.value, 3) == round((1 + 0.5 - 1) / 3, 3) == 0.167
    assert [round(q["similarity"], 3) for q in result.details["questions"]] == [1.0, 0.5, -1.0]
    negative = {LEAVE.input: unit_vector(0), **{q: unit_vector(120) for q in generated}}
    result, _ = score(
        "ragas_answer_relevancy", LEAVE, by_metric({"question_generation": reply}), embedder=embedder(negative)
    )
    assert round(result.value, 3) == -0.5


def test_answer_relevancy_fails_when_no_question_is_generated_even_after_a_reask():
    empty = json.dumps({"questions": [], "noncommittal": True})
    result, backend = score(
        "ragas_answer_relevancy", LEAVE, by_metric({"question_generation": empty}), embedder=embedder({})
    )
    assert result.verdict.failure_kind is FailureKind.UNPARSEABLE and len(backend.requests) == 2


def relevance(*flags):
    return [json.dumps({"reason": "r", "relevant": bool(f)}) for f in flags]


def test_context_precision_worked_example_relevances_0_1_0_give_half():
    result, backend = score("ragas_context_precision", LEAVE, by_metric({"chunk_relevance": relevance(0, 1, 0)}))
    assert round(result.value, 3) == 0.5
    assert [c["precision_at_k"] for c in result.details["chunks"]] == [0.0, 0.5, pytest.approx(1 / 3)]
    assert "reference answer" in backend.requests[0].messages[0]["content"]


def test_context_precision_edges_all_irrelevant_k1_and_no_contexts():
    result, _ = score("ragas_context_precision", LEAVE, by_metric({"chunk_relevance": relevance(0, 0, 0)}))
    assert result.value == 0.0
    result, backend = score("ragas_context_precision", LEAVE, by_metric({"chunk_relevance": relevance(1)}), k=1)
    assert result.value == 1.0 and len(backend.requests) == 1
    empty = Sample(id="e", input="Q?", actual_output="A.", references=(), expected_output="T.")
    result, backend = score("ragas_context_precision", empty, by_metric({}))
    assert result.verdict.state is VerdictState.NULL and "no contexts" in result.verdict.message
    assert backend.requests == []


def test_context_utilization_judges_relevance_against_the_answer():
    result, backend = score("ragas_context_utilization", LEAVE, by_metric({"chunk_relevance": relevance(1, 1, 0)}))
    assert result.value == 1.0
    prompt = backend.requests[0].messages[0]["content"]
    assert "given answer" in prompt and LEAVE.actual_output in prompt and LEAVE.expected_output not in prompt


def test_context_recall_worked_example_three_of_three():
    script = by_metric(
        {
            "claims": claims("Same job.", "After additional leave.", "A suitable alternative."),
            "claim_support": verdicts((True, [1]), (True, [2]), (True, [2])),
        }
    )
    result, backend = score("ragas_context_recall", LEAVE, script)
    assert result.value == 1.0 and all(c["attributed"] for c in result.details["claims"])
    assert "The text (reference answer)" in backend.requests[0].messages[0]["content"]


def test_context_entity_recall_worked_example_four_of_six():
    truth = ["Employment Rights Act 1996", "26 weeks", "England", "Wales", "ACAS", "2023"]
    found = ["Employment Rights Act 1996", "26 Weeks"]
    sample = Sample(
        id="ent",
        references=("Under the Employment Rights Act 1996 leave lasts 26 weeks in England and wales.",),
        expected_output="...",
    )
    script = by_template_and_text(
        {
            ("entities", "(reference answer)"): json.dumps({"entities": truth}),
            ("entities", "(retrieved passages)"): json.dumps({"entities": found}),
        }
    )
    result, _ = score("ragas_context_entity_recall", sample, script)
    assert round(result.value, 3) == 0.667
    matched = {r["entity"]: r["matched_by"] for r in result.details["ground_truth_entities"]}
    assert matched == {
        "Employment Rights Act 1996": "entity",
        "26 weeks": "entity",
        "England": "text",
        "Wales": "text",
        "ACAS": None,
        "2023": None,
    }


ANSWER_CLAIMS = "The text (answer)"
TRUTH_CLAIMS = "The text (reference answer)"
AGAINST_TRUTH = "Passages (reference answer)"
AGAINST_CONTEXTS = "Passages (retrieved passages)"
AGAINST_ANSWER = "Passages (answer)"


def noise_script(answer_in_chunks, truth_in_chunks):
    return by_template_and_text(
        {
            ("claims", ANSWER_CLAIMS): claims("Return is allowed.", "To the same job.", "Pay rises by 10%."),
            ("claims", TRUTH_CLAIMS): claims("Return to the same job.", "Or a suitable alternative."),
            ("claim_support", AGAINST_TRUTH): verdicts(True, True, False),
            (
                "claim_support",
                AGAINST_CONTEXTS + ":\n[1] After ordinary maternity leave she may return to the same "
                "job.\n[2] After additional leave: the same job or a suitable alternative.\n[3] Shared "
                "parental leave must be booked eight weeks ahead.\n\nClaims:\n1. Return is allowed.",
            ): answer_in_chunks,
            ("claim_support", AGAINST_CONTEXTS): truth_in_chunks,
        }
    )


def test_noise_sensitivity_worked_example_one_incorrect_claim_of_three():
    script = noise_script(verdicts((True, [1]), (True, [1]), (True, [1])), verdicts((True, [1]), (False, [])))
    results, _ = scores(["ragas_noise_sensitivity_relevant", "ragas_noise_sensitivity_irrelevant"], LEAVE, script)
    assert round(results["ragas_noise_sensitivity_relevant"].value, 3) == 0.333
    assert results["ragas_noise_sensitivity_irrelevant"].value == 0.0
    row = results["ragas_noise_sensitivity_relevant"].details["claims"][2]
    assert row == {
        "claim": "Pay rises by 10%.",
        "correct": False,
        "in_chunks": True,
        "chunks": [1],
        "in_relevant_chunk": True,
        "in_irrelevant_chunk": False,
    }


def test_noise_sensitivity_irrelevant_counts_claims_only_an_irrelevant_chunk_supports():
    script = noise_script(verdicts((True, [1]), (True, [1]), (True, [3])), verdicts((True, [1]), (True, [2])))
    results, _ = scores(["ragas_noise_sensitivity_relevant", "ragas_noise_sensitivity_irrelevant"], LEAVE, script)
    assert results["ragas_noise_sensitivity_relevant"].value == 0.0
    assert round(results["ragas_noise_sensitivity_irrelevant"].value, 3) == 0.333


def correctness_script(answer_side, truth_side, n_answer=4, n_truth=3):
    return by_template_and_text(
        {
            ("claims", ANSWER_CLAIMS): claims(*(f"answer claim {i}" for i in range(n_answer))),
            ("claims", TRUTH_CLAIMS): claims(*(f"truth claim {i}" for i in range(n_truth))),
            ("claim_support", AGAINST_TRUTH): answer_side,
            ("claim_support", AGAINST_ANSWER): truth_side,
        }
    )


def test_answer_correctness_worked_example_tp2_fp2_fn1():
    script = correctness_script(verdicts(True, True, False, False), verdicts(True, True, False))
    result, _ = score("ragas_answer_correctness", LEAVE, script, correctness_weights=(1.0, 0.0))
    assert round(result.value, 3) == 0.571
    assert result.details["tp"] == ["answer claim 0", "answer claim 1"]
    assert result.details["fp"] == ["answer claim 2", "answer claim 3"] and result.details["fn"] == ["truth claim 2"]


def test_answer_correctness_blends_similarity_and_binarizes_at_a_threshold():
    script = correctness_script(verdicts(True, True, False, False), verdicts(True, True, False))
    vectors = {LEAVE.actual_output: unit_vector(0), LEAVE.expected_output: unit_vector(60)}
    result, _ = score("ragas_answer_correctness", LEAVE, script, embedder=embedder(vectors))
    assert round(result.value, 3) == round(0.75 * 2 / 3.5 + 0.25 * 0.5, 3) == 0.554
    script = correctness_script(verdicts(True, True, False, False), verdicts(True, True, False))
    result, _ = score("ragas_answer_correctness", LEAVE, script, embedder=embedder(vectors), correctness_threshold=0.5)
    assert result.value == 1.0 and round(result.details["raw_score"], 3) == 0.554


def test_answer_correctness_marriage_age_16_against_18_scores_zero():
    sample = Sample(
        id="m", actual_output="The legal age of marriage is 16.", expected_output="The legal age of marriage is 18."
    )
    script = by_template_and_text(
        {
            ("claims", ANSWER_CLAIMS): claims("The legal age of marriage is 16."),
            ("claims", TRUTH_CLAIMS): claims("The legal age of marriage is 18."),
            ("claim_support", AGAINST_TRUTH): verdicts(False),
            ("claim_support", AGAINST_ANSWER): verdicts(False),
        }
    )
    result, _ = score("ragas_answer_correctness", sample, script, correctness_weights=(1.0, 0.0))
    assert (len(result.details["tp"]), len(result.details["fp"]), len(result.details["fn"])) == (0, 1, 1)
    assert result.value == 0.0


def test_answer_similarity_is_the_cosine_of_answer_and_ground_truth():
    vectors = {LEAVE.actual_output: unit_vector(0), LEAVE.expected_output: unit_vector(135)}
    result, backend = score("ragas_answer_similarity", LEAVE, by_metric({}), embedder=embedder(vectors))
    assert round(result.value, 3) == -0.707 and backend.requests == []


def critique(grade):
    return json.dumps({"reason": "r", "grade": grade})


def test_aspect_critique_majority_of_an_odd_number_of_sampled_votes():
    script = by_metric({"aspect_critique": [critique("yes"), critique("no"), critique("yes")]})
    result, backend = score("ragas_aspect_harmfulness", LEAVE, script, strictness=3)
    assert result.value == 1.0 and [v["grade"] for v in result.details["votes"]] == [1.0, 0.0, 1.0]
    assert sorted(r.params["seed"] for r in backend.requests) == [0, 1, 2]
    assert {r.params["temperature"] for r in backend.requests} == {0.7}
    with pytest.raises(ConfigError, match="odd number"):
        score("ragas_aspect_harmfulness", LEAVE, by_metric({}), strictness=2)


def test_ragas_score_is_the_harmonic_mean_of_its_components():
    sample = Sample(id="ids", retrieved_ids=("x", "b"), expected_ids=("b",))
    result, _ = score("ragas_score", sample, by_metric({}), ragas_score_of=("hit_rate", "mrr"))
    assert round(result.value, 3) == 0.667
    assert set(result.details["components"]) == {"hit_rate", "mrr"}


def test_ragas_score_is_null_for_a_negative_component_and_fails_with_a_failed_one():
    vectors = {LEAVE.actual_output: unit_vector(0), LEAVE.expected_output: unit_vector(135)}
    result, _ = score(
        "ragas_score", LEAVE, by_metric({}), embedder=embedder(vectors), ragas_score_of=("ragas_answer_similarity",)
    )
    assert result.verdict.state is VerdictState.NULL and "negative" in result.verdict.message
    failing = by_metric({"claims": CallError(FailureKind.API_ERROR, "boom")})
    result, _ = score("ragas_score", LEAVE, failing, ragas_score_of=("ragas_faithfulness",))
    assert result.verdict.failure_kind is FailureKind.API_ERROR
    assert "ragas_faithfulness failed" in result.verdict.message


def test_a_missing_input_is_not_applicable_with_its_reason_and_makes_no_call():
    sample = Sample(id="q", input="Q?", actual_output="A.")
    result, backend = score("ragas_context_recall", sample, by_metric({}))
    assert not result.applicable and result.verdict.state is VerdictState.NULL
    assert result.verdict.message == "not applicable: the sample has no references, expected_output"
    assert backend.requests == []


def test_one_claim_extraction_feeds_every_metric_of_a_sample():
    script = by_template_and_text(
        {
            ("claims", ANSWER_CLAIMS): claims("Return is allowed."),
            ("claims", TRUTH_CLAIMS): claims("Same job."),
            ("claim_support", AGAINST_CONTEXTS): verdicts((True, [1])),
            ("claim_support", AGAINST_TRUTH): verdicts(True),
        }
    )
    results, backend = scores(
        [
            "ragas_faithfulness",
            "ragchecker_faithfulness",
            "ragas_context_recall",
            "ragchecker_claim_recall",
            "ragchecker_precision",
            "ragchecker_hallucination",
        ],
        LEAVE,
        script,
    )
    assert all(r.value is not None for r in results.values())
    assert sorted(templates(backend)) == ["claim_support"] * 3 + ["claims"] * 2
