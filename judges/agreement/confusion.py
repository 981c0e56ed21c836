"""How a judge errs against people: the confusion matrix, recall per human label (TPR/TNR), the signed difference."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from judges.agreement.bootstrap import Figure, ItemRows, percentile_interval, resample_blocks
from judges.labels.schema import LabelledSet, LabelType
from judges.render.markdown import grid


@dataclass(frozen=True)
class JudgeErrors:
    """The matrix (rows: judge, columns: human, over label rows), recall figures, the signed difference and its
    reading, and the population-weighted figures (empty when the items carry no weights or equal ones)."""

    levels: list[float]
    matrix: list[list[int]]
    recall: list[Figure]
    signed_difference: Figure
    leaning: str
    weighted: list[Figure] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "levels": self.levels,
            "confusion_matrix": {"rows": "judge", "columns": "human", "counts": self.matrix},
            "recall": [f.to_dict() for f in self.recall],
            "signed_difference": self.signed_difference.to_dict(),
            "leaning": self.leaning,
            "weighted": [f.to_dict() for f in self.weighted],
        }


def item_weights(labels: LabelledSet) -> dict[str, float] | None:
    """Each item's inverse-probability weight (`extra.weight`), or None unless every item has one and they differ."""
    weights: dict[str, float] = {}
    for item in labels.items:
        value = item.extra.get("weight") if isinstance(item.extra, Mapping) else None
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
            return None
        weights[item.id] = float(value)
    return weights if len(set(weights.values())) > 1 else None


def recall_names(label_type: LabelType, levels: Sequence[float]) -> list[str]:
    if label_type is LabelType.BINARY:
        return ["tnr (recall of human 0)", "tpr (recall of human 1)"]
    return [f"recall of human {level:g}" for level in levels]


def leaning(figure: Figure) -> str:
    if figure.value is None or figure.ci is None:
        return "undefined"
    if figure.ci[0] > 0:
        return "lenient"
    if figure.ci[1] < 0:
        return "strict"
    return "no clear leaning"


def _stat(values: np.ndarray, mask: np.ndarray, weights: np.ndarray) -> float:
    total = float(weights[mask].sum())
    return float((values[mask] * weights[mask]).sum() / total) if total > 0 else float("nan")


Mean = tuple[str, np.ndarray, np.ndarray, np.ndarray]  # name, values, the rows it averages (mask), row weights


def _means(means: Sequence[Mean], rows: ItemRows, settings: tuple[int, int, float]) -> list[Figure]:
    """Each (weighted) mean of `values` over the rows in its mask, with its percentile interval over item
    resamples: one pass over the blocks of resamples (each the draw count of every row) for all of them."""
    resamples, seed, confidence = settings
    sums = np.stack([row for _, values, mask, weights in means for row in (values * weights * mask, weights * mask)])
    blocks = []
    for index in resample_blocks(rows.n_items, resamples, seed):
        share = np.einsum("kr,mr->km", rows.weights(index), sums)
        with np.errstate(invalid="ignore", divide="ignore"):
            blocks.append(share[:, 0::2] / share[:, 1::2])
    resampled = np.concatenate(blocks)
    out = []
    for k, (name, values, mask, weights) in enumerate(means):
        n, value = int(mask.sum()), _stat(values, mask, weights)
        if not np.isfinite(value):
            out.append(Figure(name, None, None, n, rows.n_items, note="no label rows of this kind"))
            continue
        ci, undefined = percentile_interval(resampled[:, k], confidence)
        note = f"{undefined} of {resamples} resamples undefined" if undefined else None
        out.append(Figure(name, value, ci, n, rows.n_items, note=note))
    return out


def judge_errors(
    label_type: LabelType,
    scale: tuple[float, float],
    human: np.ndarray,
    judge: np.ndarray,
    groups: Sequence[np.ndarray] | ItemRows,
    *,
    row_weights: np.ndarray | None = None,
    resamples: int,
    seed: int,
    confidence: float,
) -> JudgeErrors:
    """The figures on label rows (human, judge on the label levels), grouped by item for the bootstrap.

    The signed difference is judge minus human, on the label scale: above 0 the judge grades higher than people
    (lenient), below 0 lower (strict); its bootstrap interval decides which, and "no clear leaning" when it holds 0.
    When the labelled items carry inverse-probability weights (a labelling queue drawn with unequal chances), the
    same figures are given again weighted, as estimates for the whole population the queue was drawn from.
    """
    from sklearn.metrics import confusion_matrix

    levels = [float(v) for v in range(int(scale[0]), int(scale[1]) + 1)]
    # scikit-learn puts the true (human) labels in rows; the report reads judge rows, so it is transposed
    matrix = confusion_matrix(human, judge, labels=levels).T.astype(int).tolist()
    hit = (judge == human).astype(float)
    difference = judge - human
    everything = np.ones_like(human, dtype=bool)
    names = recall_names(label_type, levels)
    signed_name = "mean signed difference (judge - human)"

    def means(weights: np.ndarray, prefix: str = "") -> list[Mean]:
        recall = [(prefix + name, hit, human == level, weights) for name, level in zip(names, levels)]
        return [*recall, (prefix + signed_name, difference, everything, weights)]

    plain = means(np.ones_like(human, dtype=float))
    reweighted = [] if row_weights is None else means(row_weights, "weighted ")
    measured = _means(plain + reweighted, ItemRows.of(groups), (resamples, seed, confidence))
    *recall, signed = measured[: len(plain)]
    weighted = measured[len(plain) :]
    return JudgeErrors(levels, matrix, recall, signed, leaning(signed), weighted)


def _cells(fig: Figure) -> list[str]:
    if fig.value is None:
        value = "n/a"
    else:
        value = f"{fig.value:+.4f}" if "difference" in fig.statistic else f"{fig.value:.4f}"
    ci = "" if fig.ci is None else f"[{fig.ci[0]:.4f}, {fig.ci[1]:.4f}]"
    return [value, ci, f"{fig.n} ({fig.n_items})"]


def errors_table(errors: JudgeErrors, label_type: LabelType, ceiling: JudgeErrors | None = None) -> list[str]:
    """Markdown: the confusion matrix, then recall and the signed difference with intervals (and the same between
    two annotators, the human ceiling, when items have two), then the reading."""
    head = [f"{v:g}" for v in errors.levels]
    lines = [
        "Judge against people (label rows; rows: the judge's grade, columns: the human label):",
        "",
        grid(["judge \\ human", *head], [[name, *row] for name, row in zip(head, errors.matrix)]),
        "",
    ]
    human = {f.statistic: f for f in ([*ceiling.recall, ceiling.signed_difference] if ceiling else [])}
    figures = [*errors.recall, errors.signed_difference, *errors.weighted]
    lines.append(
        grid(
            ["figure", "judge", "95% CI", "n (items)", "human-human", "95% CI", "n (items)"],
            [
                [
                    fig.statistic,
                    *_cells(fig),
                    *(_cells(human[fig.statistic]) if fig.statistic in human else ["", "", ""]),
                ]
                for fig in figures
            ],
        )
    )
    signed = errors.signed_difference
    lines.append("")
    if errors.leaning in ("lenient", "strict") and signed.value is not None and signed.ci is not None:
        direction = "higher" if errors.leaning == "lenient" else "lower"
        lines.append(
            f"The judge is **{errors.leaning}**: it grades {direction} than people by {abs(signed.value):.2f} on "
            f"average (95% CI [{signed.ci[0]:.2f}, {signed.ci[1]:.2f}], which excludes 0)."
        )
    elif errors.leaning == "no clear leaning":
        lines.append("No clear leaning: the interval of the signed difference holds 0.")
    if errors.weighted:
        lines.append(
            "Weighted rows use each item's inverse-probability weight from the labelling queue (1 / its chance of "
            "being drawn): estimates for all the graded items the queue was drawn from, not only the labelled ones."
        )
    if ceiling is None:
        lines.append("No human-human figures: no item was labelled by two annotators.")
    if label_type is LabelType.BINARY:
        lines.append("TPR: of the answers people labelled 1, the share the judge graded 1; TNR: the same for 0.")
    return lines
