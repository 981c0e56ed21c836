"""Judge model specs: the id a model is called with and what it can do (capabilities are fields)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from judges.errors import ConfigError

DEFAULT_JUDGE = "local/smollm2-135m"
# the name the local server is called with: it names the weights' encoding, so replies cached from another
# encoding of the same model are not served as this one's (judges/calls/gguf_encoding.py)
LOCAL_MODELS = {"local/smollm2-135m": "smollm2-135m-q8_0"}
# a local judge's own prompt set: the default prompts with answer 2 graded alone under short reply keys, wherever
# that keeps the pass rates (prompts/compact); a small model writes far fewer tokens (results/benchmarks/offline_judge.md)
LOCAL_PROMPTS = "compact"

IMAGE_MAX_SIDE = 1024  # pixels a side an image is shrunk to before it is sent, unless the judge says otherwise


@dataclass(frozen=True)
class JudgeModel:
    """A model id as the user wrote it, the id LiteLLM is called with, and its capabilities."""

    name: str
    litellm_model: str
    json_schema: bool = False  # send the metric's JSON schema to constrain decoding
    local: bool = False
    api_base: str | None = None
    max_parallel_calls: int | None = None  # a local llama.cpp server answers one request at a time
    vision: bool | None = None  # sees images; None: LiteLLM's model table says (see judges.images.vision)
    image_max_side: int = IMAGE_MAX_SIDE  # images are sent shrunk to at most this many pixels a side

    @classmethod
    def from_name(
        cls,
        name: str,
        *,
        api_base: str | None = None,
        json_schema: bool | None = None,
        vision: bool | None = None,
        image_max_side: int = IMAGE_MAX_SIDE,
    ) -> JudgeModel:
        if name in LOCAL_MODELS:
            return cls(
                name,
                f"openai/{LOCAL_MODELS[name]}",
                json_schema=True if json_schema is None else json_schema,
                local=True,
                max_parallel_calls=1,
                vision=False,
                image_max_side=image_max_side,
            )
        if name.startswith("local/"):
            raise ConfigError(f"unknown local judge {name!r}; known: {', '.join(LOCAL_MODELS)}")
        return cls(
            name, name, json_schema=bool(json_schema), api_base=api_base, vision=vision, image_max_side=image_max_side
        )


def default_prompt_set(name: str) -> str:
    """The shipped prompt set judge `name` runs with unless one is given: the compact one for local judges."""
    return LOCAL_PROMPTS if name in LOCAL_MODELS else "default"


def judge_params(
    temperature: float | None, max_tokens: int | None, seed: int | None, extra: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The generation parameters that are set (None means the provider's default)."""
    params: dict[str, Any] = {
        k: v for k, v in (("temperature", temperature), ("max_tokens", max_tokens), ("seed", seed)) if v is not None
    }
    if extra:
        params["extra"] = dict(sorted(extra.items()))
    return params
