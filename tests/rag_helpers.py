"""Helpers for the RAG-suite tests: a scripted RAG judge, a one-metric runner, and schema-shaped canned replies."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from judges.calls.backend import Completion, CompletionRequest
from judges.calls.cache import CacheMode, ReplyCache
from judges.calls.model_spec import JudgeModel
from judges.calls.runtime import CallRuntime, RuntimeSettings
from judges.calls.scripted import ScriptedBackend
from judges.judging.prompts import load_prompt_set
from judges.rag.embeddings import ScriptedEmbedder
from judges.rag.judging import RagJudge
from judges.rag.metric_registry import build_registry
from judges.rag.prompting import RagPrompts
from judges.rag.scope import score_sample as run_sample
from judges.rag.settings import MetricSettings
from judges.types import Sample

FAST = RuntimeSettings(backoff_initial_s=0.0, backoff_max_s=0.0)


class LogprobBackend(ScriptedBackend):
    """ScriptedBackend whose one-token calls carry top logprobs: `logprobs[template]` is {token: logprob}."""

    def __init__(self, script: Any, logprobs: dict[str, dict[str, float]]) -> None:
        super().__init__(script)
        self.logprobs = logprobs

    async def complete(self, request: CompletionRequest) -> Completion:
        if request.params.get("logprobs"):
            self.requests.append(request)
            top = self.logprobs[request.metric]
            return Completion(text=max(top, key=top.get), top_logprobs=[top])
        return await super().complete(request)


def make_judge(
    script: Any = None,
    *,
    backend: Any = None,
    embedder: Any = None,
    json_schema: bool = False,
    cache: ReplyCache | None = None,
    model: JudgeModel | None = None,
    params: dict | None = None,
    runtime_settings: RuntimeSettings = FAST,
    **settings: Any,
) -> tuple[RagJudge, Any]:
    backend = backend or ScriptedBackend(script)
    runtime = CallRuntime(backend, cache or ReplyCache(":memory:", CacheMode.OFF), runtime_settings)
    model = model or JudgeModel("scripted", "scripted/model", json_schema=json_schema)
    judge = RagJudge(
        runtime,
        model,
        RagPrompts(),
        {"temperature": 0} if params is None else params,
        MetricSettings(**settings),
        embedder,
        load_prompt_set("default"),
    )
    return judge, backend


def score(name: str, sample: Sample, script: Any = None, **kwargs: Any):
    """Run one metric on one sample; returns (MetricResult, backend)."""
    judge, backend = make_judge(script, **kwargs)
    registry = build_registry()
    results = asyncio.run(run_sample(sample, [registry[name]], judge, registry))
    return results[name], backend


def scores(names: list[str], sample: Sample, script: Any = None, **kwargs: Any):
    judge, backend = make_judge(script, **kwargs)
    registry = build_registry()
    return asyncio.run(run_sample(sample, [registry[n] for n in names], judge, registry)), backend


def run_metrics_task(
    samples: list[Sample], specs: list[Any], judge: RagJudge, registry: Any, folder: Any = None
) -> Any:
    """Several samples through the run service (a MetricsTask), written to `folder`'s results.jsonl when given;
    returns its Execution (records, stop)."""
    from judges.rag.metrics_task import MetricsTask
    from judges.runs.run_writer import FolderRecorder
    from judges.runs.service import execute

    writer = FolderRecorder(folder) if folder is not None else None
    return asyncio.run(execute(MetricsTask(samples, specs, judge, registry), judge.runtime, writer))


def claims(*items: str) -> str:
    return json.dumps({"claims": list(items)})


def verdicts(*flags: bool | tuple[bool, list[int]]) -> str:
    """A claim_support reply: True / False, or (supported, passages)."""
    out = {}
    for i, flag in enumerate(flags, start=1):
        supported, passages = flag if isinstance(flag, tuple) else (flag, [1] if flag else [])
        out[str(i)] = {"reason": "r", "supported": supported, "passages": passages}
    return json.dumps({"verdicts": out})


def by_template_and_text(replies: dict[tuple[str, str], str]):
    """A script choosing by (template, a marker the prompt contains), for steps used twice with different inputs."""

    def script(request: CompletionRequest) -> str | Exception:
        prompt = request.messages[-1]["content"] if len(request.messages) == 1 else request.messages[0]["content"]
        for (template, marker), reply in replies.items():
            if request.metric == template and marker in prompt:
                return reply
        return KeyError(f"no reply for {request.metric}: {prompt[-200:]!r}")

    return script


def canned_value(schema: dict[str, Any]) -> Any:
    """A value of the schema's shape: the first enum value, true, "ok", or minItems (at least 1) items."""
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type")
    if kind == "object":
        return {key: canned_value(sub) for key, sub in schema.get("properties", {}).items()}
    if kind == "array":
        return [canned_value(schema.get("items", {"type": "string"})) for _ in range(max(1, schema.get("minItems", 1)))]
    if kind == "boolean":
        return True
    if kind in ("integer", "number"):
        return 1
    return "ok"


def canned(request: CompletionRequest) -> str:
    """Replies shaped by the request's JSON schema (the judge must run with json_schema=True)."""
    return json.dumps(canned_value(request.params["response_format"]["schema"]))


def unit_vector(angle_degrees: float) -> list[float]:
    import math

    return [math.cos(math.radians(angle_degrees)), math.sin(math.radians(angle_degrees))]


def embedder(vectors: dict[str, list[float]]) -> ScriptedEmbedder:
    return ScriptedEmbedder(vectors)
