"""Leaderboards: config checks, the selection rule, the Pareto front, an end-to-end run, Chromium, publish."""

import json
import os
import shutil
import subprocess
import sys

import pytest
from conftest import ROOT
from stub import stub_server

from judges.errors import ConfigError
from judges.leaderboard.config import Selection, load_config
from judges.leaderboard.entries import Entry
from judges.leaderboard.render import pareto_front
from judges.leaderboard.select import pick_best

ENV = {**os.environ, "PYTHONPATH": str(ROOT), "OPENAI_API_KEY": "sk-fake"}


def entry(candidate, value, low, high, cost=0.0, seconds=1.0, kind="llm", calls=1000, metric="faithfulness",
          evaluation="labels:x", failure_rate=0.0):
    return Entry(candidate=candidate, kind=kind, model="m", prompts="p", prompt_sha=None, evaluation=evaluation,
                 metric=metric, statistic="spearman", value=value, ci_low=low, ci_high=high, n=50,
                 failure_rate=failure_rate, calls=calls, cost_usd=cost, seconds=seconds)


def test_overlapping_intervals_tie_and_the_cheaper_judge_wins():
    leader = entry("big", 0.80, 0.70, 0.90, cost=10.0)
    cheap = entry("small", 0.74, 0.65, 0.82, cost=1.0)
    far = entry("tiny", 0.40, 0.30, 0.50, cost=0.1)
    [pick] = pick_best([leader, cheap, far], Selection())
    assert pick.winner.candidate == "small" and pick.leader.candidate == "big"
    assert pick.tied == ["big", "small"] and "cheaper" in pick.reason()


def test_equal_cost_ties_go_to_the_faster_judge_and_baselines_never_win():
    a = entry("slow", 0.80, 0.70, 0.90, seconds=5.0)
    b = entry("fast", 0.79, 0.69, 0.89, seconds=1.0)
    oracle = entry("oracle", 1.0, 1.0, 1.0, kind="baseline")
    [pick] = pick_best([a, b, oracle], Selection())
    assert pick.winner.candidate == "fast" and "oracle" in pick.excluded
    assert "as cheap and faster (0.00 vs 0.01 s per call)" in pick.reason()


def test_constraints_exclude_with_reasons():
    pricey = entry("pricey", 0.9, 0.85, 0.95, cost=50.0)
    flaky = entry("flaky", 0.85, 0.8, 0.9, failure_rate=0.3)
    weak_tests = entry("weak", 0.8, 0.75, 0.85)
    unit = entry("weak", 0.2, 0.1, 0.3, metric="total", evaluation="unit_tests:u:test")
    unit_ok = [entry(n, 0.9, 0.8, 0.95, metric="total", evaluation="unit_tests:u:test") for n in ("pricey", "flaky")]
    picks = pick_best([pricey, flaky, weak_tests, unit, *unit_ok],
                      Selection(max_cost_per_1k_calls=10, max_failure_rate=0.1, min_unit_test_pass_rate=0.5))
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
    path.write_text('[[candidates]]\nname = "a"\nmodel = "m"\ncolour = 1\n[[evaluations]]\nkind = "labels"\nsource = "x"\n')
    with pytest.raises(ConfigError) as raised:
        load_config(path)
    assert str(raised.value) == (f"{path}: unknown key 'candidates[0].colour'; expected one of api_base, baseline, "
                                 "kind, logprobs, metrics, model, name, params, prompts")
    path.write_text('[[candidates]]\nname = "a"\nkind = "metric"\nmodel = "m"\nmetrics = {faithfulness = "ragas_fidelity"}\n'
                    '[[evaluations]]\nkind = "labels"\nsource = "x"\n')
    with pytest.raises(ConfigError, match=r"candidates\[0\] \(a\): metrics.faithfulness = 'ragas_fidelity' is not"):
        load_config(path)
    path.write_text('[[candidates]]\nname = "a"\nmodel = "m"\nparams = {temprature = 0}\n'
                    '[[evaluations]]\nkind = "labels"\nsource = "x"\n')
    with pytest.raises(ConfigError) as raised:
        load_config(path)
    assert str(raised.value) == f"{path}: unknown key 'candidates[0].params.temprature'; did you mean 'temperature'?"


def test_config_misspelt_keys_name_the_nearest_valid_key(tmp_path):
    path = tmp_path / "c.toml"
    body = '[[candidates]]\nname = "a"\nmodel = "m"\n[[evaluations]]\nkind = "labels"\nsource = "x"\n'
    path.write_text('cahce = "c.sqlite"\n' + body)
    with pytest.raises(ConfigError) as raised:
        load_config(path)
    assert str(raised.value) == f"{path}: unknown key 'cahce'; did you mean 'cache'?"
    path.write_text(body + '[selection]\nmax_failure_rat = 0.1\n')
    with pytest.raises(ConfigError) as raised:
        load_config(path)
    assert str(raised.value) == f"{path}: unknown key 'selection.max_failure_rat'; did you mean 'max_failure_rate'?"
    path.write_text(body.replace('source = "x"', 'source = "x"\nlimit = "ten"'))
    with pytest.raises(ConfigError) as raised:
        load_config(path)
    assert str(raised.value) == f"{path}: evaluations[0].limit: input should be a valid integer, got 'ten'"


@pytest.fixture(scope="module")
def leaderboard(tmp_path_factory):
    out = tmp_path_factory.mktemp("leaderboard")
    template = (ROOT / "tests" / "data" / "leaderboard_stub.toml").read_text()
    with stub_server(latency_ms=1) as base:
        config = out / "config.toml"
        config.write_text(template.replace("STUB", base).replace("CACHE", str(out / "cache.sqlite"))
                          .replace("UNIT_TESTS", str(ROOT / "unit_tests")))
        result = subprocess.run([sys.executable, "-m", "judges.cli.main", "leaderboard", str(config), "--out",
                                 str(out / "board")], capture_output=True, text=True, env=ENV, cwd=out, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    return out / "board"


def test_leaderboard_writes_four_files_with_intervals_and_a_best_judge_per_metric(leaderboard):
    assert {"leaderboard.md", "leaderboard.csv", "leaderboard.json", "leaderboard.html"} <= {
        p.name for p in leaderboard.iterdir()}
    data = json.loads((leaderboard / "leaderboard.json").read_text())
    picks = {(p["evaluation"], p["metric"]): p for p in data["picks"]}
    assert ("labels:begin-cmu", "faithfulness") in picks and ("unit_tests:unit_tests:test", "total") in picks
    assert all(p["best"] not in ("oracle", "always-top") for p in data["picks"])
    oracle_total = [e for e in data["entries"] if e["candidate"] == "oracle" and e["metric"] == "total"]
    assert oracle_total[0]["value"] == 1.0
    for e in data["entries"]:
        if e["value"] is not None and e["kind"] != "baseline":
            assert e["ci_low"] <= e["value"] <= e["ci_high"] and e["n"] > 0
    assert data["meta"]["judges"]["stub-default"].startswith("openai/stub, prompts default (sha256 ")
    weighted = [e for e in data["entries"] if e["candidate"] == "stub-yes-prob"]
    assert {e["evaluation"] for e in weighted} == {"labels:begin-cmu", "labels:topical-chat"}  # no GroUSE grades
    assert all(e["prompts"] == "rag" and e["calls"] == 2 * 30 and e["failure_rate"] == 0 for e in weighted)
    assert "llamaindex_faithfulness" in data["meta"]["judges"]["stub-yes-prob"]
    [null_on_labels] = [e for e in data["entries"] if e["candidate"] == "always-null" and e["evaluation"] == "labels:begin-cmu"]
    assert null_on_labels["value"] is None and "null or failed" in null_on_labels["note"]
    assert "sha256" in data["meta"]["data"]["unit_tests:unit_tests:test"]
    import pandas as pd

    frame = pd.read_csv(leaderboard / "leaderboard.csv")
    assert len(frame) == len(data["entries"]) and "cost_per_1k_calls" in frame.columns


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (.ci/run installs it)")
def test_html_page_renders_in_headless_chromium(leaderboard, tmp_path):
    page = (leaderboard / "leaderboard.html").resolve().as_uri()
    run = lambda *extra: subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={tmp_path / 'profile'}", *extra],  # noqa: E731
                                        capture_output=True, text=True, timeout=120)
    dom = run("--dump-dom", page + "#sort=4").stdout
    assert '<table id="leaderboard"' in dom and "stub-default" in dom and "e5-cosine" in dom
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


def test_publish_dry_run_lists_files_and_commit(leaderboard):
    result = subprocess.run([sys.executable, "-m", "judges.cli.main", "publish", str(leaderboard), "--repo",
                             "someone/judge-board", "--dry-run"], capture_output=True, text=True, env=ENV, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "would commit to dataset repo someone/judge-board" in result.stdout
    for name in ("leaderboard.md", "leaderboard.csv", "leaderboard.json", "leaderboard.html"):
        assert f"  {name}  <- " in result.stdout
    assert "dry run: nothing was pushed" in result.stdout
