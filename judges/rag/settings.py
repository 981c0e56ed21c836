"""Run-wide metric settings (cut-off K, votes, weights, thresholds, logprob weighting), checked once."""

from __future__ import annotations

from dataclasses import dataclass

from judges.errors import ConfigError

DEFAULT_RAGAS_SCORE_OF = (
    "ragas_faithfulness",
    "ragas_answer_relevancy",
    "ragas_context_precision",
    "ragas_context_recall",
)


@dataclass(frozen=True)
class MetricSettings:
    k: int | None = None  # cut-off for ranked context metrics and retrieval metrics (None: all)
    questions: int = 3  # answer relevancy: questions generated from the answer
    strictness: int = 1  # aspect critiques: votes, an odd number; majority wins
    vote_temperature: float = 0.7  # votes must be sampled to differ; each vote has its own seed
    correctness_weights: tuple[float, float] = (0.75, 0.25)  # factual F1, semantic similarity
    correctness_threshold: float | None = None  # binarize answer correctness at this score
    similarity_threshold: float = 0.8  # LlamaIndex semantic similarity pass mark
    correctness_pass: float = 4.0  # LlamaIndex correctness pass mark (1-5)
    ragas_score_of: tuple[str, ...] = DEFAULT_RAGAS_SCORE_OF
    logprobs: bool = False  # also grade rubrics from the judge's top next-token probabilities
    trace_by_length: bool = False  # TRACe ratios over sentence lengths instead of sentence counts

    def __post_init__(self) -> None:
        if self.k is not None and self.k < 1:
            raise ConfigError("--k must be at least 1")
        if self.questions < 1:
            raise ConfigError("--questions must be at least 1")
        if self.strictness < 1 or self.strictness % 2 == 0:
            raise ConfigError("--strictness must be an odd number of votes (1, 3, 5, ...)")
        weights = self.correctness_weights
        if len(weights) != 2 or min(weights) < 0 or sum(weights) == 0:
            raise ConfigError("--correctness-weights must be two non-negative numbers, not both 0")
        if "ragas_score" in self.ragas_score_of or not self.ragas_score_of:
            raise ConfigError("--ragas-score-of must list metrics other than ragas_score")
