"""A third-party run kind with its own command: a package adds `judgelab wordcount FILE`, its summary part and its
report section through entry points only (`judgelab.commands`, `judgelab.kinds`), and the CLI and `judgelab view`
run and show it with no file of judges/ changed.

The package is written into a temporary folder as an installed distribution would be and put on PYTHONPATH."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.request import urlopen

from conftest import ROOT, hang_guard, stop

PACKAGE = '''
"""judgelab-wordcount: a run kind of its own, the words of each answer, with its command."""
import json
from dataclasses import dataclass
from pathlib import Path

HELP = "count the words of each sample's answer (a plug-in run kind)"
KIND = "wordcount"


def configure(parser):
    parser.add_argument("file", help="JSON Lines: id, actual_output")
    parser.add_argument("--out", required=True)


class WordTask:
    kind = KIND
    items_per_slot = 1

    def __init__(self, items):
        self.items = items

    def check(self):
        pass

    def provenance(self):
        return {"counted": "whitespace-separated words"}

    async def run_item(self, item):
        from judges.records import ItemRecord, MetricRecord
        from judges.types import Verdict

        words = float(len(item.payload.split()))
        record = MetricRecord("words", Verdict.graded(words))
        return ItemRecord(item.id, {"words": record}, order=item.order, sample={"actual_output": item.payload})


def run(args):
    from judges.calls.refusing import no_judge_backend
    from judges.calls.runtime import CallRuntime
    from judges.runs.items import Item
    from judges.runs.run_writer import FolderRecorder
    from judges.runs.service import run_task

    rows = [json.loads(line) for line in Path(args.file).read_text().splitlines() if line.strip()]
    items = [Item(str(row["id"]), n, row["actual_output"]) for n, row in enumerate(rows)]
    run_task(WordTask(items), CallRuntime(no_judge_backend()), FolderRecorder(args.out), {"judge": "none (word counts)"})
    print(f"wrote {args.out}")
    return 0


@dataclass(frozen=True)
class WordPart:
    total: int
    answers: int
    kind: str = KIND

    def to_json(self):
        return {"total": self.total, "answers": self.answers}


class WordTally:
    def __init__(self):
        self.total, self.answers = 0, 0

    def add(self, record):
        self.total += int(record.metrics["words"].value)
        self.answers += 1

    def result(self):
        return WordPart(self.total, self.answers)


class WordKind:
    item_headers = ["id", "words"]

    def tally(self):
        return WordTally()

    def read_part(self, data):
        return WordPart(data["total"], data["answers"])

    def markdown(self, run):
        part = run.summary.part
        return ["## Word counts", "", f"{part.total} words in {part.answers} answers (counted by judgelab-wordcount)."]

    def report_section(self, run):
        from judges.pages.table import plain_table

        part = run.summary.part
        return [("Word counts", plain_table("words", [{"answers": part.answers, "words": part.total}]))]

    def item_rows(self, run, folder):
        return []


PARTS = WordKind()
'''

ENTRY_POINTS = """[judgelab.commands]
wordcount = judgelab_wordcount

[judgelab.kinds]
wordcount = judgelab_wordcount:PARTS
"""


def installed(tmp_path: Path) -> Path:
    site = tmp_path / "site"
    info = site / "judgelab_wordcount-0.1.dist-info"
    info.mkdir(parents=True)
    (site / "judgelab_wordcount.py").write_text(PACKAGE, encoding="utf-8")
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: judgelab-wordcount\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(ENTRY_POINTS, encoding="utf-8")
    return site


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_a_plugin_adds_a_run_kind_with_its_own_command_summary_and_page_section(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{installed(tmp_path)}"}
    data = tmp_path / "answers.jsonl"
    data.write_text('{"id": "a", "actual_output": "one two three"}\n{"id": "b", "actual_output": "four five"}\n')
    out = tmp_path / "results" / "runs" / "words"

    def judgelab(*args: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "judges.cli.main", *args]
        return subprocess.run(command, env=env, cwd=tmp_path, capture_output=True, text=True, timeout=hang_guard())

    listed = judgelab("--help")
    assert "wordcount" in listed.stdout and "a plug-in command (judgelab-wordcount 0.1)" in listed.stdout
    assert "count the words" in judgelab("wordcount", "--help").stdout
    done = judgelab("wordcount", str(data), "--out", str(out))
    assert done.returncode == 0, done.stderr
    meta = json.loads((out / "run.json").read_text())
    assert meta["kind"] == "wordcount" and meta["summary"]["wordcount"] == {"total": 5, "answers": 2}
    assert "5 words in 2 answers (counted by judgelab-wordcount)." in (out / "summary.md").read_text()
    assert "Word counts" in (out / "report.html").read_text()
    shown = judgelab("show", str(out), "--print")
    assert shown.returncode == 0 and "5 words in 2 answers" in shown.stdout

    port = free_port()
    viewer = subprocess.Popen(
        [sys.executable, "-m", "judges.cli.main", "view", str(tmp_path / "results"), "--port", str(port)],
        env=env,
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        index = ""
        for _ in range(100):
            try:
                index = urlopen(f"http://127.0.0.1:{port}/", timeout=hang_guard(5)).read().decode()
                break
            except OSError:
                time.sleep(0.2)
        assert "wordcount" in index and "runs/words" in index
        page = urlopen(f"http://127.0.0.1:{port}/run/runs/words", timeout=hang_guard(30)).read().decode()
        assert "<td>a</td>" in page and "<td>b</td>" in page and "<td>words</td>" in page  # its items, paged
    finally:
        stop(viewer)


def test_a_broken_plugin_command_is_one_line_exit_2_and_leaves_the_others(tmp_path: Path) -> None:
    site = tmp_path / "site"
    info = site / "judgelab_brokencmd-0.1.dist-info"
    info.mkdir(parents=True)
    (site / "judgelab_brokencmd.py").write_text("raise RuntimeError('boom at import')\n", encoding="utf-8")
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: judgelab-brokencmd\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text("[judgelab.commands]\nbroken = judgelab_brokencmd\n", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{site}"}

    def judgelab(*args: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "judges.cli.main", *args]
        return subprocess.run(command, env=env, cwd=tmp_path, capture_output=True, text=True, timeout=hang_guard())

    broken = judgelab("broken")
    assert broken.returncode == 2 and len(broken.stderr.strip().splitlines()) == 1
    assert "judgelab-brokencmd 0.1" in broken.stderr and "RuntimeError: boom at import" in broken.stderr
    fine = judgelab("check-tests", str(ROOT / "unit_tests"))
    assert fine.returncode == 0 and "272 unit tests" in fine.stdout
