"""Comparing meta-eval runs: pass rates side by side, flipped outcomes, and the train-versus-test gap."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judges.errors import InputError
from judges.runs.summary import SHORT, read_rows


@dataclass
class Run:
    """A run folder's metadata, summary and outcomes by (test id, metric) for draw 0."""

    path: Path
    info: dict[str, Any]
    summary: dict[str, Any]
    outcomes: dict[tuple[str, str], str]

    @classmethod
    def load(cls, path: str | Path) -> Run:
        path = Path(path)
        report_path = path / "report.json"
        if not report_path.is_file():
            raise InputError("not a meta-eval run folder: report.json is missing", path=str(path))
        report = json.loads(report_path.read_text(encoding="utf-8"))
        outcomes = {(row["id"], metric): entry["outcome"] for row in read_rows(path / "results.jsonl")
                    if row.get("draw", 0) == 0 for metric, entry in row["metrics"].items()}
        return cls(path, report["run"], report["summary"], outcomes)

    @property
    def variant(self) -> str:
        """Judge plus a short hash of its prompt set: what a prompt or model change changes."""
        prompts = json.dumps(self.info.get("prompt_sha256", {}), sort_keys=True)
        return f"{self.info['judge']} / {self.info['prompts']} #{hashlib.sha256(prompts.encode()).hexdigest()[:8]}"

    @property
    def split(self) -> str:
        return str(self.info.get("split") or Path(str(self.info.get("tests", "?"))).stem)


def flips(before: Run, after: Run) -> list[tuple[str, str, str, str]]:
    """(test id, metric, outcome before, outcome after) wherever pass became non-pass or the reverse."""
    changed = []
    for key in sorted(set(before.outcomes) & set(after.outcomes)):
        old, new = before.outcomes[key], after.outcomes[key]
        if (old == "pass") != (new == "pass"):
            changed.append((*key, old, new))
    return changed


def comparison_markdown(runs: list[Run]) -> str:
    def pct(value: float | None) -> str:
        return "n/a" if value is None else f"{100 * value:.1f}%"

    lines = ["| run | judge / prompts | split | n | " + " | ".join(SHORT.values()) + " | total |",
             "|---|---|---|---|" + "---|" * (len(SHORT) + 1)]
    for run in runs:
        cells = " | ".join(pct(run.summary["metrics"][m]["pass_rate"]) for m in SHORT)
        lines.append(f"| {run.path.name} | {run.variant} | {run.split} | {run.summary['n_tests']} | {cells} | "
                     f"{pct(run.summary['total_pass_rate'])} |")
    by_variant: dict[str, dict[str, float]] = {}
    for run in runs:
        by_variant.setdefault(run.variant, {})[run.split] = run.summary["total_pass_rate"]
    gaps = {v: s for v, s in by_variant.items() if "train" in s and "test" in s}
    if gaps:
        lines += ["", "## Train versus test (a large gap means the prompt fits the train split)", "",
                  "| judge / prompts | train | test | gap |", "|---|---|---|---|"]
        for variant, splits in gaps.items():
            lines.append(f"| {variant} | {pct(splits['train'])} | {pct(splits['test'])} | "
                         f"{100 * (splits['train'] - splits['test']):+.1f} pts |")
    for index, before in enumerate(runs):
        for after in runs[index + 1:]:
            if before.split != after.split:
                continue
            changed = flips(before, after)
            gained = sum(new == "pass" for *_, new in changed)
            lines += ["", f"## {before.path.name} -> {after.path.name}: {len(changed)} flipped outcomes "
                          f"({gained} now pass, {len(changed) - gained} now fail)", ""]
            if changed:
                lines += ["| test | metric | before | after |", "|---|---|---|---|"]
                lines += [f"| {test} | {metric} | {old} | {new} |" for test, metric, old, new in changed]
    return "\n".join(lines) + "\n"
