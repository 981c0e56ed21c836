"""Judge model specs: capabilities are fields, not guesses from names."""

import pytest

from judges.calls.model_spec import JudgeModel, judge_params
from judges.config.judge import JudgeConfig
from judges.errors import ConfigError


def test_local_judge_is_constrained_and_serial():
    model = JudgeModel.from_name("local/smollm2-135m")
    assert model.local and model.json_schema and model.max_parallel_calls == 1
    assert model.litellm_model == "openai/smollm2-135m-q8_0"


def test_a_local_judge_runs_with_the_compact_prompts_unless_others_are_named():
    assert JudgeConfig().prompts == "compact" and JudgeConfig(model="local/smollm2-135m").prompts == "compact"
    assert JudgeConfig(model="gpt-4o-mini").prompts == "default"
    assert JudgeConfig(prompts="grouse").prompts == "grouse"
    assert JudgeConfig(model="gpt-4o-mini", prompts="compact").prompts == "compact"


def test_api_models_send_no_schema_unless_asked():
    assert not JudgeModel.from_name("gpt-4o-mini").json_schema
    assert JudgeModel.from_name("openai/x", api_base="http://h/v1", json_schema=True).json_schema


def test_unknown_local_judge_is_named():
    with pytest.raises(ConfigError, match="local/nope"):
        JudgeModel.from_name("local/nope")


def test_params_skip_unset_values_and_credentials_stay_out_of_them():
    assert judge_params(None, 100, None) == {"max_tokens": 100}
    options = JudgeConfig(extra={"top_p": 0.5, "api_key": "sk-x", "extra_headers": {"Authorization": "b"}})
    assert options.params()["extra"] == {"top_p": 0.5}
    assert options.connection_extra() == {"api_key": "sk-x", "extra_headers": {"Authorization": "b"}}
    public = repr(options.public_params())
    assert "sk-x" not in public and "'b'" not in public and "credentials" in public


def test_a_self_hosted_openai_compatible_server_needs_no_key(tmp_path, monkeypatch):
    """`--judge openai/NAME --api-base URL` with no OPENAI_API_KEY set: calls go out with a placeholder key."""
    import asyncio

    from stub import stub_server

    from judges.calls.backend import CompletionRequest
    from judges.calls.backend_factory import open_backend

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with stub_server(latency_ms=1) as base:
        model = JudgeModel.from_name("openai/my-model", api_base=base)
        with open_backend(model, timeout_s=30.0, per_deployment=1) as backend:
            request = CompletionRequest("openai/my-model", ({"role": "user", "content": "Say something."},), {})
            completion = asyncio.run(backend.complete(request))
    assert completion.text and completion.prompt_tokens > 0
