"""The grades the constant reference judges give, per metric: one grade whatever the test (always the top grade,
always the lowest, always null). The baselines run them (`judges.suite.baselines`); reports name them."""

from __future__ import annotations

CONSTANT_GRADES: dict[str, dict[str, int | None]] = {
    "always-top": {"answer_relevancy": 5, "completeness": 5, "faithfulness": 1, "usefulness": 1},
    "always-lowest": {"answer_relevancy": 1, "completeness": 1, "faithfulness": 0, "usefulness": 0},
    "always-null": {"answer_relevancy": None, "completeness": None, "faithfulness": None, "usefulness": None},
}
