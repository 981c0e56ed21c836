"""RAGChecker's eleven metrics from one scripted claim matrix, computed by hand."""

from rag_helpers import by_template_and_text, claims, scores, verdicts

from judges.rag.metric_registry import build_registry
from judges.types import Sample, VerdictState

SAMPLE = Sample(
    id="rc",
    input="What does the GIL do?",
    actual_output="The GIL lets one thread run Python bytecode at a time. It was removed in 3.12. "
    "It protects reference counts. Python was created by Guido van Rossum.",
    references=(
        "The GIL allows only one thread to execute Python bytecode at once.",
        "Python 3.13 offers an optional free-threaded build.",
        "Python is a programming language.",
    ),
    expected_output="The GIL lets only one thread execute bytecode at a time. It protects reference "
    "counts. Python 3.13 can be built without it.",
)
ANSWER = ["One thread at a time.", "Removed in 3.12.", "Protects reference counts.", "Created by Guido."]
TRUTH = ["One thread at a time.", "Protects reference counts.", "3.13 can be built without it."]
# answer claims vs ground truth: correct, incorrect, correct, incorrect (not in the ground truth)
# answer claims vs chunks: [1], [2] (incorrect, from the relevant chunk 2), none, [3] (incorrect, irrelevant chunk 3)
# truth claims vs chunks: [1], none, [2]  -> relevant chunks {1, 2}
# truth claims vs answer: yes, yes, no
SCRIPT = by_template_and_text(
    {
        ("claims", "The text (answer)"): claims(*ANSWER),
        ("claims", "The text (reference answer)"): claims(*TRUTH),
        ("claim_support", "Passages (reference answer)"): verdicts(True, False, True, False),
        ("claim_support", "Passages (answer)"): verdicts(True, True, False),
        ("claim_support", "Claims:\n1. One thread at a time.\n2. Removed"): verdicts(
            (True, [1]), (True, [2]), (False, []), (True, [3])
        ),
        ("claim_support", "Claims:\n1. One thread at a time.\n2. Protects"): verdicts(
            (True, [1]), (False, []), (True, [2])
        ),
    }
)


def test_every_ragchecker_metric_from_one_claim_matrix():
    names = [n for n, s in build_registry().items() if s.family == "ragchecker"]
    results, backend = scores(names, SAMPLE, SCRIPT)
    values = {name: round(r.value, 3) for name, r in results.items()}
    assert values == {
        "ragchecker_precision": 0.5,  # 2 of 4 answer claims are correct
        "ragchecker_recall": 0.667,  # 2 of 3 truth claims are in the answer
        "ragchecker_f1": 0.571,  # 2 x 0.5 x 0.667 / 1.167
        "ragchecker_claim_recall": 0.667,  # 2 of 3 truth claims are in the chunks
        "ragchecker_context_precision": 0.667,  # chunks 1 and 2 of 3 hold a truth claim
        "ragchecker_context_utilization": 0.5,  # of the 2 retrieved truth claims, 1 is in the answer
        "ragchecker_noise_sensitivity_relevant": 0.25,  # "Removed in 3.12." from relevant chunk 2
        "ragchecker_noise_sensitivity_irrelevant": 0.25,  # "Created by Guido." from irrelevant chunk 3
        "ragchecker_hallucination": 0.0,  # every incorrect claim is in some chunk
        "ragchecker_self_knowledge": 0.25,  # "Protects reference counts." is correct and in no chunk
        "ragchecker_faithfulness": 0.75,  # 3 of 4 answer claims are in the chunks
    }
    assert len(backend.requests) == 6  # 2 extractions + 4 checks, shared by the eleven metrics
    assert results["ragchecker_context_precision"].details["relevant_chunks"] == [1, 2]


def test_no_answer_claims_make_the_answer_side_null():
    script = by_template_and_text(
        {
            ("claims", "The text (answer)"): claims(),
            ("claims", "The text (reference answer)"): claims(*TRUTH),
            ("claim_support", "Passages (answer)"): verdicts(False, False, False),
        }
    )
    results, _ = scores(["ragchecker_precision", "ragchecker_recall", "ragchecker_f1"], SAMPLE, script)
    assert results["ragchecker_precision"].verdict.state is VerdictState.NULL
    assert results["ragchecker_recall"].value == 0.0
    assert results["ragchecker_f1"].verdict.state is VerdictState.NULL
