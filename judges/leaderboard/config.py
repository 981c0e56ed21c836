"""Reading the leaderboard config (TOML) and checking it beyond its types (those are in config_types.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from judges.errors import ConfigError
from judges.files.toml_config import read_toml, validate_config
from judges.files.toml_lines import key_line
from judges.labels.label_sets import SETS
from judges.leaderboard.columns import PAIRWISE_STATISTICS, label_statistics
from judges.leaderboard.config_types import Candidate, Evaluation, LeaderboardConfig
from judges.leaderboard.jury import check_juries
from judges.leaderboard.predictions_source import check_predictions_candidate
from judges.rag.metric_registry import build_registry


def load_config(path: str | Path) -> LeaderboardConfig:
    data = read_toml(path)
    for table in ("candidates", "evaluations"):
        if not data.get(table):
            raise ConfigError(f"{path}: needs at least one [[candidates]] and one [[evaluations]] table")
    config = validate_config(LeaderboardConfig, _relative_to(data, Path(path).parent), path)
    config._path = str(path)
    named = [e.name or e.default_name() for e in config.evaluations]
    if len(set(named)) != len(named):
        raise ConfigError(
            f"{path}: two evaluations share the name {next(n for n in named if named.count(n) > 1)!r}; "
            "give them distinct `name`s"
        )
    for index, (evaluation, name) in enumerate(zip(config.evaluations, named)):
        object.__setattr__(evaluation, "name", name)  # frozen: the stable name is settled once, here
        _check_statistic(evaluation, index, path)
    for i, c in enumerate(config.candidates):
        if c.kind in ("llm", "metric", "embedding") and not c.model:
            raise ConfigError(f"{path}: candidates[{i}] ({c.name}) needs a model")
        if c.kind == "baseline" and not c.baseline:
            raise ConfigError(f"{path}: candidates[{i}] ({c.name}) needs a baseline name")
        if c.kind == "metric":
            _check_metric_map(c, f"{path}: candidates[{i}] ({c.name})")
        if c.kind == "predictions":
            check_predictions_candidate(c, i, path)
    names = [c.name for c in config.candidates]
    if len(set(names)) != len(names):
        raise ConfigError(f"{path}: candidate names must be unique")
    check_juries(config, path)
    return config


def _relative_to(data: dict[str, Any], folder: Path) -> dict[str, Any]:
    """Paths in a config are relative to the config file: `cache` (the file's and a candidate's), a predictions
    candidate's `source`, and each evaluation's `source` and `calibration`, when such a file or folder exists there
    (a shipped set name such as `begin-cmu` stays a name)."""

    def resolve(value: Any) -> Any:
        if not isinstance(value, str) or Path(value).is_absolute() or value.partition(":")[0] in SETS:
            return value  # a shipped set's name stays a name, even beside a folder of that name
        candidate = folder / value
        return str(candidate) if candidate.exists() else value

    def in_folder(table: Any) -> Any:
        if isinstance(table, dict) and isinstance(table.get("cache"), str) and not Path(table["cache"]).is_absolute():
            return {**table, "cache": str(folder / table["cache"])}
        return table

    out = in_folder(dict(data))
    if isinstance(out.get("candidates"), list):
        out["candidates"] = [
            {k: resolve(v) if k == "source" else v for k, v in in_folder(c).items()} if isinstance(c, dict) else c
            for c in out["candidates"]
        ]
    if isinstance(out.get("evaluations"), list):
        out["evaluations"] = [
            {k: resolve(v) if k in ("source", "calibration") else v for k, v in e.items()} if isinstance(e, dict) else e
            for e in out["evaluations"]
        ]
    return out


def _check_metric_map(candidate: Candidate, where: str) -> None:
    """A metric candidate maps each labelled metric it scores to a metric of the suite's registry."""

    if not candidate.metrics or not isinstance(candidate.metrics, dict):
        raise ConfigError(
            f'{where}: a metric candidate needs metrics = {{labelled_metric = "suite_metric"}}, '
            'e.g. {faithfulness = "llamaindex_faithfulness"}'
        )
    registry = build_registry(using=candidate.metrics.values())
    for labelled, suite in candidate.metrics.items():
        if suite not in registry:
            raise ConfigError(
                f"{where}: metrics.{labelled} = {suite!r} is not a suite metric; see `judgelab metrics --list`"
            )


def _where(path: str | Path, index: int, key: str) -> str:
    line = key_line(Path(path).read_text(encoding="utf-8"), ("evaluations", index, key))
    return f"{path}{f':{line}' if line else ''}: evaluations[{index}].{key}"


def _check_statistic(evaluation: Evaluation, index: int, path: str | Path) -> None:
    """An evaluation's `statistic` is one the leaderboard can rank labels (or a judge benchmark's pairs) by."""

    if evaluation.format is not None and evaluation.on_unit_tests:
        raise ConfigError(f"{_where(path, index, 'format')}: a judge benchmark's format applies to labels")
    if evaluation.on_pairs and evaluation.limit is not None:
        raise ConfigError(f"{_where(path, index, 'limit')}: a judge benchmark is ranked on all its pairs; no limit")
    if evaluation.statistic is None:
        return
    where = _where(path, index, "statistic")
    if evaluation.on_unit_tests:
        raise ConfigError(f"{where}: unit tests are ranked by pass rate; statistic applies to labels")
    if evaluation.on_pairs and evaluation.statistic not in PAIRWISE_STATISTICS:
        raise ConfigError(
            f"{where}: {evaluation.statistic!r} is not a pairwise statistic; one of "
            f"{', '.join(sorted(PAIRWISE_STATISTICS))}"
        )
    if evaluation.on_pairs and (evaluation.statistic == "best_of_n") != (evaluation.format == "rewardbench"):
        raise ConfigError(f"{where}: best_of_n ranks RewardBench (a model's scores) and RewardBench only best_of_n")
    if evaluation.on_labels and evaluation.statistic not in label_statistics():
        raise ConfigError(
            f"{where}: {evaluation.statistic!r} is not a labelled-set statistic; one of "
            f"{', '.join(sorted(label_statistics()))}"
        )
