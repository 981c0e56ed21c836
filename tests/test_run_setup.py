"""The one run setup: every public run goes through it, and its run config is typed, built once and kept as run.json's."""

from __future__ import annotations

import ast
import dataclasses
import json

import pytest
from conftest import ROOT
from stub import stub_server

from judges.api import load_tests, run_unit_tests
from judges.calls.model_spec import JudgeModel
from judges.config.judge import JudgeConfig
from judges.judging.prompts import load_prompt_set
from judges.runs.run_config import RunConfig

SETUP_STEPS = {"check_can_see", "open_executor", "run_task"}
KEYS = ["judgelab_version", "judge", "api_base", "prompts", "params", "cache", "max_cost", "fail_on_error"]


def calls_in(path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = {node.func.id for node in ast.walk(tree) if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)}
    return names & SETUP_STEPS


def test_the_run_is_set_up_in_one_place():
    # the can-see check, the executor and the run itself are reached only through judges/runs/run_setup.py (the
    # constant judges' baseline run in suite/baselines.py opens no judge: it runs its task directly)
    found = {
        str(path.relative_to(ROOT)): calls_in(path)
        for path in sorted((ROOT / "judges").rglob("*.py"))
        if calls_in(path) and path.name not in {"run_setup.py", "service.py", "vision.py", "choose.py"}
    }
    assert found == {"judges/suite/baselines.py": {"run_task"}}


def test_the_run_config_is_frozen_and_writes_run_json_keys_in_their_order():
    options = JudgeConfig(model="openai/x", api_base="https://user:secret@host.example/v1", max_cost=2.0)
    prompts = load_prompt_set("default")
    model = JudgeModel("openai/x", "openai/x", json_schema=True)
    config = RunConfig.of(options, prompts, model, {"data": "d.jsonl", "n_samples": 4, "draws": 1})
    record = config.to_json()
    assert list(record) == [*KEYS, "data", "n_samples", "draws", "litellm_model", "json_schema"]
    assert "secret" not in json.dumps(record) and record["max_cost"] == 2.0 and record["json_schema"] is True
    assert record["prompts"]["sha256"] == prompts.hashes() and record["n_samples"] == 4
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.judge = "other"  # type: ignore[misc]
    record["judge"] = "changed"  # the dict is the caller's: the header itself never changes
    assert config.to_json()["judge"] == "openai/x"


def test_a_unit_test_run_records_the_config_the_setup_built(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    tests = load_tests(ROOT / "unit_tests" / "train.jsonl", limit=2)
    with stub_server(latency_ms=1) as base:
        run = run_unit_tests(tests, "openai/gpt-4o-mini", api_base=base, cache_mode="off", out=tmp_path, data="t")
    config = json.loads((tmp_path / "run.json").read_text(encoding="utf-8"))["config"]
    assert config == run.config.to_json() and run.config.data == "t" and run.config.draws == 1
    assert list(config) == [
        *KEYS,
        *["data", "split", "n_tests", "draws", "baselines", "litellm_model", "json_schema", "model_version"],
        "judge_identity",
    ]
    identity = config["judge_identity"]  # every reply of the stub named its fingerprint and the model asked
    assert identity["system_fingerprints"] == {"stub-fp-1": run.usage.replies}
    assert identity["model_names"] == {"gpt-4o-mini": run.usage.replies}
    assert config["n_tests"] == 2 and config["litellm_model"] == "openai/gpt-4o-mini" and config["data"] == "t"
    assert set(config["baselines"]) == {"always-top", "always-lowest", "always-null", "oracle"}
