"""A `predictions` candidate: judge outputs made elsewhere (a file or a judgelab run folder), read with no call."""

from __future__ import annotations

import statistics
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from judges.agreement.predictions import Prediction, Predictions, parse_score_fields, read_predictions
from judges.agreement.predictions_columns import ColumnOutcomes
from judges.errors import ConfigError, InputError
from judges.files.toml_lines import key_line
from judges.labels.shared import shared_path
from judges.leaderboard.unit_test_entries import run_costs
from judges.runs.run_writer import FolderRecorder

if TYPE_CHECKING:
    from judges.leaderboard.config_types import Candidate

SHARED = "shared:"  # `shared:ragchecker/baseline_ragchecker.json`: a file of the shared datasets, read in place


def source_path(candidate: Candidate) -> Path:
    """The file or run folder a predictions candidate reads (`shared:` resolved to the shared datasets)."""
    source = str(candidate.source)
    if source.startswith(SHARED):
        return shared_path(source.removeprefix(SHARED))
    return Path(source)


def _where(path: str | Path, index: int, key: str) -> str:
    try:
        line = key_line(Path(path).read_text(encoding="utf-8"), ("candidates", index, key))
    except (OSError, UnicodeDecodeError):
        line = None
    return f"{path}{f':{line}' if line else ''}: candidates[{index}].{key}"


def check_predictions_candidate(candidate: Candidate, index: int, path: str | Path) -> None:
    """A predictions candidate names an existing file or run folder and well-formed fields; it sets no judge."""
    if not candidate.source:
        raise ConfigError(f"{_where(path, index, 'kind')}: a predictions candidate needs source = FILE or RUN_DIR")
    try:
        source = source_path(candidate)
    except InputError as err:
        raise ConfigError(f"{_where(path, index, 'source')}: {err}") from None
    if not source.exists():
        raise ConfigError(f"{_where(path, index, 'source')}: no predictions file or run folder {str(source)!r}")
    if source.is_dir() and not (source / "run.json").is_file():
        raise ConfigError(f"{_where(path, index, 'source')}: {str(source)!r} is a folder but not a judgelab run folder")
    try:
        parse_score_fields(candidate.score_field)
    except ConfigError as err:
        raise ConfigError(f"{_where(path, index, 'score_field')}: {str(err).removeprefix('--score-field: ')}") from None
    for key in ("model", "baseline"):
        if getattr(candidate, key):
            raise ConfigError(f"{_where(path, index, key)}: a predictions candidate makes no call and takes no {key}")


def run_metric(candidate: Candidate, labelled_metric: str) -> str:
    """The metric of the file or run that scores a labelled metric: `metrics` maps it, else the same name."""
    return candidate.metrics.get(labelled_metric, labelled_metric)


def candidate_predictions(candidate: Candidate, labelled_metric: str) -> Predictions:
    """The candidate's outputs for one labelled metric (`{metric}` in a field name is that metric)."""
    return read_predictions(
        source_path(candidate),
        id_field=candidate.id_field,
        score_field=candidate.score_field,
        metric=run_metric(candidate, labelled_metric),
    )


def item_outcomes(predictions: Predictions, metric: str, ids: list[str]) -> Mapping[str, Prediction]:
    """The outcome of each labelled item the predictions cover (an item they lack is left out: missing); still
    columns when a plain file holds exactly the labelled items in their order."""
    if isinstance(predictions.by_key, ColumnOutcomes) and (held := predictions.by_key.items_in(ids)) is not None:
        return held
    return {i: p for i, p in zip(ids, predictions.outcomes(ids, metric)) if p is not None}


def measured_costs(candidate: Candidate, labelled_metric: str, ids: set[str]) -> dict[str, Any]:
    """Calls, cost and median latency over the labelled items, when the source records them: a run folder always,
    a file through `cost_field` / `latency_field`; otherwise the cost is not measured."""
    source = source_path(candidate)
    if source.is_dir():
        return {**run_costs(FolderRecorder(source).load()), "cost_measured": True}
    out: dict[str, Any] = {"calls": 0, "cost_usd": 0.0, "latency_s_per_uncached_call": None, "cost_measured": False}
    metric = run_metric(candidate, labelled_metric)
    if candidate.cost_field:
        costs = _field_values(candidate, candidate.cost_field, metric, ids)
        out.update(calls=len(costs), cost_usd=float(sum(costs)), cost_measured=True)
    if candidate.latency_field:
        latencies = _field_values(candidate, candidate.latency_field, metric, ids)
        out["latency_s_per_uncached_call"] = statistics.median(latencies) if latencies else None
    return out


def _field_values(candidate: Candidate, field: str, metric: str, ids: set[str]) -> list[float]:
    """One number per labelled item from another field of the same file (read like a score, nulls left out)."""
    values = read_predictions(source_path(candidate), id_field=candidate.id_field, score_field=field, metric=metric)
    return [p.score for (i, _), p in values.by_key.items() if i in ids and p.score is not None]


def describe(candidate: Candidate) -> str:
    """The judges-table line: where the predictions come from and how they are read."""
    source = source_path(candidate)
    if source.is_dir():
        return f"predictions from the run folder {source} (no call)"
    parts = [f"id {candidate.id_field}", f"score {candidate.score_field}"]
    if candidate.threshold is not None:
        parts.append(f"cut at {candidate.threshold:g}")
    if not candidate.higher_is_better:
        parts.append("lower is better")
    shown = str(candidate.source) if str(candidate.source).startswith(SHARED) else source.name
    return f"predictions from {shown} ({', '.join(parts)}; no call)"
