"""Unit-test conditions (`==5`, `<5`, `>=4`, `==None`, ...) with GroUSE semantics, and PA/NR derivation."""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from dataclasses import dataclass

from judges.errors import ConditionError
from judges.judging.replies import GRADE_SPECS
from judges.types import Outcome, Verdict, VerdictState

_OPERATORS: dict[str, Callable[[float, float], bool]] = {
    "==": operator.eq,
    ">=": operator.ge,
    "<=": operator.le,
    ">": operator.gt,
    "<": operator.lt,
}
_PATTERN = re.compile(r"^\s*(==|>=|<=|>|<)\s*(None|null|-?\d+(?:\.\d+)?)\s*$")


@dataclass(frozen=True)
class Condition:
    """A parsed condition: an operator and a number, or `==None` (expects a null grade)."""

    op: str
    target: float | None  # None means the condition expects a null

    @classmethod
    def parse(
        cls, text: object, *, test_id: str = "?", field: str = "?", path: str | None = None, line: int | None = None
    ) -> Condition:
        """Parse `text`; a bad string raises ConditionError naming the test and the field."""
        match = _PATTERN.match(text) if isinstance(text, str) else None
        if match is None:
            raise ConditionError(
                f"test {test_id}: bad condition {text!r}; expected e.g. '==5', '<5', '>=4', '==None'",
                path=path,
                line=line,
                field=field,
            )
        op, raw = match.groups()
        if raw in ("None", "null"):
            if op != "==":
                raise ConditionError(
                    f"test {test_id}: only '==None' may compare with None, got {text!r}",
                    path=path,
                    line=line,
                    field=field,
                )
            return cls(op, None)
        return cls(op, float(raw))

    def __str__(self) -> str:
        if self.target is None:
            return "==None"
        number = int(self.target) if self.target.is_integer() else self.target
        return f"{self.op}{number}"

    @property
    def expects_null(self) -> bool:
        return self.target is None

    def accepts(self, value: float | None) -> bool:
        """GroUSE semantics: a null passes only `==None`; `==None` fails every number."""
        if self.target is None or value is None:
            return self.target is None and value is None
        return _OPERATORS[self.op](value, self.target)

    def unmeetable(self, grades: tuple[int, ...]) -> bool:
        """True when no grade of the metric's scale (and no null) can pass: `==6` on 1-5, `==3` on 0/1."""
        return not self.expects_null and not any(self.accepts(g) for g in grades)

    def check(self, verdict: Verdict) -> Outcome:
        """Pass, wrong grade, or failure (the run got no usable verdict: never counted as a wrong grade)."""
        if verdict.state is VerdictState.FAILURE:
            return Outcome.FAILURE
        return Outcome.PASS if self.accepts(verdict.grade) else Outcome.WRONG_GRADE


def metric_grades(metric: str) -> tuple[int, ...]:
    """The grades a judge may give for one of the four judged metrics (its reply schema's enum)."""

    return GRADE_SPECS[metric][1]


def derive_pa_nr(relevancy_is_null: bool, completeness_is_null: bool) -> tuple[float | None, float | None]:
    """Positive acceptance and negative rejection from whether AR and C are null (GroUSE table)."""
    if relevancy_is_null and completeness_is_null:
        return 1.0, 1.0
    if relevancy_is_null:
        return 0.0, None
    if completeness_is_null:
        return None, 0.0
    return None, None


def expected_pa_nr(relevancy: Condition, completeness: Condition) -> tuple[Condition, Condition]:
    """The PA and NR conditions a unit test implies through its AR and C conditions."""
    pa, nr = derive_pa_nr(relevancy.expects_null, completeness.expects_null)
    return Condition("==", pa), Condition("==", nr)


def judged_pa_nr(relevancy: Verdict, completeness: Verdict) -> tuple[Verdict, Verdict]:
    """The judge's own PA and NR from its AR and C verdicts; a failure on either propagates."""
    for source in (relevancy, completeness):
        if source.is_failure:
            failed = Verdict.failed(source.failure_kind, f"derived from a failed verdict: {source.message}")  # type: ignore[arg-type]
            return failed, failed
    pa, nr = derive_pa_nr(relevancy.state is VerdictState.NULL, completeness.state is VerdictState.NULL)

    def shown(verdict: Verdict) -> str:
        return "null" if verdict.state is VerdictState.NULL else f"{verdict.grade:g}"

    # the reason a report shows: the two verdicts it follows from (GroUSE's table)
    why = f"derived: answer relevancy {shown(relevancy)}, completeness {shown(completeness)}"

    def as_verdict(value: float | None) -> Verdict:
        return Verdict.null(why) if value is None else Verdict.graded(value, why)

    return as_verdict(pa), as_verdict(nr)
