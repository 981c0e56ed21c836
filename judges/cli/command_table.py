"""judgelab's own commands, each declared once: its name, its module and its help line (light: imports nothing)."""

from __future__ import annotations

from typing import NamedTuple


class Command(NamedTuple):
    """A built-in command: `judgelab NAME` runs `module` (with `configure(parser)` and `run(args)`); `help` is its
    line in `judgelab --help` and its description."""

    name: str
    module: str
    help: str


COMMANDS: tuple[Command, ...] = (  # in the order of `judgelab --help`
    Command("meta-eval", "judges.cli.meta_eval_cmd", "score a judge against unit tests"),
    Command("evaluate", "judges.cli.evaluate_cmd", "grade your own grounded-QA JSONL with a judge (no conditions)"),
    Command("check-tests", "judges.cli.check_tests_cmd", "validate unit-test files (structure, conditions, citations)"),
    Command("plot", "judges.cli.plot_cmd", "draw the result-matrix plot of a run folder"),
    Command(
        "metrics",
        "judges.cli.metrics_cmd",
        "run RAG-suite metrics (Ragas, TRACe, LlamaIndex, RAGChecker, ...) on a dataset",
    ),
    Command("agreement", "judges.cli.agreement_cmd", "score a judge's outputs against human labels (with intervals)"),
    Command(
        "cascade",
        "judges.cli.cascade_cmd",
        "calibrate judges to keep only the verdicts they can vouch for (a guarantee); apply it, escalating the rest",
    ),
    Command("validate", "judges.cli.validate_cmd", "gate a judge: exit non-zero when it misses a bar (JUnit XML too)"),
    Command("compare", "judges.cli.compare_cmd", "what changed between runs: flipped tests, train vs test pass rates"),
    Command(
        "show",
        "judges.cli.show_cmd",
        "open a run folder's report.html (--serve to serve it, --print for the summary)",
    ),
    Command(
        "leaderboard", "judges.cli.leaderboard_cmd", "rank candidate judges per metric from a config; write the pages"
    ),
    Command("publish", "judges.cli.publish_cmd", "push a leaderboard folder to a Hugging Face Hub dataset repo"),
    Command(
        "label",
        "judges.cli.label_cmd",
        "human labels for your own data: select items, label them blind, export/import",
    ),
    Command(
        "tune",
        "judges.cli.tune_cmd",
        "search prompt variants on the train split; report the tuned prompts once on test",
    ),
    Command(
        "probe",
        "judges.cli.probe_cmd",
        "perturb samples (bias probes) and report how often the judge's grade held",
    ),
    Command(
        "view", "judges.cli.view_cmd", "browse every run folder and leaderboard under a folder, locally and read-only"
    ),
    Command(
        "data", "judges.cli.data_cmd", "list the public labelled sets and fetch one by name (pinned, sha256 checked)"
    ),
)
