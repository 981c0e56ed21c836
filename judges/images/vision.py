"""Which judges can see images: a judge asked to grade samples with images and unable to see them is stopped
before any call, with one line saying so."""

from __future__ import annotations

from collections.abc import Iterable

from judges.calls.litellm_backend import import_litellm
from judges.calls.model_spec import JudgeModel
from judges.errors import ConfigError
from judges.types import Sample


def can_see(model: JudgeModel) -> bool:
    """A local judge cannot; otherwise the judge's `vision` setting, else LiteLLM's model table says."""
    if model.local:
        return False
    if model.vision is not None:
        return model.vision

    try:
        return bool(import_litellm().supports_vision(model=model.litellm_model))
    except Exception:  # a model LiteLLM does not know
        return False


def check_can_see(model: JudgeModel, samples: Iterable[Sample]) -> None:
    """ConfigError when a sample holds images and the judge cannot see them (never a silent text-only prompt)."""
    with_images = sum(1 for sample in samples if sample.images)  # counted, not held: the samples may be a file
    if not with_images or can_see(model):
        return
    how = (
        "the offline judge reads text only; use a vision-capable API judge (e.g. --judge gpt-4o-mini)"
        if model.local
        else "if the endpoint's model does accept images, say so with --vision (or vision = true in [judge])"
    )
    raise ConfigError(f"judge {model.name} cannot see images, and {with_images} sample(s) hold images: {how}")
