"""The leaderboard config's types (candidates, evaluations, selection, juries, the whole file); it imports nothing of
the leaderboard package, so that every module of it may name them (reading and checking a file is config.py's)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from judges.agreement.agreement_settings import LabelMeasuring
from judges.config.judge import JudgeConfig, build_config
from judges.secrets import scrub

_NOT_SHOWN = ("model", "prompts", "api_base", "cache")  # named elsewhere in the notes, or not the judge's

CANDIDATE_KINDS = ("llm", "metric", "baseline", "embedding", "predictions")
UNIT_TESTS, LABELS = "unit_tests", "labels"  # a board's evaluation kinds (its TOML's vocabulary, not run kinds)
EVALUATION_KINDS = (UNIT_TESTS, LABELS)
PASS_RATE, TOTAL = "pass_rate", "total"  # a unit-test evaluation's statistic, and its row over every metric
# the constant judges of a judge benchmark, their verdict in each order (named as given): always the answer shown first
PAIR_BASELINES = {"always-first": ("A", "B"), "always-tie": ("tie", "tie")}
_STRICT = ConfigDict(extra="forbid", frozen=True, strict=True, allow_inf_nan=False)


class Candidate(JudgeConfig):
    """A judge to rank: an LLM with a GroUSE prompt set and parameters, an LLM behind a metric of the RAG suite,
    a reference baseline, an embedding score, or predictions made elsewhere (a file or a run folder, no call).
    Its judge keys are JudgeConfig's, with the same defaults as on the command line (`judge(cache)` is the config
    a run gets)."""

    name: str
    kind: Literal["llm", "metric", "baseline", "embedding", "predictions"] = "llm"
    # llm and metric: a LiteLLM id or local judge (required); embedding: an embedding model
    model: str | None = None  # type: ignore[assignment]
    baseline: str | None = None  # baseline: oracle / always-top / always-lowest / always-null / random
    metrics: dict[str, str] = Field(default_factory=dict)  # metric: labelled metric -> suite metric scoring it
    logprobs: bool = False  # metric: the probability-weighted grade from the judge's top next tokens
    higher_is_better: bool = True  # False for a score where a lower value means a better answer
    # predictions: a file read as `judgelab agreement --predictions` reads it, or a judgelab run folder
    source: str | None = None
    id_field: str = "id"
    score_field: str = "score"  # FIELD or A_FIELD,B_FIELD (a pair's preference b - a); {metric} = labelled metric
    threshold: float | None = None  # binary labels: the given cut of a continuous score (as --threshold)
    cost_field: str | None = None  # a file's per-row cost in USD, when it has one
    latency_field: str | None = None  # a file's per-row latency in seconds, when it has one

    def judge(self, cache: str) -> JudgeConfig:
        """The judge this candidate runs: the keys it sets, over the leaderboard's cache, else the defaults."""
        return build_config({"cache": cache, **self.given()})

    def judge_settings(self) -> dict[str, object]:
        """The judge keys set beside the model, prompts, endpoint and cache (shown in the leaderboard's notes), with
        the credential fields of `extra` masked."""
        shown: dict[str, object] = scrub({k: v for k, v in self.given().items() if k not in _NOT_SHOWN})
        return shown

    def scores(self, labelled_metric: str) -> bool:
        """Whether this candidate gives a score for a labelled metric (a metric candidate only for those it maps)."""
        return self.kind != "metric" or labelled_metric in self.metrics


class Evaluation(LabelMeasuring):
    """Unit tests (a file or folder, a split, a limit) or a labelled set (a name or file, a metric, a limit). A labels
    evaluation's other keys are `LabelMeasuring`'s, as `judgelab agreement` takes them: the labels read from your own
    file (`columns`, `label_map`, `label_type`, `scale`), where a continuous judge's cut for binary labels is fitted
    (`calibration`, `calibration_fraction`, `folds`), the `policy` for null, failed and missing outcomes, the
    `statistic` that ranks (default: by label type and system names) and the bootstrap's `resamples`."""

    kind: Literal["unit_tests", "labels"]
    source: str  # a path (relative to the config file) or a shipped set name
    # split: unit tests: train / test; labels: a split of a shipped set (e.g. test); metric: labels: which one
    limit: int | None = Field(default=None, ge=1)  # default: every item
    name: str = ""  # a stable name for the tables; by default built from the kind, file, split, metric and limit
    # labels: a judge benchmark's released files (its pairs, each judge's verdict per order), ranked by a pairwise
    # statistic (`judgelab agreement --format`); its candidates are predictions files and the PAIR_BASELINES
    # (RewardBench: a reward model's scores per answer, ranked by best_of_n; no constant judge)
    format: Literal["llmbar", "judgebench", "mtbench", "rewardbench"] | None = None

    @property
    def on_unit_tests(self) -> bool:
        return self.kind == UNIT_TESTS

    @property
    def on_labels(self) -> bool:
        """Labels read as a labelled set (a judge benchmark's pairs are `on_pairs`)."""
        return self.kind == LABELS and self.format is None

    @property
    def on_pairs(self) -> bool:
        return self.kind == LABELS and self.format is not None

    def default_name(self) -> str:
        parts = [self.kind, Path(self.source).name]
        if self.on_unit_tests:
            parts.append(self.split or "test")
        else:
            parts += [p for p in (self.split, self.metric, self.format) if p]
        if self.limit is not None:
            parts.append(f"first-{self.limit}" if self.on_unit_tests else f"{self.limit}-items")
        return ":".join(parts)


class Selection(BaseModel):
    """Ranking rule and optional constraints; ties (overlapping intervals) go to the cheaper, then faster judge."""

    model_config = _STRICT

    max_cost_per_1k_calls: float | None = Field(default=None, ge=0)
    min_unit_test_pass_rate: float | None = Field(default=None, ge=0, le=1)
    max_failure_rate: float | None = Field(default=None, ge=0, le=1)


class Jury(BaseModel):
    """A panel of candidates of the same config and how their grades are combined, item by item and metric
    by metric: `majority` (the most common verdict, a null counting as one; a tie goes to the member listed first),
    `median` (of the grades, the lower middle one for an even count) or `mean` (of the grades); for the last two the
    verdict is null when most members said null. A member whose call failed is left out of that verdict; when every
    member failed, the jury's verdict is a failure."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, allow_inf_nan=False)

    name: str
    members: list[str] = Field(min_length=2)
    rule: Literal["majority", "median", "mean"] = "majority"


class LeaderboardConfig(BaseModel):
    """The whole file: `[[candidates]]`, `[[evaluations]]`, an optional `[selection]` and `cache`."""

    model_config = _STRICT

    candidates: list[Candidate] = Field(min_length=1)
    evaluations: list[Evaluation] = Field(min_length=1)
    selection: Selection = Field(default_factory=Selection)
    jury: list[Jury] = Field(default_factory=list)  # [[jury]] tables (judged in judges.leaderboard.jury)
    cache: str = ".judgelab/cache.sqlite"
    _path: str = PrivateAttr(default="")

    @property
    def path(self) -> str:
        """The file the config was read from."""
        return self._path
