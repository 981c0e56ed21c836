"""The GroUSE metrics through the Foundation's GroundedQAJudge (four judged metrics and the derived PA / NR)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from judges.errors import ConfigError
from judges.judging.asking import StepFailed
from judges.judging.grouse_judge import GroundedQAJudge
from judges.rag.judging import SAMPLE_PRIORITY
from judges.rag.spec import Scored
from judges.records import MetricRecord
from judges.suite.conditions import judged_pa_nr
from judges.types import FailureKind, Verdict, VerdictState

if TYPE_CHECKING:
    from judges.rag.scope import MetricRun


async def _records(run: MetricRun) -> dict[str, MetricRecord]:
    judge = run.judge
    if judge.grouse_prompts is None:
        raise ConfigError("the GroUSE metrics need a GroUSE prompt set (--prompts)")
    sample = run.sample

    async def make(log: list[dict[str, Any]]) -> dict[str, MetricRecord]:
        grouse = GroundedQAJudge(judge.runtime, judge.grouse_prompts, judge.model, judge.params)  # type: ignore[arg-type]
        records = await grouse.judge(sample, priority=SAMPLE_PRIORITY.get())
        log.extend(call for record in records.values() for call in record.calls)
        return records

    return await run.step("grouse", make)


def _scored(verdict: Verdict, details: dict[str, Any]) -> Scored:
    if verdict.state is VerdictState.FAILURE:
        raise StepFailed(verdict.failure_kind or FailureKind.API_ERROR, verdict.message or "failed")
    if verdict.state is VerdictState.NULL:
        return Scored.null(verdict.message or "the judge returned null", **details)
    return Scored(verdict.grade, details)


async def judged(run: MetricRun) -> Scored:
    """answer_relevancy and completeness 1-5, faithfulness and usefulness 0/1, or null (GroUSE's rules)."""
    record = (await _records(run))[run.option("metric")]
    details = dict(record.details)
    if record.verdict.justification:
        details["justification"] = record.verdict.justification
    return _scored(record.verdict, details)


async def derived(run: MetricRun) -> Scored:
    """Positive acceptance / negative rejection from whether relevancy and completeness came back null."""
    records = await _records(run)
    relevancy, completeness = records["answer_relevancy"].verdict, records["completeness"].verdict
    pa, nr = judged_pa_nr(relevancy, completeness)
    verdict = pa if run.option("metric") == "positive_acceptance" else nr
    return _scored(verdict, {"answer_relevancy": relevancy.to_dict(), "completeness": completeness.to_dict()})
