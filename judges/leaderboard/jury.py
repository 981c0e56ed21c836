"""Juries: `[[jury]]` in a leaderboard config names member candidates and a rule (majority, median, mean); the jury's
verdicts are drawn from its members' unit-test runs (no new call), scored like any run, costed as the sum of the
members, and it can win only when it also beats its best member on the same items."""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from judges.errors import ConfigError
from judges.leaderboard.columns import oriented
from judges.leaderboard.config_types import TOTAL, Jury
from judges.leaderboard.jury_errors import ErrorCorrelation, error_correlation
from judges.leaderboard.unit_test_entries import item_passes, run_folder, run_to_entries
from judges.records import ItemRecord, MetricRecord, Usage
from judges.runs.run import Run
from judges.runs.run_config import RunConfig
from judges.runs.run_writer import FolderRecorder, Recorder, record_run
from judges.runs.summarizer import median_latency, summarize
from judges.runs.tasks import sample_fields
from judges.suite.loading import load_unit_tests
from judges.suite.scoring import score_unit_test
from judges.suite.unit_test_task import UNIT_TESTS, test_part
from judges.types import ALL_METRICS, GROUSE_METRICS, FailureKind, Verdict, VerdictState

if TYPE_CHECKING:
    from judges.leaderboard.config_types import Evaluation, LeaderboardConfig
    from judges.leaderboard.entries import Entry
    from judges.runs.run import Run

RULES = ("majority", "median", "mean")
JURY_MEMBER_KINDS = ("llm", "metric", "embedding", "predictions")


def check_juries(config: LeaderboardConfig, path: str | Path) -> None:
    """Each jury's members are distinct candidates of the config with outputs per item (llm, metric, embedding,
    predictions; only llm members' juries face unit tests); a jury's name is not a candidate's."""
    candidates = {c.name: c for c in config.candidates}
    names = [jury.name for jury in config.jury]
    for index, jury in enumerate(config.jury):
        where = f"{path}: jury[{index}] ({jury.name})"
        if jury.name in candidates or names.count(jury.name) > 1:
            raise ConfigError(f"{where}: a jury's name must differ from every candidate's and jury's")
        if len(set(jury.members)) != len(jury.members):
            raise ConfigError(f"{where}: a member is listed twice")
        for member in jury.members:
            if member not in candidates:
                raise ConfigError(f"{where}: member {member!r} is not a candidate; known: {', '.join(candidates)}")
            if candidates[member].kind not in JURY_MEMBER_KINDS:
                raise ConfigError(
                    f"{where}: member {member!r} is a {candidates[member].kind}, not a judge with outputs per item "
                    f"({', '.join(JURY_MEMBER_KINDS)})"
                )


def combine(verdicts: Sequence[Verdict], rule: str) -> Verdict:
    """The jury's verdict from its members' verdicts on one item and metric."""
    given = [v for v in verdicts if not v.is_failure]
    if not given:
        return Verdict.failed(FailureKind.UPSTREAM_FAILED, "every member of the jury failed")
    values = [v.grade if v.state.value == "grade" else None for v in given]
    if rule == "majority":
        counts = Counter(values)
        top = max(counts.values())
        return _verdict(next(value for value in values if counts[value] == top))
    grades = [value for value in values if value is not None]
    if not grades or (len(values) - len(grades)) * 2 > len(values):
        return Verdict.null(f"most of the jury said null ({rule})")
    return Verdict.graded(float(statistics.median_low(grades) if rule == "median" else statistics.fmean(grades)))


def _verdict(value: float | None) -> Verdict:
    return Verdict.null("the jury's majority said null") if value is None else Verdict.graded(float(value))


def jury_run(jury: Jury, members: Sequence[Run], tests: Sequence[Any], recorder: Recorder | None) -> Run:
    """The jury's unit-test run, built from the members' runs on the same tests: each verdict combined, then scored
    against the test's conditions like a model's; usage is the members' summed."""
    import dataclasses

    by_member = [{r.id: r for r in run.iter_records() if r.draw == 0} for run in members]
    records = []
    for order, test in enumerate(tests):
        rows = [rows.get(test.id) for rows in by_member]
        if any(row is None for row in rows):
            continue  # a test some member did not finish: the jury has no verdict on it
        verdicts = {
            metric: combine([_read(row.metrics[metric].verdict) for row in rows if row], jury.rule)
            for metric in GROUSE_METRICS
        }
        result = score_unit_test(test, {m: MetricRecord(m, v) for m, v in verdicts.items()})
        records.append(
            ItemRecord(
                test.id,
                result.metric_records(),
                order,
                0,
                sample_fields(test.sample),
                part=test_part(test),
            )
        )
    summary = dataclasses.replace(summarize(records, UNIT_TESTS), usage=_summed([r.summary.usage for r in members]))
    config = {"judge": f"jury {jury.name}: {jury.rule} of {', '.join(jury.members)}", "members": list(jury.members)}
    run = Run(UNIT_TESTS, RunConfig.from_json(config), records, summary, usage=None)
    return record_run(run, recorder) if recorder is not None else run


def _read(verdict: Verdict) -> Verdict:
    if verdict.state is VerdictState.FAILURE:
        return Verdict.failed(verdict.failure_kind or FailureKind.UPSTREAM_FAILED, "member failed")
    if verdict.state is VerdictState.NULL:
        return Verdict.null()
    return Verdict.graded(float(verdict.grade or 0.0))


def _summed(usages: Sequence[Usage]) -> Usage:
    keys = ("calls", "replies", "cached_calls", "failed_calls", "prompt_tokens", "completion_tokens", "cost")
    summed = Usage(**{key: sum(getattr(usage, key) for usage in usages) for key in keys})
    summed.priced_cost = sum(usage.priced_cost for usage in usages)
    return summed


def jury_entries(
    jury: Jury, evaluation: Evaluation, members: Sequence[Run], tests: Sequence[Any], out: Path | None
) -> list[Entry]:
    """The jury's leaderboard rows on one unit-test evaluation: its figures, and costs summed over its members."""

    run = jury_run(jury, members, tests, FolderRecorder(out) if out is not None else None)
    base = dict(candidate=jury.name, kind="jury", model=None, evaluation=evaluation.name, prompts=None, prompt_sha=None)
    entries = run_to_entries(run, base, 0.0)
    latencies = [median_latency(member.records) for member in members]
    rows = [[r for r in member.records if r.draw == 0] for member in members]
    for entry in entries:
        entry.members = tuple(jury.members)
        metrics = ALL_METRICS if entry.metric == TOTAL else (entry.metric,)
        set_error_figures(entry, unit_test_errors(rows, metrics))
        # the members are asked side by side: the jury waits for the slowest
        entry.latency_s_per_uncached_call = None if None in latencies else max(x for x in latencies if x is not None)
    return entries


def unit_test_errors(rows: Sequence[Sequence[ItemRecord]], metrics: Sequence[str]) -> ErrorCorrelation:
    """The members' error correlation on unit tests: 1 where a member missed the test's condition on a metric, 0
    where it met it (a failed verdict is no error and is left out), over every (test, metric) of `metrics`."""
    errors = [
        {
            f"{test}/{metric}": 1.0 - passed
            for metric in metrics
            for test, passed in item_passes(list(member), metric).items()
        }
        for member in rows
    ]
    return error_correlation(errors)


def set_error_figures(entry: Entry, figures: ErrorCorrelation) -> None:
    """A jury row's error correlation, effective members and the items they rest on."""
    entry.error_correlation = figures.mean_correlation
    entry.effective_members = figures.effective_members
    entry.error_items = figures.n_items
    entry.error_note = figures.note


def beats_best_member(entry: Entry, group: Sequence[Entry]) -> tuple[bool, str]:
    """Whether a jury's figure beats its best member's, by the rule a candidate beats the best baseline with (a
    paired bootstrap on the same items, else its 95% interval beyond the member's figure), and the evidence."""
    from judges.leaderboard.row_compare import beats  # defers numpy

    members = [e for e in group if e.candidate in (entry.members or ()) and e.value is not None]
    if not members:
        return False, "no member has a figure to compare"
    best = max(members, key=lambda e: oriented(e.statistic, float(e.value)))  # type: ignore[arg-type]
    ok, _, figures = beats(entry, best)
    return ok, f"vs its best member {best.candidate}: {figures}"


def board_jury_entries(config: LeaderboardConfig, runs_dir: Path) -> list[Entry]:
    """Every jury of llm members on every unit-test evaluation, from the members' run folders under `runs_dir`
    (no call); juries on labelled sets are in judges.leaderboard.label_jury."""

    candidates = {c.name: c for c in config.candidates}
    entries: list[Entry] = []
    for evaluation in config.evaluations:
        if not evaluation.on_unit_tests or not config.jury:
            continue
        tests = load_unit_tests(evaluation.source, evaluation.split)[: evaluation.limit]
        for jury in config.jury:
            if any(candidates[name].kind != "llm" for name in jury.members):
                continue  # only GroUSE judges grade unit tests
            members = [
                FolderRecorder(run_folder(runs_dir, candidates[name], evaluation)).load() for name in jury.members
            ]
            entries += jury_entries(jury, evaluation, members, tests, run_folder(runs_dir, jury, evaluation))
    return entries
