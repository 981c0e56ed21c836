"""Agreement statistics' functions (scipy, scikit-learn; their weighted forms in `weighted`), declared by name in
`statistic_index`."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Literal

import numpy as np

from judges.labels.schema import LabelType
from judges.stats import alpha_forms

One = Callable[[np.ndarray, np.ndarray], float]
Batch = Callable[[np.ndarray, np.ndarray], np.ndarray]
Asymptotic = Callable[[float, int, float], tuple[float, float]]  # (value, items, confidence) -> interval
# above this many items, Kendall's tau-b (`kendall_interval`) and the system-aware figures (`system_large`) take an
# asymptotic interval instead of the bootstrap, whose per-resample sorts and sums would not fit 60 s at 10^6 items
BOOTSTRAP_ITEMS = 20_000


@dataclass(frozen=True)
class Statistic:
    """A statistic of (human labels, judge values), and how its bootstrap resamples are computed.

    `weighted` computes it on a block of resamples given as row weights (`judges.agreement.weighted`), in memory
    that does not grow with the resamples; `batch` for each row of two (resamples, rows) matrices (kept for
    statistics without a weighted form, used when every item has the same number of rows); else `one` runs once
    per resample. Above `bootstrap_items` items, `asymptotic` gives the interval instead of the bootstrap.

    `view` names the judge values it reads: "value" (as given), "scaled" (a preference min-max scaled to
    the label scale, the RAGChecker protocol) or "binary" (a continuous score cut at the threshold).
    A statistic with a `reason` does not apply here and is reported without a value.
    """

    name: str
    one: One | None = None
    batch: Batch | None = None
    view: str = "value"
    reason: str | None = None
    weighted: alpha_forms.Weighted | None = field(default=None, kw_only=True)
    bootstrap_items: int | None = field(default=None, kw_only=True)
    asymptotic: Asymptotic | None = field(default=None, kw_only=True)
    asymptotic_note: str = field(default="", kw_only=True)

    def __call__(self, human: np.ndarray, judge: np.ndarray) -> float:
        """The value, or NaN where it is undefined (constant input, one class only)."""
        assert self.one is not None, self.reason
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                return float(self.one(human, judge))
            except ValueError:  # e.g. roc_auc_score with one class, alpha with one value in the domain
                return float("nan")


def pearson(h: np.ndarray, j: np.ndarray) -> float:
    from scipy import stats

    return stats.pearsonr(h, j).statistic


def spearman(h: np.ndarray, j: np.ndarray) -> float:
    from scipy import stats

    return stats.spearmanr(h, j).statistic


def kendall(h: np.ndarray, j: np.ndarray) -> float:
    from scipy import stats

    return stats.kendalltau(h, j).statistic  # tau-b: corrects for the many ties of ordinal labels


def fisher_interval(value: float, dof: float, confidence: float, variance: float = 1.0) -> tuple[float, float]:
    """A correlation's interval from Fisher's z: tanh(atanh(r) -+ z sqrt(variance / dof))."""
    from statistics import NormalDist

    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    centre, half = float(np.arctanh(np.clip(value, -0.999999, 0.999999))), z * float(np.sqrt(variance / dof))
    return float(np.tanh(centre - half)), float(np.tanh(centre + half))


def kendall_interval(value: float, n_items: int, confidence: float) -> tuple[float, float]:
    """Fisher's z of tau with the variance 0.437 / (n - 4) of Fieller, Hartley and Pearson (1957), as Bonett and
    Wright (2000, Psychometrika 65) recommend for Kendall's tau: derived for bivariate normal data, and with n the
    items (not label rows), conservative when items have several annotators."""
    return fisher_interval(value, n_items - 4, confidence, 0.437)


KENDALL_NOTE = (
    f"interval: Fisher z with variance 0.437/(n-4) (Fieller, Hartley and Pearson 1957), not the bootstrap, "
    f"above {BOOTSTRAP_ITEMS:,} items"
)


def weighted_kappa(h: np.ndarray, j: np.ndarray, *, levels: Sequence[int]) -> float:
    from sklearn.metrics import cohen_kappa_score

    return cohen_kappa_score(h.astype(int), j.astype(int), labels=list(levels), weights="quadratic")


def _alpha_form(
    level: Literal["nominal", "ordinal", "interval"], domain: Sequence[float] | None
) -> alpha_forms.Weighted:
    if level == "interval":
        return alpha_forms.interval_alpha
    return alpha_forms.alpha_on_levels(list(domain or ()), ordinal=level == "ordinal")


def _alpha(
    h: np.ndarray, j: np.ndarray, *, level: Literal["nominal", "ordinal", "interval"], domain: Sequence[float] | None
) -> float:
    """Krippendorff's alpha of the judge and the people as two coders without missing values, in the closed form
    of `weighted` (the krippendorff package builds a values x values matrix: 10^6 distinct scores do not fit);
    equal to krippendorff.alpha on the same data (tested)."""
    if level != "interval" and not (np.all(np.isin(h, domain or ())) and np.all(np.isin(j, domain or ()))):
        raise ValueError("a value outside the domain")
    return float(_alpha_form(level, domain)(h, j)(np.ones((1, h.size)))[0])


def alpha(level: Literal["nominal", "ordinal", "interval"], domain: Sequence[float] | None, view: str) -> Statistic:
    return Statistic(
        "krippendorff_alpha",
        partial(_alpha, level=level, domain=domain),
        view=view,
        weighted=_alpha_form(level, domain),
    )


def balanced_accuracy(h: np.ndarray, j: np.ndarray) -> float:
    from sklearn.metrics import balanced_accuracy_score

    return balanced_accuracy_score(h.astype(int), j.astype(int))


def f1(h: np.ndarray, j: np.ndarray) -> float:
    from sklearn.metrics import f1_score

    return f1_score(h.astype(int), j.astype(int), labels=[0, 1], pos_label=1, zero_division=np.nan)


def mcc(h: np.ndarray, j: np.ndarray) -> float:
    from sklearn.metrics import matthews_corrcoef

    return matthews_corrcoef(h.astype(int), j.astype(int))


def auroc(h: np.ndarray, j: np.ndarray) -> float:
    from sklearn.metrics import roc_auc_score

    return roc_auc_score(h.astype(int), j)


def sign_agreement(h: np.ndarray, j: np.ndarray) -> float:
    return float(np.mean(np.sign(h) == np.sign(j)))


def decisive_agreement(h: np.ndarray, j: np.ndarray) -> float:
    decisive = h != 0
    return float(np.mean(np.sign(h[decisive]) == np.sign(j[decisive]))) if decisive.any() else float("nan")


def levels_of(scale: tuple[float, float]) -> list[int]:
    return list(range(int(scale[0]), int(scale[1]) + 1))


@dataclass(frozen=True)
class JudgeScale:
    """What the judge's values look like, which decides kappa, alpha and the binary statistics."""

    on_label_scale: bool  # every value is a valid label (a level of an ordinal or binary scale; in range otherwise)
    binary: bool  # every value is 0 or 1
    threshold: float | None  # where a continuous score is cut for the binary statistics


def describe_judge(
    values: Sequence[float] | np.ndarray,
    label_type: LabelType,
    scale: tuple[float, float],
    threshold: float | None = None,
) -> JudgeScale:
    """Inspect the graded judge values; a continuous score is cut at `threshold` (fitted or given), 0/1 grades not."""
    array = np.asarray(values, dtype=float)
    in_range = bool(np.all((array >= scale[0]) & (array <= scale[1])))
    whole = bool(np.all(array == np.round(array)))
    binary = bool(np.all(np.isin(array, (0.0, 1.0))))
    on_scale = in_range and (whole or label_type in (LabelType.CONTINUOUS, LabelType.PREFERENCE))
    return JudgeScale(on_label_scale=on_scale, binary=binary, threshold=None if binary else threshold)
