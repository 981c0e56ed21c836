"""Rubric grades: a JSON reply (reason, then grade on a scale) and, with --logprobs, the probability-weighted grade
from a one-token call of the same template."""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from judges.judging.replies import ReplyError
from judges.rag.logprobs import WeightedGrade
from judges.rag.parsing import as_text, field, reason_schema

if TYPE_CHECKING:
    from judges.rag.scope import MetricRun


@dataclass(frozen=True)
class Scale:
    """Grade labels (what the judge writes, lower case) and their values; binary scales say yes / no."""

    labels: Mapping[str, float]

    @classmethod
    def binary(cls) -> Scale:
        return cls({"no": 0.0, "yes": 1.0})

    @classmethod
    def points(cls, low: int, high: int) -> Scale:
        return cls({str(i): float(i) for i in range(low, high + 1)})

    @property
    def is_binary(self) -> bool:
        return set(self.labels) == {"yes", "no"}

    @property
    def low(self) -> float:
        return min(self.labels.values())

    @property
    def high(self) -> float:
        return max(self.labels.values())

    def normalize(self, value: float) -> float:
        return (value - self.low) / (self.high - self.low)

    def schema(self) -> dict[str, Any]:
        grades: list[Any] = list(self.labels) if self.is_binary else [int(v) for v in self.labels.values()]
        return {
            "type": "object",
            "properties": {"reason": reason_schema(), "grade": {"enum": grades}},
            "required": ["reason", "grade"],
        }

    def parse(self, raw: Any) -> float:
        label = ("yes" if raw else "no") if isinstance(raw, bool) and self.is_binary else as_text(raw).casefold()
        if not self.is_binary and not isinstance(raw, bool):
            try:
                number = float(label)
            except ValueError:
                number = None
            if number is not None and number.is_integer():
                label = str(int(number))
        if label not in self.labels:
            raise ReplyError(f"grade {raw!r} is not one of {', '.join(self.labels)}")
        return self.labels[label]


@dataclass(frozen=True)
class RubricGrade:
    grade: float  # from the JSON reply
    reason: str
    weighted: WeightedGrade | None = None

    @property
    def value(self) -> float:
        """The probability-weighted grade when it was asked for, else the grade."""
        return self.weighted.value if self.weighted is not None else self.grade

    @property
    def confidence(self) -> float | None:
        """From logprobs: the probability of the likeliest grade among the grade tokens; else None."""
        return self.weighted.confidence if self.weighted is not None else None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"grade": self.grade, "reason": self.reason}
        if self.weighted is not None:
            out["weighted"] = self.weighted.to_dict()
        return out


async def rubric_grade(
    run: MetricRun,
    template: str,
    variables: Mapping[str, Any],
    scale: Scale,
    key: Hashable,
    *,
    params: Mapping[str, Any] | None = None,
    weighted: bool | None = None,
) -> RubricGrade:
    """One graded judgement (a shared step under `key`); weighted from logprobs when the settings ask for it."""
    weigh = run.settings.logprobs if weighted is None else weighted

    async def make(log: list[dict[str, Any]]) -> RubricGrade:
        def parse(obj: Any) -> tuple[float, str]:
            return scale.parse(field(obj, "grade")), as_text(obj.get("reason"))

        variables_all = {**variables, "scale": list(scale.labels)}
        grade, reason = await run.judge.ask_json(template, variables_all, scale.schema(), parse, log, params=params)
        token = await run.judge.ask_grade_token(template, variables_all, scale.labels, log) if weigh else None
        return RubricGrade(grade, reason, token)

    return await run.step(key, make)
