"""Reply parsing: clean, fenced, prose around, truncated, garbage, refusals, ranges."""

import asyncio
import json

import pytest

from judges.judging.replies import ReplyError, entry_schema, parse_reply, reply_schema
from judges.types import FailureKind, VerdictState

CLEAN = json.dumps(
    {
        "answer_1": {"answer_relevancy_justification": "ok", "answer_relevancy": 5},
        "answer_2": {"answer_relevancy_justification": "meh", "answer_relevancy": 3},
    }
)


def test_clean_reply_grades_answer_2_and_keeps_answer_1():
    parsed = parse_reply("answer_relevancy", CLEAN)
    assert parsed.actual.grade == 3 and parsed.actual.justification == "meh"
    assert parsed.expected is not None and parsed.expected.grade == 5


@pytest.mark.parametrize(
    "wrapped", [f"```json\n{CLEAN}\n```", f"Here is my grading:\n{CLEAN}\nHope this helps.", f"```\n{CLEAN}\n```"]
)
def test_fences_and_prose_are_tolerated(wrapped):
    assert parse_reply("answer_relevancy", wrapped).actual.grade == 3


def test_truncated_reply_is_repaired_when_the_grade_is_there():
    truncated = (
        '{"answer_1": {"completeness": 5}, "answer_2": {"completeness_justification": "misses x", "completeness": 2'
    )
    assert parse_reply("completeness", truncated).actual.grade == 2


def test_truncated_before_the_grade_is_unparseable():
    with pytest.raises(ReplyError) as err:
        parse_reply("completeness", '{"answer_1": {"completeness": 5}, "answer_2": {"completeness_justif')
    assert err.value.kind is FailureKind.UNPARSEABLE


@pytest.mark.parametrize("garbage", ["", "I think it is good.", "[1, 2, 3]", "{}"])
def test_garbage_is_unparseable(garbage):
    with pytest.raises(ReplyError) as err:
        parse_reply("faithfulness", garbage)
    assert err.value.kind is FailureKind.UNPARSEABLE


def test_refusal_is_its_own_kind():
    with pytest.raises(ReplyError) as err:
        parse_reply("faithfulness", "I'm sorry, but I can't help with that request.")
    assert err.value.kind is FailureKind.REFUSED


@pytest.mark.parametrize(
    "metric, raw, expected",
    [
        ("faithfulness", True, 1),
        ("faithfulness", False, 0),
        ("faithfulness", "1", 1),
        ("completeness", 4.0, 4),
        ("answer_relevancy", None, None),
        ("usefulness", "null", None),
    ],
)
def test_grade_coercions(metric, raw, expected):
    text = json.dumps({"answer_1": {metric: 1}, "answer_2": {metric: raw}})
    verdict = parse_reply(metric, text).actual
    if expected is None:
        assert verdict.state is VerdictState.NULL
    else:
        assert verdict.state is VerdictState.GRADE and verdict.grade == expected


@pytest.mark.parametrize(
    "metric, raw",
    [
        ("answer_relevancy", 6),
        ("answer_relevancy", 0),
        ("faithfulness", 2),
        ("completeness", 3.5),
        ("usefulness", "yes"),
    ],
)
def test_out_of_range_grades_are_unparseable(metric, raw):
    with pytest.raises(ReplyError):
        parse_reply(metric, json.dumps({"answer_2": {metric: raw}}))


def test_single_answer_reply_is_accepted():
    parsed = parse_reply("usefulness", '{"usefulness_justification": "related", "usefulness": 1}')
    assert parsed.actual.grade == 1 and parsed.expected is None


def test_schema_puts_justification_before_grade_and_allows_null():
    schema = entry_schema("answer_relevancy")
    keys = list(schema["properties"])
    assert keys.index("answer_relevancy_justification") < keys.index("answer_relevancy")
    assert schema["properties"]["answer_relevancy"]["enum"] == [1, 2, 3, 4, 5, None]
    assert reply_schema("faithfulness")["required"] == ["answer_1", "answer_2"]


def test_reply_formats_order_the_schema_as_named():
    assert list(entry_schema("usefulness", "grade_first")["properties"]) == [
        "answer_affirms_no_document_answers",
        "answer_contains_related_information",
        "usefulness",
        "usefulness_justification",
    ]
    assert entry_schema("usefulness", "grade_only")["required"] == ["usefulness"]
    with pytest.raises(ValueError, match="unknown reply format 'grade_last'"):
        entry_schema("usefulness", "grade_last")


def test_the_compact_format_grades_answer_2_alone_under_short_keys_in_the_default_order():
    assert list(entry_schema("usefulness", "compact")["properties"]) == ["no_doc", "related_info", "why", "grade"]
    assert entry_schema("faithfulness", "compact")["properties"]["grade"]["enum"] == [0, 1, None]
    schema = reply_schema("completeness", "compact")
    assert schema == entry_schema("completeness", "compact") and schema["required"] == ["why", "grade"]


def test_a_compact_reply_is_read_by_its_short_keys_and_a_long_key_reply_is_not():
    parsed = parse_reply(
        "answer_relevancy", '{"no_doc": true, "why": "says no document answers", "grade": null}', "compact"
    )
    assert parsed.actual.state is VerdictState.NULL and parsed.actual.justification == "says no document answers"
    assert parsed.expected is None
    parsed = parse_reply("completeness", '{"why": "misses the date", "grade": 3}', "compact")
    assert parsed.actual.grade == 3 and parsed.actual.justification == "misses the date"
    with pytest.raises(ReplyError, match="no 'grade' field"):
        parse_reply("answer_relevancy", CLEAN, "compact")
    with pytest.raises(ReplyError, match="no 'answer_relevancy' field"):
        parse_reply("answer_relevancy", '{"no_doc": false, "why": "x", "grade": 4}')


def test_every_shipped_template_shows_the_keys_its_reply_schema_asks_for():
    """The shape a prompt shows and the grammar constrained decoding enforces name the same keys, in order, for the
    answers the schema grades."""
    from judges.judging.prompts import load_prompt_set, shipped_prompt_sets

    sets = shipped_prompt_sets()
    assert {"default", "compact"} <= set(sets)
    formats = set()
    for name in sets:
        for metric, template in load_prompt_set(name).templates.items():
            schema = reply_schema(metric, template.reply_format)
            both = "answer_2" in schema["properties"]
            keys = schema["properties"]["answer_2"]["required"] if both else schema["required"]
            shown = [template.source.rfind(f'"{key}"') for key in keys]
            assert -1 not in shown and shown == sorted(shown), (name, metric, keys)
            assert ('"answer_1"' in template.source) is both, (name, metric)
            formats.add(template.reply_format)
    assert {"justification_first", "compact"} <= formats


def test_a_template_declares_its_reply_format_and_the_judge_sends_that_schema(tmp_path):
    from conftest import reply, scripted_judge

    from judges.judging.prompts import PromptSet, PromptTemplate
    from judges.types import Sample

    source = "{# reply_format: grade_only #}\n{{ actual_output }}"
    template = PromptTemplate("completeness", tmp_path / "completeness.txt.jinja", source)
    assert template.reply_format == "grade_only" and template.render(actual_output="A") == "A"
    judge, backend = scripted_judge(lambda request: reply(request.metric, 1), json_schema=True)
    judge.prompts = PromptSet("t", tmp_path, {**judge.prompts.templates, "completeness": template})
    sample = Sample("q?", ("r",), "e", "a")
    asyncio.run(judge.grade("completeness", sample))
    asyncio.run(judge.grade("faithfulness", sample))
    sent = [r.params["response_format"]["schema"]["properties"]["answer_2"]["required"] for r in backend.requests]
    assert sent == [["completeness"], ["faithfulness_justification", "faithfulness"]]


def test_an_unknown_declared_reply_format_is_refused_when_the_folder_loads(tmp_path):
    from judges.errors import PromptError
    from judges.judging.prompts import PromptTemplate

    template = PromptTemplate("completeness", tmp_path / "c.txt.jinja", "{# reply_format: terse #}{{ actual_output }}")
    with pytest.raises(PromptError, match="unknown reply_format 'terse'; known: justification_first"):
        template.check_variables({"actual_output"})
