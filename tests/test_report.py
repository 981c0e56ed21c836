"""report.html without a browser (content, metric steps), `judgelab show`, `--version`, and plain progress lines."""

import io
import json
import os
import subprocess
import sys

from conftest import ROOT, hang_guard, reply, scripted_judge, stop

from judges.calls.scripted import by_metric
from judges.runs.intervals import wilson
from judges.runs.run_writer import FolderRecorder
from judges.runs.service import run_task
from judges.suite.loading import load_unit_tests
from judges.suite.unit_test_task import UnitTestTask

ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def judgelab(*args, cwd, env=ENV, **kwargs):
    return subprocess.run(
        [sys.executable, "-m", "judges.cli.main", *args], capture_output=True, text=True, env=env, cwd=cwd, **kwargs
    )


def scripted_run(tmp_path):
    """Four shipped tests graded 5 / 5 / 1 by a scripted judge: what fails is known from the tests' conditions."""
    tests = load_unit_tests(ROOT / "unit_tests" / "test.jsonl")[:4]
    script = by_metric({m: reply(m, g) for m, g in [("answer_relevancy", 5), ("completeness", 5), ("faithfulness", 1)]})
    judge, _ = scripted_judge(script)
    prompts = judge.prompts
    config = {
        "judge": "scripted",
        "prompts": {"name": prompts.name, "folder": str(prompts.folder), "sha256": prompts.hashes()},
    }
    return run_task(UnitTestTask(tests, judge), judge.runtime, FolderRecorder(tmp_path / "run"), config)


def test_report_names_config_intervals_and_every_item_with_its_prompt(tmp_path):
    run = scripted_run(tmp_path)
    page = (tmp_path / "run" / "report.html").read_text()
    assert len(run.config.prompts_sha256) == 4
    for sha in run.config.prompts_sha256.values():
        assert sha in page
    stats = run.summary.metrics["faithfulness"]
    low, high = wilson(stats.passed, stats.completed)
    assert f"[{100 * low:.1f}%, {100 * high:.1f}%]" in page
    assert page.count('<tr data-outcome="') == 6 * 4
    for record in run.records:
        assert f"<td>{record.id}</td>" in page
    question = run.records[0].sample["input"].replace("'", "&#39;").replace('"', "&#34;")
    assert page.count('<pre class="prompt">') == sum(len(e.calls) for r in run.records for e in r.metrics.values())
    assert question in page and "not available" not in page
    assert "http://" not in page and "https://" not in page  # nothing fetched: the page opens from disk


def test_summary_md_ends_with_the_tests_not_passed(tmp_path):
    run = scripted_run(tmp_path)
    text = (tmp_path / "run" / "summary.md").read_text()
    missed = [(r.id, m) for r in run.records for m, e in r.metrics.items() if e.outcome != "pass"]
    assert f"## Tests not passed ({len(missed)} test x metric outcomes)" in text
    for test, _ in missed:
        assert f"| {test} " in text


def test_show_prints_serves_and_opens_nothing_without_a_display(tmp_path):
    scripted_run(tmp_path)
    folder = tmp_path / "run"
    printed = judgelab("show", str(folder), "--print", cwd=tmp_path)
    assert printed.returncode == 0 and printed.stdout == (folder / "summary.md").read_text()
    env = {k: v for k, v in ENV.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    shown = judgelab("show", str(folder), cwd=tmp_path, env=env)
    assert shown.returncode == 0 and shown.stdout.endswith(f"report: {(folder / 'report.html').resolve()}\n")
    (folder / "report.html").unlink()  # an older folder: show writes the report first
    judgelab("show", str(folder), cwd=tmp_path, env=env)
    assert (folder / "report.html").is_file()
    server = subprocess.Popen(
        [sys.executable, "-m", "judges.cli.main", "show", str(folder), "--serve"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=ENV,
    )
    try:
        line = server.stdout.readline()
        url = line.split(" at ")[1].split()[0]
        assert url.startswith("http://127.0.0.1:") and url.endswith("/report.html")
        import urllib.request

        with urllib.request.urlopen(url, timeout=hang_guard(30)) as response:
            assert response.read().decode() == (folder / "report.html").read_text()
    finally:
        stop(server)


def test_version(tmp_path):
    from judges import __version__

    result = judgelab("--version", cwd=tmp_path)
    assert result.returncode == 0 and result.stdout == f"judgelab {__version__}\n"


def test_progress_without_a_terminal_prints_a_line_at_most_every_interval():
    from types import SimpleNamespace

    from judges.runs.progress import Progress

    now = [0.0]
    usage = SimpleNamespace(calls=0, cached_calls=0, failed_calls=0, cost=0.0)
    stream = io.StringIO()
    progress = Progress("unit tests", "test", 4, lambda: usage, stream=stream, interval=10, clock=lambda: now[0])
    usage.calls, now[0] = 3, 4.0
    progress.tick()  # 4 s after the first line: nothing
    progress.item_done()
    usage.calls, usage.cached_calls, usage.failed_calls, usage.cost, now[0] = 8, 2, 1, 0.0125, 12.0
    progress.tick()
    progress.item_done()
    now[0] = 20.0
    progress.close()
    assert stream.getvalue().splitlines() == [
        "unit tests: 0/4 tests, 0 calls (0 cached, 0 failed), $0.0000, 00:00 elapsed, ETA ?",
        # 7 replies and a call that timed out: 8 calls made, as run.json and the run's last line count them
        # no time left from one or two items (tests/test_progress_eta.py)
        "unit tests: 1/4 tests, 8 calls (2 cached, 1 failed), $0.0125, 00:12 elapsed, ETA ?",
        "unit tests: 2/4 tests, 8 calls (2 cached, 1 failed), $0.0125, 00:20 elapsed, ETA ?",
    ]


def test_metric_steps_are_readable_per_item(tmp_path):
    from rag_helpers import claims, make_judge, verdicts

    from judges.rag.metric_registry import build_registry
    from judges.rag.metrics_task import MetricsTask
    from judges.runs.service import run_task
    from judges.types import Sample

    sample = Sample(
        id="leave", input="Can she return?", actual_output="Yes. Pay is kept.", references=("She may return.",)
    )
    judge, _ = make_judge(
        by_metric({"claims": claims("She can return.", "Pay is kept."), "claim_support": verdicts(True, False)})
    )
    registry = build_registry()
    run = run_task(
        MetricsTask([sample], [registry["ragas_faithfulness"]], judge, registry),
        judge.runtime,
        FolderRecorder(tmp_path),
        {},
    )
    page = (tmp_path / "report.html").read_text()
    assert run.records[0].sample["input"] == "Can she return?"
    assert "<dt>claims</dt>" in page and "She can return." in page and "Pay is kept." in page
    assert (
        page.count("<dt>supported</dt>") == 2
        and json.dumps(run.records[0].metrics["ragas_faithfulness"].verdict.grade) in page
    )


def test_not_passed_rows_show_grades_and_the_reason_or_the_raw_reply_and_totals_in_one_unit(tmp_path):
    """A reply with a reason shows it; a reply whose reason is empty shows its first 200 characters instead."""
    from conftest import compact

    from judges.render.report_html import summary_tables

    tests = load_unit_tests(ROOT / "unit_tests" / "test.jsonl")[:4]
    silent = json.dumps(
        {"answer_1": {"faithfulness_justification": "", "faithfulness": 1}}
        | {"answer_2": {"faithfulness_justification": "", "faithfulness": 1, "padding": "x" * 300}}
    )
    script = by_metric(
        {
            "answer_relevancy": reply("answer_relevancy", 5),
            "completeness": reply("completeness", 5),
            "faithfulness": silent,
        }
    )
    judge, _ = scripted_judge(script)
    run = run_task(UnitTestTask(tests, judge), judge.runtime, FolderRecorder(tmp_path / "run"), {"judge": "scripted"})
    text = compact((tmp_path / "run" / "summary.md").read_text())
    assert "| grade expected | grade given | outcome | reason |" in text
    faithfulness = [line for line in text.splitlines() if "| F |" in line and "| wrong_grade |" in line]
    assert faithfulness and all("| graded 1, no reason given |" in line for line in faithfulness)
    others = [line for line in text.splitlines() if "| wrong_grade |" in line and ("| AR |" in line or "| C |" in line)]
    assert others and all(line.rstrip().endswith("| because |") for line in others)
    [(_, table)] = [t for t in summary_tables(run) if t[0] == "Pass rates"]
    *per_metric, total = (row.cells for row in table.rows)
    for column in ("passed", "wrong grades", "run failures", "completed", "n"):
        index = table.headers.index(column)
        assert total[index].text == str(sum(int(row[index].text) for row in per_metric)), column
    assert total[0].text.startswith("total (mean of the pass rates; counts are test x metric outcomes)")
