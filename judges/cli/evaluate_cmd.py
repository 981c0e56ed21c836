"""`judgelab evaluate FILE`: grade your own grounded-QA samples on the four metrics; writes the run folder (or, with
`--cascade`, the calibrated judges' runs and their decisions)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Container, MutableMapping, Sequence
from pathlib import Path

from judges.cli.call_plan import dry_run
from judges.cli.finish import finish_run
from judges.cli.options import add_judge_options, config_from_args
from judges.config.judge import JudgeConfig
from judges.errors import ConfigError
from judges.grading.grade_run import grade_samples, load_samples
from judges.runs.folder import default_run_dir
from judges.types import Sample


def configure(parser: argparse.ArgumentParser) -> None:
    add_judge_options(parser)
    parser.add_argument("file", metavar="FILE", help="JSONL of input, references, expected_output, actual_output")
    parser.add_argument("--limit", type=int, metavar="N", help="only the first N samples of FILE")
    parser.add_argument("--out", metavar="DIR", help="run folder (default results/runs/<run-id>)")
    parser.add_argument(
        "--draws",
        type=int,
        default=1,
        metavar="K",
        help="grade each sample K times (each draw its own request): the modal verdict, with the share of draws "
        "that gave it as its confidence, and the judge's consistency with itself in the summary (default 1; give "
        "a temperature above 0, or a deterministic judge says the same every draw)",
    )
    parser.add_argument(
        "--cascade",
        metavar="CALIBRATION_JSON",
        help="run the judges of `judgelab cascade calibrate` (from their run configs) in turn, each only on the "
        "items the earlier ones did not keep; writes decisions.jsonl, summary.md and the escalated items' queue",
    )
    parser.add_argument(
        "--accept-changed-judge",
        action="store_true",
        help="with --cascade: go on when a judge differs from its calibration (another model name, fingerprint, "
        "prompt or decoding); summary.md says so",
    )
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="print the calls, tokens and cost the run would need, and call nothing",
    )


BLAS_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS")  # what OpenBLAS reads


def one_blas_thread(environ: MutableMapping[str, str] = os.environ, loaded: Container[str] = sys.modules) -> None:
    """OpenBLAS told to start one thread when numpy loads (unless the user chose a number): this command's numpy work
    is report.html's bootstrap over a few grade levels, which no thread speeds up, and starting a thread per core
    took a fully cached re-run about 50 ms (the same intervals to the bit). Too late once numpy is loaded."""
    if "numpy" not in loaded and not any(name in environ for name in BLAS_THREAD_VARIABLES):
        environ["OPENBLAS_NUM_THREADS"] = "1"


def run(args: argparse.Namespace) -> int:
    one_blas_thread()
    config = config_from_args(args)
    if args.draws < 1:
        raise ConfigError("--draws must be at least 1")
    samples = load_samples(args.file, args.limit)
    if args.cascade:
        return run_cascade(args, samples, config)
    if args.dry_run:
        return dry_run([sample for _, sample in samples], config, args.draws, unit="samples")
    out_dir = Path(args.out) if args.out else default_run_dir(Path("results/runs"), "evaluate", config.model)
    run = grade_samples(samples, config, out=out_dir, draws=args.draws, progress=not args.quiet, data=args.file)
    return finish_run(run, ["results.jsonl", "run.json", "summary.md"])


def run_cascade(args: argparse.Namespace, samples: Sequence[tuple[str, Sample]], config: JudgeConfig) -> int:
    """The calibration's judges in turn on FILE's samples; prints the cascade's summary and the files written."""
    from judges.cascade.evaluating import evaluate_cascade  # defers numpy

    if args.dry_run:
        raise ConfigError("--dry-run: not with --cascade (which items reach a later judge depends on the replies)")
    out = Path(args.out) if args.out else default_run_dir(Path("results/runs"), "cascade", "evaluate")
    written = evaluate_cascade(
        samples,
        args.cascade,
        config,
        out,
        progress=not args.quiet,
        data=args.file,
        accept=args.accept_changed_judge,
    )
    if not isinstance(written, list):  # a judge's run stopped early: its one line and exit code, as plain evaluate
        return finish_run(written, ["results.jsonl", "run.json", "summary.md"], quiet=args.quiet)
    if not args.quiet:
        print((out / "summary.md").read_text(encoding="utf-8"), end="")
    print(f"wrote {', '.join(str(p) for p in written)}")
    return 0
