"""`judgelab tune --labels`: a scripted judge right only when its prompt shows a failing example is tuned from 50% to
100% held-out balanced accuracy; no held-out item reaches the search; a teacher's run folder serves as the labels;
the CLI against the stub server writes the tuned prompts, the report and the manifest."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest
from conftest import ROOT, hang_guard, reply, serve_double, write_jsonl

from judges.calls.scripted import ScriptedBackend
from judges.config.judge import JudgeConfig
from judges.errors import ConfigError
from judges.tuning.align import AlignJob, align
from judges.tuning.align_report import write_align_report

SYSTEMS = ("sys-a", "sys-b", "sys-c", "sys-d")
ITEMS = [
    {
        "id": f"i{n:02d}",
        "metric": "faithfulness",
        "label": n % 2,
        "label_type": "binary",
        "annotator": "alice",
        "input": f"What does document {n} say about topic {n}?",
        "references": [f"Document {n} says topic {n} is settled."],
        "actual_output": f"Topic {n} is {'settled' if n % 2 else 'unsettled'} [1] (answer {n}).",
        "extra": {"system": SYSTEMS[(n // 2) % 4]},
    }
    for n in range(40)
]
LABEL_OF_ANSWER = {item["actual_output"]: item["label"] for item in ITEMS}


def graded_item(prompt: str) -> str:
    (answer,) = re.findall(r"^Answer 2: (.*)$", prompt, flags=re.M)
    return answer


def student(request):
    """Grades every answer 1, unless the prompt shows a worked example graded 0: then it grades right."""
    prompt = request.messages[0]["content"]
    if "Correct faithfulness grade: 0" in prompt:
        return reply("faithfulness", LABEL_OF_ANSWER[graded_item(prompt)])
    return reply("faithfulness", 1)


@pytest.fixture
def labels_file(tmp_path):
    return write_jsonl(tmp_path / "labels.jsonl", ITEMS)


@pytest.fixture
def space(tmp_path):
    path = tmp_path / "space.toml"
    path.write_text(
        '[search]\nfirst_round_items = 8\n\n[metrics.faithfulness]\nexamples = [0, 2]\nreply_formats = ["as_written"]\n',
        encoding="utf-8",
    )
    return path


def job(tmp_path, labels, space, out="out", progress=lambda message: None, **extra):
    options = JudgeConfig(
        model="scripted/model", prompts="default", cache=str(tmp_path / "cache.sqlite"), json_schema=False
    )
    return AlignJob(
        options=options, out=tmp_path / out, labels=str(labels), space=space, progress=progress, resamples=200, **extra
    )


def test_few_shot_examples_of_the_base_judges_mistakes_lift_held_out_agreement(
    tmp_path, labels_file, space, monkeypatch
):
    backend = serve_double(monkeypatch, ScriptedBackend(student))
    held_out_from: list[int] = []

    def progress(message):
        if message.startswith("base and tuned prompts, once each"):
            held_out_from.append(len(backend.requests))

    outcome = align(job(tmp_path, labels_file, space, progress=progress))
    report = write_align_report(outcome, tmp_path / "out")

    split = outcome.split
    assert len(split.search) + len(split.held_out) == 40
    assert not set(split.search_systems) & set(split.held_out_systems)  # split by system: none on both sides
    by_system = {item["id"]: item["extra"]["system"] for item in ITEMS}
    assert {by_system[i] for i in split.held_out} == set(split.held_out_systems)

    # the examples are the search items the base judge (always 1) got wrong: items labelled 0, never held out
    search = report["search"]["metrics"]["faithfulness"]
    assert search["candidates"] == ["base__ex0__as_written", "base__ex2__as_written"]
    assert search["chosen"] == "base__ex2__as_written"
    shown = search["examples_shown"]
    assert len(shown) == 2 and all(i in split.search and int(i[1:]) % 2 == 0 for i in shown)

    figures = report["held_out"]["faithfulness"]
    assert figures["statistic"] == "balanced_accuracy" and figures["n_items"] == len(split.held_out)
    assert figures["base"]["value"] == 0.5 and figures["tuned"]["value"] == 1.0
    assert figures["constant_judge"] == 0.5
    difference = figures["difference"]
    assert difference["value"] == 0.5 and 0 < difference["ci_low"] <= 0.5 <= difference["ci_high"]

    # no held-out item in any search-phase call, by id (the call log) or by text (the prompts sent)
    calls = [json.loads(line) for line in (tmp_path / "out" / "search" / "calls.jsonl").read_text().splitlines()]
    assert calls and not {c["item"] for c in calls} & set(split.held_out)
    assert {c["item"] for c in calls} == set(split.search)
    held_answers = {item["actual_output"] for item in ITEMS if item["id"] in split.held_out}
    searched = backend.requests[: held_out_from[0]]
    assert searched and not any(a in r.messages[0]["content"] for r in searched for a in held_answers)

    # the tuned folder is a normal prompt folder, with a manifest of where it came from
    from judges.judging.prompts import load_prompt_set

    tuned = load_prompt_set(str(tmp_path / "out" / "prompts"))
    assert "Correct faithfulness grade: 0" in tuned.templates["faithfulness"].source
    manifest = json.loads((tmp_path / "out" / "prompts" / "manifest.json").read_text())
    assert manifest["base_sha256"] == load_prompt_set("default").hashes()
    assert manifest["search_data_sha256"] == outcome.search_sha256
    assert manifest["held_out"]["faithfulness"]["tuned"] == 1.0
    from judges.viewer.pages import run_page

    page = run_page(tmp_path / "out", "runs/tuned-held-out", 1, "", "")
    assert "Prompt provenance" in page and outcome.search_sha256 in page and "1.000" in page
    assert "Prompt provenance" not in run_page(tmp_path / "out", "runs/base-held-out", 1, "", "")
    markdown = (tmp_path / "out" / "report.md").read_text()
    assert "The interval of tuned minus base lies above 0" in markdown
    assert "| a constant judge" in markdown

    # one judged item costs the same number of calls before and after; the prompt grew by the two examples
    base_item, tuned_item = figures["base"]["per_item"], figures["tuned"]["per_item"]
    assert base_item["calls"] == tuned_item["calls"] == 1.0
    assert tuned_item["tokens"] > base_item["tokens"]


def test_a_teacher_run_folder_serves_as_the_labels(tmp_path, labels_file, space, monkeypatch):
    from judges.api import grade_samples
    from judges.labels.io import read_labels

    def teacher(request):
        return reply("faithfulness", LABEL_OF_ANSWER[graded_item(request.messages[0]["content"])])

    serve_double(monkeypatch, ScriptedBackend(teacher))
    samples = [(item.id, item.sample) for item in read_labels(labels_file).items]
    options = JudgeConfig(model="scripted/teacher", prompts="default", cache=str(tmp_path / "t.sqlite"))
    grade_samples(samples, options, metrics=["faithfulness"], out=tmp_path / "teacher-run")

    serve_double(monkeypatch, ScriptedBackend(student))
    outcome = align(job(tmp_path, tmp_path / "teacher-run", space))
    report = write_align_report(outcome, tmp_path / "out")
    assert outcome.labels.annotators() == ["teacher:scripted/teacher"]
    assert len(outcome.labels.items) == 40  # every verdict a grade, one label each
    figures = report["held_out"]["faithfulness"]
    assert figures["base"]["value"] == 0.5 and figures["tuned"]["value"] >= 0.9
    with pytest.raises(ConfigError, match="--columns and its options do not apply"):
        align(job(tmp_path, tmp_path / "teacher-run", space, reading={"columns": "label=x"}))


def test_preference_labels_are_refused_before_any_call(tmp_path, space, monkeypatch):
    backend = serve_double(monkeypatch, ScriptedBackend(student))
    pairs = [
        {**item, "label": 1, "label_type": "preference", "scale": [-1, 1], "actual_output_b": "other"} for item in ITEMS
    ]
    path = write_jsonl(tmp_path / "pairs.jsonl", pairs)
    with pytest.raises(ConfigError, match="pairwise preferences are not tuned"):
        align(job(tmp_path, path, space))
    assert backend.requests == []


def test_the_cli_against_an_openai_compatible_server_writes_prompts_report_and_manifest(tmp_path, labels_file, space):
    from stub import stub_server

    record = tmp_path / "requests.jsonl"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OPENAI_API_KEY": "sk-test-not-a-key"}
    with stub_server(latency_ms=1, record=str(record)) as base:
        result = subprocess.run(
            [
                sys.executable, "-m", "judges.cli.main", "tune",
                "--labels", str(labels_file), "--metrics", "faithfulness", "--space", str(space),
                "--judge", "openai/stub", "--api-base", base, "--prompts", "default",
                "--cache", str(tmp_path / "cache.sqlite"), "--out", str(tmp_path / "tuned"), "--resamples", "200",
            ],
            env=env, capture_output=True, text=True, cwd=tmp_path, timeout=hang_guard(),
        )  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    out = tmp_path / "tuned"
    assert sorted(p.name for p in (out / "prompts").iterdir()) == [
        "answer_relevancy.txt.jinja",
        "completeness.txt.jinja",
        "faithfulness.txt.jinja",
        "manifest.json",
        "usefulness.txt.jinja",
    ]
    report = json.loads((out / "report.json").read_text())
    figures = report["held_out"]["faithfulness"]
    for side in ("base", "tuned"):
        assert figures[side]["value"] is not None and len(figures[side]["ci95"]) == 2
    assert {"value", "ci_low", "ci_high", "n_items"} <= set(figures["difference"])
    assert "Tuned minus base, paired bootstrap on the same items" in result.stdout
    manifest = json.loads((out / "prompts" / "manifest.json").read_text())
    assert manifest["labels"]["spec"] == str(labels_file) and manifest["held_out"]["faithfulness"]

    held_out = {json.loads(line)["id"] for line in (out / "runs" / "base-held-out" / "results.jsonl").open()}
    calls = [json.loads(line) for line in (out / "search" / "calls.jsonl").open()]
    assert len(held_out) == report["split"]["held_out_items"] and not {c["item"] for c in calls} & held_out
    # the server saw the search's calls first, all sent (a fresh cache): none of them about a held-out item
    sent = [json.loads(line) for line in record.open()]
    searched = sent[: report["search"]["new_calls"]]
    held_answers = {item["actual_output"] for item in ITEMS if item["id"] in held_out}
    assert searched and not any(a in json.dumps(body) for body in searched for a in held_answers)
    assert any(a in json.dumps(body) for body in sent[len(searched) :] for a in held_answers)


def test_your_own_csv_with_columns_and_a_decoding_search_through_the_cli(tmp_path, monkeypatch, capsys):
    """Read with --columns like `agreement`; the judge is right only at temperature 0.5, which the search finds."""
    import csv

    from judges.cli.main import main

    def warm(request):
        if request.params.get("temperature") != 0.5:
            return reply("faithfulness", 1)
        return reply("faithfulness", LABEL_OF_ANSWER[graded_item(request.messages[0]["content"])])

    backend = serve_double(monkeypatch, ScriptedBackend(warm))
    path = tmp_path / "mine.csv"
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["key", "question", "doc", "answer", "ok"])
        for item in ITEMS:
            writer.writerow([item["id"], item["input"], item["references"][0], item["actual_output"], item["label"]])
    space = tmp_path / "warm.toml"
    space.write_text("[decoding]\ntemperature = [0.0, 0.5]\n\n[metrics.faithfulness]\n", encoding="utf-8")
    common = ["tune", "--judge", "scripted/model", "--prompts", "default", "--no-json-schema", "--space", str(space)]
    common += ["--cache", str(tmp_path / "c.sqlite"), "--resamples", "200", "--labels", str(path)]
    columns = ["--columns", "id=key,input=question,references=doc,actual_output=answer,label=ok"]

    # a metric the labels do not hold, or --columns without one metric: one line, exit 2, before any call
    labels_file = write_jsonl(tmp_path / "labels.jsonl", ITEMS)
    with_file = [arg if arg != str(path) else str(labels_file) for arg in common]
    assert main([*with_file, "--metrics", "completeness", "--out", str(tmp_path / "x")]) == 2
    assert "no labels for metric 'completeness'" in capsys.readouterr().err
    assert main([*common, *columns, "--label-type", "binary", "--out", str(tmp_path / "x")]) == 2
    assert "mine.csv:2: no metric: name it with --metric (tune: one metric in --metrics)" in capsys.readouterr().err
    assert backend.requests == []

    code = main(
        [*common, *columns, "--label-type", "binary", "--metrics", "faithfulness", "--out", str(tmp_path / "o")]
    )
    assert code == 0
    report = json.loads((tmp_path / "o" / "report.json").read_text())
    assert report["decoding"] == {"chosen": "temperature=0.5", "overrides": {"temperature": 0.5}}
    assert report["split"]["by_system"] is False  # the file names no systems: split by item
    figures = report["held_out"]["faithfulness"]
    assert figures["base"]["value"] == 0.5 and figures["tuned"]["value"] == 1.0
    assert json.loads((tmp_path / "o" / "prompts" / "manifest.json").read_text())["decoding"]["chosen"] == (
        "temperature=0.5"
    )


# --- honest tuning: a verdict that failed is never a figure ------------------------------------------------


def unparseable(request):
    return "I would rather not say."


def parses_with_examples(request):
    """Unparseable replies, unless the prompt shows worked examples: then the right grade."""
    prompt = request.messages[0]["content"]
    if "Worked examples" not in prompt:
        return unparseable(request)
    return reply("faithfulness", LABEL_OF_ANSWER[graded_item(prompt)])


@pytest.mark.parametrize(
    "limit, says",
    [
        ([], "the base prompts' run is degraded"),
        (
            ["--fail-on-error", "1"],
            "faithfulness: no candidate has a figure in round 1 (no grade on any of the 8 items",
        ),
    ],
)
def test_a_tuning_whose_every_verdict_failed_exits_5_with_one_line_and_no_figure(
    tmp_path, labels_file, space, monkeypatch, capsys, limit, says
):
    """Over --fail-on-error the base run stops the tuning; with no limit every candidate has no figure, so none
    is chosen: exit 5 either way, one line, no report, no tuned folder."""
    from judges.cli.main import main

    serve_double(monkeypatch, ScriptedBackend(unparseable))
    out = tmp_path / "out"
    code = main(
        ["tune", "--labels", str(labels_file), "--metrics", "faithfulness", "--space", str(space)]
        + ["--judge", "scripted/model", "--prompts", "default", "--no-json-schema", "--resamples", "200"]
        + ["--cache", str(tmp_path / "c.sqlite"), "--out", str(out), *limit]
    )
    captured = capsys.readouterr()
    lines = [line for line in captured.err.splitlines() if not line.startswith("judgelab tune: ")]
    assert code == 5 and len(lines) == 1 and lines[0].startswith("judgelab: error: ") and says in lines[0]
    assert captured.out == "" and "chose " not in captured.err
    assert not (out / "report.md").exists() and not (out / "prompts").exists()


def test_a_base_that_graded_nothing_has_no_figure_nor_a_difference(tmp_path, labels_file, space, monkeypatch):
    """The base's every verdict fails, the prompt with examples parses: the base has no figure (n/a, with why),
    is never chosen, and tuned minus base is n/a with its reason, not a gain over failures counted wrong."""
    serve_double(monkeypatch, ScriptedBackend(parses_with_examples))
    tuning = job(tmp_path, labels_file, space)
    tuning.options = tuning.options.merged(fail_on_error=None)  # the base's failures do not stop this tuning
    outcome = align(tuning)
    report = write_align_report(outcome, tmp_path / "out")

    search = report["search"]["metrics"]["faithfulness"]
    first = search["rounds"][0]
    assert [(s["candidate"], s["value"], s["no_figure"]) for s in first["scores"]] == [
        ("base__ex2__as_written", 1.0, None),
        ("base__ex0__as_written", None, "no grade on any of the 8 items: 8 failed, mostly unparseable"),
    ]
    assert first["kept"] == ["base__ex2__as_written"] and search["chosen"] == "base__ex2__as_written"

    n = len(outcome.split.held_out)
    figures = report["held_out"]["faithfulness"]
    assert figures["base"]["value"] is None and figures["base"]["graded_share"] == 0.0
    assert figures["base"]["no_figure"] == f"no grade on any of the {n} items: {n} failed, mostly unparseable"
    assert figures["tuned"]["value"] == 1.0 and figures["tuned"]["no_figure"] is None
    difference = figures["difference"]
    assert (difference["value"], difference["ci_low"], difference["ci_high"], difference["n_items"]) == (
        None,
        None,
        None,
        0,
    )
    assert difference["reason"] == f"the base prompts graded none of the {n} items"
    assert figures["on_search_items"]["base"] is None
    markdown = (tmp_path / "out" / "report.md").read_text()
    assert f"Tuned minus base: n/a (the base prompts graded none of the {n} items)." in markdown
    assert "agree better" not in markdown and "n/a (no grade on any of the" in markdown


def test_the_paired_difference_rests_on_the_items_both_sides_graded():
    from judges.agreement.predictions import Prediction, Predictions
    from judges.labels.schema import LabelledItem, LabelledSet, LabelType
    from judges.tuning.align_measure import paired_difference
    from judges.types import Sample, VerdictState

    sample = Sample(input="q", references=(), expected_output="", actual_output="a")
    labels = LabelledSet(
        "six",
        tuple(
            LabelledItem(f"i{k}", "faithfulness", float(k % 2), LabelType.BINARY, (0.0, 1.0), "h", sample)
            for k in range(6)
        ),
    )

    def judged(failed: set[int]) -> Predictions:
        return Predictions(
            {
                (f"i{k}", None): Prediction(f"i{k}", VerdictState.FAILURE, None, "unparseable")
                if k in failed
                else Prediction(f"i{k}", VerdictState.GRADE, float(k % 2))
                for k in range(6)
            }
        )

    # right wherever it graded: a failure is left out, not counted as a wrong grade that the tuned prompts "fix"
    difference = paired_difference(labels, judged({0}), judged(set()), "balanced_accuracy", resamples=200)
    assert (difference["value"], difference["ci_low"], difference["ci_high"]) == (0.0, 0.0, 0.0)
    assert (difference["n_items"], difference["n_held_out"], difference["reason"]) == (5, 6, None)
    nothing = paired_difference(labels, judged(set()), judged(set(range(6))), "balanced_accuracy", resamples=200)
    assert nothing["value"] is None and nothing["reason"] == "the tuned prompts graded none of the 6 items"
    apart = paired_difference(labels, judged({0, 1, 2}), judged({3, 4, 5}), "balanced_accuracy", resamples=200)
    assert apart["value"] is None and apart["reason"] == "no item was graded by both"


def test_a_plain_labels_file_is_tuned_with_label_type_and_one_metric(tmp_path, space, monkeypatch, capsys):
    """id, input, references, actual_output, label: no metric and no label type in the file; --metrics names the
    one metric and --label-type the labels, and a partial --columns keeps every other default column name."""
    from judges.cli.main import main

    serve_double(monkeypatch, ScriptedBackend(student))
    fields = ("id", "input", "references", "actual_output", "label")
    plain = write_jsonl(tmp_path / "plain.jsonl", [{k: item[k] for k in fields} for item in ITEMS])
    common = ["tune", "--labels", str(plain), "--judge", "scripted/model", "--prompts", "default", "--no-json-schema"]
    common += ["--space", str(space), "--cache", str(tmp_path / "c.sqlite"), "--resamples", "200"]

    code = main([*common, "--metrics", "faithfulness", "--label-type", "binary", "--out", str(tmp_path / "o")])
    assert code == 0, capsys.readouterr().err
    report = json.loads((tmp_path / "o" / "report.json").read_text())
    figures = report["held_out"]["faithfulness"]
    assert figures["base"]["value"] == 0.5 and figures["tuned"]["value"] == 1.0
    assert report["split"]["search_items"] + report["split"]["held_out_items"] == 40

    # no label type named: faithfulness grades pass/fail, so its labels are read as binary
    assert main([*common, "--metrics", "faithfulness", "--out", str(tmp_path / "x")]) == 0
    plain_report = json.loads((tmp_path / "x" / "report.json").read_text())
    assert plain_report["held_out"] == report["held_out"] and plain_report["split"] == report["split"]

    code = main(
        [*common, "--columns", "metric=const:faithfulness", "--label-type", "binary", "--out", str(tmp_path / "p")]
    )
    assert code == 0, capsys.readouterr().err
    again = json.loads((tmp_path / "p" / "report.json").read_text())
    assert again["held_out"]["faithfulness"]["tuned"]["value"] == 1.0 and again["split"] == report["split"]


def test_a_tuned_folder_whose_runs_are_degraded_is_reported_and_exits_5(
    tmp_path, labels_file, space, monkeypatch, capsys
):
    """The tuned prompts fail on a quarter of the items (over --fail-on-error 0.1): the report is written, its
    difference on the items both sides graded, and the command ends like any degraded run: exit 5, one line."""
    from judges.cli.main import main

    def flaky_student(request):
        prompt = request.messages[0]["content"]
        if "Worked examples" in prompt and int(re.findall(r"\(answer (\d+)\)\.$", graded_item(prompt))[0]) % 4 == 1:
            return unparseable(request)
        return student(request)

    serve_double(monkeypatch, ScriptedBackend(flaky_student))
    out = tmp_path / "out"
    code = main(
        ["tune", "--labels", str(labels_file), "--metrics", "faithfulness", "--space", str(space)]
        + ["--judge", "scripted/model", "--prompts", "default", "--no-json-schema", "--resamples", "200"]
        + ["--cache", str(tmp_path / "c.sqlite"), "--out", str(out)]
    )
    captured = capsys.readouterr()
    lines = [line for line in captured.err.splitlines() if not line.startswith("judgelab tune: ")]
    assert code == 5 and len(lines) == 1, captured.err
    assert re.fullmatch(
        rf"judgelab: degraded run: {re.escape(str(out))}/runs/tuned-(search|held-out): \d+ of \d+ faithfulness "
        r"verdicts failed \(\d+%, over --fail-on-error 0\.1\), mostly unparseable \(\d+\)",
        lines[0],
    )
    report = json.loads((out / "report.json").read_text())
    assert report["search"]["metrics"]["faithfulness"]["chosen"] == "base__ex2__as_written"
    difference = report["held_out"]["faithfulness"]["difference"]
    held = report["split"]["held_out_items"]
    failed = held - round(report["held_out"]["faithfulness"]["tuned"]["graded_share"] * held)
    assert failed > 0 and difference["n_items"] == held - failed and difference["n_held_out"] == held
    assert captured.out.startswith("# judgelab tune --labels: scripted/model")


@pytest.mark.parametrize("budget", [5, 21, 25, 30, 40])
def test_the_search_on_labels_never_sends_more_calls_than_its_budget(budget, tmp_path, labels_file, space, monkeypatch):
    """A budget below the base run's least need (a call per search item) is refused before any call; otherwise the
    calls sent before the tuned prompts' own run (the base run and the rounds) never pass it."""
    backend = serve_double(monkeypatch, ScriptedBackend(student))
    searched: list[int] = []

    def progress(message):
        if message == "tuned prompts on the search items":
            searched.append(len(backend.requests))

    try:
        align(job(tmp_path, labels_file, space, progress=progress, budget_calls=budget))
    except ConfigError as err:
        assert "cannot pay for the base run alone" in str(err) or "is spent by the base run alone" in str(err)
        searched.append(len(backend.requests))
        if "cannot pay" in str(err):
            assert backend.requests == []
    assert searched and searched[0] <= budget
