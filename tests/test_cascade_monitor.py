"""`judgelab cascade monitor`: the agreement alarm at the window and count derived by hand, no alarm on a clean seeded
stream, decisions ordered by their timestamps, the exit codes and files, and one-line errors for bad input."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from conftest import write_jsonl

from judges.cascade.monitor_stream import Calibrated, Stream, monitor
from judges.cascade.monitoring import AGREEMENT, Plan
from judges.cli.main import main
from judges.labels.schema import LabelType

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "cascade"


def test_an_obvious_shift_alarms_at_the_window_and_count_derived_by_hand():
    # one judge keeps everything and says 1; the audit labels agree for 200 labels (window 1), then never.
    n = 400
    stream = Stream(np.zeros(n, int), np.ones(n), np.r_[np.ones(200), np.zeros(200)])
    calibrated = Calibrated(("cheap",), (200,), 200, 0.85, LabelType.BINARY)
    result = monitor(stream, calibrated, Plan(window=200, windows=20, item_window=1000, alpha=0.05))
    # 3 tests (agreement, share kept, verdict rate), each window at 0.05 / 3 / 20. With s = 0 agreements in t labels
    # the mixture is M_t(p) = 1 / ((t + 1) (1 - p)^t): the alarm rings at the first t with M_t(0.85) >= 1 / a.
    a = 0.05 / 3 / 20
    t = next(t for t in range(1, 200) if 1 / ((t + 1) * 0.15**t) >= 1 / a)
    assert t == 5
    [alarm] = result.alarms
    assert (alarm.family, alarm.judge, alarm.window, alarm.at, alarm.position) == (AGREEMENT, "cheap", 2, t, 200 + t)
    assert alarm.bound == pytest.approx(1 - (a / (t + 1)) ** (1 / t), abs=1e-9)  # M_t(bound) = 1 / a
    assert result.exit_code == 1
    assert alarm.line() == (
        f"alarm: cheap's kept verdicts agree with the audit labels at most {alarm.bound:.3f} in audit window 2 "
        f"(after 5 of its labels, audit label 205 of cheap), below the target 0.85"
    )


def test_a_clean_stream_gives_no_alarm():
    rng = np.random.default_rng(7)
    n = 20_000
    who = rng.choice([0, 1, -1], size=n, p=[0.7, 0.2, 0.1])
    truth = (rng.random(n) < 0.6).astype(float)
    verdicts = np.where(rng.random(n) < np.where(who == 0, 0.9, 0.95), truth, 1 - truth)
    verdicts = np.where(who < 0, np.nan, verdicts)
    audit = np.where((who >= 0) & (rng.random(n) < 0.2), truth, np.nan)
    calibrated = Calibrated(("cheap", "strong"), (140, 40), 200, 0.85, LabelType.BINARY)
    result = monitor(Stream(who, verdicts, audit), calibrated, Plan())
    assert result.alarms == [] and result.exit_code == 0
    assert len(result.sequences) == 6 and result.alpha_family == pytest.approx(0.05 / 6)
    assert result.conclusion().startswith(f"No alarm: {n} decisions and {int(np.sum(~np.isnan(audit)))} audit labels")


@pytest.fixture(scope="module")
def calibration(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("calibration")
    code = main(
        ["cascade", "calibrate", "--labels", str(EXAMPLE / "labels-calibrate.jsonl"), "--label-type", "binary"]
        + ["--metric", "faithfulness", "--target", "0.85", "--out", str(out)]
        + [f"--predictions=cheap={EXAMPLE / 'cheap.jsonl'}", f"--predictions=strong={EXAMPLE / 'strong.jsonl'}"]
    )
    assert code == 0
    return out / "calibration.json"


def deployment(tmp_path: Path, agree_after: int) -> tuple[Path, Path]:
    """600 decisions (per 100: 74 cheap, 15 strong, 11 escalated, as calibrated), every verdict 1, written in reverse
    with timestamps in arrival order; an audit label on every kept one: 1 (agreeing) for the first `agree_after`
    audited, 0 after."""
    rows, labels = [], []
    for n in range(600):
        who = "cheap" if n % 100 < 74 else "strong" if n % 100 < 89 else None
        stamp = f"2026-11-{1 + n // 100:02d}T{n % 24:02d}:{n % 60:02d}:00Z"
        rows.append({"id": f"d{n}", "decided_by": who, "verdict": None if who is None else 1, "timestamp": stamp})
        if who == "cheap":
            labels.append({"id": f"d{n}", "label": int(len(labels) < agree_after)})
    rows.sort(key=lambda r: r["timestamp"], reverse=True)
    return write_jsonl(tmp_path / "decisions.jsonl", rows), write_jsonl(tmp_path / "audit.jsonl", labels)


def monitor_cli(calibration: Path, decisions: Path, labels: Path | None, out: Path, *extra: str) -> int:
    args = ["cascade", "monitor", str(calibration), "--decisions", str(decisions), "--out", str(out), *extra]
    return main(args + (["--labels", str(labels)] if labels else []))


def test_the_monitor_alarms_exit_1_in_the_window_of_the_shift_ordered_by_timestamp(calibration, tmp_path, capsys):
    decisions, labels = deployment(tmp_path, agree_after=300)  # cheap's audit labels 301.. disagree: window 2
    code = monitor_cli(calibration, decisions, labels, tmp_path / "m")
    out = capsys.readouterr().out.splitlines()
    assert code == 1
    assert out[0].startswith("ALARM: cheap no longer behaves as calibrated (agreement)")
    [line] = [o for o in out if o.startswith("alarm: ")]
    assert "cheap's kept verdicts agree with the audit labels at most" in line and "in audit window 2" in line
    record = json.loads((tmp_path / "m" / "monitor.json").read_text())
    assert record["alarm"] is True and record["audit_labels"] == {"cheap": 444, "strong": 0}
    assert "by timestamp" in record["notes"][0]


def test_no_alarm_exit_0_and_the_files(calibration, tmp_path, capsys):
    decisions, labels = deployment(tmp_path, agree_after=600)
    assert monitor_cli(calibration, decisions, labels, tmp_path / "m") == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("No alarm: 600 decisions and 444 audit labels are consistent with the calibration")
    names = sorted(p.name for p in (tmp_path / "m").iterdir())
    assert names == ["monitor.html", "monitor.json", "monitor.md", "monitor.png"]
    assert (tmp_path / "m" / "monitor.md").read_text().splitlines()[0] == first
    assert "data:image/png;base64," in (tmp_path / "m" / "monitor.html").read_text()
    record = json.loads((tmp_path / "m" / "monitor.json").read_text())
    assert (
        record["alarm"] is False and len(record["tests"]) == 6 and record["alpha_per_test"] == pytest.approx(0.05 / 6)
    )
    # without labels: the label-free tests alone (share kept and verdict rate per judge)
    assert monitor_cli(calibration, decisions, None, tmp_path / "n") == 0
    assert len(json.loads((tmp_path / "n" / "monitor.json").read_text())["tests"]) == 4


def test_the_share_kept_alarms_without_labels_when_one_judge_keeps_everything(calibration, tmp_path, capsys):
    rows = [{"id": f"d{n}", "decided_by": "cheap", "verdict": 1} for n in range(1000)]
    code = monitor_cli(calibration, write_jsonl(tmp_path / "d.jsonl", rows), None, tmp_path / "m")
    out = capsys.readouterr().out
    assert code == 1 and "alarm: cheap's share kept is at least" in out and "in item window 1" in out
    assert "by line" in json.loads((tmp_path / "m" / "monitor.json").read_text())["notes"][0]


@pytest.mark.parametrize(
    ("row", "expected"),
    [
        (
            {"id": "x", "decided_by": "medium", "verdict": 1},
            ":2: 'medium' is no judge of the calibration (cheap, strong)",
        ),
        ({"id": "x", "decided_by": "cheap", "verdict": None}, ":2: a kept decision needs its verdict, a number"),
        ({"id": "x", "decided_by": "cheap", "verdict": 1, "timestamp": "yesterday"}, ":2: an ISO 8601 time"),
    ],
)
def test_a_bad_decision_line_is_one_line_naming_file_line_and_field_exit_2(
    calibration, tmp_path, capsys, row, expected
):
    good = {"id": "a", "decided_by": "cheap", "verdict": 1}
    decisions = write_jsonl(tmp_path / "d.jsonl", [good, row])
    code = monitor_cli(calibration, decisions, None, tmp_path / "m")
    err = capsys.readouterr().err.strip()
    assert code == 2 and "\n" not in err and f"{decisions}{expected}" in err
    assert not (tmp_path / "m").exists()


@pytest.mark.parametrize(
    ("extra", "expected"),
    [(["--window", "0"], "--window: a positive whole number; got 0"), (["--alpha", "1"], "--alpha: a probability")],
)
def test_bad_settings_and_a_missing_file_are_one_line_exit_2(calibration, tmp_path, capsys, extra, expected):
    decisions = write_jsonl(tmp_path / "d.jsonl", [{"id": "a", "decided_by": "cheap", "verdict": 1}])
    assert monitor_cli(calibration, decisions, None, tmp_path / "m", *extra) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and expected in err
    assert monitor_cli(calibration, tmp_path / "none.jsonl", None, tmp_path / "m") == 2
    assert "none.jsonl: no decisions file here" in capsys.readouterr().err
