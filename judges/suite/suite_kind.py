"""The unit-test run kind's traits for the core and the pages (`judgelab.kinds` entry `unit_tests`): its items pass
or fail their conditions, and its figures stand beside the baselines' (the best constant judge and the oracle)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from judges.records import Summary
from judges.runs.kinds import KindTraits
from judges.runs.run_config import RunConfig
from judges.suite.reference import Beside, conclusion, summary_beside
from judges.types import UnitTest

UNIT_TESTS = "unit_tests"  # the kind's name, as run.json gives it


@dataclass(frozen=True)
class SuiteSettings:
    """A unit-test run's own config keys: how many tests, and the baselines' pass rates on them."""

    n_tests: int | None = None
    baselines: Mapping[str, Mapping[str, float | None]] | None = None

    @classmethod
    def of(cls, details: Mapping[str, Any]) -> SuiteSettings:
        """The settings from run.json's config (a key the run did not record reads as None)."""
        n_tests, baselines = details.get("n_tests"), details.get("baselines")
        return cls(n_tests if isinstance(n_tests, int) else None, baselines if isinstance(baselines, Mapping) else None)


class UnitTestKind(KindTraits):
    """Unit-test runs: pass rates per metric and test type, stability, flips and drift, the result matrix."""

    unit = "test"
    outcomes = True
    not_passed = ("wrong_grade", "failure")

    def references(self, summary: Summary, config: RunConfig) -> Sequence[Beside]:
        return summary_beside(summary, config.settings(SuiteSettings.of).baselines)

    def conclusion(self, summary: Summary, config: RunConfig) -> str | None:
        return conclusion(summary_beside(summary, config.settings(SuiteSettings.of).baselines))


UNIT_TEST_KIND = UnitTestKind()


def test_part(test: UnitTest) -> dict[str, Any]:
    """A unit test's own fields in its record (`ItemRecord.part`): its type, its set and the file:line it came from."""
    return {"test_type": test.test_type, "set_id": test.set_id, "source": test.source}
