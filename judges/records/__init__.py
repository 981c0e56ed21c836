"""The schema of a run's results: each item's record and each metric's verdict, typed, and their one JSON form
(a line of results.jsonl), read back into the same types; and the run's summary, typed the same way.

`ItemRecord.to_json_line` / `ItemRecord.from_json_line` are the only writer and reader of a results.jsonl line, and
`Summary.to_json` / `Summary.from_json` of the summary in run.json; no other module reads either by key. The shape on disk is the one judgelab has always written, so older run folders
load unchanged:

    {"id", "order", "draw", [a kind's own fields: "test_type", "set_id", "source" | "sample_id", "probe"],
     ["passed_all"], "sample",
     "metrics": {name: {["condition", "outcome"], "verdict": {"state", "grade"?, "failure_kind"?, "message"?,
                         "justification"?}, "confidence"?, "draws"?: [verdict, ...], "applicable"?: false,
                         "details"?, "calls": [...]}},
     "usage": {...}}
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from judges.plugins import load, names
from judges.records.draws import Consistency as Consistency  # re-exported: part of the schema
from judges.records.draws import MetricStability as MetricStability
from judges.records.draws import Stability as Stability
from judges.records.summaries import MetricSummary as MetricSummary  # re-exported: part of the schema
from judges.records.usage import Usage as Usage  # re-exported: part of the schema
from judges.types import FailureKind, Outcome, Verdict, VerdictState

Call = dict[str, Any]  # one judge call as logged: template, prompt hash, raw reply or error, tokens, cost, latency


@dataclass
class MetricRecord:
    """One metric's verdict on one item (a grade, a legitimate null, or a failure with its kind), its intermediate
    record (claims, verdicts, generated questions, the grade of the reference answer, ...), every call it made, and
    for a unit test the condition checked and the outcome."""

    metric: str
    verdict: Verdict
    details: dict[str, Any] = field(default_factory=dict)
    calls: list[Call] = field(default_factory=list)
    applicable: bool = True
    condition: str | None = None  # unit tests: the condition the verdict was checked against
    outcome: Outcome | None = None  # unit tests: pass, wrong grade, or a run failure
    confidence: float | None = None  # the judge's confidence in a grade, in [0, 1], when known (logprobs, draws)
    draws: list[Verdict] | None = None  # with --draws K: each draw's verdict (the recorded one is their mode)

    @classmethod
    def not_applicable(cls, metric: str, missing: list[str]) -> MetricRecord:
        reason = f"not applicable: the sample has no {', '.join(missing)}"
        return cls(metric, Verdict.null(reason), applicable=False)

    @property
    def value(self) -> float | None:
        return self.verdict.grade if self.verdict.state is VerdictState.GRADE else None

    @property
    def why(self) -> str:
        """The judge's justification, else the verdict's message, else the metric's stated reason."""
        reason = self.details.get("reason") if isinstance(self.details, dict) else None
        return str(self.verdict.justification or self.verdict.message or reason or "")

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.condition is not None:
            out["condition"] = self.condition
        if self.outcome is not None:
            out["outcome"] = self.outcome.value
        out["verdict"] = self.verdict.to_dict()
        if self.confidence is not None:
            out["confidence"] = self.confidence
        if self.draws is not None:
            out["draws"] = [verdict.to_dict() for verdict in self.draws]
        if not self.applicable:
            out["applicable"] = False
        if self.details:
            out["details"] = self.details
        out["calls"] = self.calls
        return out

    @classmethod
    def from_json(cls, metric: str, data: Mapping[str, Any]) -> MetricRecord:
        outcome = data.get("outcome")
        return cls(
            metric,
            verdict_from_json(data["verdict"]),
            dict(data.get("details") or {}),
            list(data.get("calls") or []),
            data.get("applicable", True) is not False,
            data.get("condition"),
            None if outcome is None else Outcome(outcome),
            None if data.get("confidence") is None else float(data["confidence"]),
            None if data.get("draws") is None else [verdict_from_json(v) for v in data["draws"]],
        )


def verdict_from_json(data: Mapping[str, Any]) -> Verdict:
    """A verdict as `Verdict.to_dict` wrote it."""
    kind = data.get("failure_kind")
    return Verdict(
        VerdictState(data["state"]),
        None if data.get("grade") is None else float(data["grade"]),
        None if kind is None else FailureKind(kind),
        data.get("message"),
        data.get("justification"),
    )


ITEM_KEYS = ("id", "order", "draw", "passed_all", "sample", "metrics", "usage")  # every kind's; the rest: `part`


@dataclass
class ItemRecord:
    """One finished item of a run (a unit test's draw, or a sample): its verdicts per metric, the judged sample's
    fields (never image bytes), the usage of its calls, and `part`, the kind's own fields (a unit test's type, set
    and file:line; a probe pair's sample and probe), written beside `id` under their own keys, in their order."""

    id: str
    metrics: dict[str, MetricRecord]
    order: int = 0
    draw: int = 0
    sample: dict[str, Any] | None = None
    usage: Usage = field(default_factory=Usage)
    part: dict[str, Any] = field(default_factory=dict)

    # the built-in kinds' fields, read from `part` (None where the kind has none)
    @property
    def test_type(self) -> str | None:
        return self.part.get("test_type")

    @property
    def set_id(self) -> str | None:
        return self.part.get("set_id")

    @property
    def source(self) -> str | None:
        return self.part.get("source")

    @property
    def sample_id(self) -> str | None:
        return self.part.get("sample_id")

    @property
    def probe(self) -> str | None:
        return self.part.get("probe")

    @property
    def is_unit_test(self) -> bool:
        return any(m.outcome is not None for m in self.metrics.values())

    @property
    def passed_all(self) -> bool:
        """Every metric's outcome is a pass (a unit test that passed)."""
        return all(m.outcome is Outcome.PASS for m in self.metrics.values())

    def calls(self) -> list[Call]:
        """The item's calls, each once (metrics that share a step list the same calls)."""
        seen: dict[Any, Call] = {}
        for entry in self.metrics.values():
            for call in entry.calls:
                seen.setdefault(call.get("call", id(call)), call)
        return list(seen.values())

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "order": self.order, "draw": self.draw, **self.part}
        if self.is_unit_test:
            out["passed_all"] = self.passed_all
        if self.sample is not None:
            out["sample"] = self.sample
        out["metrics"] = {name: entry.to_json() for name, entry in self.metrics.items()}
        out["usage"] = self.usage.to_json()
        return out

    def to_json_line(self) -> str:
        return json.dumps(self.to_json(), ensure_ascii=False)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ItemRecord:
        return cls(
            str(data["id"]),
            {name: MetricRecord.from_json(name, entry) for name, entry in (data.get("metrics") or {}).items()},
            int(data.get("order", 0)),
            int(data.get("draw", 0)),
            data.get("sample"),
            Usage.from_json(data.get("usage")),
            {key: value for key, value in data.items() if key not in ITEM_KEYS},
        )

    @classmethod
    def from_json_line(cls, line: str) -> ItemRecord:
        return cls.from_json(json.loads(line))


class SummaryPart(Protocol):
    """What a run kind adds to the summary (`judgelab.kinds`): written under the kind's name in run.json."""

    @property
    def kind(self) -> str: ...

    def to_json(self) -> dict[str, Any]: ...


def read_part(data: Mapping[str, Any], kind: str | None) -> SummaryPart | None:
    """The part of `kind` (the kind run.json names) read back by the registered kind: from its own key, or, from a
    run.json written before parts sat there, by the kind's `read_legacy_part` of the whole summary (migrated on
    read). None for a kind with no part, or one no package registers."""
    if kind is None or kind not in names("kinds"):
        return None
    registered = load("kinds", kind)
    if not hasattr(registered, "read_part"):
        return None
    own = data.get(kind)
    if isinstance(own, Mapping):
        part: SummaryPart | None = registered.read_part(own) if own else None
        return part
    legacy = getattr(registered, "read_legacy_part", None)
    return None if legacy is None else legacy(data)


@dataclass(frozen=True)
class Summary:
    """What a report shows, computed from the records alone; what every run has: per metric, the verdict counts and
    usage, consistency over draws; a kind's own figures are its `part`, written under the kind's name (the unit-test
    kind's pass rates, test types and stability among them)."""

    n_items: int = 0
    metrics: dict[str, MetricSummary] = field(default_factory=dict)
    usage: Usage = field(default_factory=Usage)
    consistency: Consistency | None = None  # with --draws K: per metric, how often verdicts change; self-agreement
    part: SummaryPart | None = None  # a run kind's own part (probe runs: per probe and metric), under its kind

    @property
    def total_pass_rate(self) -> float | None:
        """The run's headline rate when its kind's part gives one (a unit-test run's mean pass rate), else None."""
        rate: float | None = getattr(self.part, "total_pass_rate", None)
        return rate

    @property
    def completed_tests(self) -> int | None:
        """How many items completed, when the kind's part counts them (a unit-test run's), else None."""
        count: int | None = getattr(self.part, "completed_tests", None)
        return count

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"n_items": self.n_items, "metrics": {}, "usage": self.usage.to_json()}
        for name, metric in self.metrics.items():
            out["metrics"][name] = dataclasses.asdict(metric) | {"usage": metric.usage.to_json()}
        out["consistency"] = dataclasses.asdict(self.consistency) if self.consistency else None
        if self.part is not None:
            out[self.part.kind] = self.part.to_json()
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None, kind: str | None) -> Summary:
        """The summary of run.json, its part read by `kind` (the kind run.json names; None: no part)."""
        data = data or {}
        return cls(
            int(data.get("n_items") or 0),
            {m: MetricSummary.from_json(s) for m, s in (data.get("metrics") or {}).items()},
            Usage.from_json(data.get("usage")),
            Consistency.from_json(data.get("consistency")),
            read_part(data, kind),
        )
