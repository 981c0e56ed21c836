"""Every slice at once: `validate --slice` (an intersection-union test: a bad slice fails the certificate the pooled
figure would pass) and a cascade calibrated per slice (its target kept on every slice over seeded splits)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from judges.agreement.certification import exact_lower_bound, exact_upper_bound
from judges.agreement.predictions import Prediction, Predictions
from judges.cascade.slice_chain import calibrate_by_slice, decide_by_slice
from judges.cascade.sources import Judge
from judges.cascade.verdicts import VerdictRule
from judges.cli.main import main
from judges.labels.schema import LabelType
from judges.types import VerdictState

# slice -> (items per class, wrong per class): 0/1 labels alternate, a wrong verdict flips every other item's label
GOOD, BAD, FEW = (30, 0), (12, 6), (5, 0)


def write_sliced(tmp_path: Path, slices: dict[str, tuple[int, int]], field: str = "domain") -> tuple[Path, Path]:
    """Labelled items whose `extra` names their slice, and a 0/1 judge wrong on the first `wrong` items of each
    class of each slice, every other one (so a sequence meets them spread out)."""
    rows, predictions = [], []
    for name, (per_class, wrong) in slices.items():
        for k in range(2 * per_class):
            item, label = f"{name}-{k}", k % 2
            rows.append({"id": item, "metric": "faithfulness", "label": label, "label_type": "binary"})
            rows[-1]["extra"] = {field: name}
            flipped = (k // 2) % 2 == 1 and (k // 2) // 2 < wrong
            predictions.append({"id": item, "score": 1 - label if flipped else label})
    labels, judge = tmp_path / "labels.jsonl", tmp_path / "judge.jsonl"
    labels.write_text("".join(json.dumps(r) + "\n" for r in rows))
    judge.write_text("".join(json.dumps(r) + "\n" for r in predictions))
    return labels, judge


def validate(labels: Path, judge: Path, out: Path, *extra: str) -> tuple[int, dict]:
    code = main(["validate", "--labels", str(labels), "--predictions", str(judge), "--out", str(out), *extra])
    return code, json.loads((out / "certification.json").read_text())


def states(record: dict) -> dict[str, str]:
    return {entry["slice"]: entry["state"] for entry in record["slices"]["slices"]}


def test_a_slice_whose_judge_is_bad_fails_the_certificate_the_pooled_figure_would_pass(tmp_path, capsys):
    labels, judge = write_sliced(tmp_path, {"news": GOOD, "law": GOOD, "med": BAD})
    # by hand: news and law 30/30 right per class, med 6/12; pooled 66/72 per class
    assert exact_lower_bound(30, 30) == pytest.approx(0.05 ** (1 / 30)) and 0.05 ** (1 / 30) >= 0.8
    assert exact_upper_bound(6, 12) < 0.8  # med's miss is decided: no more labels would certify it
    assert exact_lower_bound(66, 72) >= 0.8  # the pooled figure would certify
    plain, pooled = validate(labels, judge, tmp_path / "pooled", "--min-recall", "0.8")
    assert plain == 0 and pooled["verdict"] == "certified"
    capsys.readouterr()
    code, record = validate(labels, judge, tmp_path / "sliced", "--min-recall", "0.8", "--slice", "domain")
    assert code == 1 and record["certified"] is False and record["verdict"] == "not certified"
    assert states(record) == {"med": "not certified", "news": "certified", "law": "certified"}
    block = record["slices"]
    assert block["field"] == "domain" and "Berger 1982" in block["test"] and block["not_certified"] == ["med"]
    assert [entry["slice"] for entry in block["slices"]] == ["med", "news", "law"]  # the failing slice first
    med = block["slices"][0]
    assert med["counts"] == {"1": 12, "0": 12}
    assert [b["lower_bound"] for b in med["bars"]] == pytest.approx([exact_lower_bound(6, 12)] * 2)
    assert block["pooled"]["state"] == "certified" and block["pooled"]["counts"] == {"1": 72, "0": 72}
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0].startswith("NOT CERTIFIED slice med (12 labelled 1, 12 labelled 0)")
    assert lines[-1].startswith("NOT CERTIFIED by domain: 2/3 slices certified; not certified: med;")
    assert any(line.startswith("pooled over every slice (shown, not the certificate): CERTIFIED") for line in lines)


def test_a_slice_with_too_few_labels_leaves_the_certificate_undecided_and_is_named(tmp_path, capsys):
    labels, judge = write_sliced(tmp_path, {"news": GOOD, "rare": FEW})
    code, record = validate(labels, judge, tmp_path / "out", "--min-recall", "0.8", "--slice", "domain")
    assert code == 1 and record["verdict"] == "undecided" and record["slices"]["undecided"] == ["rare"]
    assert states(record) == {"rare": "undecided", "news": "certified"}
    rare = record["slices"]["slices"][0]
    assert rare["counts"] == {"1": 5, "0": 5} and "needs at least 14 labels of each class" in rare["reason"]
    assert capsys.readouterr().out.strip().splitlines()[-1].startswith("UNDECIDED by domain: 1/2 slices certified")


def test_each_slice_follows_its_own_confidence_sequence_with_sequential(tmp_path):
    labels, judge = write_sliced(tmp_path, {"good": GOOD, "bad": (20, 10)})
    code, record = validate(labels, judge, tmp_path / "out", "--min-recall", "0.8", "--slice", "domain", "--sequential")
    assert (
        code == 1 and record["mode"] == "sequential" and states(record) == {"bad": "not certified", "good": "certified"}
    )
    good = next(entry for entry in record["slices"]["slices"] if entry["slice"] == "good")
    # all right: the uniform mixture rules 0.8 out once (t + 1) 0.8 ** t <= 0.05, first at t = 29 of a class
    assert 29 * 0.8**28 > 0.05 >= 30 * 0.8**29
    assert [b["decided_at"] for b in good["bars"]] == [58, 57]  # the 29th positive is row 58, the 29th negative 57


def test_your_own_files_column_is_a_slice_and_a_missing_field_is_one_line(tmp_path, capsys):
    rows = ["id,label,language"] + [f"i{k},{k % 2},{'en' if k < 60 else 'fr'}" for k in range(80)]
    own = tmp_path / "own.csv"
    own.write_text("\n".join(rows) + "\n")
    judge = tmp_path / "judge.jsonl"
    judge.write_text("".join(json.dumps({"id": f"i{k}", "score": k % 2}) + "\n" for k in range(80)))
    options = ("--label-type", "binary", "--metric", "faithfulness", "--min-recall", "0.8")
    code, record = validate(own, judge, tmp_path / "out", *options, "--slice", "language")
    assert code == 1 and states(record) == {"fr": "undecided", "en": "certified"}  # fr: 10 per class, a bar needs 14
    capsys.readouterr()
    assert main(["validate", "--labels", str(own), "--predictions", str(judge), *options, "--slice", "domain"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--slice domain: no label in own has a field 'domain'" in err[0]


# a cascade per slice -------------------------------------------------------------------------------------------------

SEEDS, PER_SLICE, TARGET, DELTA = 50, 1200, 0.85, 0.1
# slice -> how far its judge's agreement falls below its stated confidence (the bad slice's judge is overconfident)
SHORTFALL = {"news": 0.0, "med": 0.12}


def judge_and_labels(rng: np.random.Generator) -> tuple[Judge, dict[str, float], dict[str, str]]:
    """One binary judge on PER_SLICE items of each slice: confidence uniform on [0.5, 1], right with probability
    confidence minus the slice's shortfall."""
    by_key, labels, slice_of = {}, {}, {}
    for name, shortfall in SHORTFALL.items():
        confidence = rng.uniform(0.5, 1.0, PER_SLICE)
        right = rng.random(PER_SLICE) < confidence - shortfall
        label = rng.integers(0, 2, PER_SLICE)
        for k in range(PER_SLICE):
            item = f"{name}-{k}"
            verdict = float(label[k] if right[k] else 1 - label[k])
            by_key[(item, None)] = Prediction(item, VerdictState.GRADE, verdict, confidence=float(confidence[k]))
            labels[item], slice_of[item] = float(label[k]), name
    return Judge("cheap", "memory", Predictions(by_key), "faithfulness"), labels, slice_of


def kept_agreement(decisions: list, labels: dict[str, float], slice_of: dict[str, str], name: str) -> float:
    kept = [d for d in decisions if d.decided_by is not None and slice_of[d.id] == name]
    return sum(d.verdict == labels[d.id] for d in kept) / len(kept) if kept else 1.0


def test_a_cascade_per_slice_keeps_its_target_on_every_slice_over_seeded_splits():
    rule = VerdictRule(LabelType.BINARY)
    misses = 0
    for seed in range(SEEDS):
        rng = np.random.default_rng(seed)
        judge, labels, slice_of = judge_and_labels(rng)
        ids = list(labels)
        rng.shuffle(ids)
        half, rest = ids[: len(ids) // 2], ids[len(ids) // 2 :]
        truths = {name: {i: labels[i] for i in half if slice_of[i] == name} for name in SHORTFALL}
        steps = calibrate_by_slice([judge], truths, rule, target=TARGET, delta=DELTA, min_kept=30)
        thresholds = {name: [calibrated[0].choice.threshold] for name, calibrated in steps.items()}
        held_out = Judge(
            "cheap",
            "memory",
            Predictions({k: v for k, v in judge.predictions.by_key.items() if k[0] in rest}),
            "faithfulness",
        )
        decisions, never = decide_by_slice([held_out], thresholds, slice_of, rule)
        assert never == []
        misses += any(kept_agreement(decisions, labels, slice_of, name) < TARGET for name in SHORTFALL)
    # the guarantee: P(some slice misses) <= delta; the held-out half's own sampling noise is the tolerance (0.1)
    assert misses / SEEDS <= DELTA + 0.1


def test_apply_escalates_an_item_of_a_slice_never_calibrated(tmp_path, capsys):
    rng = np.random.default_rng(0)
    judge, labels, slice_of = judge_and_labels(rng)
    rows = [
        {"id": i, "score": judge.get(i).score, "confidence": judge.get(i).confidence, "domain": slice_of[i]}
        for i in labels
    ]
    rows += [{"id": "new-0", "score": 1, "confidence": 0.99, "domain": "legal"}]
    judge_file = tmp_path / "cheap.jsonl"
    judge_file.write_text("".join(json.dumps(r) + "\n" for r in rows))
    label_rows = [
        {"id": i, "metric": "faithfulness", "label": v, "label_type": "binary", "extra": {"domain": slice_of[i]}}
        for i, v in labels.items()
    ]
    label_file = tmp_path / "labels.jsonl"
    label_file.write_text("".join(json.dumps(r) + "\n" for r in label_rows))
    out = tmp_path / "cal"
    assert (
        main(
            [
                "cascade",
                "calibrate",
                "--labels",
                str(label_file),
                "--predictions",
                f"cheap={judge_file}",
                "--target",
                "0.8",
                "--slice",
                "domain",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    record = json.loads((out / "calibration.json").read_text())
    block = record["slices"]
    assert (
        block["field"] == "domain"
        and block["delta_each"] == pytest.approx(0.05)
        and set(block["by_slice"]) == {"news", "med"}
    )
    news, med = (block["by_slice"][name]["judges"][0]["threshold"] for name in ("news", "med"))
    assert news is not None and med is not None and med > news  # the overconfident judge needs a higher bar
    assert (
        main(
            [
                "cascade",
                "apply",
                str(out / "calibration.json"),
                "--predictions",
                f"cheap={judge_file}",
                "--out",
                str(tmp_path / "applied"),
            ]
        )
        == 0
    )
    decisions = [json.loads(line) for line in (tmp_path / "applied" / "decisions.jsonl").read_text().splitlines()]
    assert next(d for d in decisions if d["id"] == "new-0")["decided_by"] is None
    summary = (tmp_path / "applied" / "summary.md").read_text()
    assert "1 items of a domain never calibrated (or with none) were escalated: legal" in summary


def test_a_sliced_apply_read_a_line_at_a_time_or_whole_decides_alike_and_a_bad_slices_block_is_one_line(
    tmp_path, capsys
):
    rows = [
        {"id": f"q{k}", "score": 1, "confidence": [0.95, 0.7][k % 2], "domain": ["a", "b", "c"][k % 3]}
        for k in range(12)
    ]
    lines = tmp_path / "cheap.jsonl"
    lines.write_text("".join(json.dumps(r) + "\n" for r in rows))
    whole = tmp_path / "cheap.json"  # a JSON array: read whole, its slices from the same rows
    whole.write_text(json.dumps(rows))
    judge = {"name": "cheap", "source": "cheap.jsonl", "threshold": None, "offered": 60, "kept": 50}
    judge["run_config"] = {"judge": "openai/cheap", "api_base": "http://127.0.0.1:9/v1"}  # never reached
    by_slice = {
        "a": {"items": 30, "judges": [{"name": "cheap", "threshold": 0.9, "offered": 30, "kept": 20}]},
        "b": {"items": 30, "judges": [{"name": "cheap", "threshold": 0.6, "offered": 30, "kept": 30}]},
    }
    calibration = {
        "format_version": 1,
        "method": "fixed-sequence testing",
        "target": 0.8,
        "delta": 0.1,
        "min_kept": 30,
        "cut": 0.5,
        "label_type": "binary",
        "metric": "faithfulness",
        "labels": {"name": "labels", "spec": "labels.jsonl", "sha256": "0" * 64, "count": 60},
        "judges": [judge],
        "escalated": 10,
        "slices": {"field": "domain", "delta_each": 0.05, "split": "Bonferroni", "by_slice": by_slice},
    }
    path = tmp_path / "calibration.json"
    path.write_text(json.dumps(calibration))
    found = {}
    for name, source in (("streamed", lines), ("whole", whole)):
        assert (
            main(["cascade", "apply", str(path), "--predictions", f"cheap={source}", "--out", str(tmp_path / name)])
            == 0
        )
        found[name] = [json.loads(line) for line in (tmp_path / name / "decisions.jsonl").read_text().splitlines()]
        summary = (tmp_path / name / "summary.md").read_text()
        assert "4 items of a domain never calibrated (or with none) were escalated: c" in summary
    strip = [{k: v for k, v in d.items() if k != "timestamp"} for d in found["streamed"]]
    assert strip == [{k: v for k, v in d.items() if k != "timestamp"} for d in found["whole"]]
    # a: kept at 0.95 only (threshold 0.9); b: kept at both (0.6); c: never calibrated
    assert [d["decided_by"] for d in strip[:6]] == ["cheap", "cheap", None, None, "cheap", None]
    capsys.readouterr()
    samples = tmp_path / "samples.jsonl"  # samples name no slice: evaluate --cascade refuses before any call
    samples.write_text(
        json.dumps({"id": "q0", "input": "q", "actual_output": "a", "expected_output": "b", "references": ["r"]}) + "\n"
    )
    assert main(["evaluate", str(samples), "--cascade", str(path), "--out", str(tmp_path / "ev")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "calibrated per domain (--slice); apply it" in err[0] and not (tmp_path / "ev").exists()
    by_slice["b"]["judges"][0]["kept"] = 20  # no longer the judge's 50 kept over its slices
    path.write_text(json.dumps(calibration))
    assert main(["cascade", "apply", str(path), "--predictions", f"cheap={lines}", "--out", str(tmp_path / "x")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "judge 'cheap' keeps 50 items, not the sum over its slices" in err[0]
