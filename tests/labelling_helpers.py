"""Run folders of scripted judges on a small samples file, for the labelling tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conftest import reply, scripted_judge, write_jsonl


def samples_file(path: Path, n: int = 40, flagged: set[int] | None = None) -> Path:
    """`n` samples s00.. ; those in `flagged` have an answer marked FLAGGED (a scripted judge can react to it)."""
    flagged = flagged or set()
    return write_jsonl(
        path,
        [
            {
                "id": f"s{i:02d}",
                "input": f"What is fact {i}?",
                "references": [f"Fact {i} is {i * 3}.", "An unrelated line."],
                "expected_output": f"Fact {i} is {i * 3} [1].",
                "actual_output": f"Fact {i} is {i * 3 + (1 if i in flagged else 0)} [1]."
                + (" FLAGGED" if i in flagged else ""),
            }
            for i in range(n)
        ],
    )


def graded_run(out: Path, data: Path, name: str, grade_of: Any, metric: str = "faithfulness") -> Path:
    """A `grade` run folder of a scripted judge: `grade_of(prompt)` gives the grade of each sample."""
    from judges.api import load_samples
    from judges.grading.grade_task import GradeTask
    from judges.runs.run_writer import FolderRecorder
    from judges.runs.service import run_task

    judge, _ = scripted_judge(lambda request: reply(metric, grade_of(request.messages[-1]["content"])))
    config = {"judge": name, "data": str(data), "metrics": [metric]}
    run_task(GradeTask(load_samples(data), judge, [metric]), judge.runtime, FolderRecorder(out), config)
    return out
