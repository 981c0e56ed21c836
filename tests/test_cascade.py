"""`judgelab cascade`: thresholds by fixed-sequence testing equal to the reference implementation's (Jung et al.,
jaehunjung1/cascaded-selective-evaluation, its arithmetic ported here as the expected values), the guarantee in a
seeded simulation, a judge that keeps nothing when even its most confident items miss the bound, and the commands
end to end (calibrate, apply on a held-out half, the queue opened by the labelling session)."""

from __future__ import annotations

import functools
import json
import re
from dataclasses import replace

import numpy as np
import pytest
from conftest import write_jsonl
from labelling_helpers import graded_run, samples_file
from scipy.optimize import brentq
from scipy.stats import binom

from judges.agreement import predictions
from judges.agreement.predictions import record_prediction
from judges.cascade.fixed_sequence import choose_threshold
from judges.cli.main import main
from judges.errors import InputError
from judges.labelling.queue import read_queue
from judges.labelling.scales import scale_for
from judges.labelling.session import LabellingSession
from judges.types import Verdict


def reference_lambda(phats: np.ndarray, correct: np.ndarray, alpha: float, delta: float) -> float:
    """The reference code's `SelectiveClassificationUtil.lambda_hat` (cascaded_evaluation/util.py), ported from torch
    to numpy line by line: a 5,000-point grid of candidates keeping at least 30 items, the bound solved by brentq,
    the quirky step `lam - 1 / len(lambdas)`, and its fallback to the top candidate when that misses the bound."""

    def n_lambda(lam: float) -> int:
        return int((phats >= lam).sum())

    def risk(lam: float) -> float:
        return float((~correct[phats >= lam]).sum() / n_lambda(lam))

    @functools.cache
    def bound(wrong: float, kept: int) -> float:  # cached on what it depends on: the port's only liberty
        return float(brentq(lambda r: binom.cdf(wrong, kept, r) - delta, 0, 0.9999))

    def upper_bound(lam: float) -> float:
        return bound(risk(lam) * n_lambda(lam), n_lambda(lam))

    lambdas = np.array([lam for lam in np.linspace(0, 1, 5000) if n_lambda(lam) >= 30])
    if upper_bound(lambdas[-1]) > alpha:
        return float(lambdas[-1])
    for lam in lambdas[::-1]:
        if upper_bound(lam - 1 / len(lambdas)) > alpha:
            return float(lam)
    return float(lambdas[0])


# 40 items at confidences 0.99, 0.98, ..., 0.60; the judge disagrees with the label at 0.94, 0.64, 0.63 and 0.62
CONFIDENCES = np.round(0.99 - 0.01 * np.arange(40), 2)
WRONG_AT = {0.94, 0.64, 0.63, 0.62}
AGREES = np.array([c not in WRONG_AT for c in CONFIDENCES])


def test_the_threshold_is_the_reference_implementations_on_fixed_data():
    # By hand: the first candidate keeping 30 items is 0.70 (1 disagreement: P(Bin(30, 0.15) <= 1) = 0.048 <= 0.1,
    # rejected), down to 0.65 (35 kept, 1 wrong: 0.024); 0.64 keeps 36 with 2 wrong (0.078, rejected); 0.63 keeps 37
    # with 3 wrong: P(Bin(37, 0.15) <= 3) = 0.174 > 0.1, the first non-rejection. The candidates are the grid
    # k / 4999: the threshold is the lowest grid point keeping the 36 items, 3150 / 4999 (0.63013), the reference's.
    assert binom.cdf(1, 30, 0.15) == pytest.approx(0.0480, abs=1e-4)
    assert binom.cdf(2, 36, 0.15) == pytest.approx(0.0776, abs=1e-4)
    assert binom.cdf(3, 37, 0.15) == pytest.approx(0.1736, abs=1e-4)
    choice = choose_threshold(CONFIDENCES, AGREES, target=0.85, delta=0.1)
    assert choice.threshold == pytest.approx(3150 / 4999, abs=1e-15)
    assert (choice.chosen.kept, choice.chosen.agreeing) == (36, 34)
    assert choice.threshold == reference_lambda(CONFIDENCES, AGREES, alpha=0.15, delta=0.1)


def _seeded_judge(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """300 confidences on a 0.001 grid in [0.5, 1], right with the probability stated (a calibrated judge)."""
    rng = np.random.default_rng(seed)
    phats = np.round(rng.uniform(0.5, 1.0, 300), 3)
    return phats, rng.uniform(size=300) < phats


@pytest.mark.parametrize(
    ("seed", "grid_point", "kept"), [(0, 4210, 114), (1, 4570, 46), (4, 3765, 166), (5, 3420, 190), (6, 4080, 118)]
)
def test_the_threshold_is_the_references_on_seeded_judges(seed, grid_point, kept):
    phats, correct = _seeded_judge(seed)
    ours = choose_threshold(phats, correct, target=0.85, delta=0.1)
    assert ours.threshold == pytest.approx(grid_point / 4999, abs=1e-15) and ours.chosen.kept == kept
    assert ours.threshold == reference_lambda(phats, correct, alpha=0.15, delta=0.1)


@pytest.mark.parametrize("seed", [2, 3])
def test_where_the_reference_falls_back_to_its_30_most_confident_items_ours_keeps_nothing(seed):
    phats, correct = _seeded_judge(seed)  # its 30 most confident verdicts: 28 and 27 right, short of the bound
    assert choose_threshold(phats, correct, target=0.85, delta=0.1).threshold is None
    assert int((phats >= reference_lambda(phats, correct, alpha=0.15, delta=0.1)).sum()) == 30


def test_a_judge_keeps_nothing_when_even_its_most_confident_items_miss_the_bound():
    confidences = np.round(0.99 - 0.01 * np.arange(60), 2)
    agrees = np.arange(60) % 4 != 0  # 75% agreement everywhere, below the 0.85 target
    choice = choose_threshold(confidences, agrees, target=0.85, delta=0.1)
    assert choice.threshold is None and choice.chosen is None
    assert [s.tested for s in choice.steps].count(True) == 1  # the first test (30 items) fails: the sequence stops
    # the reference code keeps its 30 most confident items anyway (agreeing on 22 of 30, 73%): the guarantee broken
    reference = reference_lambda(confidences, agrees, alpha=0.15, delta=0.1)
    assert int((confidences >= reference).sum()) == 30


def test_kept_verdicts_agree_at_the_target_in_at_least_one_minus_delta_of_calibration_draws():
    # A judge right with probability c at confidence c ~ U(0.5, 1): the agreement of the verdicts it keeps at
    # threshold t on fresh items is (1 + t) / 2, at least 0.85 only for t >= 0.7. 400 calibration draws of 300 items.
    rng = np.random.default_rng(7)
    target, delta, draws = 0.85, 0.1, 400
    held, coverage = 0, []
    for _ in range(draws):
        confidences = rng.uniform(0.5, 1.0, 300)
        agrees = rng.uniform(size=300) < confidences
        threshold = choose_threshold(confidences, agrees, target=target, delta=delta).threshold
        fresh_agreement = 1.0 if threshold is None else (1 + threshold) / 2
        held += fresh_agreement >= target
        coverage.append(0.0 if threshold is None else (1 - threshold) / 0.5)
    assert held / draws >= 1 - delta
    assert np.mean(coverage) > 0.25  # it keeps verdicts: the guarantee is not met by keeping nothing


def _halves(tmp_path, n=400, seed=3):
    """Binary labels and two judges' probability scores: a cheap one sure and right on most items, a strong one."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 2, n)
    ids = [f"q{k}" for k in range(n)]

    def judge(sharpness: float, noise: float) -> np.ndarray:
        p_right = np.clip(rng.beta(sharpness, 1, n), 0.5, 1.0)
        right = rng.uniform(size=n) < p_right - noise
        return np.where(right == (labels == 1), p_right, 1 - p_right)

    cheap, strong = judge(3, 0.05), judge(6, 0.0)
    calib, test = ids[: n // 2], ids[n // 2 :]
    rows = [
        {"id": i, "metric": "faithfulness", "label": int(v), "label_type": "binary", "scale": [0, 1]}
        for i, v in zip(ids, labels, strict=True)
    ]
    files = {"labels": write_jsonl(tmp_path / "labels.jsonl", rows[: n // 2])}
    for name, scores in (("cheap", cheap), ("strong", strong)):
        files[name] = write_jsonl(
            tmp_path / f"{name}.jsonl", [{"id": i, "score": float(s)} for i, s in zip(ids, scores, strict=True)]
        )
        part = [{"id": i, "score": float(s)} for i, s in zip(ids, scores, strict=True) if i in set(test)]
        files[f"{name}_test"] = write_jsonl(tmp_path / f"{name}_test.jsonl", part)
    return files, calib, test


def test_calibrate_then_apply_on_the_held_out_half(tmp_path, capsys):
    files, calib, test = _halves(tmp_path)
    out = tmp_path / "calibration"
    code = main(
        ["cascade", "calibrate", "--labels", str(files["labels"]), "--label-type", "binary", "--target", "0.85"]
        + ["--delta", "0.1", "--threshold", "0.5", "--out", str(out)]
        + ["--predictions", f"cheap={files['cheap']}", "--predictions", f"strong={files['strong']}"]
    )
    assert code == 0
    record = json.loads((out / "calibration.json").read_text())
    assert (record["target"], record["delta"], record["labels"]["count"]) == (0.85, 0.1, len(calib))
    assert len(record["labels"]["sha256"]) == 64
    cheap, strong = record["judges"]
    assert cheap["offered"] == len(calib) and strong["offered"] == len(calib) - cheap["kept"]
    assert cheap["kept"] > 0 and cheap["disagreement_upper_bound"] <= 0.15
    assert record["escalated"] == len(calib) - cheap["kept"] - strong["kept"]
    first = (out / "calibration.md").read_text().splitlines()[0]
    assert re.fullmatch(
        r"cheap decides \d+% of items at >= 85% agreement \(90% confidence\); strong \d+% more; \d+% go to people",
        first,
    )
    assert (out / "calibration.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "data:image/png;base64," in (out / "calibration.html").read_text()
    from judges.viewer.pages import index_page

    index = index_page(tmp_path)  # the view lists the calibration and opens its page, the picture inline
    assert 'href="/files/calibration/calibration.html"' in index

    applied = tmp_path / "applied"
    code = main(
        ["cascade", "apply", str(out / "calibration.json"), "--out", str(applied)]
        + ["--predictions", str(files["cheap_test"]), "--predictions", str(files["strong_test"])]
    )  # bare sources: named after the calibration's judges at their places
    assert code == 0
    decisions = [json.loads(line) for line in (applied / "decisions.jsonl").read_text().splitlines()]
    assert [d["id"] for d in decisions] == test
    assert all(set(d) == {"id", "decided_by", "verdict", "confidence", "timestamp"} for d in decisions)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", decisions[0]["timestamp"])  # ISO 8601, UTC
    by_cheap = [d for d in decisions if d["decided_by"] == "cheap"]
    assert by_cheap and all(d["confidence"] >= cheap["threshold"] and d["verdict"] in (0, 1) for d in by_cheap)
    escalated = [d["id"] for d in decisions if d["decided_by"] is None]
    assert all(d["verdict"] is None and d["confidence"] is None for d in decisions if d["decided_by"] is None)
    assert escalated, "the synthetic judges leave some items to people"
    queue = read_queue(applied / "queue.jsonl")
    assert [item.id for item in queue] == escalated
    session = LabellingSession(
        queue, "faithfulness", scale_for("faithfulness", "binary"), "", "ann", tmp_path / "l.jsonl"
    )
    assert session.resume_position() == 0
    session.record(0, "label", 1)
    assert session.resume_position() == 1
    summary = (applied / "summary.md").read_text()
    assert f"{len(escalated)} escalated to people" in summary.splitlines()[0]


def test_ids_missing_from_a_judge_are_one_line_and_exit_2(tmp_path, capsys):
    files, calib, _ = _halves(tmp_path)
    code = main(
        ["cascade", "calibrate", "--labels", str(files["labels"]), "--target", "0.85", "--out", str(tmp_path / "o")]
        + ["--predictions", f"cheap={files['cheap_test']}"]
    )
    err = capsys.readouterr().err.strip()
    assert code == 2 and "\n" not in err
    assert f"{files['cheap_test']}: ids do not match: {len(calib)} of {len(calib)} items" in err
    assert "'q0'" in err


def test_a_confidence_outside_0_1_names_the_file_line_and_field(tmp_path, capsys):
    files, _, _ = _halves(tmp_path)
    rows = [json.loads(line) for line in files["cheap"].read_text().splitlines()]
    rows[2]["confidence"] = 1.5
    bad = write_jsonl(tmp_path / "bad.jsonl", rows)
    code = main(
        ["cascade", "calibrate", "--labels", str(files["labels"]), "--target", "0.85", "--out", str(tmp_path / "o")]
        + ["--predictions", f"cheap={bad}"]
    )
    err = capsys.readouterr().err.strip()
    assert code == 2 and "\n" not in err
    assert err.startswith(f"judgelab: error: {bad}:3: a confidence lies in [0, 1], got 1.5 (field 'confidence')")


def test_a_run_records_confidence_is_read_like_a_files_column(tmp_path, capsys):
    class Entry:  # a run record's verdict on one metric, with the `confidence` a run may write on it
        verdict = Verdict.graded(1.0)
        value = 1.0
        confidence = 1.5

    with pytest.raises(InputError, match=r"a confidence lies in \[0, 1\], got 1.5 \(field 'confidence'\)"):
        record_prediction("x1", Entry())  # type: ignore[arg-type]
    Entry.confidence = 0.7
    assert record_prediction("x1", Entry()).confidence == 0.7  # type: ignore[arg-type]


def test_run_folders_as_judges_carry_their_config_cost_and_the_samples_text(tmp_path, monkeypatch, capsys):
    # runs write no confidence yet: here a verdict of 1 states 0.95 and a verdict of 0 states 0.6
    read = predictions.record_prediction
    stated = lambda item_id, entry: replace(read(item_id, entry), confidence=0.95 if entry.value == 1 else 0.6)
    monkeypatch.setattr(predictions, "record_prediction", stated)
    flagged = set(range(0, 80, 8))
    data = samples_file(tmp_path / "samples.jsonl", n=80, flagged=flagged)
    runs = {
        name: graded_run(tmp_path / name, data, name, lambda prompt: 0 if "FLAGGED" in prompt else 1)
        for name in ("cheap", "strong")
    }
    rows = [
        {"id": f"s{i:02d}", "metric": "faithfulness", "label": 1, "label_type": "binary", "scale": [0, 1]}
        for i in range(40)
    ]  # the judges call the flagged answers unfaithful; the people do not
    labels = write_jsonl(tmp_path / "labels.jsonl", rows)
    judges = [a for name, run in runs.items() for a in ("--predictions", f"{name}={run}")]
    out = tmp_path / "calibration"
    assert main(["cascade", "calibrate", "--labels", str(labels), "--target", "0.85", "--out", str(out), *judges]) == 0
    record = json.loads((out / "calibration.json").read_text())
    cheap, strong = record["judges"]
    assert (cheap["kept"], cheap["agreement"], strong["offered"], strong["threshold"]) == (35, 1.0, 5, None)
    assert cheap["run_config"]["judge"] == "cheap" and cheap["cost_per_item_usd"] == 0.0
    assert "Cost per 1,000 items: $0.0000 with the cascade" in (out / "calibration.md").read_text()
    applied = tmp_path / "applied"
    assert main(["cascade", "apply", str(out / "calibration.json"), "--out", str(applied), *judges]) == 0
    queue = read_queue(applied / "queue.jsonl")
    assert [item.id for item in queue] == [f"s{i:02d}" for i in sorted(flagged)]
    assert all(item.sample.actual_output.endswith("FLAGGED") for item in queue)


def test_the_docs_cascade_example_leaves_a_clones_working_tree_clean(tmp_path):
    """docs/choosing.md's worked example, its commands as written there (but the labelling server), run in a git
    repository holding the project's .gitignore and the example's files: everything it writes is ignored."""
    import os
    import shutil
    import subprocess
    import sys

    from conftest import ROOT, hang_guard

    text = (ROOT / "docs" / "choosing.md").read_text(encoding="utf-8")
    section = text[text.index("**Deploying a judge with a guarantee") : text.index("**A gate in CI.**")]
    blocks = re.findall(r"```bash\n(.*?)```", section, re.S)
    commands = [
        line.split()[1:]
        for line in "".join(blocks).replace("\\\n", " ").splitlines()
        if line.startswith("judgelab ") and not line.startswith("judgelab label serve")
    ]
    assert [c[:2] for c in commands] == [["cascade", "calibrate"], ["cascade", "apply"], ["agreement", "--labels"]]
    shutil.copy(ROOT / ".gitignore", tmp_path / ".gitignore")
    shutil.copytree(ROOT / "examples" / "cascade", tmp_path / "examples" / "cascade")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"]
    for step in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "example"]):
        subprocess.run([*git, *step], cwd=tmp_path, check=True, capture_output=True)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    printed = ""
    for command in commands:
        done = subprocess.run(
            [sys.executable, "-m", "judges.cli.main", *command],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=hang_guard(),
        )
        assert done.returncode == 0, done.stderr[-2000:]
        printed += done.stdout
    assert "Cascade applied: 600 items, 555 decided by a judge, 45 escalated to people" in printed
    assert (tmp_path / "results" / "runs" / "decided-agreement" / "agreement.json").is_file()
    status = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=tmp_path,
        text=True,
        capture_output=True,
        check=True,
    )
    assert status.stdout == ""
