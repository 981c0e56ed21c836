"""What a new user sees in the first hour: the main job's table beside the constants and the oracle with one line to
conclude from, `evaluate`'s per-sample rows and dry run, one count of failed calls, and one helpful line per slip."""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys

import pytest
from conftest import ROOT, compact, hang_guard
from stub import stub_server

from judges.api import load_tests
from judges.cli.main import build_parser, main
from judges.render.summary_md import summary_markdown
from judges.suite.baselines import reference_rates, run_baseline

ENV = {**os.environ, "PYTHONPATH": str(ROOT), "OPENAI_API_KEY": "sk-fake"}
SAMPLES = ROOT / "examples" / "samples.jsonl"


@pytest.fixture(scope="module")
def stub():
    with stub_server(latency_ms=1) as base:
        yield base


def test_the_main_jobs_table_shows_the_baselines_and_one_line_to_conclude(tmp_path, stub, capsys, monkeypatch):
    """`judgelab meta-eval --limit 6` (the README's first command, cut to six tests, against the loopback stub
    judge): the best constant and the oracle beside each metric, then the one line."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake")
    args = ["meta-eval", "--limit", "6", "--judge", "openai/stub", "--api-base", stub, "--quiet"]
    assert main([*args, "--cache", str(tmp_path / "c.sqlite"), "--out", str(tmp_path / "run")]) == 0
    printed = compact(capsys.readouterr().out)
    assert "| metric | pass | best constant | oracle | wrong grade |" in printed
    # the first six train tests: always grading 5 (or 1 on the 0/1 metrics) and the oracle, as check-tests gives them
    for metric, constant in [
        ("answer_relevancy", "66.7% (always 5)"),
        ("completeness", "66.7% (always 5)"),
        ("faithfulness", "83.3% (always 1)"),
        ("usefulness", "83.3% (always 1)"),
    ]:
        assert re.search(rf"\| {metric} \| [\d.]+% \| {re.escape(constant)} \| 100\.0% \|", printed), metric
    assert (
        "| **total (mean of the pass rates)** |" in printed and "| 72.2% (always the top grade) | 100.0% |" in printed
    )
    # the conclusion in its place below the table, and again as the last line, after every table and the files
    [line, again] = [line for line in printed.splitlines() if line.startswith("**What this says:**")]
    assert "on these tests" in line and again == line == printed.rstrip("\n").splitlines()[-1]
    run = json.loads((tmp_path / "run" / "run.json").read_text())
    assert run["config"]["baselines"]["always-top"]["total"] == pytest.approx(13 / 18)


def test_the_one_line_says_when_a_judge_is_no_better_than_a_constant():
    """A judge that always grades the top grade ties the always-top constant everywhere; the oracle beats them all."""
    tests = load_tests(None, "train", 6)
    baselines = reference_rates(tests)
    top = run_baseline("always-top", tests)
    top.config = top.config.extended({"baselines": baselines})
    text = summary_markdown(top)
    assert (
        "The judge is no better than a constant on every figure on these tests: answer_relevancy (66.7%; always "
        "grading 5: 66.7%); completeness (66.7%; always grading 5: 66.7%); faithfulness (83.3%; always grading 1: "
        "83.3%)" in text
    )
    oracle = run_baseline("oracle", tests)
    oracle.config = oracle.config.extended({"baselines": baselines})
    assert (
        "On these tests the judge beats every constant on every metric (total 100.0% against 72.2% for always "
        "grading the top grade)" in summary_markdown(oracle)
    )


def test_evaluate_prints_a_row_per_sample_with_its_question_and_each_mean_with_its_scale(tmp_path, stub):
    out = tmp_path / "run"
    result = subprocess.run(
        [sys.executable, "-m", "judges.cli.main", "evaluate", str(SAMPLES), "--judge", "openai/stub"]
        + ["--api-base", stub, "--quiet", "--out", str(out), "--cache", str(tmp_path / "c.sqlite")],
        capture_output=True,
        text=True,
        env=ENV,
        cwd=tmp_path,
        timeout=hang_guard(),
    )
    assert result.returncode == 0, result.stderr
    printed = compact(result.stdout)
    assert "| sample | question | AR | C | F | U | reason |" in printed
    rows = [line.split(" | ")[1] for line in printed.splitlines() if "| How many moons does Mars have" in line]
    assert rows == ["perfect", "wrong", "unsupported-claim", "i-dont-know"]
    assert "| What is the mass of Phobos? |" in printed
    assert re.search(r"\| answer_relevancy \| [\d.]+ on 1-5 \|", printed)
    assert re.search(r"\| faithfulness \| ([\d.]+ on 0-1|n/a \(scale 0-1\)) \|", printed)
    page = (out / "report.html").read_text()
    assert "What is the mass of Phobos?" in page and "Asaph Hall discovered both in August 1877" in page


def test_evaluate_dry_run_calls_nothing(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert (
        main(["evaluate", str(SAMPLES), "--dry-run", "--judge", "openai/x", "--api-base", "http://127.0.0.1:9/v1"]) == 0
    )
    printed = capsys.readouterr().out
    assert printed.startswith("5 samples x 1 draw(s) with openai/x\ndry run: 15-20 calls to make (0 already cached)")
    assert "Nothing was called." in printed and not (tmp_path / "results").exists()


@pytest.mark.parametrize(
    ("args", "first"),
    [
        (["validate", "--min", "total=0.5", "--limit", "4"], "4 unit tests x 1 draw(s) with openai/x"),
        (
            ["probe", "--data", str(SAMPLES), "--probe", "swap_answers"],
            "10 items (5 samples as they are and under each",
        ),
        (
            ["metrics", "--metrics", "ragas_faithfulness,hit_rate", "--data", str(SAMPLES)],
            "5 samples x 2 metrics with openai/x\ndry run: 1 of the 2 metrics ask the judge (ragas_faithfulness): at most 5",
        ),
    ],
)
def test_every_command_that_calls_a_judge_has_a_dry_run(args, first, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main([*args, "--dry-run", "--judge", "openai/x", "--api-base", "http://127.0.0.1:9/v1"]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith(first) and "Nothing was called." in printed and not (tmp_path / "results").exists()


def test_the_metrics_dry_run_counts_only_the_samples_each_metric_applies_to(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rows = [json.loads(line) for line in SAMPLES.read_text().splitlines()][:3]
    del rows[1]["expected_output"]  # context precision needs it: this sample is not judged by that metric
    data = tmp_path / "three.jsonl"
    data.write_text("".join(json.dumps(row) + "\n" for row in rows))
    metrics = "ragas_faithfulness,ragas_context_precision,hit_rate"
    judge = ["--judge", "openai/x", "--api-base", "http://127.0.0.1:9/v1"]
    assert main(["metrics", "--metrics", metrics, "--data", str(data), "--dry-run", *judge]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "3 samples x 3 metrics with openai/x",
        "dry run: 2 of the 3 metrics ask the judge (ragas_faithfulness, ragas_context_precision): at most 5 first "
        "calls, one per sample each applies to; metrics that extract claims or generate questions then ask once per "
        "claim or question. Nothing was called.",
        "  ragas_context_precision applies to 2 of 3 samples (it needs input, references, expected_output)",
    ]


def test_a_dead_endpoint_gives_one_count_of_failed_calls(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake")
    args = ["evaluate", str(SAMPLES), "--judge", "openai/x", "--api-base", "http://127.0.0.1:9/v1", "--quiet"]
    assert main([*args, "--out", "run", "--cache", "c.sqlite"]) == 3
    captured = capsys.readouterr()
    usage = json.loads((tmp_path / "run" / "run.json").read_text())["usage"]
    failed = sum(usage["failures"].values())
    assert failed > 0 and usage["calls"] == usage["failed_calls"] == failed and usage["replies"] == 0
    kinds = ", ".join(f"{n} {kind}" for kind, n in usage["failures"].items())
    line = f"Calls: {failed} (0 from cache, {failed} failed: {kinds})"
    assert line in (tmp_path / "run" / "summary.md").read_text()
    # the count in the one stderr line, and no empty report above it: no item was judged
    assert captured.out == "" and f"; {failed} of {failed} calls failed: {kinds}" in captured.err


def test_unusable_replies_are_failed_calls_in_run_json_as_in_summary_md(tmp_path):
    from conftest import record, reply, run_tests, scripted_judge, write_jsonl

    from judges.suite.loading import load_unit_tests

    def script(request):  # faithfulness replies that cannot be read, asked once more each, the rest well formed
        return "no grade here" if request.metric == "faithfulness" else reply(request.metric, 5)

    judge, backend = scripted_judge(script)
    tests = load_unit_tests(write_jsonl(tmp_path / "t.jsonl", [record(id=f"t{n}") for n in range(3)]))
    run_tests(tests, judge, tmp_path / "run")
    usage = json.loads((tmp_path / "run" / "run.json").read_text())["usage"]
    assert usage["failures"] == {"unparseable": 6}  # three tests, each asked twice
    assert usage["failed_calls"] == 6 and usage["calls"] == usage["replies"] == len(backend.requests) > 6
    line = f"Calls: {usage['calls']} (0 from cache, 6 failed: 6 unparseable)"
    assert line in (tmp_path / "run" / "summary.md").read_text()


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["evalute"], "judgelab: error: no command 'evalute'; did you mean evaluate?"),
        (["--debug", "meta-evl"], "judgelab: error: no command 'meta-evl'; did you mean meta-eval?"),
        (
            ["validate", "--min", "faithfulnes=0.9"],
            "judgelab: error: bad --min 'faithfulnes=0.9': did you mean faithfulness=0.9?",
        ),
        (
            ["probe", "--probe", "swap_answer"],
            "judgelab: error: unknown probe 'swap_answer'; did you mean swap_answers?",
        ),
        (
            ["validate", "--tests", str(SAMPLES), "--min", "total=0.5"],
            f"judgelab: error: {SAMPLES}:1: plain samples, not unit tests (no `conditions`",
        ),
        (["meta-eval", "--judg", "gpt-4o-mini"], "unrecognized arguments: --judg gpt-4o-mini; did you mean --judge?"),
        (["label", "select", "run", "--out", "q", "--se", "1"], "unrecognized arguments: --se 1; did you mean --seed?"),
    ],
)
def test_a_slip_gets_one_line_naming_the_right_name(args, expected, capsys):
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and expected in err


def test_a_run_of_samples_given_in_code_says_so_where_a_file_would_be_named(tmp_path, monkeypatch, capsys):
    from judges.api import grade_samples, load_samples

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    samples = list(load_samples(SAMPLES, limit=2))  # Sample objects: the run reads no file
    with stub_server(latency_ms=1) as base:
        grade_samples(samples, "openai/stub", api_base=base, cache_mode="off", out=tmp_path / "run")
    assert main(["show", str(tmp_path / "run"), "--print"]) == 0
    printed = capsys.readouterr().out
    assert "2 items passed in code, not read from a file." in printed and "None" not in printed
    page = (tmp_path / "run" / "report.html").read_text(encoding="utf-8")
    assert "2 items passed in code, not read from a file;" in page


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (
            ["meta-eval", "--split", "tset"],
            "judgelab meta-eval: error: argument --split: invalid choice: 'tset' (choose from 'train', 'test'); "
            "see judgelab meta-eval --help",
        ),
        (
            ["metrics", "--limit", "ten"],
            "judgelab metrics: error: argument --limit: invalid int value: 'ten'; see judgelab metrics --help",
        ),
        (
            ["label"],
            "judgelab label: error: the following arguments are required: SUBCOMMAND; see judgelab label --help",
        ),
    ],
)
def test_a_value_argparse_refuses_gets_one_line_and_exit_2_not_the_usage(args, expected, capsys):
    with pytest.raises(SystemExit) as stopped:
        main(args)
    assert stopped.value.code == 2 and capsys.readouterr().err.splitlines() == [expected]


def _parsers(parser: argparse.ArgumentParser, name: str = "judgelab"):
    yield name, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child, sub in action.choices.items():
                yield from _parsers(sub, f"{name} {child}")


def test_every_option_of_every_command_has_help_and_no_prefix_is_taken():
    for name, parser in _parsers(build_parser()):
        assert parser.allow_abbrev is False, name
        for action in parser._actions:
            if (
                isinstance(action, (argparse._HelpAction, argparse._SubParsersAction))
                or action.help == argparse.SUPPRESS
            ):
                continue
            assert action.help, (name, action.option_strings or action.dest)
            # no placeholder built from the option's name, such as CORRECTNESS_THRESHOLD
            named = action.metavar is not None or action.choices is not None or action.nargs == 0
            assert named or "_" not in action.dest, (
                name,
                action.option_strings or action.dest,
            )


@pytest.mark.parametrize(
    ("grade", "why", "shown"),
    [
        (1, "all pass", "all pass"),
        (1, "", "graded 1, no reason given"),
        (0, "The moons were found by Galileo [2].", "The moons were found by Galileo [2]."),
        # what the offline judge wrote beside passing grades: set aside, never shown as the reason for a pass
        (1, "none of the above sentences passes", "graded 1; the reason written contradicts the grade"),
        (1, "none of the above is true", "graded 1; the reason written contradicts the grade"),
        (0, "All pass.", "graded 0; the reason written contradicts the grade"),
    ],
)
def test_a_reason_is_the_judges_or_a_plain_line_and_never_contradicts_the_grade(grade, why, shown):
    from judges.records import MetricRecord
    from judges.runs.failures import reason
    from judges.types import Verdict

    reply = json.dumps({"answer_2": {"faithfulness_justification": why, "faithfulness": grade}})
    entry = MetricRecord("faithfulness", Verdict.graded(float(grade), why or None), calls=[{"reply": reply}])
    assert reason(entry).startswith(shown)


def test_a_low_grade_on_a_five_point_scale_keeps_its_reason_even_when_it_says_fails():
    """The contradiction check reads faithfulness's pass/fail reasons only: relevancy graded 1 of 5 "fails" rightly."""
    from judges.records import MetricRecord
    from judges.runs.failures import reason
    from judges.types import Verdict

    why = "The answer fails to address the question."
    entry = MetricRecord("answer_relevancy", Verdict.graded(1.0, why))
    assert reason(entry) == why


def test_the_leaderboard_dry_run_lists_each_pair_and_calls_nothing(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    config = tmp_path / "board.toml"
    config.write_text(
        f"""
[[candidates]]
name = "remote"
model = "openai/x"
api_base = "http://127.0.0.1:9/v1"

[[candidates]]
name = "always-top"
kind = "baseline"
baseline = "always-top"

[[evaluations]]
name = "first-4"
kind = "unit_tests"
source = "{ROOT / "unit_tests" / "test.jsonl"}"
limit = 4
"""
    )
    assert main(["leaderboard", str(config), "--dry-run", "--out", str(tmp_path / "board")]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed[:3] == [
        "[1/2] remote (llm) on first-4:",
        "4 unit tests x 1 draw(s) with openai/x",
        printed[2],
    ] and printed[2].startswith("dry run: 12-16 calls to make (0 already cached)")
    assert printed[-3:] == ["[2/2] always-top (baseline) on first-4:", "  no judge call", "Nothing was called."]
    assert not (tmp_path / "board").exists()


@pytest.mark.parametrize(
    "command",
    [["meta-eval", "--limit", "6"], ["evaluate", str(SAMPLES)], ["probe", "--limit", "3"]],
    ids=["meta-eval", "evaluate", "probe"],
)
def test_after_a_cached_run_the_dry_run_has_no_call_to_make(tmp_path, stub, capsys, monkeypatch, command):
    """The dry run looks each call up as the run does (the same request; a cached reply decides its follow-up): after
    a run, the same command's dry run makes none, and counts every reply the run made as cached."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake")
    judge = ["--judge", "openai/stub", "--api-base", stub, "--cache", str(tmp_path / "c.sqlite")]
    assert main([*command, *judge, "--quiet", "--out", str(tmp_path / "run")]) == 0
    made = json.loads((tmp_path / "run" / "run.json").read_text())["usage"]
    capsys.readouterr()
    assert main([*command, *judge, "--dry-run"]) == 0
    [line] = [line for line in capsys.readouterr().out.splitlines() if line.startswith("dry run: ")]
    assert line.startswith(f"dry run: 0 calls to make ({made['calls']} already cached), ") and made["calls"] > 0


def test_a_dry_run_with_many_draws_is_closed_form_and_draws_are_capped(tmp_path, capsys, monkeypatch):
    from judges.judging.grouse_judge import GroundedQAJudge

    monkeypatch.chdir(tmp_path)
    judge = ["--judge", "openai/x", "--api-base", "http://127.0.0.1:9/v1"]
    rendered = []
    real = GroundedQAJudge.render_all
    monkeypatch.setattr(GroundedQAJudge, "render_all", lambda self, sample: rendered.append(1) or real(self, sample))
    assert main(["evaluate", str(SAMPLES), "--dry-run", "--draws", "100", *judge]) == 0
    assert len(rendered) == 5  # each sample's prompts once, whatever the draws (not 500 times)
    assert capsys.readouterr().out.startswith("5 samples x 100 draw(s) with openai/x\ndry run: 1500-2000 calls")
    assert (
        main(
            ["metrics", "--metrics", "ragas_faithfulness,hit_rate", "--data", str(SAMPLES), "--draws", "3"]
            + ["--dry-run", *judge]
        )
        == 0
    )
    assert capsys.readouterr().out.splitlines()[:2] == [
        "5 samples x 2 metrics x 3 draws with openai/x",
        "dry run: 1 of the 2 metrics ask the judge (ragas_faithfulness): at most 15 first calls, one per sample each "
        "applies to in each of 3 draws (5 per draw); metrics that extract claims or generate questions then ask once "
        "per claim or question. Nothing was called.",
    ]
    for command in (["evaluate", str(SAMPLES)], ["meta-eval"], ["metrics", "--data", str(SAMPLES)]):
        assert main([*command, "--dry-run", "--draws", "1000000", *judge]) == 2
        assert capsys.readouterr().err == "judgelab: error: --draws: expected 1 to 100 draws per item, got 1000000\n"
