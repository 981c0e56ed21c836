"""`judgelab view`'s index at 1,280 px: every column of runs named as the CLI names them is visible (no sideways
scroll, no header cut), and a run that made no item says so with the same failed-call count as its summary.md."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest
from cdp import CHROMIUM
from conftest import ROOT, reply, scripted_judge

from judges.calls.scripted import by_metric
from judges.grading.grade_task import GradeTask
from judges.records import Summary
from judges.records.header import Timing
from judges.records.usage import RunUsage
from judges.runs.folder import save_run
from judges.runs.run import Run
from judges.runs.run_config import RunConfig
from judges.runs.run_writer import FolderRecorder
from judges.runs.service import run_task
from judges.suite.loading import load_unit_tests
from judges.suite.unit_test_task import UnitTestTask
from judges.viewer.catalog import catalog
from judges.viewer.pages import index_page
from judges.viewer.view_server import make_server

LONG = "runs/20261125T125057Z-local_smollm2-135m-compact-train"  # how `meta-eval` names its folders
DEAD_USAGE = {"calls": 0, "cached_calls": 0, "failed_calls": 8, "cost": 0.0, "failures": {"api_error": 8}}


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    """A unit-test run under a real-length folder name, and a run against a dead endpoint that made no item."""
    root = tmp_path_factory.mktemp("results")
    tests = load_unit_tests(ROOT / "unit_tests" / "test.jsonl")[:4]
    grades = {"answer_relevancy": 5, "completeness": 5, "faithfulness": 1, "usefulness": 1}
    judge, _ = scripted_judge(by_metric({m: reply(m, g) for m, g in grades.items()}))
    prompts = {"name": "compact", "folder": str(judge.prompts.folder), "sha256": judge.prompts.hashes()}
    config = {"judge": "local/smollm2-135m", "prompts": prompts, "data": "unit_tests (shipped)"}
    run_task(UnitTestTask(tests, judge), judge.runtime, FolderRecorder(root / LONG), config)
    judge, _ = scripted_judge(by_metric({m: reply(m, g) for m, g in grades.items()}))
    graded = GradeTask([(t.id, t.sample) for t in tests], judge, None, checked=True)
    run_task(
        graded, judge.runtime, FolderRecorder(root / "runs" / "20261125T125500Z-evaluate-local_smollm2-135m"), config
    )
    dead = Run(
        "grade",
        RunConfig.from_json(
            {"judge": "openai/gpt-4o-mini", "api_base": "http://127.0.0.1:9/v1", "data": "samples.jsonl"}
        ),
        [],
        Summary(),
        RunUsage.from_json(DEAD_USAGE),
        "endpoint_unusable",
        "judge openai/gpt-4o-mini at http://127.0.0.1:9/v1 is unusable: connection refused",
        Timing(started_at="2026-11-25T13:00:00+00:00"),
    )
    save_run(dead, root / "runs" / "20261125T130000Z-evaluate-openai_gpt-4o-mini")
    return root


def test_a_run_that_made_no_item_is_marked_and_counts_its_failed_calls_once(root):
    runs, _ = catalog(root)
    dead = next(r for r in runs if "gpt-4o-mini" in r.path)
    assert dead.empty and (dead.calls, dead.failed_calls) == (8, 8)
    page = index_page(root)
    assert "no item finished" in page and "8 (8)" in page
    summary = (root / dead.path / "summary.md").read_text()
    assert "Calls: 8 (0 from cache, 8 failed: 8 api_error)" in summary


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (.ci/run installs it)")
def test_the_index_fits_1280_px(root, tmp_path):
    from cdp import Page

    async def look() -> dict:
        async with Page(tmp_path / "profile", size=(1280, 900)) as page:
            await page.goto(server + "/")
            return dict(
                await page.evaluate(
                    "(() => { const t = document.getElementById('runs');"
                    " const heads = [...t.querySelectorAll('th')].map(h => h.getBoundingClientRect().right);"
                    " return {inner: window.innerWidth, scroll: document.documentElement.scrollWidth,"
                    " right: Math.max(...heads), columns: heads.length,"
                    " cells: t.tBodies[0].rows[0].cells.length, rows: t.tBodies[0].rows.length}; })()"
                )
            )

    with make_server(root) as httpd:
        thread = threading.Thread(target=httpd.serve_forever, daemon=True)
        thread.start()
        server = f"http://127.0.0.1:{httpd.server_address[1]}"
        try:
            seen = asyncio.run(look())
        finally:
            httpd.shutdown()
            thread.join()
    assert seen["columns"] == seen["cells"] == 11 and seen["rows"] == 3
    assert seen["scroll"] <= seen["inner"], seen  # no sideways scroll
    assert seen["right"] <= seen["inner"], seen  # the last column's header is inside the window
