"""Opening the metrics kind's judge for the run setup: the GroUSE prompts, the embedder, the runtime, the RagJudge."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from judges.calls.model_spec import JudgeModel
from judges.calls.refusing import no_judge_backend
from judges.calls.runtime import CallRuntime
from judges.config.judge import JudgeConfig
from judges.judging.factory import open_runtime
from judges.judging.prompts import PromptSet, load_prompt_set
from judges.rag.embeddings import open_embedder
from judges.rag.judging import RagJudge
from judges.rag.prompting import RagPrompts
from judges.rag.settings import MetricSettings


@dataclass(frozen=True)
class RagSession:
    """The metrics run's opened judge, as the run setup reads it (model, runtime, the prompt set it records)."""

    judge: RagJudge

    @property
    def model(self) -> JudgeModel:
        return self.judge.model

    @property
    def runtime(self) -> CallRuntime:
        return self.judge.runtime

    @property
    def prompts(self) -> PromptSet | None:
        return self.judge.grouse_prompts


@dataclass(frozen=True)
class RagSetup:
    """What opens a metrics run's judge: the RAG suite's prompts (`rag_prompts` over the shipped), the GroUSE prompts when a grouse metric runs, the embedder when a metric
    embeds, and the judge's runtime when a metric calls it (otherwise a runtime that refuses calls)."""

    options: JudgeConfig
    needs_judge: bool
    rag_prompts: Path | None
    settings: MetricSettings
    embeddings: str | None
    embeddings_api_base: str | None
    grouse: bool
    embeds: bool

    @contextlib.contextmanager
    def open(self) -> Iterator[RagSession]:
        """The RagJudge on its runtime, for the run's lifetime."""
        prompts = RagPrompts(self.rag_prompts)
        grouse = load_prompt_set(self.options.prompts) if self.grouse else None
        keep_vectors = self.options.cache if self.options.cache_mode == "read-write" else None  # beside replies
        embedder = (
            open_embedder(self.embeddings, api_base=self.embeddings_api_base, cache_path=keep_vectors)
            if self.embeddings and self.embeds
            else None
        )
        with metrics_runtime(self.options, self.needs_judge) as (model, runtime):
            params = self.options.params()
            yield RagSession(RagJudge(runtime, model, prompts, params, self.settings, embedder, grouse))


@contextlib.contextmanager
def metrics_runtime(options: JudgeConfig, needs_judge: bool) -> Iterator[tuple[JudgeModel, CallRuntime]]:
    """The judge's runtime, or, when no chosen metric calls a judge, a runtime that refuses calls (nothing starts)."""

    if needs_judge:
        with open_runtime(options) as pair:
            yield pair
        return
    yield options.judge_model(), CallRuntime(no_judge_backend())
