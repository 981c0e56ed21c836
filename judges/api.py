"""The public run functions: load unit tests, run them, grade samples, run RAG metrics; each returns a Run.

The CLI is a client of these: a command parses its arguments, calls one of them, and renders the Run.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, Unpack

from judges.calls.model_spec import DEFAULT_JUDGE
from judges.calls.refusing import no_judge_backend
from judges.calls.runtime import CallRuntime
from judges.config.judge import JudgeConfig, JudgeSettings, judge_config
from judges.errors import ConfigError, InputError
from judges.executors.choose import open_executor
from judges.files.shipped import bundled_dir
from judges.images.vision import check_can_see
from judges.judging.factory import open_judge, open_runtime
from judges.judging.prompts import check_renders, load_prompt_set
from judges.judging.samples import load_samples as read
from judges.rag.dataset import load_rag_samples
from judges.rag.metric_registry import build_registry, select
from judges.rag.prompting import RagPrompts
from judges.rag.settings import MetricSettings
from judges.runs.run import Run
from judges.runs.run_config import run_config
from judges.runs.service import run_task
from judges.runs.tasks import GradeTask
from judges.suite.baselines import reference_rates
from judges.suite.loading import load_unit_tests
from judges.suite.unit_test_task import UnitTestTask
from judges.types import Sample, UnitTest


def load_tests(source: str | Path | None = None, split: str | None = None, limit: int | None = None) -> list[UnitTest]:
    """Unit tests from a JSONL file, a folder with train/test splits, or "grouse"; default: the shipped suite's
    train split."""

    if limit is not None and limit < 1:
        raise ConfigError("--limit must be at least 1")
    if source is None:
        source, split = bundled_dir("unit_tests"), split or "train"
    return load_unit_tests(source, split)[:limit]


def load_samples(path: str | Path, limit: int | None = None) -> Sequence[tuple[str, Sample]]:
    """(id, sample) pairs from a grounded-QA JSONL file, every record checked first; the samples are read from the
    file again as a run reaches them, so a run of any size holds only those in flight."""

    if limit is not None and limit < 1:
        raise ConfigError("--limit must be at least 1")
    samples = read(path, limit)
    if not samples:
        raise InputError("no samples in the file", path=str(path))
    return samples


def _out(out: str | Path | None) -> Path | None:
    return Path(out) if out is not None else None


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
    check_can_see(opts.judge_model(), (test.sample for test in tests))
    config = run_config(opts, prompts, data=data, split=split, n_tests=len(tests), draws=draws)
    config["baselines"] = reference_rates(tests)  # what a constant and the oracle score on these tests
    with open_judge(opts, prompts) as session:
        config.update(litellm_model=session.model.litellm_model, json_schema=session.model.json_schema)
        executor = open_executor(opts, session.model, session.runtime.settings)
        serial = session.runtime.settings.concurrency == 1  # a local server: one call at a time, its prefix reused
        task = UnitTestTask(tests, session.judge, draws, prefix_order=serial)
        return run_task(task, session.runtime, _out(out), config, progress=progress, executor=executor)


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
    check_can_see(opts.judge_model(), rendered(prompts, samples, metrics))
    config = run_config(
        opts, prompts, data=data, n_samples=len(samples), metrics=list(metrics or prompts.templates), draws=draws
    )
    with open_judge(opts, prompts) as session:
        config.update(litellm_model=session.model.litellm_model, json_schema=session.model.json_schema)
        executor = open_executor(opts, session.model, session.runtime.settings)
        task = GradeTask(samples, session.judge, metrics, checked=True, draws=draws)
        return run_task(task, session.runtime, _out(out), config, progress=progress, executor=executor)


def rendered(prompts: Any, samples: Iterable[tuple[str, Sample]], metrics: Sequence[str] | None) -> Iterator[Sample]:
    """The samples, each once its templates have rendered (a template error stops here, before any call)."""

    for _, sample in samples:
        check_renders(prompts, (sample,), metrics)
        yield sample


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
    from judges.rag.embeddings import open_embedder  # defers numpy
    from judges.rag.judging import RagJudge  # defers numpy
    from judges.rag.metrics_task import MetricsTask  # defers numpy

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
    if any(s.uses_judge for s in involved):
        check_can_see(opts.judge_model(), samples)
    prompts = RagPrompts(Path(rag_prompts) if rag_prompts else None)
    grouse = load_prompt_set(opts.prompts) if any(s.family == "grouse" for s in involved) else None
    keep_vectors = opts.cache if opts.cache_mode == "read-write" else None  # across runs, beside replies
    embedder = (
        open_embedder(embeddings, api_base=embeddings_api_base, cache_path=keep_vectors)
        if embeddings and any(s.uses_embeddings for s in involved)
        else None
    )
    config = run_config(
        opts,
        grouse,
        data=data,
        n_samples=len(samples),
        metrics=[s.name for s in chosen],
        embeddings=embedder.name if embedder else None,
        settings=settings.model_dump(),
        draws=draws,
    )
    needs_judge = any(s.uses_judge for s in involved)
    with metrics_runtime(opts, needs_judge) as (model, runtime):
        config.update(litellm_model=model.litellm_model, json_schema=model.json_schema)
        judge_ = RagJudge(runtime, model, prompts, opts.params(), settings, embedder, grouse)
        executor = open_executor(opts, model, runtime.settings) if needs_judge else None
        task = MetricsTask(samples, chosen, judge_, registry, draws=draws)
        return run_task(task, runtime, _out(out), config, progress=progress, executor=executor)


@contextlib.contextmanager
def metrics_runtime(options: JudgeConfig, needs_judge: bool) -> Iterator[tuple[Any, Any]]:
    """The judge's runtime, or, when no chosen metric calls a judge, a runtime that refuses calls (nothing starts)."""

    if needs_judge:
        with open_runtime(options) as pair:
            yield pair
        return
    yield options.judge_model(), CallRuntime(no_judge_backend())
