"""One leaderboard row: a candidate's figure on one evaluation and metric, with its interval, n, cost and speed."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any


@dataclass
class Entry:
    candidate: str
    kind: str
    model: str | None
    prompts: str | None
    prompt_sha: str | None
    evaluation: str
    metric: str
    statistic: str
    value: float | None
    ci_low: float | None
    ci_high: float | None
    n: int
    failure_rate: float | None = None
    calls: int = 0
    cost_usd: float = 0.0
    seconds: float = 0.0
    ceiling: float | None = None  # human-human agreement on the same items, where two annotators labelled them
    note: str | None = None

    @property
    def cost_per_1k_calls(self) -> float:
        return 1000 * self.cost_usd / self.calls if self.calls else 0.0

    @property
    def seconds_per_call(self) -> float:
        return self.seconds / self.calls if self.calls else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "cost_per_1k_calls": self.cost_per_1k_calls, "seconds_per_call": self.seconds_per_call}
