"""The fully cached `judgelab evaluate` re-run on its own (cli_path.py's command and timing: every reply from the cache,
the endpoint a refused port, a whole process each time), with what the CLI imports at start
(`python -X importtime`): `python benchmarks/cached_rerun.py [--code LABEL=DIR ...]`.

`--code` measures other checkouts of judgelab, interleaved (e.g. `git archive <commit> | tar -x -C DIR` for the code
before a change); each measurement is added to results/benchmarks/cached_rerun.json under its label, and
cached_rerun.md is written from all of them.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import cli_path
from stub_server import running_stub

ROOT = Path(__file__).resolve().parent.parent
IMPORTS = {
    "judges.cli.main": "import judges.cli.main",
    "with evaluate_cmd": "import judges.cli.main, judges.cli.evaluate_cmd",
}


def import_times(statement: str, repeats: int = 9) -> dict[str, Any]:
    """`python -X importtime -c STATEMENT`: the median total (the top-level imports' cumulative microseconds), the
    median CPU time of the whole process, and the slowest top-level imports of the median run."""
    runs, cpu = [], []
    for _ in range(repeats):
        used = resource.getrusage(resource.RUSAGE_CHILDREN)
        done = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", statement],
            capture_output=True,
            text=True,
            env=cli_path.cli_env(),
            cwd=cli_path.CODE,
            check=True,
        )
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append(after.ru_utime + after.ru_stime - used.ru_utime - used.ru_stime)
        rows = []  # (indent, cumulative us, name)
        for line in done.stderr.splitlines():
            if line.startswith("import time:") and "cumulative" not in line:
                _, cumulative, name = line.split("|", 2)
                rows.append((len(name) - len(name.lstrip()), int(cumulative), name.strip()))
        level = min(indent for indent, _, _ in rows)  # the top-level imports: their cumulative times add up
        top = [(us, name) for indent, us, name in rows if indent == level]
        runs.append((sum(us for us, _ in top), sorted(top, reverse=True)[:8]))
    runs.sort()
    total, slowest = runs[len(runs) // 2]
    return {
        "total_ms": total / 1000,
        "cpu_ms": statistics.median(cpu) * 1000,
        "slowest": [[name, us / 1000] for us, name in slowest],
    }


def measure(codes: dict[str, Path], samples: int, repeats: int) -> dict[str, dict[str, Any]]:
    """Each checkout's cached re-run, the checkouts interleaved in each repeat (so that load from other users hits
    them alike), each checkout's replies from a cache its own run filled (checkouts may key replies differently);
    and each one's import times."""
    from judges.suite.loading import load_unit_tests

    tests = load_unit_tests(ROOT / "unit_tests" / "test.jsonl")[:samples]
    load_before = os.getloadavg()[0]
    times: dict[str, list[float]] = {label: [] for label in codes}
    cpu: dict[str, list[float]] = {label: [] for label in codes}  # the process's CPU time: what load does not stretch
    with tempfile.TemporaryDirectory() as tmp:
        samples_file = Path(tmp) / "samples.jsonl"
        caches = {label: str(Path(tmp) / f"cache-{n}.sqlite") for n, label in enumerate(codes)}
        keys = ("input", "expected_output", "actual_output")
        rows = [{**{k: getattr(t.sample, k) for k in keys}, "references": list(t.sample.references)} for t in tests]
        samples_file.write_text("".join(json.dumps(row) + "\n" for row in rows))
        with running_stub(latency_ms=1, max_concurrency=32) as base:
            for label, code in codes.items():
                cli_path.CODE = code
                cli_path.compile_package()
                fill = cli_path.evaluate_command(samples_file, base, 32, Path(tmp) / f"fill-{code.name}", caches[label])
                cli_path.run_cli(fill)
        for n in range(repeats):
            for label, code in codes.items():
                cli_path.CODE = code
                out = Path(tmp) / f"{len(times[label])}-{n}-{code.name}"
                used = resource.getrusage(resource.RUSAGE_CHILDREN)
                rerun = cli_path.evaluate_command(samples_file, base, 32, out, caches[label])
                times[label].append(cli_path.run_cli(rerun))
                done = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpu[label].append(done.ru_utime + done.ru_stime - used.ru_utime - used.ru_stime)
                usage = json.loads((out / "run.json").read_text())["usage"]
                if not usage["calls"] == usage["cached_calls"] > 0:
                    raise RuntimeError(f"the cached re-run made calls: {usage}")
    load = [round(load_before, 2), round(os.getloadavg()[0], 2)]
    results = {}
    for label, code in codes.items():
        cli_path.CODE = code
        results[label] = {
            "date": datetime.now(UTC).isoformat(timespec="seconds"),
            "samples": len(tests),
            "load_1min": load,
            "cached": {
                "median_s": statistics.median(times[label]),
                "times_s": times[label],
                "cpu_median_s": statistics.median(cpu[label]),
                "calls": usage["calls"],
            },
            "imports": {name: import_times(statement) for name, statement in IMPORTS.items()},
        }
    return results


def markdown(results: dict[str, dict[str, Any]]) -> str:
    lines = [
        "# Fully cached `judgelab evaluate` re-run",
        "",
        "`python benchmarks/cached_rerun.py --code LABEL=DIR ...`: the samples of the first N unit tests graded "
        "once against a stub to fill the reply cache (each checkout its own), then the same `judgelab evaluate` command with `--cache FILE` "
        "and `--api-base` the stub that filled it, now stopped (its URL keys the replies; its port refuses: any call "
        "would stop the run), a whole "
        "process each time, the checkouts interleaved (interpreter start, imports, every call from the cache, the run folder written); the "
        "package's bytecode compiled first. Imports: `python -X importtime -c 'import judges.cli.main'` (and with "
        "evaluate's command module), the sum of the top-level imports' cumulative times (wall), and the process's CPU time, medians of 9. CPU time: the "
        "process's user + system time, which other users' load stretches far less than the wall time.",
        "",
        "| code | date | samples | calls | re-run median (s) | runs (s) | CPU time median (s) | load 1 min (start, end) "
        "| import judges.cli.main (ms) | + evaluate_cmd (ms) | + evaluate_cmd, process CPU (ms) |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for label, r in results.items():
        c, imports = r["cached"], r["imports"]
        lines.append(
            f"| {label} | {r['date'][:16]} | {r['samples']} | {c['calls']} | {c['median_s']:.3f} | "
            f"{', '.join(f'{t:.2f}' for t in c['times_s'])} | {c.get('cpu_median_s', float('nan')):.3f} | "
            f"{r['load_1min'][0]}, {r['load_1min'][1]} | "
            f"{imports['judges.cli.main']['total_ms']:.0f} | {imports['with evaluate_cmd']['total_ms']:.0f} | "
            f"{imports['with evaluate_cmd'].get('cpu_ms', float('nan')):.0f} |"
        )
    for label, r in results.items():
        if "ratio_to" in r["cached"] and label != r["cached"]["ratio_to"][0]:
            reference, ratio = r["cached"]["ratio_to"]
            lines += ["", f"{label}: {ratio:.2f} of {reference}'s median, measured in the same run"]
            elsewhere = r["cached"].get("reference_elsewhere_s")
            lines[-1] += (
                f"; about {ratio * elsewhere:.2f} s where {reference} took {elsewhere:.2f} s." if elsewhere else "."
            )
    for label, r in results.items():
        slowest = r["imports"]["with evaluate_cmd"]["slowest"]
        lines += ["", f"Slowest top-level imports with evaluate_cmd ({label}): "]
        lines[-1] += ", ".join(f"{name} {ms:.0f} ms" for name, ms in slowest) + "."
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--code",
        nargs="+",
        action="extend",
        metavar="LABEL=DIR",
        help="the checkouts of judgelab to measure, interleaved (default this one); repeat the flag or list several",
    )
    parser.add_argument("--samples", type=int, default=152, help="unit tests whose samples are graded (3 calls each)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument(
        "--reference",
        metavar="LABEL",
        help="a checkout of this run (e.g. the code a goal was set on, on another machine) that each checkout's "
        "median is divided by: the ratio carries a goal across machines",
    )
    parser.add_argument(
        "--reference-seconds",
        type=float,
        metavar="S",
        help="the reference checkout's median where the goal was set (another machine): each ratio is shown in it",
    )
    parser.add_argument("--out", default=str(ROOT / "results" / "benchmarks"))
    args = parser.parse_args()
    given = args.code or [f"this checkout={ROOT}"]
    codes = {label: Path(folder).resolve() for label, _, folder in (code.rpartition("=") for code in given)}
    out = Path(args.out)
    store = out / "cached_rerun.json"
    results = json.loads(store.read_text()) if store.is_file() else {}
    measured = measure(codes, args.samples, args.repeats)
    if args.reference:
        base = measured[args.reference]["cached"]["median_s"]
        for result in measured.values():
            result["cached"]["ratio_to"] = [args.reference, result["cached"]["median_s"] / base]
            if args.reference_seconds:
                result["cached"]["reference_elsewhere_s"] = args.reference_seconds
    results.update(measured)
    store.write_text(json.dumps(results, indent=2) + "\n")
    (out / "cached_rerun.md").write_text(markdown(results))
    print(markdown(results))


if __name__ == "__main__":
    main()
