"""The order a GroUSE run's calls go out in: against a server that answers the calls in flight together, in rounds,
a run of any size takes the fewest rounds its pipeline allows (the last samples' first calls are not left behind
earlier samples' follow-ups, which cost a whole extra round at the end: issue 29's CLI runs at C = 128)."""

import asyncio
import math

import pytest
from conftest import record, reply

from judges.calls.backend import Completion, CompletionRequest
from judges.calls.cache import CacheMode, ReplyCache
from judges.calls.model_spec import JudgeModel
from judges.calls.runtime import CallRuntime, RuntimeSettings
from judges.judging.grouse_judge import GroundedQAJudge
from judges.judging.prompts import load_prompt_set
from judges.runs.service import execute
from judges.suite.loading import parse_unit_test
from judges.suite.unit_test_task import UnitTestTask

GRADES = {"answer_relevancy": 5, "completeness": 5, "faithfulness": 1}  # relevancy graded: faithfulness follows


class RoundServer:
    """A test double of a server with a fixed latency: the calls in flight are answered together once no other call
    can arrive (the event loop has settled), and that is one round."""

    def __init__(self) -> None:
        self.waiting: list[asyncio.Future[None]] = []
        self.rounds = 0

    async def complete(self, request: CompletionRequest) -> Completion:
        answered = asyncio.get_running_loop().create_future()
        self.waiting.append(answered)
        await answered
        return Completion(reply(str(request.metric), GRADES[str(request.metric)]))

    async def serve(self, run: asyncio.Future) -> None:
        while not run.done():
            for _ in range(50):  # every call the last replies lead to is sent by then
                await asyncio.sleep(0)
            if self.waiting:
                batch, self.waiting = self.waiting, []
                self.rounds += 1
                for answered in batch:
                    answered.set_result(None)


def rounds_taken(samples: int, slots: int) -> int:
    tests = [
        parse_unit_test(record(id=f"t{i}", input=f"Question {i}?"), path="t.jsonl", line=i + 1, default_id=f"t{i}")
        for i in range(samples)
    ]
    server = RoundServer()
    runtime = CallRuntime(server, ReplyCache(":memory:", CacheMode.OFF), RuntimeSettings(concurrency=slots))
    judge = GroundedQAJudge(runtime, load_prompt_set("default"), JudgeModel("stub", "openai/stub"), {})

    async def main() -> None:
        run = asyncio.ensure_future(execute(UnitTestTask(tests, judge), runtime, None))
        await server.serve(run)
        await run

    asyncio.run(main())
    return server.rounds


@pytest.mark.parametrize("slots", [2, 3, 4, 8])
def test_a_run_takes_the_fewest_rounds_its_pipeline_allows(slots):
    for samples in range(1, 25):
        # three calls a sample, `slots` a round; a follow-up comes a round after the first calls of its sample
        fewest = max(math.ceil(3 * samples / slots), math.ceil(2 * samples / slots) + 1)
        assert rounds_taken(samples, slots) == fewest, samples
