"""The GroUSE-style grounded-QA judge: one call per metric through the shared ask path, and the pipeline's rules."""

from __future__ import annotations

import asyncio
from typing import Any

from judges.calls.backend import CompletionRequest
from judges.calls.model_spec import JudgeModel
from judges.calls.runtime import CallRuntime
from judges.judging.asking import StepFailed, ask
from judges.judging.prompts import PromptSet
from judges.judging.replies import ParsedReply, parse_reply, reply_schema
from judges.judging.requests import build_request
from judges.records import MetricRecord
from judges.types import GROUSE_METRICS, FailureKind, Sample, Verdict, VerdictState


class GroundedQAJudge:
    """Judges a sample on the four GroUSE metrics with one prompt per metric."""

    def __init__(
        self, runtime: CallRuntime, prompts: PromptSet, model: JudgeModel, params: dict[str, Any] | None = None
    ) -> None:
        self.runtime, self.prompts, self.model = runtime, prompts, model
        self.params = dict(params or {})

    def render_all(self, sample: Sample) -> dict[str, str]:
        """Render every metric's prompt; a template error surfaces here, before any call."""
        return {metric: self.prompts.render(metric, sample) for metric in GROUSE_METRICS}

    def request(self, metric: str, messages: list[dict[str, Any]], draw: int) -> CompletionRequest:
        """The call for `messages`, each image marker in them sent as an image part."""
        template = self.prompts.templates[metric]
        schema = reply_schema(metric, template.reply_format) if self.model.json_schema else None
        return build_request(self.model, self.params, metric, messages, schema, draw=draw)

    async def grade(self, metric: str, sample: Sample, draw: int = 0, priority: int = 0) -> MetricRecord:
        """One metric's verdict: a grade, a null the judge gave, or a failure with its kind."""
        template = self.prompts.templates[metric]
        record = MetricRecord(metric, Verdict.failed(FailureKind.UNPARSEABLE, "not judged"))
        try:
            parsed: ParsedReply = await ask(
                self.runtime,
                lambda messages: self.request(metric, messages, draw),
                template.render_sample(sample),
                lambda text: parse_reply(metric, text, template.reply_format),
                record.calls,
                template=metric,
                sha256=template.sha256,
                priority=priority,
            )
        except StepFailed as err:
            record.verdict = Verdict.failed(err.kind, str(err))
            return record
        record.verdict = parsed.actual
        if parsed.expected is not None:
            record.details["expected_output_verdict"] = parsed.expected.to_dict()
        return record

    async def judge(self, sample: Sample, draw: int = 0, priority: int = 0) -> dict[str, MetricRecord]:
        """GroUSE's pipeline: usefulness only when relevancy is null; faithfulness null when usefulness is.

        A failed relevancy (or usefulness) leaves what depends on it failed as "upstream_failed": nothing is judged
        as if the failed call had come back null. `draw` > 0 asks the same questions again as a distinct,
        separately cached call (stability runs); `priority` orders this sample's calls against other samples'.
        """
        # the first two calls may overtake the follow-ups of the samples started up to one round of calls earlier (as
        # many samples as call slots): a run's last samples then send their first calls before earlier samples'
        # follow-ups, instead of after them, which cost a whole extra round trip at the end of the run
        first = priority - self.runtime.settings.concurrency
        relevancy, completeness = await asyncio.gather(
            self.grade("answer_relevancy", sample, draw, first), self.grade("completeness", sample, draw, first)
        )
        if relevancy.verdict.is_failure:
            upstream = f"not judged: answer relevancy failed ({relevancy.verdict.failure_kind.value})"  # type: ignore[union-attr]
            usefulness = MetricRecord("usefulness", Verdict.failed(FailureKind.UPSTREAM_FAILED, upstream))
            faithfulness = MetricRecord("faithfulness", Verdict.failed(FailureKind.UPSTREAM_FAILED, upstream))
        elif relevancy.verdict.state is VerdictState.GRADE:
            usefulness = MetricRecord("usefulness", Verdict.null("not judged: answer relevancy is graded"))
            faithfulness = await self.grade("faithfulness", sample, draw, priority)
        else:
            usefulness = await self.grade("usefulness", sample, draw, priority)
            if usefulness.verdict.is_failure:
                upstream = f"not judged: usefulness failed ({usefulness.verdict.failure_kind.value})"  # type: ignore[union-attr]
                faithfulness = MetricRecord("faithfulness", Verdict.failed(FailureKind.UPSTREAM_FAILED, upstream))
            elif usefulness.verdict.state is VerdictState.NULL:
                faithfulness = MetricRecord("faithfulness", Verdict.null("not judged: usefulness came back null"))
            else:
                faithfulness = await self.grade("faithfulness", sample, draw, priority)
        return {
            "answer_relevancy": relevancy,
            "completeness": completeness,
            "faithfulness": faithfulness,
            "usefulness": usefulness,
        }
