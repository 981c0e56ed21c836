"""A metric's candidate templates: an instruction variant, few-shot examples (train tests or labelled items), and a
reply format."""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judges.errors import ConfigError
from judges.judging.replies import GRADE_SPECS, entry_schema
from judges.tuning.space import MetricSpace, TuneSpace, variant_path
from judges.types import UnitTest


@dataclass(frozen=True)
class Example:
    """A worked example as the judge sees it: the question, the documents (shown when given), the answer, why (a
    unit test's goal), and the correct grade on the template's scale (None: null)."""

    question: str
    answer: str
    grade: float | None
    references: tuple[str, ...] = ()
    why: str | None = None


def unit_test_example(metric: str, test: UnitTest) -> Example:
    """A train test as an example: its question, answer, goal and the grade its condition names."""
    target = test.conditions[metric].target
    return Example(test.sample.input or "", test.sample.actual_output or "", target, why=test.goal or None)


@dataclass(frozen=True)
class Candidate:
    """One metric's template under test; `order` is its place in the space (the base is 0)."""

    metric: str
    instruction: str
    examples: int
    reply_format: str
    source: str
    order: int

    @property
    def name(self) -> str:
        return f"{self.instruction}__ex{self.examples}__{self.reply_format}"

    @property
    def is_base(self) -> bool:
        return self.instruction == "base" and self.examples == 0 and self.reply_format == "as_written"


def example_pool(metric: str, space: MetricSpace, train: Sequence[UnitTest]) -> list[UnitTest]:
    """Train tests usable as worked examples (their condition names one grade, or null), as many as the largest
    count asked for, alternating between expected grades so two examples do not show the same grade."""
    wanted = max(space.examples)
    if wanted == 0:
        return []
    usable = [
        t
        for t in train
        if metric in t.conditions
        and t.conditions[metric].op == "=="
        and (not space.example_types or t.test_type in space.example_types)
    ]
    by_grade: dict[float | None, list[UnitTest]] = {}
    for test in usable:
        by_grade.setdefault(test.conditions[metric].target, []).append(test)
    interleaved = [t for group in itertools.zip_longest(*by_grade.values()) for t in group if t is not None]
    if len(interleaved) < wanted:
        raise ConfigError(
            f"tune space: {metric} asks for {wanted} examples but the train split has {len(interleaved)} usable "
            "(tests whose condition is '==' a grade or None, of the listed example_types)"
        )
    return interleaved[:wanted]


def build_candidates(
    metric: str, base_source: str, space: TuneSpace, root: Path, pool: Sequence[UnitTest | Example]
) -> list[Candidate]:
    """Every combination of the metric's space, the base (the base folder's template as written) first; the first
    k examples of `pool` go into a candidate showing k."""
    metric_space = space.metric_spaces()[metric]
    examples = [p if isinstance(p, Example) else unit_test_example(metric, p) for p in pool]
    out: list[Candidate] = []
    combos = itertools.product(metric_space.instructions, metric_space.examples, metric_space.reply_formats)
    for instruction, count, reply_format in combos:
        text = base_source if instruction == "base" else _read_variant(root, space, metric, instruction)
        source = compose(metric, text, examples[:count], reply_format)
        out.append(Candidate(metric, instruction, count, reply_format, source, 0))
    out.sort(key=lambda c: not c.is_base)  # stable: the base first, the rest in the space's order
    if not out[0].is_base:
        base = Candidate(metric, "base", 0, "as_written", base_source, 0)
        out.insert(0, base)
    return [Candidate(c.metric, c.instruction, c.examples, c.reply_format, c.source, i) for i, c in enumerate(out)]


def _read_variant(root: Path, space: TuneSpace, metric: str, name: str) -> str:
    path = variant_path(root, space, metric, name)
    if not path.is_file():
        raise ConfigError(f"tune space: instruction variant {name!r} of {metric} not found: {path}")
    return path.read_text(encoding="utf-8")


def compose(metric: str, text: str, examples: Sequence[Example], reply_format: str) -> str:
    """The template: `text` with worked examples inserted before its last paragraph (the reply instructions), and,
    unless the format is "as_written", that paragraph replaced by the format's and the format declared; the
    material the paragraph holds (GroUSE's sample and answers) is kept, just above the new reply instructions, so
    no rewrite drops a variable."""
    if not examples and reply_format == "as_written":
        return text
    body, sep, last = text.rstrip().rpartition("\n\n")
    if not sep:
        raise ConfigError(
            f"tune space: the {metric} template has no blank line before its reply instructions, so examples and "
            "reply formats have nowhere to go"
        )
    parts = [body]
    if examples:
        parts.append(examples_block(metric, examples))
    if reply_format == "as_written":
        parts.append(last)
        return "\n\n".join(parts) + "\n"
    material = graded_material(last)
    return (
        f"{{# reply_format: {reply_format} #}}\n"
        + "\n\n".join([*parts, *([material] if material else []), reply_instructions(metric, reply_format)])
        + "\n"
    )


SECTION_MARKER = re.compile(r"\[/?[A-Z][A-Z _]*\]")  # GroUSE's `[SAMPLE]`, `[/EVALUATION INSTRUCTIONS]`


def graded_material(paragraph: str) -> str:
    """What of the reply paragraph a new reply format must keep: the lines from its first line of template code
    (`{{` or `{%`: the references, the question, the answers), from the section marker that opens them and the
    markers just above it when there are any. GroUSE's templates end with the sample after their reply
    instructions; judgelab's own hold none there (an empty text)."""
    lines = paragraph.split("\n")
    first = next((k for k, line in enumerate(lines) if "{{" in line or "{%" in line), None)
    if first is None:
        return ""
    first = max((k for k in range(first) if SECTION_MARKER.fullmatch(lines[k].strip())), default=first)
    while first > 0 and SECTION_MARKER.fullmatch(lines[first - 1].strip()):
        first -= 1
    return "\n".join(lines[first:])


def examples_block(metric: str, examples: Sequence[Example]) -> str:
    """Worked examples, shown verbatim inside a raw block (an example's text never runs as template code)."""
    lines = ["Worked examples (other questions, graded correctly):"]
    for number, example in enumerate(examples, start=1):
        lines += ["", f"Example {number}. Question: {example.question}"]
        lines += [f"Document [{n}]: {text}" for n, text in enumerate(example.references, start=1)]
        lines.append(f"Answer: {example.answer}")
        if example.why:
            lines.append(f"Why: {example.why}")
        grade = example.grade
        lines.append(f"Correct {metric} grade: {'null' if grade is None else f'{grade:g}'}")
    text = "\n".join(lines)
    return "{% raw %}" + text.replace("{% endraw %}", "{% endraw %}{{ '{% endraw %}' }}{% raw %}") + "{% endraw %}"


def reply_instructions(metric: str, reply_format: str) -> str:
    """The reply paragraph of a format: the JSON shape of its schema (replies.entry_schema), fields in its order."""
    grades = GRADE_SPECS[metric][1]
    scale = f"{grades[0]}-{grades[-1]} or null" if len(grades) > 2 else " or ".join(map(str, grades)) + " or null"

    def shown(field: dict[str, Any]) -> str:
        return {"boolean": "true|false", "string": '"one or two sentences"'}.get(field.get("type", ""), scale)

    properties = entry_schema(metric, reply_format)["properties"]
    entry = ", ".join(f"{json.dumps(key)}: {shown(field)}" for key, field in properties.items())
    return (
        "Grade the two answers above. Reply with JSON only, in this shape:\n"
        f'{{"answer_1": {{{entry}}},\n "answer_2": {{{entry}}}}}'
    )
