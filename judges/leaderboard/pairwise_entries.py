"""Leaderboard rows on a judge benchmark (`format` on a labels evaluation): each judge's verdict per order read from
its released file (a predictions candidate) or a constant judge (a baseline), ranked by a pairwise statistic; a
reward model's scores on RewardBench, ranked by best of n."""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from judges.agreement.best_of_n import best_of_n_stats
from judges.agreement.bootstrap import DEFAULT_SEED, ItemRows
from judges.agreement.pairwise_formats import PairLabels, PairVerdicts
from judges.agreement.pairwise_protocols import NONE, Stat, bootstrap_figures, pairwise_stats
from judges.agreement.pairwise_readers import read_labels, read_verdicts
from judges.agreement.pairwise_report import best_of_n_inputs, pair_rows
from judges.labels.shared import shared_path
from judges.leaderboard.config_types import PAIR_BASELINES, Candidate, Evaluation
from judges.leaderboard.entries import Entry
from judges.leaderboard.pair_draws import PairDraws
from judges.leaderboard.predictions_source import SHARED, source_path

PREFERENCE = "preference"  # the metric a benchmark's rows are shown under, unless the evaluation names one


def benchmark_source(evaluation: Evaluation) -> Path:
    """The benchmark's labels: `shared:llmbar/Natural` through the shared-data lookup (a missing set names the
    command that fetches it), else a file or folder."""
    if evaluation.source.startswith(SHARED):
        return shared_path(evaluation.source.removeprefix(SHARED))
    return Path(evaluation.source)


def benchmark_labels(evaluation: Evaluation) -> PairLabels:
    """The evaluation's labels read in its benchmark's released format."""
    return read_labels(str(benchmark_source(evaluation)), evaluation.format)


def candidate_verdicts(candidate: Candidate, labels: PairLabels) -> PairVerdicts:
    """The candidate's verdicts: its released file (or judgelab run folder) read in the labels' format, or a
    constant judge's (always the first answer shown: A as given and B swapped; always a tie)."""
    if candidate.kind == "baseline":
        orders = PAIR_BASELINES[str(candidate.baseline)]
        return PairVerdicts(labels.format, str(candidate.baseline), {i: orders for i in dict.fromkeys(labels.ids)})
    return read_verdicts(str(source_path(candidate)), labels.format)


DEFAULT_STATISTIC = {"judgebench": "vote_accuracy", "rewardbench": "best_of_n"}  # each benchmark's published one


def default_statistic(evaluation: Evaluation, known: set[str]) -> str:
    """The config's statistic, else the benchmark's published one (JudgeBench's vote, RewardBench's best of n),
    else both orders right (LLMBar's strictest), else accuracy with ties (one order)."""
    if evaluation.statistic:
        return evaluation.statistic
    published = DEFAULT_STATISTIC.get(str(evaluation.format))
    if published in known:
        return str(published)
    return "both_correct" if "both_correct" in known else "accuracy_with_ties"


@dataclass(frozen=True)
class Scored:
    """A candidate's statistics on the benchmark's rows, which item each row is, and its verdicts left unparsed (or
    prompts left unscored) out of how many."""

    stats: dict[str, Stat]
    items: ItemRows
    missing: int
    asked: int
    notes: tuple[str, ...] = ()


def scored(labels: PairLabels, verdicts: PairVerdicts) -> Scored:
    """The pairwise protocols on a judge's verdicts; RewardBench's best of n (per subset and `best_of_n`, their
    mean) on a reward model's scores."""
    if labels.format == "rewardbench":
        chosen, rejected = best_of_n_inputs(labels, verdicts)
        stats, notes = best_of_n_stats(labels.ids, chosen, rejected, [c or "all" for c in labels.categories])
        stats["best_of_n"] = stats.pop("mean")
        items = ItemRows(np.arange(len(labels.ids), dtype=np.int64), len(labels.ids))
        unscored = sum(1 for item in labels.ids if item not in verdicts.scores)
        return Scored(stats, items, unscored, len(labels.ids), tuple(notes))
    rows = pair_rows(labels, verdicts)
    given = [rows.original] if rows.swapped is None else [rows.original, rows.swapped]
    unparsed = int(sum(np.sum(v == NONE) for v in given))
    return Scored(pairwise_stats(rows), rows.items, unparsed, int(rows.label.size) * len(given))


def pairwise_entry(candidate: Candidate, evaluation: Evaluation, labels: PairLabels) -> Entry:
    """The candidate's row: the statistic with its bootstrap interval, every pairwise figure, its unparsed verdicts
    (counted wrong) as the failure rate, and the rows the board's ranks are drawn on."""
    started = time.perf_counter()
    found = scored(labels, candidate_verdicts(candidate, labels))
    stats, items = found.stats, found.items
    statistic = default_statistic(evaluation, set(stats))
    ones = np.ones((1, items.row_item.size))
    figures = {name: float(stat(ones)[0]) for name, stat in stats.items()}
    base = dict(
        candidate=candidate.name,
        kind=candidate.kind,
        model=None,
        prompts=None,
        prompt_sha=None,
        evaluation=evaluation.name,
        metric=evaluation.metric or PREFERENCE,
        statistic=statistic,
        n=items.n_items,
        failure_rate=found.missing / found.asked if found.asked else None,
        baseline=candidate.baseline if candidate.kind == "baseline" else None,
        cost_measured=candidate.kind == "baseline",  # a released file records no cost
        figures={name: value if np.isfinite(value) else None for name, value in figures.items()},
    )
    what = "prompts without scores: scored 0" if labels.format == "rewardbench" else "verdicts unparsed: counted wrong"
    missing_note = f"{found.missing} of {found.asked} {what}" if found.missing else None
    if statistic not in stats:
        note = f"{statistic} needs both orders; these verdicts have one per pair"
        return Entry(**base, value=None, ci_low=None, ci_high=None, note=note)  # type: ignore[arg-type]
    figure = bootstrap_figures({statistic: stats[statistic]}, items, resamples=evaluation.resamples, seed=DEFAULT_SEED)[
        statistic
    ]
    return Entry(
        **base,  # type: ignore[arg-type]
        value=figure.value,
        ci_low=figure.ci[0] if figure.ci else None,
        ci_high=figure.ci[1] if figure.ci else None,
        note="; ".join(n for n in (figure.note, missing_note, *found.notes) if n) or None,
        seconds=time.perf_counter() - started,
        pairwise=PairDraws(statistic, labels.ids, items, stats[statistic]),
    )


def benchmark_version(evaluation: Evaluation, labels: PairLabels) -> str:
    """The data line of the board's meta: the benchmark as the config names it, the file read and its digest, the
    format, pairs and label rows."""
    file = Path(labels.source)
    digest = hashlib.sha256(file.read_bytes()).hexdigest()[:12] if file.is_file() else "hub"
    counted = (
        f"{len(labels.ids)} prompts"
        if labels.format == "rewardbench"
        else f"{len(set(labels.ids))} pairs, {len(labels.ids)} label rows"
    )
    return f"{evaluation.source} ({file.name}, sha256 {digest}; {evaluation.format} format), {counted}"
