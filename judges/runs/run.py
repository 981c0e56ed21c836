"""Run: a finished (or stopped) run as one typed value, and its folder (results.jsonl, run.json, summary.md,
report.html)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from judges.errors import BudgetExhausted, CacheBroken, EndpointUnusable, InputError, JudgelabError, TooManyFailures

if TYPE_CHECKING:
    import pandas as pd

FORMAT = 2  # run.json's format; folders from judgelab 0.1 (report.json / summary.json) are refused with a hint
# "degraded": the run finished but more verdicts failed than --fail-on-error allows (TooManyFailures)
STOP_EXIT_CODES = {
    "budget": 4,
    "endpoint_unusable": 3,
    "cache": 2,
    "error": 2,
    "degraded": 5,
    "interrupted": 130,
    "crash": 70,
}


@dataclass
class Run:
    """A run of any kind ("unit_tests", "grade", "metrics"): its config (judge, prompts with hashes, data,
    judgelab and model versions), one record per item, usage, the stop reason and the summary."""

    kind: str
    config: dict[str, Any]
    records: list[dict[str, Any]]
    summary: dict[str, Any]
    usage: dict[str, Any] = field(default_factory=dict)
    stop_reason: str | None = None
    stop_message: str | None = None
    timing: dict[str, Any] = field(default_factory=dict)
    folder: Path | None = None

    @property
    def exit_code(self) -> int:
        """0 when it ran to the end; 4 stopped at the budget; 3 the endpoint was unusable; 5 too many failed
        verdicts; 2 another error (a cache that broke mid-run among them); 130 interrupted; 70 a crash."""
        return STOP_EXIT_CODES.get(self.stop_reason or "", 0)

    def stop_error(self) -> JudgelabError:
        """The error to raise where a run that stopped early cannot be used (its figures would mislead): budget and
        endpoint stops keep their own exit codes."""
        kinds: dict[str, type[JudgelabError]] = {
            "budget": BudgetExhausted,
            "endpoint_unusable": EndpointUnusable,
            "cache": CacheBroken,
            "degraded": TooManyFailures,
        }
        kind = kinds.get(self.stop_reason or "")
        return (kind or JudgelabError)(f"{self.folder}: {self.stop_message}")

    @property
    def title(self) -> str:
        judge = self.config.get("judge", "?")
        prompts = self.config.get("prompts", {}).get("name") if isinstance(self.config.get("prompts"), dict) else None
        return f"{judge} / {prompts}" if prompts else str(judge)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "kind": self.kind,
            "config": self.config,
            "timing": self.timing,
            "usage": self.usage,
            "stop_reason": self.stop_reason,
            "stop_message": self.stop_message,
            "summary": self.summary,
        }

    def save(self, folder: str | Path) -> None:
        """Write run.json, summary.md and report.html next to results.jsonl (which the run service streamed)."""
        from judges.runs.markdown import summary_markdown
        from judges.runs.report import write_report

        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        self.folder = folder
        (folder / "run.json").write_text(
            json.dumps(_scrub(self.to_json()), indent=2, ensure_ascii=False), encoding="utf-8"
        )
        (folder / "summary.md").write_text(summary_markdown(self), encoding="utf-8")
        write_report(self, folder)

    @classmethod
    def load(cls, folder: str | Path) -> Run:
        """A run folder written by any command; a folder from an older judgelab is a one-line error."""
        from judges.files.jsonl import read_jsonl

        folder = Path(folder)
        meta_path = folder / "run.json"
        if not meta_path.is_file():
            if (folder / "report.json").is_file() or (folder / "summary.json").is_file():
                raise InputError(
                    "this run folder was written by an older judgelab (report.json, no run.json); "
                    "run the command again to get a folder this version reads",
                    path=str(folder),
                )
            raise InputError("not a run folder: run.json is missing", path=str(folder))
        from judges.files.checked import read_json_file

        meta = read_json_file(meta_path)
        if not isinstance(meta, dict):
            raise InputError("run.json must hold a JSON object", path=str(meta_path))
        if meta.get("format") != FORMAT:
            raise InputError(
                f"run.json has format {meta.get('format')!r}; this judgelab reads format {FORMAT}", path=str(meta_path)
            )
        _check_meta(meta, str(meta_path))
        results = folder / "results.jsonl"
        records = []
        for line, row in read_jsonl(results) if results.is_file() else []:
            _check_record(row, str(results), line)
            records.append(row)
        records.sort(key=lambda r: (r.get("draw", 0), r.get("order", 0)))
        return cls(
            meta["kind"],
            meta.get("config", {}),
            records,
            meta.get("summary", {}),
            meta.get("usage", {}),
            meta.get("stop_reason"),
            meta.get("stop_message"),
            meta.get("timing", {}),
            folder,
        )

    def to_pandas(self) -> pd.DataFrame:
        """One row per item x metric: id, draw, metric, state, grade, failure kind, message, and for unit tests the
        test type, condition and outcome; plus the item's calls, tokens and cost for that metric."""
        import pandas as pd

        from judges.runs.summary import call_usage

        rows = []
        for record in self.records:
            for metric, entry in record["metrics"].items():
                verdict = entry["verdict"]
                usage = call_usage(entry.get("calls", []))
                rows.append(
                    {
                        "id": record["id"],
                        "draw": record.get("draw", 0),
                        "test_type": record.get("test_type"),
                        "metric": metric,
                        "state": verdict["state"],
                        "grade": verdict.get("grade"),
                        "failure_kind": verdict.get("failure_kind"),
                        "message": verdict.get("message"),
                        "condition": entry.get("condition"),
                        "outcome": entry.get("outcome"),
                        "applicable": entry.get("applicable", True),
                        "calls": usage["calls"],
                        "cached_calls": usage["cached_calls"],
                        "cost": usage["cost"],
                    }
                )
        columns = [
            "id",
            "draw",
            "test_type",
            "metric",
            "state",
            "grade",
            "failure_kind",
            "message",
            "condition",
            "outcome",
            "applicable",
            "calls",
            "cached_calls",
            "cost",
        ]
        return pd.DataFrame(rows, columns=columns)


def _check_meta(meta: dict[str, Any], path: str) -> None:
    """run.json's fields have the types a Run needs; otherwise one InputError naming the field."""
    if not isinstance(meta.get("kind"), str):
        raise InputError("expected a string", path=path, field="kind")
    for name in ("config", "summary", "usage", "timing"):
        if not isinstance(meta.get(name, {}), dict):
            raise InputError("expected an object", path=path, field=name)
    for name in ("stop_reason", "stop_message"):
        if not isinstance(meta.get(name), (str, type(None))):
            raise InputError("expected a string or null", path=path, field=name)


def _check_record(row: dict[str, Any], path: str, line: int) -> None:
    """One results.jsonl record has an id, integer draw and order, and metrics whose verdicts have a state."""
    from judges.files.checked import id_problem

    if id_problem(row.get("id")):
        raise InputError(str(id_problem(row.get("id"))), path=path, line=line, field="id")
    for name in ("draw", "order"):
        if isinstance(row.get(name, 0), bool) or not isinstance(row.get(name, 0), int):
            raise InputError("expected an integer", path=path, line=line, field=name)
    metrics = row.get("metrics")
    if not isinstance(metrics, dict):
        raise InputError("expected an object", path=path, line=line, field="metrics")
    for metric, entry in metrics.items():
        verdict = entry.get("verdict") if isinstance(entry, dict) else None
        if not isinstance(verdict, dict) or verdict.get("state") not in ("grade", "null", "failure"):
            raise InputError(
                "expected a verdict with a state (grade, null or failure)",
                path=path,
                line=line,
                field=f"metrics.{metric}.verdict",
            )
        grade = verdict.get("grade")
        if verdict["state"] == "grade" and (isinstance(grade, bool) or not isinstance(grade, (int, float))):
            raise InputError("a graded verdict needs a number", path=path, line=line, field=f"metrics.{metric}.grade")
        if not isinstance(entry.get("calls", []), list) or not all(isinstance(c, dict) for c in entry.get("calls", [])):
            raise InputError("expected a list of call records", path=path, line=line, field=f"metrics.{metric}.calls")


def _scrub(value: Any) -> Any:
    """Secrets never reach run.json: credential-like keys and known secret values are masked."""
    try:
        from judges.calls.secrets import scrub
    except ImportError:  # pragma: no cover - the scrubber arrives with the secrets module
        return value
    return scrub(value)
