"""The unit-test run kind's traits for the core and the pages (`judgelab.kinds` entry `unit_tests`): its items pass
or fail their conditions, and its figures stand beside the baselines' (the best constant judge and the oracle)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from judges.records import Summary
from judges.runs.kinds import KindTraits
from judges.suite.reference import Beside, conclusion, summary_beside
from judges.types import UnitTest

UNIT_TESTS = "unit_tests"  # the kind's name, as run.json gives it


class UnitTestKind(KindTraits):
    """Unit-test runs: pass rates per metric and test type, stability, flips and drift, the result matrix."""

    unit = "test"
    outcomes = True
    not_passed = ("wrong_grade", "failure")

    def references(self, summary: Summary, config: Mapping[str, Any]) -> Sequence[Beside]:
        return summary_beside(summary, config.get("baselines"))

    def conclusion(self, summary: Summary, config: Mapping[str, Any]) -> str | None:
        return conclusion(summary_beside(summary, config.get("baselines")))


UNIT_TEST_KIND = UnitTestKind()


def test_part(test: UnitTest) -> dict[str, Any]:
    """A unit test's own fields in its record (`ItemRecord.part`): its type, its set and the file:line it came from."""
    return {"test_type": test.test_type, "set_id": test.set_id, "source": test.source}
