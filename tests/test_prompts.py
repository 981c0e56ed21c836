"""Prompt sets: shipped default, strict and sandboxed rendering, content hashes, the grouse folder."""

import importlib.util

import pytest

from judges.errors import PromptError
from judges.judging.prompts import PromptTemplate, load_prompt_set
from judges.types import GROUSE_METRICS, Sample

SAMPLE = Sample("Why?", ("first ref", "second ref"), "Because [1].", "Because [2].")


def test_default_set_renders_every_metric_with_numbered_references():
    prompts = load_prompt_set("default")
    assert set(prompts.templates) == set(GROUSE_METRICS)
    completeness = prompts.render("completeness", SAMPLE)
    assert "[1] first ref" in completeness and "[2] second ref" in completeness
    assert completeness.index("Answer 1: Because [1].") < completeness.index("Answer 2: Because [2].")


def test_one_samples_prompts_share_a_long_prefix_for_llama_cpp_reuse():
    """Shared instructions, then the sample, then the metric's rubric: a test's second and third calls
    reuse the first call's evaluated prefix (llama.cpp keeps the previous prompt's KV cache)."""
    prompts = load_prompt_set("default")
    texts = [prompts.render(m, SAMPLE) for m in GROUSE_METRICS]
    shared = texts[0][: texts[0].index("Metric:")]
    assert shared.startswith("You grade answers") and shared.rstrip().endswith("Answer 2: Because [2].")
    assert all(t.startswith(shared) for t in texts)


def test_missing_variable_fails_before_any_call(tmp_path):
    template = PromptTemplate("completeness", tmp_path / "c.txt.jinja", "Q: {{ input }} G: {{ ground_truth }}")
    with pytest.raises(PromptError, match="ground_truth"):
        template.render(input="x")


def write_set(folder, **overrides):
    """A prompt folder: each metric's template is `overrides[metric]` or a plain one using every variable."""
    folder.mkdir(exist_ok=True)
    for metric in GROUSE_METRICS:
        text = overrides.get(metric, "{{ input }} {{ contexts }} {{ expected_output }} {{ actual_output }}")
        (folder / f"{metric}.txt.jinja").write_text(text)
    return folder


def test_syntax_error_names_the_template_file_and_line(tmp_path):
    folder = write_set(tmp_path / "p", completeness="Q: {{ input }}\nA: {{ actual_output }\n")
    with pytest.raises(PromptError) as err:
        load_prompt_set(str(folder))
    assert str(err.value) == f"{folder / 'completeness.txt.jinja'}:2: invalid template: unexpected '}}'"


def test_undefined_variable_names_the_file_and_line_before_any_call(tmp_path):
    folder = write_set(tmp_path / "p", faithfulness="{{ actual_output }}\n\nGround truth: {{ ground_truth }}")
    with pytest.raises(PromptError) as err:
        load_prompt_set(str(folder))
    assert str(err.value) == (
        f"{folder / 'faithfulness.txt.jinja'}:3: undefined variable 'ground_truth'; "
        "a template may use actual_output, contexts, expected_output, input"
    )


def test_a_template_that_never_shows_the_answer_under_test_is_refused(tmp_path):
    folder = write_set(tmp_path / "p", usefulness="{{ input }} {{ expected_output }}")
    with pytest.raises(PromptError) as err:
        load_prompt_set(str(folder))
    assert str(err.value) == (
        f"{folder / 'usefulness.txt.jinja'}: never uses {{{{ actual_output }}}}, so the judge "
        "would not see the answer under test"
    )


def test_render_error_names_the_line(tmp_path):
    template = PromptTemplate("completeness", tmp_path / "c.txt.jinja", "Q\n\n{{ input.missing.deeper }}")
    with pytest.raises(PromptError) as err:
        template.render(input="x")
    assert str(err.value) == f"{tmp_path / 'c.txt.jinja'}:3: cannot render: 'str object' has no attribute 'missing'"


def test_sandbox_blocks_unsafe_attribute_access(tmp_path):
    template = PromptTemplate("completeness", tmp_path / "c.txt.jinja", "{{ input.__class__.__mro__ }}")
    with pytest.raises(PromptError):
        template.render(input="x")


def test_hash_changes_with_the_template_text(tmp_path):
    a = PromptTemplate("m", tmp_path / "a", "one {{ input }}")
    b = PromptTemplate("m", tmp_path / "b", "two {{ input }}")
    assert a.sha256 != b.sha256 and len(a.sha256) == 64


def test_folder_missing_a_metric_is_named(tmp_path):
    (tmp_path / "answer_relevancy.txt.jinja").write_text("{{ input }} {{ actual_output }}")
    with pytest.raises(PromptError, match="completeness.txt.jinja"):
        load_prompt_set(str(tmp_path))


def test_unknown_prompt_set_lists_the_shipped_ones():
    with pytest.raises(PromptError, match="default"):
        load_prompt_set("no-such-set")


@pytest.mark.skipif(importlib.util.find_spec("grouse") is None, reason="grouse files not installed")
def test_grouse_folder_renders_with_the_same_variables():
    prompts = load_prompt_set("grouse")
    assert prompts.folder.name == "gpt4_prompts"
    assert "Reference 2: second ref" in prompts.render("faithfulness", SAMPLE)


def test_templates_render_as_a_plain_jinja_sandbox_renders_them(tmp_path):
    from jinja2 import StrictUndefined
    from jinja2.sandbox import SandboxedEnvironment

    from judges.judging.prompts import sample_variables

    def plain(source, **variables):
        return SandboxedEnvironment(undefined=StrictUndefined).from_string(source).render(**variables).strip()

    for template in load_prompt_set("default").templates.values():
        variables = sample_variables(SAMPLE)
        assert template.render(**variables) == plain(template.source, **variables)
    source = "{% set ns = namespace(n=0) %}{% for i in range(3) %}{% set ns.n = ns.n + i %}{% endfor %}{{ ns.n }}"
    source += " {{ dict(a=1)['a'] }} {{ contexts | length }}"
    template = PromptTemplate("t", tmp_path / "t.txt.jinja", source)
    assert template.render(contexts=[1, 2]) == plain(source, contexts=[1, 2]) == "3 1 2"
