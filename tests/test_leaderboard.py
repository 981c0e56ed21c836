"""Leaderboards: config checks, the selection rule, the Pareto front, an end-to-end run, Chromium, publish."""

import json
import os
import subprocess
import sys

import pytest
from cdp import CHROMIUM, FLAGS
from conftest import MINI_SHARED, ROOT, compact, hang_guard
from stub import stub_server

from judges.errors import ConfigError
from judges.leaderboard.config import load_config
from judges.leaderboard.config_types import Selection
from judges.leaderboard.entries import Entry
from judges.leaderboard.pareto import pareto_front
from judges.leaderboard.select import pick_best

# the labelled evaluations read the miniature sets of tests/miniature_sets.py, so the board builds in any clone
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "OPENAI_API_KEY": "sk-fake", "JUDGELAB_SHARED": str(MINI_SHARED)}


def entry(
    candidate,
    value,
    low,
    high,
    cost=0.0,
    seconds=1.0,
    kind="llm",
    calls=1000,
    metric="faithfulness",
    evaluation="labels:x",
    failure_rate=0.0,
    statistic="spearman",
    latency=None,
    items=None,
    note=None,
):
    return Entry(
        candidate=candidate,
        kind=kind,
        model="m",
        prompts="p",
        prompt_sha=None,
        evaluation=evaluation,
        metric=metric,
        statistic=statistic,
        value=value,
        ci_low=low,
        ci_high=high,
        n=50,
        failure_rate=failure_rate,
        calls=calls,
        cost_usd=cost,
        seconds=seconds,
        item_values=items,
        latency_s_per_uncached_call=latency,
        note=note,
    )


def passes(*outcomes):
    """Per-test 1/0 values keyed t0, t1, ... (a pass rate's per-item values)."""
    return {f"t{i}": float(o) for i, o in enumerate(outcomes)}


def test_overlapping_intervals_tie_and_the_cheaper_judge_wins():
    leader = entry("big", 0.80, 0.70, 0.90, cost=10.0)
    cheap = entry("small", 0.74, 0.65, 0.82, cost=1.0)
    far = entry("tiny", 0.40, 0.30, 0.50, cost=0.1)
    [pick] = pick_best([leader, cheap, far], Selection())
    assert pick.winner.candidate == "small" and pick.leader.candidate == "big"
    assert pick.tied == ["big", "small"] and "cheaper" in pick.reason()


def test_equal_cost_ties_go_to_the_faster_judge_by_uncached_latency_and_baselines_never_win():
    a = entry("slow", 0.80, 0.70, 0.90, seconds=1.0, latency=5.0)  # a short run (warm cache) but slow calls
    b = entry("fast", 0.79, 0.69, 0.89, seconds=9.0, latency=1.0)
    oracle = entry("oracle", 1.0, 1.0, 1.0, kind="baseline")
    [pick] = pick_best([a, b, oracle], Selection())
    assert pick.winner.candidate == "fast" and "oracle" in pick.excluded
    assert "as cheap and faster (1.00 vs 5.00 s median per uncached call)" in pick.reason()
    assert pick.reference == "chance (0.000)"  # the oracle is a ceiling, not the bar


# --- the selection rules of issue 14, on made-up entries -----------------------------------------------------


def test_a_candidate_below_the_best_baseline_is_not_named_best():
    # the committed board's bug: smollm2-default named best at 0.125 while always-top scored 0.562
    unit = dict(evaluation="unit_tests:u:test", metric="answer_relevancy", statistic="pass_rate")
    judge = entry("smollm2-default", 0.125, 0.050, 0.281, **unit)
    other = entry("smollm2-grouse", 0.094, 0.032, 0.242, **unit)
    top = entry("always-top", 0.562, 0.393, 0.719, kind="baseline", **unit)
    [pick] = pick_best([judge, other, top], Selection())
    assert pick.winner is None and pick.baseline.candidate == "always-top"
    assert pick.reason() == "no candidate beats the baselines; the bar was the best baseline always-top (0.562)"
    assert pick.excluded["smollm2-default"] == (
        "does not beat the best baseline always-top (0.562): 95% interval "
        "lower bound 0.050 <= 0.562 (95% interval vs baseline point)"
    )


def test_an_interval_overlapping_the_baseline_point_does_not_win_but_one_above_it_does():
    unit = dict(evaluation="unit_tests:u:test", metric="faithfulness", statistic="pass_rate")
    top = entry("always-top", 0.60, 0.45, 0.75, kind="baseline", **unit)
    near = entry("near", 0.70, 0.55, 0.82, **unit)
    good = entry("good", 0.90, 0.75, 0.97, **unit)
    [pick] = pick_best([top, near, good], Selection())
    assert pick.winner.candidate == "good" and pick.test == "95% interval vs baseline point"
    assert "lower bound 0.750 > 0.600" in pick.reason() and "near" in pick.excluded


def test_paired_bootstrap_on_the_same_items_decides_when_per_item_values_exist():
    unit = dict(evaluation="unit_tests:u:test", metric="faithfulness", statistic="pass_rate")
    # always-top passes the 10 positive tests of 20; the judge passes those and 8 of the 10 others
    top = entry("always-top", 0.5, 0.3, 0.7, kind="baseline", items=passes(*[1] * 10, *[0] * 10), **unit)
    judge = entry("judge", 0.9, 0.45, 0.99, items=passes(*[1] * 10, *[1] * 8, 0, 0), **unit)
    [pick] = pick_best([top, judge], Selection())
    # a wide interval (lower bound 0.45 < 0.5) would not win; the paired test on the same 20 tests does
    assert pick.winner.candidate == "judge" and pick.test == "paired bootstrap"
    assert "paired bootstrap on the same 20 items: difference +0.400" in pick.reason()


def test_a_negative_correlation_or_an_auroc_below_chance_never_wins():
    negative = entry("inverse", -0.40, -0.55, -0.25)
    weak = entry("weak", 0.05, -0.20, 0.30)
    [pick] = pick_best([negative, weak], Selection())
    assert pick.winner is None and "negative spearman (-0.400)" in pick.excluded["inverse"]
    assert "does not beat chance (0.000)" in pick.excluded["weak"]
    flipped = entry("flipped", 0.30, 0.20, 0.40, statistic="auroc")
    [pick] = pick_best([flipped, entry("random", 0.2, 0.1, 0.3, kind="baseline", statistic="auroc")], Selection())
    assert pick.winner is None and pick.excluded["flipped"] == "auroc 0.300 below chance (0.5), never wins"


def test_a_negative_correlation_is_never_tied_into_a_win():
    leader = entry("leader", 0.30, 0.05, 0.55, cost=5.0)
    negative = entry("cheap-inverse", -0.10, -0.40, 0.35, cost=0.0)  # its interval overlaps the leader's
    [pick] = pick_best([leader, negative], Selection())
    assert pick.winner.candidate == "leader" and pick.tied == ["leader"]


def test_tied_on_the_same_items_goes_to_the_cheaper_then_the_faster_by_uncached_latency():
    unit = dict(evaluation="unit_tests:u:test", metric="total", statistic="pass_rate")
    top = entry("always-top", 0.3, 0.1, 0.5, kind="baseline", items=passes(*[1] * 3, *[0] * 7), **unit)
    big = entry("big", 1.0, 1.0, 1.0, cost=4.0, latency=3.0, items=passes(*[1] * 10), **unit)
    small = entry("small", 0.9, 0.6, 1.0, cost=1.0, latency=2.0, items=passes(*[1] * 9, 0), **unit)
    quick = entry("quick", 0.9, 0.6, 1.0, cost=1.0, latency=0.5, items=passes(*[1] * 8, 0, 1), **unit)
    [pick] = pick_best([top, big, small, quick], Selection())
    assert pick.leader.candidate == "big" and sorted(pick.tied) == ["big", "quick", "small"]
    assert pick.winner.candidate == "quick"
    assert "tied with the leader big (paired bootstrap on the same 10 items" in pick.reason()
    assert "as cheap and faster (0.50 vs 2.00 s median per uncached call)" in pick.reason()
    [pick] = pick_best([top, big, small], Selection())
    assert pick.winner.candidate == "small" and "cheaper (1.0000 vs 4.0000 USD per 1k calls)" in pick.reason()


def test_a_warm_cache_does_not_change_the_winner():
    cold = [
        entry("a", 0.80, 0.70, 0.90, seconds=50.0, latency=1.0),
        entry("b", 0.79, 0.69, 0.89, seconds=90.0, latency=2.0),
    ]
    # the second run: every call of b came from the cache, so its run took 0.1 s; its recorded latency is kept
    warm = [
        entry("a", 0.80, 0.70, 0.90, seconds=50.0, latency=1.0),
        entry("b", 0.79, 0.69, 0.89, seconds=0.1, latency=2.0),
    ]
    assert pick_best(cold, Selection())[0].winner.candidate == "a"
    assert pick_best(warm, Selection())[0].winner.candidate == "a"
    # with no latency recorded at all (every call cached) speed is not compared, and the reason says so
    unknown = [entry("a", 0.80, 0.70, 0.90, seconds=50.0), entry("b", 0.79, 0.69, 0.89, seconds=0.1)]
    [pick] = pick_best(unknown, Selection())
    assert pick.winner.candidate == "a" and "speed not compared: no latency per uncached call for a, b" in pick.reason()


def test_markdown_names_each_statistic_and_its_direction_and_every_n_a_reason():
    from judges.leaderboard.render import markdown

    rows = [
        entry("judge", 0.6, 0.4, 0.8),
        entry("silent", None, None, None, note="no figure: every item came back null or failed"),
        entry("always-top", None, None, None, kind="baseline", note="no figure: the judge's scores do not vary"),
    ]
    picks = pick_best(rows, Selection())
    text = compact(markdown(rows, picks, {"date": "d", "judgelab_version": "v", "config": "c", "data": {}}))
    assert "| labels:x | faithfulness | spearman (higher is better) | judge | 0.600 |" in text
    assert "| labels:x | faithfulness | silent | n/a: no figure: every item came back null or failed |" in text
    assert "n/a (no figure: the judge's scores do not vary)" in text
    assert "n/a (no baseline with a figure)" in text and "n/a (no uncached call recorded)" in text


def test_plot_names_are_safe_for_any_evaluation_name_and_baselines_are_drawn(tmp_path):
    from judges.leaderboard.pareto import plot_filename, plot_pareto

    name = plot_filename("labels:/data/my set?.csv", "faithfulness")
    assert name.startswith("pareto_labels_data_my_set_.csv_faithfulness_") and name.endswith(".png")
    assert plot_filename("a/b", "m") != plot_filename("a:b", "m")  # cleaned alike, kept apart by the hash
    rows = [
        entry("judge", 0.6, 0.4, 0.8, evaluation="labels:/data/x.csv"),
        entry("random", 0.1, 0.0, 0.2, kind="baseline", evaluation="labels:/data/x.csv"),
    ]
    written = plot_pareto(rows, "labels:/data/x.csv", "faithfulness", tmp_path / "pareto_labels_/data/x.csv_f.png")
    assert written.parent == tmp_path and written.is_file() and "/" not in written.name
    only_baselines = plot_pareto(rows[1:], "labels:/data/x.csv", "faithfulness", tmp_path / "b.png")
    assert only_baselines == tmp_path / "b.png" and only_baselines.is_file()


@pytest.mark.parametrize("suite", ["unit_tests:u:test", "my own suite"])  # the default name, or one the config gives
def test_constraints_exclude_with_reasons(suite):
    pricey = entry("pricey", 0.9, 0.85, 0.95, cost=50.0)
    flaky = entry("flaky", 0.85, 0.8, 0.9, failure_rate=0.3)
    weak_tests = entry("weak", 0.8, 0.75, 0.85)
    unit = entry("weak", 0.2, 0.1, 0.3, metric="total", evaluation=suite, statistic="pass_rate")
    unit_ok = [
        entry(n, 0.9, 0.8, 0.95, metric="total", evaluation=suite, statistic="pass_rate") for n in ("pricey", "flaky")
    ]
    picks = pick_best(
        [pricey, flaky, weak_tests, unit, *unit_ok],
        Selection(max_cost_per_1k_calls=10, max_failure_rate=0.1, min_unit_test_pass_rate=0.5),
    )
    [labels_pick] = [p for p in picks if p.evaluation == "labels:x"]
    assert labels_pick.winner is None
    assert set(labels_pick.excluded) == {"pricey", "flaky", "weak"}
    assert "USD per 1k calls" in labels_pick.excluded["pricey"] and "0.2 < 0.5" in labels_pick.excluded["weak"]


def test_pareto_front():
    points = [(0.0, 0.5), (1.0, 0.9), (2.0, 0.8), (0.5, 0.4), (3.0, 0.95)]
    assert pareto_front(points) == [0, 1, 4]


def test_config_errors_name_the_table(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text('[[candidates]]\nname = "a"\nkind = "llm"\n[[evaluations]]\nkind = "labels"\nsource = "alce"\n')
    with pytest.raises(ConfigError, match=r"candidates\[0\] \(a\) needs a model"):
        load_config(path)
    path.write_text(
        '[[candidates]]\nname = "a"\nmodel = "m"\ncolour = 1\n[[evaluations]]\nkind = "labels"\nsource = "x"\n'
    )
    with pytest.raises(ConfigError) as raised:
        load_config(path)
    assert str(raised.value).startswith(
        f"{path}:4: unknown key 'candidates[0].colour'; expected one of api_base, baseline, batch_retry, cache, "
    )
    assert "timeout_s, tpm, vision" in str(raised.value) and "\n" not in str(raised.value)
    path.write_text(
        '[[candidates]]\nname = "a"\nkind = "metric"\nmodel = "m"\nmetrics = {faithfulness = "ragas_fidelity"}\n'
        '[[evaluations]]\nkind = "labels"\nsource = "x"\n'
    )
    with pytest.raises(ConfigError, match=r"candidates\[0\] \(a\): metrics.faithfulness = 'ragas_fidelity' is not"):
        load_config(path)
    path.write_text(
        '[[candidates]]\nname = "a"\nmodel = "m"\n\ntemprature = 0\n[[evaluations]]\nkind = "labels"\nsource = "x"\n'
    )
    with pytest.raises(ConfigError) as raised:
        load_config(path)
    assert str(raised.value) == f"{path}:5: unknown key 'candidates[0].temprature'; did you mean 'temperature'?"


def test_config_misspelt_keys_name_the_nearest_valid_key(tmp_path):
    path = tmp_path / "c.toml"
    body = '[[candidates]]\nname = "a"\nmodel = "m"\n[[evaluations]]\nkind = "labels"\nsource = "x"\n'
    path.write_text('cahce = "c.sqlite"\n' + body)
    with pytest.raises(ConfigError) as raised:
        load_config(path)
    assert str(raised.value) == f"{path}:1: unknown key 'cahce'; did you mean 'cache'?"
    path.write_text(body + "[selection]\nmax_failure_rat = 0.1\n")
    with pytest.raises(ConfigError) as raised:
        load_config(path)
    assert str(raised.value) == f"{path}:8: unknown key 'selection.max_failure_rat'; did you mean 'max_failure_rate'?"
    path.write_text(body.replace('source = "x"', 'source = "x"\nlimit = "ten"'))
    with pytest.raises(ConfigError) as raised:
        load_config(path)
    assert str(raised.value) == f"{path}:7: evaluations[0].limit: input should be a valid integer, got 'ten'"


@pytest.fixture(scope="module")
def leaderboard(tmp_path_factory):
    out = tmp_path_factory.mktemp("leaderboard")
    template = (ROOT / "tests" / "data" / "leaderboard_stub.toml").read_text()
    with stub_server(latency_ms=1) as base:
        config = out / "config.toml"
        config.write_text(
            template.replace("STUB", base)
            .replace("CACHE", str(out / "cache.sqlite"))
            .replace("UNIT_TESTS", str(ROOT / "unit_tests"))
        )
        result = subprocess.run(
            [sys.executable, "-m", "judges.cli.main", "leaderboard", str(config), "--out", str(out / "board")],
            capture_output=True,
            text=True,
            env=ENV,
            cwd=out,
            timeout=hang_guard(),
        )
    assert result.returncode == 0, result.stderr[-3000:]
    return out / "board"


def test_leaderboard_writes_four_files_with_intervals_and_a_best_judge_per_metric(leaderboard):
    assert {"leaderboard.md", "leaderboard.csv", "leaderboard.json", "leaderboard.html"} <= {
        p.name for p in leaderboard.iterdir()
    }
    data = json.loads((leaderboard / "leaderboard.json").read_text())
    picks = {(p["evaluation"], p["metric"]): p for p in data["picks"]}
    assert ("labels:begin-cmu:6-items", "faithfulness") in picks and (
        "unit_tests:unit_tests:test:first-16",
        "total",
    ) in picks
    assert all(p["best"] not in ("oracle", "always-top") for p in data["picks"])
    oracle_total = [e for e in data["entries"] if e["candidate"] == "oracle" and e["metric"] == "total"]
    assert oracle_total[0]["value"] == 1.0
    for e in data["entries"]:
        if e["value"] is not None and e["kind"] != "baseline":
            assert e["ci_low"] <= e["value"] <= e["ci_high"] and e["n"] > 0
    assert data["meta"]["judges"]["stub-default"].startswith("openai/stub, prompts default (sha256 ")
    weighted = [e for e in data["entries"] if e["candidate"] == "stub-yes-prob"]
    assert {e["evaluation"] for e in weighted} == {
        "labels:begin-cmu:6-items",
        "labels:topical-chat:6-items",
    }  # no GroUSE grades
    assert all(e["prompts"] == "rag" and e["calls"] == 2 * 6 and e["failure_rate"] == 0 for e in weighted)
    assert "llamaindex_faithfulness" in data["meta"]["judges"]["stub-yes-prob"]
    [null_on_labels] = [
        e for e in data["entries"] if e["candidate"] == "always-null" and e["evaluation"] == "labels:begin-cmu:6-items"
    ]
    assert null_on_labels["value"] is None and "null or failed" in null_on_labels["note"]
    assert "sha256" in data["meta"]["data"]["unit_tests:unit_tests:test:first-16"]
    import pandas as pd

    frame = pd.read_csv(leaderboard / "leaderboard.csv")
    assert len(frame) == len(data["entries"]) and "cost_per_1k_calls" in frame.columns


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (.ci/run installs it)")
def test_html_page_renders_in_headless_chromium(leaderboard, tmp_path):
    page = (leaderboard / "leaderboard.html").resolve().as_uri()
    run = lambda *extra: subprocess.run(
        [CHROMIUM, *FLAGS, f"--user-data-dir={tmp_path / 'profile'}", *extra],
        capture_output=True,
        text=True,
        timeout=hang_guard(),
    )
    dom = run("--dump-dom", page + "#sort=4").stdout
    assert '<table id="leaderboard"' in dom and "stub-default" in dom and "e5-cosine" in dom
    # the picks first; the excluded rows (mostly baselines shown for reference) folded, before the figures
    assert (
        dom.index("Best judge per evaluation")
        < dom.index('<details id="excluded">')
        < dom.index('<table id="leaderboard"')
    )
    body = dom.split('<table id="leaderboard"')[1].split("</tbody>")[0]
    values = [row.split("<td")[5] for row in body.split("<tr")[2:]]
    numbers = [float(v.split('data-value="')[1].split('"')[0]) for v in values]
    assert numbers == sorted(numbers) and len(numbers) > 10  # the script sorted the value column on load
    shot = tmp_path / "page.png"
    run(f"--screenshot={shot}", "--window-size=1280,2000", page)
    from PIL import Image

    image = Image.open(shot).convert("L")
    assert image.size == (1280, 2000)
    assert len(set(image.getdata())) > 20  # text, table rules and plots, not a blank page


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (.ci/run installs it)")
def test_each_candidate_links_to_its_run_report_and_the_link_opens_it(leaderboard, tmp_path):
    import asyncio

    from cdp import Page

    data = json.loads((leaderboard / "leaderboard.json").read_text())
    unit = "unit_tests:unit_tests:test:first-16"
    expected = {
        e["candidate"]: f"runs/{e['candidate']}--unit_tests_unit_tests_test_first-16/report.html"
        for e in data["entries"]
        if e["evaluation"] == unit  # every candidate on unit tests has a run folder
    }
    assert set(expected) == {"stub-default", "oracle", "always-null", "always-top"}
    assert all((leaderboard / link).is_file() for link in expected.values())

    async def look() -> dict:
        async with Page(tmp_path / "profile") as page:
            await page.goto((leaderboard / "leaderboard.html").resolve().as_uri())
            links = await page.evaluate(
                "[...document.querySelectorAll('#leaderboard tbody tr')].filter(r => r.cells[0].textContent === "
                f"{json.dumps(unit)} && r.querySelector('a.report')).map(r => [r.cells[2].textContent,"
                " r.querySelector('a.report').getAttribute('href')])"
            )
            rows = await page.evaluate(
                "[...document.querySelectorAll('#leaderboard tbody tr')].map(r => [r.cells[0].textContent,"
                " r.cells[2].textContent])"
            )
            await page.click(f"#leaderboard tbody tr:nth-child({1 + rows.index([unit, 'stub-default'])}) a.report")
            await page.wait_for("Page.loadEventFired")
            return {
                "links": links,
                "location": await page.evaluate("location.href"),
                "title": await page.evaluate("document.querySelector('h1').textContent"),
            }

    seen = asyncio.run(look())
    assert {name: link for name, link in seen["links"]} == expected
    assert seen["location"].endswith("/runs/stub-default--unit_tests_unit_tests_test_first-16/report.html")
    assert seen["title"] == "judgelab unit tests: openai/stub / default"


def test_publish_dry_run_lists_files_and_commit(leaderboard):
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "judges.cli.main",
            "publish",
            str(leaderboard),
            "--repo",
            "someone/judge-board",
            "--dry-run",
        ],
        capture_output=True,
        text=True,
        env=ENV,
        timeout=hang_guard(),
    )
    assert result.returncode == 0, result.stderr
    assert "would commit to dataset repo someone/judge-board" in result.stdout
    for name in ("leaderboard.md", "leaderboard.csv", "leaderboard.json", "leaderboard.html"):
        assert f"  {name}  <- " in result.stdout
    # the run folders the page links to go with it, so its report links are not dead
    for candidate in ("stub-default", "oracle", "always-null", "always-top"):
        folder = f"runs/{candidate}--unit_tests_unit_tests_test_first-16"
        for name in ("report.html", "run.json", "summary.md", "results.jsonl"):
            assert f"  {folder}/{name}  <- " in result.stdout
    assert "dry run: nothing was pushed" in result.stdout
