"""A calibrated cascade applied to new items: the first judge confident enough decides, else the item escalates."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from judges.cascade.sources import Judge, judge_arrays
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


def item_order(judge: Judge) -> list[str]:
    """The items of the cascade: the first judge's, in the order its source lists them."""
    seen = dict.fromkeys(i for (i, m) in judge.predictions.by_key if m in (judge.metric, None))
    return list(seen)


def decide(
    judges: Sequence[Judge], thresholds: Sequence[float | None], rule: VerdictRule, ids: Sequence[str] | None = None
) -> list[Decision]:
    """Each item of the first judge, asked of the judges in turn: the first whose confidence reaches its threshold
    decides it (a judge with no threshold keeps nothing). A judge must have a prediction for every item that
    reaches it; an item it was never asked about is a mismatch, one line. `ids`: only these items, in this order."""
    ids = item_order(judges[0]) if ids is None else list(ids)
    decided: dict[str, Decision] = {}
    remaining = ids
    for judge, threshold in zip(judges, thresholds, strict=True):
        if not remaining:
            break
        scores, confidences = judge_arrays(judge, remaining, rule)
        left = []
        for item_id, score, confidence in zip(remaining, scores, confidences, strict=True):
            if threshold is not None and confidence >= threshold:
                decided[item_id] = Decision(item_id, judge.name, rule.call(float(score)), round(float(confidence), 6))
            else:
                left.append(item_id)
        remaining = left
    return [decided.get(i) or Decision(i) for i in ids]
