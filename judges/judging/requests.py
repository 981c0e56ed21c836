"""The one request builder both judge stacks use: parameters, the reply schema when the model takes one, image parts."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from judges.calls.backend import CompletionRequest
from judges.calls.model_spec import JudgeModel
from judges.images.image_parts import with_image_parts


def build_request(
    model: JudgeModel,
    params: Mapping[str, Any],
    template_name: str,
    messages: list[dict[str, Any]],
    schema: dict[str, Any] | None = None,
    extra_params: Mapping[str, Any] | None = None,
    draw: int = 0,
) -> CompletionRequest:
    """The call for `messages` with the judge's `params`, then `extra_params` over them.

    When the model takes a JSON schema and `schema` is given, it goes as a json_object response format; each image
    marker in the messages goes as an image part. `draw` > 0 makes a distinct, separately cached repeat.
    """
    merged = {**params, **(extra_params or {})}
    if schema is not None and model.json_schema:
        merged["response_format"] = {"type": "json_object", "schema": schema}
    sent = with_image_parts(messages, model.image_max_side)
    return CompletionRequest(model.litellm_model, tuple(sent), merged, metric=template_name, draw=draw)
