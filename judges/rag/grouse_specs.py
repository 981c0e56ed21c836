"""The GroUSE family's specs, registered under `judgelab.metrics` (grouse.py is imported only when they run)."""

from __future__ import annotations

from judges.rag.spec import A, C, G, MetricSpec, Q, metric_spec

LISTED = 5  # the family's place in `judgelab metrics --list`


def specs() -> list[MetricSpec]:
    """GroUSE's four judged metrics, then the two derived from relevancy and completeness."""
    return [
        *(
            metric_spec(
                f"grouse_{m}",
                "grouse",
                (Q, A, C, G),
                "grouse:judged",
                f"GroUSE {m} (the Foundation's judge)",
                options={"metric": m},
                value_range=(1.0, 5.0) if m in ("answer_relevancy", "completeness") else (0.0, 1.0),
            )
            for m in ("answer_relevancy", "completeness", "faithfulness", "usefulness")
        ),
        *(
            metric_spec(
                f"grouse_{m}",
                "grouse",
                (Q, A, C, G),
                "grouse:derived",
                f"GroUSE {m}, from relevancy / completeness",
                options={"metric": m},
            )
            for m in ("positive_acceptance", "negative_rejection")
        ),
    ]
