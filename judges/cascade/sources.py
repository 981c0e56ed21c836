"""The judges of a cascade, `NAME=SOURCE` each: their verdicts read as `judgelab agreement` reads predictions, with
the run config and the cost per item when the source is a run folder."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from judges.agreement.predictions import Prediction, Predictions, read_predictions
from judges.agreement.predictions_columns import OneMetric
from judges.cascade.calibration_schema import name_problem
from judges.cascade.verdicts import VerdictRule
from judges.errors import ConfigError, InputError
from judges.records.judge_identity import JudgeIdentity, predictions_identity
from judges.runs.run_config import RunConfig
from judges.runs.run_identity import run_identity
from judges.runs.run_writer import FolderRecorder


@dataclass(frozen=True)
class Judge:
    """One judge of the cascade: its name, where its verdicts come from, the verdicts, and (a run folder) its run
    config and what it cost per item graded."""

    name: str
    source: str
    predictions: Predictions
    metric: str
    run_config: RunConfig | None = None
    cost_per_item: float | None = None
    identity: JudgeIdentity = field(default_factory=predictions_identity)  # who judged (a file: null fields)

    def get(self, item_id: str) -> Prediction | None:
        return self.predictions.get(item_id, self.metric)

    def ids(self) -> set[str]:
        return self.predictions.ids(self.metric)


def parse_judge_spec(text: str) -> tuple[str | None, str]:
    """`NAME=SOURCE` as (name, source); a bare SOURCE (an existing path, or one without `=`) has no name."""
    name, sep, source = text.partition("=")
    if not sep or Path(text).exists():
        return None, text
    if not name.strip() or not source.strip():
        raise ConfigError(f"--predictions: expected NAME=SOURCE (a predictions file or a run folder), got {text!r}")
    return name.strip(), source.strip()


def open_judge(spec: str, metric: str, default_name: str | None = None) -> Judge:
    """The judge `NAME=SOURCE` on `metric`: a predictions file (`id`, `score`, optional `confidence`) or a run folder.
    A bare SOURCE is named `default_name`, else after its file or folder."""
    name, source = parse_judge_spec(spec)
    path = Path(source)
    name = name or default_name or path.stem
    if problem := name_problem(name):
        raise ConfigError(f"--predictions: {problem}")
    if not path.exists():
        raise InputError("no predictions file or run folder here", path=source)
    predictions = read_predictions(path, metric=metric)
    if not path.is_dir():
        return Judge(name, source, predictions, metric)
    run = FolderRecorder(path).load()
    graded = sum(1 for record in run.iter_records() if record.draw == 0)
    cost = run.summary.usage.priced_cost / graded if graded else None
    identity = run_identity(run)
    return Judge(name, source, predictions, metric, run_config=run.config, cost_per_item=cost, identity=identity)


def unread_judge(name: str, source: str, metric: str) -> Judge:
    """A judge whose verdicts are read elsewhere (a line at a time): its name and source, for the summary."""
    return Judge(name, source, Predictions({}), metric)


def open_judges(specs: Sequence[str], metric: str, default_names: Sequence[str] | None = None) -> list[Judge]:
    """Every judge, cheapest first as given (a bare SOURCE named by `default_names` at its place); names are unique."""
    names_given: list[str | None] = list(default_names) if default_names else [None] * len(specs)
    judges = [open_judge(spec, metric, name) for spec, name in zip(specs, names_given, strict=True)]
    names = [judge.name for judge in judges]
    if repeated := sorted({n for n in names if names.count(n) > 1}):
        raise ConfigError(f"--predictions: the judge name {repeated[0]!r} is given twice; each judge needs its own")
    return judges


def judge_arrays(judge: Judge, ids: Sequence[str], rule: VerdictRule) -> tuple[np.ndarray, np.ndarray]:
    """The judge's scores and confidences on `ids` (NaN for a null or a failure, never kept); an item it lacks, or a
    grade with no confidence, is an InputError. Grades held as a column are read as columns (no object per item)."""
    if (columns := column_arrays(judge, ids, rule)) is not None:
        return columns
    scores = np.full(len(ids), np.nan)
    confidences = np.full(len(ids), np.nan)
    for n, item_id in enumerate(ids):
        prediction = judge.get(item_id)
        if prediction is None:
            raise missing_items(judge, [i for i in ids if judge.get(i) is None], len(ids))
        confidence = rule.confidence(prediction)
        if prediction.score is not None and confidence is None:
            raise InputError(
                f"item {item_id!r} has a grade but no confidence: give a `confidence` column in [0, 1] "
                "(binary labels with a probability score in [0, 1] need none)",
                path=judge.source,
            )
        if prediction.score is not None and confidence is not None:
            scores[n], confidences[n] = prediction.score, confidence
    return scores, confidences


def judge_arrays_among(
    judge: Judge, ids: Sequence[str], positions: np.ndarray, rule: VerdictRule
) -> tuple[np.ndarray, np.ndarray]:
    """`judge_arrays` on the ids at `positions` of `ids` (the items that reach the judge): grades held as a column of
    exactly `ids` are read whole and cut (no index per id), others looked up id by id."""
    by_key = judge.predictions.by_key
    if len(positions) == len(ids):
        return judge_arrays(judge, ids, rule)
    if isinstance(by_key, OneMetric) and not by_key.may_state_confidence() and len(by_key) == len(ids):
        held = by_key.score_columns(ids)
        if held is not None and held[1] is None:  # every id held: the file's own ids, read as a column
            scores = np.asarray(held[0], dtype=float)[positions]
            return scores, derived(judge, rule, scores, lambda n: ids[int(positions[n])])
    return judge_arrays(judge, [ids[n] for n in positions], rule)


def column_arrays(judge: Judge, ids: Sequence[str], rule: VerdictRule) -> tuple[np.ndarray, np.ndarray] | None:
    """`judge_arrays` for grades held as a column (a plain predictions file: no null, failure or stated
    confidence), else None."""
    by_key = judge.predictions.by_key
    if not isinstance(by_key, OneMetric) or by_key.may_state_confidence():
        return None
    held = by_key.score_columns(ids)
    if held is None:
        return None
    scores, present = held
    if present is not None and not present.all():
        raise missing_items(judge, [i for i, here in zip(ids, present, strict=True) if not here], len(ids))
    scores = np.asarray(scores, dtype=float)
    return scores, derived(judge, rule, scores, ids.__getitem__)


def derived(judge: Judge, rule: VerdictRule, scores: np.ndarray, id_at: Callable[[int], str]) -> np.ndarray:
    """The confidences the grades give (`VerdictRule.derived_confidences`); a grade that gives none is one line."""
    confidences = rule.derived_confidences(scores)
    if len(scores) and np.isnan(confidences).any():
        first = id_at(int(np.flatnonzero(np.isnan(confidences))[0]))
        raise InputError(
            f"item {first!r} has a grade but no confidence: give a `confidence` column in [0, 1] "
            "(binary labels with a probability score in [0, 1] need none)",
            path=judge.source,
        )
    return confidences


def missing_items(judge: Judge, missing: list[str], total: int) -> InputError:
    """One line: the judge's source lacks items it must decide (how many, and the first)."""
    return InputError(
        f"ids do not match: {len(missing)} of {total} items have no {judge.metric} prediction from judge "
        f"{judge.name!r} (first: {missing[0]!r})",
        path=judge.source,
    )
