"""Per-metric summary of a run: mean score and the counts of scores, nulls, not-applicable samples and failures."""

from __future__ import annotations

import statistics
from collections import Counter
from typing import Any, Mapping, Sequence

from judges.rag.spec import MetricSpec


def summarize(rows: Sequence[dict[str, Any]], metrics: Sequence[MetricSpec]) -> dict[str, dict[str, Any]]:
    out = {}
    for spec in metrics:
        entries = [row["metrics"][spec.name] for row in rows if spec.name in row["metrics"]]
        scores = [e["score"] for e in entries if "score" in e]
        states = Counter(e["verdict"]["state"] for e in entries)
        kinds = Counter(e["verdict"].get("failure_kind") for e in entries if e["verdict"]["state"] == "failure")
        out[spec.name] = {
            "family": spec.family, "higher_is_better": spec.higher_is_better, "n": len(entries),
            "scored": len(scores), "null": sum(e["verdict"]["state"] == "null" and e["applicable"] for e in entries),
            "not_applicable": sum(not e["applicable"] for e in entries), "failed": states["failure"],
            "failure_kinds": dict(sorted(kinds.items())),
            "mean": statistics.fmean(scores) if scores else None,
            "stdev": statistics.stdev(scores) if len(scores) > 1 else None,
        }
    return out


def summary_markdown(summary: Mapping[str, Mapping[str, Any]], run: Mapping[str, Any]) -> str:
    lines = [f"# judgelab metrics: {run.get('judge')} on {run.get('data')}", "",
             f"{run.get('n_samples')} samples; embeddings: {run.get('embeddings') or 'none'}; "
             f"logprob-weighted rubrics: {'yes' if run.get('logprobs') else 'no'}.", "",
             *([f"**Stopped early:** {run['stopped']}", ""] if run.get("stopped") else []),
             "| metric | family | mean | scored | null | n/a | failed | better |", "|---|---|---|---|---|---|---|---|"]
    for name, s in summary.items():
        mean = "n/a" if s["mean"] is None else f"{s['mean']:.3f}"
        failed = str(s["failed"]) + (f" ({', '.join(f'{k} {v}' for k, v in s['failure_kinds'].items())})"
                                     if s["failure_kinds"] else "")
        better = "higher" if s["higher_is_better"] else "lower"
        lines.append(f"| {name} | {s['family']} | {mean} | {s['scored']} | {s['null']} | {s['not_applicable']} "
                     f"| {failed} | {better} |")
    return "\n".join(lines) + "\n"
