"""`judgelab probe`: perturb each sample with the shipped probes, ask the judge again, report what held."""

from __future__ import annotations

import argparse
from pathlib import Path


def configure(parser: argparse.ArgumentParser) -> None:
    from judges.cli.options import add_judge_options, add_test_options

    add_judge_options(parser)
    add_test_options(parser, "test")
    parser.add_argument(
        "--data",
        metavar="FILE",
        help="probe your own grounded-QA JSONL (input, references, expected_output, actual_output) instead of "
        "unit tests",
    )
    parser.add_argument(
        "--probe",
        action="append",
        metavar="NAME",
        help="run only this probe (repeat for several); default: every shipped probe (docs/probes.md lists them)",
    )
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="print the calls, tokens and cost the probes would need, and call nothing",
    )


def run(args: argparse.Namespace) -> int:
    from judges.cli.options import config_from_args
    from judges.cli.render import finish_run
    from judges.errors import ConfigError
    from judges.probes.registry import probes_named
    from judges.probes.run import run_probes
    from judges.runs.api import load_samples, load_tests
    from judges.runs.folder import default_run_dir

    probes = probes_named(args.probe)  # an unknown name stops before anything loads
    if args.data and args.tests:
        raise ConfigError("give --tests or --data, not both")
    if args.data:
        samples, data, split = load_samples(args.data, args.limit), args.data, None
    else:
        split = args.split or ("test" if args.tests is None else None)
        tests = load_tests(args.tests, split, args.limit)
        samples, data = [(test.id, test.sample) for test in tests], args.tests or "unit_tests (shipped)"
    config = config_from_args(args)
    if args.dry_run:  # every sample as it is and under each probe that applies to it, as the run would judge them
        from judges.cli.meta_eval_cmd import dry_run

        judged = [s for key, sample in samples for s in (sample, *(p.apply(sample, key) for p in probes)) if s]
        unit = f"items ({len(samples)} samples as they are and under each probe that applies)"
        return dry_run(judged, config, 1, unit=unit)
    out = Path(args.out) if args.out else default_run_dir(Path("results/runs"), "probe", config.model)
    run = run_probes(samples, config, probes, out=out, progress=not args.quiet, data=data, split=split)
    return finish_run(run, ["results.jsonl", "run.json", "summary.md", "report.html"])
