"""`judgelab agreement` on a judge benchmark's files: each judge's `pairwise` block in agreement.json, agreement.md."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from judges.agreement.pairwise_formats import PairLabels
from judges.agreement.pairwise_readers import read_labels, read_verdicts
from judges.agreement.pairwise_report import pairwise_block, references
from judges.agreement.self_preference import own_system, self_preference_block, self_preference_lines
from judges.pages.markdown import grid

ROWS = (  # (label on the page, key in the block, order key)
    ("accuracy, given order", "accuracy_per_order", "original"),
    ("accuracy, swapped", "accuracy_per_order", "swapped"),
    ("accuracy, mean of orders", "accuracy_mean", None),
    ("both orders right", "both_correct", None),
    ("position consistency", "position_consistency", None),
    ("kappa vs label, given order", "kappa_per_order", "original"),
    ("kappa vs label, swapped", "kappa_per_order", "swapped"),
    ("kappa between orders", "kappa_between_orders", None),
    ("vote accuracy (JudgeBench)", "vote_accuracy", None),
    ("accuracy with ties (MT-Bench)", "accuracy_with_ties", None),
    ("accuracy without ties (MT-Bench)", "accuracy_without_ties", None),
)


def _figure(block: dict[str, Any], key: str, order: str | None) -> dict[str, Any] | None:
    found = block.get(key)
    return found.get(order) if isinstance(found, dict) and order is not None else found


def _cell(figure: dict[str, Any] | None, interval: bool = True) -> str:
    if not figure or figure.get("value") is None:
        return "undefined" if figure and figure.get("note") else "n/a"
    ci = figure.get("ci")
    text = f"{figure['value']:.3f}"
    return f"{text} [{ci[0]:.3f}, {ci[1]:.3f}]" if interval and ci else text


def pairwise_table(block: dict[str, Any], refs: dict[str, dict[str, Any]]) -> list[str]:
    """The judge's figures beside the references (constant judges, chance), one row per statistic it has."""
    if "best_of_n" in block:
        best = block["best_of_n"]
        rows = [[f"best of n: {name}", _cell(f)] for name, f in best["subsets"].items()]
        rows.append(["best of n: mean of subsets", _cell(best["mean"])])
        return grid(["statistic", "judge [95% CI]"], rows).splitlines()
    rows = []
    for title, key, order in ROWS:
        figure = _figure(block, key, order)
        if figure is None:
            continue
        rows.append([title, _cell(figure), *(_cell(_figure(r, key, order), False) for r in refs.values())])
    return grid(["statistic", "judge [95% CI]", *refs], rows).splitlines()


def conclusion(block: dict[str, Any], refs: dict[str, dict[str, Any]]) -> str:
    """One line to read the table by."""
    if "best_of_n" in block:
        notes = "".join(f" Note: {note}." for note in block["best_of_n"].get("notes", ()))
        return (
            "Read the mean of subsets against chance (1/n per prompt): above it, the judge finds the chosen answer."
            + notes
        )
    key = "both_correct" if "both_correct" in block else "accuracy_with_ties"
    judge = block[key]
    best_ref = max((_figure(r, key, None) or {}).get("value") or 0.0 for r in refs.values())
    low = (judge.get("ci") or [None])[0]
    verdict = "above" if low is not None and low > best_ref else "not clearly above"
    return (
        f"{key.replace('_', ' ')}: {_cell(judge)}, {verdict} the best reference ({best_ref:.3f}): a judge is better than "
        "position or a coin only where its interval clears every reference."
    )


def judge_entry(labels: PairLabels, spec: str, boot: dict[str, Any], judge_system: str | None) -> dict[str, Any]:
    """One judge's part of agreement.json: its pairwise block, and its self-preference where the pairs name their
    systems and the judge is one of them."""
    verdicts = read_verdicts(spec, labels.format)
    entry: dict[str, Any] = {"predictions": spec, "pairwise": pairwise_block(labels, verdicts, **boot)}
    own = own_system(labels, verdicts, judge_system)
    if own is not None:
        entry["self_preference"] = self_preference_block(labels, verdicts, *own, **boot)
    return entry


def run_pairwise(
    labels_spec: str,
    predictions: Sequence[str],
    fmt: str | None,
    out_dir: Path,
    boot: dict[str, Any],
    judge_system: str | None = None,
) -> list[str]:
    """Read the labels and each judge's verdicts in the benchmark's format, write agreement.json and agreement.md;
    the page's lines."""
    labels = read_labels(labels_spec, fmt)
    entries = [judge_entry(labels, p, boot, judge_system) for p in predictions]
    refs = references(labels, **boot)
    data = {
        "kind": "pairwise",
        "format": labels.format,
        "labels": {"spec": labels_spec, "source": labels.source, "rows": len(labels.ids)},
        "bootstrap": boot,
        "judges": entries,
        "references": refs,
    }
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "agreement.json").write_text(json.dumps(data, indent=2), encoding="utf-8")
    lines = [
        f"# Pairwise agreement on a judge benchmark ({labels.format})",
        "",
        f"Labels: `{labels_spec}`, {len(labels.ids)} label rows. Bootstrap: {boot['resamples']} resamples of items, "
        f"seed {boot['seed']}, percentile {boot['confidence']:.0%} intervals. References: a judge always naming the "
        "first answer shown, one always calling a tie, and a fair coin per order (expected values).",
    ]
    for path, entry in zip(predictions, entries, strict=True):
        block = entry["pairwise"]
        lines += ["", f"## `{path}`", "", *pairwise_table(block, refs), "", conclusion(block, refs)]
        if block.get("votes_on_items_not_judged"):
            left = block["votes_on_items_not_judged"]
            lines += ["", f"{left} votes on items this judge did not vote on are left out, as FastChat counts them."]
        for name, part in block.get("per_category", {}).items():
            lines += ["", f"### {name}", "", *pairwise_table(part, {})]
        if "self_preference" in entry:
            lines += ["", *self_preference_lines(entry["self_preference"])]
    (out_dir / "agreement.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return lines
