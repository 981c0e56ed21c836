"""One system-aware figure of several judges on the same items and the same resamples, so their ranks are paired
(a leaderboard's rank intervals and tie groups): up to BOOTSTRAP_ITEMS items, the items drawn within their systems
as the figure's own interval draws them, one draw for every judge; above, the laws the figure's interval takes
(system_large), drawn jointly for the judges: each system's human and judge means from one multivariate normal,
each system's cells of (label, every judge's call) from one multinomial, and the partial correlations' Fisher z
from a multivariate normal whose variances are the interval's and whose correlations are those of the judges'
influence values (the delta method; for Spearman, of Pearson's on the ranks of the residuals)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from judges.agreement.statistics import BOOTSTRAP_ITEMS
from judges.agreement.system_large import SPEARMAN_VARIANCE
from judges.agreement.system_statistics import SYSTEM_LEVEL, system_level
from judges.agreement.systems import MACRO_BALANCED_ACCURACY, PARTIAL, Blocks, ItemMeasure, bootstrap_draws

CELL_BLOCK_VALUES = 2_000_000  # multinomial counts drawn at a time (16 MB)
MAX_CALL_BITS = 62  # a cell code holds the label and each judge's call as one bit of an int64


def joint_draws(
    name: str,
    names: Sequence[str],
    codes: np.ndarray,
    human: np.ndarray,
    judges: Sequence[np.ndarray],
    saids: Sequence[np.ndarray] | None,
    points: Sequence[float],
    resamples: int,
    seed: int,
) -> np.ndarray | None:
    """(resamples, judges) draws of the figure `name` for each judge (`judges[c]` its value per item, `saids[c]`
    its 0/1 call where the figure needs one, `points[c]` its figure); `human` is each item's mean label and
    `codes` its system's index into `names`. None when the figure is not one of the system-aware ones (or, for the
    macro balanced accuracy, without calls or with more judges than MAX_CALL_BITS)."""
    if name not in (*PARTIAL, *SYSTEM_LEVEL, MACRO_BALANCED_ACCURACY):
        return None
    if name == MACRO_BALANCED_ACCURACY and not saids:
        return None
    rng = np.random.default_rng(seed)
    if human.size > BOOTSTRAP_ITEMS:
        if name in PARTIAL:
            return _partial_draws(name, codes, human, judges, points, resamples, rng, len(names))
        if name == MACRO_BALANCED_ACCURACY:
            assert saids is not None
            if len(saids) > MAX_CALL_BITS:
                return None
            return _macro_draws(codes, human >= 0.5, saids, resamples, rng, len(names))
        return _level_draws(name, codes, human, judges, resamples, rng, len(names))
    truth = (human >= 0.5).astype(float)
    measures = []
    for c, judge in enumerate(judges):
        said = saids[c] if saids else np.zeros_like(human)
        blocks = Blocks(list(names), codes, human, judge, said, truth)
        measures.append(ItemMeasure(blocks, correlations=name in PARTIAL, binary=name == MACRO_BALANCED_ACCURACY))
    drawn = bootstrap_draws(measures, resamples, seed)
    return np.stack([d[name] for d in drawn], axis=1)


def _level_draws(
    name: str,
    codes: np.ndarray,
    human: np.ndarray,
    judges: Sequence[np.ndarray],
    resamples: int,
    rng: np.random.Generator,
    n_systems: int,
) -> np.ndarray:
    """Each system's (human, judge 1, ..., judge C) means drawn from one normal law (their items' sample
    covariance over the item count, as the within-system bootstrap tends to), then the figure per judge."""
    order = np.argsort(codes, kind="stable")
    edges = np.searchsorted(codes[order], np.arange(n_systems + 1))
    level = np.empty((len(judges) + 1, resamples, n_systems))
    for k in range(n_systems):
        mine = order[edges[k] : edges[k + 1]]
        columns = np.stack([human[mine], *(judge[mine] for judge in judges)])
        covariance = np.cov(columns, bias=True) / mine.size
        drawn = rng.multivariate_normal(columns.mean(axis=1), covariance, size=resamples, method="eigh")
        level[:, :, k] = drawn.T
    return np.stack([system_level(level[0], level[1 + c])[name] for c in range(len(judges))], axis=1)


def _macro_draws(
    codes: np.ndarray,
    truth: np.ndarray,
    saids: Sequence[np.ndarray],
    resamples: int,
    rng: np.random.Generator,
    n_systems: int,
) -> np.ndarray:
    """Each system's items counted by their cell (the label and every judge's call), the cells drawn as one
    multinomial (exactly the within-system bootstrap of those counts), each judge's macro balanced accuracy read
    off them; a system whose resample holds one class is left out of that resample's average."""
    n_judges = len(saids)
    cell = truth.astype(np.int64)
    for c, said in enumerate(saids):
        cell |= (said > 0.5).astype(np.int64) << (c + 1)
    total, defined = np.zeros((resamples, n_judges)), np.zeros((resamples, n_judges))
    for k in range(n_systems):
        found, counts = np.unique(cell[codes == k], return_counts=True)
        label = (found & 1).astype(bool)
        calls = np.stack([(found >> (1 + c)) & 1 for c in range(n_judges)], axis=1).astype(float)
        chunk = max(1, CELL_BLOCK_VALUES // found.size)
        for start in range(0, resamples, chunk):
            size = min(chunk, resamples - start)
            drawn = rng.multinomial(int(counts.sum()), counts / counts.sum(), size=size).astype(float)
            positives, negatives = drawn[:, label].sum(axis=1), drawn[:, ~label].sum(axis=1)
            tp = drawn[:, label] @ calls[label]
            tn = drawn[:, ~label] @ (1.0 - calls[~label])
            with np.errstate(invalid="ignore", divide="ignore"):
                value = (tp / positives[:, None] + tn / negatives[:, None]) / 2
            finite = np.isfinite(value)
            total[start : start + size] += np.where(finite, value, 0.0)
            defined[start : start + size] += finite
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(defined > 0, total / defined, np.nan)


def _standard(values: np.ndarray) -> np.ndarray:
    centred = values - values.mean()
    spread = centred.std()
    return centred / spread if spread > 0 else np.zeros_like(centred)


def _partial_draws(
    name: str,
    codes: np.ndarray,
    human: np.ndarray,
    judges: Sequence[np.ndarray],
    points: Sequence[float],
    resamples: int,
    rng: np.random.Generator,
    n_systems: int,
) -> np.ndarray:
    """Fisher's z of each judge's partial correlation, drawn jointly: the interval's variance for each, and the
    correlation of the judges' influence values x y - r (x^2 + y^2) / 2 (x, y the standardized residuals, or
    their ranks for Spearman) between them."""
    from scipy.stats import rankdata  # defers scipy

    sizes = np.bincount(codes, minlength=n_systems)

    def residual(values: np.ndarray) -> np.ndarray:
        left = values - (np.bincount(codes, weights=values, minlength=n_systems) / sizes)[codes]
        return _standard(rankdata(left) if name == "partial_spearman" else left)

    x = residual(human)
    influence = np.empty((human.size, len(judges)), dtype=np.float32)
    for c, judge in enumerate(judges):
        y = residual(judge)
        r = float(np.mean(x * y))
        influence[:, c] = x * y - r / 2 * (x * x + y * y)
    gram = (influence.T @ influence).astype(float)
    del influence
    spread = np.sqrt(np.diag(gram))
    with np.errstate(invalid="ignore", divide="ignore"):
        correlation = np.nan_to_num(gram / np.outer(spread, spread))
    np.fill_diagonal(correlation, 1.0)
    variance = SPEARMAN_VARIANCE if name == "partial_spearman" else 1.0
    sd = np.sqrt(variance / (human.size - 3 - (n_systems - 1)))
    centre = np.arctanh(np.clip(np.asarray(points, dtype=float), -0.999999, 0.999999))
    drawn = rng.multivariate_normal(centre, correlation * sd * sd, size=resamples, method="eigh")
    return np.asarray(np.tanh(drawn))
