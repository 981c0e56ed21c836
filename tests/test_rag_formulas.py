"""The RAG suite's pure parts: formulas, retrieval metrics over ids, sentence keys, entities, logprob weighting."""

import math

import pytest

from judges.rag.formulas import cosine, harmonic_mean, ranked_context_precision, statement_f1
from judges.rag.logprobs import weighted_grade
from judges.rag.rag_text import keyed_sentences, letter_key, normalize_entity, split_sentences
from judges.rag.retrieval import hit_rate, mrr, ndcg, precision_at_k, recall_at_k


@pytest.mark.parametrize(
    "relevant, expected",
    [
        ([0, 1, 0], 0.5),  # the worked example
        ([1, 0, 1], (1 + 2 / 3) / 2),
        ([1], 1.0),  # K = 1
        ([0], 0.0),  # K = 1, irrelevant
        ([0, 0, 0], 0.0),  # all irrelevant: a useless retrieval scores 0, not null
    ],
)
def test_ranked_context_precision(relevant, expected):
    assert ranked_context_precision([bool(v) for v in relevant]) == pytest.approx(expected, abs=5e-4)


def test_ranked_context_precision_of_nothing_is_undefined():
    assert ranked_context_precision([]) is None


def test_statement_f1_worked_examples():
    assert round(statement_f1(2, 2, 1), 3) == 0.571
    assert statement_f1(0, 1, 1) == 0.0  # "legal age of marriage is 16" against "18"
    assert statement_f1(0, 0, 0) is None


def test_harmonic_mean():
    assert harmonic_mean([1.0, 0.5]) == pytest.approx(2 / 3)
    assert harmonic_mean([0.9, 0.0]) == 0.0
    assert harmonic_mean([0.5, -0.2]) is None and harmonic_mean([]) is None


def test_cosine_can_be_negative_and_rejects_zero_vectors():
    assert cosine([1, 0], [-1, 0]) == -1.0
    assert round(cosine([1, 0], [math.cos(2), math.sin(2)]), 3) == round(math.cos(2), 3) < 0
    with pytest.raises(ValueError):
        cosine([0, 0], [1, 0])


def test_retrieval_metrics_over_ids():
    retrieved, expected = ["a", "b", "c"], {"b", "d"}
    assert hit_rate(retrieved, expected) == 1.0
    assert mrr(retrieved, expected) == 0.5
    assert precision_at_k(retrieved, expected) == pytest.approx(1 / 3)
    assert recall_at_k(retrieved, expected) == 0.5
    ideal = 1 + 1 / math.log2(3)
    assert round(ndcg(retrieved, expected), 3) == round((1 / math.log2(3)) / ideal, 3) == 0.387


def test_retrieval_metrics_at_k1_and_edge_cases():
    retrieved, expected = ["a", "b"], {"b"}
    assert (
        hit_rate(retrieved, expected, 1),
        mrr(retrieved, expected, 1),
        precision_at_k(retrieved, expected, 1),
        recall_at_k(retrieved, expected, 1),
        ndcg(retrieved, expected, 1),
    ) == (0.0, 0.0, 0.0, 0.0, 0.0)
    assert ndcg(["b", "a"], expected) == 1.0
    assert precision_at_k([], expected) is None and hit_rate([], expected) == 0.0 and ndcg([], expected) == 0.0
    assert mrr(["b", "b", "a"], {"a"}) == 0.5  # a repeated id counts once, at its first rank


def test_sentences_and_trace_keys():
    text = "Dr. Smith said so. The Act (s. 71) applies! Does it? 3.5 weeks remain.\nNew line here"
    assert split_sentences(text) == [
        "Dr. Smith said so.",
        "The Act (s. 71) applies!",
        "Does it?",
        "3.5 weeks remain.",
        "New line here",
    ]
    assert [letter_key(i) for i in (0, 25, 26, 27)] == ["a", "z", "aa", "ab"]
    assert keyed_sentences("One. Two.", "3") == {"3a": "One.", "3b": "Two."}


def test_entity_normalization():
    assert normalize_entity("The U.K.") == "uk"
    assert normalize_entity("  Employment  Rights Act, 1996 ") == "employment rights act 1996"
    assert normalize_entity("Zürich") == "zurich"


def test_weighted_grade_from_top_logprobs():
    top = {"4": math.log(0.6), " 5": math.log(0.3), "The": math.log(0.1)}
    grade = weighted_grade(top, {str(i): float(i) for i in range(1, 6)})
    assert round(grade.value, 3) == round((4 * 0.6 + 5 * 0.3) / 0.9, 3) == 4.333
    assert grade.coverage == pytest.approx(0.9) and grade.distribution == pytest.approx({"4": 2 / 3, "5": 1 / 3})
    yes_no = weighted_grade({"Yes": math.log(0.2), "No": math.log(0.6), "no": math.log(0.2)}, {"yes": 1, "no": 0})
    assert round(yes_no.value, 3) == 0.2
    assert weighted_grade({"The": -0.1}, {"yes": 1, "no": 0}) is None


def test_litellm_embedder_reads_vectors_and_maps_provider_errors(monkeypatch):
    import asyncio
    from types import SimpleNamespace

    from judges.calls.backend import CallError
    from judges.calls.litellm_backend import import_litellm
    from judges.rag.embeddings import LiteLLMEmbedder, open_embedder

    litellm = import_litellm()
    seen = []

    async def fake_embedding(model, input, **kwargs):
        seen.append((model, list(input), kwargs))
        return SimpleNamespace(data=[{"embedding": [float(len(t)), 1.0]} for t in input])

    monkeypatch.setattr(litellm, "aembedding", fake_embedding)
    embedder = open_embedder("openai/text-embedding-3-small", api_base="http://127.0.0.1:9/v1")
    assert isinstance(embedder, LiteLLMEmbedder)
    vectors = asyncio.run(embedder.embed(["ab", "abcd", "ab"]))
    assert vectors.tolist() == [[2.0, 1.0], [4.0, 1.0], [2.0, 1.0]]
    assert seen == [("openai/text-embedding-3-small", ["ab", "abcd"], {"api_base": "http://127.0.0.1:9/v1"})]

    async def failing(model, input, **kwargs):
        raise litellm.RateLimitError("slow down", llm_provider="openai", model=model)

    monkeypatch.setattr(litellm, "aembedding", failing)
    with pytest.raises(CallError) as caught:
        asyncio.run(LiteLLMEmbedder("openai/x").embed(["new text"]))
    assert caught.value.retryable and caught.value.kind.value == "api_error"
