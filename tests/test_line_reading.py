"""A JSON Lines line reads the same through orjson's fast path as through the standard library (values, their
types, and every refusal's message), and a labelled item read from a file is the LabelledItem its constructor makes."""

import copy
import dataclasses
import json
import math
import pickle

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from judges.files.jsonl import LineProblem, parse_line, read_with_json
from judges.labels.io import read_labels
from judges.labels.schema import NO_EXTRA, NO_TEXT, LabelledItem, LabelType

FAST = settings(derandomize=True, max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
numbers = (
    st.integers()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.floats(allow_nan=False, allow_infinity=False).map(lambda x: float(f"{x:.3g}"))
)
texts = st.text(max_size=8) | st.sampled_from(["\U0001f600", "é", "\\u00e9", "\x00", "\x7f", "[{", '"'])
values = st.recursive(
    st.none() | st.booleans() | numbers | texts,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts, inner, max_size=3),
    max_leaves=10,
)


def strict(raw: bytes):
    """The standard library's reading of a line (the value, or its LineProblem's message and field)."""
    try:
        return ("ok", read_with_json(raw))
    except LineProblem as problem:
        return ("refused", str(problem), problem.field)


def fast(raw: bytes):
    try:
        return ("ok", parse_line(raw))
    except LineProblem as problem:
        return ("refused", str(problem), problem.field)


def same(a, b) -> bool:
    """Equal values of equal types all the way down (1 and 1.0 differ; NaN equals NaN)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    return a == b


@FAST
@given(value=st.dictionaries(texts, values, max_size=4), ascii_only=st.booleans())
def test_any_object_line_reads_as_the_standard_library_reads_it(value, ascii_only):
    try:
        raw = (json.dumps(value, ensure_ascii=ascii_only) + "\n").encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: no file holds it unescaped
        return
    assert same(fast(raw), strict(raw))


EDGES = [
    b'{"id": 18446744073709551616}',  # past 2**64: orjson would give a float
    b'{"id": -9223372036854775809}',  # below -2**63: orjson would give a float
    b'{"id": 9999999999999999999}',
    b'{"label": 0.1234567890123456789}',
    b'{"label": 1e400}',
    b'{"label": -1e400}',
    b'{"label": NaN}',
    b'{"label": Infinity}',
    b'\xef\xbb\xbf{"id": 1}',
    b'{"text": "\\ud800"}',
    b'{"text": "\\ud83d\\ude00"}',
    b'{"text": "\xff"}',
    b'{"text": "\xed\xa0\x80"}',
    b'{"a": 1, "a": 2}',
    b'{"a": 1} {"b": 2}',
    b'{"a": 01}',
    b'{"a": "x\ty"}',
    b"[1, 2]",
    b'"text"',
    b"",
    b"{" * 63 + b"}" * 63,
    b'{"a":' + b"[" * 63 + b"]" * 63 + b"}",
    b'{"a":' + b"[" * 64 + b"]" * 64 + b"}",
    b'{"a":' + b"[" * 3000 + b"]" * 3000 + b"}",
    b'{"n": ' + b"9" * 400 + b"}",
    b'{"n": ' + b"9" * 5000 + b"}",
]


@pytest.mark.parametrize("raw", EDGES, ids=range(len(EDGES)))
def test_lines_only_the_standard_library_reads_or_refuses_read_as_it_does(raw):
    assert same(fast(raw + b"\n"), strict(raw + b"\n"))


def test_a_whole_number_past_64_bits_stays_a_whole_number():
    assert parse_line(b'{"id": 18446744073709551616, "n": -9223372036854775809}') == {
        "id": 18446744073709551616,
        "n": -9223372036854775809,
    }
    assert type(parse_line(b'{"n": -9223372036854775809}')["n"]) is int


def test_an_item_read_from_a_file_is_frozen_and_equal_to_the_constructors(tmp_path):
    path = tmp_path / "labels.jsonl"
    path.write_text(
        '{"id": 7, "metric": "faithfulness", "label": 0.25, "label_type": "continuous", "scale": [0, 1], '
        '"system": "s1"}\n'
        '{"id": "b", "metric": "faithfulness", "label": 1, "label_type": "continuous", "scale": [0, 1], '
        '"input": "q", "references": "r", "annotator": "ann", "group": 3, "extra": {"k": 1}}\n'
    )
    first, second = read_labels(path).items
    made = LabelledItem("7", "faithfulness", 0.25, LabelType.CONTINUOUS, (0.0, 1.0), "human", NO_TEXT, system="s1")
    assert type(first) is LabelledItem and first == made and hash(first) == hash(made)
    assert first.extra is NO_EXTRA and first.answer_b is None and first.group is None
    assert second.sample.input == "q" and second.sample.references == ("r",) and second.annotator == "ann"
    assert second.group == "3" and second.extra == {"k": 1} and type(second.label) is float
    with pytest.raises(dataclasses.FrozenInstanceError):
        first.label = 0.5  # type: ignore[misc]
    assert dataclasses.replace(first, label=0.5).label == 0.5 and dataclasses.asdict(first)["id"] == "7"
    for copied in (pickle.loads(pickle.dumps(second)), copy.deepcopy(second)):
        assert type(copied) is LabelledItem and copied == second and copied.extra == {"k": 1}
