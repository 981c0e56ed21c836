"""Writing agreement results: `agreement.json` (everything) and `agreement.md` (a table per metric)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC
from pathlib import Path
from typing import TYPE_CHECKING, Any

from judges.agreement.bootstrap import Figure
from judges.agreement.confidence_calibration import ConfidenceCalibration
from judges.agreement.confusion import errors_table
from judges.agreement.result import MetricAgreement
from judges.version import __version__

if TYPE_CHECKING:
    from judges.agreement.paired import PairedDifference
from judges.agreement.report_figures import comparison_table, estimate_table, group_table, reading_line, system_tables
from judges.pages.markdown import grid


def report_dict(
    results: Sequence[MetricAgreement], *, labels: dict[str, Any], predictions: dict[str, Any]
) -> dict[str, Any]:
    from datetime import datetime

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
        lines += ["", *errors_table(result.errors, result.label_type, result.ceiling_errors)]
    if result.groups is not None:
        lines += ["", *group_table(result.groups)]
    if result.systems is not None or result.estimate is not None:
        lines += ["", *system_tables(result.systems)] if result.systems is not None else []
        lines += ["", *estimate_table(result.estimate)] if result.estimate is not None else []
    return lines + ([""] + notes if notes else [])


def write_report(
    out_dir: Path,
    results: Sequence[MetricAgreement],
    *,
    labels: dict[str, Any],
    predictions: dict[str, Any],
    second: tuple[str, Sequence[MetricAgreement]] | None = None,
    comparison: dict[str, list[PairedDifference]] | None = None,
    confidence: Sequence[ConfidenceCalibration] = (),
) -> str:
    """Write agreement.json and agreement.md into `out_dir`; return the markdown.

    With a `second` judge (its predictions path and results) and the `comparison` of the two per metric, the JSON
    adds `second_judge` and `comparison`, and the markdown their tables; where the judge stated confidences,
    `confidence_calibration` per metric (Brier score, ECE, reliability table), and its section.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    data = report_dict(results, labels=labels, predictions=predictions)
    if second is not None:
        data["second_judge"] = {"path": second[0], "metrics": {r.metric: r.to_dict() for r in second[1]}}
        data["comparison"] = {m: [d.to_dict() for d in diffs] for m, diffs in (comparison or {}).items()}
    if confidence:
        data["confidence_calibration"] = {c.metric: c.to_dict() for c in confidence}
    (out_dir / "agreement.json").write_text(json.dumps(data, indent=2), encoding="utf-8")
    header = [
        f"# Agreement with human labels: {labels['name']}",
        "",
        f"Labels: {labels['source'] or labels['name']}. Predictions: `{predictions['path']}`. "
        f"Bootstrap: {results[0].settings['resamples']} resamples of items, seed "
        f"{results[0].settings['seed']}, percentile {results[0].settings['confidence']:.0%} intervals.",
        "",
    ]

    reading = reading_line(results)
    header += [reading, ""] if reading else []
    body = [line for result in results for line in metric_table(result) + [""]]
    if second is not None:
        body += [f"## Second judge: `{second[0]}`", ""]
        body += [line for result in second[1] for line in metric_table(result) + [""]]
        paths = [predictions["path"], second[0]]
        body += [line for m, diffs in (comparison or {}).items() for line in comparison_table(m, paths, diffs) + [""]]
    if confidence:
        body += ["## How well the judge's confidence is calibrated", ""]
        body += [line for c in confidence for line in c.markdown() + [""]]
    markdown = "\n".join(header + body)
    (out_dir / "agreement.md").write_text(markdown, encoding="utf-8")
    return markdown
