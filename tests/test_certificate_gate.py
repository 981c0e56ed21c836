"""A certified gate knows its judge: `validate --certificate certification.json` passes (exit 0) only a certified
judge that is still the one certified; another fingerprint at the one probe call, or an edited prompt before any
call, is one line, exit 2 (unless --accept-changed-judge); a certificate that did not pass is exit 1 with no call;
a bad certificate is one line naming the file and the field."""

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

ROOT = Path(__file__).resolve().parent.parent
SERVED = "gpt-4o-2024-08-06"
REFUSED = (
    f"judge openai/cheap: certified with {SERVED}, fp_a; this endpoint serves fp_b: re-certify, or "
    "--accept-changed-judge"
)


@pytest.fixture(scope="module")
def certified(tmp_path_factory):
    """A judge run against an endpoint serving fp_a (its own copy of the prompts), labels agreeing with its grades
    (both classes), and the certificate `validate --labels --min-recall 0.5` wrote on its run folder."""
    tmp_path = tmp_path_factory.mktemp("gate")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
        prompts = tmp_path / "prompts"
        shutil.copytree(ROOT / "prompts" / "default", prompts)
        data = samples_file(tmp_path / "s.jsonl", n=40)
        command = ["evaluate", str(data), "--model", "openai/cheap", "--cache", str(tmp_path / "a.sqlite")]
        with stub_server(latency_ms=1, fingerprint="fp_a", served_model=SERVED) as base:
            run = [*command, "--api-base", base, "--prompts", str(prompts), "--quiet", "--out", str(tmp_path / "run")]
            assert main(run) == 0
    lines = (tmp_path / "run/results.jsonl").read_text().splitlines()
    graded = {r.id: r.metrics["faithfulness"].value for r in map(ItemRecord.from_json_line, lines)}
    rows = [
        {"id": i, "metric": "faithfulness", "label_type": "binary", "scale": [0, 1], "label": int(v or 0)}
        for i, v in graded.items()
    ]
    labels = write_jsonl(tmp_path / "labels.jsonl", rows)
    validate = ["validate", "--labels", str(labels), "--min-recall", "0.5", "--predictions", str(tmp_path / "run")]
    assert main([*validate, "--out", str(tmp_path / "cert")]) == 0
    return tmp_path, tmp_path / "cert/certification.json", prompts


def gate(base: str, certificate: Path, prompts: Path, *extra: str) -> list[str]:
    return ["validate", "--certificate", str(certificate), "--api-base", base, "--prompts", str(prompts), *extra]


def test_the_same_judge_and_a_passed_certificate_pass_after_one_probe_call(certified, capsys, monkeypatch):
    _, certificate, prompts = certified
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    with stub_server(latency_ms=1, fingerprint="fp_a", served_model=SERVED) as base:
        capsys.readouterr()
        assert main(gate(base, certificate, prompts)) == 0  # the model defaults to the one certified
        assert stats(base)["requests"] == 1
    assert capsys.readouterr().out.strip() == (
        f"PASSED: {certificate} is certified (fixed); openai/cheap is the judge it certified ({SERVED}, fp_a)"
    )


def test_another_fingerprint_is_refused_in_one_line_unless_accepted(certified, capsys, monkeypatch):
    tmp_path, certificate, prompts = certified
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    with stub_server(latency_ms=1, fingerprint="fp_b", served_model=SERVED) as base:
        capsys.readouterr()
        assert main(gate(base, certificate, prompts, "--model", "openai/cheap")) == 2
        assert capsys.readouterr().err.strip() == f"judgelab: error: {REFUSED}"
        assert stats(base, reset=True)["requests"] == 1
        # the same judge from a --config file's [judge] table, the change accepted
        toml = tmp_path / "gate.toml"
        toml.write_text(f'[judge]\nmodel = "openai/cheap"\napi_base = "{base}"\nprompts = "{prompts}"\n')
        command = ["validate", "--certificate", str(certificate), "--config", str(toml), "--accept-changed-judge"]
        assert main(command) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert out == [
        f"judge changed since certification, accepted with --accept-changed-judge: judge openai/cheap: certified "
        f"with {SERVED}, fp_a; this endpoint serves fp_b",
        f"PASSED: {certificate} is certified (fixed); openai/cheap is the changed judge accepted ({SERVED}, fp_b)",
    ]


def test_an_edited_prompt_is_refused_before_any_call(certified, capsys, monkeypatch, tmp_path):
    _, certificate, prompts = certified
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    edited = tmp_path / "edited"
    shutil.copytree(prompts, edited)
    template = edited / "faithfulness.txt.jinja"
    template.write_text(template.read_text() + "\nBe strict.\n")
    with stub_server(latency_ms=1, fingerprint="fp_a", served_model=SERVED) as base:
        capsys.readouterr()
        assert main(gate(base, certificate, edited)) == 2
        assert stats(base).get("requests", 0) == 0
    line = capsys.readouterr().err.strip()
    assert line.startswith(f"judgelab: error: judge openai/cheap: certified with {SERVED}, fp_a; prompt faithfulness")
    assert line.endswith(": re-certify, or --accept-changed-judge") and "\n" not in line


def test_a_certificate_that_did_not_pass_fails_the_gate_without_a_call(certified, capsys, tmp_path):
    _, certificate, prompts = certified
    record = json.loads(certificate.read_text())
    failed = tmp_path / "failed.json"
    failed.write_text(json.dumps(record | {"certified": False, "verdict": "undecided"}))
    with stub_server(latency_ms=1, fingerprint="fp_a", served_model=SERVED) as base:
        capsys.readouterr()
        assert main(gate(base, failed, prompts)) == 1
        assert stats(base).get("requests", 0) == 0
    assert capsys.readouterr().out.strip() == (
        f"FAILED: {failed} is undecided (fixed); the gate passes only a certified judge: certify again on more labels"
    )


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"certified": "yes"}, "Input should be a valid boolean, got 'yes' (field 'certified')"),
        ({"judge_identity": None}, "Input should be a valid dictionary or instance of JudgeIdentity, got None"),
        ({"verdict": "not certified"}, "certified is true but the verdict says 'not certified' (field None)"),
        ({"judge_identity": {"model_id": "m", "colour": 1}}, "Extra inputs are not permitted, got 1"),
    ],
)
def test_a_bad_certificate_is_one_line_naming_file_and_field(certified, capsys, tmp_path, change, message):
    _, certificate, prompts = certified
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(json.loads(certificate.read_text()) | change))
    capsys.readouterr()
    assert main(gate("http://127.0.0.1:9/v1", bad, prompts)) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"judgelab: error: {bad}: ") and "\n" not in err
    assert message.replace(" (field None)", "") in err


def test_a_certificate_of_a_predictions_file_records_no_judge_to_gate_on(certified, capsys, tmp_path):
    _, certificate, prompts = certified
    record = json.loads(certificate.read_text())
    record["judge_identity"] = {"source": "predictions"}
    blind = tmp_path / "blind.json"
    blind.write_text(json.dumps(record))
    capsys.readouterr()
    assert main(gate("http://127.0.0.1:9/v1", blind, prompts)) == 2
    assert capsys.readouterr().err.strip() == (
        f"judgelab: error: {blind}: records no judge (its verdicts came from a predictions file): certify on a "
        "judgelab run folder (--predictions RUN_DIR) to gate on the judge (field 'judge_identity')"
    )


def test_the_gate_takes_no_option_of_the_other_modes(certified, capsys):
    _, certificate, _ = certified
    capsys.readouterr()
    assert main(["validate", "--certificate", str(certificate), "--min", "total=0.8", "--labels", "x"]) == 2
    assert capsys.readouterr().err.strip() == (
        "judgelab: error: --certificate gates on a certificate made before: drop --labels, --min"
    )
    assert main(["validate", "--accept-changed-judge", "--min", "total=0.8"]) == 2
    assert "only with --certificate" in capsys.readouterr().err
