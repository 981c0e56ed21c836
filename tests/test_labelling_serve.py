"""`judgelab label serve`: a blind labelling page, driven in headless Chromium: label, reload, resume, back."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest
from cdp_async import CHROMIUM, browser
from labelling_helpers import graded_run, samples_file

from judges.labelling.graded import read_pool
from judges.labelling.label_server import make_server
from judges.labelling.queue import queue_items, read_queue, write_queue
from judges.labelling.scales import scale_for
from judges.labelling.selection import draw
from judges.labelling.session import LabellingSession
from judges.labelling.shown_rubric import rubric_for
from judges.labels.label_log import read_events, read_label_log
from judges.labels.label_sets import open_labels

# what only a judge or the selection knows: none of it may reach the page
JUDGE_OUTPUT = ("because", "disagreement", "stratum", "inclusion", "weight", "judge-a", "judge-b", "score [")


def make_queue(tmp_path: Path) -> Path:
    data = samples_file(tmp_path / "mine.jsonl", 12, {1, 4, 7})
    runs = [
        graded_run(tmp_path / "a", data, "judge-a", lambda prompt: 1),
        graded_run(tmp_path / "b", data, "judge-b", lambda prompt: 0 if "FLAGGED" in prompt else 1),
    ]
    pool = read_pool(runs)
    return write_queue(tmp_path / "queue.jsonl", queue_items(pool, draw(pool, 6, seed=0), [str(r) for r in runs]))


class Serving:
    """The page served in a thread, as `judgelab label serve` does; stop() is a crash (nothing is flushed at exit)."""

    def __init__(self, queue: Path, out: Path, annotator: str = "ann") -> None:
        items = read_queue(queue)
        self.session = LabellingSession(
            items, "faithfulness", scale_for("faithfulness"), rubric_for("faithfulness"), annotator, out
        )
        self.server = make_server(self.session)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def test_session_resumes_after_the_last_answer_and_a_skip_never_hides_a_label(tmp_path):
    queue = make_queue(tmp_path)
    serving = Serving(queue, tmp_path / "labels.jsonl")
    serving.stop()
    session = serving.session
    assert session.resume_position() == 0
    session.record(0, "label", 1)
    session.record(1, "skip")
    assert session.resume_position() == 2 and session.next_position(0) == 2
    session.record(1, "label", 0)
    session.record(1, "skip")  # a later skip keeps the label
    assert session.answers()[session.items[1].id]["label"] == 0
    with pytest.raises(ValueError, match="not on the scale"):
        session.record(2, "label", 3)
    labels = read_label_log(tmp_path / "labels.jsonl")
    assert [(i.id, i.label) for i in labels.items] == [(session.items[0].id, 1.0), (session.items[1].id, 0.0)]


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (.ci/run installs it)")
def test_label_three_items_reload_resume_and_go_back_in_headless_chromium(tmp_path):
    queue = make_queue(tmp_path)
    out = tmp_path / "labels.jsonl"
    items = read_queue(queue)
    serving = Serving(queue, out)
    seen: list[str] = []

    async def position(page, number: int) -> None:
        await page.wait_for(
            f"document.getElementById('position') && document.getElementById('position').textContent === '{number}'"
        )
        seen.append(await page.text())

    async def scenario() -> None:
        nonlocal serving
        async with browser(tmp_path / "profile") as page:
            await page.goto(serving.url + "/")
            await position(page, 1)
            text = seen[-1]
            assert items[0].sample.input in text and items[0].sample.actual_output in text
            assert "Is every statement of the answer backed by the reference it cites?" in text  # the rubric
            await page.click("#label-1")  # a mouse click on the grade 1
            await position(page, 2)
            await page.press("0")  # a key press: grade 0
            await position(page, 3)
            await page.click("#note")
            await page.send("Input.insertText", text="only says nothing answers")
            await page.press("n")  # typed inside the note: not a shortcut
            assert await page.evaluate("document.getElementById('note').value") == "only says nothing answersn"
            await page.click("#label-null")
            await position(page, 4)
            assert len(read_events(out)) == 3  # each answer is on disk as soon as it is given

            await page.send("Page.reload")  # reload: the same item
            await position(page, 4)
            serving.stop()  # the server dies; a new one on the same file resumes where the annotator stopped
            serving = Serving(queue, out)
            await page.goto(serving.url + "/")
            await position(page, 4)

            await page.press("b")  # back to the third item: its null and note are shown
            await position(page, 3)
            assert "Your answer so far: null" in seen[-1]
            assert await page.evaluate("document.getElementById('note').value") == "only says nothing answersn"
            await page.press("1")  # change it to 1; on to the first unanswered item
            await position(page, 4)
            await page.press("s")  # skip
            await position(page, 5)

    try:
        asyncio.run(scenario())
    finally:
        serving.stop()
    events = read_events(out)
    assert [(r["id"], r["labelling"]["event"], r["label"]) for _, r in events] == [
        (items[0].id, "label", 1),
        (items[1].id, "label", 0),
        (items[2].id, "null", None),
        (items[2].id, "label", 1),
        (items[3].id, "skip", None),
    ]
    assert all(r["annotator"] == "ann" for _, r in events)
    assert events[2][1]["extra"]["note"] == "only says nothing answersn"
    assert events[0][1]["extra"]["weight"] == items[0].selection["weight"]
    labels = open_labels(str(out))  # the labels file is a labelled set: the last label of each item, no skips
    assert [(i.id, i.label, i.annotator) for i in labels.items] == [
        (items[0].id, 1.0, "ann"),
        (items[1].id, 0.0, "ann"),
        (items[2].id, 1.0, "ann"),
    ]
    for text in seen:
        assert not [word for word in JUDGE_OUTPUT if word in text.lower()], text
