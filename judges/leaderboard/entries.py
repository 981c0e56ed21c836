"""One leaderboard row: a candidate's figure on one evaluation and metric, with its interval, n, cost and speed."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from judges.leaderboard.label_paired import LabelPairs
    from judges.leaderboard.pair_draws import PairDraws


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
    note: str | None = None  # why the value is n/a, or anything else a reader must know about the figure
    # each item's contribution where the figure is their mean (e.g. 1/0 per unit test for a pass rate), keyed by
    # item id: the selection then compares two candidates with a paired bootstrap on the same items
    item_values: dict[str, float] | None = None
    baseline: str | None = None  # which baseline a baseline row is (oracle, always-top, ...): the oracle is a ceiling
    # median seconds of the calls that reached the model (cache hits excluded; None when every call was cached
    # and no recorded latency came with them): ties are broken on this, never on the run's wall time
    latency_s_per_uncached_call: float | None = None
    members: tuple[str, ...] | None = None  # a jury's member candidates: it must also beat the best of them
    # a jury's members: the mean pairwise Pearson correlation of their errors on the items all graded (error_items),
    # and the effective number of independent members n / (1 + (n - 1) * that correlation)
    error_correlation: float | None = None
    effective_members: float | None = None
    error_items: int | None = None
    error_note: str | None = None  # why either is missing, or pairs left out
    cost_measured: bool = True  # False for predictions made elsewhere whose source records no cost
    # labels: every figure measured (statistic -> value), and the plain figure beside a system-aware one that ranks
    figures: dict[str, float | None] | None = None
    plain_statistic: str | None = None
    plain_value: float | None = None
    # the place among the candidates of its evaluation and metric resting on the same items (standings.py): the
    # rank by value, its 95% interval over the bootstrap resamples, and the tie group (1 = the top group)
    rank: int | None = None
    rank_interval: tuple[int, int] | None = None
    cluster: int | None = None
    # labels: what the figure rests on item by item, for a paired bootstrap against another candidate (not written)
    paired: LabelPairs | None = field(default=None, repr=False, compare=False)
    # a judge benchmark: its pairwise statistic over the label rows, drawn for ranks and paired tests (not written)
    pairwise: PairDraws | None = field(default=None, repr=False, compare=False)

    @property
    def is_oracle(self) -> bool:
        """A baseline that reads the expected answers: a ceiling to show, not a bar to beat."""
        return self.kind == "baseline" and (self.baseline or self.candidate) == "oracle"

    @property
    def cost_per_1k_calls(self) -> float:
        return 1000 * self.cost_usd / self.calls if self.calls else 0.0

    @property
    def seconds_per_call(self) -> float:
        return self.seconds / self.calls if self.calls else 0.0

    def to_dict(self, *, item_values: bool = True) -> dict[str, Any]:
        row = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in ("paired", "pairwise")}
        row |= {"cost_per_1k_calls": self.cost_per_1k_calls, "seconds_per_call": self.seconds_per_call}
        for name in ("members", "rank_interval"):
            if row[name] is not None:
                row[name] = list(row[name])
        if not item_values:
            row.pop("item_values")
        return row


def check_stop(run: Any) -> str | None:
    """A candidate's run that stopped early raises its error; a degraded one (finished, but more failed verdicts
    than its fail_on_error allows) gives the note its entries carry, so the board keeps every other candidate."""
    if run.stop_reason == "degraded":
        return f"degraded run: {run.stop_message}"
    if run.stop_reason:
        raise run.stop_error()
    return None


def noted(entries: list[Entry], note: str | None) -> list[Entry]:
    """The entries with `note` added (kept with any note they had)."""
    if note:
        for entry in entries:
            entry.note = f"{entry.note}; {note}" if entry.note else note
    return entries
