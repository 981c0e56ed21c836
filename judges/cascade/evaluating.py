"""`judgelab evaluate FILE --cascade calibration.json`: the calibrated judges run in turn, each asked only about the
items the earlier ones did not keep, their runs written beside the cascade's decisions."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from judges.api import grade_samples
from judges.calls.reply_watch import watching
from judges.cascade.applying import Decision, decide
from judges.cascade.calibration_schema import CalibratedJudge, read_calibration
from judges.cascade.decision_files import fingerprints, queue_of, summary_lines, write_decisions
from judges.cascade.judge_check import ReplyWatch, check_before_calls, unchecked_note
from judges.cascade.sources import Judge, open_judge, unread_judge
from judges.cascade.verdicts import VerdictRule
from judges.config.judge import JudgeConfig
from judges.errors import ConfigError, InputError
from judges.labels.schema import LabelType
from judges.runs.run import Run
from judges.types import Sample


def cascade_judge_config(base: JudgeConfig, entry: CalibratedJudge, path: str) -> tuple[JudgeConfig, int]:
    """A calibrated judge's config from the run config calibration.json keeps (model, endpoint without credentials,
    prompts, decoding), over the command's other settings (cache, concurrency, limits); and its draws per item.
    The command's `--api-base` and `--extra`, when given, apply to every judge of the cascade (the credentials come
    from the environment or those flags, as in any run: a calibration keeps none)."""
    run = entry.run_config
    if run is None:
        raise ConfigError(
            f"{path}: judge {entry.name!r} was calibrated from a predictions file, so judgelab cannot run it; "
            "calibrate from run folders, or apply the cascade to outputs made elsewhere with `judgelab cascade apply`"
        )
    changes: dict[str, object] = {"model": run.judge}
    if "api_base" not in base.model_fields_set:
        changes["api_base"] = run.api_base
    changes.update({k: run.params[k] for k in ("temperature", "max_tokens", "seed") if k in run.params})
    if run.prompts and run.prompts.get("folder"):
        changes["prompts"] = run.prompts["folder"]
    if run.json_schema is not None:
        changes["json_schema"] = run.json_schema
    return base.merged(**changes), run.draws


def judge_folder(out: Path, name: str) -> Path:
    """`out/runs/<name>`, resolved and checked to lie inside `out` (the schema has checked the name already)."""
    root = out.resolve()
    folder = (root / "runs" / name).resolve()
    if not folder.is_relative_to(root / "runs") or folder == root / "runs":
        raise InputError(f"judge {name!r} would write outside --out ({folder})", field="name")
    return folder


def evaluate_cascade(
    samples: Sequence[tuple[str, Sample]],
    calibration_path: str,
    base: JudgeConfig,
    out: Path,
    *,
    progress: bool = False,
    data: str | None = None,
    accept: bool = False,
) -> list[Path] | Run:
    """Each judge in turn grades the calibration's metric on the items no earlier judge kept (its run folder under
    `out/runs/<name>`); the first whose confidence reaches its threshold decides; decisions.jsonl, summary.md and the
    escalated items' queue.jsonl in `out`, as `cascade apply` writes them. A judge that keeps nothing (no threshold)
    is never called. A judge's run that stops early (an unusable endpoint, the budget) is returned: the cascade
    stops there, as a plain run does. The judge is checked against its calibration's identity: a prompt edit or
    changed decoding before any call, a model name or fingerprint at the first reply; a change is one line, exit 2,
    unless `accept` (then summary.md says so)."""
    calibration = read_calibration(calibration_path)  # checked whole before any call
    if calibration.slices is not None:  # each slice's thresholds need each item's slice, which samples do not name
        raise ConfigError(
            f"{calibration_path}: calibrated per {calibration.slices.field} (--slice); apply it to the judges' outputs "
            "with `judgelab cascade apply`"
        )
    metric = calibration.metric
    rule = VerdictRule(LabelType(calibration.label_type), calibration.cut)
    configs = [cascade_judge_config(base, entry, calibration_path) for entry in calibration.judges]
    folders = [judge_folder(out, entry.name) for entry in calibration.judges]
    checked = not unchecked_note(calibration, calibration_path)
    notes = [  # a prompt edit or changed decoding: refused here, before any call
        check_before_calls(entry, config, draws, metric, accept=accept)
        for entry, (config, draws) in zip(calibration.judges, configs, strict=True)
        if checked and entry.threshold is not None
    ]
    decided: dict[str, Decision] = {}
    remaining = list(samples)
    judges: list[Judge] = []
    for entry, (config, draws), folder in zip(calibration.judges, configs, folders, strict=True):
        if not remaining or entry.threshold is None:  # nothing left to ask, or it keeps nothing: never called
            judges.append(unread_judge(entry.name, "(not asked)", metric))
            continue
        watch = ReplyWatch(entry if checked else entry.model_copy(update={"identity": None}), accept=accept)
        with watching(watch):  # the first reply from another model or fingerprint stops the run
            run = grade_samples(
                remaining, config, metrics=[metric], out=folder, draws=draws, progress=progress, data=data
            )
        if watch.refused:
            raise ConfigError(watch.refused)
        notes += watch.notes
        if run.stop_reason is not None and run.stop_reason != "degraded":
            return run
        judge = open_judge(f"{entry.name}={folder}", metric)
        judges.append(judge)
        kept = {d.id: d for d in decide([judge], [entry.threshold], rule) if d.decided_by is not None}
        decided.update(kept)
        remaining = [(item_id, sample) for item_id, sample in remaining if item_id not in kept]
    decisions = [decided.get(item_id) or Decision(item_id) for item_id, _ in samples]
    summary = summary_lines(decisions, judges, calibration) + [note for note in notes if note]
    queue = queue_of(metric, dict(samples), calibration_path)
    return write_decisions(out, decisions, summary, queue, fingerprints(judges))
