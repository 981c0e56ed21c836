"""The RAG metrics' Jinja templates: the shipped prompts/rag/ folder, with an optional folder overriding any of them."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from judges.errors import PromptError
from judges.files.shipped import SHIPPED_PROMPTS, bundled_dir
from judges.judging.prompts import TEMPLATE_SUFFIX, PromptTemplate


def shipped_rag_folder() -> Path:
    return bundled_dir(SHIPPED_PROMPTS) / "rag"


def shipped_override(name: Path) -> Path:
    """A shipped folder of templates overriding prompts/rag/ ones, by its name under prompts/ (`llmbar/vanilla`,
    `llmbar/rules`: LLMBar's comparison prompts, MIT, their licence beside them)."""
    root = bundled_dir(SHIPPED_PROMPTS)
    shipped = root / name
    if name.is_absolute() or ".." in name.parts or not shipped.is_dir() or not any(shipped.glob(f"*{TEMPLATE_SUFFIX}")):
        raise PromptError(f"RAG prompt folder not found: {name} (a folder, or a shipped one: {', '.join(OVERRIDES)})")
    return shipped


OVERRIDES = ("llmbar/vanilla", "llmbar/rules")  # the shipped folders, as the error names them


@dataclass
class RagPrompts:
    """Finds `<name>.txt.jinja` in the override folder first, then in the shipped folder; loads each once."""

    override: Path | None = None
    shipped: Path = field(default_factory=shipped_rag_folder)
    _loaded: dict[str, PromptTemplate] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.override is not None and not self.override.is_dir():
            self.override = shipped_override(self.override)

    def template(self, name: str) -> PromptTemplate:
        if name not in self._loaded:
            folders = [f for f in (self.override, self.shipped) if f is not None]
            path = next(
                (f / f"{name}{TEMPLATE_SUFFIX}" for f in folders if (f / f"{name}{TEMPLATE_SUFFIX}").is_file()), None
            )
            if path is None:
                raise PromptError(f"no template {name}{TEMPLATE_SUFFIX} in {' or '.join(map(str, folders))}")
            self._loaded[name] = PromptTemplate(name, path, path.read_text(encoding="utf-8"))
        return self._loaded[name]

    def hashes(self) -> dict[str, str]:
        """SHA-256 of each template used so far."""
        return {name: template.sha256 for name, template in sorted(self._loaded.items())}
