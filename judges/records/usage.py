"""Call usage: the counts every usage figure shares (`CallCounts`), `Usage`, and its running totals over call records.

The runtime's live counter of a run's calls (`judges.calls.runtime.CallCounter`, run.json's `usage`) is built on the
same counts, so each shared field is declared once, here.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Self

# The keys in the order run folders have always written them: the live counter's `retries` and the totals'
# `priced_cost` sit among the shared counts, where a subclass's own field cannot be declared.
JSON_ORDER = (
    "calls",
    "replies",
    "cached_calls",
    "failed_calls",
    "retries",
    "prompt_tokens",
    "completion_tokens",
    "cost",
    "priced_cost",
    "failures",
)


REPLIED_KINDS = (
    "unparseable",
    "refused",
    "oversized",
)  # failures of a call that did reply: counted among the replies too


@dataclass
class CallCounts:
    """Calls made (`calls`: each call once, whatever its retries): those that got a reply (`replies`, a cached one
    included) and those answered from the cache (`cached_calls`); the failed ones (`failed_calls`: no reply after
    the retries, or a reply that could not be used, which is among the replies too) and `failures`, the same by
    kind (their sum is `failed_calls`); tokens, and what the calls cost. So `calls` = `replies` + the failures
    that got no reply."""

    calls: int = 0
    replies: int = 0
    cached_calls: int = 0
    failed_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0
    failures: dict[str, int] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        values = dataclasses.asdict(self)
        return {key: values[key] for key in JSON_ORDER if key in values}

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None) -> Self:
        """The counts as `to_json` (of this class or a sibling) wrote them; a key this class lacks is skipped. An
        older judgelab wrote no `replies`: its `calls` were the replies, and its run-wide `failed_calls` left out
        unusable replies, so both are counted again from `failures`."""
        values = known_fields(cls, data)
        if data is not None and "calls" in data and "replies" not in data:
            failures = {str(kind): int(n) for kind, n in (data.get("failures") or {}).items()}
            unanswered = sum(n for kind, n in failures.items() if kind not in REPLIED_KINDS)
            values.update(replies=values["calls"], calls=values["calls"] + unanswered)
            values.update(failed_calls=sum(failures.values()))
        return cls(**values)


@dataclass
class RunUsage(CallCounts):
    """A run's calls as they were made (run.json's `usage`): the shared counts and the retries (the live counter,
    `judges.calls.runtime.CallCounter`, is one of these)."""

    retries: int = 0


@dataclass
class Usage(CallCounts):
    """Totals over call records (an item's, a metric's, a run's): the shared counts, where `cost` is what this run
    spent, and `priced_cost`, what the replies cost when they were made (a cached reply included). Built once by the
    summary or read back from a run folder; never changed after."""

    priced_cost: float = 0.0


def known_fields(cls: type, data: Mapping[str, Any] | None) -> dict[str, Any]:
    """The entries of `data` that are fields of the dataclass `cls` (a key an older judgelab wrote is skipped)."""
    names = {f.name for f in dataclasses.fields(cls)}
    return {k: v for k, v in (data or {}).items() if k in names}


class UsageTotals:
    """Running totals over call records: replies (and how many came from the cache), failed calls (no reply, or a
    reply that could not be used) by kind, tokens, cost."""

    def __init__(self) -> None:
        self.replies = self.unanswered = self.cached = self.prompt_tokens = self.completion_tokens = 0
        self.cost = self.priced_cost = 0.0
        self.failures: Counter[str] = Counter()

    def add(self, calls: Iterable[Mapping[str, Any]]) -> None:
        for call in calls:
            if "error" in call:  # a call made that got no reply
                self.unanswered += 1
                self.failures[call["error"]] += 1
                continue
            if call.get("unusable"):
                self.failures[call["unusable"]] += 1
            self.replies += 1
            self.cached += bool(call.get("cached"))
            self.prompt_tokens += call.get("prompt_tokens", 0)
            self.completion_tokens += call.get("completion_tokens", 0)
            self.priced_cost += call.get("cost", 0.0)  # what the replies cost when they were made
            self.cost += 0.0 if call.get("cached") else call.get("cost", 0.0)  # what this run spent

    def result(self) -> Usage:
        failures = dict(sorted(self.failures.items()))
        return Usage(
            calls=self.replies + self.unanswered,
            replies=self.replies,
            cached_calls=self.cached,
            failed_calls=sum(failures.values()),
            prompt_tokens=int(self.prompt_tokens),
            completion_tokens=int(self.completion_tokens),
            cost=self.cost,
            priced_cost=self.priced_cost,
            failures=failures,
        )


def call_usage(calls: Iterable[Mapping[str, Any]]) -> Usage:
    totals = UsageTotals()
    totals.add(calls)
    return totals.result()
