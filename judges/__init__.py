"""judgelab: meta-evaluation of LLM judges for RAG answers (GroUSE-style unit tests, RAG metrics, agreement).

The public API is imported lazily, so `import judges` costs nothing until a name is used:

    from judges import load_tests, run_unit_tests
    run = run_unit_tests(load_tests(split="train", limit=2), out="results/runs/api-example")
    print(run.summary.total_pass_rate); run.to_pandas()
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from judges.version import __version__

_EXPORTS = {
    "load_tests": "judges.api",
    "load_samples": "judges.api",
    "run_unit_tests": "judges.api",
    "grade_samples": "judges.api",
    "run_metrics": "judges.api",
    "Run": "judges.runs.run",
    "JudgeConfig": "judges.config.judge",
    "Sample": "judges.types",
    "UnitTest": "judges.types",
    "Verdict": "judges.types",
    "JudgelabError": "judges.errors",
}
__all__ = [
    "JudgeConfig",
    "JudgelabError",
    "Run",
    "Sample",
    "UnitTest",
    "Verdict",
    "__version__",
    "grade_samples",
    "load_samples",
    "load_tests",
    "run_metrics",
    "run_unit_tests",
]

if TYPE_CHECKING:
    from judges.api import grade_samples, load_samples, load_tests, run_metrics, run_unit_tests
    from judges.config.judge import JudgeConfig
    from judges.errors import JudgelabError
    from judges.runs.run import Run
    from judges.types import Sample, UnitTest, Verdict


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        value = getattr(importlib.import_module(_EXPORTS[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'judges' has no attribute {name!r}")
