"""The RAG judge: renders a template, calls the shared runtime, parses JSON (one re-ask) or reads grade logprobs."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, TypeVar

from judges.calls.backend import CallError, CompletionRequest
from judges.calls.model_spec import JudgeModel
from judges.calls.runtime import CallRuntime
from judges.errors import ConfigError
from judges.judging.asking import StepFailed, ask, call_logged
from judges.judging.prompts import PromptSet
from judges.judging.replies import extract_json
from judges.judging.requests import build_request
from judges.rag.embeddings import Embedder
from judges.rag.logprobs import WeightedGrade, weighted_grade
from judges.rag.prompting import RagPrompts
from judges.rag.settings import MetricSettings
from judges.types import FailureKind

T = TypeVar("T")
# The running sample's order: its calls get a call slot before later samples' calls (set by the run service per item).
SAMPLE_PRIORITY: ContextVar[int] = ContextVar("judgelab_rag_sample_priority", default=0)
# The running draw of the sample (`--draws K`): each draw's requests are distinct, separately cached calls.
SAMPLE_DRAW: ContextVar[int] = ContextVar("judgelab_rag_sample_draw", default=0)
LOGPROB_PARAMS = {"logprobs": True, "top_logprobs": 5, "max_tokens": 1}


@dataclass
class RagJudge:
    """A model + prompts + parameters on the shared runtime, with the embedder and settings the metrics use."""

    runtime: CallRuntime
    model: JudgeModel
    prompts: RagPrompts
    params: dict[str, Any] = field(default_factory=dict)
    settings: MetricSettings = field(default_factory=MetricSettings)
    embedder: Embedder | None = None
    grouse_prompts: PromptSet | None = None
    run_steps: dict[Any, Any] = field(default_factory=dict)  # steps shared by every sample (rubric evaluation steps)

    def request(
        self,
        template: str,
        messages: list[dict[str, Any]],
        schema: dict[str, Any] | None,
        params: Mapping[str, Any] | None,
    ) -> CompletionRequest:
        """The request for one of the metrics' prompts (the one request builder; tests pin its cache keys)."""
        return build_request(self.model, self.params, template, messages, schema, params, draw=SAMPLE_DRAW.get())

    async def ask_json(
        self,
        template: str,
        variables: Mapping[str, Any],
        schema: dict[str, Any],
        parse: Callable[[Any], T],
        log: list[dict[str, Any]],
        *,
        params: Mapping[str, Any] | None = None,
    ) -> T:
        """Render, call, parse with `parse` (which raises ReplyError on a bad shape); ask again once if unusable."""
        prompt = self.prompts.template(template)
        return await ask(
            self.runtime,
            lambda messages: self.request(template, messages, schema, params),
            prompt.render(**variables, grade_only=False),
            lambda text: parse(extract_json(text)),
            log,
            template=template,
            sha256=prompt.sha256,
            priority=SAMPLE_PRIORITY.get(),
        )

    async def ask_reply(
        self, template: str, variables: Mapping[str, Any], parse: Callable[[str], T], log: list[dict[str, Any]]
    ) -> T:
        """Render, call with no reply schema, parse the reply's text with `parse` (a template whose reply is words,
        e.g. a benchmark's own prompt); ask again once if unusable."""
        prompt = self.prompts.template(template)
        return await ask(
            self.runtime,
            lambda messages: self.request(template, messages, None, None),
            prompt.render(**variables, grade_only=True),
            parse,
            log,
            template=template,
            sha256=prompt.sha256,
            priority=SAMPLE_PRIORITY.get(),
        )

    async def ask_grade_token(
        self, template: str, variables: Mapping[str, Any], grades: Mapping[str, float], log: list[dict[str, Any]]
    ) -> WeightedGrade:
        """The template in grade-only mode, one token, its top-5 logprobs: the probability-weighted grade."""
        prompt = self.prompts.template(template)
        messages = [{"role": "user", "content": prompt.render(**variables, grade_only=True)}]
        completion = await call_logged(
            self.runtime,
            self.request(template, messages, None, LOGPROB_PARAMS),
            log,
            template=template,
            sha256=prompt.sha256,
            priority=SAMPLE_PRIORITY.get(),
        )
        log[-1]["top_logprobs"] = completion.top_logprobs
        if not completion.top_logprobs:
            raise StepFailed(FailureKind.UNPARSEABLE, f"{template}: the backend returned no logprobs")
        weighted = weighted_grade(completion.top_logprobs[0], grades)
        if weighted is None:
            top = ", ".join(repr(t) for t in completion.top_logprobs[0])
            raise StepFailed(FailureKind.UNPARSEABLE, f"{template}: no grade among the top tokens ({top})")
        return weighted

    async def embed(self, texts: list[str]) -> Any:
        if self.embedder is None:
            raise ConfigError("this metric needs an embedding model, and none was given")
        try:
            return await self.embedder.embed(texts)
        except CallError as err:
            raise StepFailed(err.kind, f"embeddings ({self.embedder.name}): {err}") from None
