"""Conditions: parsing, GroUSE comparison semantics, PA/NR derivation."""

import pytest

from judges.errors import ConditionError
from judges.suite.conditions import Condition, derive_pa_nr, expected_pa_nr, judged_pa_nr
from judges.types import FailureKind, Outcome, Verdict


@pytest.mark.parametrize(
    "text, value, accepted",
    [
        ("==5", 5, True),
        ("==5", 4, False),
        ("==5", None, False),
        ("<5", 4, True),
        ("<5", 5, False),
        ("<5", None, False),
        (">=4", 4, True),
        (">=4", 5, True),
        (">=4", 3, False),
        ("<=2", 2, True),
        ("<=2", 3, False),
        (">1", 2, True),
        (">1", 1, False),
        ("==1", 1, True),
        ("==1", 0, False),
        ("==0", 0, True),
        ("==None", None, True),
        ("==None", 0, False),
        ("==None", 5, False),
        ("== None", None, True),
        ("==null", None, True),
        (" >= 4 ", 4, True),
    ],
)
def test_condition_semantics(text, value, accepted):
    assert Condition.parse(text).accepts(value) is accepted


@pytest.mark.parametrize("text", ["", "5", "=5", "!=5", "<None", ">=None", "==five", "==5 or 4", None, 5])
def test_bad_condition_names_test_and_field(text):
    with pytest.raises(ConditionError) as err:
        Condition.parse(text, test_id="set/x", field="conditions.completeness_condition", path="f.jsonl", line=7)
    message = str(err.value)
    assert "f.jsonl:7" in message and "set/x" in message and "completeness_condition" in message


def test_condition_round_trips_to_string():
    assert [str(Condition.parse(t)) for t in ("==5", "<5", ">=4", "==None", "==0.5")] == [
        "==5",
        "<5",
        ">=4",
        "==None",
        "==0.5",
    ]


def test_check_separates_format_failure_from_wrong_grade():
    condition = Condition.parse("==5")
    assert condition.check(Verdict.graded(5)) is Outcome.PASS
    assert condition.check(Verdict.graded(3)) is Outcome.WRONG_GRADE
    assert condition.check(Verdict.null()) is Outcome.WRONG_GRADE
    assert condition.check(Verdict.failed(FailureKind.UNPARSEABLE, "x")) is Outcome.FAILURE
    assert Condition.parse("==None").check(Verdict.failed(FailureKind.TIMEOUT, "x")) is Outcome.FAILURE


@pytest.mark.parametrize(
    "ar_null, c_null, expected",
    [
        (True, True, (1.0, 1.0)),
        (True, False, (0.0, None)),
        (False, True, (None, 0.0)),
        (False, False, (None, None)),
    ],
)
def test_pa_nr_table(ar_null, c_null, expected):
    assert derive_pa_nr(ar_null, c_null) == expected


def test_expected_pa_nr_from_conditions():
    pa, nr = expected_pa_nr(Condition.parse("==None"), Condition.parse("<5"))
    assert (str(pa), str(nr)) == ("==0", "==None")
    pa, nr = expected_pa_nr(Condition.parse("<5"), Condition.parse("==None"))
    assert (str(pa), str(nr)) == ("==None", "==0")


def test_judged_pa_nr_follows_verdicts_and_propagates_failures():
    pa, nr = judged_pa_nr(Verdict.null(), Verdict.null())
    assert (pa.grade, nr.grade) == (1.0, 1.0)
    pa, nr = judged_pa_nr(Verdict.graded(5), Verdict.graded(3))
    assert pa.state.value == nr.state.value == "null"
    pa, nr = judged_pa_nr(Verdict.failed(FailureKind.API_ERROR, "boom"), Verdict.graded(3))
    assert pa.is_failure and nr.is_failure and pa.failure_kind is FailureKind.API_ERROR


def test_failed_verdict_has_no_value():
    with pytest.raises(ValueError):
        _ = Verdict.failed(FailureKind.REFUSED, "no").value
