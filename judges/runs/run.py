"""Run: a finished (or stopped) run as one typed value, and its folder's data (results.jsonl and run.json)."""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from judges.errors import BudgetExhausted, CacheBroken, EndpointUnusable, InputError, JudgelabError, TooManyFailures
from judges.files.checked import read_json_file
from judges.files.jsonl import LineProblem, max_record_bytes, numbered_lines, parse_line
from judges.records import ItemRecord, Summary
from judges.records.header import StopReason, Timing, run_kind, stop_reason
from judges.records.raw_checks import check_meta, check_record
from judges.records.usage import RunUsage, call_usage
from judges.runs.run_config import RunConfig
from judges.secrets import scrub

if TYPE_CHECKING:
    import pandas as pd

FORMAT = 2  # run.json's format; folders from judgelab 0.1 (report.json / summary.json) are refused with a hint
# "degraded": the run finished but more verdicts failed than --fail-on-error allows (TooManyFailures)
STOP_EXIT_CODES: dict[StopReason, int] = {
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
    """A run of any kind (its name registered under `judgelab.kinds`): its config (judge, prompts with hashes, data,
    judgelab and model versions), one record per item, usage, the stop reason and the summary.

    The records are `held` in memory when the run has no folder; a run with a folder reads them from its
    results.jsonl when asked: all at once (`records`, in item order) or one by one (`iter_records`, as written)."""

    kind: str
    config: RunConfig
    held: list[ItemRecord] | None
    summary: Summary
    usage: RunUsage | None = field(default_factory=RunUsage)  # as the runtime counted; None: made of others' records
    stop_reason: StopReason | None = None
    stop_message: str | None = None
    timing: Timing = field(default_factory=Timing)
    folder: Path | None = None

    @property
    def records(self) -> list[ItemRecord]:
        """Every record, in item order (draw, then order); read from the folder on first use."""
        if self.held is None:
            self.held = sorted(self.iter_records(), key=lambda r: (r.draw, r.order))
        return self.held

    def iter_records(self) -> Iterator[ItemRecord]:
        """The records one at a time, without holding them all: from memory, or streamed from results.jsonl."""
        if self.held is not None:
            yield from self.held
            return
        results = self.folder / "results.jsonl" if self.folder is not None else None
        if results is not None and results.is_file():
            yield from read_records(results)

    @property
    def exit_code(self) -> int:
        """0 when it ran to the end; 4 stopped at the budget; 3 the endpoint was unusable; 5 too many failed
        verdicts; 2 another error (a cache that broke mid-run among them); 130 interrupted; 70 a crash."""
        return STOP_EXIT_CODES[self.stop_reason] if self.stop_reason is not None else 0

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
        judge = self.config.judge if "judge" in self.config.keys else "?"
        prompts = self.config.prompts_name
        return f"{judge} / {prompts}" if prompts else str(judge)

    @property
    def split(self) -> str:
        """The split the run graded (a suite's train or test), else its data file's stem."""
        data = self.config.data if "data" in self.config.keys else "?"
        return str(self.config.split or Path(str(data)).stem)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "kind": str(self.kind),
            "config": self.config.to_json(),
            "timing": self.timing.to_json(),
            "usage": self.usage.to_json() if self.usage is not None else {},
            "stop_reason": self.stop_reason,
            "stop_message": self.stop_message,
            "summary": self.summary.to_json(),
        }

    def save(self, folder: str | Path) -> None:
        """Write run.json next to results.jsonl (which the run service streamed); the pages drawn from them are
        written by `judges.runs.folder.save_run`."""
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        self.folder = folder
        (folder / "run.json").write_text(
            json.dumps(_scrub(self.to_json()), indent=2, ensure_ascii=False), encoding="utf-8"
        )

    @classmethod
    def load(cls, folder: str | Path) -> Run:
        """A run folder written by any command; a folder from an older judgelab is a one-line error."""
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

        meta = read_json_file(meta_path)
        if not isinstance(meta, dict):
            raise InputError("run.json must hold a JSON object", path=str(meta_path))
        if meta.get("format") != FORMAT:
            raise InputError(
                f"run.json has format {meta.get('format')!r}; this judgelab reads format {FORMAT}", path=str(meta_path)
            )
        check_meta(meta, str(meta_path))
        return cls(
            run_kind(meta["kind"]),
            RunConfig.from_json(meta.get("config", {}), str(meta_path)),
            None,
            Summary.from_json(meta.get("summary"), meta["kind"]),
            # the runtime's counter; a folder whose usage counts no failures (an older one) has its records' totals
            RunUsage.from_json(meta["usage"]) if "failures" in (meta.get("usage") or {}) else None,
            stop_reason(meta.get("stop_reason")),
            meta.get("stop_message"),
            Timing.from_json(meta.get("timing")),
            folder,
        )

    def to_pandas(self) -> pd.DataFrame:
        """One row per item x metric: id, draw, metric, state, grade, failure kind, message, and for unit tests the
        test type, condition and outcome; plus the item's calls, tokens and cost for that metric."""
        import pandas as pd

        rows = []
        for record in self.records:
            for metric, entry in record.metrics.items():
                verdict = entry.verdict
                usage = call_usage(entry.calls)
                rows.append(
                    {
                        "id": record.id,
                        "draw": record.draw,
                        "test_type": record.test_type,
                        "metric": metric,
                        "state": verdict.state.value,
                        "grade": verdict.grade,
                        "failure_kind": verdict.failure_kind.value if verdict.failure_kind else None,
                        "message": verdict.message,
                        "condition": entry.condition,
                        "outcome": entry.outcome.value if entry.outcome else None,
                        "applicable": entry.applicable,
                        "calls": usage.calls,
                        "cached_calls": usage.cached_calls,
                        "cost": usage.cost,
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


@functools.lru_cache(maxsize=64)
def warn_torn(path: str, line: int) -> None:
    """One warning line per torn results file, however often the folder is read."""
    print(
        f"judgelab: warning: {path}:{line}: the last record was cut off mid-write (the run was stopped while "
        "writing it); the complete records before it are read",
        file=sys.stderr,
    )


def _scrub(value: Any) -> Any:
    """Secrets never reach run.json: credential-like keys and known secret values are masked."""
    return scrub(value)


def read_records(path: Path) -> Iterator[ItemRecord]:
    """The records of a results.jsonl, one by one; a line that is not a record is an error naming file and line,
    except a torn last line (no newline: the run was killed while writing it), skipped with a warning."""
    limit = max_record_bytes()
    for number, raw in numbered_lines(path):
        try:
            row = parse_line(raw, limit)
        except LineProblem as problem:
            if not raw.endswith(b"\n"):  # only the last line lacks its newline: a record cut mid-write
                warn_torn(str(path), number)
                return
            raise InputError(str(problem), path=str(path), line=number, field=problem.field) from None
        check_record(row, str(path), number)
        try:
            yield ItemRecord.from_json(row)
        except (KeyError, TypeError, ValueError) as err:
            raise InputError(f"not a run record ({type(err).__name__}: {err})", path=str(path), line=number) from None
