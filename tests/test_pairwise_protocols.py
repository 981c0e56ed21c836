"""The judge benchmarks' pairwise statistics: hand counts, and LLMBar's published statistics.json reproduced."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from judges.agreement.best_of_n import best_of_n_stats, credit
from judges.agreement.bootstrap import ItemRows
from judges.agreement.pairwise_formats import PairVerdicts
from judges.agreement.pairwise_protocols import (
    NONE,
    TIE,
    A,
    B,
    PairRows,
    bootstrap_figures,
    pairwise_stats,
)
from judges.agreement.pairwise_readers import read_labels, read_verdicts
from judges.agreement.pairwise_report import pair_rows, pairwise_block


def values(rows: PairRows) -> dict[str, float]:
    ones = np.ones((1, rows.label.size))
    return {name: float(stat(ones)[0]) for name, stat in pairwise_stats(rows).items()}


def rows_of(label, original, swapped=None) -> PairRows:
    n = len(label)
    arrays = [np.array(x) for x in (label, original)]
    return PairRows(*arrays, None if swapped is None else np.array(swapped), ItemRows(np.arange(n), n))


def test_llmbar_statistics_against_hand_counts():
    # labels A A B B B; given order A B B A B (3 right), swapped A A B B tie (4 right)
    got = values(rows_of([A, A, B, B, B], [A, B, B, A, B], [A, A, B, B, TIE]))
    assert got["accuracy_original"] == pytest.approx(3 / 5)
    assert got["accuracy_swapped"] == pytest.approx(4 / 5)
    assert got["accuracy_mean"] == pytest.approx(7 / 10)
    assert got["both_correct"] == pytest.approx(2 / 5)  # items 0 and 2
    assert got["position_consistency"] == pytest.approx(2 / 5)  # items 0 and 2 agree
    # verdict against label, coded alike: observed 3/5; chance from margins (A: 2/5 x 2/5) + (B: 3/5 x 3/5)
    assert got["kappa_original"] == pytest.approx((0.6 - 0.52) / (1 - 0.52))


def test_judgebench_vote_rule_against_hand_counts():
    # right+right, right+wrong (0: counts against), right+tie (+1), tie+tie (0), wrong+no verdict (-1)
    got = values(rows_of([A, A, A, B, B], [A, A, A, TIE, A], [A, B, TIE, TIE, NONE]))
    assert got["vote_accuracy"] == pytest.approx(2 / 5)


def test_mtbench_ties_conventions_against_hand_counts():
    # one verdict per item (orders combined): labels A tie B A B; judge A tie A tie B
    got = values(rows_of([A, TIE, B, A, B], [A, TIE, A, TIE, B]))
    assert got["accuracy_with_ties"] == pytest.approx(3 / 5)
    assert got["accuracy_without_ties"] == pytest.approx(2 / 3)  # items 0, 2, 4 kept; 0 and 4 right
    assert "both_correct" not in got  # one verdict per item: no per-order statistics
    # two orders that disagree make a tie (MT-Bench): label A, orders A and B -> tie, dropped without ties
    both = values(rows_of([A, A], [A, A], [A, B]))
    assert both["accuracy_with_ties"] == pytest.approx(1 / 2)
    assert both["accuracy_without_ties"] == pytest.approx(1.0)


def test_best_of_n_against_hand_counts():
    chosen = [[3.0], [2.0], [5.0], [1.0]]
    rejected = [[1, 2, 2.5], [1, 2, 0], [4, 4.9, 1], [0, 1, 0.5]]
    # RewardBench 2's tie penalty: the chosen answer sharing the top score with one rejected answer earns 1/2
    assert [credit(c, r) for c, r in zip(chosen, rejected, strict=True)] == [1.0, 0.5, 1.0, 0.5]
    assert credit([2.0], [3.0, 1.0, 0.0]) == 0.0 and credit([1.0], [1.0, 1.0, 1.0]) == 0.25
    assert credit([2.0, 3.0], [1.0, 2.0]) == 0.0  # as published: the first chosen answer must have the top score
    stats, notes = best_of_n_stats(["1", "2", "3", "4"], chosen, rejected, ["math", "math", "focus", "focus"])
    ones = np.ones((1, 4))
    assert float(stats["subset:math"](ones)[0]) == 0.75
    assert float(stats["subset:focus"](ones)[0]) == 0.75
    assert float(stats["mean"](ones)[0]) == 0.75 and notes == []


def test_the_ties_subset_is_scored_by_its_own_published_rule():
    ids = ["ref:1", "tied:1", "ref:2", "tied:2"]
    chosen = [[5.0], [5.0, 4.0], [1.0], [3.0, 1.0]]
    rejected = [[2.0, 1.0], [1.0, 0.0], [2.0], [2.0]]
    # ref accuracy 1/2 (prompt 2's reference is below its rejected); tied accuracy 1/2 (3, 1 against 2)
    # tied 1: gap 4 - 1 = 3 above the spread 1: preferred; hard gap min(3, ref 3) = 3 > 1: preferred too
    # tied 2: gap 1 - 2 = -1 below the spread 2: neither; margin scores tanh(3 / 1 - 1) and tanh(-1 / 2 - 1)
    margin = (np.tanh(2.0) + np.tanh(-1.5)) / 2
    expected = 0.3 * 0.5 + 0.3 * 0.5 + 0.2 * 0.5 + 0.2 * 0.5 + 0.01 * margin
    stats, notes = best_of_n_stats(ids, chosen, rejected, ["Ties"] * 4)
    assert float(stats["subset:Ties"](np.ones((1, 4)))[0]) == pytest.approx(expected, abs=1e-12) and notes == []
    plain, notes = best_of_n_stats(["1", "2"], chosen[:2], rejected[:2], ["Ties", "Ties"])
    assert float(plain["subset:Ties"](np.ones((1, 2)))[0]) == 1.0 and "not ref:N/tied:N" in notes[0]


def test_intervals_hold_the_value_and_are_seeded():
    rows = rows_of([A, B] * 20, [A, B, B, A] * 10, [A, B] * 20)
    first = bootstrap_figures(pairwise_stats(rows), rows.items, resamples=200, seed=3)
    again = bootstrap_figures(pairwise_stats(rows), rows.items, resamples=200, seed=3)
    assert first["both_correct"].value == 0.5
    low, high = first["both_correct"].ci or (2.0, -1.0)
    assert low <= 0.5 <= high and high - low > 0
    assert first["both_correct"].ci == again["both_correct"].ci


def published(statistics: dict, key: str) -> float:
    """A statistics.json figure as a share: "92 / 100 = 92.0%" -> 0.92, "93.5%" -> 0.935, kappa as it is."""
    value = statistics[key]
    if isinstance(value, float):
        return value
    return float(re.findall(r"([0-9.]+)%", value)[-1]) / 100


def llmbar_evaluators(shared: Path) -> list[Path]:
    return sorted(p.parent for p in (shared / "llmbar" / "Natural" / "evaluators").glob("*/*/statistics.json"))


def test_llmbar_statistics_reproduced_for_every_evaluator(shared_datasets):
    natural = shared_datasets / "llmbar" / "Natural"
    labels = read_labels(str(natural), None)
    folders = llmbar_evaluators(shared_datasets)
    assert len(folders) == 27  # GPT-4 (15 strategies) and ChatGPT (12)
    names = {
        "correct_False": ("accuracy_per_order", "original"),
        "correct_True": ("accuracy_per_order", "swapped"),
        "correct_average": ("accuracy_mean",),
        "correct_both": ("both_correct",),
        "equal": ("position_consistency",),
        "kappa_agreement": ("kappa_between_orders",),
    }
    unparsed = []
    for folder in folders:
        verdicts = read_verdicts(str(folder / "result.json"), "llmbar")
        block = pairwise_block(labels, verdicts, resamples=100)
        statistics = json.loads((folder / "statistics.json").read_text())
        for key, path in names.items():
            figure = block[path[0]] if len(path) == 1 else block[path[0]][path[1]]
            if key == "kappa_agreement" and block["no_verdict"]:
                unparsed.append((folder, verdicts, statistics[key]))
                continue
            assert figure["value"] == pytest.approx(published(statistics, key), abs=5e-5), (folder, key)
    # one reply in all 27 x 200 did not parse (ChatGPT CoT): judgelab keeps "no verdict" a class of its own in the
    # kappa between orders; LLMBar's evaluate.py codes it as it codes "2", which gives the published figure
    assert [(folder.parent.name, folder.name) for folder, _, _ in unparsed] == [("ChatGPT", "CoT")]
    folder, verdicts, kappa_published = unparsed[0]
    as_llmbar = {i: tuple("B" if v is None else v for v in orders) for i, orders in verdicts.verdicts.items()}
    recoded = pairwise_block(labels, PairVerdicts("llmbar", "recoded", as_llmbar), resamples=100)
    assert recoded["kappa_between_orders"]["value"] == pytest.approx(kappa_published, abs=5e-5)
    ours = pairwise_block(labels, verdicts, resamples=100)["kappa_between_orders"]["value"]
    assert round(ours, 4) == 0.3521 and round(kappa_published, 4) == 0.3618


def test_llmbar_published_kappa_is_the_miscoded_one_judgelab_reports_the_right_one(shared_datasets):
    from sklearn.metrics import cohen_kappa_score

    folder = shared_datasets / "llmbar" / "Natural" / "evaluators" / "GPT-4" / "Vanilla_NoRules"
    labels = read_labels(str(folder.parents[2]), "llmbar")
    verdicts = read_verdicts(str(folder), "llmbar")
    statistics = json.loads((folder / "statistics.json").read_text())
    raw = json.loads((folder / "result.json").read_text())
    # LLMBar's evaluate.py: verdicts "1" -> 1, anything else -> 0, against labels left as 1 and 2
    recoded = [1 if row["results"][-1]["swap = False"]["winner"] == "1" else 0 for row in raw]
    miscoded = cohen_kappa_score(recoded, [row["label"] for row in raw])
    assert miscoded == pytest.approx(statistics["kappa_False"], abs=1e-9)
    assert round(miscoded, 4) == 0.2517
    block = pairwise_block(labels, verdicts, resamples=100)
    right = block["kappa_per_order"]["original"]["value"]
    coded_alike = cohen_kappa_score(
        [1 if w == "1" else 2 for w in (r["results"][-1]["swap = False"]["winner"] for r in raw)],
        [r["label"] for r in raw],
    )
    assert right == pytest.approx(coded_alike, abs=1e-9)
    assert round(right, 3) == 0.837
    rows = pair_rows(labels, verdicts)
    assert int(np.sum(rows.original == rows.label)) == 92  # 92 of 100 right in the given order
