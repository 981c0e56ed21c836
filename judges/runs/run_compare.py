"""Comparing runs: figures side by side, what changed item by item, and the train-versus-test gap."""

from __future__ import annotations

import hashlib
import json

from judges.pages.markdown import pct, table
from judges.runs.kinds import kind_of
from judges.runs.paired_runs import comparison, paired_metrics
from judges.runs.run import Run
from judges.runs.summarizer import SHORT


def variant(run: Run) -> str:
    """Judge plus a short hash of its prompt set: what a prompt or model change changes."""
    config = run.config
    digest = hashlib.sha256(json.dumps(config.prompts_sha256, sort_keys=True).encode()).hexdigest()[:8]
    return f"{config.judge} / {config.prompts_name or '-'} #{digest}"


def _name(run: Run) -> str:
    return run.folder.name if run.folder else "?"


def changes(before: Run, after: Run) -> list[tuple[str, str, str, str]]:
    """(item id, metric, before, after) for each draw-0 item and metric present in both runs whose state changed,
    as their kind compares them (unit tests: pass versus not; by default the verdict: grade or state)."""
    compared = comparison(before, after)

    def states(run: Run) -> dict[tuple[str, str], str]:
        return {(r.id, m): compared.state(e) for r in run.records if r.draw == 0 for m, e in r.metrics.items()}

    old, new = states(before), states(after)
    changed = []
    for key in sorted(set(old) & set(new)):
        if compared.flipped(old[key], new[key]):
            changed.append((*key, old[key], new[key]))
    return changed


def run_figures(run: Run) -> dict[str, str]:
    metrics = run.summary.metrics
    own = kind_of(run.kind).figures(run)  # a kind's own figures (the unit-test kind's pass rates)
    if own is not None:
        return own
    return {m: "n/a" if s.mean is None else f"{s.mean:.3f}" for m, s in metrics.items()}


LISTED = 20  # flipped items the terminal lists per pair of runs; `judgelab view` shows every one


def paired_table(before: Run, after: Run) -> str:
    """The paired statistics of two runs over their shared items, per metric, as Markdown."""

    def num(value: float | None, rate: bool) -> str:
        return "n/a" if value is None else (pct(value) if rate else f"{value:.3f}")

    rate = comparison(before, after).rate
    rows = [
        {
            "metric": SHORT.get(r.metric, r.metric),
            "shared items": r.n,
            "before": num(r.before, rate),
            "after": num(r.after, rate),
            "gained": r.gained,
            "lost": r.lost,
            **({"McNemar p (exact)": "n/a" if r.mcnemar_p is None else f"{r.mcnemar_p:.3g}"} if rate else {}),
            "after - before [95% paired bootstrap]": "n/a"
            if r.difference is None
            else f"{r.difference:+.3f} [{r.low:+.3f}, {r.high:+.3f}]",
        }
        for r in paired_metrics(before, after)
    ]
    return table(rows) if rows else "no metric in common"


def comparison_markdown(runs: list[Run], listed: int | None = LISTED) -> str:
    """Figures side by side, train-versus-test gaps, then per pair of runs on the same split: the paired statistics
    and the flipped items (the first `listed` of them; None lists all)."""
    lines = [
        "Unit-test runs show pass rates over completed tests; other runs show mean grades.",
        "",
        table(
            [
                {
                    "run": _name(r),
                    "judge / prompts": variant(r),
                    "kind": r.kind,
                    "split": r.split,
                    "n": r.summary.n_items,
                    **run_figures(r),
                }
                for r in runs
            ]
        ),
    ]
    by_variant: dict[str, dict[str, float]] = {}
    for run in runs:
        total = run.summary.total_pass_rate  # a kind whose part gives a total (unit tests): train against test
        if total is not None:
            by_variant.setdefault(variant(run), {})[run.split] = total
    gaps = {v: s for v, s in by_variant.items() if "train" in s and "test" in s}
    if gaps:
        lines += [
            "",
            "## Train versus test (a large gap means the prompt fits the train split)",
            "",
            table(
                [
                    {
                        "judge / prompts": v,
                        "train": pct(s["train"]),
                        "test": pct(s["test"]),
                        "gap": f"{100 * (s['train'] - s['test']):+.1f} pts",
                    }
                    for v, s in gaps.items()
                ]
            ),
        ]
    for index, before in enumerate(runs):
        for after in runs[index + 1 :]:
            if before.split != after.split or before.kind != after.kind:
                continue
            changed = changes(before, after)
            compared = comparison(before, after)
            title = compared.title(changed)
            lines += ["", f"## {_name(before)} -> {_name(after)}: {title}", "", paired_table(before, after)]
            lines += compared.lines(_name(before), _name(after))  # e.g. the unit tests' drift
            shown = changed if listed is None else changed[:listed]
            if shown:
                lines += [
                    "",
                    table([{"item": i, "metric": m, "before": old, "after": new} for i, m, old, new in shown]),
                ]
            if len(shown) < len(changed):
                lines += ["", f"And {len(changed) - len(shown)} more: `judgelab view` lists them all."]
    return "\n".join(lines) + "\n"
