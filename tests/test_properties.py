"""Property-based: random and malformed JSONL, TOML, conditions and templates end in a clean load or a judgelab
error that names the file (and the line, for line-based inputs), never another exception."""

import json
import re

from conftest import record
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from judges.errors import JudgelabError
from judges.integrations.gate import GateConfig
from judges.judging.prompts import load_prompt_set
from judges.judging.samples import load_samples
from judges.leaderboard.config import load_config
from judges.suite.conditions import Condition
from judges.suite.loading import load_unit_tests
from judges.types import GROUSE_METRICS

FAST = settings(
    derandomize=True,
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)


def mutated_record(draw):
    """A valid unit test with some fields removed, retyped or replaced by random JSON."""
    base = record(id=draw(st.sampled_from(["a", "b", None, 3])))
    for key in draw(st.lists(st.sampled_from(sorted(base)), max_size=3)):
        if draw(st.booleans()):
            base.pop(key, None)
        else:
            base[key] = draw(json_values)
    return base


@st.composite
def jsonl_files(draw):
    lines = []
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.sampled_from(["record", "json", "bytes", "blank"]))
        if kind == "record":
            lines.append(json.dumps(mutated_record(draw)).encode())
        elif kind == "json":
            lines.append(json.dumps(draw(json_values)).encode())
        elif kind == "bytes":
            lines.append(draw(st.binary(max_size=20)).replace(b"\n", b" "))
        else:
            lines.append(b"")
    return b"\n".join(lines)


def assert_names_file_and_line(err, path, line_based=True):
    text = str(err)
    assert text, "an empty error message"
    for line in text.splitlines():
        assert line.startswith(str(path)), line
        if line_based and "holds no records" not in line:
            assert re.match(rf"{re.escape(str(path))}:\d+(:[\w.]+)?: ", line), line


@FAST
@given(content=jsonl_files())
def test_unit_test_and_sample_loaders_never_crash(tmp_path, content):
    path = tmp_path / "u.jsonl"
    path.write_bytes(content)
    for load in (load_unit_tests, load_samples):
        try:
            load(path)
        except JudgelabError as err:
            assert_names_file_and_line(err, path)


toml_keys = st.sampled_from(
    [
        "candidates",
        "evaluations",
        "selection",
        "cache",
        "judge",
        "tests",
        "min",
        "max",
        "name",
        "model",
        "kind",
        "source",
        "total",
        "params",
        "limit",
        "temprature",
        "x",
    ]
)
toml_scalars = st.integers(-3, 3).map(str) | st.sampled_from(
    ['"llm"', '"labels"', '"x"', "0.5", "true", "[1]", "{a = 1}", '"unit_tests"', "1.5"]
)


@st.composite
def toml_texts(draw):
    parts = []
    for _ in range(draw(st.integers(0, 5))):
        shape = draw(st.sampled_from(["pair", "table", "array", "junk"]))
        if shape == "pair":
            parts.append(f"{draw(toml_keys)} = {draw(toml_scalars)}")
        elif shape == "table":
            parts.append(f"[{draw(toml_keys)}]")
        elif shape == "array":
            parts.append(f"[[{draw(toml_keys)}]]")
        else:
            parts.append(draw(st.text(max_size=12)))
    return "\n".join(parts)


@FAST
@given(text=toml_texts())
def test_config_loaders_never_crash(tmp_path, text):
    path = tmp_path / "c.toml"
    path.write_bytes(text.encode("utf-8", "replace"))
    for load in (load_config, GateConfig.load):
        try:
            load(path)
        except JudgelabError as err:
            # one line per problem, each naming the file (and the line of the key when it is found)
            assert all(re.match(rf"{re.escape(str(path))}(:\d+)?: ", line) for line in str(err).splitlines())


@FAST
@given(
    text=st.text(max_size=12)
    | st.from_regex(r"\s*(==|>=|<=|>|<|=>|!=)?\s*(None|null|-?\d{1,3}(\.\d)?)?\s*", fullmatch=True)
)
def test_conditions_parse_or_raise_a_judgelab_error(text):
    try:
        condition = Condition.parse(text, test_id="t", field="f", path="p.jsonl", line=3)
    except JudgelabError as err:
        assert str(err).startswith("p.jsonl:3: ")
    else:
        assert Condition.parse(str(condition)) == condition


template_pieces = st.sampled_from(
    [
        "{{ input }}",
        "{{ actual_output }}",
        "{{ contexts }}",
        "{{ nope }}",
        "{% if %}",
        "{% for c in contexts %}{{ c }}{% endfor %}",
        "{{",
        "}}",
        "{% endif %}",
        "{{ input.x }}",
        "{{ 1/0 }}",
        "{% include 'a' %}",
        "text\n",
        "{# c #}",
        "{{ input|upper }}",
        "{{ actual_output[5] }}",
    ]
)


@FAST
@given(pieces=st.lists(template_pieces, max_size=5))
def test_templates_load_and_render_or_raise_a_judgelab_error(tmp_path, pieces):
    from judges.types import Sample

    folder = tmp_path / "p"
    folder.mkdir(exist_ok=True)
    for metric in GROUSE_METRICS:
        (folder / f"{metric}.txt.jinja").write_text("".join(pieces))
    sample = Sample("q", ("r1",), "e", "a")
    try:
        prompts = load_prompt_set(str(folder))
        prompts.render("completeness", sample)
    except JudgelabError as err:
        assert str(err).startswith(str(folder / "answer_relevancy.txt.jinja")) or str(err).startswith(
            str(folder / "completeness.txt.jinja")
        ), str(err)


tricky_text = st.sampled_from(["\ud800", "a\udfffb", "\U0001f600", "\\ud800", "é", "[{"]) | st.text(max_size=8)
tricky_values = st.recursive(
    st.none() | st.integers() | tricky_text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(tricky_text, inner, max_size=3),
    max_leaves=12,
) | st.integers(min_value=1, max_value=80).map(lambda n: json.loads("[" * n + "]" * n))


@FAST
@given(value=tricky_values, ascii_only=st.booleans())
def test_a_line_that_skips_the_walk_is_one_the_walk_would_pass(value, ascii_only):
    """`passes_unwalked` is a shortcut of `problem` for JSON text: it may send a good line to the walk, never let a
    lone surrogate or a too-deep value through."""
    from judges.files.checked import passes_unwalked, problem

    try:
        text = json.dumps(value, ensure_ascii=ascii_only)
        text.encode("utf-8")  # a file holds only text that UTF-8 can encode (a raw lone surrogate cannot be read)
    except UnicodeEncodeError:
        return
    if passes_unwalked(text):
        assert problem(json.loads(text)) is None
    if problem(json.loads(text)) is not None:
        assert not passes_unwalked(text)
