"""Prompt sets: a folder of four Jinja templates, rendered in a sandbox with strict undefined variables."""

from __future__ import annotations

import functools
import hashlib
import importlib.util
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from judges.errors import PromptError
from judges.paths import bundled_dir
from judges.types import GROUSE_METRICS, Sample

TEMPLATE_SUFFIX = ".txt.jinja"


@dataclass(frozen=True)
class PromptTemplate:
    """One metric's template, its source text and the hash of that text."""

    metric: str
    path: Path
    source: str

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.source.encode("utf-8")).hexdigest()

    @functools.cached_property
    def _compiled(self) -> Any:
        from jinja2 import StrictUndefined, TemplateError
        from jinja2.sandbox import SandboxedEnvironment

        env = SandboxedEnvironment(undefined=StrictUndefined, keep_trailing_newline=False, autoescape=False)
        try:
            return env.from_string(self.source)
        except TemplateError as err:
            raise PromptError(f"{self.path}: invalid template: {err}") from None

    def render(self, **variables: Any) -> str:
        """Render in the sandbox; a variable the template uses but is not given is an error, not ''."""
        from jinja2 import TemplateError

        try:
            return self._compiled.render(**variables).strip()
        except TemplateError as err:
            raise PromptError(f"{self.path}: cannot render: {err}") from None


@dataclass(frozen=True)
class PromptSet:
    """The templates of one judge prompt set, by metric."""

    name: str
    folder: Path
    templates: dict[str, PromptTemplate]

    def render(self, metric: str, sample: Sample) -> str:
        return self.templates[metric].render(**sample_variables(sample))

    def hashes(self) -> dict[str, str]:
        return {metric: template.sha256 for metric, template in self.templates.items()}


def check_renders(prompts: PromptSet, samples: Iterable[Sample], metrics: Iterable[str] | None = None) -> None:
    """Render every template for every sample: a template error surfaces here, before any call."""
    chosen = list(metrics or prompts.templates)
    for sample in samples:
        for metric in chosen:
            prompts.render(metric, sample)


def sample_variables(sample: Sample) -> dict[str, Any]:
    """The variables every template may use (the names grouse's templates use)."""
    return {"input": sample.input, "contexts": list(sample.references), "expected_output": sample.expected_output,
            "actual_output": sample.actual_output}


def resolve_prompt_folder(spec: str) -> Path:
    """`default` (and other shipped names), `grouse` (the PyPI package's folder), or a path."""
    if spec == "grouse":
        found = importlib.util.find_spec("grouse")
        if found is None or not found.submodule_search_locations:
            raise PromptError("--prompts grouse needs the grouse package's files: pip install --no-deps grouse==0.4.2")
        return Path(list(found.submodule_search_locations)[0]) / "gpt4_prompts"
    path = Path(spec)
    if path.is_dir():
        return path
    shipped = bundled_dir("prompts") / spec
    if "/" not in spec and shipped.is_dir():
        return shipped
    raise PromptError(f"prompt folder not found: {spec} (give a folder, 'grouse', or one of: {', '.join(shipped_prompt_sets())})")


def shipped_prompt_sets() -> list[str]:
    root = bundled_dir("prompts")
    if not root.is_dir():
        return []
    # a set is a folder holding the four GroUSE templates (prompts/rag/ holds the metric suite's steps)
    return sorted(p.name for p in root.iterdir() if p.is_dir() and (p / f"answer_relevancy{TEMPLATE_SUFFIX}").is_file())


def load_prompt_set(spec: str, metrics: tuple[str, ...] = GROUSE_METRICS) -> PromptSet:
    folder = resolve_prompt_folder(spec)
    templates = {}
    for metric in metrics:
        path = folder / f"{metric}{TEMPLATE_SUFFIX}"
        if not path.is_file():
            raise PromptError(f"{folder}: missing {path.name} (a prompt folder holds one template per metric)")
        templates[metric] = PromptTemplate(metric, path, path.read_text(encoding="utf-8"))
    return PromptSet(spec if spec in ("grouse", *shipped_prompt_sets()) else str(folder), folder, templates)
