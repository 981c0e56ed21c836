"""Memory a probe run holds as it grows: N and 4 N samples, each judged as it is and under every shipped probe.

Run: python benchmarks/bench_probe_memory.py --samples 200 --out results/benchmarks
A judge that gives every answer the top grade (so it misses every sensitivity pair) answers in-process; the run
writes its folder as `judgelab probe` does. Python's tracemalloc gives the memory held when the items are done
(before the pages are written) and the peak while they are judged, then the peak while summary.md and report.html
are written. Writes probe_memory.json and probe_memory.md.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import tracemalloc
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from judges.calls.backend import Completion, CompletionRequest  # noqa: E402
from judges.types import Sample  # noqa: E402


class TopGradeStub:
    """A stub backend: the top grade for both answers on every metric; unlike the scripted test double it keeps
    no request, so what is measured is the run's own memory."""

    async def complete(self, request: CompletionRequest) -> Completion:
        metric = str(request.metric)
        top = 1 if metric == "faithfulness" else 5
        flags = {"answer_affirms_no_document_answers": False, "answer_contains_related_information": False}
        answer = {**flags, f"{metric}_justification": "read", metric: top}
        text = json.dumps({"answer_1": answer, "answer_2": answer})
        return Completion(text=text, prompt_tokens=200, completion_tokens=20)


def samples(n: int) -> list[tuple[str, Sample]]:
    """`n` samples cycled from unit_tests/test.jsonl, each question made distinct."""
    from judges.suite.loading import load_unit_tests

    tests = load_unit_tests(ROOT / "unit_tests" / "test.jsonl")
    out = []
    for k in range(n):
        sample = tests[k % len(tests)].sample
        out.append((f"s{k}", Sample(**{**vars(sample), "input": f"{sample.input} (variant {k})"})))
    return out


def measure(n: int) -> dict[str, Any]:
    from judges.calls.cache import CacheMode, ReplyCache
    from judges.calls.model_spec import JudgeModel
    from judges.calls.runtime import CallRuntime
    from judges.judging.grouse_judge import GroundedQAJudge
    from judges.judging.prompts import load_prompt_set
    from judges.probes.probe_registry import shipped_probes
    from judges.probes.task import ProbeTask
    from judges.runs import service as run_folder  # the run service's own name for the folder writer
    from judges.runs.service import run_task

    runtime = CallRuntime(TopGradeStub(), ReplyCache(":memory:", CacheMode.OFF))
    judge = GroundedQAJudge(runtime, load_prompt_set("default"), JudgeModel("stub", "openai/stub"), {})
    task = ProbeTask(samples(n), shipped_probes(), judge)
    figures: dict[str, Any] = {"samples": n, "items": len(task.items)}
    write = run_folder.save_run

    def save_run(run: Any, out: Path) -> Any:
        held, peak = tracemalloc.get_traced_memory()
        figures.update(held_mb=round((held - base) / 1e6, 1), judging_peak_mb=round((peak - base) / 1e6, 1))
        tracemalloc.reset_peak()
        written = write(run, out)
        figures["pages_peak_mb"] = round((tracemalloc.get_traced_memory()[1] - base) / 1e6, 1)
        figures["report_mb"] = round((out / "report.html").stat().st_size / 1e6, 1)
        return written

    run_folder.save_run = save_run
    try:
        with tempfile.TemporaryDirectory() as folder:
            tracemalloc.start()
            base = tracemalloc.get_traced_memory()[0]
            run_task(task, runtime, Path(folder) / "run", {"judge": "stub"})
            tracemalloc.stop()
    finally:
        run_folder.save_run = write
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--out", default="results/benchmarks")
    args = parser.parse_args()
    rows = [measure(n) for n in (args.samples, 4 * args.samples)]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "probe_memory.json").write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    lines = [
        "# Probe run memory",
        "",
        f"`python benchmarks/bench_probe_memory.py --samples {args.samples}` (tracemalloc, in MB).",
        "",
        "| samples | items | held when judged | peak while judging | peak writing pages | report.html |",
        "|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {r['samples']} | {r['items']} | {r['held_mb']} | {r['judging_peak_mb']} | {r['pages_peak_mb']} | "
        f"{r['report_mb']} |"
        for r in rows
    ]
    (out / "probe_memory.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
