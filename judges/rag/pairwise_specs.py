"""The pairwise family's spec, registered under `judgelab.metrics` (its function in pairwise.py is imported only when it runs)."""

from __future__ import annotations

from judges.rag.spec import A, MetricSpec, Q, metric_spec

LISTED = 10  # the family's place in `judgelab metrics --list`


def specs() -> list[MetricSpec]:
    """The one pairwise metric: which of two answers the judge prefers."""
    return [
        metric_spec(
            "pairwise_preference",
            "pairwise",
            (Q, A, "alternative_output"),
            "pairwise:preference",
            "A (actual_output) -1, B (alternative_output) +1, tie 0; asked in both orders, disagreeing orders a tie",
            value_range=(-1.0, 1.0),
            first_calls=2,  # one per order
        ),
    ]
