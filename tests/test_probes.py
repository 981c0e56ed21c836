"""Each probe's perturbation pinned on hand-written samples: what it changes, that nothing else changed, and the
samples it skips with the reason it gives."""

from __future__ import annotations

import dataclasses

import pytest

from judges.probes.analysis import Given, compare
from judges.probes.base import EXPECTATIONS, NOT_HIGHER, Skip
from judges.probes.claim_probes import UNSUPPORTED_CLAIM, DropCitedFact, UnsupportedClaim, WrongCitation
from judges.probes.form import CLOSING_SENTENCE, BulletsVersusProse, ClosingSentence
from judges.probes.framing import AUTHORITY, RESTATEMENT, AuthorityFraming, Verbosity
from judges.probes.order import ShuffleReferences, SwapAnswers
from judges.probes.probe_registry import probes_named, shipped_probes
from judges.probes.text_surgery import citation_groups, duplicated_citation, renumber, sentences
from judges.types import ABSTENTION_SENTENCE, GROUSE_METRICS, Sample

REFS = (
    "Statutory maternity leave lasts 52 weeks.",
    "Statutory maternity pay is paid for thirty nine weeks.",
    "Fathers get two weeks of paternity leave.",
    "Notice is due fifteen weeks before the birth.",
)
SAMPLE = Sample(
    input="What are the leave rules?",
    references=REFS,
    expected_output="Statutory maternity leave lasts 52 weeks [1]. Statutory maternity pay is paid for thirty nine "
    "weeks [2].",
    actual_output="Maternity leave lasts 52 weeks [1]. Statutory maternity pay is paid for thirty nine weeks [2][4]. "
    "Notice is due fifteen weeks before the birth [4, 2].",
)


def changed_fields(before: Sample, after: Sample) -> set[str]:
    return {f.name for f in dataclasses.fields(Sample) if getattr(before, f.name) != getattr(after, f.name)}


def applied(result: Sample | Skip) -> Sample:
    assert isinstance(result, Sample), result
    return result


def test_renumber_keeps_each_markers_shape_and_leaves_unknown_numbers():
    assert renumber("a [1]. b [2][3]. c [3, 1]. d [9].", {1: 3, 2: 1, 3: 2}) == "a [3]. b [1][2]. c [2, 3]. d [9]."


def test_sentences_keep_citations_after_the_full_stop_and_do_not_split_abbreviations():
    assert sentences("One [1]. Two. [2] Three? Four!") == ["One [1].", "Two. [2]", "Three?", "Four!"]
    assert sentences("Under s. 12 it applies [1]. See e.g. the Act [2].") == [
        "Under s. 12 it applies [1].",
        "See e.g. the Act [2].",
    ]
    assert sentences("The rules:\n- Leave [1].\n- Pay [2].") == ["The rules:", "- Leave [1].", "- Pay [2]."]


def test_citation_groups_and_a_reference_named_twice_in_one_group():
    assert citation_groups("a [1][4]. b [2]. c [3, 1].") == [[1, 4], [2], [3, 1]]
    assert duplicated_citation("a [2][2].") and duplicated_citation("a [2, 2].")
    assert not duplicated_citation("a [2]. b [2].")


def test_shuffled_references_keep_every_citation_on_the_same_text():
    after = applied(ShuffleReferences().apply(SAMPLE, "t1"))
    assert changed_fields(SAMPLE, after) == {"references", "actual_output", "expected_output"}
    assert sorted(after.references or ()) == sorted(REFS) and after.references != REFS
    place = {text: n + 1 for n, text in enumerate(after.references or ())}
    assert after.actual_output == (
        f"Maternity leave lasts 52 weeks [{place[REFS[0]]}]. Statutory maternity pay is paid for thirty nine weeks "
        f"[{place[REFS[1]]}][{place[REFS[3]]}]. Notice is due fifteen weeks before the birth "
        f"[{place[REFS[3]]}, {place[REFS[1]]}]."
    )
    assert ShuffleReferences().apply(SAMPLE, "t1") == after  # deterministic in the item id


def test_shuffle_never_returns_the_same_order_and_skips_what_it_cannot_renumber():
    two = dataclasses.replace(SAMPLE, references=REFS[:2], actual_output="A [1]. B [2].", expected_output="A [1].")
    for key in ("a", "b", "c", "d", "e", "f"):
        after = applied(ShuffleReferences().apply(two, key))
        assert after.references == (REFS[1], REFS[0]) and after.actual_output == "A [2]. B [1]."
    assert ShuffleReferences().apply(dataclasses.replace(SAMPLE, references=REFS[:1]), "t") == Skip(
        "fewer than two references"
    )
    beyond = dataclasses.replace(SAMPLE, actual_output="Leave lasts 52 weeks [7].")
    assert ShuffleReferences().apply(beyond, "t") == Skip("a citation names no reference")


def test_swap_exchanges_the_two_answers_only_and_skips_identical_answers():
    after = applied(SwapAnswers().apply(SAMPLE, "t1"))
    assert changed_fields(SAMPLE, after) == {"expected_output", "actual_output"}
    assert (after.expected_output, after.actual_output) == (SAMPLE.actual_output, SAMPLE.expected_output)
    assert isinstance(SwapAnswers().apply(dataclasses.replace(SAMPLE, expected_output=None), "t1"), Skip)
    same = dataclasses.replace(SAMPLE, expected_output=SAMPLE.actual_output)
    assert SwapAnswers().apply(same, "t") == Skip("the two answers are the same text")


def test_bullets_keep_every_sentence_and_citation_and_turn_back_into_prose():
    after = applied(BulletsVersusProse().apply(SAMPLE, "t1"))
    assert changed_fields(SAMPLE, after) == {"actual_output"}
    assert after.actual_output == (
        "- Maternity leave lasts 52 weeks [1].\n- Statutory maternity pay is paid for thirty nine weeks [2][4].\n"
        "- Notice is due fifteen weeks before the birth [4, 2]."
    )
    assert applied(BulletsVersusProse().apply(after, "t1")).actual_output == SAMPLE.actual_output
    one = dataclasses.replace(SAMPLE, actual_output="One fact [1].")
    assert BulletsVersusProse().apply(one, "t") == Skip("fewer than two sentences to list")


def test_bullets_keep_the_abstention_sentence_first_and_unbulleted():
    text = f"{ABSTENTION_SENTENCE} Fathers get two weeks [3]. Notice is due early [4]."
    after = applied(BulletsVersusProse().apply(dataclasses.replace(SAMPLE, actual_output=text), "t"))
    assert after.actual_output == f"{ABSTENTION_SENTENCE}\n- Fathers get two weeks [3].\n- Notice is due early [4]."
    assert applied(BulletsVersusProse().apply(after, "t")).actual_output == text


def test_closing_sentence_is_appended_but_not_to_a_bare_abstention():
    after = applied(ClosingSentence().apply(SAMPLE, "t1"))
    assert changed_fields(SAMPLE, after) == {"actual_output"}
    assert after.actual_output == f"{SAMPLE.actual_output} {CLOSING_SENTENCE}"
    bare = dataclasses.replace(SAMPLE, actual_output=ABSTENTION_SENTENCE)
    assert ClosingSentence().apply(bare, "t") == Skip("the answer is the abstention sentence alone")


def test_drop_removes_the_last_cited_sentence_the_reference_answer_carries():
    after = applied(DropCitedFact().apply(SAMPLE, "t1"))
    assert changed_fields(SAMPLE, after) == {"actual_output"}
    # the notice sentence is last, but the reference answer does not carry it: the pay sentence goes
    assert (
        after.actual_output
        == "Maternity leave lasts 52 weeks [1]. Notice is due fifteen weeks before the birth [4, 2]."
    )
    one = dataclasses.replace(SAMPLE, actual_output="Maternity leave lasts 52 weeks [1]. I hope this helps.")
    assert DropCitedFact().apply(one, "t1") == Skip("fewer than two cited sentences")


def test_drop_keeps_a_list_a_list_and_skips_a_sentence_whose_figures_the_reference_answer_lacks():
    listed = dataclasses.replace(
        SAMPLE,
        actual_output="- Statutory maternity pay is paid for thirty nine weeks [2].\n- Maternity leave lasts 52 weeks "
        "[1].\n- Notice is due fifteen weeks before the birth [4].",
    )
    after = applied(DropCitedFact().apply(listed, "t"))
    assert after.actual_output == (
        "- Statutory maternity pay is paid for thirty nine weeks [2].\n- Notice is due fifteen weeks before the birth [4]."
    )
    distorted = dataclasses.replace(
        SAMPLE, actual_output="Statutory maternity leave lasts 26 weeks [1]. Fathers get two weeks [3]."
    )
    assert DropCitedFact().apply(distorted, "t") == Skip(
        "no cited, supported sentence whose content only the reference answer also carries"
    )


def test_unsupported_claim_is_appended_citing_reference_one():
    after = applied(UnsupportedClaim().apply(SAMPLE, "t1"))
    assert changed_fields(SAMPLE, after) == {"actual_output"}
    assert after.actual_output == f"{SAMPLE.actual_output} {UNSUPPORTED_CLAIM} [1]."
    assert not any("Greenland" in ref for ref in REFS)
    greenland = dataclasses.replace(SAMPLE, references=(*REFS, "A survey of 40,000 people in Greenland in 2011."))
    assert UnsupportedClaim().apply(greenland, "t") == Skip("a reference holds the invented claim's terms")


def test_wrong_citation_moves_the_first_single_citation_to_a_reference_without_the_claims_terms():
    after = applied(WrongCitation().apply(SAMPLE, "t1"))
    assert changed_fields(SAMPLE, after) == {"actual_output"}
    # "Maternity leave lasts 52 weeks" [1] -> [3] would still be about leave weeks; [4] holds fewest of its terms
    assert after.actual_output == SAMPLE.actual_output.replace("[1]", "[4]", 1)
    assert WrongCitation().apply(dataclasses.replace(SAMPLE, actual_output="No citation."), "t") == Skip(
        "no sentence whose first citation names one reference"
    )


def test_wrong_citation_never_names_a_reference_twice_in_one_group():
    grouped = dataclasses.replace(
        SAMPLE,
        references=(REFS[0], REFS[0].replace("Statutory", "Ordinary"), REFS[2], REFS[3]),
        actual_output="Maternity leave lasts 52 weeks [1][2]. Fathers get two weeks of paternity leave [3].",
    )
    after = applied(WrongCitation().apply(grouped, "t"))
    assert after.actual_output == "Maternity leave lasts 52 weeks [1][2]. Fathers get two weeks of paternity leave [4]."
    assert not duplicated_citation(after.actual_output or "")
    alike = dataclasses.replace(SAMPLE, references=(REFS[0], REFS[0]), actual_output="Leave lasts 52 weeks [1].")
    assert WrongCitation().apply(alike, "t") == Skip("every other reference holds the claim's key terms")


def test_verbosity_restates_the_first_cited_sentence_word_for_word():
    after = applied(Verbosity().apply(SAMPLE, "t"))
    assert after.actual_output == f"{SAMPLE.actual_output} {RESTATEMENT} Maternity leave lasts 52 weeks [1]."
    refusal = f"{ABSTENTION_SENTENCE} Fathers get two weeks [3]."
    after = applied(Verbosity().apply(dataclasses.replace(SAMPLE, actual_output=refusal), "t"))
    assert after.actual_output == f"{refusal} {RESTATEMENT} Fathers get two weeks [3]."
    assert isinstance(Verbosity().apply(dataclasses.replace(SAMPLE, actual_output=ABSTENTION_SENTENCE), "t"), Skip)


def test_authority_framing_prefixes_the_answer_but_never_an_abstention():
    after = applied(AuthorityFraming().apply(SAMPLE, "t"))
    assert after.actual_output == f"{AUTHORITY} {SAMPLE.actual_output}"
    refusal = dataclasses.replace(SAMPLE, actual_output=f"{ABSTENTION_SENTENCE} Fathers get two weeks [3].")
    assert AuthorityFraming().apply(refusal, "t") == Skip(
        "the answer abstains: it must begin with the abstention sentence"
    )


@pytest.mark.parametrize("probe", shipped_probes(), ids=lambda p: p.name)
def test_every_probe_declares_in_its_docstring_what_each_metric_must_do(probe):
    doc = " ".join((type(probe).__doc__ or "").split())
    assert probe.expects and set(probe.expects) <= set(GROUSE_METRICS)
    assert set(probe.expects.values()) <= set(EXPECTATIONS)
    for metric, expectation in probe.expects.items():
        assert metric in doc
        word = {"same": "Invariance", "swapped": "swapped", "lower": "Sensitivity", "not higher": "Never higher"}[
            expectation
        ]
        assert word in doc


def test_probes_are_chosen_by_name_and_an_unknown_name_is_refused():
    assert [p.name for p in probes_named(["wrong_citation", "swap_answers"])] == ["wrong_citation", "swap_answers"]
    assert {"verbosity", "authority_framing"} <= {p.name for p in shipped_probes()}
    from judges.errors import ConfigError

    with pytest.raises(ConfigError, match="unknown probe 'nope'"):
        probes_named(["nope"])


def test_verbosity_and_authority_declare_never_higher_as_a_blind_audit_found():
    # both graders of a blind audit lowered relevancy for the restatement (12 of 12) and one lowered faithfulness for
    # the authority preface (6 of 12): "stay" is wrong by construction, "never higher" holds
    for probe in (Verbosity(), AuthorityFraming()):
        assert probe.expects == dict.fromkeys(GROUSE_METRICS, NOT_HIGHER)


@pytest.mark.parametrize(
    "before, after, outcome",
    [
        ((("grade", 4.0), None), (("grade", 4.0), None), "held"),
        ((("grade", 4.0), None), (("grade", 2.0), None), "held"),
        ((("grade", 4.0), None), (("grade", 5.0), None), "missed"),
        ((("grade", 4.0), None), (("null", None), None), "missed"),
        ((("grade", 5.0), None), (("grade", 5.0), None), "skipped"),  # at the ceiling: a raise cannot show
        ((("null", None), None), (("grade", 5.0), None), "skipped"),
    ],
)
def test_never_higher_holds_when_the_grade_stays_or_falls_and_skips_the_ceiling(before, after, outcome):
    assert compare("answer_relevancy", NOT_HIGHER, Given(*before), Given(*after)) == outcome
    assert compare("answer_relevancy", NOT_HIGHER, Given(*before), Given(None, None, failed=True)) == "failed"
