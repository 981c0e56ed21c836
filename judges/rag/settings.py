"""Run-wide metric settings (cut-off K, votes, weights, thresholds, logprob weighting): one typed model, checked once,
whose fields make the `judgelab metrics` flags (`Cli`) as JudgeConfig's make the judge's."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator, model_validator

from judges.config.fields import Cli
from judges.errors import ConfigError

DEFAULT_RAGAS_SCORE_OF = (
    "ragas_faithfulness",
    "ragas_answer_relevancy",
    "ragas_context_precision",
    "ragas_context_recall",
)
GROUP = "metric settings"


class MetricSettings(BaseModel):
    """The settings every metric of a run reads; a field without `Cli` has no flag (it is set from code)."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, allow_inf_nan=False)

    k: Annotated[
        int | None, Cli("cut-off K for ranked context and retrieval metrics (default: all)", "K", group=GROUP)
    ] = None
    questions: Annotated[int, Cli("answer relevancy: questions generated from the answer", "N", group=GROUP)] = 3
    strictness: Annotated[int, Cli("aspect critiques: odd number of votes; majority wins", "N", group=GROUP)] = 1
    vote_temperature: float = 0.7  # votes must be sampled to differ; each vote has its own seed
    correctness_weights: Annotated[
        tuple[float, float],
        Cli("answer correctness: weights of statement F1 and similarity", "W1,W2", group=GROUP),
    ] = (0.75, 0.25)
    correctness_threshold: Annotated[
        float | None, Cli("answer correctness: binarize at this score", "SCORE", group=GROUP)
    ] = None
    similarity_threshold: Annotated[float, Cli("LlamaIndex similarity pass mark", "SCORE", group=GROUP)] = 0.8
    correctness_pass: float = 4.0  # LlamaIndex correctness pass mark (1-5)
    ragas_score_of: Annotated[
        tuple[str, ...], Cli("metrics whose harmonic mean is ragas_score", "A,B", group=GROUP)
    ] = DEFAULT_RAGAS_SCORE_OF
    logprobs: Annotated[
        bool,
        Cli("also grade rubrics from the judge's top-5 next-token probabilities (weighted grade)", group=GROUP),
    ] = False
    trace_by_length: Annotated[bool, Cli("TRACe ratios over sentence lengths", group=GROUP)] = False

    @field_validator("correctness_weights", "ragas_score_of", mode="before")
    @classmethod
    def _listed(cls, value: Any, info: Any) -> Any:
        """A flag's or a TOML file's list: "0.75,0.25" or [0.75, 0.25], read as a tuple."""
        if isinstance(value, str):
            parts = tuple(part.strip() for part in value.split(","))
            if info.field_name == "correctness_weights":
                try:
                    return tuple(float(part) for part in parts)
                except ValueError:
                    raise ConfigError("--correctness-weights must be two numbers, e.g. 0.75,0.25") from None
            return parts
        return tuple(value) if isinstance(value, list) else value

    @model_validator(mode="after")
    def _in_range(self) -> MetricSettings:
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
        return self


def metric_settings(values: dict[str, Any]) -> MetricSettings:
    """Checked settings from flags or a TOML table; a wrong type is one ConfigError line naming the flag."""
    try:
        return MetricSettings.model_validate(values)
    except ValidationError as err:
        problem = err.errors(include_url=False)[0]
        name = str(problem["loc"][0]) if problem["loc"] else ""
        flag = "--" + name.replace("_", "-") if name in MetricSettings.model_fields else name
        if problem["type"] == "extra_forbidden":
            raise ConfigError(f"unknown metric setting {name!r}") from None
        message = str(problem["msg"]).removeprefix("Value error, ")
        raise ConfigError(f"{flag} {message[:1].lower()}{message[1:]}, got {problem.get('input')!r}") from None
