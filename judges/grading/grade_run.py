"""Grading a user's samples as a run (`judgelab evaluate`, `judges.api.grade_samples`): the samples file read and
checked, every template rendered, the judge opened and the run recorded; with only what this run needs imported."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, Unpack

from judges.calls.model_spec import DEFAULT_JUDGE
from judges.config.judge import JudgeConfig, JudgeSettings, judge_config
from judges.errors import ConfigError, InputError
from judges.grading.grade_task import GradeTask
from judges.judging.prompts import check_renders, load_prompt_set
from judges.judging.samples import load_samples as read
from judges.runs.run import Run
from judges.runs.run_setup import judge_opener, run_judged
from judges.runs.run_writer import FolderRecorder
from judges.types import Sample


def load_samples(path: str | Path, limit: int | None = None) -> Sequence[tuple[str, Sample]]:
    """(id, sample) pairs from a grounded-QA JSONL file, every record checked first; the samples are read from the
    file again as a run reaches them, so a run of any size holds only those in flight."""

    if limit is not None and limit < 1:
        raise ConfigError("--limit must be at least 1")
    samples = read(path, limit)
    if not samples:
        raise InputError("no samples in the file", path=str(path))
    return samples


def grade_samples(
    samples: Sequence[tuple[str, Sample]],
    judge: str | JudgeConfig = DEFAULT_JUDGE,
    *,
    metrics: Sequence[str] | None = None,
    out: str | Path | None = None,
    draws: int = 1,
    progress: bool = False,
    data: str | None = None,
    **options: Unpack[JudgeSettings],
) -> Run:
    """Grade a user's samples with a GroUSE judge: the full pipeline, or only the named metrics; with `draws` K,
    each K times, the modal verdict recorded with the share of draws that gave it as its confidence."""

    opts = judge_config(judge, **options)
    if draws < 1:
        raise ConfigError("draws must be at least 1")
    prompts = load_prompt_set(opts.prompts)
    # one pass over the samples (a file is read again, not held): every template renders, the judge can see them
    seen = rendered(prompts, samples, metrics)
    details = {"data": data, "n_samples": len(samples), "metrics": list(metrics or prompts.templates), "draws": draws}
    return run_judged(
        opts,
        seen,
        lambda session: GradeTask(samples, session.judge, metrics, checked=True, draws=draws),
        lambda _: details,
        judge_opener(opts, prompts),
        recorder=FolderRecorder(out) if out is not None else None,
        progress=progress,
    )


def rendered(prompts: Any, samples: Iterable[tuple[str, Sample]], metrics: Sequence[str] | None) -> Iterator[Sample]:
    """The samples, each once its templates have rendered (a template error stops here, before any call)."""

    for _, sample in samples:
        check_renders(prompts, (sample,), metrics)
        yield sample
