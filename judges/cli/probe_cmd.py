"""`judgelab probe`: perturb each sample with the shipped probes, ask the judge again, report what held; with
`--audit N`, write N random pairs for a blind audit instead; `judgelab probe audit` scores the graders' answers."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from judges.probes.base import Known, Probe
    from judges.types import Sample

from judges.cli.finish import finish_run
from judges.errors import ConfigError, InputError
from judges.labelling.pairs import read_answers
from judges.probes.audit import KEY_FILE, draw_pairs, score, write_audit
from judges.probes.audit_report import audit_json, audit_markdown
from judges.probes.base import Known
from judges.probes.probe_registry import probes_named
from judges.probes.task import perturb
from judges.runs.folder import default_run_dir


def configure(parser: argparse.ArgumentParser) -> None:
    from judges.cli.options import add_judge_options, add_test_options  # defers pydantic

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
        "--audit",
        type=int,
        metavar="N",
        help="call no judge: write N random original/perturbed pairs, blind (no probe names, random order and "
        "sides), to --out's audit.jsonl, the key to audit-key.json; label them with `judgelab label serve`",
    )
    parser.add_argument("--audit-seed", type=int, default=0, metavar="S", help="seed of the --audit draw (default 0)")
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="print the calls, tokens and cost the probes would need, and call nothing",
    )
    parser.add_argument(
        "audit_args",
        nargs="*",
        metavar="audit AUDIT_DIR ANSWERS",
        help="`judgelab probe audit AUDIT_DIR ANSWERS.jsonl...`: score graders' answers against what each probe "
        "declares",
    )


def run(args: argparse.Namespace) -> int:
    from judges.api import load_samples, load_tests  # defers pydantic
    from judges.cli.options import config_from_args  # defers pydantic
    from judges.probes.probe_run import run_probes  # defers pydantic

    if args.audit_args:
        return _score_audit(args.audit_args)
    probes = probes_named(args.probe)  # an unknown name stops before anything loads
    if args.data and args.tests:
        raise ConfigError("give --tests or --data, not both")
    if args.audit is not None and args.audit < 1:
        raise ConfigError("--audit must be at least 1")
    known: dict[str, Known] = {}
    if args.data:
        samples, data, split = load_samples(args.data, args.limit), args.data, None
    else:
        split = args.split or ("test" if args.tests is None else None)
        tests = load_tests(args.tests, split, args.limit)
        samples, data = [(test.id, test.sample) for test in tests], args.tests or "unit_tests (shipped)"
        known = {test.id: Known.of(test) for test in tests}
    if args.audit is not None:
        out = Path(args.out) if args.out else default_run_dir(Path("results/audits"), "probe-audit")
        return _write_audit(samples, probes, known, args.audit, args.audit_seed, out)
    config = config_from_args(args)
    if args.dry_run:  # every sample as it is and under each probe that applies to it, as the run would judge them
        from judges.cli.call_plan import dry_run  # defers pydantic

        made, _ = perturb(samples, probes, known)
        unit = f"items ({len(samples)} samples as they are and under each probe that applies)"
        return dry_run([sample for _, _, sample in made], config, 1, unit=unit)
    out = Path(args.out) if args.out else default_run_dir(Path("results/runs"), "probe", config.model)
    run = run_probes(samples, config, probes, known=known, out=out, progress=not args.quiet, data=data, split=split)
    return finish_run(run, ["results.jsonl", "run.json", "summary.md", "report.html"])


def _write_audit(
    samples: Sequence[tuple[str, Sample]], probes: list[Probe], known: dict[str, Known], n: int, seed: int, out: Path
) -> int:
    made, plan = perturb(samples, probes, known)
    pairs, key = draw_pairs(made, {p.name: p.expects for p in probes}, n, seed)
    key["plan"] = plan.to_json()
    written = write_audit(out, pairs, key)
    print(
        f"wrote {len(pairs)} pairs (of {key['pool']}) to {written[0]}; the key (keep it from the graders) to {written[1]}"
    )
    print(f"label them: judgelab label serve {written[0]} --out answers-NAME.jsonl --annotator NAME")
    print(f"score them: judgelab probe audit {out} answers-*.jsonl")
    return 0


def _score_audit(words: list[str]) -> int:
    import json

    if words[0] != "audit" or len(words) < 3:
        raise ConfigError("usage: judgelab probe audit AUDIT_DIR ANSWERS.jsonl [ANSWERS.jsonl ...]")
    folder = Path(words[1])
    if not (folder / KEY_FILE).is_file():
        raise InputError(
            f"{folder / KEY_FILE}: no audit key (write an audit with `judgelab probe --audit N --out DIR`)"
        )
    key = json.loads((folder / KEY_FILE).read_text(encoding="utf-8"))
    missing = [path for path in words[2:] if not Path(path).is_file()]
    if missing:
        raise InputError(
            f"{missing[0]}: no such answers file (`judgelab label serve AUDIT.jsonl --out FILE` writes it)"
        )
    answers = [answer for path in words[2:] for answer in read_answers(Path(path))]
    result = score(key, answers)
    report = audit_markdown(result)
    (folder / "audit-score.md").write_text(report, encoding="utf-8")
    (folder / "audit-score.json").write_text(json.dumps(audit_json(result), indent=1) + "\n", encoding="utf-8")
    print(report, end="")
    print(f"wrote {folder / 'audit-score.md'} and {folder / 'audit-score.json'}")
    return 0
