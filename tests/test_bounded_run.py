"""A run that does not hold its records: streamed to results.jsonl, summarized as they finish, and a report.html
that lists a bounded number of rows however large the run (every row stays in results.jsonl)."""

import json
import re

from conftest import ROOT, reply, scripted_judge

from judges.calls.scripted import by_metric
from judges.render.report_items import MAX_ROWS
from judges.runs.run import Run
from judges.runs.run_writer import FolderRecorder
from judges.runs.service import run_task
from judges.runs.summarizer import summarize
from judges.suite.loading import load_unit_tests
from judges.suite.unit_test_task import UnitTestTask

N_TESTS = 48  # 48 tests x 6 metrics = 288 rows: more than the page lists


def bounded_run(tmp_path):
    tests = load_unit_tests(ROOT / "unit_tests" / "test.jsonl")[:N_TESTS]
    script = by_metric({m: reply(m, g) for m, g in [("answer_relevancy", 5), ("completeness", 5), ("faithfulness", 1)]})
    judge, _ = scripted_judge(script)
    return run_task(UnitTestTask(tests, judge), judge.runtime, FolderRecorder(tmp_path / "run"), {"judge": "scripted"})


def test_a_run_with_a_folder_holds_no_records_and_its_summary_is_that_of_results_jsonl(tmp_path):
    run = bounded_run(tmp_path)
    assert run.held is None  # nothing kept in memory: the records are read from the folder when asked
    assert run.summary.n_items == N_TESTS
    lines = (tmp_path / "run" / "results.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == N_TESTS
    assert summarize(Run.load(tmp_path / "run").iter_records(), "unit_tests") == run.summary
    assert [r.order for r in run.records] == list(range(N_TESTS))  # read in item order when asked for all


def test_the_report_lists_at_most_the_first_rows_not_passed_and_says_how_many_are_left_out(tmp_path):
    bounded_run(tmp_path)
    records = [json.loads(line) for line in (tmp_path / "run" / "results.jsonl").read_text().splitlines()]
    records.sort(key=lambda r: r["order"])
    rows = [(r["id"], m, e["outcome"]) for r in records for m, e in r["metrics"].items()]
    missed = [row for row in rows if row[2] != "pass"]
    assert len(rows) == 6 * N_TESTS > MAX_ROWS and len(missed) > 0
    page = (tmp_path / "run" / "report.html").read_text(encoding="utf-8")
    listed = re.findall(r'<tr data-outcome="([a-z_]+)" data-metric="([a-z_]+)"', page)
    # every row not passed (fewer than the page holds), then the first passed rows to fill it, in item order
    assert len(missed) < MAX_ROWS
    passed = [row for row in rows if row[2] == "pass"][: MAX_ROWS - len(missed)]
    shown = [row for row in rows if row in missed or row in passed]
    assert len(listed) == MAX_ROWS and listed == [(outcome, metric) for _, metric, outcome in shown]
    note = re.search(r'<p id="left-out">(.*?)</p>', page, re.S)
    assert note is not None
    text = " ".join(note.group(1).split())
    assert f"has {len(rows)} item x metric rows, {len(missed)} of them not passed" in text
    assert f"lists the first {len(missed)} of those and the first {len(passed)} of the others" in text
    assert f"leaves out {len(rows) - MAX_ROWS} rows" in text
    summary_md = (tmp_path / "run" / "summary.md").read_text(encoding="utf-8")
    assert f"## Tests not passed ({len(missed)} test x metric outcomes)" in summary_md
    assert f"And {len(missed) - 40} more: see report.html and results.jsonl." in summary_md


def test_a_small_run_still_lists_every_row(tmp_path):
    tests = load_unit_tests(ROOT / "unit_tests" / "test.jsonl")[:3]
    grades = [("answer_relevancy", 5), ("completeness", 5), ("faithfulness", 1), ("usefulness", None)]
    judge, _ = scripted_judge(by_metric({m: reply(m, g) for m, g in grades}))
    run_task(UnitTestTask(tests, judge), judge.runtime, FolderRecorder(tmp_path / "run"), {"judge": "scripted"})
    page = (tmp_path / "run" / "report.html").read_text(encoding="utf-8")
    assert page.count('<tr data-outcome="') == 3 * 6 and 'id="left-out"' not in page
