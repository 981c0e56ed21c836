"""Leaderboard rows from human labels: each candidate's outcome per labelled item, then agreement with intervals."""

from __future__ import annotations

import asyncio
import hashlib
import random
import time
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from judges.agreement.predictions import Prediction, Predictions
from judges.agreement.predictions_columns import ColumnItems  # every outcome a grade
from judges.api import grade_samples, run_metrics
from judges.errors import ConfigError
from judges.labels.label_sets import open_labels
from judges.labels.schema import LabelledSet
from judges.leaderboard.config_types import Candidate, Evaluation
from judges.leaderboard.entries import Entry, check_stop
from judges.leaderboard.label_figures import labelled_entry
from judges.leaderboard.predictions_source import candidate_predictions, item_outcomes, measured_costs, run_metric
from judges.leaderboard.unit_test_entries import run_costs, run_folder
from judges.rag.embeddings import open_embedder
from judges.rag.settings import MetricSettings
from judges.types import Sample, VerdictState

# which GroUSE prompt grades which labelled metric (ALCE utility has no documents: relevancy 1-5 stands in)
TEMPLATE_FOR = {"faithfulness": "faithfulness", "usefulness": "answer_relevancy"}
BASELINE_SCORES = {"always-top": 1.0, "always-lowest": 0.0}


def labelled_subset(evaluation: Evaluation) -> LabelledSet:
    """The evaluation's metric, restricted to `limit` items drawn with a fixed seed (all annotators kept)."""

    labels = open_labels(
        evaluation.source,
        columns=evaluation.columns,
        metric=evaluation.metric if evaluation.columns else None,
        label_type=evaluation.label_type,
        scale=evaluation.scale,
        split=evaluation.split,
        label_map=evaluation.label_map,
    )
    if evaluation.metric:
        labels = labels.for_metric(evaluation.metric)
    if len(labels.metrics()) != 1:
        raise ConfigError(f"{evaluation.name}: choose one metric (has {', '.join(labels.metrics())})")
    ids = sorted({item.id for item in labels.items})
    if evaluation.limit is not None and evaluation.limit < len(ids):
        ids = sorted(random.Random(0).sample(ids, evaluation.limit))
    keep = set(ids)
    return LabelledSet(labels.name, tuple(item for item in labels.items if item.id in keep), labels.source)


def _distinct_samples(labels: LabelledSet) -> dict[str, Sample]:
    return {item.id: item.sample for item in labels.items}


def _predictions(run: Any, metric: str) -> dict[str, Prediction]:
    out = {}
    for record in run.iter_records():
        verdict = record.metrics[metric].verdict
        out[record.id] = Prediction(record.id, verdict.state, verdict.grade, verdict.message)
    return out


def _short_sha(hashes: list[str]) -> str:
    return hashlib.sha256("".join(sorted(hashes)).encode()).hexdigest()[:12]


def _llm_scores(
    candidate: Candidate, metric: str, samples: dict[str, Sample], cache: str, out: Path
) -> tuple[dict[str, Prediction], dict[str, Any]]:
    """The candidate's GroUSE prompt for the labelled metric, graded alone on each item (its run under `out`)."""

    template = TEMPLATE_FOR.get(metric)
    if template is None:
        raise ConfigError(f"no judge prompt grades the labelled metric {metric!r} (known: {', '.join(TEMPLATE_FOR)})")
    run = grade_samples(list(samples.items()), candidate.judge(cache), metrics=[template], out=out)
    note = check_stop(run)
    sha = _short_sha([run.config.prompts_sha256[template]])
    return _predictions(run, template), {**run_costs(run), "prompt_sha": sha, "note": note}


def _metric_scores(
    candidate: Candidate, metric: str, samples: dict[str, Sample], cache: str, out: Path
) -> tuple[dict[str, Prediction], dict[str, Any]]:
    """The suite metric the candidate maps to the labelled metric, run on each item (references as contexts)."""

    name = candidate.metrics[metric]
    rag_samples = [replace(s, id=i, expected_output=s.expected_output or None) for i, s in samples.items()]
    run = run_metrics(
        rag_samples, [name], candidate.judge(cache), out=out, settings=MetricSettings(logprobs=candidate.logprobs)
    )
    note = check_stop(run)
    return _predictions(run, name), {
        **run_costs(run),
        "note": note,
        "prompt_sha": _short_sha(list(run.config.rag_prompts_sha256.values())),
    }


async def _embedding_scores(
    candidate: Candidate, metric: str, samples: dict[str, Sample], cache: str
) -> dict[str, Prediction]:
    """Cosine similarity of the answer with its references (faithfulness) or with the question (usefulness)."""
    import numpy as np

    embedder = open_embedder(str(candidate.model), api_base=next(iter(candidate.api_bases()), None), cache_path=cache)
    ids = list(samples)
    answers = await embedder.embed([samples[i].actual_output or "" for i in ids])
    other = [" ".join(samples[i].references or ()) if metric == "faithfulness" else samples[i].input or "" for i in ids]
    anchors = await embedder.embed(other)
    cosine = np.sum(answers * anchors, axis=1) / (np.linalg.norm(answers, axis=1) * np.linalg.norm(anchors, axis=1))
    return {i: Prediction(i, VerdictState.GRADE, float(c)) for i, c in zip(ids, cosine)}


def _baseline_scores(name: str, samples: dict[str, Sample]) -> dict[str, Prediction]:
    if name == "always-null":
        return {i: Prediction(i, VerdictState.NULL, None, "baseline") for i in samples}
    if name == "random":
        rng = random.Random(0)
        return {i: Prediction(i, VerdictState.GRADE, rng.random()) for i in samples}
    if name in BASELINE_SCORES:
        return {i: Prediction(i, VerdictState.GRADE, BASELINE_SCORES[name]) for i in samples}
    raise ConfigError(f"baseline {name!r} has no meaning on human labels")


def candidate_scores(
    candidate: Candidate,
    evaluation: Evaluation,
    cache: str,
    labels: LabelledSet,
    runs_dir: Path,
    predictions: Predictions | None = None,
) -> tuple[Mapping[str, Prediction], dict[str, Any]]:
    """The candidate's outcome per labelled item (a predictions candidate's file or run read, `predictions`, others
    run here) and what it took: calls, cost, latency, seconds, prompt hash, and a note on its run."""

    metric = labels.metrics()[0]
    samples = {} if candidate.kind == "predictions" else _distinct_samples(labels)  # predictions: ids only
    started = time.perf_counter()
    extra: dict[str, Any] = {"calls": 0, "cost_usd": 0.0, "prompt_sha": None}
    scores: Mapping[str, Prediction]
    if candidate.kind == "llm":
        scores, extra = _llm_scores(candidate, metric, samples, cache, run_folder(runs_dir, candidate, evaluation))
    elif candidate.kind == "metric":
        scores, extra = _metric_scores(candidate, metric, samples, cache, run_folder(runs_dir, candidate, evaluation))
    elif candidate.kind == "embedding":
        scores = asyncio.run(_embedding_scores(candidate, metric, samples, cache))
        extra["calls"] = len(samples)  # one score computed per item
    elif candidate.kind == "predictions":
        read = predictions or candidate_predictions(candidate, metric)
        scores = item_outcomes(read, run_metric_name(candidate, metric), list(labels.by_item[0]))
        extra.update(measured_costs(candidate, metric, set(scores)))
    else:
        scores = _baseline_scores(str(candidate.baseline), samples)
    return scores, {**extra, "seconds": time.perf_counter() - started}


def run_metric_name(candidate: Candidate, metric: str) -> str:
    return run_metric(candidate, metric)


def label_entries(
    candidate: Candidate,
    evaluation: Evaluation,
    cache: str,
    labels: LabelledSet,
    runs_dir: Path,
    scored: tuple[Mapping[str, Prediction], dict[str, Any]] | None = None,
) -> list[Entry]:
    """The candidate's row on a labelled evaluation (from `scored`, its outcomes, when already read)."""

    scores, extra = scored or candidate_scores(candidate, evaluation, cache, labels, runs_dir)
    failed = 0 if isinstance(scores, ColumnItems) else sum(p.state is VerdictState.FAILURE for p in scores.values())
    base = dict(
        candidate=candidate.name,
        kind=candidate.kind,
        model=candidate.model,
        prompts={"llm": candidate.prompts, "metric": "rag"}.get(candidate.kind),
        prompt_sha=extra["prompt_sha"],
        evaluation=evaluation.name,
        metric=labels.metrics()[0],
        failure_rate=failed / len(scores) if scores else None,
        calls=int(extra["calls"]),
        cost_usd=float(extra["cost_usd"]),
        seconds=float(extra["seconds"]),
        baseline=candidate.baseline if candidate.kind == "baseline" else None,
        latency_s_per_uncached_call=extra.get("latency_s_per_uncached_call"),
        cost_measured=bool(extra.get("cost_measured", True)),
    )
    entry = labelled_entry(
        base,
        scores,
        labels,
        evaluation,
        higher_is_better=candidate.higher_is_better,
        threshold=candidate.threshold,
        note=extra.get("note"),
    )
    return [entry]
