"""The leaderboard config (TOML): candidate judges, the evaluations they face, and how the best is chosen."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, with_config
from typing_extensions import TypedDict

from judges.errors import ConfigError
from judges.files.toml_config import read_toml, validate_config

CANDIDATE_KINDS = ("llm", "metric", "baseline", "embedding")
JUDGE_PARAMS = ("temperature", "max_tokens", "seed", "extra", "json_schema", "concurrency", "timeout_s")
EVALUATION_KINDS = ("unit_tests", "labels")
_STRICT = ConfigDict(extra="forbid", frozen=True, strict=True)


@with_config(ConfigDict(extra="forbid", strict=True))
class JudgeParams(TypedDict, total=False):
    """A candidate's judge parameters (those of `judgelab meta-eval`); kept a plain dict for JudgeOptions."""

    temperature: float | None
    max_tokens: int | None
    seed: int | None
    extra: dict[str, Any]
    json_schema: bool | None
    concurrency: int
    timeout_s: float


class Candidate(BaseModel):
    """A judge to rank: an LLM with a GroUSE prompt set and parameters, an LLM behind a metric of the RAG suite,
    a reference baseline, or an embedding score."""

    model_config = _STRICT

    name: str
    kind: Literal["llm", "metric", "baseline", "embedding"] = "llm"
    model: str | None = None  # llm and metric: a LiteLLM id or local judge; embedding: an embedding model
    prompts: str = "default"
    params: JudgeParams = Field(default_factory=dict)  # type: ignore[assignment]
    baseline: str | None = None  # baseline: oracle / always-top / always-lowest / always-null / random
    api_base: str | None = None
    metrics: dict[str, str] = Field(default_factory=dict)  # metric: labelled metric -> suite metric scoring it
    logprobs: bool = False  # metric: the probability-weighted grade from the judge's top next tokens

    def scores(self, labelled_metric: str) -> bool:
        """Whether this candidate gives a score for a labelled metric (a metric candidate only for those it maps)."""
        return self.kind != "metric" or labelled_metric in self.metrics


class Evaluation(BaseModel):
    """Unit tests (a file or folder, a split, a limit) or a labelled set (a name or file, a metric, a limit)."""

    model_config = _STRICT

    kind: Literal["unit_tests", "labels"]
    source: str
    split: Literal["train", "test"] | None = None
    limit: int | None = Field(default=None, ge=1)
    metric: str | None = None  # labels: which labelled metric

    @property
    def name(self) -> str:
        if self.kind == "unit_tests":
            return f"unit_tests:{Path(self.source).name}:{self.split or 'test'}"
        return f"labels:{self.source}"


class Selection(BaseModel):
    """Ranking rule and optional constraints; ties (overlapping intervals) go to the cheaper, then faster judge."""

    model_config = _STRICT

    max_cost_per_1k_calls: float | None = Field(default=None, ge=0)
    min_unit_test_pass_rate: float | None = Field(default=None, ge=0, le=1)
    max_failure_rate: float | None = Field(default=None, ge=0, le=1)


class LeaderboardConfig(BaseModel):
    """The whole file: `[[candidates]]`, `[[evaluations]]`, an optional `[selection]` and `cache`."""

    model_config = _STRICT

    candidates: list[Candidate] = Field(min_length=1)
    evaluations: list[Evaluation] = Field(min_length=1)
    selection: Selection = Field(default_factory=Selection)
    cache: str = ".judgelab/cache.sqlite"
    _path: str = PrivateAttr(default="")

    @property
    def path(self) -> str:
        """The file the config was read from."""
        return self._path


def load_config(path: str | Path) -> LeaderboardConfig:
    data = read_toml(path)
    for table in ("candidates", "evaluations"):
        if not data.get(table):
            raise ConfigError(f"{path}: needs at least one [[candidates]] and one [[evaluations]] table")
    config = validate_config(LeaderboardConfig, data, path)
    config._path = str(path)
    for i, c in enumerate(config.candidates):
        if c.kind in ("llm", "metric", "embedding") and not c.model:
            raise ConfigError(f"{path}: candidates[{i}] ({c.name}) needs a model")
        if c.kind == "baseline" and not c.baseline:
            raise ConfigError(f"{path}: candidates[{i}] ({c.name}) needs a baseline name")
        if c.kind == "metric":
            _check_metric_map(c, f"{path}: candidates[{i}] ({c.name})")
    names = [c.name for c in config.candidates]
    if len(set(names)) != len(names):
        raise ConfigError(f"{path}: candidate names must be unique")
    return config


def _check_metric_map(candidate: Candidate, where: str) -> None:
    """A metric candidate maps each labelled metric it scores to a metric of the suite's registry."""
    from judges.rag.registry import build_registry

    if not candidate.metrics or not isinstance(candidate.metrics, dict):
        raise ConfigError(
            f'{where}: a metric candidate needs metrics = {{labelled_metric = "suite_metric"}}, '
            'e.g. {faithfulness = "llamaindex_faithfulness"}'
        )
    registry = build_registry()
    for labelled, suite in candidate.metrics.items():
        if suite not in registry:
            raise ConfigError(
                f"{where}: metrics.{labelled} = {suite!r} is not a suite metric; see `judgelab metrics --list`"
            )
