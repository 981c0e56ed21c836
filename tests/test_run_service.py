"""The run service's own costs: the heap kept from the collector during a run, and a short Execution repr."""

import asyncio
import gc

from conftest import record, reply, scripted_judge

from judges.runs.heap import frozen_heap
from judges.runs.run_writer import FolderRecorder
from judges.runs.service import Execution, execute
from judges.suite.loading import parse_unit_test
from judges.suite.unit_test_task import UnitTestTask


def test_the_heap_is_frozen_for_the_block_and_released_after_it():
    assert gc.get_freeze_count() == 0
    kept = [object() for _ in range(10)]
    with frozen_heap():
        assert gc.get_freeze_count() > 0
    assert gc.get_freeze_count() == 0 and kept


def test_a_heap_the_process_froze_itself_stays_frozen():
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        made_after = [[] for _ in range(1000)]  # tracked, and not frozen by the process
        with frozen_heap():
            inside = gc.get_freeze_count()
        after = gc.get_freeze_count()
        # A frozen object that dies leaves the count (it only falls on its own): a freeze in the block would have
        # added the 1,000 lists, an unfreeze after it would have emptied the count.
        assert inside <= frozen and 0 < after <= frozen and made_after
    finally:
        gc.unfreeze()


def test_a_run_freezes_the_heap_while_it_runs_and_releases_it_after(tmp_path):
    seen = []

    def script(request):
        seen.append(gc.get_freeze_count() > 0)
        return reply(request.metric, 5 if request.metric in ("answer_relevancy", "completeness") else 1)

    judge, _ = scripted_judge(script)
    task = UnitTestTask([parse_unit_test(record(), path="t.jsonl", line=1, default_id="t1")], judge)
    done = asyncio.run(execute(task, judge.runtime, FolderRecorder(tmp_path)))
    assert done.finished == 1 and done.records == [] and seen and all(seen)  # streamed, not held
    assert gc.get_freeze_count() == 0


def test_an_execution_repr_names_its_size_not_its_records():
    done = Execution(records=[{"id": str(i), "text": "x" * 1000} for i in range(100)], finished=100)
    assert repr(done) == "Execution(100 records, stop=None)"


class RecordingWriter:
    """A test double of the run writer: what the loop handed it, in order."""

    def __init__(self) -> None:
        self.folder = None
        self.calls: list[str] = []

    def open(self) -> None:
        self.calls.append("open")

    def item(self, record) -> None:
        self.calls.append(f"item {record.id}")

    def flush(self) -> None:
        self.calls.append("flush")

    def finish(self, run) -> None:
        self.calls.append("finish")


def test_the_loop_writes_only_through_its_writer(tmp_path, monkeypatch):
    judge, _ = scripted_judge(lambda request: reply(request.metric, 5))
    tests = [parse_unit_test(record(id=f"t{n}"), path="t.jsonl", line=n, default_id="") for n in (1, 2)]
    writer = RecordingWriter()
    monkeypatch.chdir(tmp_path)
    done = asyncio.run(execute(UnitTestTask(tests, judge), judge.runtime, writer))
    assert writer.calls == ["open", "item t1", "item t2", "flush"]
    assert done.finished == 2 and done.records == [] and list(tmp_path.iterdir()) == []  # no file of its own
