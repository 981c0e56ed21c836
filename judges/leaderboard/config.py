"""The leaderboard config (TOML): candidate judges, the evaluations they face, and how the best is chosen."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from judges.errors import ConfigError
from judges.toml_config import read_toml

CANDIDATE_KINDS = ("llm", "metric", "baseline", "embedding")
JUDGE_PARAMS = ("temperature", "max_tokens", "seed", "extra", "json_schema", "concurrency", "timeout_s")
EVALUATION_KINDS = ("unit_tests", "labels")


@dataclass(frozen=True)
class Candidate:
    """A judge to rank: an LLM with a GroUSE prompt set and parameters, an LLM behind a metric of the RAG suite,
    a reference baseline, or an embedding score."""

    name: str
    kind: str = "llm"
    model: str | None = None  # llm and metric: a LiteLLM id or local judge; embedding: an embedding model
    prompts: str = "default"
    params: dict[str, Any] = field(default_factory=dict)
    baseline: str | None = None  # baseline: oracle / always-top / always-lowest / always-null / random
    api_base: str | None = None
    metrics: dict[str, str] = field(default_factory=dict)  # metric: labelled metric -> suite metric scoring it
    logprobs: bool = False  # metric: the probability-weighted grade from the judge's top next tokens

    def scores(self, labelled_metric: str) -> bool:
        """Whether this candidate gives a score for a labelled metric (a metric candidate only for those it maps)."""
        return self.kind != "metric" or labelled_metric in self.metrics


@dataclass(frozen=True)
class Evaluation:
    """Unit tests (a file or folder, a split, a limit) or a labelled set (a name or file, a metric, a limit)."""

    kind: str
    source: str
    split: str | None = None
    limit: int | None = None
    metric: str | None = None  # labels: which labelled metric

    @property
    def name(self) -> str:
        if self.kind == "unit_tests":
            return f"unit_tests:{Path(self.source).name}:{self.split or 'test'}"
        return f"labels:{self.source}"


@dataclass(frozen=True)
class Selection:
    """Ranking rule and optional constraints; ties (overlapping intervals) go to the cheaper, then faster judge."""

    max_cost_per_1k_calls: float | None = None
    min_unit_test_pass_rate: float | None = None
    max_failure_rate: float | None = None


@dataclass(frozen=True)
class LeaderboardConfig:
    candidates: list[Candidate]
    evaluations: list[Evaluation]
    selection: Selection
    cache: str = ".judgelab/cache.sqlite"
    path: str = ""


def _build(kind: type, table: dict[str, Any], where: str) -> Any:
    allowed = set(kind.__dataclass_fields__)
    unknown = set(table) - allowed
    if unknown:
        raise ConfigError(f"{where}: unknown key(s) {sorted(unknown)}; expected some of {sorted(allowed)}")
    try:
        return kind(**table)
    except TypeError as err:
        raise ConfigError(f"{where}: {err}") from None


def load_config(path: str | Path) -> LeaderboardConfig:
    data = read_toml(path)
    candidates = [_build(Candidate, c, f"{path}: candidates[{i}]") for i, c in enumerate(data.get("candidates", []))]
    evaluations = [_build(Evaluation, e, f"{path}: evaluations[{i}]") for i, e in enumerate(data.get("evaluations", []))]
    if not candidates or not evaluations:
        raise ConfigError(f"{path}: needs at least one [[candidates]] and one [[evaluations]] table")
    for i, c in enumerate(candidates):
        if c.kind not in CANDIDATE_KINDS:
            raise ConfigError(f"{path}: candidates[{i}] kind {c.kind!r}; expected one of {', '.join(CANDIDATE_KINDS)}")
        if c.kind in ("llm", "metric", "embedding") and not c.model:
            raise ConfigError(f"{path}: candidates[{i}] ({c.name}) needs a model")
        unknown = set(c.params) - set(JUDGE_PARAMS)
        if unknown:
            raise ConfigError(f"{path}: candidates[{i}] ({c.name}) params {sorted(unknown)}; expected some of "
                              f"{', '.join(JUDGE_PARAMS)}")
        if c.kind == "baseline" and not c.baseline:
            raise ConfigError(f"{path}: candidates[{i}] ({c.name}) needs a baseline name")
        if c.kind == "metric":
            _check_metric_map(c, f"{path}: candidates[{i}] ({c.name})")
    for i, e in enumerate(evaluations):
        if e.kind not in EVALUATION_KINDS:
            raise ConfigError(f"{path}: evaluations[{i}] kind {e.kind!r}; expected one of {', '.join(EVALUATION_KINDS)}")
    names = [c.name for c in candidates]
    if len(set(names)) != len(names):
        raise ConfigError(f"{path}: candidate names must be unique")
    selection = _build(Selection, data.get("selection", {}), f"{path}: [selection]")
    return LeaderboardConfig(candidates, evaluations, selection, data.get("cache", ".judgelab/cache.sqlite"), str(path))


def _check_metric_map(candidate: Candidate, where: str) -> None:
    """A metric candidate maps each labelled metric it scores to a metric of the suite's registry."""
    from judges.rag.registry import build_registry

    if not candidate.metrics or not isinstance(candidate.metrics, dict):
        raise ConfigError(f"{where}: a metric candidate needs metrics = {{labelled_metric = \"suite_metric\"}}, "
                          "e.g. {faithfulness = \"llamaindex_faithfulness\"}")
    registry = build_registry()
    for labelled, suite in candidate.metrics.items():
        if suite not in registry:
            raise ConfigError(f"{where}: metrics.{labelled} = {suite!r} is not a suite metric; "
                              "see `judgelab metrics --list`")
