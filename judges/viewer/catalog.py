"""The viewer's index: every run folder (run.json) and leaderboard folder under a root, read from their JSON heads."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from judges.errors import InputError
from judges.records import Summary
from judges.runs.call_totals import call_totals
from judges.runs.kinds import kind_of
from judges.runs.run import Run
from judges.runs.run_writer import FolderRecorder

SKIPPED = {".git", ".venv", "node_modules", "__pycache__", ".judgelab"}


@dataclass(frozen=True)
class RunEntry:
    """One run folder as the index lists it; `figure` is the total pass rate (`rate`), or the first metric's mean
    grade."""

    path: str  # relative to the root, with "/"
    kind: str
    judge: str
    prompts: str
    date: str
    figure_name: str
    figure: float | None
    rate: bool  # the figure is a rate (a kind whose items pass or fail)
    n: int
    failures: int  # verdicts the run failed to get
    calls: int  # calls made, and failed: the count the terminal, summary.md and run.json give
    failed_calls: int
    cost: float
    stopped: str | None

    @property
    def empty(self) -> bool:
        """A run that made no item (e.g. stopped at its first calls): nothing to read but why it stopped."""
        return self.n == 0

    @property
    def day(self) -> str:
        """The start as `2026-11-25 12:50` (the index's column; the full timestamp is its tooltip)."""
        return self.date[:16].replace("T", " ")


def _walk(root: Path) -> list[Path]:
    found, stack = [], [root]
    while stack:
        folder = stack.pop()
        try:
            children = sorted(folder.iterdir())
        except OSError:
            continue
        for child in children:
            if child.is_dir() and child.name not in SKIPPED and not child.is_symlink():
                stack.append(child)
            elif child.name in ("run.json", "leaderboard.json", "calibration.json"):
                found.append(child)
    return sorted(found)


def _figure(summary: Summary) -> tuple[str, float | None]:
    for metric, stats in summary.metrics.items():
        if stats.mean is not None:
            return f"mean {metric}", float(stats.mean)
    return "-", None


def read_run(folder: Path) -> Run | None:
    """The run of `folder` read through its recorder; None for a run.json this version cannot read."""
    try:
        return FolderRecorder(folder).load()  # the one reader: bad text, JSON, nesting or fields are skipped
    except (OSError, InputError, TypeError, ValueError, KeyError, AttributeError):
        return None


def run_entry(root: Path, meta_path: Path) -> RunEntry | None:
    """The index row of one run folder; None for a run.json this version cannot read."""
    run = read_run(meta_path.parent)
    if run is None:
        return None
    summary, config = run.summary, run.config
    usage = run.usage.to_json() if run.usage is not None else {}
    headline = kind_of(run.kind).headline(summary)  # a kind's own figure, as a rate (unit tests' total)
    name, value = _figure(summary) if headline is None else headline[:2]
    totals = call_totals(usage, summary.usage)
    return RunEntry(
        path=meta_path.parent.relative_to(root).as_posix() or ".",
        kind=run.kind,
        judge=str(config.judge if "judge" in config.keys else "?"),
        prompts=config.prompts_name or "-",
        date=run.timing.started_at or "",
        figure_name=name,
        figure=value,
        rate=headline is not None,
        n=summary.n_items,
        failures=headline[2] if headline is not None else 0,
        calls=totals.asked,
        failed_calls=totals.failed,
        cost=float(run.usage.cost if run.usage is not None else summary.usage.cost),
        stopped=run.stop_reason,
    )


def catalog(root: Path) -> tuple[list[RunEntry], list[str]]:
    """Run folders (newest first) and leaderboard folders (relative paths) under `root`."""
    runs, boards = [], []
    for path in _walk(root):
        if path.name == "leaderboard.json":
            boards.append(path.parent.relative_to(root).as_posix() or ".")
        elif path.name == "run.json" and (entry := run_entry(root, path)) is not None:
            runs.append(entry)
    runs.sort(key=lambda e: (e.date, e.path), reverse=True)
    return runs, sorted(boards)


def inside(root: Path, relative: str) -> Path | None:
    """`root/relative` when it stays inside `root` (no `..` escape), else None."""
    target = (root / relative).resolve()
    return target if target.is_relative_to(root.resolve()) else None


def calibrations(root: Path) -> list[str]:
    """Cascade calibration folders (`judgelab cascade calibrate`: a calibration.json beside its page) under `root`."""
    return [
        path.parent.relative_to(root).as_posix() or "."
        for path in _walk(root)
        if path.name == "calibration.json" and (path.parent / "calibration.html").is_file()
    ]
