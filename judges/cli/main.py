"""`judgelab` entry point: builds the parser, installs process setup, and turns user errors into one line."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from judges.calls.model_spec import DEFAULT_JUDGE, IMAGE_MAX_SIDE

COMMANDS = {
    "meta-eval": ("judges.cli.meta_eval_cmd", "score a judge against unit tests"),
    "evaluate": ("judges.cli.evaluate_cmd", "grade your own grounded-QA JSONL with a judge (no conditions)"),
    "check-tests": ("judges.cli.check_tests_cmd", "validate unit-test files (structure, conditions, citations)"),
    "plot": ("judges.cli.plot_cmd", "draw the result-matrix plot of a run folder"),
    "metrics": (
        "judges.cli.metrics_cmd",
        "run RAG-suite metrics (Ragas, TRACe, LlamaIndex, RAGChecker, ...) on a dataset",
    ),
    "agreement": ("judges.cli.agreement_cmd", "score a judge's outputs against human labels (with intervals)"),
    "validate": ("judges.cli.validate_cmd", "gate a judge: exit non-zero when it misses a bar (JUnit XML too)"),
    "compare": ("judges.cli.compare_cmd", "what changed between runs: flipped tests, train vs test pass rates"),
    "show": ("judges.cli.show_cmd", "open a run folder's report.html (--serve to serve it, --print for the summary)"),
    "leaderboard": ("judges.cli.leaderboard_cmd", "rank candidate judges per metric from a config; write the pages"),
    "publish": ("judges.cli.publish_cmd", "push a leaderboard folder to a Hugging Face Hub dataset repo"),
    "label": ("judges.cli.label_cmd", "human labels for your own data: select items, label them blind, export/import"),
    "tune": ("judges.cli.tune_cmd", "search prompt variants on the train split; report the tuned prompts once on test"),
}


def add_judge_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("judge")
    group.add_argument(
        "--judge",
        default=DEFAULT_JUDGE,
        metavar="MODEL",
        help=f"any LiteLLM model id, or a local judge (default {DEFAULT_JUDGE})",
    )
    group.add_argument(
        "--prompts",
        default="",
        metavar="DIR",
        help="prompt folder with the four metric templates, a shipped set name, or 'grouse' (default: 'compact' "
        "for a local judge, 'default' for any other)",
    )
    group.add_argument(
        "--api-base",
        action="append",
        metavar="URL",
        help="OpenAI-compatible server for the model; repeat it to spread calls over several deployments of the "
        "same judge (--concurrency each, a failing one routed around)",
    )
    group.add_argument(
        "--client",
        choices=["lean", "litellm"],
        default=None,
        help="lean: direct HTTP for OpenAI-compatible endpoints (default for them and for local judges); "
        "litellm: through LiteLLM (default for other providers)",
    )
    group.add_argument("--temperature", type=float, default=0.0)
    group.add_argument("--max-tokens", type=int, default=512)
    group.add_argument("--seed", type=int, default=0)
    group.add_argument("--extra", metavar="JSON", help="extra LiteLLM arguments as a JSON object")
    group.add_argument(
        "--json-schema",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="constrain replies to each metric's JSON schema (default: on for local judges)",
    )
    group.add_argument(
        "--vision",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="the judge sees images (default: as LiteLLM's model table says; the offline judge never does)",
    )
    group.add_argument(
        "--image-max-side",
        type=int,
        default=IMAGE_MAX_SIDE,
        metavar="PX",
        help="images are sent shrunk to at most PX pixels a side (default %(default)s)",
    )
    runtime = parser.add_argument_group("runtime")
    runtime.add_argument(
        "--concurrency", type=int, default=8, help="calls in flight at once, per deployment (default 8)"
    )
    runtime.add_argument("--timeout", type=float, default=120.0, help="seconds per call before a retry")
    runtime.add_argument("--cache", default=".judgelab/cache.sqlite", metavar="PATH", help="reply cache (SQLite)")
    runtime.add_argument(
        "--cache-mode",
        default="read-write",
        choices=["read-write", "read-only", "off", "replay"],
        help="replay: recorded replies only, a miss is an error (for CI)",
    )
    runtime.add_argument(
        "--quiet", action="store_true", help="no progress on stderr (it is a bar on a terminal, else a line every 10 s)"
    )
    runtime.add_argument("--rpm", type=float, metavar="N", help="at most N requests per minute per model")
    runtime.add_argument("--tpm", type=float, metavar="N", help="at most N tokens per minute per model (estimated)")
    runtime.add_argument(
        "--max-cost",
        type=float,
        metavar="USD",
        help="stop cleanly once this much is spent (exit 4; every paid reply is cached)",
    )
    runtime.add_argument(
        "--fail-on-error",
        type=float,
        default=0.1,  # as Inspect's default share of failed samples; JudgeOptions' own default is None (no check)
        metavar="RATE",
        help="exit 5 when a metric's share of failed verdicts is over RATE (default 0.1; 1 never)",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="judgelab",
        description="Check the LLM judges of your RAG answers against unit tests before you trust them.",
    )
    from judges import __version__

    parser.add_argument("--version", action="version", version=f"judgelab {__version__}")
    parser.add_argument(
        "--debug", action="store_true", help="show the full traceback of an error instead of its one-line message"
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module, help_text) in COMMANDS.items():
        command = sub.add_parser(name, help=help_text, description=help_text)
        command.set_defaults(module=module)
        _configure(name, command)
    return parser


def add_test_options(parser: argparse.ArgumentParser, default_split: str) -> None:
    parser.add_argument(
        "--tests",
        default=None,
        metavar="FILE|DIR",
        help="unit-test JSONL, a folder with train.jsonl/test.jsonl, or 'grouse' (the hub "
        "dataset); default: the shipped unit_tests/",
    )
    parser.add_argument(
        "--split",
        choices=["train", "test"],
        default=None,
        help=f"split of a folder or hub dataset (default {default_split} for the shipped suite, else test)",
    )
    parser.add_argument("--limit", type=int, metavar="N", help="only the first N unit tests")
    parser.add_argument("--out", metavar="DIR", help="run folder (default results/runs/<run-id>)")


def _configure(name: str, parser: argparse.ArgumentParser) -> None:
    if name in ("meta-eval", "evaluate", "validate"):
        add_judge_options(parser)
    if name == "meta-eval":
        add_test_options(parser, "train")
        parser.add_argument(
            "--samples",
            type=int,
            default=1,
            metavar="K",
            help="judge each test K times and report grade variance and pass/fail flips",
        )
        parser.add_argument(
            "--dry-run",
            action="store_true",
            help="print the calls, tokens and cost the run would need, and call nothing",
        )
        parser.add_argument(
            "--plot",
            action="store_true",
            help="also draw result_matrix.png (the report already shows the matrix; `judgelab plot` draws it later)",
        )
    elif name == "evaluate":
        parser.add_argument("file", metavar="FILE", help="JSONL of input, references, expected_output, actual_output")
        parser.add_argument("--limit", type=int, metavar="N")
        parser.add_argument("--out", metavar="DIR", help="run folder (default results/runs/<run-id>)")
    elif name == "check-tests":
        parser.add_argument("paths", nargs="+", metavar="FILE|DIR", help="unit-test files, or folders of them")
        parser.add_argument(
            "--baselines",
            action="store_true",
            help="also print the pass rates of the oracle and constant/random baseline judges",
        )
        parser.add_argument(
            "--strict",
            action="store_true",
            help="also apply the shipped suite's house rules (each type's conditions and shape, "
            "3-6 references, complete sets); always on for the shipped unit_tests/",
        )
        parser.add_argument(
            "--split",
            choices=["train", "test"],
            default="test",
            help="split used for --baselines when a folder is given (default test)",
        )
    elif name == "plot":
        parser.add_argument("run_dir", metavar="RUN_DIR")
    elif name == "show":
        from judges.cli.show_cmd import configure as configure_show

        configure_show(parser)
    elif name == "validate":
        add_test_options(parser, "test")
        parser.add_argument(
            "--min",
            action="append",
            metavar="METRIC=RATE",
            help="lowest acceptable pass rate, e.g. --min faithfulness=0.9 --min total=0.8",
        )
        parser.add_argument(
            "--max",
            action="append",
            metavar="failure_rate=RATE",
            help="highest acceptable share of judged verdicts the run failed to get",
        )
        parser.add_argument(
            "--config", metavar="TOML", help="judge, tests and bars from a file ([judge], [tests], [min], [max])"
        )
        parser.add_argument("--junit", metavar="FILE", help="JUnit XML path (default <run folder>/junit.xml)")
    elif name == "compare":
        parser.add_argument("runs", nargs="+", metavar="RUN_DIR", help="two or more meta-eval run folders")
    elif name == "leaderboard":
        parser.add_argument("config", metavar="CONFIG", help="TOML with [[candidates]], [[evaluations]], [selection]")
        parser.add_argument(
            "--out", default="results", metavar="DIR", help="where the leaderboard files go (default results/)"
        )
    elif name == "publish":
        parser.add_argument("folder", metavar="FOLDER", help="a leaderboard folder (e.g. results/)")
        parser.add_argument("--repo", required=True, metavar="OWNER/NAME", help="Hub dataset repo")
        parser.add_argument("--message", help="commit message")
        parser.add_argument("--dry-run", action="store_true", help="list the files and the commit; push nothing")
    elif name == "metrics":
        from judges.cli.metrics_cmd import configure as configure_metrics

        add_judge_options(parser)
        configure_metrics(parser)
    elif name == "agreement":
        from judges.cli.agreement_cmd import configure

        configure(parser)
    elif name == "label":
        from judges.cli.label_cmd import configure as configure_label

        configure_label(parser)
    elif name == "tune":
        from judges.cli.tune_cmd import configure as configure_tune

        add_judge_options(parser)
        configure_tune(parser)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    import importlib
    import warnings

    from judges.errors import JudgelabError

    # A run stopped at once (an unusable endpoint) cancels calls LiteLLM had created but not started; Python
    # then warns about each never-awaited coroutine at exit. They are expected, and not the user's concern.
    warnings.filterwarnings("ignore", message=r"coroutine '.*' was never awaited", category=RuntimeWarning)

    try:
        return int(importlib.import_module(args.module).run(args) or 0)
    except JudgelabError as err:
        if args.debug:
            raise
        print(f"judgelab: error: {err}", file=sys.stderr)
        return err.exit_code
    except KeyboardInterrupt:
        print(
            "judgelab: interrupted; finished calls are in the cache, rerun the same command to resume", file=sys.stderr
        )
        return 130
    except Exception as err:  # unforeseen: still one line, the traceback only with --debug
        if args.debug:
            raise
        from judges.calls.secrets import scrub_text

        print(
            f"judgelab: unexpected error: {type(err).__name__}: {scrub_text(str(err))} (a bug in judgelab; rerun "
            "with --debug for the traceback)",
            file=sys.stderr,
        )
        return 70  # sysexits' EX_SOFTWARE: not 1, which means a gate failed


if __name__ == "__main__":
    sys.exit(main())
