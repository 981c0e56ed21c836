"""MetricAgreement: what was measured for one metric (judge and ceiling figures, the cut, each item's fate)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from judges.agreement.bootstrap import Figure, ItemRows, figures
from judges.agreement.confusion import JudgeErrors
from judges.agreement.corrected_estimate import Estimates
from judges.agreement.groups import GroupAgreement
from judges.agreement.policy import OutcomeCounts, Policy
from judges.agreement.statistics import JudgeScale, Statistic
from judges.agreement.systems import SystemAgreement
from judges.agreement.threshold import FittedThreshold
from judges.labels.schema import LabelType


@dataclass(frozen=True)
class MeasuredRows:
    """The label rows a result was measured on (kept for comparing two judges on the same items; not saved)."""

    human: np.ndarray
    views: dict[str, np.ndarray]
    row_item: np.ndarray  # the item index of each row
    statistics: list[Statistic]
    ids: tuple[str, ...] = ()  # the id of each item index (the leaderboard pairs two judges by them)


@dataclass(frozen=True)
class MetricAgreement:
    """Everything measured for one metric: judge figures, ceiling figures, and what happened to each item."""

    metric: str
    label_type: LabelType
    scale: tuple[float, float]
    annotators: list[str]
    n_items: int
    n_labels: int
    policy: Policy
    counts: OutcomeCounts
    judge_scale: JudgeScale
    judge: list[Figure]
    ceiling: list[Figure] = field(default_factory=list)  # empty when no item has two annotators
    unmatched_predictions: int = 0
    settings: dict[str, Any] = field(default_factory=dict)
    threshold: FittedThreshold | None = None  # the fitted cut of a continuous judge on binary labels
    higher_is_better: bool = True  # the judge's direction (a lower-is-better judge is turned before measuring)
    notes: list[str] = field(default_factory=list)  # how the binary cut was made, items set aside, and so on
    errors: JudgeErrors | None = None  # confusion matrix, recall, signed difference (judge grades on the label levels)
    ceiling_errors: JudgeErrors | None = None  # the same between two annotators of an item (first id as "judge")
    systems: SystemAgreement | None = None  # partial, system-level and per-system figures (items of 2+ systems)
    groups: GroupAgreement | None = None  # per-group correlations and acc*_eq, where items name their group
    estimate: Estimates | None = None  # the corrected mean label, when the judge graded items without a label
    rows: MeasuredRows | None = field(default=None, compare=False, repr=False)

    def figures(self) -> list[Figure]:
        """Every judge figure: the plain ones, then the system-aware ones when the items name two or more systems."""
        grouped = self.groups.figures if self.groups is not None else []
        return self.judge + (self.systems.figures if self.systems is not None else []) + grouped

    def figure(self, statistic: str, *, ceiling: bool = False) -> Figure:
        for fig in self.ceiling if ceiling else self.figures():
            if fig.statistic == statistic:
                return fig
        raise KeyError(statistic)

    def with_interval(self, statistic: str) -> Figure:
        """A judge figure with its interval: a plain one measured without it (`measure(intervals=...)`) gets it now
        from the kept rows, on the same seeded resamples, so it equals the one measuring everything gives."""
        found = self.figure(statistic)
        plain = [s for s in self.rows.statistics if s.name == statistic] if self.rows is not None else []
        if found.ci is not None or found.value is None or not plain or self.rows is None:
            return found
        rows, settings = self.rows, self.settings
        items = ItemRows(rows.row_item, len(rows.ids))
        return figures(
            plain, rows.human, rows.views, items, **{k: settings[k] for k in ("resamples", "seed", "confidence")}
        )[0]

    def to_dict(self) -> dict[str, Any]:
        return {
            "metric": self.metric,
            "label_type": self.label_type.value,
            "scale": list(self.scale),
            "annotators": self.annotators,
            "n_items": self.n_items,
            "n_labels": self.n_labels,
            "policy": self.policy.value,
            "outcomes": self.counts.to_dict(),
            "unmatched_predictions": self.unmatched_predictions,
            "judge_values": {
                "on_label_scale": self.judge_scale.on_label_scale,
                "binary": self.judge_scale.binary,
                "threshold": self.judge_scale.threshold,
            },
            "judge": [f.to_dict() for f in self.judge],
            "ceiling": [f.to_dict() for f in self.ceiling],
            "settings": self.settings,
            "judge_direction": "higher is better" if self.higher_is_better else "lower is better",
            "fitted_threshold": None if self.threshold is None else self.threshold.to_dict(),
            "notes": self.notes,
            "errors": None if self.errors is None else self.errors.to_dict(),
            "ceiling_errors": None if self.ceiling_errors is None else self.ceiling_errors.to_dict(),
            "system_aware": None if self.systems is None else self.systems.to_dict(),
            "per_group": None if self.groups is None else self.groups.to_dict(),
            "estimate": None if self.estimate is None else self.estimate.to_dict(),
        }
