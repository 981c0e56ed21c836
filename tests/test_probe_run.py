"""Probe runs end to end: a position-biased scripted judge, a constant one, and the loopback stub server."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from conftest import ROOT, hang_guard, scripted_judge, write_jsonl

from judges.probes.framing import AUTHORITY, RESTATEMENT
from judges.probes.probe_registry import shipped_probes
from judges.probes.probe_settings import ProbeSettings
from judges.probes.task import ProbeTask
from judges.probes.text_surgery import cited, sentences
from judges.runs.run_writer import FolderRecorder
from judges.runs.service import run_task
from judges.types import Sample

REFS = [
    "Statutory maternity leave lasts 52 weeks.",
    "Maternity pay covers thirty nine weeks.",
    "Employees give notice fifteen weeks before the due date.",
]
ANSWERS = [
    "Maternity leave lasts 52 weeks [1]. Maternity pay covers thirty nine weeks [2].",
    "Employees give notice fifteen weeks before [3]. Statutory leave lasts 52 weeks [1].",
    "Maternity pay covers thirty nine weeks [2]. Notice comes fifteen weeks before the due date [3].",
]


def samples(count: int = 9) -> list[tuple[str, Sample]]:
    return [
        (
            f"s{n}",
            Sample(
                input=f"What are the maternity rules? ({n})",
                references=tuple(REFS),
                expected_output=ANSWERS[(n + 1) % 3],
                actual_output=ANSWERS[n % 3],
            ),
        )
        for n in range(count)
    ]


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) > 3}


def content_grades(answer: str, references: list[str]) -> dict[str, int]:
    """A keyword reader (a test double, not a judge): a cited sentence is supported when most of its words are in the reference it cites;
    completeness grows with the supported facts, faithfulness is 0 when one cited sentence is not supported."""
    supported, unsupported = 0, 0
    for phrase in (RESTATEMENT, AUTHORITY):  # a preface that states nothing is read as nothing
        answer = answer.replace(phrase, "")
    for sentence in sentences(answer):
        numbers = cited(sentence)
        if not numbers:
            continue  # a sentence that cites nothing states nothing here
        words = _words(re.sub(r"\[[\d, ]+\]", "", sentence))
        source = set().union(*(_words(references[n - 1]) for n in numbers if 1 <= n <= len(references)))
        if words and len(words & source) >= 0.6 * len(words):
            supported += 1
        else:
            unsupported += 1
    return {
        "answer_relevancy": 5,
        "completeness": min(5, 1 + 2 * supported),
        "faithfulness": int(unsupported == 0),
        "usefulness": 1,
    }


def parts(prompt: str) -> tuple[list[str], str, str]:
    references = re.findall(r"^\[\d+\] (.*)$", prompt.split("Question:")[0], flags=re.M)
    first = re.search(r"Answer 1: (.*?)\n\nAnswer 2: ", prompt, re.S)
    second = re.search(r"Answer 2: (.*?)\n\nMetric:", prompt, re.S)
    assert first and second
    return references, first.group(1), second.group(1)


def position_biased(request: Any) -> str:
    """Grades each answer on its content, but answer 2 one point lower on the 1-5 scales than answer 1 would get."""
    references, first, second = parts(request.messages[0]["content"])
    metric = request.metric
    one, two = content_grades(first, references)[metric], content_grades(second, references)[metric]
    if metric in ("answer_relevancy", "completeness"):
        two = max(1, two - 1)
    return _reply(metric, one, two)


def _reply(metric: str, one: int, two: int) -> str:
    flags = {"answer_affirms_no_document_answers": False, "answer_contains_related_information": False}
    return json.dumps(
        {
            "answer_1": {**flags, f"{metric}_justification": "read", metric: one},
            "answer_2": {**flags, f"{metric}_justification": "read", metric: two},
        }
    )


def rates(run: Any) -> dict[tuple[str, str], Any]:
    return {(row.probe, row.metric): row for row in run.summary.part.rows}


def test_a_position_biased_judge_fails_the_swap_probe_and_holds_on_the_others(tmp_path):
    judge, _ = scripted_judge(position_biased)
    task = ProbeTask(samples(), shipped_probes(), judge)
    run = run_task(task, judge.runtime, FolderRecorder(tmp_path / "run"), {"judge": "scripted"})
    found = rates(run)
    plan = run.config.settings(ProbeSettings.of).probe_plan
    applied = plan["applied"]
    assert set(applied.values()) == {9} and plan["skipped"] == {}
    for metric in ("answer_relevancy", "completeness"):
        assert found["swap_answers", metric].rate == 0.0 and found["swap_answers", metric].n == 9
    for (probe, metric), row in found.items():
        if metric == "usefulness":  # judged only when relevancy is null: never here
            assert (row.n, row.rate) == (0, None)
        elif row.measures == "bias":  # a grade at the ceiling cannot go higher: such pairs are skipped
            assert row.rate in (None, 1.0) and row.n <= row.pairs == applied[probe], (probe, metric, row)
        elif probe != "swap_answers":
            assert row.rate == 1.0, (probe, metric, row)
            assert row.n == applied[probe] == row.pairs and row.failed == 0
        assert row.oracle == 1.0
        assert row.constant == (0.0 if row.measures == "sensitivity" else 1.0)
    low, high = found["swap_answers", "completeness"].low, found["swap_answers", "completeness"].high
    assert low == 0.0 and 0.29 < high < 0.31  # Wilson's upper bound for 0 of 9
    summary = (tmp_path / "run" / "summary.md").read_text()
    assert "| swap_answers" in summary and "constant judge" in summary
    copies = sum(applied.values())
    assert f"The {9 + copies} items are 9 samples judged as they are and {copies} perturbed copies" in summary
    assert "## Where each probe applied" in summary
    page = (tmp_path / "run" / "report.html").read_text()
    assert page.count('data-outcome="missed"') == 18  # 9 pairs x (relevancy, completeness)
    assert "original: completeness" in page and "swap_answers: completeness" in page


def test_a_constant_judge_is_perfectly_invariant_and_never_sensitive(tmp_path):
    judge, _ = scripted_judge(
        lambda request: _reply(request.metric, *(2 * [{"faithfulness": 1}.get(request.metric, 5)]))
    )
    run = run_task(ProbeTask(samples(3), shipped_probes(), judge), judge.runtime, None, {"judge": "constant"})
    for row in run.summary.part.rows:
        if row.metric == "usefulness":
            continue  # not asked while relevancy is graded
        if row.measures == "bias":  # every original at the ceiling: no pair could show a raise
            assert (row.rate, row.n, row.pairs) == (None, 0, 3), row
            continue
        assert row.rate == (1.0 if row.measures == "invariance" else 0.0), row
        assert row.n == 3


def test_every_report_counts_the_skips_per_probe_and_reason(tmp_path):
    bare = Sample(
        input="Q?",
        references=(REFS[0],),
        expected_output=ANSWERS[0],
        actual_output="No document seems to precisely answer your question.",
    )
    judge, _ = scripted_judge(
        lambda request: _reply(request.metric, *(2 * [{"faithfulness": 1}.get(request.metric, 5)]))
    )
    run = run_task(
        ProbeTask([*samples(2), ("bare", bare)], shipped_probes(), judge),
        judge.runtime,
        FolderRecorder(tmp_path / "run"),
        {"judge": "constant"},
    )
    meta = json.loads((tmp_path / "run" / "run.json").read_text())
    plan = meta["config"]["probe_plan"]
    assert plan["samples"] == 3 and plan["skipped"]["shuffle_references"] == {"fewer than two references": 1}
    assert plan["skipped"]["authority_framing"] == {
        "the answer abstains: it must begin with the abstention sentence": 1
    }
    assert run.summary.n_items == 3 + sum(plan["applied"].values())
    summary = (tmp_path / "run" / "summary.md").read_text()
    page = (tmp_path / "run" / "report.html").read_text()
    for shown in (summary, page):
        assert "fewer than two references (1)" in shown
    assert f"The {run.summary.n_items} items are 3 samples judged as they are" in summary
    assert f"the {run.summary.n_items} items: 3 samples as they are" in page


def test_a_failed_call_is_counted_apart_never_as_a_miss(tmp_path):
    def script(request: Any) -> str:
        if "Greenland" in request.messages[0]["content"] and request.metric == "faithfulness":
            return "no json here"
        return position_biased(request)

    judge, _ = scripted_judge(script)
    probes = [p for p in shipped_probes() if p.name == "unsupported_claim"]
    run = run_task(ProbeTask(samples(3), probes, judge), judge.runtime, None, {"judge": "scripted"})
    (row,) = run.summary.part.rows
    assert (row.n, row.failed, row.rate) == (0, 3, None)


def test_judgelab_probe_against_the_stub_server_writes_the_report_with_the_pairs_that_missed(tmp_path):
    from stub import stub_server

    data = write_jsonl(
        tmp_path / "data.jsonl",
        [
            {
                "id": name,
                "input": s.input,
                "references": list(s.references or ()),
                "expected_output": s.expected_output,
                "actual_output": s.actual_output,
            }
            for name, s in samples(6)
        ],
    )
    out = tmp_path / "run"
    with stub_server(latency_ms=1) as base:
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "judges.cli.main",
                "probe",
                "--judge",
                "openai/stub",
                "--api-base",
                base,
                "--data",
                str(data),
                "--out",
                str(out),
                "--cache-mode",
                "off",
                "--quiet",
            ],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            env=_env(),
            timeout=hang_guard(),
        )
    assert result.returncode == 0, result.stderr
    assert {p.name for p in out.iterdir()} >= {"results.jsonl", "run.json", "summary.md", "report.html"}
    meta = json.loads((out / "run.json").read_text())
    assert meta["kind"] == "probes" and meta["summary"]["probes"]["originals"] == 6
    missed = sum(len(row["missed"]) for row in meta["summary"]["probes"]["rows"])
    assert missed > 0  # the stub grades at random
    page = (out / "report.html").read_text()
    assert page.count('data-outcome="missed"') == missed and "Raw reply:" in page
    assert "| probe" in result.stdout


def _env() -> dict[str, str]:
    import os

    return {**os.environ, "PYTHONPATH": str(ROOT), "OPENAI_API_KEY": "stub-key"}


def test_probe_refuses_tests_and_data_together(tmp_path):
    from judges.cli.main import main

    assert main(["probe", "--tests", "x.jsonl", "--data", "y.jsonl", "--quiet"]) == 2
    assert main(["probe", "--probe", "nope"]) == 2
    assert Path(ROOT / "judges" / "cli" / "probe_cmd.py").is_file()


def test_the_tally_pairs_records_in_any_order_and_keeps_none_of_them():
    import gc
    import weakref

    from judges.probes.analysis import ProbeTally

    judge, _ = scripted_judge(position_biased)
    run = run_task(ProbeTask(samples(4), shipped_probes(), judge), judge.runtime, None, {"judge": "scripted"})
    assert run.summary.part is not None and any(row.missed for row in run.summary.part.rows)
    records = list(run.records)
    # every perturbed item before its original: each waits, then pairs when its original comes
    tally = ProbeTally()
    for record in [r for r in records if r.probe != "original"] + [r for r in records if r.probe == "original"]:
        tally.add(record)
    assert tally.result() == run.summary.part and tally.waiting == {}
    kept = [weakref.ref(r) for r in records]
    expected = run.summary.part
    tally = ProbeTally()
    for record in records:
        tally.add(record)
    del run, records, record
    gc.collect()
    assert [ref for ref in kept if ref() is not None] == []  # the tally holds no record
    assert tally.result() == expected


def test_the_tally_lists_the_first_pairs_missed_and_counts_every_one(monkeypatch, tmp_path):
    from judges.probes import analysis
    from judges.probes.analysis import ProbeTally

    judge, _ = scripted_judge(position_biased)
    run = run_task(
        ProbeTask(samples(9), shipped_probes(), judge), judge.runtime, FolderRecorder(tmp_path / "run"), {"judge": "s"}
    )
    unbounded = {(row.probe, row.metric): row.missed for row in run.summary.part.rows}
    monkeypatch.setattr(analysis, "LISTED", 3)
    tally = ProbeTally()
    for record in run.iter_records():
        tally.add(record)
    rows = tally.result().rows
    assert max(len(missed) for missed in unbounded.values()) > 3  # some row misses more than the tally lists
    for row in rows:
        assert row.missed == unbounded[(row.probe, row.metric)][:3]  # the first to finish, in that order
        assert row.misses == len(unbounded[(row.probe, row.metric)])  # every miss still counted
    summary = (tmp_path / "run" / "summary.md").read_text()
    assert f"## Pairs that missed ({sum(len(m) for m in unbounded.values())})" in summary
