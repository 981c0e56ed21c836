"""A judgelab run folder of `pairwise_preference` read as a judge's verdicts on a judge benchmark: per item, the
preference asked with the answers as given and with them swapped (named as given), as the benchmarks' own files
hold them."""

from __future__ import annotations

from pathlib import Path

from judges.agreement.pairwise_formats import PairVerdicts, Verdict
from judges.errors import InputError
from judges.records import MetricRecord
from judges.runs.run_config import RunConfig
from judges.runs.run_writer import FolderRecorder
from judges.types import VerdictState

METRIC = "pairwise_preference"


def is_run_folder(spec: str) -> bool:
    """A judgelab run folder (its run.json), not a benchmark's released file or folder."""
    return (Path(spec) / "run.json").is_file()


def record_orders(entry: MetricRecord) -> tuple[Verdict, Verdict]:
    """The verdict in each order, in the given order's names; no verdict where the metric failed."""
    orders = entry.details.get("orders") if isinstance(entry.details, dict) else None
    if entry.verdict.state is VerdictState.FAILURE or not isinstance(orders, list) or len(orders) != 2:
        return (None, None)
    given, swapped = orders
    return (given.get("preference"), swapped.get("preference_of_answers"))


def judge_model(config: RunConfig) -> str | None:
    """The run's judge model as its run.json names it (`openai/gpt-4`)."""
    return config.judge or None


def run_verdicts(folder: str, fmt: str) -> PairVerdicts:
    """The run's first-draw `pairwise_preference` verdicts by item id, both orders each."""
    run = FolderRecorder(folder).load()
    verdicts: dict[str, tuple[Verdict, ...]] = {}
    for record in run.iter_records():
        entry = record.metrics.get(METRIC)
        if record.draw == 0 and entry is not None:
            verdicts[record.id] = record_orders(entry)
    if not verdicts:
        raise InputError(f"the run folder holds no {METRIC} verdicts", path=folder)
    return PairVerdicts(fmt, folder, verdicts, judge=judge_model(run.config))
