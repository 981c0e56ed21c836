"""The rubric family's specs (one G-Eval rubric per built-in criterion of critiques.py), registered under `judgelab.metrics`."""

from __future__ import annotations

from judges.rag.critiques import CRITERIA
from judges.rag.spec import MetricSpec, criterion_spec

LISTED = 8  # the family's place in `judgelab metrics --list`


def specs() -> list[MetricSpec]:
    """The rubric family: one `rubric_<criterion>` metric per built-in criterion."""
    return [criterion_spec(name, definition) for name, definition in CRITERIA.items()]
