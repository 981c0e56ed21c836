"""The GroUSE-style LLM judge: one call per metric, typed parsing, one re-ask, and the pipeline's null rules."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from judges.calls.backend import CallError, CompletionRequest
from judges.calls.model_spec import JudgeModel
from judges.judging.prompts import PromptSet, sample_variables
from judges.judging.replies import ReplyError, parse_reply, reply_schema
from judges.calls.runtime import CallRuntime
from judges.types import FailureKind, GROUSE_METRICS, Sample, Verdict, VerdictState

REASK = ("Your reply could not be read: {error}. Reply again with only the JSON object, "
         "in exactly the format the instructions give.")


@dataclass
class MetricRecord:
    """Everything one metric's judging produced for one sample: verdict, raw replies, prompt hash, usage."""

    metric: str
    verdict: Verdict
    prompt_sha256: str | None = None
    replies: list[str] = field(default_factory=list)
    expected_verdict: Verdict | None = None  # the judge's grade of the reference answer (answer 1)
    calls: int = 0
    cached_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0
    model_version: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"verdict": self.verdict.to_dict(), "prompt_sha256": self.prompt_sha256,
                               "replies": self.replies, "calls": self.calls, "cached_calls": self.cached_calls,
                               "prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
                               "cost": self.cost}
        if self.expected_verdict is not None:
            out["expected_output_verdict"] = self.expected_verdict.to_dict()
        if self.model_version:
            out["model_version"] = self.model_version
        return out


class GroundedQAJudge:
    """Judges a sample on the four GroUSE metrics with one prompt per metric."""

    def __init__(self, runtime: CallRuntime, prompts: PromptSet, model: JudgeModel,
                 params: dict[str, Any] | None = None) -> None:
        self.runtime, self.prompts, self.model = runtime, prompts, model
        self.params = dict(params or {})

    def render_all(self, sample: Sample) -> dict[str, str]:
        """Render every metric's prompt; a template error surfaces here, before any call."""
        return {metric: self.prompts.render(metric, sample) for metric in GROUSE_METRICS}

    def request(self, metric: str, messages: list[dict[str, str]], draw: int) -> CompletionRequest:
        params = dict(self.params)
        if self.model.json_schema:
            params["response_format"] = {"type": "json_object", "schema": reply_schema(metric)}
        return CompletionRequest(self.model.litellm_model, tuple(messages), params, metric=metric, draw=draw)

    async def grade(self, metric: str, sample: Sample, draw: int = 0, priority: int = 0) -> MetricRecord:
        template = self.prompts.templates[metric]
        record = MetricRecord(metric, Verdict.failed(FailureKind.UNPARSEABLE, "not judged"), template.sha256)
        messages = [{"role": "user", "content": template.render(**sample_variables(sample))}]
        for attempt in (1, 2):
            try:
                completion = await self.runtime.call(self.request(metric, messages, draw), priority)
            except CallError as err:
                record.verdict = Verdict.failed(err.kind, str(err))
                return record
            record.calls += 1
            record.cached_calls += int(completion.cached)
            record.prompt_tokens += completion.prompt_tokens
            record.completion_tokens += completion.completion_tokens
            record.cost += 0.0 if completion.cached else completion.cost
            record.model_version = completion.model_version or record.model_version
            record.replies.append(completion.text)
            try:
                parsed = parse_reply(metric, completion.text)
            except ReplyError as err:
                if err.kind is FailureKind.REFUSED or attempt == 2:
                    record.verdict = Verdict.failed(err.kind, str(err))
                    return record
                messages += [{"role": "assistant", "content": completion.text},
                             {"role": "user", "content": REASK.format(error=err)}]
                continue
            record.verdict, record.expected_verdict = parsed.actual, parsed.expected
            return record
        return record  # pragma: no cover - the loop always returns

    async def judge(self, sample: Sample, draw: int = 0, priority: int = 0) -> dict[str, MetricRecord]:
        """GroUSE's pipeline: usefulness only when relevancy is null; faithfulness null when usefulness is.

        `draw` > 0 asks the same questions again as a distinct, separately cached call (stability runs);
        `priority` orders this sample's calls against other samples' (lower goes first).
        """
        relevancy, completeness = await asyncio.gather(self.grade("answer_relevancy", sample, draw, priority),
                                                       self.grade("completeness", sample, draw, priority))
        if relevancy.verdict.state is VerdictState.GRADE:
            usefulness = MetricRecord("usefulness", Verdict.null("not judged: answer relevancy is graded"))
            faithfulness = await self.grade("faithfulness", sample, draw, priority)
        else:
            usefulness = await self.grade("usefulness", sample, draw, priority)
            if usefulness.verdict.state is VerdictState.NULL:
                faithfulness = MetricRecord("faithfulness", Verdict.null("not judged: usefulness came back null"))
            else:
                faithfulness = await self.grade("faithfulness", sample, draw, priority)
        return {"answer_relevancy": relevancy, "completeness": completeness,
                "faithfulness": faithfulness, "usefulness": usefulness}

