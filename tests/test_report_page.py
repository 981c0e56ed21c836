"""report.html of a meta-eval run, in headless Chromium: filter to what did not pass, read what a person sees."""

import asyncio
import json
import os
import subprocess
import sys

import pytest
from cdp import CHROMIUM, Page
from conftest import ROOT, hang_guard
from stub import stub_server

ENV = {**os.environ, "PYTHONPATH": str(ROOT), "OPENAI_API_KEY": "sk-fake"}

VISIBLE_IDS = (
    "[...document.querySelectorAll('#items tbody tr')].filter(r => !r.hidden).map(r => r.cells[0].textContent)"
)


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    # half the replies are unusable, so some verdicts are run failures
    with stub_server(latency_ms=1, garbage_rate=0.5, seed=1) as base:
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "judges.cli.main",
                "meta-eval",
                "--judge",
                "openai/stub",
                "--api-base",
                base,
                "--tests",
                str(ROOT / "unit_tests" / "test.jsonl"),
                "--limit",
                "16",
                "--cache-mode",
                "off",
                "--out",
                str(out / "run"),
            ],
            capture_output=True,
            text=True,
            env=ENV,
            cwd=out,
            timeout=hang_guard(),
        )
    # half the replies are garbage: a degraded run (exit 5), whose report the page tests read all the same
    assert result.returncode == 5, result.stderr[-3000:]
    return out / "run"


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (.ci/run installs it)")
def test_the_report_filtered_to_what_did_not_pass_shows_those_tests_and_counts(run_dir, tmp_path):
    records = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    meta = json.loads((run_dir / "run.json").read_text())
    missed = [(r["id"], m) for r in records for m, e in r["metrics"].items() if e["outcome"] != "pass"]
    summary = meta["summary"]
    assert len(missed) == summary["unit_tests"]["wrong_grades"] + summary["unit_tests"]["failures"] > 0
    assert any(e["outcome"] == "failure" for r in records for e in r["metrics"].values())  # garbage replies

    async def look() -> dict:
        async with Page(tmp_path / "profile") as page:
            await page.goto((run_dir / "report.html").resolve().as_uri())
            seen = {"title": await page.evaluate("document.querySelector('h1').textContent")}
            seen["all_rows"] = await page.evaluate("document.getElementById('shown-count').textContent")
            await page.click("#only-failures")
            seen["ids"] = await page.evaluate(VISIBLE_IDS)
            seen["count"] = await page.evaluate("document.getElementById('shown-count').textContent")
            seen["items"] = await page.evaluate("document.getElementById('shown-items').textContent")
            seen["outcomes"] = await page.evaluate(
                "[...document.querySelectorAll('#items tbody tr')].filter(r => !r.hidden).map(r => r.dataset.outcome)"
            )
            await page.screenshot(tmp_path / "not-passed.png")
            # one metric: choose it as a person would in the select
            await page.evaluate(
                "(() => { const s = document.getElementById('filter-metric'); s.value = 'faithfulness';"
                " s.dispatchEvent(new Event('change')); })()"
            )
            seen["faithfulness"] = await page.evaluate(VISIBLE_IDS)
            # the first row's calls: one click opens the prompt sent and the raw reply
            first = "#items tbody tr:not([hidden]) details"
            seen["open_before"] = await page.evaluate(
                f"[document.querySelector('{first}').open, document.querySelector('{first} pre').checkVisibility()]"
            )
            await page.click(f"{first} summary")
            seen["prompt"] = await page.evaluate(f"document.querySelector('{first} pre.prompt').innerText")
            seen["prompt_of"] = await page.evaluate(
                f"document.querySelector('{first}').closest('tr').cells[0].textContent"
            )
            seen["reply_visible"] = await page.evaluate(
                f"document.querySelector('{first} pre.reply').checkVisibility()"
            )
            # sorting by the "given" column puts the grades in order
            await page.click("#show-all")
            await page.click("#items th:nth-child(5)")
            seen["given"] = await page.evaluate(
                "[...document.querySelectorAll('#items tbody tr')].map(r => Number(r.cells[4].dataset.value))"
            )
            return seen

    seen = asyncio.run(look())
    assert seen["title"] == "judgelab unit tests: openai/stub / default"
    assert int(seen["all_rows"]) == 6 * len(records)
    assert sorted(seen["ids"]) == sorted(test for test, _ in missed)
    assert int(seen["count"]) == len(missed)
    assert (
        int(seen["items"])
        == len({test for test, _ in missed})
        == len(records) - summary["unit_tests"]["tests_passing_all"]
    )
    assert set(seen["outcomes"]) <= {"wrong_grade", "failure"} and "failure" in seen["outcomes"]
    faithfulness = summary["metrics"]["faithfulness"]
    assert len(seen["faithfulness"]) == faithfulness["wrong_grades"] + faithfulness["failures"]
    assert sorted(seen["faithfulness"]) == sorted(t for t, m in missed if m == "faithfulness")
    assert seen["open_before"] == [False, False]  # closed until clicked
    test = next(r for r in records if r["id"] == seen["prompt_of"])
    assert test["sample"]["input"] in seen["prompt"] and test["sample"]["actual_output"] in seen["prompt"]
    assert seen["reply_visible"] is True
    assert seen["given"] == sorted(seen["given"]) and len(seen["given"]) == 6 * len(records)
    from PIL import Image

    image = Image.open(tmp_path / "not-passed.png").convert("L")
    assert image.size[0] >= 1200 and len(set(image.getdata())) > 20  # a page with tables, not a blank one
