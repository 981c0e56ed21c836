"""A deployed cascade's stream as arrays (who decided each item, its verdict, its audit label) turned into the
monitor's tests, one per judge and family, and their verdict: the alarms, or none."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from judges.cascade.monitoring import (
    AGREEMENT,
    SHARE_KEPT,
    VERDICT_RATE,
    Alarm,
    Plan,
    Sequence,
    agreeing,
    exact_interval,
    positive,
    run_sequence,
)
from judges.labels.schema import LabelType


@dataclass(frozen=True)
class Calibrated:
    """What the monitor takes from calibration.json: the judges in order, what each kept of the labelled items,
    the labelled items' count, the target and the label type; calibrated per slice (`cascade calibrate --slice`),
    the field and each slice's labelled items and what each judge kept of them."""

    judges: tuple[str, ...]
    kept: tuple[int, ...]
    labelled: int
    target: float
    label_type: LabelType
    slice_field: str | None = None
    by_slice: dict[str, tuple[int, tuple[int, ...]]] | None = None


@dataclass(frozen=True)
class Stream:
    """The decisions in arrival order: the deciding judge's index (-1 escalated), its verdict (NaN escalated) and the
    audit label (NaN where none was taken)."""

    decided_by: np.ndarray
    verdicts: np.ndarray
    audit: np.ndarray | None = None
    fingerprints: tuple[str | None, ...] | None = None  # the deciding judge's fingerprint, where decisions give it
    slices: tuple[str | None, ...] | None = None  # each item's slice, where decisions give it

    def part(self, mask: np.ndarray) -> Stream:
        """The decisions where `mask` holds (one slice's), in their order."""
        audit = None if self.audit is None else self.audit[mask]
        return Stream(self.decided_by[mask], self.verdicts[mask], audit)


@dataclass(frozen=True)
class MonitorResult:
    sequences: list[Sequence]
    plan: Plan
    alpha_family: float
    decisions: int
    audited: dict[str, int]
    families: int = 3
    slice_field: str | None = None  # the tests are per judge and per slice of this field

    def split(self) -> str:
        """How the budget is split: `12 tests (4 judge-slice pairs x 3 families)`."""
        pairs = len(self.sequences) // max(1, self.families)
        unit = "judge-slice pairs" if self.slice_field else "judges"
        return f"{len(self.sequences)} tests ({pairs} {unit} x {self.families} families)"

    @property
    def alarms(self) -> list[Alarm]:
        return [s.alarm for s in self.sequences if s.alarm is not None]

    @property
    def exit_code(self) -> int:
        """1 when any test alarms (the gate failed), else 0."""
        return 1 if self.alarms else 0

    def conclusion(self) -> str:
        """The line a person acts on."""
        if self.alarms:
            judges = sorted({a.judge for a in self.alarms})
            families = sorted({a.family for a in self.alarms})
            return (
                f"ALARM: {', '.join(judges)} no longer behave{'s' if len(judges) == 1 else ''} as calibrated "
                f"({', '.join(families)}); {len(self.alarms)} of {len(self.sequences)} tests rang"
            )
        labels = sum(self.audited.values())
        return (
            f"No alarm: {self.decisions} decisions and {labels} audit labels are consistent with the calibration "
            f"(false-alarm budget {self.plan.alpha:g} split over {self.split()} and {self.plan.windows} windows each)"
        )


def windows_of(count: int, size: int, planned: int, skip: int = 0) -> np.ndarray:
    """Each observation's window (0-based) of `size` after the first `skip`; -1 before them and after the plan."""
    index = (np.arange(count) - skip) // size
    return np.where((np.arange(count) >= skip) & (index < planned), index, -1)


def agreement_sequence(
    judge: int, name: str, stream: Stream, calibrated: Calibrated, plan: Plan, alpha: float
) -> Sequence:
    assert stream.audit is not None
    rows = np.flatnonzero((stream.decided_by == judge) & ~np.isnan(stream.audit))
    hits = agreeing(stream.verdicts[rows], stream.audit[rows], calibrated.label_type).astype(float)
    window_of = windows_of(len(rows), plan.window, plan.windows)
    notes = []
    if (late := int(np.sum(window_of < 0))) > 0:
        notes.append(f"{late} audit labels after the {plan.windows} planned windows were not tested")
    positions = np.arange(1, len(rows) + 1)
    reference = (calibrated.target, 1.0)
    return Sequence(AGREEMENT, name, hits, window_of, positions, reference, alpha / plan.windows, notes=notes)


def share_sequence(judge: int, name: str, stream: Stream, calibrated: Calibrated, plan: Plan, alpha: float) -> Sequence:
    hits = (stream.decided_by == judge).astype(float)
    window_of = windows_of(len(hits), plan.item_window, plan.windows)
    reference = exact_interval(calibrated.kept[judge], calibrated.labelled, alpha / 2)
    positions = np.arange(1, len(hits) + 1)
    return Sequence(SHARE_KEPT, name, hits, window_of, positions, reference, alpha / 2 / plan.windows)


def rate_sequence(judge: int, name: str, stream: Stream, calibrated: Calibrated, plan: Plan, alpha: float) -> Sequence:
    """The verdict rate of the judge's kept verdicts; its reference is the first item window (calibration.json keeps
    no verdict rate), tested from the next window on."""
    rows = np.flatnonzero(stream.decided_by == judge)
    verdicts = stream.verdicts[rows]
    first = rows < plan.item_window
    hits = positive(verdicts, calibrated.label_type, verdicts[first]).astype(float)
    reference = exact_interval(int(hits[first].sum()), int(first.sum()), alpha / 2)
    window_of = np.where(first, -1, rows // plan.item_window - 1)
    window_of = np.where(window_of < plan.windows, window_of, -1)
    notes = [] if first.any() else ["no kept verdict in the reference window: not tested"]
    return Sequence(VERDICT_RATE, name, hits, window_of, rows + 1, reference, alpha / 2 / plan.windows, notes=notes)


def parts(stream: Stream, calibrated: Calibrated) -> list[tuple[str, Stream, Calibrated]]:
    """The streams monitored apart, each with its calibration's figures and a suffix naming it: the whole stream,
    or, calibrated per slice and with decisions naming their slice, each calibrated slice's decisions (an item of a
    slice never calibrated was escalated: no judge's test counts it)."""
    if calibrated.by_slice is None or stream.slices is None:
        return [("", stream, calibrated)]
    names = np.array(["" if name is None else name for name in stream.slices], dtype=object)
    return [
        (f" [{calibrated.slice_field}={name}]", stream.part(names == name), replace(calibrated, kept=kept, labelled=n))
        for name, (n, kept) in calibrated.by_slice.items()
    ]


def monitor(stream: Stream, calibrated: Calibrated, plan: Plan) -> MonitorResult:
    """Every test of the stream: per judge that keeps anything (and per slice, calibrated per slice), agreement
    (when audited), share kept, verdict rate; the budget split equally over them."""
    split = parts(stream, calibrated)
    active = [(part, j) for part in split for j, kept in enumerate(part[2].kept) if kept > 0]
    builders: list[Callable[..., Sequence]] = [share_sequence, rate_sequence]
    if stream.audit is not None:
        builders = [agreement_sequence, *builders]
    alpha = plan.alpha / max(1, len(active) * len(builders))
    sequences = [
        run_sequence(build(j, calibrated.judges[j] + suffix, part, figures, plan, alpha))
        for (suffix, part, figures), j in active
        for build in builders
    ]
    audited = {}
    for (suffix, part, _), j in active:
        if part.audit is not None:
            audited[calibrated.judges[j] + suffix] = int(np.sum((part.decided_by == j) & ~np.isnan(part.audit)))
    field = calibrated.slice_field if len(split) > 1 or split[0][0] else None
    return MonitorResult(sequences, plan, alpha, len(stream.decided_by), audited, len(builders), field)
