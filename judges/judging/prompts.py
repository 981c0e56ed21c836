"""Prompt sets: a folder of four Jinja templates, rendered in a sandbox with strict undefined variables."""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import re
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judges.errors import PromptError
from judges.files.shipped import SHIPPED_PROMPTS, bundled_dir
from judges.judging.replies import REPLY_FORMATS
from judges.types import GROUSE_METRICS, Sample

TEMPLATE_SUFFIX = ".txt.jinja"
# A template may declare the reply shape it asks for, for constrained decoding: `{# reply_format: grade_only #}`
# (a Jinja comment, so the rendered prompt does not show it). Without one, justification comes first.
_REPLY_FORMAT = re.compile(r"\{#-?\s*reply_format:\s*([a-z0-9_]+)\s*-?#\}")


@dataclass(frozen=True)
class PromptTemplate:
    """One metric's template, its source text and the hash of that text."""

    metric: str
    path: Path
    source: str

    @functools.cached_property
    def sha256(self) -> str:
        return hashlib.sha256(self.source.encode("utf-8")).hexdigest()

    @property
    def reply_format(self) -> str:
        """The reply shape the template declares (`{# reply_format: NAME #}`), else "justification_first"."""
        found = _REPLY_FORMAT.search(self.source)
        return found.group(1) if found else "justification_first"

    @functools.cached_property
    def _compiled(self) -> Any:
        return _compiled(str(self.path), self.source)

    def check_variables(self, allowed: set[str], required: tuple[str, ...] = ()) -> None:
        """Before any call: the template parses, uses only `allowed` variables, and uses each `required` one
        (checked once in a process for a source: a run's report.html loads the run's prompt folder again)."""
        from jinja2 import TemplateSyntaxError, meta, nodes

        checked = (str(self.path), self.source, frozenset(allowed), required)
        if checked in _PASSED:
            return
        try:
            tree = _environment().parse(self.source)
        except TemplateSyntaxError as err:
            raise PromptError(f"{self.path}:{err.lineno}: invalid template: {err.message}") from None
        if any(True for _ in meta.find_referenced_templates(tree)):
            raise PromptError(f"{self.path}: include, import and extends are not supported: a template stands alone")

        if self.reply_format not in REPLY_FORMATS:
            raise PromptError(
                f"{self.path}: unknown reply_format {self.reply_format!r}; known: {', '.join(REPLY_FORMATS)}"
            )
        used = meta.find_undeclared_variables(tree)
        for name in sorted(used - allowed):
            line = min(n.lineno for n in tree.find_all(nodes.Name) if n.name == name)
            raise PromptError(
                f"{self.path}:{line}: undefined variable {name!r}; a template may use {', '.join(sorted(allowed))}"
            )
        for name in required:
            if name not in used:
                raise PromptError(
                    f"{self.path}: never uses {{{{ {name} }}}}, so the judge would not see the answer under test"
                )
        _PASSED.add(checked)

    def render_sample(self, sample: Sample) -> str:
        """`render` with the sample's variables; the same template and sample fields render once in a process
        (the check before any call, the call itself and the report's prompts all render the same text)."""
        fields = (sample.input, sample.references, sample.expected_output, sample.actual_output)
        key = (str(self.path), self.source, *fields)
        found = RENDERED.get(key)
        if found is None:
            texts = [*fields[:1], *(fields[1] or ()), *fields[2:]]
            found = RENDERED.put(key, self.render(**sample_variables(sample)), sum(len(t or "") for t in texts))
        return found

    def render(self, **variables: Any) -> str:
        """Render in the sandbox; a variable the template uses but is not given is an error, not ''."""
        from jinja2 import TemplateError

        try:
            return self._compiled.render(**variables).strip()
        except (TemplateError, TypeError, ValueError, ArithmeticError, LookupError, AttributeError) as err:
            line = _template_line(err, str(self.path))
            where = f"{self.path}:{line}" if line else str(self.path)
            raise PromptError(f"{where}: cannot render: {err}") from None


@dataclass(frozen=True)
class PromptSet:
    """The templates of one judge prompt set, by metric."""

    name: str
    folder: Path
    templates: dict[str, PromptTemplate]

    def render(self, metric: str, sample: Sample) -> str:
        return self.templates[metric].render_sample(sample)

    def hashes(self) -> dict[str, str]:
        return {metric: template.sha256 for metric, template in self.templates.items()}


def check_renders(prompts: PromptSet, samples: Iterable[Sample], metrics: Iterable[str] | None = None) -> None:
    """Render every template for every sample: a template error surfaces here, before any call."""
    chosen = list(metrics or prompts.templates)
    for sample in samples:
        for metric in chosen:
            prompts.render(metric, sample)


@functools.cache
def _environment() -> Any:
    """The one sandbox every prompt template is parsed and compiled in."""
    from jinja2 import StrictUndefined
    from jinja2.sandbox import SandboxedEnvironment

    return SandboxedEnvironment(undefined=StrictUndefined, keep_trailing_newline=False, autoescape=False)


@functools.lru_cache(maxsize=64)
def _compiled(path: str, source: str) -> Any:
    """A template's source compiled once in a process (a run's judge and its report.html load the same folder)."""
    from jinja2 import TemplateSyntaxError

    env = _environment()
    try:  # compiled under the file's name, so a render error's traceback gives the template's line
        code = env.compile(source, name=Path(path).name, filename=path)
    except TemplateSyntaxError as err:
        raise PromptError(f"{path}:{err.lineno}: invalid template: {err.message}") from None
    # the globals as a plain dict (the environment's are never changed): each render copies them into its
    # context, which from a dict is one C call and from make_globals' ChainMap a Python loop over its keys
    return env.template_class.from_code(env, code, dict(env.make_globals(None)), None)


class RenderedPrompts:
    """Prompts rendered in this process, by template and sample fields, up to RENDERED_CHARS characters with their
    keys' (the oldest dropped first): a run of any size holds at most that much."""

    def __init__(self) -> None:
        self.texts: dict[tuple[Any, ...], tuple[str, int]] = {}  # key -> (prompt, characters with the key's)
        self.chars = 0
        self.lock = threading.Lock()

    def get(self, key: tuple[Any, ...]) -> str | None:
        found = self.texts.get(key)
        return None if found is None else found[0]

    def put(self, key: tuple[Any, ...], text: str, key_chars: int) -> str:
        """Keep `text` under `key` (whose own texts take `key_chars`), dropping the oldest to make room."""
        size = len(text) + key_chars
        with self.lock:
            while self.texts and self.chars + size > RENDERED_CHARS:
                self.chars -= self.texts.pop(next(iter(self.texts)))[1]
            if size <= RENDERED_CHARS and key not in self.texts:
                self.texts[key] = (text, size)
                self.chars += size
        return text


RENDERED_CHARS = 1 << 23  # 8 M characters kept (152 samples' 608 prompts and their fields take 4 M)
RENDERED = RenderedPrompts()
_PASSED: set[tuple[str, str, frozenset[str], tuple[str, ...]]] = set()  # the checks templates passed


def _template_line(err: Exception, filename: str) -> int | None:
    """The template line a render error was raised from (Jinja maps its frames to template lines)."""
    import traceback

    lines = [frame.lineno for frame in traceback.extract_tb(err.__traceback__) if frame.filename == filename]
    return lines[-1] if lines else None


SAMPLE_VARIABLES = ("input", "contexts", "expected_output", "actual_output")


def sample_variables(sample: Sample) -> dict[str, Any]:
    """The variables a template may use (the names grouse's templates use); a field the sample lacks is left
    undefined, so a template that needs it stops with an error naming the variable, the file and the line."""
    values = {
        "input": sample.input,
        "contexts": None if sample.references is None else list(sample.references),
        "expected_output": sample.expected_output,
        "actual_output": sample.actual_output,
    }
    return {name: value for name, value in values.items() if value is not None}


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
    shipped = bundled_dir(SHIPPED_PROMPTS) / spec
    if "/" not in spec and shipped.is_dir():
        return shipped
    raise PromptError(
        f"prompt folder not found: {spec} (give a folder, 'grouse', or one of: {', '.join(shipped_prompt_sets())})"
    )


def shipped_prompt_sets() -> list[str]:
    root = bundled_dir(SHIPPED_PROMPTS)
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
        try:
            source = path.read_text(encoding="utf-8")
        except UnicodeDecodeError as err:
            raise PromptError(f"{path}: not UTF-8 text (byte {err.start}); save the template as UTF-8") from None
        templates[metric] = PromptTemplate(metric, path, source)
        templates[metric].check_variables(set(SAMPLE_VARIABLES), required=("actual_output",))
    return PromptSet(spec if spec in ("grouse", *shipped_prompt_sets()) else str(folder), folder, templates)
