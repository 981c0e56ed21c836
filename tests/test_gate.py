"""The validation gate, run comparison and the pytest plugin, against the loopback stub judge."""

import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from conftest import ROOT, hang_guard
from stub import stats, stub_server

from judges.errors import ConfigError
from judges.integrations.gate import Bar, GateConfig, check_bars

ENV = {**os.environ, "PYTHONPATH": str(ROOT), "OPENAI_API_KEY": "sk-fake"}
TESTS = str(ROOT / "unit_tests" / "test.jsonl")


def judgelab(*args, cwd):
    return subprocess.run(
        [sys.executable, "-m", "judges.cli.main", *args],
        capture_output=True,
        text=True,
        env=ENV,
        cwd=cwd,
        timeout=hang_guard(),
    )


def pytest_gate(config_name, folder, env=ENV):
    """`pytest --judgelab CONFIG FOLDER` run from `folder`, as a team would run its gate."""
    return subprocess.run(
        [sys.executable, "-m", "pytest", "--judgelab", config_name, "-p", "no:cacheprovider", str(folder)],
        capture_output=True,
        text=True,
        env=env,
        cwd=folder,
        timeout=hang_guard(),
    )


@pytest.fixture(scope="module")
def stub():
    with stub_server(latency_ms=1) as base:
        yield base


def test_bars_parse_and_check():
    from judges.records import MetricSummary, Summary
    from judges.suite.outcome_summary import OutcomeSummary

    summary = Summary(
        part=OutcomeSummary(total_pass_rate=0.5),
        metrics={
            m: MetricSummary(pass_rate=0.9, n=10, failures=1)
            for m in (
                "answer_relevancy",
                "completeness",
                "faithfulness",
                "usefulness",
                "positive_acceptance",
                "negative_rejection",
            )
        },
    )
    bars = [Bar.parse("faithfulness=0.8"), Bar.parse("total=0.6"), Bar.parse("format_failure_rate=0.05", "max")]
    results = check_bars(summary, bars)
    assert [r.passed for r in results] == [True, False, False]
    assert results[2].measured == pytest.approx(0.1)
    assert results[1].describe() == "FAIL total >= 0.6 (measured 0.500)"
    for bad in ("faithfulness", "speed=0.5", "total=high", "total=1.5"):
        with pytest.raises(ConfigError):
            Bar.parse(bad)


def test_config_file_errors_are_one_line(tmp_path):
    path = tmp_path / "gate.toml"
    path.write_text("[judge]\nmodel = 'x'\n")
    with pytest.raises(ConfigError, match="no bars"):
        GateConfig.load(path)
    path.write_text("[min]\ntotal = 0.5\n[extra]\n")
    with pytest.raises(ConfigError) as raised:
        GateConfig.load(path)
    assert str(raised.value) == f"{path}:3: unknown key 'extra'; expected one of baseline, judge, max, min, tests"


def test_config_misspelt_keys_name_the_nearest_valid_key(tmp_path):
    path = tmp_path / "gate.toml"
    path.write_text("[mins]\ntotal = 0.5\n")
    with pytest.raises(ConfigError) as raised:
        GateConfig.load(path)
    assert str(raised.value) == f"{path}:1: unknown key 'mins'; did you mean 'min'?"
    path.write_text("[judge]\nmodle = 'openai/x'\n[min]\nfaithfullness = 0.9\n")
    with pytest.raises(ConfigError) as raised:
        GateConfig.load(path)
    assert str(raised.value) == (
        f"{path}:2: unknown key 'judge.modle'; did you mean 'model'?\n"
        f"{path}:4: unknown key 'min.faithfullness'; did you mean 'faithfulness'?"
    )
    path.write_text("[min]\nfaithfullness = 0.9\n")
    with pytest.raises(ConfigError) as raised:
        GateConfig.load(path)
    assert str(raised.value) == f"{path}:2: unknown key 'min.faithfullness'; did you mean 'faithfulness'?"
    path.write_text("[tests]\nlimit = 'all'\n[min]\ntotal = 1.5\n")
    with pytest.raises(ConfigError) as raised:
        GateConfig.load(path)
    assert str(raised.value) == (
        f"{path}:2: tests.limit: input should be a valid integer, got 'all'\n"
        f"{path}:4: min.total: input should be less than or equal to 1, got 1.5"
    )
    path.write_text("[min]\ntotal = 0.8\nfaithfulness = 1\n[max]\nformat_failure_rate = 0.1\n")
    assert [bar.name for bar in GateConfig.load(path).bars] == [
        "total >= 0.8",
        "faithfulness >= 1",
        "format_failure_rate <= 0.1",
    ]


def test_validate_fails_a_judge_below_its_bar_and_writes_junit(tmp_path, stub):
    common = [
        "--judge",
        "openai/stub",
        "--api-base",
        stub,
        "--tests",
        TESTS,
        "--limit",
        "16",
        "--cache",
        str(tmp_path / "c.sqlite"),
    ]
    failing = judgelab(
        "validate",
        *common,
        "--min",
        "total=0.99",
        "--min",
        "completeness=0.0",
        "--out",
        str(tmp_path / "v1"),
        "--junit",
        str(tmp_path / "junit.xml"),
        cwd=tmp_path,
    )
    assert failing.returncode == 1, failing.stderr[-2000:]
    assert "FAIL total >= 0.99" in failing.stdout and "PASS completeness >= 0" in failing.stdout
    bars, unit_tests = ET.parse(tmp_path / "junit.xml").getroot().findall("testsuite")
    assert bars.get("name") == "judgelab.openai/stub.bars"
    assert bars.get("tests") == "2" and bars.get("failures") == "1"
    failed = [case for case in bars.iter("testcase") if case.find("failure") is not None]
    assert [case.get("name") for case in failed] == ["total >= 0.99"]
    # one case per unit test; each one not passed names the metric, condition, grade given and justification
    records = [json.loads(line) for line in (tmp_path / "v1" / "results.jsonl").read_text().splitlines()]
    not_passed = {r["id"]: r for r in records if not r["passed_all"]}
    assert unit_tests.get("tests") == "16" and unit_tests.get("failures") == str(len(not_passed)) != "0"
    cases = {case.get("name"): case.find("failure") for case in unit_tests.iter("testcase")}
    assert set(cases) == {r["id"] for r in records}
    assert {name for name, failure in cases.items() if failure is not None} == set(not_passed)
    test_id, record = next(iter(not_passed.items()))
    metric, entry = next((m, e) for m, e in record["metrics"].items() if e["outcome"] != "pass")
    given = entry["verdict"].get("grade")
    shown = "null" if given is None else f"{given:g}"
    if entry["outcome"] == "wrong_grade":
        expected = f"{metric}: expected {entry['condition']}, got {shown} (wrong grade)"
        assert expected in cases[test_id].get("message")
    # the terminal lists the tests behind the missed bar
    first = next(m for m in records[0]["metrics"] if records[0]["metrics"][m]["outcome"] != "pass")
    assert f"  {records[0]['id']}: {first}: expected " in failing.stdout
    passing = judgelab("validate", *common, "--min", "total=0.0", "--out", str(tmp_path / "v2"), cwd=tmp_path)
    assert passing.returncode == 0 and (tmp_path / "v2" / "junit.xml").is_file()


def test_compare_lists_flips_and_the_train_test_gap(tmp_path, stub):
    tuned = tmp_path / "tuned"
    tuned.mkdir()
    for template in (ROOT / "prompts" / "default").glob("*.jinja"):
        (tuned / template.name).write_text(
            template.read_text().replace("You grade answers", "You carefully grade answers")
        )
    runs = {}
    for name, prompts, split_args in [
        ("a", "default", ["--tests", TESTS]),
        ("b", str(tuned), ["--tests", TESTS]),
        ("b-train", str(tuned), ["--tests", str(ROOT / "unit_tests"), "--split", "train"]),
    ]:
        result = judgelab(
            "meta-eval",
            "--judge",
            "openai/stub",
            "--api-base",
            stub,
            "--prompts",
            prompts,
            *split_args,
            "--limit",
            "16",
            "--out",
            str(tmp_path / name),
            "--cache",
            str(tmp_path / "c.sqlite"),
            cwd=tmp_path,
        )
        assert result.returncode == 0, result.stderr[-2000:]
        runs[name] = json.loads((tmp_path / name / "run.json").read_text())
    out = judgelab("compare", str(tmp_path / "a"), str(tmp_path / "b"), str(tmp_path / "b-train"), cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    flipped = re.search(r"## a -> b: (\d+) flipped outcomes \((\d+) now pass, (\d+) now do not\)", out.stdout)
    assert flipped and int(flipped.group(1)) > 0  # the stub grades by prompt text, so a new prompt flips some
    assert int(flipped.group(1)) == int(flipped.group(2)) + int(flipped.group(3))
    assert "## Train versus test" in out.stdout and "## a -> b-train" not in out.stdout


def test_pytest_plugin_turns_bars_into_test_items(tmp_path, stub):
    config = tmp_path / "judge.toml"
    config.write_text(f"""
[judge]
model = "openai/stub"
api_base = "{stub}"
cache = "{tmp_path / "c.sqlite"}"
[tests]
source = "{TESTS}"
limit = 8
[min]
total = 0.99
faithfulness = 0.0
""")
    # the plugin streams the gate's records from results.jsonl: reading the whole run into memory fails the session
    (tmp_path / "conftest.py").write_text(
        "from judges.runs.run import Run\n\n\ndef whole(run):\n    raise SystemExit('a whole run was read')\n\n\n"
        "Run.records = property(whole)\n"
    )
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--judgelab",
            str(config),
            "-p",
            "no:cacheprovider",
            "--basetemp",
            str(tmp_path / "basetemp"),
            "--rootdir",
            str(tmp_path),
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        env=ENV,
        cwd=tmp_path,
        timeout=hang_guard(),
    )
    assert result.returncode == 1, result.stdout[-3000:]
    assert "collected 10 items" in result.stdout  # two bars and eight unit tests
    records = [
        json.loads(line)
        for line in next((tmp_path / "results" / "runs").glob("*-gate-judge/results.jsonl")).read_text().splitlines()
    ]
    passed = sum(r["passed_all"] for r in records)
    counts = f"1 failed, {1 + passed} passed" + (f", {8 - passed} xfailed" if passed < 8 else "")
    assert counts in result.stdout
    assert "FAIL total >= 0.99 (measured " in result.stdout
    # the missed bar's message lists the tests not passed, and no traceback
    missed = next(r for r in records if not r["passed_all"])
    assert f"  {missed['id']}: " in result.stdout and "Traceback" not in result.stdout
    assert "runtest" not in result.stdout and len(result.stdout.splitlines()) < 40
    # the run folder lands beside the config, not under pytest's temporary folder, and the last lines name it
    assert f"report: {tmp_path / 'results' / 'runs'}" in result.stdout and "report.html" in result.stdout


def test_pytest_plugin_user_errors_are_one_line(tmp_path):
    """`pytest --judgelab missing.toml` (or a file that is not TOML) says so in one line: no traceback."""
    (tmp_path / "bad.toml").write_text("judge = [\n")
    for name, expected in (("missing.toml", "config file not found"), ("bad.toml", "not valid TOML")):
        result = pytest_gate(name, tmp_path)
        output = (result.stdout + result.stderr).strip().splitlines()
        assert result.returncode == 4, output
        assert output == [f"ERROR: judgelab: {name}: {expected}" + output[0].split(expected, 1)[1]], output
        assert "Traceback" not in result.stderr


def test_pytest_plugin_names_a_missing_api_key_once_before_collecting(tmp_path):
    """A gate whose judge needs a key that is not set stops as the CLI does, in one line before any call, instead of
    failing every bar and every unit test with the same message."""
    (tmp_path / "judge.toml").write_text('[judge]\nmodel = "gpt-4o-mini"\n[tests]\nlimit = 8\n[min]\ntotal = 0.5\n')
    env = {k: v for k, v in ENV.items() if k != "OPENAI_API_KEY"}
    result = pytest_gate("judge.toml", tmp_path, env)
    output = (result.stdout + result.stderr).strip().splitlines()
    assert result.returncode == 4, output
    assert output == ["ERROR: judgelab: missing API key for gpt-4o-mini: set OPENAI_API_KEY in the environment"]
    assert not (tmp_path / "results").exists()  # no run folder: nothing ran


def test_a_gate_replaying_recorded_replies_needs_no_api_key(tmp_path, stub):
    """Recorded once against an endpoint, the gate then runs in CI from its cache alone: no network, no key (the
    endpoint named, as the replies are cached under it, and never called)."""
    judge = f'model = "openai/stub"\ncache = "{tmp_path / "c.sqlite"}"\n'
    rest = f'[tests]\nsource = "{TESTS}"\nlimit = 4\n[min]\nfaithfulness = 0.0\n'
    (tmp_path / "record.toml").write_text(f'[judge]\n{judge}api_base = "{stub}"\n{rest}')
    (tmp_path / "replay.toml").write_text(f'[judge]\n{judge}api_base = "{stub}"\ncache_mode = "replay"\n{rest}')
    recorded = judgelab("validate", "--config", str(tmp_path / "record.toml"), cwd=tmp_path)
    assert recorded.returncode == 0, recorded.stderr
    env = {k: v for k, v in ENV.items() if k != "OPENAI_API_KEY"}
    called = stats(stub)["chat"]
    result = pytest_gate("replay.toml", tmp_path, env)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert stats(stub)["chat"] == called
    assert "collected 5 items" in result.stdout and "missing API key" not in result.stdout + result.stderr
    run = json.loads(next((tmp_path / "results" / "runs").glob("*-gate-replay/run.json")).read_text())
    assert run["summary"]["usage"]["cached_calls"] == run["summary"]["usage"]["calls"] > 0


EXITING_PLUGIN = "import sys\nprint('plug-in says hello on stdout')\nsys.exit(0)\n"


def exiting_plugin(tmp_path, group="judgelab.pages"):
    """An installed package `judgelab-exits` 0.1 whose one module prints and calls sys.exit(0) at import."""
    site = tmp_path / "exits-site"
    info = site / "judgelab_exits-0.1.dist-info"
    info.mkdir(parents=True)
    (site / "judgelab_exits.py").write_text(EXITING_PLUGIN, encoding="utf-8")
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: judgelab-exits\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(f"[{group}]\nexits = judgelab_exits:write\n", encoding="utf-8")
    return site


def test_a_plugin_calling_sys_exit_at_import_cannot_pass_a_failing_gate(tmp_path, stub):
    site = exiting_plugin(tmp_path)
    env = {**ENV, "PYTHONPATH": f"{ROOT}{os.pathsep}{site}"}
    failing = subprocess.run(
        [sys.executable, "-m", "judges.cli.main", "validate", "--judge", "openai/stub", "--api-base", stub]
        + ["--tests", TESTS, "--limit", "8", "--cache", str(tmp_path / "c.sqlite"), "--min", "total=0.99"]
        + ["--out", str(tmp_path / "v"), "--junit", str(tmp_path / "junit.xml")],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=300,
    )
    assert failing.returncode == 1, failing.stderr[-2000:]
    assert (tmp_path / "junit.xml").is_file() and "FAIL total >= 0.99" in failing.stdout
    assert "plug-in says hello" not in failing.stdout  # its print went to stderr, judgelab's stdout is its own
    warning = [line for line in failing.stderr.splitlines() if "judgelab-exits" in line]
    assert warning == [
        "judgelab: warning: package judgelab-exits 0.1, entry point judgelab.pages 'exits' (judgelab_exits:write) "
        "cannot be loaded: SystemExit: 0; its names are left out"
    ]


def test_a_plugin_calling_sys_exit_or_raising_keyboard_interrupt_is_a_plugin_error(tmp_path, monkeypatch):
    from judges import plugins

    site = exiting_plugin(tmp_path, "judgelab.probes")
    (site / "judgelab_stops.py").write_text("raise KeyboardInterrupt\n", encoding="utf-8")
    info = site / "judgelab_exits-0.1.dist-info" / "entry_points.txt"
    info.write_text("[judgelab.probes]\nexits = judgelab_exits:Probe\nstops = judgelab_stops:Probe\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(site))
    plugins.entries.cache_clear()
    try:
        with pytest.raises(
            plugins.PluginError, match=r"'exits' \(judgelab_exits:Probe\) cannot be loaded: SystemExit: 0$"
        ):
            plugins.load("probes", "exits")
        with pytest.raises(
            plugins.PluginError, match=r"'stops' \(judgelab_stops:Probe\) cannot be loaded: KeyboardInterrupt$"
        ):
            plugins.load("probes", "stops")
    finally:
        plugins.entries.cache_clear()


def test_gate_bars_outside_a_rate_are_refused_before_any_call(tmp_path):
    for bar in ("total=1.5", "total=-0.1", "total=nan", "total=-inf", "completeness=inf"):
        result = judgelab(
            "validate",
            "--judge",
            "openai/stub",
            "--api-base",
            "http://127.0.0.1:9",
            "--min",
            bar,
            "--tests",
            TESTS,
            "--limit",
            "2",
            "--out",
            str(tmp_path / "v"),
            cwd=tmp_path,
        )
        assert result.returncode == 2 and len(result.stderr.splitlines()) == 1, (bar, result.stderr)
        assert "a rate lies between 0 and 1" in result.stderr and not (tmp_path / "v").exists()


def test_an_unwritable_junit_or_out_is_refused_before_any_call(tmp_path):
    """The endpoint is a closed loopback port: a check made only after the calls would end in exit 3, not 2."""
    common = ["validate", "--judge", "openai/stub", "--api-base", "http://127.0.0.1:9", "--tests", TESTS]
    common += ["--limit", "2", "--min", "total=0.5", "--cache", str(tmp_path / "c.sqlite")]
    (tmp_path / "afile").write_text("x")
    cases = [
        (
            ["--junit", str(tmp_path), "--out", str(tmp_path / "v")],
            f"--junit {tmp_path}: is a folder; a file is expected here",
        ),
        (
            ["--junit", str(tmp_path / "afile" / "j.xml"), "--out", str(tmp_path / "v")],
            "is a file, so nothing can be written under it",
        ),
    ]
    if Path("/sys").is_dir():  # root passes every permission check, yet nothing can be made under /sys
        cases.append((["--out", "/sys/judgelab-x"], "--out /sys/judgelab-x: cannot write in /sys ("))
        cases.append(
            (
                ["--junit", "/sys/judgelab-x.xml", "--out", str(tmp_path / "v")],
                "--junit /sys/judgelab-x.xml: cannot write in /sys (",
            )
        )
    for extra, message in cases:
        result = judgelab(*common, *extra, cwd=tmp_path)
        assert result.returncode == 2 and len(result.stderr.splitlines()) == 1, result.stderr
        assert result.stderr.startswith("judgelab: error: ") and message in result.stderr, result.stderr
        assert not (tmp_path / "v").exists()
