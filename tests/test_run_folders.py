"""One folder shape for every run kind: plot, compare and show read folders from meta-eval, evaluate, metrics and
the leaderboard's candidate runs; Run.load(...).to_pandas() works on each; an old folder gets a one-line error."""

import json
import os
import subprocess
import sys

import pytest
from conftest import ROOT, hang_guard
from stub import stub_server

from judges.errors import InputError
from judges.runs.run import Run

TESTS = str(ROOT / "unit_tests" / "test.jsonl")


def judgelab(*args, cwd):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OPENAI_API_KEY": "sk-test-not-a-real-key"}
    return subprocess.run(
        [sys.executable, "-m", "judges.cli.main", *args],
        env=env,
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=hang_guard(),
    )


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    """A meta-eval, an evaluate and a metrics run against the stub, and a leaderboard candidate's run."""
    tmp = tmp_path_factory.mktemp("folders")
    judge = ["--judge", "openai/stub", "--cache", str(tmp / "c.sqlite")]
    with stub_server(latency_ms=2) as base:
        judge += ["--api-base", base]
        runs = {
            "meta-eval": ["meta-eval", "--tests", TESTS, "--limit", "8", *judge],
            "meta-eval-plot": ["meta-eval", "--tests", TESTS, "--limit", "2", "--plot", *judge],
            "evaluate": ["evaluate", TESTS, "--limit", "6", *judge],
            "metrics": [
                "metrics",
                "--data",
                str(ROOT / "tests" / "data" / "rag_samples.jsonl"),
                "--metrics",
                "llamaindex_faithfulness,hit_rate",
                *judge,
            ],
        }
        drawn = {}
        for name, args in runs.items():
            result = judgelab(*args, "--out", str(tmp / name), cwd=tmp)
            assert result.returncode == 0, result.stderr[-2000:]
            drawn[name] = ("result_matrix.png" in result.stdout, (tmp / name / "result_matrix.png").is_file())
        config = tmp / "board.toml"
        config.write_text(f"""
[[candidates]]
name = "stub"
model = "openai/stub"
api_base = "{base}"
[[candidates]]
name = "always-top"
kind = "baseline"
baseline = "always-top"
[[evaluations]]
kind = "unit_tests"
source = "{TESTS}"
limit = 8
""")
        result = judgelab("leaderboard", str(config), "--out", str(tmp / "board"), cwd=tmp)
        assert result.returncode == 0, result.stderr[-2000:]
    board = {path.name.split("--")[0]: path for path in (tmp / "board" / "runs").iterdir()}
    return {
        **{name: tmp / name for name in runs},
        "candidate": board["stub"],
        "baseline": board["always-top"],
        "drawn": drawn,
    }


def test_meta_eval_draws_the_plot_only_when_asked(folders):
    assert folders["drawn"]["meta-eval"] == (False, False)
    assert folders["drawn"]["meta-eval-plot"] == (True, True)
    png = folders["meta-eval-plot"] / "result_matrix.png"
    assert png.read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize("kind", ["meta-eval", "evaluate", "metrics", "candidate", "baseline"])
def test_every_run_folder_loads_plots_and_shows(kind, folders):
    folder = folders[kind]
    run = Run.load(folder)
    frame = run.to_pandas()
    n_metrics = len(run.records[0].metrics)
    assert len(frame) == len(run.records) * n_metrics == run.summary.n_items * n_metrics
    assert set(frame["state"]) <= {"grade", "null", "failure"}
    plot = judgelab("plot", str(folder), cwd=folder)
    assert plot.returncode == 0 and (folder / "result_matrix.png").read_bytes()[:4] == b"\x89PNG"
    show = judgelab("show", str(folder), cwd=folder)
    assert show.returncode == 0 and show.stdout.startswith("# judgelab")


def test_compare_reads_any_two_folders_of_a_kind(folders):
    result = judgelab(
        "compare",
        str(folders["evaluate"]),
        str(folders["metrics"]),
        str(folders["meta-eval"]),
        str(folders["candidate"]),
        cwd=folders["evaluate"],
    )
    assert result.returncode == 0, result.stderr
    assert "meta-eval -> " in result.stdout and "flipped outcomes" in result.stdout  # unit-test runs, same split


def test_a_folder_from_judgelab_0_1_is_a_one_line_error(tmp_path, capsys):
    (tmp_path / "report.json").write_text(json.dumps({"run": {}, "summary": {}}))
    with pytest.raises(InputError, match="written by an older judgelab"):
        Run.load(tmp_path)
    from judges.cli.main import main

    assert main(["plot", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "older judgelab" in err
