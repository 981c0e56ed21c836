"""TruLens triad and G-Eval-style rubrics with a scripted judge; logprob-weighted grades."""

import asyncio
import json
import math

from conftest import ROOT
from rag_helpers import LogprobBackend, canned, make_judge, run_metrics_task, score

from judges.calls.backend import CallError
from judges.calls.runtime import RuntimeSettings
from judges.calls.scripted import by_metric
from judges.rag.dataset import load_rag_samples
from judges.rag.metric_registry import build_registry
from judges.rag.scope import score_sample as run_sample
from judges.types import FailureKind, Sample, VerdictState

SAMPLE = Sample(
    id="c",
    input="What is HTTP/2 multiplexing?",
    actual_output="Several streams share one connection. Responses no longer block each other.",
    references=(
        "HTTP/2 multiplexes many streams over a single TCP connection.",
        "HTTP/1.1 pipelining suffered from head-of-line blocking.",
        "Cats sleep a lot.",
    ),
)


def grade(value):
    return json.dumps({"reason": "r", "grade": value})


def test_trulens_context_relevance_is_the_mean_normalized_grade_over_chunks():
    result, backend = score(
        "trulens_context_relevance", SAMPLE, by_metric({"trulens_context_relevance": [grade(3), grade(2), grade(0)]})
    )
    assert round(result.value, 3) == round((1 + 2 / 3 + 0) / 3, 3) == 0.556
    assert len(backend.requests) == 3 and [c["rank"] for c in result.details["chunks"]] == [1, 2, 3]


def test_trulens_groundedness_grades_each_answer_sentence():
    reply = json.dumps({"sentences": {"a": {"reason": "[1]", "grade": 3}, "b": {"reason": "partly [2]", "grade": 1}}})
    result, _ = score("trulens_groundedness", SAMPLE, by_metric({"trulens_groundedness": reply}))
    assert round(result.value, 3) == 0.667
    assert result.details["sentences"]["b"]["sentence"] == "Responses no longer block each other."


def test_trulens_answer_relevance_normalizes_0_to_3():
    result, _ = score("trulens_answer_relevance", SAMPLE, by_metric({"trulens_answer_relevance": grade(2)}))
    assert round(result.value, 3) == 0.667 and result.details["grade"] == 2.0


def test_rubric_turns_the_criterion_into_steps_once_per_run():
    steps = json.dumps({"steps": ["Read the question.", "Check the answer addresses it."]})
    judge, backend = make_judge(by_metric({"rubric_steps": steps, "rubric_grade": grade(4)}))
    registry = build_registry()
    other = Sample(id="d", input="Q2?", actual_output="A2.")
    rows = run_metrics_task([SAMPLE, other], [registry["rubric_helpfulness"]], judge, registry).records
    assert [row.metrics["rubric_helpfulness"].verdict.grade for row in rows] == [0.75, 0.75]
    assert [r.metric for r in backend.requests].count("rubric_steps") == 1
    assert rows[1].metrics["rubric_helpfulness"].details["steps"] == [
        "Read the question.",
        "Check the answer addresses it.",
    ]
    assert "2. Check the answer addresses it." in backend.requests[-1].messages[0]["content"]


def test_failed_evaluation_steps_are_tried_again_by_the_next_sample():
    steps = json.dumps({"steps": ["Read.", "Grade."]})
    judge, _backend = make_judge(
        by_metric({"rubric_steps": [CallError(FailureKind.API_ERROR, "down"), steps], "rubric_grade": grade(3)}),
        runtime_settings=RuntimeSettings(concurrency=1, backoff_initial_s=0, backoff_max_s=0),
    )
    registry = build_registry()
    rows = run_metrics_task(
        [SAMPLE, Sample(id="d", input="Q2?", actual_output="A2.")], [registry["rubric_helpfulness"]], judge, registry
    ).records
    first, second = (row.metrics["rubric_helpfulness"] for row in rows)
    assert first.verdict.failure_kind == "api_error" and second.verdict.grade == 0.5


def test_rubric_weighted_by_logprobs_g_eval_style():
    steps = json.dumps({"steps": ["Look.", "Grade."]})
    backend = LogprobBackend(
        by_metric({"rubric_steps": steps, "rubric_grade": grade(5)}),
        {"rubric_grade": {"5": math.log(0.5), "4": math.log(0.25), "2": math.log(0.25)}},
    )
    result, _ = score("rubric_coherence", SAMPLE, backend=backend, logprobs=True)
    assert round(result.details["weighted"]["value"], 3) == 4.0  # 0.5 x 5 + 0.25 x 4 + 0.25 x 2
    assert round(result.value, 3) == 0.75 and result.details["grade"] == 5.0


def test_aspect_critique_with_logprobs_reports_p_yes():
    backend = LogprobBackend(
        by_metric({"aspect_critique": grade("no")}),
        {"aspect_critique": {"No": math.log(0.5), "Yes": math.log(0.3), "The": math.log(0.2)}},
    )
    result, _ = score("ragas_aspect_coherence", SAMPLE, backend=backend, logprobs=True)
    assert result.details["verdict"] == 0.0 and round(result.value, 3) == 0.375  # 0.3 / (0.3 + 0.5)


def test_user_defined_aspects_and_criteria_register_like_built_ins():
    registry = build_registry({"politeness": "Is the answer polite?"}, {"brevity": "How short the answer is."})
    assert registry["ragas_aspect_politeness"].options["definition"] == "Is the answer polite?"
    assert registry["rubric_brevity"].family == "rubric"


def test_a_refused_judgement_is_a_failure_not_a_zero():
    result, _ = score(
        "trulens_answer_relevance", SAMPLE, by_metric({"trulens_answer_relevance": "I can't help with that request."})
    )
    assert result.verdict.state is VerdictState.FAILURE and result.verdict.failure_kind.value == "refused"


def test_every_rubric_template_renders_in_grade_only_mode():
    sample = load_rag_samples(str(ROOT / "tests" / "data" / "rag_samples.jsonl"))[0]
    rubric_templates = [
        "llamaindex_correctness",
        "llamaindex_guidelines",
        "llamaindex_faithfulness",
        "llamaindex_relevancy",
        "aspect_critique",
        "trulens_context_relevance",
        "trulens_answer_relevance",
        "rubric_grade",
    ]
    top = {"1": math.log(0.5), "yes": math.log(0.3), "The": math.log(0.2)}
    backend = LogprobBackend(canned, dict.fromkeys(rubric_templates, top))
    judge, _ = make_judge(backend=backend, json_schema=True, logprobs=True)
    registry = build_registry()
    names = [n for n, s in registry.items() if s.family in ("llamaindex", "trulens", "rubric") and s.uses_judge]
    names += [n for n in registry if n.startswith("ragas_aspect_")]
    results = asyncio.run(run_sample(sample, [registry[n] for n in names], judge, registry))
    for name, result in results.items():
        assert result.verdict.state is VerdictState.GRADE, (name, result.verdict)
    token_prompts = [r.messages[0]["content"] for r in backend.requests if r.params.get("logprobs")]
    assert {r.metric for r in backend.requests if r.params.get("logprobs")} == set(rubric_templates)
    assert all("JSON" not in prompt for prompt in token_prompts)


def test_langchains_fourteen_criteria_are_yes_no_critiques_of_their_own_family():
    registry = build_registry()
    names = sorted(n for n, spec in registry.items() if spec.family == "langchain")
    assert names == sorted(
        f"langchain_{c}"
        for c in [
            "conciseness",
            "relevance",
            "correctness",
            "coherence",
            "harmfulness",
            "maliciousness",
            "helpfulness",
            "controversiality",
            "misogyny",
            "criminality",
            "insensitivity",
            "depth",
            "creativity",
            "detail",
        ]
    )
    assert not registry["langchain_harmfulness"].higher_is_better and registry["langchain_depth"].higher_is_better
    yes, backend = score("langchain_depth", SAMPLE, by_metric({"aspect_critique": grade("yes")}))
    no, _ = score("langchain_misogyny", SAMPLE, by_metric({"aspect_critique": grade("no")}))
    assert (yes.value, no.value) == (1.0, 0.0)
    prompt = str(backend.requests[0].messages)
    assert "Aspect: depth" in prompt and "careful, thorough thinking" in prompt
