"""A run's samples are not held: a sample file is checked in one pass and read again as the run reaches each
sample (a line and an offset kept per sample), unless the file is small (its records, parsed by the check, kept); the run takes its items as slots free; an executor settles the run a
window of items at a time, with the records of a local run."""

from __future__ import annotations

import json
import os

import pytest
from conftest import ROOT, reply, scripted_judge
from stub import comparable, read_records, stats, stub_server

from judges.api import grade_samples
from judges.calls.runtime import RuntimeSettings
from judges.calls.scripted import by_metric
from judges.errors import InputError, InputProblems
from judges.files import record_file
from judges.grading.grade_task import GradeTask
from judges.judging import samples as samples_module
from judges.judging.samples import load_samples
from judges.runs.run_writer import FolderRecorder
from judges.runs.service import run_task

TESTS = ROOT / "unit_tests" / "test.jsonl"


def write_samples(path, n, blank_every=0):
    source = [json.loads(line) for line in TESTS.read_text(encoding="utf-8").splitlines() if line.strip()]
    with path.open("w", encoding="utf-8") as out:
        for k in range(n):
            row = dict(source[k % len(source)], id=f"s{k}", input=f"question {k}: é {source[k % len(source)]['input']}")
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
            if blank_every and k % blank_every == 0:
                out.write("\n   \n")
    return path


def test_a_sample_file_reads_each_sample_from_disk_by_position_and_in_order(tmp_path, monkeypatch):
    monkeypatch.setattr(record_file, "KEPT_BYTES", 0)  # every file is a large one: nothing kept
    path = write_samples(tmp_path / "s.jsonl", 25, blank_every=4)  # blank lines between records: offsets hold
    samples = load_samples(path)
    assert len(samples) == 25
    listed = list(samples)
    assert [sample_id for sample_id, _ in listed] == [f"s{k}" for k in range(25)]
    assert [samples[k] for k in range(25)] == listed and samples[-1] == listed[-1] and samples[3:6] == listed[3:6]
    assert samples[7][1].input.startswith("question 7: é")
    assert samples[7] is not samples[7] and samples[7] == samples[7]  # parsed anew on each read: nothing held
    assert [i for i, _ in load_samples(path, 3)] == ["s0", "s1", "s2"]
    with pytest.raises(IndexError):
        samples[25]


def test_a_small_sample_file_is_parsed_once_and_a_large_one_as_each_sample_is_reached(tmp_path, monkeypatch):
    path = write_samples(tmp_path / "s.jsonl", 6)
    parsed = []
    real = samples_module.parse_sample

    def counted(record, **where):
        parsed.append(where["line"])
        return real(record, **where)

    monkeypatch.setattr(samples_module, "parse_sample", counted)
    small = load_samples(path, 4)
    assert list(small) == list(small) and small[3] is small[3] and [i for i, _ in small] == ["s0", "s1", "s2", "s3"]
    assert parsed == [1, 2, 3, 4, 5, 6]  # the check's one pass over the file; nothing parsed again
    monkeypatch.setattr(record_file, "KEPT_BYTES", path.stat().st_size // 2)  # the first 4 records pass it
    parsed.clear()
    large = load_samples(path, 4)
    assert list(large) == list(small) and large[3] is not large[3]
    assert parsed == [1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 4, 4]  # the check, the pass over the first 4, two reads of one


def test_a_sample_file_changed_after_its_check_is_refused_and_every_problem_is_named_at_once(tmp_path):
    path = write_samples(tmp_path / "s.jsonl", 4)
    samples = load_samples(path)
    with path.open("a", encoding="utf-8") as out:
        out.write('{"id": "late"}\n')
    with pytest.raises(InputError, match="changed after it was checked"):
        list(samples)
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[1] = json.dumps({**json.loads(lines[1]), "id": "s0"})  # a duplicate id
    path.write_text("\n".join(lines) + "\nnot json\n", encoding="utf-8")
    with pytest.raises(InputProblems) as found:
        load_samples(path)
    text = "\n".join(found.value.problems)
    assert f"{path}:2:id: duplicate id 's0' (first on line 1)" in text
    assert f"{path}:5:actual_output: missing field" in text and f"{path}:6:" in text


class CountingSamples:
    """A test double for a sample file: counts the samples taken from it so far."""

    def __init__(self, pairs):
        self.pairs, self.taken = pairs, 0

    def __len__(self):
        return len(self.pairs)

    def __getitem__(self, index):
        return self.pairs[index]

    def __iter__(self):
        for pair in self.pairs:
            self.taken += 1
            yield pair


def test_a_run_takes_its_samples_as_slots_free_not_all_at_once(tmp_path):
    samples = CountingSamples(list(load_samples(write_samples(tmp_path / "s.jsonl", 60))))
    taken_at_calls = []

    script = by_metric({m: reply(m, g) for m, g in [("answer_relevancy", 5), ("completeness", 5), ("faithfulness", 1)]})

    def answer(request):
        taken_at_calls.append(samples.taken)
        return script(request)

    settings = RuntimeSettings(concurrency=2, backoff_initial_s=0.0, backoff_max_s=0.0)
    judge, _ = scripted_judge(answer, settings=settings)  # 4 items per slot: 8 samples in flight at most
    run = run_task(GradeTask(samples, judge), judge.runtime, FolderRecorder(tmp_path / "run"), {"judge": "scripted"})
    # one pass to check that the templates render for every sample (before any call), then the run's own pass
    assert run.stop_reason is None and run.summary.n_items == 60 and samples.taken == 2 * 60
    run_pass = [taken - 60 for taken in taken_at_calls]
    assert run_pass[0] <= 8 + 1  # the first call: the 8 in flight and the next, waiting for a slot
    # then more as slots free: at least once per 8 samples finished (the 60 taken in 7 steps or more)
    assert run_pass == sorted(run_pass) and len(set(run_pass)) >= 60 // 8


def test_an_executor_settles_the_run_a_window_at_a_time_with_the_records_of_a_local_run(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    monkeypatch.setenv("JUDGELAB_BATCH_POLL_S", "0.1")
    path = write_samples(tmp_path / "s.jsonl", 12)
    with stub_server(latency_ms=1, batch_delay_s=0.1) as base:

        def grade(name, **options):
            return grade_samples(
                load_samples(path),
                "openai/gpt-4o-mini",
                api_base=base,
                cache=str(tmp_path / f"{name}.sqlite"),
                out=tmp_path / name,
                **options,
            )

        local = grade("local")
        online = stats(base, reset=True)["requests"]
        batched = grade("batch", executor="batch", executor_window=5)
        counts = stats(base)
    assert local.stop_reason is None and batched.stop_reason is None
    assert comparable(read_records(tmp_path / "batch")) == comparable(read_records(tmp_path / "local"))
    assert counts["batch_lines"] == online and "requests" not in counts
    assert counts["batches_created"] == 3 * 2  # three windows (5, 5, 2 samples), two rounds of steps each
    assert batched.usage.calls == local.usage.calls and batched.usage.cached_calls == 0
    assert os.listdir(tmp_path / "batch.sqlite.batches") == ["batches.json"]
