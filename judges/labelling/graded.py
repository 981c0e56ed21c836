"""Graded items: the verdicts of one or more candidate judges' runs for one metric, and each item's sample."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from judges.errors import ConfigError, InputError
from judges.labelling.scales import SCALES
from judges.runs.kinds import kind_of
from judges.runs.run import Run
from judges.runs.run_writer import FolderRecorder
from judges.types import Sample


@dataclass(frozen=True)
class JudgeVerdict:
    """One judge's verdict on one item: its state ("grade", "null", "failure") and grade."""

    state: str
    grade: float | None = None


@dataclass(frozen=True)
class GradedPool:
    """Items every run graded: verdicts by judge name, the samples, and the grade range used to normalise."""

    metric: str
    judges: list[str]
    verdicts: dict[str, dict[str, JudgeVerdict]]  # item id -> judge -> verdict, ids in the first run's order
    samples: dict[str, Sample]
    grade_range: tuple[float, float]
    left_out: int  # items some run lacks

    def normalised(self, grade: float) -> float:
        low, high = self.grade_range
        return 0.0 if high == low else (grade - low) / (high - low)


def _metric(runs: Sequence[Run], metric: str | None) -> str:
    shared = set.intersection(*({m for r in run.iter_records() for m in r.metrics} for run in runs))
    if metric is not None:
        if metric not in shared:
            raise ConfigError(f"--metric {metric}: not graded by every run (they share: {', '.join(sorted(shared))})")
        return metric
    if len(shared) != 1:
        raise ConfigError(
            f"the runs grade several metrics ({', '.join(sorted(shared)) or 'none shared'}): choose one with --metric"
        )
    return next(iter(shared))


def _verdicts(run: Run, metric: str) -> dict[str, JudgeVerdict]:
    """The run's first-draw verdicts on `metric` by item id, in item order; the records streamed from its folder."""
    found = [
        (r.order, r.id, JudgeVerdict(r.metrics[metric].verdict.state.value, r.metrics[metric].verdict.grade))
        for r in run.iter_records()
        if r.draw == 0 and metric in r.metrics
    ]
    found.sort(key=lambda entry: entry[0])
    return {item: verdict for _, item, verdict in found}


def _judge_names(runs: Sequence[Run]) -> list[str]:
    titles = [run.title for run in runs]
    return [
        f"{title} ({run.folder.name if run.folder else n})" if titles.count(title) > 1 else title
        for n, (title, run) in enumerate(zip(titles, runs))
    ]


def run_samples(run: Run) -> dict[str, Sample]:
    """The samples a run graded, re-read as its kind reads them (records keep verdicts, not the sample text); an
    InputError for a kind labelling may not draw from."""
    kind = kind_of(run.kind)
    found = kind.samples(run) if kind.labelling else None
    if found is None:
        raise _not_drawn(run)
    return dict(found)


def _not_drawn(run: Run) -> InputError:
    return InputError(
        f"a {run.kind} run: choose items from runs of `judgelab evaluate` or `judgelab metrics`", path=str(run.folder)
    )


def _grade_range(metric: str, grades: list[float]) -> tuple[float, float]:
    if metric in SCALES:
        return SCALES[metric].bounds
    if not grades:
        return 0.0, 1.0
    low, high = min(grades), max(grades)
    return (0.0, 1.0) if low >= 0.0 and high <= 1.0 else (low, high)


def read_pool(run_dirs: Sequence[str | Path], metric: str | None = None) -> GradedPool:
    """The items every run graded for `metric` (the one metric the runs share, when not given)."""
    runs = [FolderRecorder(folder).load() for folder in run_dirs]
    for run in runs:
        if not kind_of(run.kind).labelling:
            raise _not_drawn(run)
    chosen = _metric(runs, metric)
    names = _judge_names(runs)
    by_run = [_verdicts(run, chosen) for run in runs]
    common = [i for i in by_run[0] if all(i in verdicts for verdicts in by_run[1:])]
    union = set().union(*by_run)
    samples: dict[str, Sample] = {}
    for run in runs:
        missing = [i for i in common if i not in samples]
        if not missing:
            break
        found = run_samples(run)
        samples.update({i: found[i] for i in missing if i in found})
    lacking = [i for i in common if i not in samples]
    if lacking:
        raise InputError(f"no sample text for item {lacking[0]!r} in the runs' data files", path=str(run_dirs[0]))
    verdicts = {i: {name: run_verdicts[i] for name, run_verdicts in zip(names, by_run)} for i in common}
    grades = [v.grade for item in verdicts.values() for v in item.values() if v.grade is not None]
    return GradedPool(chosen, names, verdicts, samples, _grade_range(chosen, grades), len(union) - len(common))
