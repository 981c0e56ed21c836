"""The TRACe family's specs, registered under `judgelab.metrics` (trace.py is imported only when they run)."""

from __future__ import annotations

from judges.rag.spec import A, C, MetricSpec, metric_spec

LISTED = 2  # the family's place in `judgelab metrics --list`


def specs() -> list[MetricSpec]:
    """TRACe's relevance, utilization, completeness and adherence, then the popular variants."""
    return [
        metric_spec("trace_relevance", "trace", (A, C), "trace:relevance", "relevant / all context sentences"),
        metric_spec("trace_utilization", "trace", (A, C), "trace:utilization", "utilized / all context sentences"),
        metric_spec(
            "trace_completeness", "trace", (A, C), "trace:completeness", "|relevant and utilized| / |relevant|"
        ),
        metric_spec("trace_adherence", "trace", (A, C), "trace:adherence", "1 if every answer sentence is supported"),
        metric_spec(
            "trace_relevance_popular",
            "trace",
            (A, C),
            "trace:relevance_popular",
            "popular variant: min(1, relevant sentences / 20)",
        ),
        metric_spec(
            "trace_utilization_popular",
            "trace",
            (A, C),
            "trace:utilization_popular",
            "popular variant: min(1, utilized / relevant)",
        ),
    ]
