"""What run.json's config records of a judge run, whatever its kind: version, judge, prompts, parameters, cache."""

from __future__ import annotations

from typing import Any

from judges.config.judge import JudgeConfig
from judges.secrets import mask_url
from judges.version import __version__


def run_config(options: JudgeConfig, prompts: Any, **extra: Any) -> dict[str, Any]:
    """What run.json's config records of a judge run (the probe run's too): version, judge, prompts, params; the
    API base(s) with their credentials masked."""
    bases = [mask_url(url) for url in options.api_bases()]
    return {
        "judgelab_version": __version__,
        "judge": options.model,
        "api_base": bases[0] if isinstance(options.api_base, str) else bases or None,
        "prompts": None
        if prompts is None
        else {"name": prompts.name, "folder": str(prompts.folder), "sha256": prompts.hashes()},
        "params": options.public_params(),
        "cache": {"path": options.cache, "mode": options.cache_mode},
        "max_cost": options.max_cost,
        "fail_on_error": options.fail_on_error,
        **extra,
    }
