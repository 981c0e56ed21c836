"""A serial judge's unit tests start in the order that lets its server reuse the longest prompt prefix: the shipped
train split's tests that share references, question and reference answer go back to back, each test's calls stay
together, and the records still follow the file."""

import itertools

from conftest import reply, scripted_judge

from judges.api import load_tests
from judges.calls.runtime import RuntimeSettings
from judges.calls.scripted import by_metric
from judges.runs.service import run_task
from judges.suite.unit_test_task import UnitTestTask

REPLIES = by_metric(
    {
        "answer_relevancy": reply("answer_relevancy", 5),
        "completeness": reply("completeness", 5),
        "faithfulness": reply("faithfulness", 1),
    }
)  # relevancy graded: faithfulness follows


def sent(prefix_order: bool, draws: int = 1):
    """The prompts a one-call-at-a-time judge receives, in order, with the test each is for, and the run's records."""
    judge, backend = scripted_judge(REPLIES, settings=RuntimeSettings(concurrency=1))
    tests = load_tests(None, "train")
    run = run_task(UnitTestTask(tests, judge, draws, prefix_order=prefix_order), judge.runtime, None, {"judge": "s"})
    prompts = [request.messages[0]["content"] for request in backend.requests]
    return tests, prompts, run


def chars_read(prompts):
    """What a server that keeps only the previous prompt reads: each prompt from where it parts from the one before."""
    return sum(len(p) for p in prompts) - sum(shared(a, b) for a, b in itertools.pairwise(prompts))


def shared(before, after):
    return next((i for i, (x, y) in enumerate(zip(before, after)) if x != y), min(len(before), len(after)))


def shared_content(test):
    sample = test.sample
    return sample.references, sample.input, sample.expected_output


def test_tests_sharing_their_references_question_and_reference_answer_run_back_to_back():
    tests, prompts, run = sent(prefix_order=True)
    assert len(prompts) == 3 * len(tests)  # three calls a test here: relevancy, completeness, then faithfulness
    judge, _ = scripted_judge(REPLIES)
    test_of = {judge.prompts.render("answer_relevancy", t.sample): t for t in tests}
    started = [test_of[p] for p in prompts[::3]]  # each test's first call, in the order they went out
    assert sorted(t.id for t in started) == sorted(t.id for t in tests)
    groups = [shared_content(t) for t in started]
    stretches = [key for i, key in enumerate(groups) if i == 0 or groups[i - 1] != key]
    assert len(stretches) == len(set(groups)) < len(tests)  # each group in one stretch; some hold several tests
    assert [r.id for r in run.records] == [t.id for t in tests]  # the records keep the file's order


def test_prefix_order_gives_the_server_more_of_each_prompt_already_read():
    _, in_file_order, _ = sent(prefix_order=False)
    _, in_prefix_order, _ = sent(prefix_order=True)
    assert sorted(in_prefix_order) == sorted(in_file_order)  # the same calls
    assert chars_read(in_prefix_order) < 0.9 * chars_read(in_file_order)


def test_each_tests_calls_and_draws_go_back_to_back():
    tests, prompts, _ = sent(prefix_order=True, draws=2)
    assert len(prompts) == 2 * 3 * len(tests)
    # a test's two draws send the same three prompts, one after the other: six calls in a row for each test
    for start in range(0, len(prompts), 6):
        block = prompts[start : start + 6]
        assert block[:3] == block[3:] and len(set(block)) == 3
