"""Plug-ins: another package registers a metric, a probe and an executor through entry points, and the CLI runs them
without a line of judges/ changed; misses say "did you mean", a missing dependency names its pip extra.

The package is written into a temporary folder as an installed distribution would be (a module beside its
`.dist-info` with `entry_points.txt`) and put on PYTHONPATH; the commands run in a subprocess against the loopback
stub server (benchmarks/stub_server.py), never the network.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import ROOT, hang_guard
from stub import comparable, read_records, stub_server

from judges import plugins
from judges.errors import ConfigError

TESTS = str(ROOT / "unit_tests" / "test.jsonl")

PLUGIN = '''
"""A third-party judgelab plug-in: a metric, a probe and an executor."""
import dataclasses, json, os
from judges.calls.openai_http import OpenAIHTTPBackend
from judges.rag.spec import MetricSpec, Scored

async def answer_words(run):
    return Scored(float(len(run.sample.actual_output.split())), {"counted": "words"})

ANSWER_WORDS = MetricSpec("answer_words", "demo", ("actual_output",), "judgelab_demo:answer_words",
                          "words in the answer", uses_judge=False, value_range=(0.0, 10000.0))

class ShoutAnswer:
    name = "shout_answer"
    changes = "the answer in capital letters"
    expects = {"faithfulness": "same", "completeness": "same"}

    def apply(self, sample, key, known=None):
        return dataclasses.replace(sample, actual_output=sample.actual_output.upper())

class InlineExecutor:
    """Answers each window's rows itself, one call at a time, and notes how many it answered."""
    name, window, retry_failures = "inline", 2, False

    def __init__(self, api_base, log):
        self.backend = OpenAIHTTPBackend(api_base=api_base, timeout_s=30, connection={})
        self.log = log

    def begin(self, runtime, out):
        pass

    async def run(self, rows, sink):
        for row in rows:
            sink.reply(row, await self.backend.complete(row.request()))
        with open(self.log, "a") as handle:
            handle.write(json.dumps(len(rows)) + "\\n")

    def finish(self):
        pass

    def close(self):
        pass

def open_inline(config, model, settings):
    return InlineExecutor(config.api_bases()[0], os.environ["DEMO_EXECUTOR_LOG"])
'''

ENTRY_POINTS = """[judgelab.metrics]
answer_words = judgelab_demo:ANSWER_WORDS

[judgelab.probes]
shout_answer = judgelab_demo:ShoutAnswer

[judgelab.executors]
inline = judgelab_demo:open_inline
"""


@pytest.fixture
def installed(tmp_path: Path) -> Path:
    """The plug-in package, laid out as pip installs one, in its own site folder."""
    site = tmp_path / "site"
    (site / "judgelab_demo-0.1.dist-info").mkdir(parents=True)
    (site / "judgelab_demo.py").write_text(PLUGIN, encoding="utf-8")
    info = site / "judgelab_demo-0.1.dist-info"
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: judgelab-demo\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(ENTRY_POINTS, encoding="utf-8")
    return site


def judgelab(site: Path, *args: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "judges.cli.main", *args],
        env={**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{site}", "OPENAI_API_KEY": "sk-test", **env},
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=hang_guard(),
    )


def test_a_plugin_metric_runs_from_the_cli(installed: Path, tmp_path: Path) -> None:
    data = tmp_path / "samples.jsonl"
    rows = [{"input": "q?", "actual_output": "one two three"}, {"input": "q2?", "actual_output": "a b c d e"}]
    data.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    listed = judgelab(installed, "metrics", "--list", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert "answer_words" in listed.stdout and "faithfulness" in listed.stdout  # beside the built-ins
    done = judgelab(
        installed, "metrics", "--metrics", "answer_words", "--data", str(data), "--out", "run", cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    lines = (tmp_path / "run/results.jsonl").read_text(encoding="utf-8").splitlines()
    values = [json.loads(line)["metrics"]["answer_words"]["verdict"]["grade"] for line in lines]
    assert values == [3.0, 5.0]
    missed = judgelab(installed, "metrics", "--metrics", "answer_word", "--data", str(data), cwd=tmp_path)
    assert missed.returncode == 2 and "did you mean answer_words" in missed.stderr


def test_a_plugin_probe_runs_from_the_cli(installed: Path, tmp_path: Path) -> None:
    with stub_server(latency_ms=1) as base:
        done = judgelab(
            installed, "probe", "--tests", TESTS, "--limit", "2", "--probe", "shout_answer", "--judge", "openai/stub",
            "--api-base", base, "--cache", "c.sqlite", "--out", "run", "--quiet", cwd=tmp_path,
        )  # fmt: skip
    assert done.returncode == 0, done.stderr
    summary = json.loads((tmp_path / "run/run.json").read_text(encoding="utf-8"))["summary"]["probes"]
    assert {(row["probe"], row["metric"]) for row in summary["rows"]} == {
        ("shout_answer", "faithfulness"),
        ("shout_answer", "completeness"),
    }
    assert "shout_answer" in (tmp_path / "run/summary.md").read_text(encoding="utf-8")


def test_a_plugin_executor_settles_the_run_with_the_records_of_a_local_run(installed: Path, tmp_path: Path) -> None:
    log = tmp_path / "executor.log"
    with stub_server(latency_ms=1) as base:
        common = ("evaluate", TESTS, "--limit", "3", "--judge", "openai/stub", "--api-base", base, "--quiet")
        inline = judgelab(
            installed, *common, "--executor", "inline", "--cache", "a.sqlite", "--out", "inline", cwd=tmp_path,
            DEMO_EXECUTOR_LOG=str(log),
        )  # fmt: skip
        local = judgelab(installed, *common, "--cache", "b.sqlite", "--out", "local", cwd=tmp_path)
    assert inline.returncode == 0, inline.stderr
    assert local.returncode == 0, local.stderr
    answered = [int(line) for line in log.read_text(encoding="utf-8").split()]
    assert sum(answered) > 0  # every call of the run went through the executor, in windows of two tests
    run = json.loads((tmp_path / "inline/run.json").read_text(encoding="utf-8"))
    assert run["usage"]["calls"] == sum(answered)  # paid calls made by the executor count as the run's
    assert comparable(read_records(tmp_path / "inline")) == comparable(read_records(tmp_path / "local"))


def test_an_unknown_executor_hears_did_you_mean(installed: Path, tmp_path: Path) -> None:
    done = judgelab(installed, "evaluate", TESTS, "--limit", "1", "--executor", "inlin", cwd=tmp_path)
    assert done.returncode == 2
    assert "--executor must be one of local, batch, ray, inline (did you mean 'inline'?)" in done.stderr


def test_a_missing_dependency_names_the_pip_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(plugins.EXTRAS, "judgelab_absent_engine", "engine")
    with pytest.raises(
        ConfigError, match=r"needs judgelab_absent_engine, which is not installed: pip install 'judgelab\[engine\]'"
    ):
        plugins.resolve("judgelab_absent_engine.runner:open", "executors 'engine'")
    with pytest.raises(ConfigError, match=r"unknown probe 'swap_answer'; did you mean swap_answers\?"):
        plugins.load("probes", "swap_answer")


def test_the_builtins_register_as_plugins_and_listing_imports_none() -> None:
    assert set(plugins.names("executors")) >= {"batch", "ray"}
    assert plugins.names("probes")[:2] == ["shuffle_references", "swap_answers"]
    code = "import sys; from judges import plugins; plugins.names('executors'); print(sorted(m for m in sys.modules if m.startswith('judges.executors')))"
    done = subprocess.run(
        [sys.executable, "-c", code], env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True
    )
    assert done.stdout.strip() == "[]", done.stderr


# A broken package: only its own names fail, each in one line naming the package, its entry point and the error.
MARKER = "import os, pathlib; pathlib.Path(os.environ['BROKEN_MARKER']).write_text('imported')\n"
BROKEN_MODULES = {
    "raises on import": (MARKER + "raise RuntimeError('boom at import')\n", "METRIC", "RuntimeError: boom at import"),
    "syntax error": (MARKER + "def broken(:\n", "METRIC", "SyntaxError: "),
    "missing attribute": (MARKER + "OTHER = 1\n", "METRIC", "AttributeError: "),
    "wrong type": (MARKER + "METRIC = 42\n", "METRIC", "gives int, not a MetricSpec"),
    "factory raises": (MARKER + "def METRIC():\n    raise ValueError('no specs today')\n", "METRIC", "ValueError: no"),
}


def broken_package(tmp_path: Path, module: str, attr: str, group: str = "judgelab.metrics") -> Path:
    """`judgelab-broken` 0.1: one module, `judgelab_broken`, under one entry point, `broken_thing` of `group`."""
    site = tmp_path / "broken-site"
    info = site / "judgelab_broken-0.1.dist-info"
    info.mkdir(parents=True)
    (site / "judgelab_broken.py").write_text(module, encoding="utf-8")
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: judgelab-broken\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(f"[{group}]\nbroken_thing = judgelab_broken:{attr}\n", encoding="utf-8")
    return site


@pytest.mark.parametrize("case", list(BROKEN_MODULES))
def test_a_broken_metric_package_fails_only_its_own_name(case: str, tmp_path: Path) -> None:
    module, attr, error = BROKEN_MODULES[case]
    site = broken_package(tmp_path, module, attr)
    data = tmp_path / "samples.jsonl"
    data.write_text(json.dumps({"input": "q?", "actual_output": "a", "references": ["r"]}) + "\n", encoding="utf-8")
    marker = tmp_path / "imported"
    env = {"BROKEN_MARKER": str(marker)}
    named = "package judgelab-broken 0.1, entry point judgelab.metrics 'broken_thing' (judgelab_broken:METRIC)"

    builtin = judgelab(
        site, "metrics", "--metrics", "ragas_faithfulness", "--data", str(data), "--dry-run", cwd=tmp_path, **env
    )
    assert builtin.returncode == 0, builtin.stderr
    assert "1 samples x 1 metrics" in builtin.stdout and builtin.stderr == ""
    assert not marker.exists()  # a built-in name is resolved without importing the other package

    listed = judgelab(site, "metrics", "--list", cwd=tmp_path, **env)
    assert listed.returncode == 0, listed.stderr
    assert "ragas_faithfulness" in listed.stdout and "broken_thing" not in listed.stdout
    [warning] = listed.stderr.splitlines()
    assert warning.startswith(f"judgelab: warning: {named}") and error in warning

    used = judgelab(site, "metrics", "--metrics", "broken_thing", "--data", str(data), cwd=tmp_path, **env)
    assert used.returncode == 2
    [line] = used.stderr.splitlines()
    assert line.startswith(f"judgelab: error: {named}") and error in line


def test_an_executor_factory_that_returns_none_is_an_error_naming_it(tmp_path: Path) -> None:
    site = broken_package(tmp_path, "def open_nothing(config, model, settings):\n    return None\n", "open_nothing",
                          "judgelab.executors")  # fmt: skip
    with stub_server(latency_ms=1) as base:
        done = judgelab(
            site, "evaluate", TESTS, "--limit", "1", "--judge", "openai/stub", "--api-base", base,
            "--executor", "broken_thing", "--cache", "c.sqlite", "--out", "run", "--quiet", cwd=tmp_path,
        )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines()[-1] == (
        "judgelab: error: package judgelab-broken 0.1, entry point judgelab.executors 'broken_thing' "
        "(judgelab_broken:open_nothing) returns NoneType, not an Executor (judges.executors.settle)"
    )


@pytest.fixture
def broken_probe(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A package whose probe raises on import, found by this process's plug-in registries."""
    site = broken_package(tmp_path, MARKER + "raise RuntimeError('no probe')\n", "Probe", "judgelab.probes")
    monkeypatch.setenv("BROKEN_MARKER", str(tmp_path / "imported"))
    monkeypatch.syspath_prepend(str(site))
    plugins.entries.cache_clear()
    yield
    plugins.entries.cache_clear()


def test_a_broken_probe_package_is_left_out_of_every_probe_with_a_warning(
    broken_probe: None, capsys: pytest.CaptureFixture[str]
) -> None:
    from judges.probes.probe_registry import probes_named, shipped_probes

    assert [probe.name for probe in probes_named(["swap_answers"])] == ["swap_answers"]
    assert capsys.readouterr().err == ""
    assert [probe.name for probe in shipped_probes()] == list(plugins.BUILTINS["probes"])
    assert [probe.name for probe in probes_named([])] == list(plugins.BUILTINS["probes"])  # warned once
    [warning] = capsys.readouterr().err.splitlines()
    assert "package judgelab-broken 0.1, entry point judgelab.probes 'broken_thing'" in warning
    assert warning.endswith("RuntimeError: no probe; its names are left out")
    with pytest.raises(plugins.PluginError, match=r"^package judgelab-broken 0\.1, .* RuntimeError: no probe$"):
        probes_named(["broken_thing"])
