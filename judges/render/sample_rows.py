"""What a graded run (evaluate, metrics) shows per sample and per metric: the first samples with their question,
each metric's grade and a short reason, and each mean named with its metric's scale."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from judges.runs.failures import given, one_line, reason
from judges.runs.intervals import metric_range
from judges.runs.summarizer import SHORT, first_records

if TYPE_CHECKING:
    from judges.runs.run import Run

SHOWN = 10  # samples listed in summary.md and the terminal; report.html lists every one
QUESTION_KEYS = ("input", "question", "user_input", "query")
ANSWER_KEYS = ("actual_output", "answer", "response")


def question_of(sample: Mapping[str, Any] | None) -> str:
    """The sample's question, whichever name its file gave it ("" when it has none)."""
    return _first(sample, QUESTION_KEYS)


def answer_of(sample: Mapping[str, Any] | None) -> str:
    """The answer graded, whichever name its file gave it ("" when it has none)."""
    return _first(sample, ANSWER_KEYS)


def _first(sample: Mapping[str, Any] | None, keys: tuple[str, ...]) -> str:
    for key in keys:
        if (sample or {}).get(key):
            return str((sample or {})[key])
    return ""


def scale_of(metric: str, info: Mapping[str, Any]) -> str:
    """ "1-5", "0-1": the range a metric's grades take (as its spec declared it, else the GroUSE grades)."""

    low, high = metric_range(metric, dict(info.get(metric) or {}))
    return f"{low:g}-{high:g}"


def mean_text(mean: float | None, metric: str, info: Mapping[str, Any]) -> str:
    """ "3.200 on 1-5": a mean always says the scale it is on."""
    return f"n/a (scale {scale_of(metric, info)})" if mean is None else f"{mean:.3f} on {scale_of(metric, info)}"


def sample_rows(run: Run, limit: int = SHOWN, width: int = 60) -> tuple[list[dict[str, Any]], int, list[str]]:
    """The first `limit` samples (first draw, item order) as table rows, how many samples the run has (its
    summary's count: the records are not all read), and a note per metric the pipeline left unjudged on every
    sample shown, with its reason ("usefulness: not judged: ...")."""
    records = first_records(run.iter_records(), limit)
    unjudged: dict[str, set[str]] = {}
    for record in records:
        for metric, entry in record.metrics.items():
            if entry.calls or entry.verdict.is_failure:
                unjudged[metric] = {"judged"}
            else:
                unjudged.setdefault(metric, set()).add(reason(entry))
    notes = [
        f"{metric}: {next(iter(why))} (on every sample shown)"
        for metric, why in unjudged.items()
        if len(why) == 1 and "judged" not in why and next(iter(why)).startswith("not judged")
    ]
    rows = []
    for record in records:
        row: dict[str, Any] = {"sample": record.id, "question": one_line(question_of(record.sample), 40)}
        reasons = []
        for metric, entry in record.metrics.items():
            name = SHORT.get(metric, metric)
            row[name] = given(entry.verdict).replace("failure: ", "failed: ") if entry.applicable else "n/a"
            if entry.confidence is not None:  # the judge's confidence in the grade, in brackets
                row[name] += f" ({entry.confidence:.2f})"
            why = reason(entry)
            # a metric the pipeline left unjudged, or one whose reply gave no reason, adds nothing to its grade
            if (entry.calls or entry.verdict.is_failure or not entry.applicable) and not why.endswith("reason given"):
                reasons.append(f"{name}: {why}")
        row["reason"] = one_line("; ".join(reasons) or "no reason given", width).replace("|", "\\|")
        rows.append(row)
    return rows, run.summary.n_items, notes
