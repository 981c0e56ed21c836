"""Agreement statistics (scipy, scikit-learn, krippendorff), chosen by the label type and the judge's scale."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Literal

import numpy as np

from judges.agreement import chance
from judges.labels.schema import LabelType

One = Callable[[np.ndarray, np.ndarray], float]
Batch = Callable[[np.ndarray, np.ndarray], np.ndarray]


@dataclass(frozen=True)
class Statistic:
    """A statistic of (human labels, judge values); `batch` computes it for each row of two (resamples, n) matrices.

    `view` names the judge values it reads: "value" (as given), "scaled" (a preference min-max scaled to
    the label scale, the RAGChecker protocol) or "binary" (a continuous score cut at the threshold).
    A statistic with a `reason` does not apply here and is reported without a value.
    """

    name: str
    one: One | None = None
    batch: Batch | None = None
    view: str = "value"
    reason: str | None = None

    def __call__(self, human: np.ndarray, judge: np.ndarray) -> float:
        """The value, or NaN where it is undefined (constant input, one class only)."""
        assert self.one is not None, self.reason
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                return float(self.one(human, judge))
            except ValueError:  # e.g. roc_auc_score with one class, alpha with one value in the domain
                return float("nan")


def _pearson(h: np.ndarray, j: np.ndarray) -> float:
    from scipy import stats

    return stats.pearsonr(h, j).statistic


def _pearson_batch(h: np.ndarray, j: np.ndarray) -> np.ndarray:
    from scipy import stats

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return stats.pearsonr(h, j, axis=1).statistic


def _spearman(h: np.ndarray, j: np.ndarray) -> float:
    from scipy import stats

    return stats.spearmanr(h, j).statistic


def _spearman_batch(h: np.ndarray, j: np.ndarray) -> np.ndarray:
    """Spearman's rho is Pearson's r of the average ranks: rank each resample, then the batched pearsonr."""
    from scipy import stats

    return _pearson_batch(stats.rankdata(h, axis=1), stats.rankdata(j, axis=1))


def _kendall(h: np.ndarray, j: np.ndarray) -> float:
    from scipy import stats

    return stats.kendalltau(h, j).statistic  # tau-b: corrects for the many ties of ordinal labels


def _weighted_kappa(h: np.ndarray, j: np.ndarray, *, levels: Sequence[int]) -> float:
    from sklearn.metrics import cohen_kappa_score

    return cohen_kappa_score(h.astype(int), j.astype(int), labels=list(levels), weights="quadratic")


def _alpha(
    h: np.ndarray, j: np.ndarray, *, level: Literal["nominal", "ordinal", "interval"], domain: Sequence[float] | None
) -> float:
    import krippendorff

    return krippendorff.alpha(
        reliability_data=np.vstack([h, j]).astype(float),
        level_of_measurement=level,
        value_domain=None if domain is None else list(domain),
    )


def _balanced_accuracy(h: np.ndarray, j: np.ndarray) -> float:
    from sklearn.metrics import balanced_accuracy_score

    return balanced_accuracy_score(h.astype(int), j.astype(int))


def _f1(h: np.ndarray, j: np.ndarray) -> float:
    from sklearn.metrics import f1_score

    return f1_score(h.astype(int), j.astype(int), labels=[0, 1], pos_label=1, zero_division=np.nan)


def _mcc(h: np.ndarray, j: np.ndarray) -> float:
    from sklearn.metrics import matthews_corrcoef

    return matthews_corrcoef(h.astype(int), j.astype(int))


def _auroc(h: np.ndarray, j: np.ndarray) -> float:
    from sklearn.metrics import roc_auc_score

    return roc_auc_score(h.astype(int), j)


def _agreement(h: np.ndarray, j: np.ndarray) -> float:
    return float(np.mean(np.sign(h) == np.sign(j)))


def _agreement_batch(h: np.ndarray, j: np.ndarray) -> np.ndarray:
    return np.mean(np.sign(h) == np.sign(j), axis=1)


def _decisive_agreement(h: np.ndarray, j: np.ndarray) -> float:
    decisive = h != 0
    return float(np.mean(np.sign(h[decisive]) == np.sign(j[decisive]))) if decisive.any() else float("nan")


def _decisive_agreement_batch(h: np.ndarray, j: np.ndarray) -> np.ndarray:
    decisive = h != 0
    with np.errstate(invalid="ignore", divide="ignore"):
        return ((np.sign(h) == np.sign(j)) & decisive).sum(axis=1) / decisive.sum(axis=1)


PEARSON = Statistic("pearson", _pearson, _pearson_batch)
KAPPA = Statistic("cohen_kappa", chance.cohen_kappa, chance.cohen_kappa_batch, view="binary")
AC1 = Statistic("gwet_ac1", chance.gwet_ac1, chance.gwet_ac1_batch, view="binary")  # beside kappa for skewed labels
SPEARMAN = Statistic("spearman", _spearman, _spearman_batch)
KENDALL = Statistic("kendall_tau_b", _kendall)
BALANCED_ACCURACY = Statistic("balanced_accuracy", _balanced_accuracy, view="binary")
F1 = Statistic("f1", _f1, view="binary")
MCC = Statistic("mcc", _mcc, view="binary")
AUROC = Statistic("auroc", _auroc)
AGREEMENT = Statistic("agreement", _agreement, _agreement_batch)
DECISIVE_AGREEMENT = Statistic("agreement_decisive", _decisive_agreement, _decisive_agreement_batch)


def levels_of(scale: tuple[float, float]) -> list[int]:
    return list(range(int(scale[0]), int(scale[1]) + 1))


@dataclass(frozen=True)
class JudgeScale:
    """What the judge's values look like, which decides kappa, alpha and the binary statistics."""

    on_label_scale: bool  # every value is a valid label (a level of an ordinal or binary scale; in range otherwise)
    binary: bool  # every value is 0 or 1
    threshold: float | None  # where a continuous score is cut for the binary statistics


def describe_judge(
    values: Sequence[float], label_type: LabelType, scale: tuple[float, float], threshold: float | None = None
) -> JudgeScale:
    """Inspect the graded judge values; a continuous score is cut at `threshold` (fitted or given), 0/1 grades not."""
    array = np.asarray(values, dtype=float)
    in_range = bool(np.all((array >= scale[0]) & (array <= scale[1])))
    whole = bool(np.all(array == np.round(array)))
    binary = bool(np.all(np.isin(array, (0.0, 1.0))))
    on_scale = in_range and (whole or label_type in (LabelType.CONTINUOUS, LabelType.PREFERENCE))
    return JudgeScale(on_label_scale=on_scale, binary=binary, threshold=None if binary else threshold)


def choose_statistics(label_type: LabelType, scale: tuple[float, float], judge: JudgeScale) -> list[Statistic]:
    """The statistics reported for this label type, each marked not applicable where the judge's scale rules it out."""

    def unavailable(stat: Statistic | str, reason: str) -> Statistic:
        return Statistic(stat if isinstance(stat, str) else stat.name, reason=reason)

    off_scale = f"the judge's values are not on the label scale [{scale[0]:g}, {scale[1]:g}]"
    if label_type is LabelType.BINARY:
        nominal = partial(_alpha, level="nominal", domain=[0.0, 1.0])
        alpha = Statistic("krippendorff_alpha", nominal, view="binary")
        cut = [BALANCED_ACCURACY, F1, MCC, KAPPA, AC1, alpha]
        if judge.binary:
            return cut
        if judge.threshold is None:
            reason = "a continuous judge score needs a threshold (--threshold, or one fitted on calibration items)"
            return [unavailable(s, reason) for s in cut] + [AUROC]
        return cut + [AUROC]
    if label_type is LabelType.PREFERENCE:
        return [
            AGREEMENT,
            DECISIVE_AGREEMENT,
            Statistic("pearson", _pearson, _pearson_batch, view="scaled"),
            Statistic("spearman", _spearman, _spearman_batch, view="scaled"),
            Statistic("kendall_tau_b", _kendall, view="scaled"),
        ]
    stats = [PEARSON, SPEARMAN, KENDALL]
    if label_type is LabelType.ORDINAL:
        levels = levels_of(scale)
        if judge.on_label_scale:
            return stats + [
                Statistic("weighted_kappa", partial(_weighted_kappa, levels=levels)),
                Statistic("krippendorff_alpha", partial(_alpha, level="ordinal", domain=levels)),
            ]
        return stats + [unavailable("weighted_kappa", off_scale), unavailable("krippendorff_alpha", off_scale)]
    if judge.on_label_scale:
        return stats + [Statistic("krippendorff_alpha", partial(_alpha, level="interval", domain=None))]
    return stats + [unavailable("krippendorff_alpha", off_scale)]
