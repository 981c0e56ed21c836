"""`tune --labels` end to end: the split, the base on the search part, the search, the tuned folder and its manifest,
then the base and the tuned prompts once each on the held-out part."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from judges.calls.allowance import call_allowance
from judges.config.judge import JudgeConfig
from judges.errors import BudgetExhausted, ConfigError
from judges.judging.prompts import load_prompt_set
from judges.labels.label_sets import open_labels
from judges.labels.schema import LabelledSet
from judges.runs.run import Run
from judges.stats.resampling import RESAMPLES
from judges.tuning.align_data import (
    Split,
    data_sha256,
    is_run_folder,
    limited,
    split_items,
    subset,
    teacher_labels,
    template_for,
)
from judges.tuning.align_measure import objective
from judges.tuning.align_search import CallLog, LabelSearch, search_decoding_on_labels, search_labels
from judges.tuning.runner import BudgetStop, CandidateRunner, Ledger, check_base, write_prompt_folder
from judges.tuning.search import Halving
from judges.tuning.space import TuneSpace, load_space
from judges.tuning.stages import Budget, decoding_choices, tag_of
from judges.types import Sample


@dataclass
class AlignJob:
    """What the user asked for: the judge (its options name the base prompt folder and the cache), the labels (a
    set, a file read with `reading`, or a teacher's run folder), the metrics, the space, one budget, the split."""

    options: JudgeConfig
    out: Path
    labels: str
    reading: dict[str, Any] = field(default_factory=dict)
    metrics: Sequence[str] | None = None
    space: Path | None = None
    budget_calls: int | None = None
    max_cost: float | None = None
    limit: int | None = None
    held_out: float = 0.5
    seed: int = 0
    resamples: int = RESAMPLES  # bootstrap resamples of the held-out intervals and the paired difference
    progress: Callable[[str], None] = lambda message: None


@dataclass
class AlignOutcome:
    """Everything the report and the manifest show."""

    job: AlignJob
    labels: LabelledSet
    sets: list[LabelledSet]
    split: Split
    searches: list[LabelSearch]
    decoding: Halving | None
    chosen_decoding: str
    overrides: dict[str, Any]
    runs: dict[str, Run]
    search_ledger: Ledger
    report_ledger: Ledger
    base_hashes: dict[str, str]
    search_sha256: str
    tuned_folder: Path


def open_align_labels(spec: str, reading: dict[str, Any]) -> LabelledSet:
    """`--labels`: a judge's run folder (its verdicts, the teacher's labels) or anything `agreement` reads."""

    if is_run_folder(spec):
        if any(v for name, v in reading.items() if name != "metric"):  # the metric tuned is asked for apart
            raise ConfigError("--labels RUN_DIR reads the run's verdicts: --columns and its options do not apply")
        return teacher_labels(spec)
    return open_labels(spec, **reading)


def checked_sets(labels: LabelledSet, asked: Sequence[str] | None, space: TuneSpace) -> list[LabelledSet]:
    """One labelled set per metric to tune, each checked (label type, template, space table) before any call."""
    names = list(asked) if asked else labels.metrics()
    sets = [labels.for_metric(name) for name in names]
    for one in sets:
        objective(one)
        template = template_for(one.metrics()[0])
        if template not in space.metric_spaces():
            raise ConfigError(
                f"the space has no [metrics.{template}] table (the template that grades {one.metrics()[0]})"
            )
    templates = [template_for(s.metrics()[0]) for s in sets]
    if len(set(templates)) != len(templates):
        raise ConfigError("--metrics: two labelled metrics are graded by the same template; tune them one at a time")
    return sets


def _base_on_search(
    job: AlignJob,
    runner: CandidateRunner,
    base_sources: dict[str, str],
    search_samples: list[tuple[str, Sample]],
    templates: list[str],
    budget_calls: int | None,
    log: CallLog,
) -> tuple[Path, dict[str, Run]]:
    """The base prompt folder, written, and its run on the search items; a call budget below that run's least need
    (a call per item and template) is refused before any call, and one the run reaches stops the tuning."""
    least = len(search_samples) * len(templates)
    if budget_calls is not None and budget_calls < least:
        raise ConfigError(
            f"--budget-calls {budget_calls} cannot pay for the base run alone: its {len(search_samples)} search items "
            f"need at least {least} calls; give a larger budget or fewer items. Nothing was called"
        )
    base_folder = write_prompt_folder(job.out / "search" / "base", base_sources)
    try:
        run = runner.grade(base_folder, search_samples, templates, out=job.out / "runs" / "base-search")
    except BudgetStop as err:
        if budget_calls is not None:
            raise ConfigError(f"--budget-calls {budget_calls} is spent by the base run alone ({err})") from None
        raise BudgetExhausted(f"--max-cost {job.max_cost:g} USD is spent by the base run alone ({err})") from None
    log.add(run, "base")
    check_base(run)
    if budget_calls is not None and runner.ledger.needed > budget_calls:
        raise ConfigError(
            f"--budget-calls {budget_calls} is spent by the base run alone ({runner.ledger.needed} calls)"
        )
    return base_folder, {"base-search": run}


def align(job: AlignJob) -> AlignOutcome:
    """Search on the search part only, write the tuned folder, then run base and tuned once on the held-out part."""

    space, root = load_space(job.space)
    if job.budget_calls is not None and job.max_cost is not None:
        raise ConfigError("give one budget: --budget-calls or --max-cost")
    labels, sets = _chosen_items(job, space)
    split = split_items(labels, job.held_out, job.seed)
    samples: dict[str, Sample] = {}
    for item in labels.items:
        samples.setdefault(item.id, item.sample)
    templates = [template_for(s.metrics()[0]) for s in sets]
    budget_calls = None if job.max_cost is not None else (job.budget_calls or space.search.budget_calls)
    base = load_prompt_set(job.options.prompts)
    base_sources = {m: t.source for m, t in base.templates.items()}
    out, ledger, log = job.out, Ledger(), CallLog()
    runner = CandidateRunner(job.options, ledger, job.max_cost, "search")
    budget = Budget(ledger, budget_calls)

    job.progress(f"base prompts on the {len(split.search)} search items ({len(split.held_out)} held out)")
    search_samples = [(i, samples[i]) for i in split.search]
    choices = decoding_choices(space, job.options)
    decoding, chosen = None, "as given"
    with call_allowance(budget_calls):  # the search (base run, rounds) never sends a call past the budget
        base_folder, runs = _base_on_search(job, runner, base_sources, search_samples, templates, budget_calls, log)
        searches, tuned = [], dict(base_sources)
        for one in sets:
            found = search_labels(
                subset(one, split.search), split.search, runs["base-search"], space, root, base_sources, samples,
                runner, budget, out, log, job.progress,
            )  # fmt: skip
            searches.append(found)
            tuned[found.template] = found.winner.source
        tuned_folder = write_prompt_folder(out / "prompts", tuned)
        load_prompt_set(str(tuned_folder))  # the written folder is a normal, loadable prompt folder
        if len(choices) > 1:
            search_sets = [subset(s, split.search) for s in sets]
            first = space.search.first_round_items
            decoding = search_decoding_on_labels(
                choices, tuned_folder, search_sets, split.search, samples, first, runner, budget, log, job.progress
            )
            chosen = decoding.winner or "as given"
    overrides, tag = choices[chosen], tag_of(chosen, choices)

    def tuned_search() -> Run:
        return runner.grade(
            tuned_folder, search_samples, templates, overrides=overrides, tag=tag, out=out / "runs" / "tuned-search"
        )

    job.progress("tuned prompts on the search items")
    try:
        runs["tuned-search"] = tuned_search()
    except BudgetStop:
        runner.max_cost = None  # the choice is made; the tuned prompts' search figures are part of the report
        runs["tuned-search"] = tuned_search()
    log.add(runs["tuned-search"], "tuned")
    write_call_log(out / "search" / "calls.jsonl", log)

    # Only now, every choice made and written, are the held-out items judged: once by each prompt folder.
    held = [(i, samples[i]) for i in split.held_out]
    report_ledger = _on_held_out(job, held, templates, (base_folder, tuned_folder), (overrides, tag), runs)
    return AlignOutcome(
        job, labels, sets, split, searches, decoding, chosen, overrides, runs, ledger, report_ledger,
        base.hashes(), data_sha256(labels, split.search), tuned_folder,
    )  # fmt: skip


def _chosen_items(job: AlignJob, space: TuneSpace) -> tuple[LabelledSet, list[LabelledSet]]:
    """The labelled items of the metrics asked for (within the limit), and one set per metric."""
    labels = open_align_labels(job.labels, job.reading)
    sets = checked_sets(labels, job.metrics, space)
    labels = limited(
        LabelledSet(labels.name, tuple(i for s in sets for i in s.items), labels.source), job.limit, job.seed
    )
    sets = [labels.for_metric(s.metrics()[0]) for s in sets]
    return labels, sets


def _on_held_out(
    job: AlignJob,
    held: list[tuple[str, Sample]],
    templates: list[str],
    prompt_folders: tuple[Path, Path],
    decoding: tuple[dict[str, Any], str],
    runs: dict[str, Run],
) -> Ledger:
    """The base and tuned prompt folders grade the held-out items once each (into `runs`); those runs' ledger."""
    (base_folder, tuned_folder), (overrides, tag), out = prompt_folders, decoding, job.out
    report_ledger = Ledger()
    reporter = CandidateRunner(job.options, report_ledger, None, "held-out")
    job.progress(f"base and tuned prompts, once each, on the {len(held)} held-out items")
    runs["base-held-out"] = reporter.grade(base_folder, held, templates, out=out / "runs" / "base-held-out")
    runs["tuned-held-out"] = reporter.grade(
        tuned_folder, held, templates, overrides=overrides, tag=tag, out=out / "runs" / "tuned-held-out"
    )
    return report_ledger


def write_call_log(path: Path, log: CallLog) -> None:
    import json

    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(row) + "\n" for row in log.rows), encoding="utf-8")
