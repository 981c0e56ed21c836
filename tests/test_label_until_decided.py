"""`judgelab label serve --until-decided`: the certificate after each label is `validate --sequential`'s on the labels
file so far, the asking stops once it is decided, and the command exits as validate does (through the session, over
HTTP, and in headless Chromium)."""

from __future__ import annotations

import asyncio
import html
import json
import os
import shutil
import subprocess
import sys
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
from cdp_async import CHROMIUM, browser
from conftest import stop

from judges.cli.main import main
from judges.cli.until_decided_cmd import watch
from judges.labelling.label_server import LabelPages
from judges.labelling.queue import QueueItem, read_queue, write_queue
from judges.labelling.scales import scale_for
from judges.labelling.session import LabellingSession
from judges.types import Sample

ROOT = Path(__file__).resolve().parents[1]


def queue_and_judge(tmp_path: Path, n: int = 40, wrong: frozenset[int] = frozenset()) -> tuple[Path, Path]:
    """A queue of n items i0.. (the annotator will label item k with k % 2) and a 0/1 judge right on all but `wrong`."""
    items = [
        QueueItem(
            k,
            f"i{k}",
            "faithfulness",
            Sample(input=f"What is fact {k}?", references=(f"Fact {k}.",), actual_output=f"Answer {k}."),
        )
        for k in range(n)
    ]
    scores = [{"id": f"i{k}", "score": float((1 - k % 2) if k in wrong else k % 2)} for k in range(n)]
    judge = tmp_path / "judge.jsonl"
    judge.write_text("".join(json.dumps(s) + "\n" for s in scores))
    return write_queue(tmp_path / "queue.jsonl", items), judge


def serve_args(queue: Path, out: Path, judge: Path, *bars: str) -> list[str]:
    return ["label", "serve", str(queue), "--out", str(out), "--until-decided", "--predictions", str(judge), *bars]


def validated(tmp_path: Path, labels: Path, judge: Path, name: str, *bars: str) -> tuple[int, dict[str, object]]:
    """`validate --labels ... --sequential` on a copy of the labels file as it is now: its exit code and record."""
    copy = shutil.copy(labels, tmp_path / f"{name}.jsonl")
    out = tmp_path / f"validated-{name}"
    argv = ["validate", "--labels", str(copy), "--predictions", str(judge), "--metric", "faithfulness", *bars]
    code = main([*argv, "--sequential", "--out", str(out)])
    return code, json.loads((out / "certification.json").read_text())


def test_the_state_after_each_label_is_validate_sequential_on_the_file_so_far(tmp_path, capsys):
    queue, judge = queue_and_judge(tmp_path, wrong=frozenset({4}))  # the judge errs on one negative
    out, bars = tmp_path / "labels.jsonl", ("--min-recall", "0.6")
    session = LabellingSession(read_queue(queue), "faithfulness", scale_for("faithfulness"), "", "ann", out)
    args = main_args(queue, out, judge, *bars)
    pages = LabelPages(session, watch(args, "faithfulness"))
    assert pages.watch is not None and pages.watch.current is None and not pages.decided()
    assert "certificate: undecided: no labels yet" in pages.page(0)
    states = []
    position: int | None = 0
    while position is not None:
        pages.submit(position, {"choice": str(position % 2)})
        now = pages.watch.current
        assert now is not None
        code, record = validated(tmp_path, out, judge, f"after-{position + 1}", *bars)
        assert (now.state, now.decided_at, now.labels_seen) == (record["state"], record["decided_at"], position + 1)
        assert record["labels_seen"] == position + 1
        assert [c.to_dict() for c in now.checks] == record["checks"]
        states.append(now.state)
        position = pages.next_position(position)
        if position is not None:
            assert f"certificate: {html.escape(now.status())}" in pages.page(position)
    # 11 positives all right first certify sensitivity >= 0.6: (0.05 / 12) ** (1 / 11) = 0.608 (the 22nd label);
    # specificity, with one error, needs more negatives; the certificate waits for both and then stops the asking
    assert now.checks[0].decided_at == 22 and now.checks[1].decided_at == now.decided_at == now.labels_seen
    assert now.decided_at is not None and now.decided_at > 22
    assert states == ["undecided"] * (now.decided_at - 1) + ["certified"] and code == 0
    assert pages.resume_position() is None and pages.next_position(0) is None
    assert html.escape(now.status()) in pages.done_page() and "no more labels needed" in pages.done_page()
    told = [line for line in capsys.readouterr().err.splitlines() if line.startswith("certificate: ")]
    assert len(told) == 3  # one line per change: the first label, sensitivity certified, the certificate
    assert told[0] == (
        "certificate: undecided after 1 labels: sensitivity (tpr) bound 0.00 < 0.60; specificity (tnr) bound 0.03 < 0.60"
    )
    assert told[1].startswith("certificate: undecided after 22 labels: sensitivity (tpr) bound 0.61 >= 0.60 at 22; ")
    assert told[2] == f"certificate: {now.status()}"


def main_args(queue: Path, out: Path, judge: Path, *bars: str):  # type: ignore[no-untyped-def]
    """The parsed options of `judgelab label serve ... --until-decided` (as the command reads them)."""
    from judges.cli.main import build_parser

    return build_parser("label").parse_args(serve_args(queue, out, judge, *bars))


def start(queue: Path, out: Path, judge: Path, *bars: str) -> tuple[subprocess.Popen[str], str]:
    """The command in a process of its own; its page's address, read from its first line."""
    process = subprocess.Popen(
        [sys.executable, "-m", "judges.cli.main", *serve_args(queue, out, judge, *bars)],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None
    first = process.stdout.readline()
    assert "http://" in first, first + (process.stderr.read() if process.stderr else "")
    return process, first.split("http://")[1].split("/")[0]


def post(address: str, position: int, choice: int) -> str:
    data = urllib.parse.urlencode({"choice": str(choice)}).encode()
    with urllib.request.urlopen(f"http://{address}/item/{position}", data=data, timeout=60) as response:
        return str(response.read().decode())


def test_not_certified_stops_the_command_with_exit_1_and_an_interrupted_session_resumes(tmp_path):
    queue, judge = queue_and_judge(tmp_path, wrong=frozenset(range(40)))  # the judge wrong on every item
    out, bars = tmp_path / "labels.jsonl", ("--min", "accuracy=0.5")
    process, address = start(queue, out, judge, *bars)
    for position in range(3):
        post(address, position, position % 2)
    assert stop(process) == 0  # interrupted (SIGTERM, as Ctrl-C): the labels are kept, nothing decided yet
    process, address = start(queue, out, judge, *bars)  # the same command resumes at the fourth item
    pages = [post(address, position, position % 2) for position in range(3, 8)]
    assert "Decided: no more labels needed" in pages[-1] and "not certified at 8 labels" in pages[-1]
    assert all("Decided" not in page for page in pages[:-1])
    stdout, stderr = process.communicate(timeout=600)
    assert process.returncode == 1
    assert "decided: not certified at 8 labels: accuracy upper bound 0.48 < 0.50 at 8" in stdout
    assert stderr.splitlines()[-1] == "certificate: not certified at 8 labels: accuracy upper bound 0.48 < 0.50 at 8"
    code, record = validated(tmp_path, out, judge, "all", *bars)
    assert (code, record["state"], record["decided_at"], record["labels_seen"]) == (1, "not certified", 8, 8)
    again = subprocess.run(  # decided already: nothing is served, the same exit code
        [sys.executable, "-m", "judges.cli.main", *serve_args(queue, out, judge, *bars)],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert again.returncode == 1 and "http://" not in again.stdout and "not certified at 8 labels" in again.stdout


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (.ci/run installs it)")
def test_label_until_certified_in_headless_chromium_sees_the_status_and_the_stop(tmp_path):
    queue, judge = queue_and_judge(tmp_path)
    out, bars = tmp_path / "labels.jsonl", ("--min", "accuracy=0.5")
    process, address = start(queue, out, judge, *bars)
    seen: list[str] = []

    async def scenario() -> None:
        async with browser(tmp_path / "profile") as page:
            await page.goto(f"http://{address}/")
            for position in range(8):
                await page.wait_for(
                    "document.getElementById('position') && "
                    f"document.getElementById('position').textContent === '{position + 1}'"
                )
                seen.append(str(await page.evaluate("document.getElementById('certificate').textContent")))
                await page.press(str(position % 2))  # the annotator's grade, by key
            await page.wait_for("document.getElementById('done') !== null")
            seen.append(await page.text())

    try:
        asyncio.run(scenario())
        stdout, _ = process.communicate(timeout=600)
    finally:
        stop(process)
    assert seen[0] == "certificate: undecided: no labels yet"
    assert seen[1] == "certificate: undecided after 1 labels: accuracy bound 0.03 < 0.50"
    assert seen[7].startswith("certificate: undecided after 7 labels: accuracy bound 0.48 < 0.50")
    assert (
        "Decided: no more labels needed" in seen[8] and "certified at 8 labels: accuracy bound 0.52 >= 0.50" in seen[8]
    )
    assert "Review from the first item" not in seen[8]  # no more items offered
    assert process.returncode == 0 and "decided: certified at 8 labels" in stdout
    code, record = validated(tmp_path, out, judge, "all", *bars)
    assert (code, record["state"], record["decided_at"], record["labels_seen"]) == (0, "certified", 8, 8)


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--min", "accuracy=0.5"], "--min: only with --until-decided"),
        (["--until-decided", "--min", "accuracy=0.5"], "--until-decided needs --predictions SOURCE"),
        (["--until-decided", "--predictions", "JUDGE"], "--until-decided: give the bars"),
        (["--until-decided", "--predictions", "BAD", "--min", "accuracy=0.5"], "bad.jsonl:1: expected a number"),
    ],
)
def test_flags_out_of_place_and_a_bad_predictions_file_are_refused_in_one_line_before_serving(
    tmp_path, capsys, extra, message
):
    queue, judge = queue_and_judge(tmp_path, n=4)
    (tmp_path / "bad.jsonl").write_text('{"id": "i0", "score": "x"}\n')
    given = [{"JUDGE": str(judge), "BAD": str(tmp_path / "bad.jsonl")}.get(a, a) for a in extra]
    assert main(["label", "serve", str(queue), "--out", str(tmp_path / "labels.jsonl"), *given]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "labels.jsonl").exists()
