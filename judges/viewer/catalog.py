"""The viewer's index: every run folder (run.json) and leaderboard folder under a root, read from their JSON heads."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from judges.errors import InputError
from judges.files.checked import read_json_file
from judges.records import Summary
from judges.runs.call_totals import call_totals
from judges.runs.kinds import kind_of

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


def run_entry(root: Path, meta_path: Path) -> RunEntry | None:
    """The index row of one run folder; None for a run.json this version cannot read."""

    try:
        meta = read_json_file(meta_path)  # the one input checker: bad text, JSON or nesting is skipped
    except (OSError, InputError):
        return None
    if not isinstance(meta, dict) or "kind" not in meta:
        return None
    try:
        summary = Summary.from_json(meta.get("summary"), str(meta["kind"]))
    except (TypeError, ValueError, KeyError, AttributeError):
        return None
    config = meta.get("config") or {}
    spent = (meta.get("usage") or {}).get("cost")
    prompts = config.get("prompts")
    headline = kind_of(str(meta["kind"])).headline(summary)  # a kind's own figure, as a rate (unit tests' total)
    name, value = _figure(summary) if headline is None else headline[:2]
    totals = call_totals(meta.get("usage") or {}, summary.usage)
    return RunEntry(
        path=meta_path.parent.relative_to(root).as_posix() or ".",
        kind=str(meta["kind"]),
        judge=str(config.get("judge", "?")),
        prompts=str(prompts.get("name", "-")) if isinstance(prompts, dict) else str(prompts or "-"),
        date=str((meta.get("timing") or {}).get("started_at", "")),
        figure_name=name,
        figure=value,
        rate=headline is not None,
        n=summary.n_items,
        failures=headline[2] if headline is not None else 0,
        calls=totals.asked,
        failed_calls=totals.failed,
        cost=float(spent if spent is not None else summary.usage.cost),
        stopped=meta.get("stop_reason"),
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
