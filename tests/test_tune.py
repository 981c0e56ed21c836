"""`judgelab tune`: a scripted judge that is right on completeness only under one variant; the search finds it on
train, the test split is read once after the choice, a repeated search makes no call, a dry run calls nothing."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from conftest import ROOT, reply, serve_double

from judges.calls.scripted import ScriptedBackend
from judges.config.judge import JudgeConfig
from judges.errors import ConfigError
from judges.suite.loading import load_unit_tests
from judges.tuning.pipeline import TuneJob, tune
from judges.tuning.search import Score, halve, schedule
from judges.tuning.tuning_report import write_report

MARK = "Count every fact."  # only the good variant says this, and the scripted judge grades well only then
TRAIN = load_unit_tests(ROOT / "unit_tests" / "train.jsonl")
TEST = load_unit_tests(ROOT / "unit_tests" / "test.jsonl")[:16]


def right_grade(condition) -> float | None:
    """A grade meeting the condition (the scripted judge's answer when it is right)."""
    for grade in (None, 5.0, 4.0, 3.0, 1.0, 0.0):
        if condition.accepts(grade):
            return grade
    raise AssertionError(condition)


def unit_test_for(prompt: str):
    """The unit test a prompt asks about: its question, its references, and its answer under test as answer 2."""
    (found,) = [
        t
        for t in [*TRAIN, *TEST]
        if f"Question: {t.sample.input}\n" in prompt
        and f"Answer 2: {t.sample.actual_output}\n" in prompt
        and all(f"] {reference}\n" in prompt for reference in t.sample.references)
        and f"[{len(t.sample.references) + 1}] " not in prompt.split("Question:")[0]
    ]
    return found


def script(request):
    if request.metric == "completeness" and MARK not in request.messages[0]["content"]:
        return reply("completeness", 3)  # the base prompt: always 3, right only where the condition is '<5'
    return right_reply(request)


def right_reply(request):
    test = unit_test_for(request.messages[0]["content"])
    metric = request.metric
    grade = right_grade(test.conditions[metric])
    value = None if grade is None else int(grade)
    if metric == "answer_relevancy":
        return reply(metric, value, answer_affirms_no_document_answers=value is None)
    return reply(metric, value)


@pytest.fixture
def folder(tmp_path):
    """A unit-test folder: the shipped train split, and 16 tests of the test split."""
    tests = tmp_path / "suite"
    tests.mkdir()
    shutil.copy(ROOT / "unit_tests" / "train.jsonl", tests / "train.jsonl")
    lines = (ROOT / "unit_tests" / "test.jsonl").read_text(encoding="utf-8").splitlines()[:16]
    (tests / "test.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return tests


@pytest.fixture
def space(tmp_path):
    base = (ROOT / "prompts" / "default" / "completeness.txt.jinja").read_text(encoding="utf-8")
    variants = tmp_path / "space" / "variants" / "completeness"
    variants.mkdir(parents=True)
    good = base.replace("Metric: COMPLETENESS.", f"Metric: COMPLETENESS. {MARK}")
    (variants / "good.txt.jinja").write_text(good, encoding="utf-8")
    path = tmp_path / "space" / "tune.toml"
    path.write_text(
        '[search]\nfirst_round_tests = 4\n\n[metrics.completeness]\ninstructions = ["base", "good"]\n'
        'reply_formats = ["as_written", "grade_only"]\n',
        encoding="utf-8",
    )
    return path


@pytest.fixture
def backend(monkeypatch):
    """The scripted judge behind the same backend interface every run opens (no server, no network)."""
    return serve_double(monkeypatch, ScriptedBackend(script))


def job(tmp_path, folder, space, out="out", **extra):
    options = JudgeConfig(model="scripted/model", cache=str(tmp_path / "cache.sqlite"), json_schema=False)
    return TuneJob(options=options, out=tmp_path / out, tests=folder, space=space, **extra)


def passes_with(grade, tests, metric="completeness"):
    return sum(t.conditions[metric].accepts(grade) for t in tests)


def test_tune_finds_the_better_variant_on_train_and_reports_once_on_test(tmp_path, folder, space, backend, monkeypatch):
    import judges.api
    import judges.tuning.pipeline

    loads = []
    real = judges.api.load_tests

    def spy(source=None, split=None, limit=None):
        loads.append((split, len(backend.requests)))
        return real(source, split, limit)

    monkeypatch.setattr(judges.tuning.pipeline, "load_tests", spy)  # where the search reads the splits
    outcome = tune(job(tmp_path, folder, space))
    report = write_report(outcome, tmp_path / "out")

    # the search ran on train only: the test split was read once, after every train call
    assert [split for split, _ in loads] == ["train", "test"]
    searched = backend.requests[: loads[1][1]]
    test_questions = {t.sample.input for t in TEST} - {t.sample.input for t in TRAIN}
    assert searched and not any(q in r.messages[0]["content"] for r in searched for q in test_questions)
    assert any(q in r.messages[0]["content"] for r in backend.requests[loads[1][1] :] for q in test_questions)

    # four candidates, halved to two on 8 tests, then the winner: the good variant, grade only (cheaper prompt)
    search = report["search"]["metrics"]["completeness"]
    assert search["candidates"] == [
        "base__ex0__as_written",
        "base__ex0__grade_only",
        "good__ex0__as_written",
        "good__ex0__grade_only",
    ]
    assert [(r["tests"], r["kept"]) for r in search["rounds"]] == [
        (4, ["good__ex0__grade_only", "good__ex0__as_written"]),
        (8, ["good__ex0__grade_only"]),
    ]
    assert search["chosen"] == "good__ex0__grade_only" and search["ended"] == "one left"

    # the tuned folder is a normal prompt folder; only completeness changed
    from judges.judging.prompts import check_renders, load_prompt_set

    tuned = load_prompt_set(str(tmp_path / "out" / "prompts"))
    check_renders(tuned, (t.sample for t in TRAIN))
    default = load_prompt_set("default")
    assert MARK in tuned.templates["completeness"].source
    assert tuned.templates["completeness"].reply_format == "grade_only"
    assert {m: t.source for m, t in tuned.templates.items() if m != "completeness"} == {
        m: t.source for m, t in default.templates.items() if m != "completeness"
    }

    # base versus tuned on both splits, with exact figures
    figures = report["figures"]["completeness"]
    assert figures["base"]["train"]["passed"] == passes_with(3.0, TRAIN) == 8
    assert figures["tuned"]["train"]["passed"] == figures["tuned"]["train"]["n"] == 32
    assert figures["base"]["test"]["passed"] == passes_with(3.0, TEST) and figures["base"]["test"]["n"] == 16
    assert figures["tuned"]["test"]["pass_rate"] == 1.0
    assert figures["tuned"]["train_minus_test"] == 0.0
    low, high = figures["base"]["train"]["ci95"]
    assert round(low, 4) == 0.1325 and round(high, 4) == 0.4211  # Wilson, 8 of 32
    flipped = report["flipped"]["test"]
    assert {f["metric"] for f in flipped} <= {"completeness", "positive_acceptance", "negative_rejection"}
    completeness = [f for f in flipped if f["metric"] == "completeness"]
    assert len(completeness) == 16 - passes_with(3.0, TEST) and all(f["tuned"] == "pass" for f in flipped)
    assert report["test_split"]["sha256"] == hashlib.sha256((folder / "test.jsonl").read_bytes()).hexdigest()
    markdown = (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    assert "## Flipped on test: " + str(len(flipped)) in markdown
    assert "The test split was never used to choose" in markdown
    assert json.loads((tmp_path / "out" / "report.json").read_text())["search"]["new_calls"] > 0
    manifest = json.loads((tmp_path / "out" / "prompts" / "manifest.json").read_text())
    assert manifest["base_sha256"] == default.hashes()
    assert manifest["search_data_sha256"] == hashlib.sha256((folder / "train.jsonl").read_bytes()).hexdigest()
    assert manifest["held_out"]["completeness"]["tuned"] == 1.0

    # a repeated search takes the same path from the cache and sends nothing
    sent = len(backend.requests)
    again = write_report(tune(job(tmp_path, folder, space, out="again")), tmp_path / "again")
    assert len(backend.requests) == sent
    assert again["search"]["new_calls"] == again["test_runs"]["new_calls"] == 0
    assert again["search"]["calls_needed"] == report["search"]["calls_needed"]
    assert again["search"]["metrics"] == report["search"]["metrics"]


def test_a_call_budget_stops_the_search_and_keeps_the_last_rounds_leader(tmp_path, folder, space, backend):
    """The base run on train needs 102 calls, round 1 twelve (three new candidates x 4 tests): round 2's projected
    6 calls (2 candidates x 4 new tests x 0.75, round 1's calls per candidate-test) do not fit in 118."""
    first = write_report(tune(job(tmp_path, folder, space, budget_calls=118)), tmp_path / "out")
    search = first["search"]["metrics"]["completeness"]
    assert [r["tests"] for r in search["rounds"]] == [4]
    assert search["ended"] == "budget"
    assert search["message"] == "round 2 would need about 6 calls; 4 of --budget-calls 118 are left"
    assert search["chosen"] == "good__ex0__grade_only"


def test_dry_run_estimates_and_calls_nothing(tmp_path, folder, space, backend, capsys):
    from judges.cli.main import main

    code = main(
        ["tune", "--judge", "scripted/model", "--no-json-schema", "--prompts", "default", "--tests", str(folder)]
        + ["--space", str(space), "--metrics", "completeness", "--cache", str(tmp_path / "c.sqlite")]
        + ["--out", str(tmp_path / "out"), "--dry-run"]
    )
    printed = capsys.readouterr().out
    assert code == 0 and backend.requests == [] and not (tmp_path / "out").exists()
    assert "completeness: 4 candidates, rounds (candidates x tests) 4 x 4, 2 x 8: about 20 calls" in printed
    assert "test split: 16 tests, base and tuned once each: at most 80 calls" in printed
    assert printed.rstrip().endswith("Nothing was called.")


def tune_args(tmp_path, folder, space, out="out", *extra):
    judge = ["--judge", "scripted/model", "--no-json-schema", "--cache", str(tmp_path / "c.sqlite")]
    suite = ["--tests", str(folder), "--space", str(space), "--metrics", "completeness"]
    return ["tune", *judge, *suite, "--out", str(tmp_path / out), *extra]


def test_after_a_tune_run_the_dry_run_has_no_call_to_make(tmp_path, folder, space, backend, capsys):
    """The dry run rehearses the whole job from the cache: after the same tune, every reply of the search (whose
    later rounds follow from the replies) and of the test-split runs is cached, and it says so, calling nothing."""
    from judges.cli.main import main

    assert main(tune_args(tmp_path, folder, space, "out", "--test-limit", "8")) == 0
    capsys.readouterr()
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    made = sum(report[part]["new_calls"] + report[part]["cached_calls"] for part in ("search", "test_runs"))
    sent = len(backend.requests)
    assert sent == report["search"]["new_calls"] + report["test_runs"]["new_calls"] > 0

    assert main(tune_args(tmp_path, folder, space, "dry", "--test-limit", "8", "--dry-run")) == 0
    assert capsys.readouterr().out == (
        f"dry run: 0 calls to make ({made} already cached): the search and the test-split runs replay from the "
        "cache. Nothing was called.\n"
    )
    assert len(backend.requests) == sent and not (tmp_path / "dry").exists()

    # the whole test split: its runs lack replies, so the rehearsal stops at the first and the plan is printed
    assert main(tune_args(tmp_path, folder, space, "dry", "--dry-run")) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("tune completeness with scripted/model on 32 train tests\nbase on train: 0 calls to make")
    assert "test split: 16 tests, base and tuned once each: at most 80 calls" in printed
    assert len(backend.requests) == sent and not (tmp_path / "dry").exists()


def test_a_dry_run_on_an_empty_cache_prints_the_plan_and_sends_nothing(tmp_path, folder, space, backend, capsys):
    from judges.calls.cache import ReplyCache
    from judges.cli.main import main

    ReplyCache(tmp_path / "c.sqlite").close()  # the cache file exists: the rehearsal runs, and misses at once
    assert main(tune_args(tmp_path, folder, space, "out", "--dry-run")) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("tune completeness with scripted/model on 32 train tests\n")
    assert "base on train: 96-128 calls to make (0 already cached)" in printed
    assert printed.rstrip().endswith("Nothing was called.")
    assert backend.requests == [] and not (tmp_path / "out").exists()


def test_a_rehearsal_sends_no_call_whatever_its_cache_mode(tmp_path, folder, space, backend):
    """`replay_only` stops every call at the runtime, before any backend, even for runs given a read-write cache:
    the rehearsal itself, on an empty cache, asks the backend nothing."""
    import asyncio

    from judges.calls.allowance import replay_only
    from judges.calls.backend import CompletionRequest
    from judges.calls.cache import ReplyCache
    from judges.calls.runtime import CallRuntime
    from judges.errors import ReplayMiss
    from judges.tuning.tune_rehearsal import rehearse

    direct = ScriptedBackend(lambda request: reply("completeness", 3))
    cache = ReplyCache(tmp_path / "cache.sqlite")
    request = CompletionRequest("scripted/model", ({"role": "user", "content": "q"},))
    for runtime in (CallRuntime(direct, metered=True), CallRuntime(direct, cache, metered=True)):
        with replay_only(), pytest.raises(ReplayMiss, match=r"^replay mode: no recorded reply for a scripted/model"):
            asyncio.run(runtime.call(request))
    assert direct.requests == []
    asyncio.run(CallRuntime(direct, cache).call(request))  # outside: sent, and cached
    with replay_only():
        assert asyncio.run(CallRuntime(direct, cache).call(request)).cached
    assert len(direct.requests) == 1
    cache.close()

    # the job's cache holds one reply, none of the job's: the rehearsal misses on its first call and asks nothing
    assert rehearse(job(tmp_path, folder, space, metrics=["completeness"])) is None
    assert backend.requests == [] and not (tmp_path / "out").exists()


def test_one_budget_only(tmp_path, folder, space, backend, capsys):
    from judges.cli.main import main

    code = main(["tune", "--out", str(tmp_path), "--budget-calls", "10", "--max-cost", "1"])
    assert code == 2 and "give one budget: --budget-calls or --max-cost" in capsys.readouterr().err


def test_halving_keeps_the_better_half_and_breaks_ties_by_cost():
    quality = {"a": 1, "b": 3, "c": 3, "d": 0, "e": 2}
    tokens = {"a": 10, "b": 50, "c": 20, "d": 10, "e": 10}
    seen = []

    def evaluate(names, tests):
        seen.append((list(names), tests))
        return [Score(n, quality[n] * tests, 4 * tests, None, None, tokens[n], 100, i) for i, n in enumerate(names)]

    result = halve(list(quality), 16, 4, evaluate, lambda *_: None)
    assert seen == [(["a", "b", "c", "d", "e"], 4), (["c", "b", "e"], 8), (["c", "b"], 16)]
    assert result.winner == "c" and result.ended == "tests used up"
    assert schedule(12, 30, 4) == [(12, 4), (6, 8), (3, 16), (2, 30)]
    assert schedule(1, 30, 4) == [(1, 4)]


def test_space_keys_are_checked_with_the_nearest_name(tmp_path):
    from judges.tuning.space import load_space

    path = tmp_path / "t.toml"
    path.write_text("[metrics.completeness]\nexampels = [0]\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"unknown key 'metrics.completeness.exampels'; did you mean 'examples'\?"):
        load_space(path)
    path.write_text("[metrics.completnes]\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"unknown key 'metrics.completnes'; did you mean 'completeness'\?"):
        load_space(path)
    path.write_text('[metrics.faithfulness]\nreply_formats = ["grade_last"]\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"metrics.faithfulness.reply_formats\[0\]: input should be"):
        load_space(path)


def test_the_shipped_space_builds_loadable_candidates_for_every_metric():
    from judges.judging.prompts import SAMPLE_VARIABLES, PromptTemplate, load_prompt_set
    from judges.tuning.candidates import build_candidates, example_pool
    from judges.tuning.space import load_space

    space, root = load_space()
    base = load_prompt_set("default")
    for metric, metric_space in space.metric_spaces().items():
        pool = example_pool(metric, metric_space, TRAIN)
        candidates = build_candidates(metric, base.templates[metric].source, space, root, pool)
        assert len(candidates) == 12 and candidates[0].is_base and len(pool) == 2
        assert len({c.source for c in candidates}) == 12
        for candidate in candidates:
            template = PromptTemplate(metric, Path(f"{candidate.name}.txt.jinja"), candidate.source)
            template.check_variables(set(SAMPLE_VARIABLES), required=("actual_output",))
            rendered = template.render(
                **{"input": "Q", "contexts": ["r"], "expected_output": "E", "actual_output": "A"}
            )
            assert ("Worked examples" in rendered) == (candidate.examples == 2)


def test_tuning_docs_list_every_space_key():
    import re

    from judges.files.toml_config import keys_at
    from judges.tuning.space import Decoding, Metrics, MetricSpace, Search, TuneSpace

    text = (ROOT / "docs" / "tuning.md").read_text(encoding="utf-8")
    for heading, kind in [
        ("### Top level", TuneSpace),
        ("### `[search]`", Search),
        ("### `[decoding]`", Decoding),
        ("### `[metrics]`", Metrics),
        ("### `[metrics.<metric>]`", MetricSpace),
    ]:
        section = text.split(heading, 1)[1].split("\n#", 1)[0]
        assert set(re.findall(r"^\| `([a-z_0-9]+)` \|", section, re.M)) == keys_at(kind, ()), heading


def test_a_cost_limit_spent_by_the_base_run_is_one_line_and_exit_4(tmp_path, folder, space, monkeypatch, capsys):
    from judges.cli.main import main

    double = serve_double(monkeypatch, ScriptedBackend(script, cost_per_call=0.01))
    code = main(
        ["tune", "--judge", "scripted/model", "--no-json-schema", "--tests", str(folder), "--space", str(space)]
        + ["--cache", str(tmp_path / "c.sqlite"), "--out", str(tmp_path / "out"), "--max-cost", "0.05"]
    )
    err = capsys.readouterr().err
    assert code == 4 and "--max-cost 0.05 USD is spent by the base run on train alone" in err
    assert 5 <= len(double.requests) < 20 and not (tmp_path / "out" / "report.md").exists()


def test_decoding_settings_are_searched_after_the_templates_and_used_on_test(tmp_path, folder, monkeypatch):
    double = serve_double(monkeypatch, ScriptedBackend(warm))  # right on completeness only at temperature 0.5
    space = tmp_path / "decoding.toml"
    space.write_text("[decoding]\ntemperature = [0.0, 0.5]\n\n[metrics.completeness]\n", encoding="utf-8")
    report = write_report(tune(job(tmp_path, folder, space)), tmp_path / "out")
    assert report["decoding"] == {"chosen": "temperature=0.5", "overrides": {"temperature": 0.5}}
    assert [r["kept"] for r in report["search"]["decoding_rounds"]] == [["temperature=0.5"]]
    assert report["figures"]["completeness"]["tuned"]["test"]["pass_rate"] == 1.0
    assert {r.params["temperature"] for r in double.requests[-16:]} == {0.5}


def warm(request):
    if request.metric == "completeness" and request.params.get("temperature") != 0.5:
        return reply("completeness", 3)
    return right_reply(request)


def test_a_cost_limit_reached_in_a_round_discards_it_and_keeps_the_base(tmp_path, folder, space, monkeypatch):
    serve_double(monkeypatch, ScriptedBackend(script, cost_per_call=0.01))
    report = write_report(tune(job(tmp_path, folder, space, max_cost=1.10)), tmp_path / "out")
    search = report["search"]["metrics"]["completeness"]
    assert search["rounds"] == [] and search["chosen"] == "base__ex0__as_written"
    assert (
        search["ended"] == "budget"
        and search["message"] == "the budget (--max-cost or --budget-calls) stopped a round; its figures are not used"
    )
    assert report["flipped"] == {"train": [], "test": []}
    assert report["search"]["budget"] == {"budget_calls": None, "max_cost": 1.1}
    assert 1.02 <= report["search"]["cost_usd"] <= 1.10 + 0.04  # calls in flight when the limit is hit finish


def test_the_command_writes_the_folder_and_the_report(tmp_path, folder, space, backend, capsys):
    from judges.cli.main import main

    out = tmp_path / "out"
    code = main(
        ["tune", "--judge", "scripted/model", "--no-json-schema", "--tests", str(folder), "--space", str(space)]
        + ["--cache", str(tmp_path / "c.sqlite"), "--out", str(out), "--budget-calls", "400"]
    )
    printed = capsys.readouterr().out
    assert code == 0 and printed.startswith("# judgelab tune: scripted/model\n")
    assert f"wrote {out}/report.md, report.json, prompts/, runs/" in printed
    assert sorted(p.name for p in (out / "runs").iterdir()) == ["base-test", "base-train", "tuned-test", "tuned-train"]
    assert json.loads((out / "report.json").read_text())["search"]["budget"] == {"budget_calls": 400, "max_cost": None}


# --- honest tuning: a candidate that graded nothing has no figure and is never chosen ---------------------------


def test_halving_never_keeps_a_candidate_without_a_figure_and_chooses_none_when_all_lack_one():
    def evaluate(names, tests):
        return [
            Score(n, 0, tests, None, None, 1, 1, i, missing=f"no verdict on any of the {tests} tests")
            if n.startswith("broken")
            else Score(n, 1, tests, None, None, 1, 1, i)
            for i, n in enumerate(names)
        ]

    result = halve(["broken-a", "broken-b", "working"], 8, 4, evaluate, lambda *_: None)
    assert [r.kept for r in result.rounds] == [["working"]] and result.winner == "working"
    assert result.rounds[0].scores[0].to_dict()["pass_rate"] == 0.25
    assert result.rounds[0].scores[1].to_dict()["pass_rate"] is None  # listed as n/a, not 0

    nothing = halve(["broken-a", "broken-b"], 8, 4, evaluate, lambda *_: None)
    assert nothing.winner is None and nothing.ended == "nothing graded"
    assert nothing.message == "no candidate has a figure in round 1 (no verdict on any of the 4 tests); none is chosen"


def grade_only_unparseable(request):
    """The base's script, but a completeness prompt asking for the grade alone gets a reply that does not parse."""
    if request.metric == "completeness" and "completeness_justification" not in request.messages[0]["content"]:
        return "no"
    return script(request)


def test_a_reply_format_the_judge_cannot_follow_has_no_figure_and_is_not_chosen(tmp_path, folder, space, monkeypatch):
    serve_double(monkeypatch, ScriptedBackend(grade_only_unparseable))
    tuning = job(tmp_path, folder, space)
    tuning.options = tuning.options.merged(fail_on_error=None)
    report = write_report(tune(tuning), tmp_path / "out")
    search = report["search"]["metrics"]["completeness"]
    first = search["rounds"][0]
    assert {s["candidate"]: s["no_figure"] for s in first["scores"]} == {
        "good__ex0__as_written": None,
        "base__ex0__as_written": None,
        "base__ex0__grade_only": "no verdict on any of the 4 tests: 4 failed, mostly unparseable",
        "good__ex0__grade_only": "no verdict on any of the 4 tests: 4 failed, mostly unparseable",
    }
    assert first["kept"] == ["good__ex0__as_written", "base__ex0__as_written"]
    assert search["chosen"] == "good__ex0__as_written"
    markdown = (tmp_path / "out" / "report.md").read_text()
    row = next(line for line in markdown.splitlines() if line.startswith("| good__ex0__grade_only "))
    cells = [cell.strip() for cell in row.split("|")[2:4]]
    assert cells == ["n/a", "n/a (no verdict on any of the 4 tests: 4 failed, mostly unparseable)"]  # not 0/4


def test_a_dry_run_after_unusable_replies_counts_the_calls_a_rerun_makes_again(
    tmp_path, folder, space, monkeypatch, capsys
):
    """Unusable replies are dropped from the cache, so a rerun asks them again: the rehearsal misses there and the
    dry run prints the plan, not 0 calls; the rerun then does send calls."""
    from judges.cli.main import main

    double = serve_double(monkeypatch, ScriptedBackend(grade_only_unparseable))
    args = [*tune_args(tmp_path, folder, space, "out", "--test-limit", "4"), "--fail-on-error", "1"]
    assert main(args) == 0
    sent = len(double.requests)
    capsys.readouterr()
    assert main([*args, "--dry-run"]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("tune completeness with scripted/model on 32 train tests\nbase on train: 0 calls to make")
    assert "dry run: 0 calls" not in printed and len(double.requests) == sent
    assert main(args) == 0
    assert len(double.requests) > sent


def test_a_unit_test_tuning_whose_every_verdict_failed_exits_5_with_one_line(
    tmp_path, folder, space, monkeypatch, capsys
):
    from judges.cli.main import main

    serve_double(monkeypatch, ScriptedBackend(lambda request: "no"))
    out = tmp_path / "out"
    code = main(
        ["tune", "--judge", "scripted/model", "--no-json-schema", "--tests", str(folder), "--space", str(space)]
        + ["--cache", str(tmp_path / "c.sqlite"), "--out", str(out)]
    )
    captured = capsys.readouterr()
    lines = [line for line in captured.err.splitlines() if not line.startswith("judgelab tune: ")]
    assert code == 5 and len(lines) == 1 and "the base prompts' run is degraded" in lines[0]
    assert captured.out == "" and not (out / "report.md").exists() and not (out / "prompts").exists()


@pytest.mark.parametrize("prompts", ["default", "compact", "grouse"])
def test_every_rewrite_of_a_shipped_prompt_set_keeps_its_templates_variables(prompts):
    """Examples and reply formats rewrite a template's last paragraph: GroUSE's holds the question and the
    answers, which a rewrite must keep (every candidate of the shipped space, each variable of the base)."""
    import importlib.util

    import jinja2
    import jinja2.meta

    from judges.judging.prompts import load_prompt_set
    from judges.tuning.candidates import Example, build_candidates
    from judges.tuning.space import load_space

    if prompts == "grouse" and importlib.util.find_spec("grouse") is None:
        pytest.skip("grouse files not installed")

    def variables(source: str) -> set[str]:
        return jinja2.meta.find_undeclared_variables(jinja2.Environment().parse(source))

    space, root = load_space()
    base = load_prompt_set(prompts)
    examples = [Example("Q {{ input }}?", "A.", 1.0, ("R.",)), Example("Q2?", "A2.", 0.0)]
    for metric in space.metric_spaces():
        source = base.templates[metric].source
        candidates = build_candidates(metric, source, space, root, examples)
        assert len(candidates) == 12
        for candidate in candidates:
            assert variables(source) <= variables(candidate.source), (prompts, metric, candidate.name)
            if prompts == "grouse" and candidate.instruction == "base":  # its whole sample section, in order
                assert source.rpartition("[/EVALUATION INSTRUCTIONS]")[2].strip() in candidate.source


def test_the_call_allowance_refuses_the_call_that_would_pass_it():
    import asyncio

    from judges.calls.allowance import call_allowance
    from judges.calls.backend import CompletionRequest
    from judges.calls.runtime import CallRuntime
    from judges.errors import BudgetExhausted

    backend = ScriptedBackend(lambda request: reply("completeness", 3))
    runtime = CallRuntime(backend, metered=True)

    async def ask(n):
        for k in range(n):
            await runtime.call(CompletionRequest("scripted/model", ({"role": "user", "content": f"q{k}"},)))

    with call_allowance(2):
        with pytest.raises(BudgetExhausted, match=r"^--budget-calls 2 reached: the next call would pass it$"):
            asyncio.run(ask(3))
    assert len(backend.requests) == 2
    asyncio.run(ask(3))  # outside the allowance: no cap
    assert len(backend.requests) == 5


def test_a_budget_below_the_base_run_is_refused_before_any_call(tmp_path, folder, space, backend):
    with pytest.raises(
        ConfigError, match=r"^--budget-calls 50 cannot pay for the base run on train alone: its 32 tests"
    ):
        tune(job(tmp_path, folder, space, budget_calls=50))
    assert backend.requests == []


@pytest.mark.parametrize("budget", [103, 110, 116, 120, 124])
def test_the_search_never_sends_more_calls_than_its_budget(budget, tmp_path, folder, space, backend, monkeypatch):
    """The calls sent before the tuned folder's own run on train (the search: base run and rounds) never pass the
    budget, whatever the rounds' projections."""
    import judges.tuning.runner

    searched = []
    real = judges.tuning.runner.CandidateRunner.run

    def spy(self, folder, tests, **kwargs):
        if kwargs.get("out") is not None and kwargs["out"].name == "tuned-train" and not searched:
            searched.append(len(backend.requests))
        return real(self, folder, tests, **kwargs)

    monkeypatch.setattr(judges.tuning.runner.CandidateRunner, "run", spy)
    try:
        tune(job(tmp_path, folder, space, budget_calls=budget))
    except ConfigError as err:  # the base run itself stopped at the budget: nothing chosen
        assert "is spent by the base run on train alone" in str(err)
        searched.append(len(backend.requests))
    assert searched and searched[0] <= budget


def test_tunings_reading_of_a_run_streams_its_records_with_the_same_figures(tmp_path, monkeypatch):
    """A candidate's score, the calls counted and logged, and the verdicts measured against labels: read from a run
    folder record by record (never the whole run in memory), with the same figures and the same item order when
    results.jsonl holds the records in another order (as a concurrent run writes them)."""
    from labelling_helpers import graded_run, samples_file

    from judges.runs.run import Run
    from judges.tuning.align_measure import run_predictions
    from judges.tuning.align_search import CallLog
    from judges.tuning.runner import Ledger, score

    data = samples_file(tmp_path / "mine.jsonl", 12, {1, 4, 7})
    folder = graded_run(tmp_path / "run", data, "judge", lambda prompt: 0 if "FLAGGED" in prompt else 1)

    def read() -> tuple[Score, list, int, list]:
        run = Run.load(folder)
        log = CallLog()
        log.add(run, "base")
        predictions = run_predictions(run, "faithfulness").by_key
        return (
            score("base", run, ["faithfulness"], {"faithfulness": "x"}, 0),
            log.rows,
            Ledger().add(run),
            [(key, p.score, p.state) for key, p in predictions.items()],
        )

    expected = read()
    results = folder / "results.jsonl"
    results.write_text("".join(reversed(results.read_text().splitlines(keepends=True))))
    monkeypatch.setattr(Run, "records", property(lambda run: pytest.fail("a whole run was read into memory")))
    assert read() == expected
    scored, rows, needed, predictions = expected
    assert scored.n == 12 and needed == 12 and [row["item"] for row in rows] == [f"s{i:02d}" for i in range(12)]
    assert [key for key, *_ in predictions] == [(f"s{i:02d}", None) for i in range(12)]
