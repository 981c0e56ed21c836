"""A calibrated cascade applied to new items: the first judge confident enough decides, else the item escalates.
The decisions are held as columns (who decided, the call, the confidence per item), not an object per item."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, overload

import numpy as np

from judges.agreement.predictions_columns import OneMetric
from judges.cascade.sources import Judge, judge_arrays_among
from judges.cascade.verdicts import VerdictRule


@dataclass(frozen=True)
class Decision:
    """One item's outcome: the judge that decided it and its call and confidence, or None for all three (escalated)."""

    id: str
    decided_by: str | None = None
    verdict: float | None = None
    confidence: float | None = None

    def to_record(self) -> dict[str, Any]:
        verdict = None if self.verdict is None else int(self.verdict)
        return {"id": self.id, "decided_by": self.decided_by, "verdict": verdict, "confidence": self.confidence}


@dataclass(frozen=True, eq=False)
class Decisions(Sequence[Decision]):
    """Every item's Decision, held as columns: `by` the deciding judge's place in `names` (-1: escalated), its call
    and its confidence; a Decision is made when it is read."""

    ids: Sequence[str]
    names: tuple[str, ...]
    by: np.ndarray
    calls: np.ndarray
    confidences: np.ndarray

    def __len__(self) -> int:
        return len(self.ids)

    @overload
    def __getitem__(self, index: int) -> Decision: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Decision]: ...

    def __getitem__(self, index: int | slice) -> Decision | Sequence[Decision]:
        if isinstance(index, slice):
            return [self[n] for n in range(*index.indices(len(self)))]
        judge = int(self.by[index])
        if judge < 0:
            return Decision(self.ids[index])
        confidence = round(float(self.confidences[index]), 6)
        return Decision(self.ids[index], self.names[judge], float(self.calls[index]), confidence)

    def __iter__(self) -> Iterator[Decision]:
        """Every Decision in order, made a block of columns at a time (not through `__getitem__`)."""
        names, block = self.names, 8192
        for start in range(0, len(self.ids), block):
            end = start + block
            columns = (
                self.by[start:end].tolist(),
                self.calls[start:end].tolist(),
                self.confidences[start:end].tolist(),
            )
            for item_id, judge, call, confidence in zip(self.ids[start:end], *columns, strict=True):
                yield Decision(item_id) if judge < 0 else Decision(item_id, names[judge], call, round(confidence, 6))


def item_order(judge: Judge) -> list[str]:
    """The items of the cascade: the first judge's, in the order its source lists them."""
    by_key = judge.predictions.by_key
    if isinstance(by_key, OneMetric):  # one metric held by id: each id once already
        return [item_id for item_id, _ in by_key]
    seen = dict.fromkeys(i for (i, m) in by_key if m in (judge.metric, None))
    return list(seen)


def decide(judges: Sequence[Judge], thresholds: Sequence[float | np.ndarray | None], rule: VerdictRule) -> Decisions:
    """Each item of the first judge, asked of the judges in turn: the first whose confidence reaches its threshold
    decides it (a judge with no threshold keeps nothing, and its verdicts are not read; a threshold per item, an
    array in the items' order, asks a judge only where it is not NaN). A judge must have a prediction for every item
    that reaches it; an item it was never asked about is a mismatch, one line."""
    ids = item_order(judges[0])
    by = np.full(len(ids), -1, dtype=np.int16)
    calls = np.full(len(ids), np.nan)
    confidences = np.full(len(ids), np.nan)
    remaining = np.arange(len(ids))
    for place, (judge, threshold) in enumerate(zip(judges, thresholds, strict=True)):
        if not len(remaining):
            break
        if threshold is None:
            continue
        bars = None if np.ndim(threshold) == 0 else np.asarray(threshold)
        asked = remaining if bars is None else remaining[~np.isnan(bars[remaining])]
        scores, confidence = judge_arrays_among(judge, ids, asked, rule)
        with np.errstate(invalid="ignore"):
            kept = confidence >= (threshold if bars is None else bars[asked])  # NaN (a null, a failure) is never kept
        chosen = asked[kept]
        by[chosen], calls[chosen], confidences[chosen] = place, rule.calls(scores[kept]), confidence[kept]
        remaining = remaining[by[remaining] < 0]
    return Decisions(ids, tuple(judge.name for judge in judges), by, calls, confidences)
