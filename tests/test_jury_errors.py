"""A jury's error correlation and effective number of independent members, against hand-computed values."""

from __future__ import annotations

import json
import math

import pytest
from test_jury import config_file, member_entries, unit_tests

from judges.leaderboard.jury import board_jury_entries
from judges.leaderboard.jury_errors import error_correlation

X = {"a": 1.0, "b": 1.0, "c": 0.0, "d": 0.0}
Y = {"a": 1.0, "b": 0.0, "c": 0.0, "d": 0.0}
Z = {"a": 0.0, "b": 0.0, "c": 1.0, "d": 1.0}


def test_two_members_error_indicators_correlate_at_one_over_root_three():
    # means 1/2 and 1/4; covariance 1/4 - 1/8 = 1/8; variances 1/4 and 3/16: r = (1/8) / sqrt(3/64) = 1/sqrt(3)
    figures = error_correlation([X, Y])
    assert figures.mean_correlation == pytest.approx(1 / math.sqrt(3), abs=1e-12)
    assert figures.effective_members == pytest.approx(2 / (1 + 1 / math.sqrt(3)), abs=1e-12)
    assert (figures.pairs, figures.n_items, figures.note) == (1, 4, None)


def test_three_members_are_worth_nine_when_their_errors_anticorrelate_at_minus_one_third():
    # r(X, Y) = 1/sqrt(3), r(X, Z) = -1, r(Y, Z) = -1/sqrt(3): mean -1/3, so 3 / (1 + 2 * (-1/3)) = 9
    figures = error_correlation([X, Y, Z])
    assert figures.mean_correlation == pytest.approx(-1 / 3, abs=1e-12)
    assert figures.effective_members == pytest.approx(9.0, abs=1e-9)


def test_signed_errors_in_step_make_two_members_worth_one_and_only_common_items_count():
    first = {"a": 1.0, "b": -1.0, "c": 0.0, "d": 2.0, "only-first": 5.0}
    second = {"a": 2.0, "b": -2.0, "c": 0.0, "d": 4.0}
    figures = error_correlation([first, second])
    assert figures.mean_correlation == pytest.approx(1.0) and figures.effective_members == pytest.approx(1.0)
    assert figures.n_items == 4


def test_a_member_that_never_errs_leaves_its_pairs_out_and_says_so():
    never = dict.fromkeys(X, 0.0)
    figures = error_correlation([X, Y, never])
    assert figures.pairs == 1 and figures.mean_correlation == pytest.approx(1 / math.sqrt(3), abs=1e-12)
    assert figures.effective_members == pytest.approx(3 / (1 + 2 / math.sqrt(3)), abs=1e-12)
    assert figures.note == "2 member pairs left out: a member's errors do not vary"
    assert error_correlation([never, never]).mean_correlation is None
    assert error_correlation([{"a": 1.0, "b": 0.0}, {"a": 0.0, "b": 1.0}]).note == (
        "fewer than 3 items graded by every member"
    )


def test_a_unit_test_jury_of_two_twins_and_a_third_member_is_worth_three_on_relevancy(tmp_path):
    unit_tests(tmp_path)
    config = config_file(tmp_path, ["A", "B", "C"])
    runs = tmp_path / "runs"
    member_entries(config, runs, {"A": 0, "B": 0, "C": 1})  # A and B wrong on tests 0-9, C on 10-19
    jury = {e.metric: e for e in board_jury_entries(config, runs)}
    # r(A, B) = 1; A and C err on disjoint thirds: r = (0 - 1/9) / (2/9) = -1/2; mean (1 - 1/2 - 1/2) / 3 = 0
    relevancy = jury["answer_relevancy"]
    assert relevancy.error_correlation == pytest.approx(0.0, abs=1e-12)
    assert relevancy.effective_members == pytest.approx(3.0, abs=1e-9) and relevancy.error_items == 30
    # over every (test, metric) of the six metrics, each of A and C errs on 10 of 180: r(A, C) = -p / (1 - p) with
    # p = 1/18, that is -1/17; mean (1 - 2/17) / 3 = 5/17, worth 3 / (1 + 10/17) = 17/9 members
    total = jury["total"]
    assert total.error_items == 180
    assert total.error_correlation == pytest.approx(5 / 17, abs=1e-12)
    assert total.effective_members == pytest.approx(17 / 9, abs=1e-9)


def test_graded_members_off_the_label_scale_are_min_max_scaled_before_their_signed_errors(tmp_path):
    from judges.agreement.predictions import Prediction
    from judges.labels.label_sets import open_labels
    from judges.leaderboard.config import Candidate
    from judges.leaderboard.label_jury import member_errors
    from judges.types import VerdictState

    rows = [
        {"id": i, "metric": "faithfulness", "label": v, "label_type": "ordinal", "scale": [1, 5], "actual_output": i}
        for i, v in zip("abcd", (1, 2, 3, 5))
    ]
    path = tmp_path / "labels.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    labels = open_labels(str(path))
    # a percentage judge [0, 25, 75, 100] scaled onto 1-5 is [1, 2, 4, 5]: errors [0, 0, 1, 0]; the others grade
    # on the scale: errors [1, 0, 0, 0] and [0, 1, 1, 0]; r = -1/3, 1/sqrt(3), -1/sqrt(3): mean -1/9, worth 27/7
    members = {"percent": (0, 25, 75, 100), "second": (2, 2, 3, 5), "third": (1, 3, 4, 5)}
    scored = [
        {i: Prediction(i, VerdictState.GRADE, float(s)) for i, s in zip("abcd", scores)} for scores in members.values()
    ]
    figures = member_errors([Candidate(name=n, kind="predictions", source="x") for n in members], scored, labels)
    assert figures.mean_correlation == pytest.approx(-1 / 9, abs=1e-12)
    assert figures.effective_members == pytest.approx(27 / 7, abs=1e-9)
