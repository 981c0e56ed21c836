"""Runs candidate prompt folders on unit tests through the public run API, one reply cache, and a call ledger."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from judges.api import grade_samples, run_unit_tests
from judges.config.judge import JudgeConfig
from judges.errors import TooManyFailures
from judges.judging.prompts import TEMPLATE_SUFFIX
from judges.runs.intervals import wilson
from judges.runs.run import Run
from judges.tuning.search import Halving, Score, no_figure
from judges.types import Outcome, Sample, UnitTest, Verdict


@dataclass
class Ledger:
    """The calls a set of runs needed: each distinct call once (what an empty cache would pay for, so a repeated
    search takes the same path), the calls this invocation sent to the model, those the cache answered, and cost."""

    seen: set[tuple[Any, ...]] = field(default_factory=set)
    needed: int = 0
    new_calls: int = 0
    cached_calls: int = 0
    cost: float = 0.0
    runs: int = 0

    def add(self, run: Run, tag: str = "") -> int:
        """Count a run's calls; returns how many distinct calls it added. A call is the same call when it asks
        the same test, with the same template text and settings (`tag`), for the same time in that test."""
        added = 0
        for record in run.iter_records():
            occurrences: Counter[tuple[str, str]] = Counter()
            for call in record.calls():
                which = (str(call.get("template")), str(call.get("prompt_sha256")))
                key = (tag, record.id, record.draw, *which, occurrences[which])
                occurrences[which] += 1
                if key not in self.seen:
                    self.seen.add(key)
                    added += 1
        usage = run.summary.usage
        self.needed += added
        self.cached_calls += usage.cached_calls
        self.new_calls += usage.calls - usage.cached_calls  # calls made, a call that got no reply included
        self.cost += usage.cost
        self.runs += 1
        return added

    def to_dict(self) -> dict[str, Any]:
        return {
            "calls_needed": self.needed,
            "new_calls": self.new_calls,
            "cached_calls": self.cached_calls,
            "cost_usd": round(self.cost, 6),
            "runs": self.runs,
        }


def write_prompt_folder(folder: Path, sources: Mapping[str, str]) -> Path:
    """A normal prompt folder: one `<metric>.txt.jinja` per metric."""
    folder.mkdir(parents=True, exist_ok=True)
    for metric, source in sources.items():
        (folder / f"{metric}{TEMPLATE_SUFFIX}").write_text(source, encoding="utf-8")
    return folder


class BudgetStop(Exception):
    """A run stopped at the cost limit: the round it belongs to is not used."""


@dataclass
class CandidateRunner:
    """Runs a prompt folder (with optional decoding overrides) through `run_unit_tests`, all with `options`'s cache.

    `max_cost` caps what the runs spend together; a run stopped by it raises BudgetStop. Any other early stop (an
    unusable endpoint, an error) raises that run's error: its figures would mislead."""

    options: JudgeConfig
    ledger: Ledger
    max_cost: float | None = None
    split: str = "train"

    def run(
        self,
        folder: Path,
        tests: Sequence[UnitTest],
        *,
        overrides: Mapping[str, Any] | None = None,
        tag: str = "",
        out: Path | None = None,
    ) -> Run:
        options = self._options(folder, overrides)
        return self._counted(run_unit_tests(tests, options, out=out, data=str(folder), split=self.split), tag)

    def grade(
        self,
        folder: Path,
        samples: Sequence[tuple[str, Sample]],
        metrics: Sequence[str],
        *,
        overrides: Mapping[str, Any] | None = None,
        tag: str = "",
        out: Path | None = None,
    ) -> Run:
        """Labelled items' samples graded on `metrics` alone with the prompt folder (a run like `evaluate`'s)."""

        options = self._options(folder, overrides)
        return self._counted(grade_samples(samples, options, metrics=metrics, out=out, data=str(folder)), tag)

    def _options(self, folder: Path, overrides: Mapping[str, Any] | None) -> JudgeConfig:
        max_cost = None
        if self.max_cost is not None:
            max_cost = self.max_cost - self.ledger.cost
            if max_cost <= 0:
                raise BudgetStop(f"--max-cost {self.max_cost:g} USD spent")
        return self.options.merged(prompts=str(folder), max_cost=max_cost, **dict(overrides or {}))

    def _counted(self, run: Run, tag: str) -> Run:
        self.ledger.add(run, tag)
        if run.stop_reason == "budget":
            raise BudgetStop(str(run.stop_message))
        if run.stop_reason and run.stop_reason != "degraded":  # a variant with many failures just scores low
            raise run.stop_error()
        return run


def score(name: str, run: Run, metrics: Sequence[str], sources: Mapping[str, str], order: int) -> Score:
    """A candidate's score on `metrics`: passes over every (test, metric) of the run, with a Wilson interval."""

    tests = passed = 0
    failed: list[tuple[int, str]] = []  # (item order, failure kind): the kinds counted in item order, as before
    for record in run.iter_records():  # streamed: only the counts and the failures' kinds are kept
        if record.draw != 0:
            continue
        tests += 1
        entries = [record.metrics[m] for m in metrics]
        passed += sum(e.outcome is Outcome.PASS for e in entries)
        failed += [(record.order, _failure_kind(e.verdict)) for e in entries if e.outcome is Outcome.FAILURE]
    n = tests * len(metrics)
    low, high = wilson(passed, n)
    usage = [run.summary.metrics[m].usage for m in metrics if m in run.summary.metrics]
    tokens = sum(u.prompt_tokens + u.completion_tokens for u in usage)
    kinds = Counter(kind for _, kind in sorted(failed, key=lambda pair: pair[0]))
    missing = no_figure("verdict", f"{tests} tests", kinds) if len(failed) == n else None
    return Score(name, passed, n, low, high, tokens, sum(len(sources[m]) for m in metrics), order, missing)


def _failure_kind(verdict: Verdict) -> str:
    return verdict.failure_kind.value if verdict.failure_kind else "failure"


def check_base(run: Run) -> None:
    """A base run whose failed verdicts are over --fail-on-error stops the tuning, exit 5 like any degraded run:
    the examples, the search's reference and the comparison would all rest on failures."""
    if run.stop_reason == "degraded":
        raise TooManyFailures(
            f"the base prompts' run is degraded ({run.folder}: {run.stop_message}); nothing was searched or chosen "
            "(--fail-on-error 1 searches from it anyway)"
        )


def check_chosen(what: str, halving: Halving) -> None:
    """A search in which no candidate graded anything chooses nothing: the tuning stops, exit 5, no folder written."""
    if halving.ended == "nothing graded":
        raise TooManyFailures(f"{what}: {halving.message}; no tuned folder was written")


def degraded_line(runs: Mapping[str, Run]) -> str | None:
    """The first run the report rests on whose failed verdicts are over --fail-on-error, as one line (None: none)."""
    return next(
        (f"{run.folder or name}: {run.stop_message}" for name, run in runs.items() if run.stop_reason == "degraded"),
        None,
    )
