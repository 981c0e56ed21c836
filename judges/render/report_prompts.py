"""The prompts a run sent, rendered again from its prompt folder and the record's sample (when the template's
hash still matches the one the call recorded)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from judges.errors import JudgelabError
from judges.judging.prompts import load_prompt_set
from judges.runs.run_config import RunConfig
from judges.types import Sample


class PromptRenderer:
    """Templates of the run's prompt folder by sha256; a template edited since the run is not used."""

    def __init__(self, config: RunConfig) -> None:
        self.templates: dict[str, Any] = {}
        folder = config.prompts_folder
        if folder:
            try:
                loaded = load_prompt_set(folder)
            except JudgelabError:
                return  # the folder moved or is incomplete: the report says the prompt is not available
            self.templates = {t.sha256: t for t in loaded.templates.values()}

    def render(self, call: Mapping[str, Any], sample: Mapping[str, Any] | None) -> str | None:
        """The first message of `call`, or None when its template or the sample is not at hand."""
        template = self.templates.get(str(call.get("prompt_sha256")))
        if template is None or not sample:
            return None

        try:
            fields = Sample(
                sample["input"], tuple(sample["references"]), sample["expected_output"], sample["actual_output"]
            )
            return str(template.render_sample(fields))
        except (KeyError, TypeError, JudgelabError):
            return None
