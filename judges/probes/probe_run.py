"""Probing a judge: its samples (unit tests' or a data file's), perturbed by the probes, judged through the run
service; returns the Run (kind "probes") whose summary holds the per-probe rates."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Unpack

from judges.config.judge import JudgeConfig, JudgeSettings, judge_config
from judges.errors import InputError
from judges.judging.factory import JudgeSession
from judges.judging.prompts import load_prompt_set
from judges.probes.base import Known, Probe
from judges.probes.task import ProbeTask
from judges.runs.run import Run
from judges.runs.run_setup import judge_opener, run_judged
from judges.runs.run_writer import FolderRecorder
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

    if not samples:
        raise InputError("no samples to probe")
    options = judge_config(judge, **settings)
    prompts = load_prompt_set(options.prompts)

    def task(session: JudgeSession) -> ProbeTask:
        probing = ProbeTask(samples, probes, session.judge, known or {})
        probing.check()  # every perturbed prompt renders, before any call
        return probing

    details = {"data": data, "split": split, "n_samples": len(samples)}
    seen = (sample for _, sample in samples)
    recorder = FolderRecorder(out) if out is not None else None
    return run_judged(
        options, seen, task, lambda _: details, judge_opener(options, prompts), recorder=recorder, progress=progress
    )
