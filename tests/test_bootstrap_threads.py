"""The bootstrap's blocks on two threads: the same figures bit for bit as on one, the blocks' results in order, no
pool below the size where it pays, and $JUDGELAB_THREADS read as documented."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from judges.agreement import block_pool, bootstrap
from judges.agreement.agreement_settings import AgreementSettings
from judges.agreement.measure import measure
from judges.agreement.predictions import Prediction, Predictions
from judges.agreement.statistic_index import INDEX
from judges.agreement.statistics import LabelType
from judges.errors import ConfigError
from judges.labels.schema import NO_TEXT, LabelledItem, LabelledSet
from judges.types import VerdictState

HANG_GUARD_S = 120.0  # only against a hang: the blocks below never wait on each other for long


def systems_set(n: int = 400, seed: int = 7) -> tuple[LabelledSet, Predictions]:
    """Continuous labels of four systems of different quality, with tied values, and a judge tracking them."""
    rng = np.random.default_rng(seed)
    system = rng.integers(0, 4, n)
    label = np.round(np.clip(0.2 + 0.2 * system + rng.normal(0, 0.15, n), 0, 1), 2)
    score = np.round(np.clip(0.5 * label + 0.1 * system + rng.normal(0, 0.1, n), 0, 1), 1)
    items = tuple(
        LabelledItem(
            f"i{k}", "m", float(label[k]), LabelType.CONTINUOUS, (0.0, 1.0), "h", NO_TEXT, system=f"s{system[k]}"
        )
        for k in range(n)
    )
    preds = {(f"i{k}", None): Prediction(f"i{k}", VerdictState.GRADE, float(score[k])) for k in range(n)}
    return LabelledSet("systems", items), Predictions(preds, "judge")


def threaded(monkeypatch: pytest.MonkeyPatch, *, rows: int = 0, block_values: int = 1_000) -> list[str]:
    """Blocks of a few resamples on two threads from `rows` label rows on (any set of the tests); returns the list
    the names of the threads computing each block's draw counts are appended to."""
    monkeypatch.delenv(block_pool.THREADS_ENV, raising=False)
    monkeypatch.setattr(block_pool, "PARALLEL_ROWS", rows)
    monkeypatch.setattr(block_pool, "cores", lambda: 2)
    monkeypatch.setattr(bootstrap, "BLOCK_VALUES", block_values)
    seen: list[str] = []
    weights = bootstrap.ItemRows.weights

    def spied(self: bootstrap.ItemRows, index: np.ndarray) -> np.ndarray:
        seen.append(threading.current_thread().name)
        return weights(self, index)

    monkeypatch.setattr(bootstrap.ItemRows, "weights", spied)
    return seen


def test_two_threads_give_every_figure_of_one_thread_bit_for_bit(monkeypatch):
    labels, preds = systems_set()
    settings = AgreementSettings(resamples=300, seed=4)
    monkeypatch.setattr(bootstrap, "BLOCK_VALUES", 1_000)  # 2 resamples a block: 150 blocks, in both runs
    monkeypatch.setenv(block_pool.THREADS_ENV, "1")
    one = measure(labels, preds, settings).to_dict()
    seen = threaded(monkeypatch)
    two = measure(labels, preds, settings).to_dict()
    assert len(seen) == 150 and set(seen) == {"MainThread", "judgelab-bootstrap_0"}  # a block each in turn
    assert two == one  # exact: the same blocks, each computed alike, collected in order
    assert one["judge"][0]["statistic"] == "pearson" and one["judge"][0]["ci"] is not None
    assert one["system_aware"]["partial_spearman"]["ci"] is not None


def test_paired_differences_on_two_threads_equal_one_thread(monkeypatch):
    rng = np.random.default_rng(2)
    human, a = rng.random(500), rng.random(500)
    b = np.round(0.5 * human + 0.5 * a, 1)
    rows = bootstrap.ItemRows.repeated(np.ones(500, dtype=np.int64))
    spearman, pearson = (INDEX[name].statistic(LabelType.CONTINUOUS, (0.0, 1.0)) for name in ("spearman", "pearson"))
    pairs = {
        stat.name: (bootstrap.resampler(stat, human, a, rows), bootstrap.resampler(stat, human, b, rows))
        for stat in (spearman, pearson)
    }
    monkeypatch.setattr(bootstrap, "BLOCK_VALUES", 1_500)
    monkeypatch.setenv(block_pool.THREADS_ENV, "1")
    one = bootstrap.paired_differences(pairs, rows, 200, 3)
    seen = threaded(monkeypatch, block_values=1_500)
    two = bootstrap.paired_differences(pairs, rows, 200, 3)
    assert len(seen) == 67 and set(seen) == {"MainThread", "judgelab-bootstrap_0"}
    assert set(two) == {"spearman", "pearson"}
    for name in two:
        assert two[name].shape == (200,)
        np.testing.assert_array_equal(two[name], one[name])


def test_below_the_size_threshold_no_pool_is_used(monkeypatch):
    labels, preds = systems_set(n=300)
    seen = threaded(monkeypatch, rows=301)
    measure(labels, preds, AgreementSettings(resamples=100))
    assert seen and set(seen) == {"MainThread"}
    assert block_pool.threads(block_pool.PARALLEL_ROWS - 1) == 1


def test_threads_follow_the_cores_and_the_environment(monkeypatch):
    monkeypatch.delenv(block_pool.THREADS_ENV, raising=False)
    big = block_pool.PARALLEL_ROWS
    assert block_pool.PARALLEL_ROWS == 200_000 and block_pool.threads(big - 1) == 1
    monkeypatch.setattr(block_pool, "cores", lambda: 1)
    assert block_pool.threads(big) == 1
    monkeypatch.setattr(block_pool, "cores", lambda: 8)
    assert block_pool.threads(big) == 2  # MAX_THREADS: two blocks in flight at most
    monkeypatch.setenv(block_pool.THREADS_ENV, "1")
    assert block_pool.threads(big) == 1
    for bad in ("0", "two", "-1", "1.5"):
        monkeypatch.setenv(block_pool.THREADS_ENV, bad)
        with pytest.raises(ConfigError, match=f"JUDGELAB_THREADS='{bad}': expected a whole number of threads"):
            block_pool.threads(big)


def test_in_order_returns_results_in_order_when_a_later_block_finishes_first():
    later_done = threading.Event()

    def work(k: int) -> int:
        if k == 0:  # the first block (this thread's) waits until the second (the pool's) has finished
            assert later_done.wait(HANG_GUARD_S)
        if k == 1:
            later_done.set()
        return k * k

    assert list(block_pool.in_order(work, range(6), 2)) == [0, 1, 4, 9, 16, 25]


def test_in_order_holds_at_most_two_blocks_per_thread():
    taken, given = [0], [0]
    most = []

    def blocks():
        for k in range(20):
            taken[0] += 1
            most.append(taken[0] - given[0])
            yield k

    for _ in block_pool.in_order(lambda k: k, blocks(), 2):
        given[0] += 1
    assert given[0] == 20 and max(most) == 4


def test_an_error_in_a_block_reaches_the_caller():
    def work(k: int) -> int:
        if k == 3:
            raise ValueError("block 3")
        return k

    got = []
    with pytest.raises(ValueError, match="block 3"):
        for value in block_pool.in_order(work, range(10), 2):
            got.append(value)
    assert got == [0, 1, 2]
