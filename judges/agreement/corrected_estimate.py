"""Corrected estimates of the mean label when the judge graded more items than were labelled: the judge-only and
labelled-only means, the prediction-powered mean (PPI++, power-tuned), and for binary labels Rogan-Gladen.

PPI++ follows Angelopoulos, Duchi and Zrnic (arXiv 2311.01453, 2023; PPI: Angelopoulos et al., Science 2023) and
gives the figures of its authors' reference implementation `ppi_py.ppi_mean_ci` / `ppi_mean_pointestimate`:
theta = lam * mean(f_unlabelled) + mean(y - lam * f_labelled), lam tuned on the data and clipped to [0, 1], with
the normal interval from the two variances. Rogan and Gladen (Am. J. Epidemiol. 1978) correct the judge's positive
rate by its sensitivity and specificity on the labelled items: (rate + spec - 1) / (sens + spec - 1), clipped to
[0, 1]; its interval is a bootstrap that redraws the labelled items' confusion table and the judged items' rate, so
it carries the uncertainty of sensitivity and specificity.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from statistics import NormalDist
from typing import Any

import numpy as np

from judges.agreement.bootstrap import percentile_interval
from judges.labels.schema import LabelType

READING = (
    "report the corrected rate (PPI++), not the judge's own mean, which carries its errors; the labelled-only "
    "mean is unbiased but rests on the labelled items alone, and PPI++ is never much wider"
)


@dataclass(frozen=True)
class Estimate:
    """One estimate of the mean label: its value, 95% (or chosen) interval and the items it rests on."""

    value: float | None
    ci: tuple[float, float] | None
    n: int
    note: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"value": self.value, "ci": None if self.ci is None else list(self.ci), "n": self.n, "note": self.note}


@dataclass(frozen=True)
class Estimates:
    """The mean label over every judged item, four ways; `lam` is PPI++'s tuned weight of the judge."""

    judge_only: Estimate
    labelled_only: Estimate
    ppi: Estimate
    lam: float
    n_labelled: int
    n_unlabelled: int
    rogan_gladen: Estimate | None = None
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        out = {
            "n_labelled": self.n_labelled,
            "n_unlabelled": self.n_unlabelled,
            "judge_only": self.judge_only.to_dict(),
            "labelled_only": self.labelled_only.to_dict(),
            "ppi": {**self.ppi.to_dict(), "lambda": self.lam},
            "notes": self.notes,
        }
        if self.rogan_gladen is not None:
            out["rogan_gladen"] = self.rogan_gladen.to_dict()
        return out


def _z(confidence: float) -> float:
    return NormalDist().inv_cdf(1 - (1 - confidence) / 2)


def normal_mean(values: np.ndarray, confidence: float) -> Estimate:
    """The mean with the normal (CLT) interval, the classical interval PPI++ reduces to with lam = 0."""
    mean = float(values.mean())
    half = _z(confidence) * float(values.std()) / np.sqrt(values.size)
    return Estimate(mean, (mean - half, mean + half), int(values.size))


def ppi_lambda(y: np.ndarray, f_labelled: np.ndarray, f_unlabelled: np.ndarray) -> float:
    """PPI++'s power-tuning weight for a mean, clipped to [0, 1] (as ppi_py's `_calc_lam_glm` for one dimension)."""
    n, big_n = y.size, f_unlabelled.size
    plain = f_unlabelled.mean() + (y - f_labelled).mean()
    grads, grads_hat = y - plain, f_labelled - plain
    covariance = 2 * float(np.mean((grads - grads.mean()) * (grads_hat - grads_hat.mean())))
    variance = float(np.var(np.concatenate([grads_hat, f_unlabelled - plain]), ddof=1))
    if variance == 0:
        return 0.0
    return float(np.clip(covariance / (2 * (1 + n / big_n) * variance), 0, 1))


def ppi_mean(
    y: np.ndarray, f_labelled: np.ndarray, f_unlabelled: np.ndarray, confidence: float
) -> tuple[Estimate, float]:
    """The power-tuned prediction-powered mean and its normal interval, and the weight lam it used."""
    lam = ppi_lambda(y, f_labelled, f_unlabelled)
    value = float(lam * f_unlabelled.mean() + (y - lam * f_labelled).mean())
    spread = np.sqrt(np.var(lam * f_unlabelled) / f_unlabelled.size + np.var(y - lam * f_labelled) / y.size)
    half = _z(confidence) * float(spread)
    return Estimate(value, (value - half, value + half), int(y.size + f_unlabelled.size)), lam


def rogan_gladen(
    truth: np.ndarray, said_labelled: np.ndarray, said_all: np.ndarray, *, resamples: int, seed: int, confidence: float
) -> Estimate:
    """The positive rate corrected by the judge's sensitivity and specificity, with a bootstrap interval."""

    cells = np.array(
        [
            np.sum((truth == 1) & (said_labelled == 1)),
            np.sum((truth == 1) & (said_labelled == 0)),
            np.sum((truth == 0) & (said_labelled == 0)),
            np.sum((truth == 0) & (said_labelled == 1)),
        ],
        dtype=float,
    )
    rate, n_all = float(said_all.mean()), int(said_all.size)

    def corrected(counts: np.ndarray, observed: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            sensitivity = counts[..., 0] / (counts[..., 0] + counts[..., 1])
            specificity = counts[..., 2] / (counts[..., 2] + counts[..., 3])
            youden = sensitivity + specificity - 1
            value = np.where(youden > 0, (observed + specificity - 1) / youden, np.nan)
        return np.asarray(np.clip(value, 0, 1), dtype=float)

    value = float(corrected(cells, np.array(rate)))
    if not np.isfinite(value):
        chance = "undefined: the judge is no better than chance on the labelled items (sensitivity + specificity <= 1)"
        return Estimate(None, None, n_all, chance)
    rng = np.random.default_rng(seed)
    counts = rng.multinomial(int(cells.sum()), cells / cells.sum(), size=resamples).astype(float)
    observed = rng.binomial(n_all, rate, size=resamples) / n_all
    ci, undefined = percentile_interval(corrected(counts, observed), confidence)
    note = f"{undefined} of {resamples} resamples undefined" if undefined else None
    return Estimate(value, ci, n_all, note)


def estimates(
    y: np.ndarray,
    f_labelled: np.ndarray,
    f_unlabelled: np.ndarray,
    *,
    binary: bool,
    resamples: int,
    seed: int,
    confidence: float,
) -> Estimates:
    """The four estimates from the labelled items (label y, judge f) and the judge's values on unlabelled items.

    For binary labels `f` are the judge's 0/1 calls, and Rogan-Gladen is added.
    """
    judged = np.concatenate([f_labelled, f_unlabelled])
    ppi, lam = ppi_mean(y, f_labelled, f_unlabelled, confidence)
    corrected = (
        rogan_gladen(y, f_labelled, judged, resamples=resamples, seed=seed, confidence=confidence) if binary else None
    )
    return Estimates(
        judge_only=normal_mean(judged, confidence),
        labelled_only=normal_mean(y, confidence),
        ppi=ppi,
        lam=lam,
        n_labelled=int(y.size),
        n_unlabelled=int(f_unlabelled.size),
        rogan_gladen=corrected,
    )


def measure_estimate(
    labels: Any,
    predictions: Any,
    turn: Callable[[float], float],
    judge_scale: Any,
    *,
    resamples: int,
    seed: int,
    confidence: float,
) -> Estimates | None:
    """The estimates for one metric's labels, when the predictions grade items that carry no label (else None).

    Read from the labels and the predictions alone: each labelled item's mean label (for binary labels its
    annotators' majority) beside the judge's grade, turned by `turn` for a lower-is-better judge (a null or a
    failure is not a grade to correct, so those items are left out); the judge's calls for binary labels are its
    0/1 grades or its score cut at `judge_scale.threshold`.
    """

    first = labels.items[0]
    label_type, metric = first.label_type, first.metric
    if label_type is LabelType.PREFERENCE or predictions.all_within(labels.by_item[0], metric):
        return None  # the usual case: every graded item is labelled, nothing to correct
    sums: dict[str, list[float]] = {}
    for item in labels.items:
        sums.setdefault(item.id, []).append(item.label)
    graded_ids = predictions.ids(metric)

    def graded(item_id: str) -> float | None:
        found = predictions.get(item_id, metric)
        return None if found is None or found.score is None else float(turn(found.score))

    unlabelled = [v for i in sorted(graded_ids - sums.keys()) if (v := graded(i)) is not None]
    pairs = [(float(np.mean(values)), v) for i, values in sums.items() if (v := graded(i)) is not None]
    if not unlabelled or len(pairs) < 2:
        return None
    y, f_labelled, f_unlabelled = np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs]), np.array(unlabelled)
    binary = label_type is LabelType.BINARY and (judge_scale.binary or judge_scale.threshold is not None)
    notes = []
    if label_type is LabelType.BINARY:
        y = (y >= 0.5).astype(float)
        if binary and judge_scale.threshold is not None:
            f_labelled = (f_labelled >= judge_scale.threshold).astype(float)
            f_unlabelled = (f_unlabelled >= judge_scale.threshold).astype(float)
            notes.append("the judge's calls are its scores cut at the threshold")
        elif not binary:
            notes.append("no threshold: the judge-only figure is its mean score, and there is no Rogan-Gladen")
    found = estimates(y, f_labelled, f_unlabelled, binary=binary, resamples=resamples, seed=seed, confidence=confidence)
    return Estimates(**{**found.__dict__, "notes": notes})
