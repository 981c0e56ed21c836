"""A judge whose grades are (nearly) constant over a run's samples: the one line per metric that reports give."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from judges.records import MetricSummary, Summary

CONSTANT_MIN_GRADED = 3  # one grade given to every graded sample, from this many on: a constant judge
NEAR_MIN_GRADED = 20  # from this many graded samples on, one grade given to at least NEAR_SHARE of them
NEAR_SHARE = 0.95


def near_constant_line(metric: str, counts: MetricSummary) -> str | None:
    """The line saying the judge gave (nearly) one grade to every sample of `metric`, or None when it did not, too
    few samples were graded to tell, or the summary predates the count of the commonest grade."""
    graded, grade, count = counts.graded, counts.top_grade, counts.top_grade_count
    if grade is None or count is None:
        return None
    if graded >= CONSTANT_MIN_GRADED and count == graded:
        return f"{metric}: the judge gave {grade:g} to all {graded} graded samples: a constant judge separates nothing"
    if graded >= NEAR_MIN_GRADED and count / graded >= NEAR_SHARE:
        return (
            f"{metric}: the judge gave {grade:g} to {count} of {graded} graded samples ({count / graded:.0%}): a "
            "near-constant judge separates little unless the samples are that alike"
        )
    return None


def near_constant_lines(summary: Summary) -> list[str]:
    """One line per metric whose grades are (nearly) constant, in the summary's order."""
    return [line for metric, counts in summary.metrics.items() if (line := near_constant_line(metric, counts))]
