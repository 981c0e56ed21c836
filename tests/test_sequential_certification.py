"""`validate --sequential` and `validate --plan`: the beta-binomial mixture confidence sequence's bounds by hand, its
coverage at every look on seeded streams, the certificate decided as labels arrive, the labels a plan needs."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import beta, binom

from judges.agreement import confidence_sequence as cs
from judges.agreement.label_plan import fixed_n, fixed_power, sequential_n
from judges.agreement.sequential_certification import certify_in_order
from judges.cli.main import main


def mixture(k: int, t: int, p: float) -> float:
    """M_t(p) under a uniform prior, written out: 1 / ((t + 1) C(t, k) p^k (1 - p)^(t - k))."""
    return 1 / ((t + 1) * math.comb(t, k) * p**k * (1 - p) ** (t - k))


def bisect(f, low: float, high: float) -> float:  # type: ignore[no-untyped-def]
    """The root of a function changing sign once in [low, high], by plain bisection."""
    for _ in range(200):
        middle = (low + high) / 2
        low, high = (middle, high) if (f(middle) > 0) == (f(low) > 0) else (low, middle)
    return (low + high) / 2


def test_the_bounds_after_nine_right_of_ten_solve_the_mixture_ratio_equal_to_twenty():
    lower = bisect(lambda p: mixture(9, 10, p) - 20, 1e-9, 0.9)
    upper = bisect(lambda p: mixture(9, 10, p) - 20, 0.9, 1 - 1e-12)
    assert lower == pytest.approx(0.4548817, abs=1e-6)  # far below Clopper-Pearson's 0.606: the price of any look
    assert cs.lower_bound(9, 10) == pytest.approx(lower, abs=1e-9)
    assert cs.upper_bound(9, 10) == pytest.approx(upper, abs=1e-9)
    assert beta.ppf(0.05, 9, 2) == pytest.approx(0.6058, abs=1e-4)


def test_every_trial_right_gives_the_closed_form_and_none_right_gives_zero():
    # M_t(p) = 1 / ((t + 1) p^t) < 20  <=>  p > (0.05 / (t + 1)) ** (1 / t)
    assert cs.lower_bound(10, 10) == pytest.approx((0.05 / 11) ** 0.1, abs=1e-9)
    assert cs.upper_bound(0, 10) == pytest.approx(1 - (0.05 / 11) ** 0.1, abs=1e-9)
    assert cs.lower_bound(0, 10) == 0.0 and cs.upper_bound(10, 10) == 1.0


def test_the_sequence_misses_the_true_rate_at_some_look_in_at_most_alpha_of_seeded_streams():
    p, streams, looks = 0.7, 4000, 600
    rng = np.random.default_rng(7)
    s = np.cumsum(rng.random((streams, looks)) < p, axis=1)
    t = np.arange(1, looks + 1)
    missed = cs.excludes(s, t, p).any(axis=1).mean()  # p outside [lower, upper] at some look
    assert missed <= 0.05
    # the fixed-n bound checked at every look is ruled out far more often (the reason for the sequence)
    exact_lower = beta.ppf(0.05, np.maximum(s, 1e-12), t - s + 1)
    assert (exact_lower > p).any(axis=1).mean() > 0.1


def test_all_right_certifies_a_bar_of_one_half_at_the_eighth_label():
    # (0.05 / 8) ** (1 / 7) = 0.484 < 0.5 <= (0.05 / 9) ** (1 / 8) = 0.523
    result = certify_in_order([1] * 20, [1] * 20, {"accuracy": (0.5, None)})
    assert (result.state, result.decided_at) == ("certified", 8)
    [check] = result.checks
    assert check.lower_bound == pytest.approx((0.05 / 9) ** (1 / 8)) and check.value == 1.0


def test_all_wrong_is_not_certified_as_soon_as_the_upper_bound_falls_below_the_bar():
    result = certify_in_order([1] * 20, [0] * 20, {"sensitivity (tpr)": (0.5, 1)})
    assert (result.state, result.decided_at) == ("not certified", 8)


def write(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def labelled(tmp_path: Path, n: int, wrong: set[int] = frozenset(), name: str = "labels") -> tuple[Path, Path]:
    """n labels alternating 0, 1 and a 0/1 judge right on all but the `wrong` rows."""
    labels = [{"id": f"i{k}", "metric": "faithfulness", "label": k % 2, "label_type": "binary"} for k in range(n)]
    scores = [{"id": f"i{k}", "score": float((1 - k % 2) if k in wrong else k % 2)} for k in range(n)]
    return write(tmp_path / f"{name}.jsonl", labels), write(tmp_path / f"{name}-judge.jsonl", scores)


def validate(labels: Path, judge: Path, *extra: str) -> int:
    return main(["validate", "--labels", str(labels), "--predictions", str(judge), *extra])


def first_all_right(bar: float) -> int:
    """The fewest all-right trials whose anytime lower bound reaches the bar."""
    return next(n for n in range(1, 10_000) if (0.05 / (n + 1)) ** (1 / n) >= bar)


def test_sequential_validate_records_the_mode_the_labels_seen_and_where_it_was_decided(tmp_path, capsys):
    labels, judge = labelled(tmp_path, 80)
    assert validate(labels, judge, "--min-recall", "0.8", "--sequential", "--out", str(tmp_path / "out")) == 0
    record = json.loads((tmp_path / "out" / "certification.json").read_text())
    per_class = first_all_right(0.8)  # (0.05 / 30) ** (1 / 29) = 0.802: 29 of each class, the 58th label decides
    assert per_class == 29
    assert record["mode"] == "sequential" and record["state"] == "certified" and record["certified"] is True
    assert (record["labels_seen"], record["decided_at"]) == (80, 2 * per_class)
    assert [c["decided_at"] for c in record["checks"]] == [2 * per_class, 2 * per_class - 1]
    assert f"CERTIFIED at {2 * per_class} of 80 labels" in capsys.readouterr().out


def test_too_few_labels_are_undecided_and_exit_1(tmp_path, capsys):
    labels, judge = labelled(tmp_path, 30)
    assert validate(labels, judge, "--min", "accuracy=0.9", "--sequential", "--out", str(tmp_path / "out")) == 1
    record = json.loads((tmp_path / "out" / "certification.json").read_text())
    assert record["state"] == "undecided" and record["decided_at"] is None and record["labels_seen"] == 30
    assert "UNDECIDED after 30 labels" in capsys.readouterr().out


def test_a_statistic_that_is_not_a_proportion_is_refused_in_one_line(tmp_path, capsys):
    labels, judge = labelled(tmp_path, 30)
    assert validate(labels, judge, "--min", "cohen_kappa=0.5", "--sequential", "--out", str(tmp_path / "o")) == 2
    assert "--sequential bounds proportions only" in capsys.readouterr().err


def test_a_plain_validate_on_labels_extending_a_validated_set_says_to_use_sequential(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    first, judge = labelled(tmp_path, 40, name="first")
    more, judge_more = labelled(tmp_path, 60, name="more")
    validate(first, judge, "--min-recall", "0.5")
    record = json.loads(next(Path("results/runs").glob("*/certification.json")).read_text())
    assert record["mode"] == "fixed" and record["labels_order"]["rows"] == 40 and record["decided_at"] == 40
    capsys.readouterr()
    validate(more, judge_more, "--min-recall", "0.5", "--out", str(tmp_path / "again"))
    assert "these labels extend the 40 validated before" in capsys.readouterr().out
    shuffled, judge_shuffled = labelled(tmp_path, 60, name="shuffled")
    rows = shuffled.read_text().splitlines()
    shuffled.write_text("\n".join(rows[1:] + rows[:1]) + "\n")  # the same labels in another order: no prefix
    validate(shuffled, judge_shuffled, "--min-recall", "0.5", "--out", str(tmp_path / "other"))
    assert "extend" not in capsys.readouterr().out


def brute_force_fixed_n(bar: float, expected: float) -> int:
    """The smallest n whose chance that the exact one-sided lower bound reaches the bar is at least 0.8, by summing
    the binomial probabilities of every count whose Clopper-Pearson bound reaches it."""
    for n in range(1, 2000):
        chance = sum(binom.pmf(k, n, expected) for k in range(1, n + 1) if beta.ppf(0.05, k, n - k + 1) >= bar)
        if chance >= 0.8:
            return n
    raise AssertionError("no n")


@pytest.mark.parametrize("bar, expected", [(0.8, 0.9), (0.6, 0.8), (0.5, 0.75)])
def test_the_fixed_n_plan_is_the_brute_force_count(bar, expected):
    n = brute_force_fixed_n(bar, expected)
    assert fixed_n(bar, expected) == n
    assert fixed_power(n - 1, bar, expected) < 0.8 <= fixed_power(n, bar, expected)


def test_the_plan_prints_each_class_through_the_prevalence(capsys, tmp_path):
    code = main(
        ["validate", "--plan", "--min-recall", "0.8", "--expect-recall", "0.9", "--expect-specificity", "0.9"]
        + ["--prevalence", "0.4", "--out", str(tmp_path)]
    )
    assert code == 0
    out = capsys.readouterr().out
    n = brute_force_fixed_n(0.8, 0.9)
    sequential = sequential_n(0.8, 0.9)
    assert n == 82 and sequential is not None and sequential > n
    positives, negatives = math.ceil(n / 0.4), math.ceil(n / 0.6)
    assert f"on positives: fixed-n {n} positives ({positives} items), sequential {sequential} positives" in out
    assert f"on negatives: fixed-n {n} negatives ({negatives} items)" in out
    assert f"in all: fixed-n {positives} labelled items, sequential {math.ceil(sequential / 0.4)}" in out
    assert json.loads((tmp_path / "plan.json").read_text())["bars"][0]["fixed_n"] == n


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--expect-recall", "0.9", "--min", "total=0.8"], "--expect-recall: only with --plan"),
        (["--plan", "--min-recall", "0.8", "--expect-recall", "0.9"], "give --prevalence P"),
        (["--plan", "--min-recall", "0.8", "--prevalence", "0.4"], "no expected rate for sensitivity"),
        (
            ["--plan", "--min", "accuracy=0.8", "--expect", "accuracy=1.2"],
            "--expect accuracy=1.2: accuracy lies between 0 and 1",
        ),
        (["--sequential", "--min", "total=0.8"], "--sequential: only with --labels"),
    ],
)
def test_planning_and_sequential_flags_out_of_place_are_refused_in_one_line(argv, message, capsys):
    assert main(["validate", *argv]) == 2
    assert message in capsys.readouterr().err
