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
    shared = texts[0][:texts[0].index("Metric:")]
    assert shared.startswith("You grade answers") and shared.rstrip().endswith("Answer 2: Because [2].")
    assert all(t.startswith(shared) for t in texts)


def test_missing_variable_fails_before_any_call(tmp_path):
    template = PromptTemplate("completeness", tmp_path / "c.txt.jinja", "Q: {{ input }} G: {{ ground_truth }}")
    with pytest.raises(PromptError, match="ground_truth"):
        template.render(input="x")


def test_sandbox_blocks_unsafe_attribute_access(tmp_path):
    template = PromptTemplate("completeness", tmp_path / "c.txt.jinja", "{{ input.__class__.__mro__ }}")
    with pytest.raises(PromptError):
        template.render(input="x")


def test_hash_changes_with_the_template_text(tmp_path):
    a = PromptTemplate("m", tmp_path / "a", "one {{ input }}")
    b = PromptTemplate("m", tmp_path / "b", "two {{ input }}")
    assert a.sha256 != b.sha256 and len(a.sha256) == 64


def test_folder_missing_a_metric_is_named(tmp_path):
    (tmp_path / "answer_relevancy.txt.jinja").write_text("{{ input }}")
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
