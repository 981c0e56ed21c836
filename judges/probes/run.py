"""Probing a judge: its samples (unit tests' or a data file's), perturbed by the probes, judged through the run
service; returns the Run (kind "probes") whose summary holds the per-probe rates."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Unpack

from judges.config.judge import JudgeConfig, JudgeSettings, judge_config
from judges.probes.base import Known, Probe
from judges.runs.run import Run
from judges.types import Sample


def run_probes(
    samples: Sequence[tuple[str, Sample]],
    judge: str | JudgeConfig,
    probes: Sequence[Probe],
    *,
    known: Mapping[str, Known] | None = None,
    out: str | Path | None = None,
    progress: bool = False,
    data: str | None = None,
    split: str | None = None,
    **settings: Unpack[JudgeSettings],
) -> Run:
    """Judge every sample as it is and under each probe that applies to it (all the prompts rendered first);
    `known` holds each unit test's type and conditions by sample id, so a probe applies only where its declared
    expectation holds."""
    from judges.errors import InputError
    from judges.images.vision import check_can_see
    from judges.judging.factory import open_judge
    from judges.judging.prompts import load_prompt_set
    from judges.probes.task import ProbeTask
    from judges.runs.api import run_config
    from judges.runs.service import run_task

    if not samples:
        raise InputError("no samples to probe")
    options = judge_config(judge, **settings)
    prompts = load_prompt_set(options.prompts)
    check_can_see(options.judge_model(), (sample for _, sample in samples))
    config: dict[str, Any] = run_config(options, prompts, data=data, split=split, n_samples=len(samples))
    with open_judge(options, prompts) as session:
        task = ProbeTask(samples, probes, session.judge, known or {})
        task.check()  # every perturbed prompt renders, before any call
        config.update(litellm_model=session.model.litellm_model, json_schema=session.model.json_schema)
        return run_task(task, session.runtime, Path(out) if out is not None else None, config, progress=progress)
