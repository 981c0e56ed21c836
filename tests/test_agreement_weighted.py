"""The bootstrap at any size: each weighted statistic equals its library (scipy, scikit-learn, krippendorff) on the
expanded rows, the blocked bootstrap gives the intervals of the whole (resamples x items) index matrix, Kendall's
asymptotic interval above its size, interval alpha without a values x values matrix."""

from __future__ import annotations

import tracemalloc

import krippendorff
import numpy as np
import pytest
from scipy import stats
from sklearn import metrics

from judges.agreement import statistics as st
from judges.agreement import weighted as w
from judges.agreement.bootstrap import ItemRows, figures, percentile_interval
from judges.agreement.statistic_index import INDEX, choose_statistics
from judges.stats import alpha_forms


def built(name: str) -> st.Statistic:
    """A statistic as its descriptor builds it (its function, weighted form and bootstrap settings)."""
    descriptor = INDEX[name]  # on continuous labels where it is reported there (it reads the judge's values as given)
    order = (st.LabelType.CONTINUOUS, st.LabelType.BINARY, st.LabelType.PREFERENCE)
    return descriptor.statistic(next(t for t in order if t in descriptor.label_types), (0.0, 1.0))


RNG = np.random.default_rng(11)
N = 60
LEVELS = [1.0, 2.0, 3.0, 4.0, 5.0]
ORDINAL_H = RNG.integers(1, 6, N).astype(float)
ORDINAL_J = np.clip(ORDINAL_H + RNG.integers(-1, 2, N), 1, 5)
BINARY_H = (RNG.random(N) > 0.4).astype(float)
BINARY_J = (RNG.random(N) > 0.5).astype(float)
SCORES = np.round(BINARY_H * 0.3 + RNG.random(N), 1)  # ties in the score
CONTINUOUS_H, CONTINUOUS_J = RNG.random(N), RNG.random(N)


def _alpha(level, domain=None):
    return lambda h, j: krippendorff.alpha(
        reliability_data=np.vstack([h, j]), level_of_measurement=level, value_domain=domain
    )


CASES = [
    ("pearson", w.pearson, lambda h, j: stats.pearsonr(h, j).statistic, ORDINAL_H, CONTINUOUS_J),
    ("spearman, ties", w.spearman, lambda h, j: stats.spearmanr(h, j).statistic, ORDINAL_H, ORDINAL_J),
    ("spearman", w.spearman, lambda h, j: stats.spearmanr(h, j).statistic, CONTINUOUS_H, CONTINUOUS_J),
    ("auroc", w.auroc, metrics.roc_auc_score, BINARY_H, SCORES),
    (
        "quadratic kappa",
        w.quadratic_kappa(LEVELS),
        lambda h, j: metrics.cohen_kappa_score(h, j, labels=LEVELS, weights="quadratic"),
        ORDINAL_H,
        ORDINAL_J,
    ),
    (
        "balanced accuracy",
        INDEX["balanced_accuracy"].weighted,
        metrics.balanced_accuracy_score,
        BINARY_H,
        BINARY_J,
    ),
    ("f1", INDEX["f1"].weighted, metrics.f1_score, BINARY_H, BINARY_J),
    ("mcc", INDEX["mcc"].weighted, metrics.matthews_corrcoef, BINARY_H, BINARY_J),
    (
        "nominal alpha",
        alpha_forms.alpha_on_levels([0.0, 1.0], ordinal=False),
        _alpha("nominal", [0, 1]),
        BINARY_H,
        BINARY_J,
    ),
    (
        "ordinal alpha",
        alpha_forms.alpha_on_levels(LEVELS, ordinal=True),
        _alpha("ordinal", LEVELS),
        ORDINAL_H,
        ORDINAL_J,
    ),
    ("interval alpha", alpha_forms.interval_alpha, _alpha("interval"), CONTINUOUS_H, CONTINUOUS_J),
]


@pytest.mark.parametrize(("name", "form", "library", "human", "judge"), CASES, ids=[c[0] for c in CASES])
def test_each_weighted_form_equals_its_library_on_the_expanded_rows(name, form, library, human, judge):
    weights = np.random.default_rng(3).multinomial(N, np.full(N, 1 / N), size=8).astype(float)
    weights[0] = 1.0  # the plain value
    expected = [library(np.repeat(human, c.astype(int)), np.repeat(judge, c.astype(int))) for c in weights]
    np.testing.assert_allclose(form(human, judge)(weights), expected, rtol=1e-9, atol=1e-12)


def test_undefined_resamples_match_the_libraries():
    one_class = np.ones(10)
    assert np.isnan(w.pearson(one_class, np.arange(10.0))(np.ones((1, 10))))[0]
    assert np.isnan(w.auroc(one_class, np.arange(10.0))(np.ones((1, 10))))[0]
    # scikit-learn gives MCC 0 where it is undefined, and balanced accuracy the recall of the class present
    judge = (np.arange(10) % 2).astype(float)
    assert INDEX["mcc"].weighted(one_class, one_class)(np.ones((1, 10)))[0] == 0.0
    balanced = INDEX["balanced_accuracy"].weighted(one_class, judge)(np.ones((1, 10)))[0]
    assert balanced == pytest.approx(0.5)
    agreement = w.sign_agreement(decisive=True)(np.array([0.0, 1, -1]), np.array([1.0, 1, 1]))
    assert agreement(np.array([[1.0, 1, 1], [1, 0, 0]])).tolist()[0] == 0.5 and np.isnan(
        agreement(np.array([[1.0, 0, 0]]))[0]
    )


def _index_matrix_interval(stat, human, judge, groups, resamples, seed):
    """The scheme before blocks: the whole (resamples, items) matrix, each resample expanded to its rows."""
    index = np.random.default_rng(seed).integers(0, len(groups), size=(resamples, len(groups)))
    values = [
        stat(human[np.concatenate([groups[i] for i in row])], judge[np.concatenate([groups[i] for i in row])])
        for row in index
    ]
    return percentile_interval(np.array(values, dtype=float), 0.95)[0]


def test_blocked_weighted_bootstrap_gives_the_intervals_of_the_index_matrix():
    # 40 items with one to three label rows each (annotators), the judge's value repeated on an item's rows
    rng = np.random.default_rng(5)
    sizes = rng.integers(1, 4, 40)
    item_label = rng.integers(1, 6, 40)
    human = np.clip(np.repeat(item_label, sizes) + rng.integers(-1, 2, sizes.sum()), 1, 5).astype(float)
    judge = np.repeat(np.clip(item_label + rng.integers(-1, 2, 40), 1, 5), sizes).astype(float)
    rows = ItemRows.repeated(sizes)
    groups = [np.flatnonzero(rows.row_item == i) for i in range(40)]
    scale = st.JudgeScale(on_label_scale=True, binary=False, threshold=None)
    chosen = choose_statistics(st.LabelType.ORDINAL, (1, 5), scale)
    got = figures(chosen, human, {"value": judge}, rows, resamples=300, seed=9)
    assert [f.statistic for f in got] == [
        "pearson",
        "spearman",
        "kendall_tau_b",
        "weighted_kappa",
        "krippendorff_alpha",
    ]
    for stat, figure in zip(chosen, got, strict=True):
        expected = _index_matrix_interval(stat, human, judge, groups, 300, 9)
        assert figure.ci == pytest.approx(expected, abs=1e-9), stat.name
    assert got == figures(chosen, human, {"value": judge}, groups, resamples=300, seed=9)  # groups or ItemRows


def test_kendall_takes_the_fisher_z_interval_above_its_size_close_to_the_bootstrap():
    rng = np.random.default_rng(2)
    x = rng.normal(size=3000)
    y = 0.6 * x + 0.8 * rng.normal(size=3000)
    rows = ItemRows.repeated(np.ones(3000, dtype=np.int64))
    [boot] = figures([built("kendall_tau_b")], x, {"value": y}, rows, resamples=400, seed=0)
    small = st.Statistic(
        "kendall_tau_b",
        built("kendall_tau_b").one,
        bootstrap_items=1000,
        asymptotic=st.kendall_interval,
        asymptotic_note=st.KENDALL_NOTE,
    )
    [asymptotic] = figures([small], x, {"value": y}, rows, resamples=400, seed=0)
    assert asymptotic.value == boot.value and asymptotic.note == st.KENDALL_NOTE and boot.note is None
    # tanh(atanh(tau) -+ 1.959964 sqrt(0.437 / (n - 4))), by hand
    half = 1.959964 * np.sqrt(0.437 / 2996)
    expected = np.tanh(np.arctanh(boot.value) - half), np.tanh(np.arctanh(boot.value) + half)
    assert asymptotic.ci == pytest.approx(expected, abs=1e-6)
    width = boot.ci[1] - boot.ci[0]
    assert abs(asymptotic.ci[0] - boot.ci[0]) < 0.15 * width and abs(asymptotic.ci[1] - boot.ci[1]) < 0.15 * width
    assert built("kendall_tau_b").bootstrap_items == st.BOOTSTRAP_ITEMS == 20_000


def test_interval_alpha_on_a_million_distinct_values_holds_no_values_by_values_matrix():
    rng = np.random.default_rng(0)
    human = rng.random(1_000_000)
    judge = human + rng.normal(0, 0.1, human.size)
    alpha = choose_statistics(st.LabelType.CONTINUOUS, (-1, 2), st.JudgeScale(True, False, None))[-1]
    tracemalloc.start()
    value = alpha(human, judge)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 200e6  # a coincidence matrix over the values would be 10^12 cells
    # two coders, no missing values: 1 - (n - 1) D_o / D_e over the 2N pooled values, written out
    pooled = np.concatenate([human, judge])
    observed = np.mean((human - judge) ** 2)
    expected = 2 * pooled.size * np.sum((pooled - pooled.mean()) ** 2) / (pooled.size * (pooled.size - 1))
    assert value == pytest.approx(1 - observed / expected, rel=1e-9)


def test_a_statistic_without_a_weighted_form_is_resampled_batched_or_one_by_one():
    rng = np.random.default_rng(8)
    human, judge = rng.random(50), rng.random(50)
    rows = ItemRows.repeated(np.ones(50, dtype=np.int64))
    batched = st.Statistic(
        "pearson", built("pearson").one, lambda h, j: stats.pearsonr(h, j, axis=1).statistic
    )  # on (resamples, rows) matrices
    one_by_one = st.Statistic("pearson", built("pearson").one)
    expected = figures([built("pearson")], human, {"value": judge}, rows, resamples=200, seed=1)
    for stat in (batched, one_by_one):
        [got] = figures([stat], human, {"value": judge}, rows, resamples=200, seed=1)
        assert got.value == expected[0].value and got.ci == pytest.approx(expected[0].ci, abs=1e-12)


def _spearman_written_out(human: np.ndarray, judge: np.ndarray, weights: np.ndarray) -> float:
    """Pearson's r of weighted mid-ranks, each rank found by a pass over the rows (any weights, not only counts)."""

    def ranks(x: np.ndarray) -> np.ndarray:
        return np.array([weights[x < v].sum() + weights[x == v].sum() / 2 + 0.5 for v in x])

    rh, rj = ranks(human), ranks(judge)
    mean_h, mean_j = np.average(rh, weights=weights), np.average(rj, weights=weights)
    covariance = np.average((rh - mean_h) * (rj - mean_j), weights=weights)
    spread = np.average((rh - mean_h) ** 2, weights=weights) * np.average((rj - mean_j) ** 2, weights=weights)
    return float(covariance / np.sqrt(spread))


def test_spearman_in_value_order_equals_the_ranks_written_out_on_every_kind_of_weight():
    # the resample's mid-ranks come from rows put in value order once and the squared ranks in closed form; the draw
    # counts take one byte each, larger or fractional weights their own path: each the same figure, ties included
    rng = np.random.default_rng(21)
    human = rng.integers(0, 7, 200).astype(float)  # many ties
    judge = np.round(0.5 * human + rng.normal(0, 1.5, 200), 0)
    counts = np.random.default_rng(4).multinomial(200, np.full(200, 1 / 200), size=3).astype(float)
    large = counts[0] * 300  # over a byte
    fractional = rng.random(200) * 2
    weights = np.vstack([counts, large, fractional])
    got = w.spearman(human, judge)(weights)
    for row, value in zip(weights, got, strict=True):
        assert value == pytest.approx(_spearman_written_out(human, judge, row), rel=1e-12)
    for row, value in zip(counts, got[:3], strict=True):
        expanded = stats.spearmanr(np.repeat(human, row.astype(int)), np.repeat(judge, row.astype(int))).statistic
        assert value == pytest.approx(expanded, rel=1e-12)
    constant = np.zeros(200)
    constant[7] = 5.0  # one item drawn: one tie group on either side
    assert np.isnan(w.spearman(human, judge)(constant[None, :])[0])
