"""Know the judge: the identity in run.json, calibration.json and certification.json (exact fields); `cascade apply`
and `evaluate --cascade` refuse a judge that now differs (another fingerprint at the first reply, an edited prompt
before any call) in one line, exit 2, unless --accept-changed-judge; a format_version 1 calibration is not checked."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import write_jsonl
from labelling_helpers import samples_file
from stub import stats, stub_server

from judges.cli.main import main
from judges.records import ItemRecord
from judges.version import __version__

ROOT = Path(__file__).resolve().parent.parent
SERVED = "gpt-4o-2024-08-06"
REFUSED = (
    f"judge cheap: calibrated with {SERVED}, fp_a; this endpoint serves fp_b: re-calibrate, or --accept-changed-judge"
)


def evaluate(base: str, data: Path, out: Path, cache: Path, *extra: str) -> int:
    command = ["evaluate", str(data), "--model", "openai/cheap", "--api-base", base, "--cache", str(cache)]
    return main([*command, "--quiet", "--out", str(out), *extra])


def identity(prompts: Path, prints: dict[str, int], names: dict[str, int]) -> dict[str, object]:
    from judges.judging.prompts import load_prompt_set

    return {
        "source": "run",
        "model_id": "openai/cheap",
        "model_names": names,
        "system_fingerprints": prints,
        "prompt_sha256": load_prompt_set(str(prompts)).hashes(),
        "decoding": {
            "temperature": 0.0,
            "max_tokens": 512,
            "top_p": None,
            "seed": 0,
            "json_schema": False,
            "draws": 1,
        },
        "judgelab_version": __version__,
    }


@pytest.fixture
def calibrated(tmp_path, monkeypatch):
    """A cheap judge run against an endpoint serving fp_a (its own copy of the prompts), labels that agree with it,
    and the cascade calibrated on that run folder."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    prompts = tmp_path / "prompts"
    shutil.copytree(ROOT / "prompts" / "default", prompts)
    data = samples_file(tmp_path / "s.jsonl", n=40)
    with stub_server(latency_ms=1, fingerprint="fp_a", served_model=SERVED) as base:
        assert evaluate(base, data, tmp_path / "cheap", tmp_path / "a.sqlite", "--prompts", str(prompts)) == 0
    lines = (tmp_path / "cheap/results.jsonl").read_text().splitlines()
    graded = {r.id: r.metrics["faithfulness"].value for r in map(ItemRecord.from_json_line, lines)}
    rows = [
        {"id": i, "metric": "faithfulness", "label_type": "binary", "scale": [0, 1], "label": int(v or 0)}
        for i, v in graded.items()
    ]
    labels = write_jsonl(tmp_path / "labels.jsonl", rows)
    calibrate = ["cascade", "calibrate", "--labels", str(labels), "--target", "0.85"]
    assert main([*calibrate, "--predictions", f"cheap={tmp_path / 'cheap'}", "--out", str(tmp_path / "cal")]) == 0
    return tmp_path, data, prompts, labels


def test_the_identity_is_recorded_in_run_json_calibration_json_and_certification_json(calibrated, capsys):
    tmp_path, _, prompts, labels = calibrated
    expected = identity(prompts, {"fp_a": 120}, {SERVED: 120})  # three metrics asked of 40 items
    run = json.loads((tmp_path / "cheap/run.json").read_text())
    assert run["config"]["judge_identity"] == expected
    calibration = json.loads((tmp_path / "cal/calibration.json").read_text())
    assert calibration["format_version"] == 2 and calibration["judges"][0]["identity"] == expected
    command = ["validate", "--labels", str(labels), "--min-recall", "0.5", "--out"]
    main([*command, str(tmp_path / "cert"), "--predictions", str(tmp_path / "cheap")])
    assert json.loads((tmp_path / "cert/certification.json").read_text())["judge_identity"] == expected
    write_jsonl(tmp_path / "p.jsonl", [{"id": f"s{i:02d}", "score": 1.0} for i in range(40)])
    main([*command, str(tmp_path / "cert2"), "--predictions", str(tmp_path / "p.jsonl")])
    unknown = json.loads((tmp_path / "cert2/certification.json").read_text())["judge_identity"]
    assert unknown == {
        "source": "predictions",
        "model_id": None,
        "model_names": None,
        "system_fingerprints": None,
        "prompt_sha256": None,
        "decoding": dict.fromkeys(("temperature", "max_tokens", "top_p", "seed", "json_schema", "draws")),
        "judgelab_version": None,
    }


def test_evaluate_cascade_stops_at_the_first_reply_of_another_fingerprint(calibrated, capsys):
    tmp_path, data, _, _ = calibrated
    cascade = ["--cascade", str(tmp_path / "cal/calibration.json"), "--concurrency", "1"]
    with stub_server(latency_ms=1, fingerprint="fp_b", served_model=SERVED) as base:
        capsys.readouterr()
        assert evaluate(base, data, tmp_path / "refused", tmp_path / "b.sqlite", *cascade) == 2
        assert capsys.readouterr().err.strip().splitlines()[-1] == f"judgelab: error: {REFUSED}"
        assert stats(base, reset=True)["requests"] == 1  # the first reply told; nothing more was spent
        assert not (tmp_path / "refused/decisions.jsonl").exists()
        accepted = [*cascade, "--accept-changed-judge"]
        assert evaluate(base, data, tmp_path / "accepted", tmp_path / "b.sqlite", *accepted) == 0
    summary = (tmp_path / "accepted/summary.md").read_text()
    assert (
        f"accepted with --accept-changed-judge: judge cheap: calibrated with {SERVED}, fp_a; this endpoint serves fp_b."
        in summary
    )
    decisions = [json.loads(line) for line in (tmp_path / "accepted/decisions.jsonl").read_text().splitlines()]
    assert {d["fingerprint"] for d in decisions if d["decided_by"] == "cheap"} == {"fp_b"}
    run = json.loads((tmp_path / "accepted/runs/cheap/run.json").read_text())
    assert run["config"]["judge_identity"]["system_fingerprints"] == {"fp_b": 40}


def test_cascade_apply_refuses_a_run_folder_of_another_fingerprint(calibrated, capsys, monkeypatch):
    tmp_path, data, prompts, _ = calibrated
    with stub_server(latency_ms=1, fingerprint="fp_b", served_model=SERVED) as base:
        assert evaluate(base, data, tmp_path / "later", tmp_path / "b.sqlite", "--prompts", str(prompts)) == 0
    apply = ["cascade", "apply", str(tmp_path / "cal/calibration.json"), "--predictions", f"cheap={tmp_path / 'later'}"]
    capsys.readouterr()
    assert main([*apply, "--out", str(tmp_path / "applied")]) == 2
    assert capsys.readouterr().err.strip() == f"judgelab: error: {REFUSED}"
    assert main([*apply, "--out", str(tmp_path / "applied"), "--accept-changed-judge"]) == 0
    assert "accepted with --accept-changed-judge" in (tmp_path / "applied/summary.md").read_text()
    # the same judge, same fingerprint: applied without a word
    same = ["cascade", "apply", str(tmp_path / "cal/calibration.json"), "--predictions", f"cheap={tmp_path / 'cheap'}"]
    assert main([*same, "--out", str(tmp_path / "same")]) == 0
    assert "accepted" not in (tmp_path / "same/summary.md").read_text()


def test_a_prompt_edited_after_calibration_is_refused_before_any_call(calibrated, capsys):
    tmp_path, data, prompts, _ = calibrated
    template = prompts / "faithfulness.txt.jinja"
    template.write_text(template.read_text() + "\nBe strict.\n")
    cascade = ["--cascade", str(tmp_path / "cal/calibration.json")]
    with stub_server(latency_ms=1, fingerprint="fp_a", served_model=SERVED) as base:
        capsys.readouterr()
        assert evaluate(base, data, tmp_path / "edited", tmp_path / "c.sqlite", *cascade) == 2
        line = capsys.readouterr().err.strip()
        assert stats(base).get("requests", 0) == 0
    assert line.startswith(f"judgelab: error: judge cheap: calibrated with {SERVED}, fp_a; prompt faithfulness edited")
    assert line.endswith(": re-calibrate, or --accept-changed-judge") and "\n" not in line


def test_a_format_version_1_calibration_is_read_with_one_note_and_not_checked(calibrated, capsys):
    tmp_path, data, _, _ = calibrated
    old = json.loads((tmp_path / "cal/calibration.json").read_text())
    old["format_version"] = 1
    for judge in old["judges"]:
        del judge["identity"]
    (tmp_path / "old.json").write_text(json.dumps(old))
    with stub_server(latency_ms=1, fingerprint="fp_b", served_model=SERVED) as base:
        capsys.readouterr()
        assert (
            evaluate(base, data, tmp_path / "old", tmp_path / "b.sqlite", "--cascade", str(tmp_path / "old.json")) == 0
        )
    err = capsys.readouterr().err
    assert err.count("records no judge identity: the judge is not checked") == 1


def test_cascade_monitor_marks_where_the_deciding_judges_fingerprint_changed(calibrated, capsys):
    tmp_path, _, _, _ = calibrated
    stamp = "2026-11-27T09:30:00Z"
    rows = [
        {"id": f"s{i:02d}", "decided_by": "cheap", "verdict": 1, "confidence": 1.0, "timestamp": stamp}
        | ({"fingerprint": "fp_a" if i < 30 else "fp_b"} if i != 10 else {})
        for i in range(40)
    ]
    decisions = write_jsonl(tmp_path / "decisions.jsonl", rows)
    command = ["cascade", "monitor", str(tmp_path / "cal/calibration.json"), "--decisions", str(decisions)]
    assert main([*command, "--out", str(tmp_path / "monitor")]) in (0, 1)
    record = json.loads((tmp_path / "monitor/monitor.json").read_text())
    assert record["judge_changes"] == [{"judge": "cheap", "decision": 31, "from": ["fp_a"], "to": "fp_b"}]
    lines = (tmp_path / "monitor/monitor.md").read_text().splitlines()
    assert "Judge changed: cheap serves fp_b from decision 31 on (before: fp_a)." in lines


def test_a_metrics_run_records_its_rag_prompts_hashes_in_the_judge_identity():
    from judges.records.judge_identity import config_identity

    config = {"judge": "local/smollm2-135m", "prompts": None, "rag_prompts_sha256": {"pairwise_preference": "ab12"}}
    assert config_identity(config).prompt_sha256 == {"pairwise_preference": "ab12"}
    both = {**config, "prompts": {"sha256": {"faithfulness": "cd34"}}}
    assert config_identity(both).prompt_sha256 == {"faithfulness": "cd34", "pairwise_preference": "ab12"}
    assert config_identity({"judge": "x"}).prompt_sha256 is None
