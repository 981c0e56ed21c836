"""`judgelab evaluate FILE --cascade calibration.json`: the calibrated judges run in turn, each asked only about the
items the earlier ones did not keep, their runs written beside the cascade's decisions."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from judges.agreement.predictions import Predictions
from judges.api import grade_samples
from judges.cascade.applying import Decision, decide
from judges.cascade.decision_files import queue_of, summary_lines, write_decisions
from judges.cascade.sources import Judge, open_judge
from judges.cascade.verdicts import VerdictRule
from judges.config.judge import JudgeConfig
from judges.errors import ConfigError
from judges.labels.schema import LabelType
from judges.types import Sample


def cascade_judge_config(base: JudgeConfig, entry: Mapping[str, Any], path: str) -> tuple[JudgeConfig, int]:
    """A calibrated judge's config from the run config calibration.json keeps (model, endpoint, prompts, decoding),
    over the command's other settings (cache, concurrency, limits); and its draws per item."""
    run = entry.get("run_config")
    if not isinstance(run, Mapping):
        raise ConfigError(
            f"{path}: judge {entry.get('name')!r} was calibrated from a predictions file, so judgelab cannot run it; "
            "calibrate from run folders, or apply the cascade to outputs made elsewhere with `judgelab cascade apply`"
        )
    params = run.get("params") or {}
    prompts = run.get("prompts") or {}
    changes: dict[str, Any] = {"model": run["judge"], "api_base": run.get("api_base")}
    changes.update({k: params[k] for k in ("temperature", "max_tokens", "seed") if k in params})
    if prompts.get("folder"):
        changes["prompts"] = prompts["folder"]
    if run.get("json_schema") is not None:
        changes["json_schema"] = bool(run["json_schema"])
    return base.merged(**changes), int(run.get("draws") or 1)


def evaluate_cascade(
    samples: Sequence[tuple[str, Sample]],
    calibration: Mapping[str, Any],
    calibration_path: str,
    base: JudgeConfig,
    out: Path,
    *,
    progress: bool = False,
    data: str | None = None,
) -> list[Path]:
    """Each judge in turn grades the calibration's metric on the items no earlier judge kept (its run folder under
    `out/runs/<name>`); the first whose confidence reaches its threshold decides; decisions.jsonl, summary.md and the
    escalated items' queue.jsonl in `out`, as `cascade apply` writes them."""
    metric = str(calibration["metric"])
    rule = VerdictRule(LabelType(calibration["label_type"]), float(calibration["cut"]))
    configs = [cascade_judge_config(base, entry, calibration_path) for entry in calibration["judges"]]
    decided: dict[str, Decision] = {}
    remaining = list(samples)
    judges: list[Judge] = []
    for entry, (config, draws) in zip(calibration["judges"], configs, strict=True):
        name = str(entry["name"])
        if not remaining:  # nothing left to ask: the judge is never called
            judges.append(Judge(name, "(not asked)", Predictions({}), metric))
            continue
        folder = out / "runs" / name
        grade_samples(remaining, config, metrics=[metric], out=folder, draws=draws, progress=progress, data=data)
        judge = open_judge(f"{name}={folder}", metric)
        judges.append(judge)
        threshold = None if entry.get("threshold") is None else float(entry["threshold"])
        kept = {d.id: d for d in decide([judge], [threshold], rule) if d.decided_by is not None}
        decided.update(kept)
        remaining = [(item_id, sample) for item_id, sample in remaining if item_id not in kept]
    decisions = [decided.get(item_id) or Decision(item_id) for item_id, _ in samples]
    summary = summary_lines(decisions, judges, calibration)
    queue = queue_of(decisions, metric, {item_id: sample for item_id, sample in samples}, calibration_path)
    return write_decisions(out, decisions, summary, queue)
