"""Where each probe applies and where it skips, on a hand-written item of each of the 16 shipped unit-test types
(one question, its references, answers written as unit_tests/README.md describes each type), and on the shipped
test split: no pair a probe cannot vouch for."""

from __future__ import annotations

from collections import Counter

import pytest

from judges.probes.base import Known, Skip
from judges.probes.registry import shipped_probes
from judges.probes.task import perturb
from judges.probes.text import duplicated_citation, sentences
from judges.suite.test_types import BY_NAME
from judges.types import ABSTENTION_SENTENCE, GROUSE_METRICS, Sample

QUESTION = "How long does statutory maternity leave last, and for how long is statutory maternity pay paid?"
ANSWERING = (
    "Statutory maternity leave lasts 52 weeks in total.",
    "Statutory maternity pay is paid by the employer for up to 39 weeks.",
    "An employee must give notice at least 15 weeks before the expected week of childbirth.",
    "The company canteen serves hot lunches on weekdays.",
    "Maternity leave can last up to 52 weeks.",
)
RELATED = (ANSWERING[2], ANSWERING[3], "Paternity leave of up to two weeks can be taken after the birth.")
REFERENCE_ANSWER = (
    "Statutory maternity leave lasts 52 weeks in total [1]. The employer pays statutory maternity pay for up to 39 "
    "weeks [2]."
)
LEAVE = "Maternity leave lasts 52 weeks in total [1]."
PAY = "Statutory maternity pay is paid by the employer for up to 39 weeks [2]."
NO = ABSTENTION_SENTENCE
NOTICE = "An employee must give notice at least 15 weeks before the expected week of childbirth [3]."
CANTEEN = "The company canteen serves hot lunches on weekdays [4]."
# test type -> (references answer the question?, the answer under test)
ANSWERS = {
    "Highest marks 1": (True, f"{LEAVE} {PAY}"),
    "Highest marks 2": (False, NO),
    "Highest marks 3": (False, f"{NO} Paternity leave of up to two weeks can be taken after the birth [3]."),
    "Highest marks 4": (True, f"{LEAVE} {PAY}"),
    "Highest marks 5": (True, "Leave lasts 52 weeks [1], and the employer pays for up to 39 weeks [2]."),
    "Highest marks 6": (True, f"Maternity leave lasts 52 weeks in total [1][5]. {PAY}"),
    "Highest marks 7": (True, f"- Pay: {PAY[0].lower()}{PAY[1:]}\n- Leave: {LEAVE[0].lower()}{LEAVE[1:]}"),
    "Low answer relevancy 1": (True, f"{LEAVE} {PAY} {CANTEEN}"),
    "Low answer relevancy 2": (False, "An employee must give notice at least 15 weeks before the birth [1]."),
    "Low completeness 1": (True, LEAVE),
    "Low completeness 2": (True, NO),
    "Low completeness 3": (True, f"{NO} {NOTICE}"),
    "Low usefulness 1": (False, f"{NO} The company canteen serves hot lunches on weekdays [2]."),
    "Low faithfulness 1": (True, f"{LEAVE} {PAY.replace('[2]', '[3]')}"),
    "Low faithfulness 2": (True, f"{LEAVE.replace('52', '26')} {PAY}"),
    "Low faithfulness 3": (True, f"{LEAVE} {PAY} Fathers also receive 20 weeks of paid leave [1]."),
}
METRIC_ORDER = ("answer_relevancy", "completeness", "faithfulness", "usefulness")


def item(test_type: str) -> tuple[Sample, Known]:
    answering, answer = ANSWERS[test_type]
    references = ANSWERING if answering else RELATED
    expected = REFERENCE_ANSWER if answering else NO
    conditions = dict(zip(METRIC_ORDER, BY_NAME[test_type].conditions, strict=True))
    return Sample(input=QUESTION, references=references, expected_output=expected, actual_output=answer), Known(
        test_type, conditions
    )


ALL = set(ANSWERS)
ABSTAINS = {"Highest marks 2", "Highest marks 3", "Low completeness 2", "Low completeness 3", "Low usefulness 1"}
BARE_ABSTENTION = {"Highest marks 2", "Low completeness 2"}
NO_FAITHFULNESS_TO_LOWER = BARE_ABSTENTION | {"Low faithfulness 1", "Low faithfulness 2", "Low faithfulness 3"}
ONE_SENTENCE = {"Highest marks 5", "Low answer relevancy 2", "Low completeness 1"}
# where each probe applies; it skips every other type
APPLIES = {
    "shuffle_references": ALL,
    "swap_answers": ALL - {"Highest marks 2"},  # answer and reference answer are the same abstention
    "bullets_vs_prose": ALL - ABSTAINS - ONE_SENTENCE,
    "closing_sentence": ALL - BARE_ABSTENTION,
    "verbosity": ALL - BARE_ABSTENTION,
    "authority_framing": ALL - ABSTAINS,
    "drop_cited_fact": {"Highest marks 1", "Highest marks 4", "Highest marks 6", "Highest marks 7"},
    "unsupported_claim": ALL - NO_FAITHFULNESS_TO_LOWER,
    "wrong_citation": ALL - NO_FAITHFULNESS_TO_LOWER,
}


@pytest.mark.parametrize("probe", shipped_probes(), ids=lambda p: p.name)
def test_each_probe_applies_exactly_where_its_expectation_holds_on_each_test_type(probe):
    found = {t for t in ANSWERS if not isinstance(probe.apply(*_args(t)), Skip)}
    assert found == APPLIES[probe.name]


def _args(test_type: str) -> tuple[Sample, str, Known]:
    sample, known = item(test_type)
    return sample, test_type, known


def test_drop_never_takes_a_planted_defect_and_says_why_it_skips():
    drop = next(p for p in shipped_probes() if p.name == "drop_cited_fact")
    conditions = "its conditions do not say the answer is relevant, complete and faithful"
    for test_type in ("Low answer relevancy 1", "Low faithfulness 3", "Low usefulness 1", "Low completeness 3"):
        assert drop.apply(*_args(test_type)) == Skip(conditions)  # the defect is the answer's last sentence
    assert drop.apply(*_args("Highest marks 5")) == Skip("fewer than two cited sentences")
    first = drop.apply(*_args("Highest marks 1"))
    assert isinstance(first, Sample) and first.actual_output == LEAVE  # the pay sentence, which the reference has
    listed = drop.apply(*_args("Highest marks 7"))
    assert isinstance(listed, Sample) and listed.actual_output == f"- Pay: {PAY[0].lower()}{PAY[1:]}"
    # without the conditions (a --data sample) the content rule alone still skips the off-topic last sentence
    sample, _ = item("Low answer relevancy 1")
    unknown = drop.apply(sample, "x")
    assert isinstance(unknown, Sample) and "canteen" in (unknown.actual_output or "")


def test_wrong_citation_moves_only_a_lone_citation_and_names_no_reference_twice():
    wrong = next(p for p in shipped_probes() if p.name == "wrong_citation")
    for test_type in APPLIES["wrong_citation"]:
        after = wrong.apply(*_args(test_type))
        assert isinstance(after, Sample) and not duplicated_citation(after.actual_output or ""), test_type
    after = wrong.apply(*_args("Highest marks 6"))
    assert isinstance(after, Sample)
    assert sentences(after.actual_output or "")[0] == "Maternity leave lasts 52 weeks in total [1][5]."


def test_every_probe_keeps_the_other_fields_and_the_metrics_it_declares_are_grouse_ones():
    for probe in shipped_probes():
        assert set(probe.expects) <= set(GROUSE_METRICS)
        for test_type in APPLIES[probe.name]:
            sample, known = item(test_type)
            after = probe.apply(sample, test_type, known)
            assert isinstance(after, Sample) and after.input == sample.input


@pytest.fixture(scope="module")
def shipped_plan():
    from judges.runs.api import load_tests

    tests = load_tests(None, "test", None)
    made, plan = perturb([(t.id, t.sample) for t in tests], shipped_probes(), {t.id: Known.of(t) for t in tests})
    return {t.id: t for t in tests}, made, plan


def test_on_the_shipped_test_split_no_drop_pair_comes_from_a_test_whose_defect_is_its_last_sentence(shipped_plan):
    tests, made, plan = shipped_plan
    dropped = Counter(tests[sample_id].test_type for sample_id, probe, _ in made if probe == "drop_cited_fact")
    assert set(dropped) <= {
        "Highest marks 1",
        "Highest marks 4",
        "Highest marks 5",
        "Highest marks 6",
        "Highest marks 7",
    }
    assert sum(dropped.values()) == plan.applied["drop_cited_fact"] > 40
    skipped = plan.skipped["drop_cited_fact"]
    assert skipped["its conditions do not say the answer is relevant, complete and faithful"] == 11 * 15


def test_on_the_shipped_test_split_no_wrong_citation_names_a_reference_twice_in_a_group(shipped_plan):
    tests, made, plan = shipped_plan
    moved = [sample for _, probe, sample in made if probe == "wrong_citation"]
    assert len(moved) == plan.applied["wrong_citation"] > 100
    assert not any(duplicated_citation(sample.actual_output or "") for sample in moved)
    for name in plan.applied:  # every probe's samples: applied + skipped = every sample
        assert plan.applied[name] + sum(plan.skipped.get(name, {}).values()) == plan.samples == len(tests)


def test_without_conditions_drop_never_takes_a_miscited_or_distorted_sentence_of_the_shipped_split(shipped_plan):
    """As on `--data` samples: the text alone. A low-faithfulness-1 or -2 answer is its set's low-faithfulness-3
    answer (less the added statement) with one sentence miscited or distorted: that sentence is never the one dropped."""
    tests, _, _ = shipped_plan
    drop = next(p for p in shipped_probes() if p.name == "drop_cited_fact")
    checked = 0
    for test_id, test in tests.items():
        if test.test_type not in ("Low faithfulness 1", "Low faithfulness 2"):
            continue
        base = set(sentences(tests[test_id.rsplit("/", 1)[0] + "/low-faithfulness-3"].sample.actual_output or ""))
        planted = [s for s in sentences(test.sample.actual_output or "") if s not in base]
        after = drop.apply(test.sample, test_id)
        assert len(planted) == 1 and isinstance(after, Sample), test_id
        assert planted[0] in sentences(after.actual_output or ""), test_id
        checked += 1
    assert checked == 30
