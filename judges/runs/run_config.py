"""The typed run header: what run.json's config records of a judge run, whatever its kind, built once."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from judges.calls.model_spec import JudgeModel
from judges.config.judge import JudgeConfig
from judges.judging.prompts import PromptSet
from judges.secrets import mask_url
from judges.version import __version__


@dataclass(frozen=True)
class RunConfig:
    """A judge run's config, built once when the judge is open and never changed after; `to_json` is run.json's
    `config` dict (the same keys, in the same order, as before the type: old run folders read alike)."""

    judge: str
    """The judge's model name as the user gave it."""
    api_base: str | list[str] | None
    """The API base (or the list of bases), each with its credentials masked."""
    prompts: dict[str, Any] | None
    """The prompt set: its name, folder and each template's sha256; None when no judge prompt is used."""
    params: dict[str, Any]
    """The judge's public decoding parameters."""
    cache: dict[str, Any]
    """The reply cache: its path and mode."""
    max_cost: float | None
    """The budget in USD, or None."""
    fail_on_error: Any
    """When a run with failed verdicts counts as degraded."""
    details: Mapping[str, Any] = field(default_factory=dict)
    """The kind's own keys (data, split, counts, draws, metrics, baselines...), in the order the kind gives them."""
    litellm_model: str | None = None
    """The model id the backend calls."""
    json_schema: bool | None = None
    """Whether replies are constrained by a JSON schema."""
    judgelab_version: str = __version__
    """The judgelab version that made the run."""

    @classmethod
    def of(
        cls, options: JudgeConfig, prompts: PromptSet | None, model: JudgeModel, details: Mapping[str, Any]
    ) -> RunConfig:
        """The header of a run of `options`' judge (`model`, as opened) with `prompts` and the kind's `details`."""
        bases = [mask_url(url) for url in options.api_bases()]
        return cls(
            judge=options.model,
            api_base=bases[0] if isinstance(options.api_base, str) else bases or None,
            prompts=None
            if prompts is None
            else {"name": prompts.name, "folder": str(prompts.folder), "sha256": prompts.hashes()},
            params=options.public_params(),
            cache={"path": options.cache, "mode": options.cache_mode},
            max_cost=options.max_cost,
            fail_on_error=options.fail_on_error,
            details=dict(details),
            litellm_model=model.litellm_model,
            json_schema=model.json_schema,
        )

    def to_json(self) -> dict[str, Any]:
        """run.json's `config` (a fresh dict: the header itself never changes)."""
        return {
            "judgelab_version": self.judgelab_version,
            "judge": self.judge,
            "api_base": self.api_base,
            "prompts": self.prompts,
            "params": self.params,
            "cache": self.cache,
            "max_cost": self.max_cost,
            "fail_on_error": self.fail_on_error,
            **self.details,
            "litellm_model": self.litellm_model,
            "json_schema": self.json_schema,
        }
