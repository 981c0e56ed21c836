"""A confidence on every verdict and the judge's consistency with itself over draws: the modal verdict of K draws
and the share that gave it, Krippendorff's alpha over draws (hand-computed, and against the `krippendorff`
package), `evaluate --draws` against a loopback stub, and `evaluate --cascade` asking the strong judge only about
what the cheap one did not keep (two stubs counting requests)."""

from __future__ import annotations

import json
from pathlib import Path

import krippendorff
import numpy as np
import pytest
from conftest import write_jsonl
from labelling_helpers import samples_file
from stub import stats, stub_server

from judges.cli.main import main
from judges.labelling.queue import read_queue
from judges.records import Consistency, ItemRecord, MetricRecord, Summary
from judges.records.draws import MetricConsistency
from judges.runs.modal_draws import modal_record
from judges.runs.summarizer import summarize
from judges.stats.self_agreement import draw_consistency, self_alpha
from judges.types import FailureKind, Outcome, Verdict

GRADE, NULL, FAILED = Verdict.graded, Verdict.null("no answer"), Verdict.failed(FailureKind.TIMEOUT, "slow")


def drawn(*verdicts: Verdict) -> list[MetricRecord]:
    return [MetricRecord("m", v, calls=[{"call": n}]) for n, v in enumerate(verdicts)]


def test_the_modal_verdict_of_k_draws_carries_the_share_of_draws_that_gave_it():
    record = modal_record(drawn(GRADE(4), GRADE(2), GRADE(4)))
    assert (record.verdict, record.confidence) == (GRADE(4), pytest.approx(2 / 3))
    assert record.draws == [GRADE(4), GRADE(2), GRADE(4)] and [c["call"] for c in record.calls] == [0, 1, 2]
    # a failed draw gave no grade: one of three draws said 3 (a tie with the null goes to the earlier draw)
    tied = modal_record(drawn(FAILED, GRADE(3), NULL))
    assert (tied.verdict, tied.confidence) == (GRADE(3), pytest.approx(1 / 3))
    null = modal_record(drawn(NULL, GRADE(1), NULL))
    assert (null.verdict, null.confidence) == (NULL, None)  # a null carries no confidence
    failed = modal_record(drawn(FAILED, FAILED))
    assert failed.verdict.is_failure and failed.confidence is None


# six items x three draws (a failed draw is missing data); hand-computed on the coincidence matrix:
# pairable grades: (1,1), (0,1), (1,1), (0,0), (1,1) from the item with a null -> o00 = 2, o01 = o10 = 1, o11 = 6,
# n0 = 3, n1 = 7, n = 10: alpha = 1 - (n - 1) * 2 / (2 * n0 * n1) = 1 - 18 / 42 = 4 / 7
ITEMS = [
    [GRADE(1), GRADE(1)],
    [GRADE(0), GRADE(1)],
    [GRADE(1), GRADE(1), FAILED],
    [GRADE(0), GRADE(0)],
    [FAILED, GRADE(1)],  # one verdict left: not compared
    [NULL, GRADE(1), GRADE(1)],  # a null then grades: the verdict changed
]


def test_consistency_over_draws_equals_the_hand_computed_values():
    assert draw_consistency(ITEMS) == MetricConsistency(items=5, changed=2 / 5, self_alpha=pytest.approx(4 / 7))


def test_self_agreement_equals_the_krippendorff_package_on_missing_data():
    items = [[1, 1, 1], [2, 3, 2], [5, 5], [4, 2, 4], [3], [1, 2, 1]]
    data = np.full((3, len(items)), np.nan)
    for unit, grades in enumerate(items):
        data[: len(grades), unit] = grades
    expected = krippendorff.alpha(reliability_data=data, level_of_measurement="ordinal")
    assert self_alpha(items) == pytest.approx(expected, abs=1e-12)
    assert self_alpha([[2, 2], [2, 2, 2], [4]]) is None  # every pairable grade the same: undefined


def test_the_summary_counts_consistency_from_the_records_and_reads_it_back():
    records = [ItemRecord(f"i{n}", {"m": modal_record(drawn(*draws))}, n) for n, draws in enumerate(ITEMS)]
    unasked = MetricRecord("m", Verdict.null("not judged: answer relevancy is graded"), draws=[NULL, NULL])
    summary = summarize([*records, ItemRecord("never asked", {"m": unasked}, 9)], "grade")
    assert summary.consistency == Consistency(3, {"m": draw_consistency(ITEMS)})
    assert Summary.from_json(json.loads(json.dumps(summary.to_json())), "grade") == summary
    line = json.loads(records[0].to_json_line())
    assert line["metrics"]["m"]["confidence"] == 1.0 and len(line["metrics"]["m"]["draws"]) == 2
    assert ItemRecord.from_json_line(records[0].to_json_line()) == records[0]
    assert summarize(records[:1], "grade").consistency is not None
    old = {"id": "x", "metrics": {"m": {"verdict": {"state": "grade", "grade": 1.0}, "calls": []}}}
    assert ItemRecord.from_json(old).metrics["m"].confidence is None  # folders written before load unchanged


def test_meta_evals_draws_give_its_consistency_from_one_record_per_draw():
    records = [
        ItemRecord(f"t{n}", {"m": MetricRecord("m", verdict, calls=[{"call": 1}], outcome=Outcome.PASS)}, n, draw)
        for n, draws in enumerate(ITEMS)
        for draw, verdict in enumerate(draws)
    ]
    assert summarize(records, "unit_tests").consistency == Consistency(3, {"m": draw_consistency(ITEMS)})


def test_the_run_summary_imports_its_self_agreement_from_below_the_run_core():
    from test_architecture import import_graph

    from judges import plugins

    graph = import_graph()
    assert "statistics" not in plugins.GROUPS  # no plug-in group standing in for an import the layers forbid
    assert "judges.stats.self_agreement" in graph["judges.runs.summarizer"]
    assert not any(
        m.startswith("judges.agreement") for name in graph if name.startswith("judges.stats") for m in graph[name]
    )


def evaluate(base: str, data: Path, out: Path, cache: Path, *extra: str, model: str = "openai/stub") -> int:
    return main(
        ["evaluate", str(data), "--model", model, "--api-base", base, "--cache", str(cache), "--quiet"]
        + ["--out", str(out), *extra]
    )


def verdicts(folder: Path, metric: str = "faithfulness") -> dict[str, MetricRecord]:
    lines = (folder / "results.jsonl").read_text().splitlines()
    return {r.id: r.metrics[metric] for r in map(ItemRecord.from_json_line, lines)}


def test_evaluate_with_draws_asks_each_draw_and_writes_a_confidence_per_verdict(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    data = samples_file(tmp_path / "s.jsonl", n=4)
    with stub_server(latency_ms=1) as base:
        assert evaluate(base, data, tmp_path / "once", tmp_path / "c.sqlite") == 0
        once = stats(base, reset=True)["requests"]
        assert evaluate(base, data, tmp_path / "run", tmp_path / "c.sqlite", "--draws", "3") == 0
        asked = stats(base).get("requests", 0)
    assert asked == 2 * once  # the first draw's replies from the cache; the two others each their own requests
    graded = [r for r in map(ItemRecord.from_json_line, (tmp_path / "run/results.jsonl").read_text().splitlines())]
    for record in graded:
        for entry in record.metrics.values():
            assert entry.draws is not None and len(entry.draws) == 3
            assert (entry.confidence is not None) == (entry.value is not None)
    run = json.loads((tmp_path / "run/run.json").read_text())
    assert run["config"]["draws"] == 3 and run["summary"]["consistency"]["draws"] == 3
    summary = (tmp_path / "run/summary.md").read_text()
    assert "## Consistency over 3 draws" in summary and " (1.00) |" in summary  # the confidence beside a grade
    assert "Consistency over 3 draws" in (tmp_path / "run/report.html").read_text()


@pytest.mark.parametrize("labels_agree", [True, False])
def test_evaluate_cascade_asks_the_strong_judge_only_what_the_cheap_one_did_not_keep(
    tmp_path, monkeypatch, labels_agree
):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    data = samples_file(tmp_path / "s.jsonl", n=40)
    with stub_server(latency_ms=1) as cheap_url, stub_server(latency_ms=1) as strong_url:
        for name, url in (("cheap", cheap_url), ("strong", strong_url)):
            run = (url, data, tmp_path / name, tmp_path / f"{name}.sqlite", "--draws", "3")
            assert evaluate(*run, model=f"openai/{name}") == 0
        cheap = verdicts(tmp_path / "cheap")
        assert all(entry.confidence == 1.0 for entry in cheap.values())  # the stub replies alike to every draw
        rows = [
            {"id": i, "metric": "faithfulness", "label_type": "binary", "scale": [0, 1]}
            | {"label": int(entry.value if labels_agree else 1 - entry.value)}  # type: ignore[operator]
            for i, entry in cheap.items()
        ]
        labels = write_jsonl(tmp_path / "labels.jsonl", rows)
        judges = ["--predictions", f"cheap={tmp_path / 'cheap'}", "--predictions", f"strong={tmp_path / 'strong'}"]
        calibrate = ["cascade", "calibrate", "--labels", str(labels), "--target", "0.85", *judges]
        assert main([*calibrate, "--out", str(tmp_path / "calibration")]) == 0
        stats(cheap_url, reset=True), stats(strong_url, reset=True)
        cascade = ["--cascade", str(tmp_path / "calibration/calibration.json")]
        assert evaluate(cheap_url, data, tmp_path / "cascade", tmp_path / "fresh.sqlite", *cascade) == 0
        asked = {"cheap": stats(cheap_url).get("requests", 0), "strong": stats(strong_url).get("requests", 0)}
    # the cheap judge: faithfulness alone on 40 items, 3 draws each (its run config's); the strong one none. When
    # the labels disagree, neither judge gets a threshold: a judge that keeps nothing is never called
    assert asked == {"cheap": 120 if labels_agree else 0, "strong": 0}
    decisions = [json.loads(line) for line in (tmp_path / "cascade/decisions.jsonl").read_text().splitlines()]
    assert [d["id"] for d in decisions] == [f"s{i:02d}" for i in range(40)]
    if labels_agree:
        assert all(d["decided_by"] == "cheap" and d["verdict"] == cheap[d["id"]].value for d in decisions)
    else:  # the stub grades alike whichever model it plays: both judges disagree and keep nothing
        assert all(d["decided_by"] is None for d in decisions)
        queue = read_queue(tmp_path / "cascade/queue.jsonl")  # the escalated items, as `label serve` opens them
        assert [item.id for item in queue] == [f"s{i:02d}" for i in range(40)]
        assert queue[0].sample.actual_output == "Fact 0 is 0 [1]."


def test_calibration_of_stated_confidences_is_hand_computed():
    from judges.agreement.confidence_calibration import ReliabilityBin, confidence_calibration

    found = confidence_calibration("m", [0.95, 0.95, 0.65, 0.6, 1.0, 0.1], [True, False, True, False, True, False])
    assert found is not None
    # Brier: (0.05^2 + 0.95^2 + 0.35^2 + 0.6^2 + 0 + 0.1^2) / 6; ECE: (0.1 + 0.6 + 0.35 + 3 * 0.3) / 6
    assert (found.n, found.brier, found.ece) == (6, pytest.approx(1.3975 / 6), pytest.approx(1.95 / 6))
    assert found.bins == [
        ReliabilityBin(0.0, 0.1, 1, 0.1, 0.0),
        ReliabilityBin(0.5, 0.6, 1, 0.6, 0.0),
        ReliabilityBin(0.6, 0.7, 1, 0.65, 1.0),
        ReliabilityBin(0.9, 1.0, 3, pytest.approx(2.9 / 3), pytest.approx(2 / 3)),
    ]
    assert confidence_calibration("m", [], []) is None


def test_agreement_reports_calibration_where_predictions_state_confidences(tmp_path, capsys):
    rows = [{"id": f"i{n}", "metric": "faithfulness", "label": n % 2, "label_type": "binary"} for n in range(6)]
    labels = write_jsonl(tmp_path / "labels.jsonl", rows)
    said = [(1, 0.9), (1, 0.8), (0, 0.7), (1, 0.6), (0, 1.0), (1, 0.55)]  # wrong on i0 only
    judged = [{"id": f"i{n}", "score": s, "confidence": c} for n, (s, c) in enumerate(said)]
    predictions = write_jsonl(tmp_path / "p.jsonl", judged)
    out = tmp_path / "agreement"
    assert main(["agreement", "--labels", str(labels), "--predictions", str(predictions), "--out", str(out)]) == 0
    found = json.loads((out / "agreement.json").read_text())["confidence_calibration"]["faithfulness"]
    agreed = np.array([0, 1, 1, 1, 1, 1])
    confidences = np.array([0.9, 0.8, 0.7, 0.6, 1.0, 0.55])
    assert found["brier"] == pytest.approx(float(np.mean((confidences - agreed) ** 2)))
    assert [b["n"] for b in found["bins"]] == [2, 1, 1, 1, 1]
    assert "How well the judge's confidence is calibrated" in (out / "agreement.md").read_text()


def test_a_grade_from_logprobs_carries_the_likeliest_grades_probability_as_its_confidence():
    import math

    from rag_helpers import LogprobBackend, score
    from test_rag_critiques import SAMPLE, grade

    from judges.calls.scripted import by_metric

    steps = json.dumps({"steps": ["Look.", "Grade."]})
    backend = LogprobBackend(
        by_metric({"rubric_steps": steps, "rubric_grade": grade(5)}),
        {"rubric_grade": {"5": math.log(0.4), "4": math.log(0.2), "2": math.log(0.2), "The": math.log(0.2)}},
    )
    result, _ = score("rubric_coherence", SAMPLE, backend=backend, logprobs=True)
    assert result.confidence == pytest.approx(0.5)  # 0.4 of the 0.8 the grade tokens hold
    backend = LogprobBackend(
        by_metric({"aspect_critique": grade("no")}),
        {"aspect_critique": {"No": math.log(0.5), "Yes": math.log(0.3), "The": math.log(0.2)}},
    )
    result, _ = score("ragas_aspect_coherence", SAMPLE, backend=backend, logprobs=True)
    assert result.confidence == pytest.approx(0.625)  # "no": 0.5 / (0.5 + 0.3)
    result, _ = score("ragas_aspect_coherence", SAMPLE, backend=backend, logprobs=False)
    assert result.confidence is None  # a grade read from the reply's text states none


def test_metrics_with_draws_ask_each_draw_and_record_the_modal_value(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    data = samples_file(tmp_path / "s.jsonl", n=3)
    asked = {}
    with stub_server(latency_ms=1) as base:
        for draws in (1, 2):
            out = tmp_path / f"run{draws}"
            command = ["metrics", "--data", str(data), "--metrics", "llamaindex_faithfulness", "--model", "openai/stub"]
            command += ["--api-base", base, "--cache", str(tmp_path / "c.sqlite"), "--quiet", "--out", str(out)]
            assert main([*command, "--draws", str(draws)]) == 0
            asked[draws] = stats(base, reset=True).get("requests", 0)
    assert asked == {1: 3, 2: 3}  # the first draw's replies from the cache, the second draw asked anew
    second = verdicts(tmp_path / "run2", "llamaindex_faithfulness")
    assert all(entry.draws is not None and len(entry.draws) == 2 for entry in second.values())
    assert all(entry.confidence in (0.5, 1.0) for entry in second.values() if entry.value is not None)
