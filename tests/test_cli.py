"""The command line: fast help without LiteLLM, one-line errors, check-tests, and runs from outside the checkout."""

import os
import subprocess
import sys

import pytest
from conftest import ROOT, hang_guard, record, write_jsonl

from judges.cli.main import main

ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def run_cli(*args, cwd=None, env=None):
    return subprocess.run(
        [sys.executable, "-m", "judges.cli.main", *args],
        capture_output=True,
        text=True,
        cwd=cwd or ROOT,
        env=env or ENV,
        timeout=hang_guard(),
    )


def test_help_does_not_import_litellm():
    code = (
        "import sys\nfrom judges.cli.main import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "heavy = [m for m in ('litellm', 'pandas', 'datasets', 'jinja2', 'matplotlib') if m in sys.modules]\n"
        "print('HEAVY', heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=ENV, cwd=ROOT).stdout
    assert "meta-eval" in out and "HEAVY []" in out


def test_evaluate_imports_only_what_evaluate_needs():
    """`evaluate` (its help, and its command module) loads neither the cascade's nor agreement's modules (nor their
    commands'), nor scipy, pandas, matplotlib or LiteLLM: a fully cached re-run pays for none of them at start."""
    code = (
        "import sys\nfrom judges.cli.main import main\ntry:\n    main(['evaluate', '--help'])\nexcept SystemExit:\n"
        "    pass\nimport judges.cli.evaluate_cmd\n"
        "loaded = [m for m in sys.modules if m.split('.')[0] in ('scipy', 'pandas', 'matplotlib', 'litellm')\n"
        "          or m.startswith(('judges.cascade', 'judges.agreement', 'judges.leaderboard', 'judges.tuning',\n"
        "                           'judges.labelling', 'judges.cli.cascade_cmd', 'judges.cli.agreement_cmd'))]\n"
        "print('LOADED', sorted(loaded))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=ENV, cwd=ROOT, timeout=120)
    assert "--cascade CALIBRATION_JSON" in done.stdout, done.stderr[-2000:]
    assert "LOADED []" in done.stdout


@pytest.mark.parametrize(
    "args, message",
    [
        (["meta-eval", "--tests", "missing.jsonl"], "missing.jsonl: unit-test file or folder not found"),
        (["meta-eval", "--prompts", "nope"], "prompt folder not found: nope"),
        (["meta-eval", "--extra", "[1]"], "--extra must be a JSON object"),
        (["meta-eval", "--judge", "local/unknown"], "unknown local judge"),
        (["evaluate", "missing.jsonl"], "missing.jsonl: file not found"),
        (["plot", "."], "not a run folder"),
    ],
)
def test_user_errors_print_one_line_and_exit_2(args, message, capsys):
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and message in err and err.startswith("judgelab: error:")


def test_missing_api_key_fails_before_any_call(tmp_path):
    tests = write_jsonl(tmp_path / "u.jsonl", [record()])
    env = {k: v for k, v in ENV.items() if k != "OPENAI_API_KEY"}
    result = run_cli(
        "meta-eval",
        "--judge",
        "gpt-4o-mini",
        "--tests",
        str(tests),
        "--out",
        str(tmp_path / "run"),
        "--cache",
        str(tmp_path / "c.sqlite"),
        env=env,
    )
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "missing API key for gpt-4o-mini: set OPENAI_API_KEY" in result.stderr
    assert not (tmp_path / "run" / "results.jsonl").exists()


def test_a_replay_run_needs_no_api_key_and_stops_at_its_first_unrecorded_reply(tmp_path):
    from judges.calls.cache import CacheMode, ReplyCache

    tests = write_jsonl(tmp_path / "u.jsonl", [record()])
    ReplyCache(tmp_path / "c.sqlite", CacheMode.READ_WRITE).close()  # a recorded cache, here with no reply in it
    env = {k: v for k, v in ENV.items() if k != "OPENAI_API_KEY"}
    args = ["--tests", str(tests), "--out", str(tmp_path / "run"), "--cache", str(tmp_path / "c.sqlite")]
    result = run_cli("meta-eval", "--judge", "gpt-4o-mini", *args, "--cache-mode", "replay", "--quiet", env=env)
    assert "missing API key" not in result.stderr and "Traceback" not in result.stderr
    assert result.returncode == 2 and "replay mode: no recorded reply for a gpt-4o-mini call" in result.stderr


def test_bad_unit_test_file_names_line_and_field(tmp_path, capsys):
    bad = record(conditions={**record()["conditions"], "completeness_condition": "5"})
    path = write_jsonl(tmp_path / "u.jsonl", [record(id="a"), bad])
    assert main(["meta-eval", "--tests", str(path)]) == 2
    assert "u.jsonl:2" in capsys.readouterr().err


def test_check_tests_passes_the_shipped_suite_from_another_directory(tmp_path):
    result = run_cli("check-tests", str(ROOT / "unit_tests"), cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 problem(s)" in result.stdout


def test_check_tests_fails_on_problems(tmp_path, capsys):
    path = write_jsonl(tmp_path / "u.jsonl", [record(actual_output="It lasts 52 weeks [7].")])
    assert main(["check-tests", str(path)]) == 1
    assert "cites [7]" in capsys.readouterr().out


def test_a_reader_that_closes_the_pipe_ends_the_command_quietly_with_141():
    """`judgelab ... | head`: regression, a closed stdout printed an "unexpected error" line and exited 70."""
    script = (
        "import sys\n"
        "import judges.cli.main as cli\n"
        "real = cli.load\n"
        "class Closed:\n"
        "    @staticmethod\n"
        "    def run(args):\n"
        "        raise BrokenPipeError(32, 'Broken pipe')\n"
        "    configure = staticmethod(lambda parser: real('commands', 'data', what='command').configure(parser))\n"
        "cli.load = lambda *args, **kwargs: Closed\n"
        "sys.exit(cli.main(['data', 'list']))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    result = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=hang_guard(60)
    )
    assert (result.returncode, result.stderr) == (141, "")
