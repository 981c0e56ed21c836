"""Shared fixtures: sample records, a unit-test file writer, scripted judges, and a user cache folder per session."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from judges.calls.cache import CacheMode, ReplyCache
from judges.calls.model_spec import JudgeModel
from judges.calls.runtime import CallRuntime, RuntimeSettings
from judges.calls.scripted import ScriptedBackend
from judges.judging.grouse_judge import GroundedQAJudge
from judges.judging.prompts import load_prompt_set
from judges.runs.run_writer import FolderRecorder

ROOT = Path(__file__).resolve().parent.parent
# hand-written sets in the shared formats (tests/miniature_sets.py), written here once per session, for any clone
MINI_SHARED = Path(tempfile.mkdtemp(prefix="judgelab-miniature-shared-"))
SHARED_ABSENT = "shared labelled datasets absent (set JUDGELAB_SHARED, place ../shared beside the project, or `judgelab data fetch`)"


def hang_guard(seconds: float = 600.0) -> float:
    """A hang guard, never a budget: `seconds` (a generous wait on a quiet machine) times the load per core when the
    machine is busier than its cores, so a slow run on a shared machine still ends on its own."""
    cores = os.cpu_count() or 1
    return seconds * max(1.0, os.getloadavg()[0] / cores)


def stop(process: subprocess.Popen[Any], signum: int = signal.SIGTERM, grace: float = 60.0) -> int | None:
    """End a server a test started: `signum`, then a kill when it has not ended within the (load-scaled) `grace`;
    its exit code (None when it had to be killed, which fails the test that asserts the code)."""
    if process.poll() is None:
        process.send_signal(signum)
    try:
        return process.wait(timeout=hang_guard(grace))
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        return None


def record(**overrides: Any) -> dict[str, Any]:
    base = {
        "id": "t1",
        "input": "How long is statutory maternity leave?",
        "references": ["Statutory maternity leave lasts 52 weeks.", "Employees may return to the same job."],
        "expected_output": "It lasts 52 weeks [1].",
        "actual_output": "It lasts 52 weeks [1].",
        "conditions": {
            "answer_relevancy_condition": "==5",
            "completeness_condition": "==5",
            "faithfulness_condition": "==1",
            "usefulness_condition": "==None",
        },
        "metadata": {"test_type": "Highest marks 1", "goal": "a perfect answer"},
    }
    base.update(overrides)
    return base


def write_jsonl(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def reply(metric: str, grade: Any, **flags: Any) -> str:
    """A well-formed two-answer reply giving `grade` to both answers."""
    field = {
        "answer_relevancy": "answer_relevancy",
        "completeness": "completeness",
        "faithfulness": "faithfulness",
        "usefulness": "usefulness",
    }[metric]
    entry = {**flags, f"{metric}_justification": "because", field: grade}
    return json.dumps({"answer_1": entry, "answer_2": entry})


def scripted_judge(
    script: Any, *, json_schema: bool = False, cache: ReplyCache | None = None, settings: RuntimeSettings | None = None
) -> tuple[GroundedQAJudge, ScriptedBackend]:
    backend = ScriptedBackend(script)
    runtime = CallRuntime(
        backend,
        cache or ReplyCache(":memory:", CacheMode.OFF),
        settings or RuntimeSettings(backoff_initial_s=0.0, backoff_max_s=0.0),
    )
    model = JudgeModel("scripted", "scripted/model", json_schema=json_schema)
    return GroundedQAJudge(runtime, load_prompt_set("default"), model, {"temperature": 0}), backend


def serve_double(monkeypatch: pytest.MonkeyPatch, double: ScriptedBackend) -> ScriptedBackend:
    """Every run the test opens answers through `double`, behind the backend interface (no server, no network)."""

    @contextlib.contextmanager
    def open_backend(model: Any, **_: Any) -> Iterator[ScriptedBackend]:
        yield double

    monkeypatch.setattr("judges.judging.factory.open_backend", open_backend)
    return double


def run_tests(tests: list[Any], judge: GroundedQAJudge, out: Path | None = None, draws: int = 1) -> Any:
    """Unit tests through the run service with a (scripted) judge; returns the Run (folder written under `out`)."""
    from judges.runs.service import run_task
    from judges.suite.unit_test_task import UnitTestTask

    return run_task(
        UnitTestTask(tests, judge, draws),
        judge.runtime,
        FolderRecorder(out) if out else None,
        {"judge": judge.model.name},
    )


@pytest.fixture(scope="session", autouse=True)
def miniature_shared_sets():
    """The miniature labelled sets laid out under MINI_SHARED before any test reads them; removed after."""
    import shutil

    from miniature_sets import write_miniature_sets

    write_miniature_sets(MINI_SHARED)
    yield
    shutil.rmtree(MINI_SHARED, ignore_errors=True)


@pytest.fixture(scope="session", autouse=True)
def user_cache_folder(tmp_path_factory):
    """The offline judge's re-encoded weights go to a folder of this session, not to the user's ~/.cache."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("user-cache")))
        yield


def find_shared_datasets() -> Path | None:
    """The shared labelled sets: $JUDGELAB_SHARED (the shared folder or its datasets/), then ../shared/datasets, then
    the sets `judgelab data fetch` put in the user's data cache (a clone with no ../shared runs these tests after
    fetching them)."""
    import os

    from judges.labels.shared import data_home

    override = os.environ.get("JUDGELAB_SHARED")
    candidates = [Path(override) / "datasets", Path(override)] if override else [ROOT.parent / "shared" / "datasets"]
    candidates.append(data_home())
    return next((c for c in candidates if (c / "ragchecker").is_dir() and (c / "begin").is_dir()), None)


@pytest.fixture(scope="session")
def shared_datasets() -> Path:
    """The real shared sets, or a skip with one named reason; under CI (which has them) their absence fails."""
    import os

    found = find_shared_datasets()
    if found is None or found.resolve().is_relative_to(MINI_SHARED.resolve()):
        if os.environ.get("CI"):
            pytest.fail(f"{SHARED_ABSENT}; CI must run every test", pytrace=False)
        pytest.skip(SHARED_ABSENT)
    return found


@pytest.fixture
def mini_shared(monkeypatch) -> Path:
    """The miniature sets (tests/miniature_sets.py), read through the same loaders as the real ones."""
    monkeypatch.setenv("JUDGELAB_SHARED", str(MINI_SHARED))
    return MINI_SHARED / "datasets"


@pytest.fixture
def make_record():
    return record


def compact(markdown: str) -> str:
    """Markdown with table cells' padding removed, so a test can look for a row as `| a | b |`."""
    import re

    return re.sub(r" *\| *", " | ", markdown)
