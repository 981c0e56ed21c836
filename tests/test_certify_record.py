"""The certification record and verdict of `validate --labels`, built in judges/agreement/certify.py (the command
keeps its options and files)."""

from __future__ import annotations

from types import SimpleNamespace

from judges.agreement.certify import certification_record, verdict, verdict_line


def check(passed: bool, undecided: bool = False, more: int | None = 0) -> SimpleNamespace:
    return SimpleNamespace(
        passed=passed, undecided=undecided, to_dict=lambda: {"passed": passed}, more_labels=lambda: more
    )


def test_the_verdict_is_certified_undecided_or_not_certified() -> None:
    assert verdict([check(True), check(True)]) == "certified"
    assert verdict([check(True), check(False, undecided=True)]) == "undecided"
    assert verdict([check(False, undecided=True), check(False)]) == "not certified"
    assert verdict_line([check(True), check(False, more=40)], "out/certification.json") == (
        "NOT CERTIFIED: 1/2 bounds reach their bars; about 40 more labels, at the observed rates, would decide them; "
        "wrote out/certification.json"
    )


def test_the_record_keeps_the_keys_of_certification_json_in_their_order() -> None:
    result = SimpleNamespace(to_dict=lambda: {"n": 3}, rows=None)
    described = {"labels": {"name": "l"}, "predictions": {"source": "p"}, "judge_identity": {}, "reused": []}
    record = certification_record([check(True)], result, described, {"ids": []})
    assert list(record) == [
        *("certified", "verdict", "fewest_labels_per_class", "level", "checks", "labels", "predictions"),
        *("judge_identity", "reused", "agreement", "mode", "labels_seen", "decided_at", "labels_order"),
    ]
    assert record["certified"] is True and record["level"] == "one-sided 95% lower bounds"
    assert (record["mode"], record["labels_seen"], record["agreement"]) == ("fixed", 0, {"n": 3})
