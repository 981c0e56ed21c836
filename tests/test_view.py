"""`judgelab view`: the index, a run paged from results.jsonl, comparisons with paired statistics, the leaderboard
folded, the bounded `compare`, and the pages in headless Chromium (DOM text and a non-blank screenshot)."""

from __future__ import annotations

import asyncio
import json
import shutil
import threading
from pathlib import Path
from urllib.error import HTTPError
from urllib.request import Request, urlopen

import pytest
from cdp import CHROMIUM
from conftest import ROOT, hang_guard, reply, scripted_judge

from judges.calls.scripted import by_metric
from judges.runs.paired_runs import paired_metrics
from judges.runs.run import Run
from judges.runs.run_compare import changes, comparison_markdown
from judges.runs.run_writer import FolderRecorder
from judges.runs.service import run_task
from judges.suite.loading import load_unit_tests
from judges.suite.unit_test_task import UnitTestTask
from judges.types import Outcome
from judges.viewer.catalog import catalog
from judges.viewer.item_pages import read_page
from judges.viewer.view_server import make_server


def graded(out: Path, grades: dict[str, int]) -> Run:
    tests = load_unit_tests(ROOT / "unit_tests" / "test.jsonl")[:8]
    judge, _ = scripted_judge(by_metric({m: reply(m, g) for m, g in grades.items()}))
    prompts = {"name": judge.prompts.name, "folder": str(judge.prompts.folder), "sha256": judge.prompts.hashes()}
    return run_task(
        UnitTestTask(tests, judge), judge.runtime, FolderRecorder(out), {"judge": "scripted", "prompts": prompts}
    )


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> Path:
    """results/ with two unit-test runs over the same 8 tests (b grades differently, so outcomes flip) and the
    committed leaderboard's JSON and page."""
    root = tmp_path_factory.mktemp("results")
    graded(root / "runs" / "a", {"answer_relevancy": 5, "completeness": 5, "faithfulness": 1})
    graded(root / "runs" / "b", {"answer_relevancy": 3, "completeness": 5, "faithfulness": 0})
    for name in ("leaderboard.json", "leaderboard.html"):
        shutil.copy(ROOT / "results" / name, root / name)
    return root


@pytest.fixture(scope="module")
def server(results):
    with make_server(results) as httpd:
        thread = threading.Thread(target=httpd.serve_forever, daemon=True)
        thread.start()
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
        httpd.shutdown()
        thread.join()


def test_the_index_lists_every_run_folder_and_leaderboard(results):
    runs, boards = catalog(results)
    assert sorted(r.path for r in runs) == ["runs/a", "runs/b"] and boards == ["."]
    a = next(r for r in runs if r.path == "runs/a")
    assert a.kind == "unit_tests" and a.judge == "scripted" and a.prompts == "default" and a.n == 8
    assert a.figure == Run.load(results / "runs" / "a").summary.total_pass_rate and a.cost == 0.0


def test_items_are_read_page_by_page_with_filters(results):
    run = Run.load(results / "runs" / "a")
    rows = [(r.id, m) for r in run.records for m in r.metrics]
    whole = read_page(results / "runs" / "a" / "results.jsonl", 1, size=1000)
    lines = [json.loads(line) for line in (results / "runs" / "a" / "results.jsonl").read_text().splitlines()]
    in_file_order = [(str(r["id"]), m) for r in lines for m in r["metrics"]]
    assert whole.matching == len(rows) == 8 * 6 and [(r["id"], r["metric"]) for r in whole.rows] == in_file_order
    last = read_page(results / "runs" / "a" / "results.jsonl", 5, size=10)
    assert last.pages == 5 and len(last.rows) == 8 and last.rows == whole.rows[40:]
    missed = sum(e.outcome is not Outcome.PASS for r in run.records for e in r.metrics.values())
    assert read_page(results / "runs" / "a" / "results.jsonl", 1, outcome="not-passed").matching == missed
    only = read_page(results / "runs" / "a" / "results.jsonl", 1, metric="faithfulness")
    assert only.matching == 8 and {r["metric"] for r in only.rows} == {"faithfulness"}


def test_a_line_still_being_written_is_skipped(tmp_path, results):
    copy = tmp_path / "results.jsonl"
    text = (results / "runs" / "a" / "results.jsonl").read_text()
    copy.write_text(text + '{"id": "half', encoding="utf-8")
    assert read_page(copy, 1, size=1000).matching == 48


def test_paired_statistics_count_the_flips_and_test_them(results):
    from scipy.stats import binomtest

    a, b = Run.load(results / "runs" / "a"), Run.load(results / "runs" / "b")
    stats = {m.metric: m for m in paired_metrics(a, b)}
    flips = changes(a, b)
    for metric, row in stats.items():
        mine = [f for f in flips if f[1] == metric]
        assert row.gained + row.lost == len(mine) and row.gained == sum(f[3] == "pass" for f in mine)
        if mine:
            assert row.mcnemar_p == pytest.approx(binomtest(row.gained, len(mine), 0.5).pvalue)
            assert row.difference == pytest.approx((row.gained - row.lost) / row.n)
    assert stats["faithfulness"].lost + stats["faithfulness"].gained > 0


def test_compare_prints_a_bounded_summary(results):
    a, b = Run.load(results / "runs" / "a"), Run.load(results / "runs" / "b")
    flips = changes(a, b)
    assert len(flips) > 3
    text = comparison_markdown([a, b], listed=3)
    assert f"{len(flips)} flipped outcomes" in text and "McNemar p (exact)" in text
    assert text.count(" | ") > 0 and f"And {len(flips) - 3} more: `judgelab view` lists them all." in text
    assert sum(flip[0] in text for flip in flips[3:] if flip[0] not in {f[0] for f in flips[:3]}) == 0


def test_the_server_is_loopback_read_only_and_stays_inside_its_folder(results, server):
    assert server.startswith("http://127.0.0.1:")
    with pytest.raises(HTTPError) as refused:
        urlopen(Request(server + "/", data=b"x", method="POST"), timeout=hang_guard(30))
    assert refused.value.code == 501
    for escape in ("/files/../../etc/passwd", "/files/%2e%2e/%2e%2e/etc/passwd", "/run/../.."):
        with pytest.raises(HTTPError) as missing:
            urlopen(server + escape, timeout=hang_guard(30))
        assert missing.value.code == 404
    report = urlopen(server + "/files/runs/a/report.html", timeout=hang_guard(30)).read().decode()
    assert "<h1>judgelab unit tests" in report


def test_the_leaderboard_page_puts_the_picks_first_and_folds_the_reference_rows(server):
    page = urlopen(server + "/leaderboard/.", timeout=hang_guard(30)).read().decode()
    data = json.loads((ROOT / "results" / "leaderboard.json").read_text())
    references = [e for e in data["entries"] if e["kind"] == "baseline"]
    assert page.index('id="picks"') < page.index('id="candidates"') < page.index('<details id="references">')
    assert f"Reference and baseline rows ({len(references)}), folded" in page
    folded = page.split('<details id="references">')[1]
    assert (
        folded.count("<tr><td>") == len(references)
        and "a baseline, shown for reference" not in page.split('<details id="references">')[0].split('id="picks"')[0]
    )


def shot_has_content(path: Path) -> bool:
    from PIL import Image

    image = Image.open(path).convert("L")
    top = image.crop((0, 0, image.width, min(image.height, 600)))
    return len(set(top.getdata())) > 20 and min(top.getdata()) < 100  # text drawn, not a blank page


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (.ci/run installs it)")
def test_index_filter_run_and_comparison_in_chromium(server, tmp_path):
    from cdp import Page

    async def look() -> dict:
        seen: dict = {}
        async with Page(tmp_path / "profile") as page:
            await page.goto(server + "/")
            seen["rows"] = await page.evaluate("document.querySelectorAll('#runs tbody tr').length")
            seen["index_text"] = await page.evaluate("document.body.innerText")
            await page.screenshot(tmp_path / "index.png")
            await page.evaluate(
                "(() => { const f = document.getElementById('filter'); f.value = 'runs/b';"
                " f.dispatchEvent(new Event('input')); })()"
            )
            seen["shown"] = await page.evaluate(
                "[...document.querySelectorAll('#runs tbody tr')].filter(r => !r.hidden).map(r => r.cells[1].innerText)"
            )
            seen["count"] = await page.evaluate("document.getElementById('shown-count').textContent")
            await page.click("#runs tbody tr:not([hidden]) a.run")
            await page.wait_for("Page.loadEventFired")
            seen["run_title"] = await page.evaluate("document.querySelector('h1').textContent")
            seen["run_rows"] = await page.evaluate("document.querySelectorAll('#items tbody tr').length")
            seen["matching"] = await page.evaluate("document.getElementById('matching').textContent")
            await page.screenshot(tmp_path / "run.png")
            await page.goto(server + "/")
            await page.evaluate(
                "document.querySelectorAll('#runs input[type=checkbox]').forEach(c => c.checked = true)"
            )
            await page.click("#compare")
            await page.wait_for("Page.loadEventFired")
            seen["pair"] = await page.evaluate("document.querySelector('h2.pair').textContent")
            seen["flip_rows"] = await page.evaluate("document.querySelectorAll('table.flips tbody tr').length")
            seen["paired"] = await page.evaluate("document.getElementById('paired-1').innerText")
            await page.screenshot(tmp_path / "compare.png")
        return seen

    seen = asyncio.run(look())
    assert seen["rows"] == 2 and "runs/a" in seen["index_text"] and "leaderboard" in seen["index_text"].lower()
    assert seen["shown"] == ["runs/b"] and seen["count"] == "1"
    assert seen["run_title"] == "scripted / default" and seen["run_rows"] == 48 and seen["matching"] == "48"
    assert "flipped" in seen["pair"] and seen["flip_rows"] == int(seen["pair"].split(": ")[1].split()[0]) > 0
    assert "mcnemar p" in seen["paired"].lower() and "faithfulness" in seen["paired"]
    for name in ("index.png", "run.png", "compare.png"):
        assert shot_has_content(tmp_path / name), name


def test_a_request_naming_another_host_is_refused(server):
    """DNS rebinding: a page of another site whose name now points at 127.0.0.1 sends its own Host header."""
    port = server.rsplit(":", 1)[1]
    for host in ("evil.example", f"evil.example:{port}", f"127.0.0.1:{int(port) + 1}", "127.0.0.1"):
        with pytest.raises(HTTPError) as refused:
            urlopen(Request(server + "/", headers={"Host": host}), timeout=30)
        assert refused.value.code == 421
        assert (
            refused.value.read().decode()
            == f"misdirected request: this server answers to 127.0.0.1:{port} or localhost:{port} only"
        )
    for host in (f"localhost:{port}", f"127.0.0.1:{port}", f"LOCALHOST:{port}"):
        assert urlopen(Request(server + "/", headers={"Host": host}), timeout=30).status == 200


def test_a_compare_url_is_deduplicated_and_capped(server):
    once = urlopen(server + "/compare?run=runs/a&run=runs/b", timeout=30).read()
    ticked = "&".join(["run=runs/a"] * 200 + ["run=runs/b"] * 50)
    assert urlopen(f"{server}/compare?{ticked}", timeout=30).read() == once  # each run once, in the order ticked
    many = "&".join(f"run=runs/r{k}" for k in range(9))
    with pytest.raises(HTTPError) as refused:
        urlopen(f"{server}/compare?{many}", timeout=30)
    assert refused.value.code == 400
    assert refused.value.read().decode() == (
        "bad request: tick at most 8 runs to compare, got 9; compare them in smaller groups"
    )
