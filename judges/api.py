"""The public run functions: load unit tests, run them, grade samples, run RAG metrics; each returns a Run.

The CLI is a client of these: a command parses its arguments, calls one of them, and renders the Run.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Unpack

from judges.calls.model_spec import DEFAULT_JUDGE
from judges.config.judge import JudgeConfig, JudgeSettings, judge_config
from judges.errors import ConfigError, InputError
from judges.files.shipped import SHIPPED_TESTS, bundled_dir
from judges.grading.grade_run import grade_samples, load_samples
from judges.judging.factory import JudgeSession
from judges.judging.prompts import check_renders, load_prompt_set
from judges.rag.dataset import load_rag_samples
from judges.rag.metric_registry import build_registry, select
from judges.rag.settings import MetricSettings
from judges.runs.run import Run
from judges.runs.run_setup import judge_opener, run_judged
from judges.runs.run_writer import FolderRecorder
from judges.suite.baselines import reference_rates
from judges.suite.loading import load_unit_tests
from judges.suite.unit_test_task import UnitTestTask
from judges.types import UnitTest

__all__ = ["grade_samples", "load_samples", "load_tests", "run_metrics", "run_unit_tests"]


def load_tests(source: str | Path | None = None, split: str | None = None, limit: int | None = None) -> list[UnitTest]:
    """Unit tests from a JSONL file, a folder with train/test splits, or "grouse"; default: the shipped suite's
    train split."""

    if limit is not None and limit < 1:
        raise ConfigError("--limit must be at least 1")
    if source is None:
        source, split = bundled_dir(SHIPPED_TESTS), split or "train"
    return load_unit_tests(source, split)[:limit]


def _recorder(out: str | Path | None) -> FolderRecorder | None:
    """The run folder `out` as the run's recorder (none: the run is only returned)."""
    return FolderRecorder(out) if out is not None else None


def run_unit_tests(
    tests: Sequence[UnitTest],
    judge: str | JudgeConfig = DEFAULT_JUDGE,
    *,
    out: str | Path | None = None,
    draws: int = 1,
    progress: bool = False,
    data: str | None = None,
    split: str | None = None,
    **options: Unpack[JudgeSettings],
) -> Run:
    """Score a judge against unit tests: each test's verdicts checked against its conditions."""

    opts = judge_config(judge, **options)
    if draws < 1:
        raise ConfigError("draws must be at least 1")
    if not tests:
        raise InputError("no unit tests to run")
    prompts = load_prompt_set(opts.prompts)
    check_renders(prompts, (test.sample for test in tests))  # before the judge (or a local server) starts

    def task(session: JudgeSession) -> UnitTestTask:
        serial = session.runtime.settings.concurrency == 1  # a local server: one call at a time, its prefix reused
        return UnitTestTask(tests, session.judge, draws, prefix_order=serial)

    # the baselines: what a constant and the oracle score on these tests
    details = {"data": data, "split": split, "n_tests": len(tests), "draws": draws, "baselines": reference_rates(tests)}
    seen = (test.sample for test in tests)
    return run_judged(
        opts, seen, task, lambda _: details, judge_opener(opts, prompts), recorder=_recorder(out), progress=progress
    )


def run_metrics(
    samples: Sequence[Any],
    metrics: Sequence[str],
    judge: str | JudgeConfig = DEFAULT_JUDGE,
    *,
    out: str | Path | None = None,
    draws: int = 1,
    progress: bool = False,
    data: str | None = None,
    settings: Any = None,
    embeddings: str | None = "local/multilingual-e5-small",
    embeddings_api_base: str | None = None,
    rag_prompts: str | Path | None = None,
    registry: dict[str, Any] | None = None,
    **options: Unpack[JudgeSettings],
) -> Run:
    """RAG-suite metrics (names or family names) on samples (Sample objects, or a JSONL path); with `draws` K, each
    sample K times, the modal value recorded with the share of draws that gave it as its confidence."""
    from judges.rag.metrics_task import MetricsTask  # defers numpy
    from judges.rag.rag_session import RagSession, RagSetup  # defers numpy

    opts = judge_config(judge, **options)
    if draws < 1:
        raise ConfigError("draws must be at least 1")
    settings = settings or MetricSettings()
    registry = registry if registry is not None else build_registry(using=[*metrics, *settings.ragas_score_of])
    chosen = select(registry, list(metrics))
    components = select(registry, list(settings.ragas_score_of)) if any(s.name == "ragas_score" for s in chosen) else []
    involved = [*chosen, *components]
    if isinstance(samples, (str, Path)):
        data, samples = str(samples), load_rag_samples(str(samples))
    if not samples:
        raise InputError("no samples to run", path=data)
    needs_judge = any(s.uses_judge for s in involved)
    rag = RagSetup(
        opts,
        needs_judge,
        Path(rag_prompts) if rag_prompts else None,
        settings,
        embeddings,
        embeddings_api_base,
        grouse=any(s.family == "grouse" for s in involved),
        embeds=any(s.uses_embeddings for s in involved),
    )

    def details(session: RagSession) -> dict[str, Any]:
        embedder = session.judge.embedder
        names = [s.name for s in chosen]
        return {
            "data": data,
            "n_samples": len(samples),
            "metrics": names,
            "embeddings": embedder.name if embedder else None,
            "settings": settings.model_dump(),
            "draws": draws,
        }

    return run_judged(
        opts,
        samples if needs_judge else (),
        lambda session: MetricsTask(samples, chosen, session.judge, registry, draws=draws),
        details,
        rag.open,
        recorder=_recorder(out),
        progress=progress,
        calls=needs_judge,
    )
