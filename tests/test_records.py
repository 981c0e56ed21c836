"""The typed run records: one schema for results.jsonl and the summary, run folders of earlier versions loading
unchanged, and no module reading a record or a summary by key."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from judges.records import ItemRecord, MetricRecord, Summary, Usage
from judges.runs.run import Run
from judges.runs.summarizer import summarize
from judges.types import FailureKind, Outcome, Verdict, VerdictState

ROOT = Path(__file__).resolve().parent.parent
# the offline leaderboard's SmolLM2 unit-test run as written on 2026-11-23 (run.json and results.jsonl), kept as it was
# when the board was rebuilt, so that a folder of an earlier version is still read
EARLIER = ROOT / "tests" / "data" / "unit_test_run_2026-11-23"
COMMITTED_GRADE = ROOT / "results" / "runs" / "smollm2-default--labels_alce_40-items"


def _without_empty_calls(record: dict) -> dict:
    """A record as compared across versions: a metric with no calls may list none or an empty list."""
    metrics = {m: {k: v for k, v in e.items() if not (k == "calls" and v == [])} for m, e in record["metrics"].items()}
    return {**record, "metrics": metrics}


def test_a_unit_test_record_goes_to_one_line_and_back_unchanged():
    record = ItemRecord(
        "t1",
        {
            "completeness": MetricRecord(
                "completeness",
                Verdict.graded(3.0, "covers two of three points"),
                calls=[{"call": 1, "template": "completeness", "reply": "{}", "prompt_tokens": 10}],
                condition="==5",
                outcome=Outcome.WRONG_GRADE,
            ),
            "faithfulness": MetricRecord(
                "faithfulness",
                Verdict.failed(FailureKind.TIMEOUT, "no reply in 120 s"),
                condition="==1",
                outcome=Outcome.FAILURE,
            ),
        },
        order=4,
        draw=1,
        sample={"input": "Q?", "references": ["R."]},
        usage=Usage(calls=1, prompt_tokens=10, failures={"timeout": 1}, failed_calls=1),
        part={"test_type": "Low completeness 1", "set_id": "s", "source": "unit_tests/test.jsonl:5"},
    )
    line = record.to_json_line()
    data = json.loads(line)
    assert list(data)[:7] == ["id", "order", "draw", "test_type", "set_id", "source", "passed_all"]
    assert data["passed_all"] is False and data["metrics"]["completeness"]["outcome"] == "wrong_grade"
    assert data["metrics"]["faithfulness"]["verdict"] == {
        "state": "failure",
        "failure_kind": "timeout",
        "message": "no reply in 120 s",
    }
    back = ItemRecord.from_json_line(line)
    assert back == record
    assert back.metrics["faithfulness"].verdict.failure_kind is FailureKind.TIMEOUT
    assert back.metrics["completeness"].outcome is Outcome.WRONG_GRADE and back.calls()[0]["prompt_tokens"] == 10


def test_a_kinds_own_fields_go_to_their_keys_beside_the_id_and_back_in_their_order():
    line = (
        '{"id": "p1", "order": 2, "draw": 0, "sample_id": "s7", "probe": "verbosity", "sample": {"input": "Q?"}, '
        '"metrics": {}, "usage": {}}'
    )
    back = ItemRecord.from_json_line(line)
    assert back.part == {"sample_id": "s7", "probe": "verbosity"} and back.probe == "verbosity"
    plugin = ItemRecord("w1", {}, 0, part={"words": 12, "language": "en"})  # a plug-in kind's own fields
    written = plugin.to_json_line()
    assert list(json.loads(written))[:5] == ["id", "order", "draw", "words", "language"]
    assert ItemRecord.from_json_line(written) == plugin and ItemRecord.from_json_line(written).to_json_line() == written
    assert json.loads(ItemRecord.from_json_line(line).to_json_line()) == json.loads(line) | {"usage": Usage().to_json()}


def test_a_not_applicable_metric_keeps_its_flag_and_reason():
    record = ItemRecord("s1", {"hit_rate": MetricRecord.not_applicable("hit_rate", ["expected_ids"])})
    data = record.to_json()
    assert data["metrics"]["hit_rate"]["applicable"] is False and "passed_all" not in data
    back = ItemRecord.from_json(data)
    assert not back.metrics["hit_rate"].applicable and back.metrics["hit_rate"].verdict.state is VerdictState.NULL
    assert back.metrics["hit_rate"].why == "not applicable: the sample has no expected_ids"


def test_a_committed_unit_test_run_folder_of_an_earlier_version_loads_as_typed_records():
    run = Run.load(EARLIER)
    assert run.kind == "unit_tests" and len(run.records) == 32 and run.summary.n_items == 32
    first = run.records[0]
    assert first.id == "uk-repairing-standard/highest-marks-1" and first.test_type == "Highest marks 1"
    assert set(first.metrics) == {
        "answer_relevancy",
        "completeness",
        "faithfulness",
        "usefulness",
        "positive_acceptance",
        "negative_rejection",
    }
    assert all(isinstance(e.outcome, Outcome) for r in run.records for e in r.metrics.values())
    # the summary read from run.json is the one the records give, figure for figure
    assert summarize(run.records, run.kind) == run.summary
    lines = [json.loads(line) for line in (EARLIER / "results.jsonl").read_text(encoding="utf-8").splitlines()]
    for line, record in zip(lines, run.records, strict=True):
        written = record.to_json()
        # the one key added since: `replies`, which that version counted as `calls` (no call of this run failed)
        assert written["usage"].pop("replies") == written["usage"]["calls"] == line["usage"]["calls"]
        assert _without_empty_calls(written) == _without_empty_calls(line)
    frame = run.to_pandas()
    assert len(frame) == 32 * 6 and set(frame["outcome"]) <= {"pass", "wrong_grade", "failure"}


def test_a_committed_grade_run_folder_loads_and_its_summary_matches():
    run = Run.load(COMMITTED_GRADE)
    assert run.kind == "grade" and len(run.records) == run.summary.n_items == 40
    assert run.summary.total_pass_rate is None  # not a unit-test run
    assert summarize(run.records, run.kind) == run.summary
    assert run.summary.usage.calls == sum(r.usage.calls for r in run.records) > 0


def test_the_live_counter_and_the_totals_share_one_set_of_counts_and_write_the_keys_of_committed_folders():
    import dataclasses

    from judges.calls.runtime import CallCounter
    from judges.records.usage import CallCounts

    shared = [f.name for f in dataclasses.fields(CallCounts)]
    for usage_class, own in ((CallCounter, "retries"), (Usage, "priced_cost")):
        assert issubclass(usage_class, CallCounts)
        assert [f.name for f in dataclasses.fields(usage_class)] == [*shared, own]
    meta = json.loads((EARLIER / "run.json").read_text(encoding="utf-8"))
    line = json.loads((EARLIER / "results.jsonl").read_text(encoding="utf-8").splitlines()[0])

    # the keys in the order of committed folders, with `replies` (added since) after `calls`: run.json's usage is
    # the counter's, the rest totals
    def with_replies(keys: dict[str, object]) -> list[str]:
        return [*list(keys)[:1], "replies", *list(keys)[1:]]

    assert list(CallCounter().to_json()) == with_replies(meta["usage"])
    assert list(Usage().to_json()) == with_replies(meta["summary"]["usage"]) == with_replies(line["usage"])
    summary = Summary.from_json(meta["summary"], meta["kind"]).to_json()
    assert list(summary["usage"]) == list(summary["metrics"]["completeness"]["usage"]) == with_replies(line["usage"])
    counter = CallCounter.from_json(meta["usage"])
    assert counter.to_json() == {**meta["usage"], "replies": 96} and counter.retries == meta["usage"]["retries"]


def test_the_counts_of_an_older_folder_are_read_as_calls_made_and_failed_as_summary_md_gave_them():
    from judges.records.usage import RunUsage

    # a dead endpoint: no reply, 4 calls failed; replies that could not be read: among the calls, and failed
    dead = RunUsage.from_json({"calls": 0, "cached_calls": 0, "failed_calls": 4, "failures": {"api_error": 4}})
    assert (dead.calls, dead.replies, dead.failed_calls) == (4, 0, 4)
    unusable = RunUsage.from_json({"calls": 20, "failed_calls": 0, "failures": {"unparseable": 17, "timeout": 1}})
    assert (unusable.calls, unusable.replies, unusable.failed_calls) == (21, 20, 18)
    assert RunUsage.from_json(unusable.to_json()) == unusable  # a folder of this version reads back as written


def test_an_unreadable_record_names_the_file_and_line(tmp_path):
    from judges.errors import InputError

    (tmp_path / "run.json").write_text(json.dumps({"format": 2, "kind": "grade", "summary": {}}))
    (tmp_path / "results.jsonl").write_text('{"id": "a", "metrics": {}}\n{"id": "b", "metrics": {"m": {}}}\n')
    run = Run.load(tmp_path)  # records are read when asked for
    with pytest.raises(InputError) as caught:
        list(run.iter_records())
    assert "results.jsonl" in str(caught.value) and ":2" in str(caught.value) and "verdict" in str(caught.value)


def test_summary_goes_to_json_and_back():
    run = Run.load(EARLIER)
    assert Summary.from_json(json.loads(json.dumps(run.summary.to_json())), run.kind) == run.summary


# reads of a run record or summary by key: `record["metrics"]`, `entry["outcome"]`, `summary["..."]`, ... (a report
# row's `.data["outcome"]` is the page's filter attribute, not a record)
KEYED = re.compile(
    r"""((?<!\.data)\["(outcome|verdict|passed_all|test_type|n_items|total_pass_rate)"\])"""
    r"""|(\.get\("(metrics|outcome|verdict|draw|passed_all)")"""
    r"""|(summary\[)|((record|row|entry|r|e)\["(metrics|draw)"\])"""
)


def test_no_module_reads_a_record_or_a_summary_by_key():
    found = []
    for path in sorted((ROOT / "judges").rglob("*.py")):
        if path.parent.name == "records" and path.parent.parent.name == "judges":
            continue  # the schema (judges/records/): the one reader, checker and writer of the JSON form
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if KEYED.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert found == []
