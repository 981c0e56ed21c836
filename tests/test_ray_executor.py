"""--executor ray on a local Ray (started once for the module): records equal to a local run's on the same stub
replies; an endpoint no worker can use stops the run as it stops a local one; the offline judge on two actors."""

from __future__ import annotations

import importlib
import os

import pytest
from conftest import ROOT
from stub import comparable, read_records, stats, stub_server

from judges.api import grade_samples, load_samples

# the ray extra: skipped where it is not installed, but CI installs it and must run these
ray = importlib.import_module("ray") if os.environ.get("CI") else pytest.importorskip("ray")
TESTS = str(ROOT / "unit_tests" / "test.jsonl")


@pytest.fixture(scope="module")
def local_ray():
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        runtime_env={"env_vars": {"PYTHONPATH": str(ROOT), "OPENAI_API_KEY": "sk-test-not-a-real-key"}},
    )
    yield
    ray.shutdown()


def grade(base: str, tmp, name: str, limit: int = 12, **options):
    return grade_samples(
        load_samples(TESTS, limit),
        "openai/stub",
        api_base=base,
        cache=str(tmp / f"{name}.sqlite"),
        out=tmp / name,
        **options,
    )


def test_ray_records_equal_local_records(local_ray, tmp_path):
    with stub_server(latency_ms=1) as base:
        grade(base, tmp_path, "local")
        local_calls = stats(base, reset=True)["requests"]
        run = grade(base, tmp_path, "ray", executor="ray", ray_workers=2)
        assert stats(base)["requests"] == local_calls  # each call made once, by the workers
    assert run.stop_reason is None and run.usage.cached_calls == 0 and run.usage.calls == local_calls
    assert comparable(read_records(tmp_path / "ray")) == comparable(read_records(tmp_path / "local"))
    assert ray.is_initialized()  # a Ray the caller started is left running


def test_ray_in_windows_of_five_samples_gives_the_local_records(local_ray, tmp_path, capfd):
    with stub_server(latency_ms=1) as base:
        grade(base, tmp_path, "local")
        local_calls = stats(base, reset=True)["requests"]
        run = grade(base, tmp_path, "windows", executor="ray", ray_workers=2, executor_window=5)
        assert stats(base)["requests"] == local_calls
    assert run.stop_reason is None and run.usage.calls == local_calls and run.usage.cached_calls == 0
    assert comparable(read_records(tmp_path / "windows")) == comparable(read_records(tmp_path / "local"))
    err = capfd.readouterr().err
    assert all(f"ray: items {span}: round 1:" in err for span in ("1-5", "6-10", "11-12"))


def test_an_endpoint_that_fails_every_worker_call_stops_the_run_as_a_local_run_does(local_ray, tmp_path):
    with stub_server(latency_ms=1, status=401) as base:  # a refused key: no call can succeed
        local = grade(base, tmp_path, "local", limit=2)
        run = grade(base, tmp_path, "failing", limit=2, executor="ray")
    assert local.stop_reason == run.stop_reason == "endpoint_unusable"
    assert "HTTP 401" in str(run.stop_message) and run.exit_code == local.exit_code == 3
    assert run.records == []


@pytest.mark.slow
def test_the_offline_judge_on_two_ray_actors_gives_the_local_records(local_ray, tmp_path):
    samples = load_samples(TESTS, 3)
    local = grade_samples(samples, "local/smollm2-135m", cache=str(tmp_path / "l.sqlite"), out=tmp_path / "local")
    actors = grade_samples(
        samples,
        "local/smollm2-135m",
        cache=str(tmp_path / "r.sqlite"),
        out=tmp_path / "ray",
        executor="ray",
        ray_workers=2,
    )
    assert local.stop_reason is None and actors.stop_reason is None
    # llama.cpp's free text may differ between processes (threads, batching) where the grade does not: compare what
    # the runs decide, each item's state and grade per metric, not the justifications
    assert decided(tmp_path / "ray") == decided(tmp_path / "local")
    assert len(decided(tmp_path / "local")) == 3 * 4


def decided(folder):
    """Each record's (id, draw, metric, state, grade, failure kind), in run order: what a run decides."""
    return [
        (r.id, r.draw, name, m.verdict.state, m.verdict.grade, m.verdict.failure_kind)
        for r in comparable(read_records(folder))
        for name, m in sorted(r.metrics.items())
    ]
