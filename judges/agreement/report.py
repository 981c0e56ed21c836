"""Writing agreement results: `agreement.json` (everything) and `agreement.md` (a table per metric)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC
from pathlib import Path
from typing import Any

from judges.agreement.bootstrap import Figure
from judges.agreement.estimate import Estimates
from judges.agreement.result import MetricAgreement
from judges.agreement.systems import SystemAgreement
from judges.render.markdown import grid


def report_dict(
    results: Sequence[MetricAgreement], *, labels: dict[str, Any], predictions: dict[str, Any]
) -> dict[str, Any]:
    from datetime import datetime

    from judges import __version__

    return {
        "judgelab": __version__,
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "labels": labels,
        "predictions": predictions,
        "metrics": {r.metric: r.to_dict() for r in results},
    }


def _value(fig: Figure | None) -> tuple[str, str, str]:
    if fig is None:
        return "", "", ""
    value = "n/a" if fig.value is None else f"{fig.value:.4f}"
    ci = "" if fig.ci is None else f"[{fig.ci[0]:.4f}, {fig.ci[1]:.4f}]"
    return value, ci, f"{fig.n} ({fig.n_items})"


def _cut(result: MetricAgreement) -> str:
    """How the binary statistics cut the judge's scores, and which items fitted the cut."""
    fit = result.threshold
    if fit is not None:
        return (
            f" Binary statistics use the threshold fitted on {fit.fitted_on} ({fit.split}): {fit.rule}, by "
            f"{fit.method}; figures on {fit.n_reported_items} items; AUROC needs no threshold."
        )
    return "".join(f" {note[0].upper()}{note[1:]}." for note in result.notes if "cut" in note)


def metric_table(result: MetricAgreement) -> list[str]:
    """Markdown lines: a heading line, the outcome counts, the table, and notes on missing values."""
    counts = result.counts
    scale = ", ".join(f"{v:g}" for v in result.scale)
    lines = [
        f"### {result.metric}: {result.label_type.value} labels on [{scale}], "
        f"annotators {', '.join(result.annotators)}",
        "",
        f"{result.n_items} items, {result.n_labels} labels. Judge outcomes: {counts.graded} graded, "
        f"{counts.null} null, {counts.failed} failed, {counts.missing} missing; policy `{result.policy.value}`: "
        f"{counts.excluded} excluded, {counts.counted_wrong} counted as wrong, {counts.imputed} imputed. "
        f"{result.unmatched_predictions} predictions match no item." + _cut(result),
        "",
    ]
    ceiling = {f.statistic: f for f in result.ceiling}
    lines.append(
        grid(
            ["statistic", "judge", "95% CI", "n (items)", "human-human", "95% CI", "n (items)"],
            [[fig.statistic, *_value(fig), *_value(ceiling.get(fig.statistic))] for fig in result.judge],
        )
    )
    notes = []
    for fig in result.judge:
        if fig.note:
            notes.append(f"- {fig.statistic} (judge): {fig.note}")
        if fig.statistic in ceiling and ceiling[fig.statistic].note:
            notes.append(f"- {fig.statistic} (human-human): {ceiling[fig.statistic].note}")
    notes += [f"- {note}" for note in result.notes if "cut" not in note]
    if not result.ceiling:
        notes.append("- no human-human ceiling: no item was labelled by two annotators")
    if result.errors is not None:
        from judges.agreement.confusion import errors_table

        lines += ["", *errors_table(result.errors, result.label_type, result.ceiling_errors)]
    if result.systems is not None:
        lines += ["", *system_tables(result.systems)]
    if result.estimate is not None:
        lines += ["", *estimate_table(result.estimate)]
    return lines + ([""] + notes if notes else [])


def _interval(ci: tuple[float, float] | None) -> str:
    return "" if ci is None else f"[{ci[0]:.4f}, {ci[1]:.4f}]"


def estimate_table(estimate: Estimates) -> list[str]:
    """Markdown lines: the mean label four ways, the headline sentence, and which one to report."""
    from judges.agreement.estimate import READING

    named = [
        ("judge only (every judged item)", estimate.judge_only),
        ("labelled only", estimate.labelled_only),
        (f"PPI++ (power-tuned, lambda {estimate.lam:.2f})", estimate.ppi),
    ]
    if estimate.rogan_gladen is not None:
        named.append(("Rogan-Gladen (sensitivity and specificity)", estimate.rogan_gladen))
    table = grid(
        ["estimate of the mean label", "value", "95% CI", "items", "note"],
        [
            [name, "n/a" if e.value is None else f"{e.value:.4f}", _interval(e.ci), str(e.n), e.note or ""]
            for name, e in named
        ],
    )
    ppi = estimate.ppi
    headline = (
        f"The judge says {estimate.judge_only.value:.4f}; corrected with {estimate.n_labelled} labels: "
        f"{ppi.value:.4f} {_interval(ppi.ci)} (PPI++ over {estimate.n_labelled + estimate.n_unlabelled} items)."
    )
    notes = "".join(f" {note[0].upper()}{note[1:]}." for note in estimate.notes)
    return [headline + notes, "", table, "", READING]


def system_tables(systems: SystemAgreement) -> list[str]:
    """Markdown lines: the partial and system-level figures, the per-system table, and when to read which."""
    from judges.agreement.systems import READING

    figures = grid(
        ["system-aware statistic", "judge", "95% CI", "n (items)", "note"],
        [[fig.statistic, *_value(fig), fig.note or ""] for fig in systems.figures],
    )
    rows = grid(
        ["system", "items", "human mean", "judge mean", "within the system"],
        [
            [
                row.system,
                str(row.n_items),
                f"{row.human_mean:.4f}",
                f"{row.judge_mean:.4f}",
                f"{row.statistic} " + ("n/a" if row.value is None else f"{row.value:.4f}"),
            ]
            for row in systems.rows
        ],
    )
    return [
        f"Items from {len(systems.rows)} systems (intervals resample items within each system; one value per item, "
        "the mean of its labels):",
        "",
        figures,
        "",
        rows,
        "",
        READING,
    ]


def write_report(
    out_dir: Path, results: Sequence[MetricAgreement], *, labels: dict[str, Any], predictions: dict[str, Any]
) -> str:
    """Write agreement.json and agreement.md into `out_dir`; return the markdown."""
    out_dir.mkdir(parents=True, exist_ok=True)
    data = report_dict(results, labels=labels, predictions=predictions)
    (out_dir / "agreement.json").write_text(json.dumps(data, indent=2), encoding="utf-8")
    header = [
        f"# Agreement with human labels: {labels['name']}",
        "",
        f"Labels: {labels['source'] or labels['name']}. Predictions: `{predictions['path']}`. "
        f"Bootstrap: {results[0].settings['resamples']} resamples of items, seed "
        f"{results[0].settings['seed']}, percentile {results[0].settings['confidence']:.0%} intervals.",
        "",
    ]
    body = [line for result in results for line in metric_table(result) + [""]]
    markdown = "\n".join(header + body)
    (out_dir / "agreement.md").write_text(markdown, encoding="utf-8")
    return markdown
