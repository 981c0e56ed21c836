"""`judgelab validate --certificate certification.json`: the CI gate after certifying (exit 0 when the certificate
passed and the judge now at work is the one it certified, 1 when it did not pass, 2 when the judge differs)."""

from __future__ import annotations

import argparse
from typing import Any

from judges.agreement.certificate_gate import check_judge, read_certificate
from judges.cli.options import config_from_args
from judges.errors import ConfigError
from judges.integrations.gate import GateConfig

NOT_WITH = (  # the other modes' options: a certified gate runs no tests and reads no labels
    *("labels", "predictions", "min", "max", "min_recall", "slice", "sequential", "plan", "expect"),
    *("expect_recall", "expect_specificity", "prevalence", "tests", "split", "limit", "baseline", "junit"),
    *("dry_run", "chosen_by", "metric", "threshold"),
)


def add_certificate_options(parser: argparse.ArgumentParser) -> None:
    """The certified gate's options (`--certificate` switches to it)."""
    group = parser.add_argument_group(
        "gate on a certificate (--certificate): the judge given by the judge flags or --config's [judge] must be "
        "the one certification.json certified (model, prompt, decoding, then the model name and system_fingerprint "
        "one fresh call answers with); exit 1 when the certificate did not pass, 2 when the judge differs"
    )
    group.add_argument(
        "--certificate",
        metavar="CERTIFICATION_JSON",
        help="a certification.json of `validate --labels ... --predictions RUN_DIR` (the judge defaults to the "
        "model it records)",
    )
    group.add_argument(
        "--accept-changed-judge",
        action="store_true",
        default=None,
        help="with --certificate: pass a judge that differs from the certified one (said in one line)",
    )


def wanted(args: argparse.Namespace) -> bool:
    """The certified gate is asked for (--certificate, or its --accept-changed-judge alone: an error there)."""
    return getattr(args, "certificate", None) is not None or bool(getattr(args, "accept_changed_judge", None))


def gate(args: argparse.Namespace) -> int:
    """The certificate's verdict, then the judge now against the one it certified: 0, 1 or 2 (see the module)."""
    if args.certificate is None:
        raise ConfigError("--accept-changed-judge: only with --certificate certification.json")
    given = [f"--{name.replace('_', '-')}" for name in NOT_WITH if getattr(args, name, None) not in (None, False, [])]
    if given:
        raise ConfigError(f"--certificate gates on a certificate made before: drop {', '.join(given)}")
    certificate = read_certificate(args.certificate)
    if not certificate.certified:
        print(
            f"FAILED: {args.certificate} is {certificate.outcome()} ({certificate.mode}); the gate passes only a "
            "certified judge: certify again on more labels"
        )
        return 1
    judge: dict[str, Any] = GateConfig.load(args.config, bars_needed=False).judge if args.config else {}
    if "model" not in judge and not hasattr(args, "model") and certificate.judge_identity.model_id:
        judge = {**judge, "model": certificate.judge_identity.model_id}  # the judge it certified, by default
    config = config_from_args(args, judge)
    check = check_judge(certificate, args.certificate, config, accept=bool(args.accept_changed_judge))
    for note in check.notes:
        print(note)
    judged = (
        f"the changed judge accepted ({check.served})" if check.notes else f"the judge it certified ({check.served})"
    )
    print(f"PASSED: {args.certificate} is certified ({certificate.mode}); {config.model} is {judged}")
    return 0
