"""One verdict from K draws of the same question: the modal verdict, and the share of draws that gave it."""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Sequence

from judges.records import MetricRecord
from judges.types import VerdictState


def modal_record(draws: Sequence[MetricRecord]) -> MetricRecord:
    """The record of the first draw that gave the modal verdict (a grade's value, or a null) among the draws that
    did not fail, keeping every draw's verdict and calls; a graded mode's confidence is the share of the K draws that
    gave it (a failed draw gave no grade). When every draw failed, the first draw's failure."""
    answered = [record for record in draws if not record.verdict.is_failure]
    chosen = draws[0]
    confidence = None
    if answered:
        counts = Counter((r.verdict.state, r.verdict.grade) for r in answered)
        (state, grade), count = counts.most_common(1)[0]  # on a tie, the verdict an earlier draw gave
        chosen = next(r for r in answered if (r.verdict.state, r.verdict.grade) == (state, grade))
        confidence = count / len(draws) if state is VerdictState.GRADE else None
    return dataclasses.replace(
        chosen,
        calls=[call for record in draws for call in record.calls],
        confidence=confidence,
        draws=[record.verdict for record in draws],
    )
