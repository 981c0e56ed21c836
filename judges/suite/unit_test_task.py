"""The unit-test run kind, as a task for the run service: each test judged, its verdicts checked against its
conditions."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from judges.judging.grouse_judge import GroundedQAJudge
from judges.judging.prompts import check_renders
from judges.records import ItemRecord
from judges.runs.items import Item
from judges.runs.prefix_order import in_prefix_order
from judges.runs.tasks import sample_fields
from judges.suite.outcome_summary import UNIT_TESTS as UNIT_TESTS  # the kind's name, re-exported for the jury
from judges.suite.scoring import score_unit_test
from judges.types import UnitTest


@dataclass
class UnitTestTask:
    """Unit tests judged by a GroUSE judge, `draws` times each; every verdict is checked against its condition.
    `prefix_order`: start them in the order that lets a serial judge's server reuse the longest prompt prefix."""

    tests: Sequence[UnitTest]
    judge: GroundedQAJudge
    draws: int = 1
    kind: str = UNIT_TESTS
    items_per_slot: int = 4
    prefix_order: bool = False
    items: list[Item] = field(init=False)

    def __post_init__(self) -> None:
        pairs = [(draw, test) for draw in range(self.draws) for test in self.tests]
        self.items = [Item(test.id, order, test, draw) for order, (draw, test) in enumerate(pairs)]
        if self.prefix_order:
            prompts = self.judge.prompts  # a test's first call: answer relevancy (judges/judging/grouse_judge.py)
            self.items = in_prefix_order(
                self.items, lambda item: prompts.render("answer_relevancy", item.payload.sample)
            )

    def check(self) -> None:
        check_renders(self.judge.prompts, (test.sample for test in self.tests))

    def provenance(self) -> dict[str, Any]:
        return {}

    async def run_item(self, item: Item) -> ItemRecord:
        test: UnitTest = item.payload
        result = score_unit_test(test, await self.judge.judge(test.sample, item.draw, priority=item.order))
        return ItemRecord(
            item.id,
            result.metric_records(),
            item.order,
            item.draw,
            sample_fields(test.sample),
            part=test_part(test),
        )


def test_part(test: UnitTest) -> dict[str, Any]:
    """A unit test's own fields in its record (`ItemRecord.part`): its type, its set and the file:line it came from."""
    return {"test_type": test.test_type, "set_id": test.set_id, "source": test.source}
