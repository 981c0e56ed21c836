"""The authored suite: the validator passes it, catches planted defects, and the suite discriminates."""

import json

import pytest
from conftest import ROOT, write_jsonl

from judges.judging.prompts import load_prompt_set
from judges.suite.baselines import baseline_grade_fns, discrimination
from judges.suite.loading import load_unit_tests
from judges.suite.test_file_checks import check_path, check_tests
from judges.suite.test_types import TEST_TYPES
from judges.types import ABSTENTION_SENTENCE


def test_shipped_suite_has_no_problems():
    count, problems = check_path(ROOT / "unit_tests")
    assert problems == [] and count >= 192 + 16


def test_test_split_has_at_least_twelve_full_sets():
    tests = load_unit_tests(ROOT / "unit_tests", "test")
    sets = {t.set_id for t in tests}
    assert len(sets) >= 12 and len(tests) == 16 * len(sets)
    assert {t.test_type for t in tests} == {t.name for t in TEST_TYPES}


def _one_set(split="train"):
    lines = (ROOT / "unit_tests" / f"{split}.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines[:16]]


@pytest.mark.parametrize(
    "index, change, expected",
    [
        (0, {"actual_output": "It is two moons [9]."}, "cites [9]"),
        (1, {"actual_output": "Nothing answers this."}, "must begin with the abstention"),
        (0, {"actual_output": ABSTENTION_SENTENCE + " Phobos [1]."}, "must not begin with the abstention"),
        (5, {"actual_output": "Two moons orbit Mars [1]."}, "cite two references"),
        (
            0,
            {
                "conditions": {
                    "answer_relevancy_condition": "<5",
                    "completeness_condition": "==5",
                    "faithfulness_condition": "==1",
                    "usefulness_condition": "==None",
                }
            },
            "should be ==5",
        ),
        (1, {"expected_output": "Mars has two moons [1]."}, "must be an abstention"),
    ],
)
def test_validator_catches_planted_defects(tmp_path, index, change, expected):
    records = _one_set()
    records[index].update(change)
    problems = check_tests(load_unit_tests(write_jsonl(tmp_path / "t.jsonl", records)), strict=True)
    assert any(expected in p for p in problems), problems


def test_validator_catches_a_missing_type_and_shared_questions(tmp_path):
    records = _one_set()[:-1]
    tests = load_unit_tests(write_jsonl(tmp_path / "t.jsonl", records))
    problems = check_tests(tests, strict=True)
    assert any("missing types ['Low faithfulness 3']" in p for p in problems)
    assert check_tests(tests) == []  # house rules apply only when asked (or on the shipped suite)
    write_jsonl(tmp_path / "train.jsonl", _one_set())
    write_jsonl(tmp_path / "test.jsonl", _one_set())
    _, problems = check_path(tmp_path)
    assert any("share the question" in p for p in problems)


def test_oracle_passes_everything_and_constant_baselines_fall_far_below():
    tests = load_unit_tests(ROOT / "unit_tests", "test")
    table = discrimination(tests, load_prompt_set("default"))
    assert all(rate == 1.0 for rate in table["oracle"].values())
    for name in ("always-top", "always-lowest", "always-null", "random"):
        assert table[name]["total"] <= 0.70, name
        for metric in ("answer_relevancy", "completeness", "faithfulness"):
            assert table[name][metric] <= 0.70, (name, metric)
        assert all(rate <= 0.85 for rate in table[name].values()), name


def test_the_random_baseline_grades_a_test_and_metric_alike_whatever_was_drawn_before():
    """Its grades depend on the seed, the test and the metric, never on the order a run's calls went out in."""
    tests = load_unit_tests(ROOT / "unit_tests", "test")[:40]
    pairs = [(metric, test) for test in tests for metric in ("answer_relevancy", "completeness", "faithfulness")]
    forward = [baseline_grade_fns()["random"](metric, test) for metric, test in pairs]
    shuffled = baseline_grade_fns()["random"]
    backward = [shuffled(metric, test) for metric, test in reversed(pairs)][::-1]
    assert forward == backward
    assert len(set(forward)) > 2  # the draws differ between tests: not one constant grade
    assert [baseline_grade_fns(seed=1)["random"](m, t) for m, t in pairs] != forward
