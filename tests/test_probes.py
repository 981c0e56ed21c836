"""Each probe's perturbation pinned on hand-written samples: what it changes, and that nothing else changed."""

from __future__ import annotations

import dataclasses

import pytest

from judges.probes.base import EXPECTATIONS
from judges.probes.content import UNSUPPORTED_CLAIM, DropCitedFact, UnsupportedClaim, WrongCitation
from judges.probes.form import CLOSING_SENTENCE, BulletsVersusProse, ClosingSentence
from judges.probes.order import ShuffleReferences, SwapAnswers
from judges.probes.registry import probes_named, shipped_probes
from judges.probes.text import renumber, sentences
from judges.types import GROUSE_METRICS, Sample

REFS = ("Leave lasts 52 weeks.", "Pay is 90% for six weeks.", "Fathers get two weeks.", "Notice is 15 weeks.")
SAMPLE = Sample(
    input="What are the leave rules?",
    references=REFS,
    expected_output="Leave lasts 52 weeks [1]. Fathers get two weeks [3].",
    actual_output="Leave lasts 52 weeks [1]. Pay is 90% for six weeks [2][4]. Notice is 15 weeks [4, 2].",
)


def changed_fields(before: Sample, after: Sample) -> set[str]:
    return {f.name for f in dataclasses.fields(Sample) if getattr(before, f.name) != getattr(after, f.name)}


def test_renumber_keeps_each_markers_shape_and_leaves_unknown_numbers():
    assert renumber("a [1]. b [2][3]. c [3, 1]. d [9].", {1: 3, 2: 1, 3: 2}) == "a [3]. b [1][2]. c [2, 3]. d [9]."


def test_sentences_keep_citations_written_after_the_full_stop():
    assert sentences("One [1]. Two. [2] Three? Four!") == ["One [1].", "Two. [2]", "Three?", "Four!"]


def test_shuffled_references_keep_every_citation_on_the_same_text():
    after = ShuffleReferences().apply(SAMPLE, "t1")
    assert after is not None and changed_fields(SAMPLE, after) == {"references", "actual_output", "expected_output"}
    assert sorted(after.references or ()) == sorted(REFS) and after.references != REFS
    place = {text: n + 1 for n, text in enumerate(after.references or ())}
    expected_actual = (
        f"Leave lasts 52 weeks [{place[REFS[0]]}]. Pay is 90% for six weeks [{place[REFS[1]]}][{place[REFS[3]]}]. "
        f"Notice is 15 weeks [{place[REFS[3]]}, {place[REFS[1]]}]."
    )
    assert after.actual_output == expected_actual
    assert (
        after.expected_output == f"Leave lasts 52 weeks [{place[REFS[0]]}]. Fathers get two weeks [{place[REFS[2]]}]."
    )
    assert ShuffleReferences().apply(SAMPLE, "t1") == after  # deterministic in the item id


def test_shuffle_never_returns_the_same_order_and_needs_two_references():
    two = dataclasses.replace(SAMPLE, references=REFS[:2], actual_output="A [1]. B [2].", expected_output="A [1].")
    for key in ("a", "b", "c", "d", "e", "f"):
        after = ShuffleReferences().apply(two, key)
        assert after is not None and after.references == (REFS[1], REFS[0]) and after.actual_output == "A [2]. B [1]."
    assert ShuffleReferences().apply(dataclasses.replace(SAMPLE, references=REFS[:1]), "t") is None


def test_swap_exchanges_the_two_answers_only():
    after = SwapAnswers().apply(SAMPLE, "t1")
    assert after is not None and changed_fields(SAMPLE, after) == {"expected_output", "actual_output"}
    assert (after.expected_output, after.actual_output) == (SAMPLE.actual_output, SAMPLE.expected_output)
    assert SwapAnswers().apply(dataclasses.replace(SAMPLE, expected_output=None), "t1") is None


def test_bullets_keep_every_sentence_and_citation_and_turn_back_into_prose():
    after = BulletsVersusProse().apply(SAMPLE, "t1")
    assert after is not None and changed_fields(SAMPLE, after) == {"actual_output"}
    assert after.actual_output == (
        "- Leave lasts 52 weeks [1].\n- Pay is 90% for six weeks [2][4].\n- Notice is 15 weeks [4, 2]."
    )
    back = BulletsVersusProse().apply(after, "t1")
    assert back is not None and back.actual_output == SAMPLE.actual_output
    assert BulletsVersusProse().apply(dataclasses.replace(SAMPLE, actual_output="One fact [1]."), "t") is None


def test_closing_sentence_is_appended_and_nothing_else_moves():
    after = ClosingSentence().apply(SAMPLE, "t1")
    assert after is not None and changed_fields(SAMPLE, after) == {"actual_output"}
    assert after.actual_output == f"{SAMPLE.actual_output} {CLOSING_SENTENCE}"


def test_drop_removes_the_last_cited_sentence_word_for_word():
    after = DropCitedFact().apply(SAMPLE, "t1")
    assert after is not None and changed_fields(SAMPLE, after) == {"actual_output"}
    assert after.actual_output == "Leave lasts 52 weeks [1]. Pay is 90% for six weeks [2][4]."
    one = dataclasses.replace(SAMPLE, actual_output="Leave lasts 52 weeks [1]. I hope this helps.")
    assert DropCitedFact().apply(one, "t1") is None  # it would leave no cited fact


def test_unsupported_claim_is_appended_citing_reference_one():
    after = UnsupportedClaim().apply(SAMPLE, "t1")
    assert after is not None and changed_fields(SAMPLE, after) == {"actual_output"}
    assert after.actual_output == f"{SAMPLE.actual_output} {UNSUPPORTED_CLAIM} [1]."
    assert not any("Greenland" in ref for ref in REFS)


def test_wrong_citation_moves_only_the_first_citation_to_the_next_reference():
    after = WrongCitation().apply(SAMPLE, "t1")
    assert after is not None and changed_fields(SAMPLE, after) == {"actual_output"}
    assert after.actual_output == SAMPLE.actual_output.replace("[1]", "[2]", 1)
    last = dataclasses.replace(SAMPLE, actual_output="Notice is 15 weeks [4]. Leave lasts 52 weeks [1].")
    moved = WrongCitation().apply(last, "t")
    assert moved is not None and moved.actual_output == "Notice is 15 weeks [1]. Leave lasts 52 weeks [1]."
    assert WrongCitation().apply(dataclasses.replace(SAMPLE, actual_output="No citation."), "t") is None


@pytest.mark.parametrize("probe", shipped_probes(), ids=lambda p: p.name)
def test_every_probe_declares_in_its_docstring_what_each_metric_must_do(probe):
    doc = " ".join((type(probe).__doc__ or "").split())
    assert probe.expects and set(probe.expects) <= set(GROUSE_METRICS)
    assert set(probe.expects.values()) <= set(EXPECTATIONS)
    for metric, expectation in probe.expects.items():
        assert metric in doc
        word = {"same": "Invariance", "swapped": "swapped", "lower": "Sensitivity"}[expectation]
        assert word in doc


def test_probes_are_chosen_by_name_and_an_unknown_name_is_refused():
    assert [p.name for p in probes_named(["wrong_citation", "swap_answers"])] == ["wrong_citation", "swap_answers"]
    from judges.errors import ConfigError

    with pytest.raises(ConfigError, match="unknown probe 'nope'"):
        probes_named(["nope"])
