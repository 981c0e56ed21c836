"""Drift between two unit-test runs of a judge over the same tests: the tests that flipped each way, McNemar's exact
test on the paired outcomes, the paired difference of pass rates with its interval (both from
`judges.runs.paired_runs`, the one pairing of two runs), and both runs' fingerprints."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from judges.errors import InputError
from judges.pages.markdown import pct, table
from judges.runs.paired_runs import Pairs
from judges.suite.outcome_summary import UNIT_TESTS
from judges.types import Outcome

if TYPE_CHECKING:
    from judges.runs.run import Run

ALPHA = 0.05  # a fall is significant when McNemar's two-sided exact p-value is below this


def outcome_values(run: Run, metric: str | None = None) -> dict[str, float]:
    """Each unit test's outcome on `metric` (first draw), 1.0 passed and 0.0 wrong, by test id; a run failure is no
    value, never a miss. With no `metric`: the test's pass on every metric, for the tests with no run failure."""
    out = {}
    for record in run.iter_records():
        if record.draw != 0:
            continue
        if metric is None:
            if all(entry.outcome is not Outcome.FAILURE for entry in record.metrics.values()):
                out[record.id] = float(record.passed_all)
            continue
        entry = record.metrics.get(metric)
        if entry is not None and entry.outcome in (Outcome.PASS, Outcome.WRONG_GRADE):
            out[record.id] = 1.0 if entry.outcome is Outcome.PASS else 0.0
    return out


@dataclass(frozen=True)
class Drift:
    """`before` -> `after` on the tests both completed (a test with a run failure on either side is left out: a
    failure is not a wrong grade). An outcome is the test's pass on every metric."""

    n: int
    before_rate: float
    after_rate: float
    lost: list[str]  # passed before, not after
    gained: list[str]  # passed after, not before
    p_value: float  # McNemar's exact test: the discordant pairs against a fair coin (scipy's binomtest)
    difference: float  # after - before, in pass rate
    low: float
    high: float  # the paired bootstrap's 95% interval of the difference
    fingerprints: tuple[list[str], list[str]]  # model versions the provider reported, before and after
    left_out: int  # tests in only one run, or with a run failure in either

    @property
    def fell(self) -> bool:
        """The pass rate fell significantly: more tests lost than gained and McNemar's p below ALPHA."""
        return len(self.lost) > len(self.gained) and self.p_value < ALPHA


def fingerprints(run: Run) -> list[str]:
    """Every model version the provider reported in the run's calls (run.json keeps the first)."""
    seen = {str(c["model_version"]) for r in run.iter_records() for c in r.calls() if c.get("model_version")}
    first = run.config.model_version
    return sorted(seen | ({str(first)} if first else set()))


def drift(before: Run, after: Run) -> Drift:
    """The paired comparison of each test's pass on every metric (`judges.runs.paired_runs`); an InputError when
    the runs are not unit-test runs over shared tests."""

    for run in (before, after):
        if run.kind != UNIT_TESTS:
            raise InputError(f"a {run.kind} run has no pass/fail outcomes to compare", path=str(run.folder))
    pairs = Pairs.of(outcome_values(before), outcome_values(after))  # in the baseline's order
    means, p_value = pairs.means(), pairs.mcnemar_p()
    if means is None or p_value is None:
        sets = (before.split, after.split)
        where = (
            f" (the baseline ran {sets[0]}, this run {sets[1]}: give --split {sets[0]})" if sets[0] != sets[1] else ""
        )
        raise InputError(f"the two runs share no completed test{where}", path=str(after.folder))
    before_rate, after_rate = means
    mean = after_rate - before_rate
    diff = pairs.difference()
    low, high = (diff.low, diff.high) if diff is not None else (mean, mean)
    every = {r.id for r in before.iter_records()} | {r.id for r in after.iter_records()}
    return Drift(
        pairs.n,
        before_rate,
        after_rate,
        pairs.lost(),
        pairs.gained(),
        p_value,
        mean,
        low,
        high,
        (fingerprints(before), fingerprints(after)),
        len(every) - pairs.n,
    )


def change_words(result: Drift) -> str:
    """What McNemar's test says of the change, in either direction: "a significant fall", "a significant rise", or
    "no significant change"."""
    if result.p_value >= ALPHA or len(result.lost) == len(result.gained):
        return "no significant change"
    return "a significant fall" if result.fell else "a significant rise"


def _outcome_lines(result: Drift) -> list[str]:
    """The pass rates, and the flips with McNemar's test; with no test flipped, no test of a change (and, when no
    test passed every metric in either run, that this outcome cannot tell the runs apart: each metric's own
    outcomes can)."""
    rates = f"- passed every metric: {pct(result.before_rate)} -> {pct(result.after_rate)}"
    if not result.lost and not result.gained:
        none_passed = " (no test passed every metric in either run: compare each metric's outcomes)"
        return [f"{rates} of the tests", f"- flipped: none{none_passed if result.before_rate == 0 else ''}"]
    return [
        f"{rates}; paired difference {100 * result.difference:+.1f} pts, 95% interval [{100 * result.low:+.1f}, "
        f"{100 * result.high:+.1f}] pts (paired bootstrap)",
        f"- flipped: {len(result.lost)} lost, {len(result.gained)} gained; McNemar's exact test p = "
        f"{result.p_value:.4g} ({change_words(result)} at {ALPHA:g})",
    ]


def drift_lines(result: Drift, before: str, after: str, listed: int | None = None) -> list[str]:
    """The comparison as text lines (Markdown), naming both runs; the flipped tests listed (the first `listed` of
    each way, when given; 0 lists none)."""

    lines = [
        f"Drift {before} -> {after} (each test's pass on every metric) over {result.n} tests both completed"
        + (f" ({result.left_out} left out: in one run only, or a run failure)" if result.left_out else "")
        + ":",
        *_outcome_lines(result),
        "",
        table(
            [
                {
                    "": "model version (provider fingerprint)",
                    f"before: {before}": ", ".join(result.fingerprints[0]) or "not reported",
                    f"after: {after}": ", ".join(result.fingerprints[1]) or "not reported",
                }
            ]
        ),
    ]
    for flipped, title in (
        (result.lost, f"Lost (passed in {before}, not in {after})"),
        (result.gained, f"Gained (passed in {after}, not in {before})"),
    ):
        shown = flipped if listed is None else flipped[:listed]
        more = f" and {len(flipped) - len(shown)} more" if len(shown) < len(flipped) else ""
        if shown:
            lines += ["", f"{title}: {', '.join(shown)}{more}"]
    return lines
