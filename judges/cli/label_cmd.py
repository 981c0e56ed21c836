"""`judgelab label select|serve|export|import`: choose items to label, label them blind, or label them elsewhere."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from judges.cli.serve import serve_until_stopped
from judges.errors import ConfigError
from judges.labelling.graded import read_pool
from judges.labelling.pairs import PairSession, is_audit
from judges.labelling.scales import scale_for
from judges.labelling.shown_rubric import rubric_for
from judges.probes.audit import read_pairs

if TYPE_CHECKING:
    from judges.labelling.queue import QueueItem
    from judges.labelling.scales import LabelScale


def configure(parser: argparse.ArgumentParser) -> None:
    """The subcommands and their options (imports nothing heavy)."""
    sub = parser.add_subparsers(dest="label_command", metavar="SUBCOMMAND", required=True)
    select = sub.add_parser(
        "select", help="draw a labelling queue from graded runs, disagreement first", description=select_help()
    )
    select.add_argument("runs", nargs="+", metavar="RUN_DIR", help="run folders of `evaluate` or `metrics`")
    select.add_argument("--n", type=int, default=100, help="items to draw (default 100)")
    select.add_argument(
        "--out", required=True, metavar="QUEUE", help="the queue file (JSONL); a QUEUE.md report beside"
    )
    select.set_defaults(out_is_file=True)  # --out names a file (judges.cli.early_checks)
    select.add_argument("--seed", type=int, default=0, help="seed of the draw (default 0)")
    select.add_argument("--metric", metavar="M", help="the metric (default: the one metric the runs share)")
    select.add_argument("--bins", type=int, default=5, help="score bins of the strata (default 5)")

    def scale_options(command: argparse.ArgumentParser) -> None:
        command.add_argument("--metric", metavar="M", help="the metric to label (default: the queue's)")
        command.add_argument(
            "--scale", metavar="SCALE", help="binary or LOW-HIGH, +null to allow null (default: the metric's own)"
        )
        command.add_argument(
            "--rubric", metavar="TEXT", help="rubric text (default: the metric's paragraph of --prompts' template)"
        )
        command.add_argument("--prompts", default="default", metavar="DIR", help="prompt set the rubric is read from")

    serve = sub.add_parser(
        "serve",
        help="a local page to label a queue blind, one item at a time (or an audit's pairs: which answer is better)",
    )
    serve.add_argument("queue", metavar="QUEUE", help="a queue (`label select`) or an audit.jsonl (`probe --audit`)")
    scale_options(serve)
    serve.add_argument("--out", required=True, metavar="LABELS", help="labels file (JSONL), appended to as you label")
    serve.set_defaults(out_is_file=True)
    serve.add_argument("--annotator", default="annotator", metavar="NAME", help="your name, written with each label")
    serve.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default 0: a free one)")
    add_until_decided_options(serve)

    export = sub.add_parser("export", help="write a queue for Label Studio or Argilla")
    export.add_argument("queue", metavar="QUEUE", help="the queue file `label select` wrote")
    export.add_argument("--format", required=True, choices=["label-studio", "argilla"], help="the tool to export to")
    scale_options(export)
    export.add_argument("--out", required=True, metavar="FILE", help="tasks or records JSON (a config file beside)")
    export.set_defaults(out_is_file=True)

    imp = sub.add_parser("import", help="read a Label Studio or Argilla export into a labels file")
    imp.add_argument("file", metavar="FILE", help="the tool's JSON export")
    imp.add_argument(
        "--format", required=True, choices=["label-studio", "argilla"], help="the tool the export came from"
    )
    imp.add_argument("--out", required=True, metavar="LABELS", help="labels file (JSONL; replaced)")
    imp.set_defaults(out_is_file=True)
    imp.add_argument("--queue", metavar="QUEUE", help="the queue exported: keeps each item's sample and weight")
    imp.add_argument("--metric", metavar="M", help="the metric (default: the one the export names)")
    imp.add_argument("--scale", metavar="SCALE", help="binary or LOW-HIGH, +null (default: the metric's own)")


def add_until_decided_options(serve: argparse.ArgumentParser) -> None:
    group = serve.add_argument_group(
        "label until decided (--until-decided): the certificate `validate --sequential` would give, after each label"
    )
    group.add_argument(
        "--until-decided",
        action="store_true",
        help="show the anytime-valid certificate's state after each label and stop asking once it is certified "
        "(exit 0) or not certified (exit 1), as `validate --labels LABELS --predictions SOURCE --sequential` decides",
    )
    group.add_argument("--predictions", metavar="SOURCE", help="the judge's 0/1 outputs: a predictions file or run")
    group.add_argument("--min-recall", type=float, metavar="R", help="the bar on sensitivity and specificity")
    group.add_argument(
        "--threshold", type=float, metavar="T", help="cut of the judge's continuous scores, as validate's"
    )
    group.add_argument(
        "--min", action="append", metavar="STAT=VALUE", help="a bar on a proportion, e.g. --min accuracy=0.8"
    )


def select_help() -> str:
    return (
        "Draw a labelling queue from the items graded by one or more candidate judges: stratified over their "
        "scores, strata where they disagree drawn more densely, seeded; each line records why it was chosen "
        "and its inclusion probability."
    )


def run(args: argparse.Namespace) -> int:
    return int({"select": _select, "serve": _serve, "export": _export, "import": _import}[args.label_command](args))


def _select(args: argparse.Namespace) -> int:
    from judges.labelling.queue import queue_items, queue_report, write_queue  # defers numpy
    from judges.labelling.selection import draw  # defers numpy

    if args.n < 1:
        raise ConfigError("--n must be at least 1")
    if args.bins < 1:
        raise ConfigError("--bins must be at least 1")
    pool = read_pool(args.runs, args.metric)
    drawn = draw(pool, args.n, seed=args.seed, bins=args.bins)
    out = write_queue(args.out, queue_items(pool, drawn, [str(r) for r in args.runs]))
    report = queue_report(pool, drawn, str(out))
    out.with_suffix(".md").write_text(report, encoding="utf-8")
    print(report)
    print(f"wrote {out} and {out.with_suffix('.md')}")
    return 0


def _labelling_setup(args: argparse.Namespace) -> tuple[list[QueueItem], str, LabelScale, str]:
    from judges.labelling.queue import read_queue  # defers numpy

    items = read_queue(args.queue)
    metric = args.metric or items[0].metric
    return items, metric, scale_for(metric, args.scale), rubric_for(metric, args.prompts, args.rubric)


def _serve(args: argparse.Namespace) -> int:
    from judges.cli import until_decided_cmd as until  # defers pydantic
    from judges.labelling.label_server import HOST, LabelPages, Pages, make_server  # defers numpy
    from judges.labelling.session import LabellingSession  # defers numpy

    session: LabellingSession | Pages
    followed = None
    if is_audit(args.queue):  # a blind probe audit: which of two answers deserves the higher grade, per metric
        until.check_until_decided(args, None)
        session = PairSession(read_pairs(args.queue), args.annotator, Path(args.out))
        what = f"comparing {session.size()} pairs"
    else:
        items, metric, scale, rubric = _labelling_setup(args)
        until.check_until_decided(args, scale)
        labelling = LabellingSession(items, metric, scale, rubric, args.annotator, Path(args.out))
        what = f"labelling {len(items)} items for {metric}"
        if args.until_decided:  # the certificate after each label; decided already: nothing to ask
            followed = until.watch(args, metric)
            if followed.decided:
                print(until.decided_line(followed, Path(args.out)), flush=True)
                return until.exit_code(followed.state)
            print(f"certificate: {followed.status()}", file=sys.stderr, flush=True)
        session = LabelPages(labelling, followed)
    server = make_server(session, args.port)
    port = server.server_address[1]
    print(f"{what} as {args.annotator}: http://{HOST}:{port}/ (Ctrl-C stops)", flush=True)
    print(f"each label is written to {args.out} as it is given; rerun the same command to resume", flush=True)
    try:
        serve_until_stopped(server)
    except KeyboardInterrupt:
        print(f"stopped; the labels are in {args.out}")
        return 0
    finally:
        server.server_close()
    if followed is not None and followed.decided:  # the page's last label decided it; the server stopped itself
        print(until.decided_line(followed, Path(args.out)), flush=True)
        return until.exit_code(followed.state)
    return 0


def _export(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from judges.labelling.export import export_queue  # defers numpy

    items, metric, scale, rubric = _labelling_setup(args)
    items = [replace(item, metric=metric) for item in items]
    written = export_queue(items, args.format, args.out, scale=scale, rubric=rubric)
    print(f"wrote {', '.join(str(p) for p in written)} ({len(items)} items, {metric})")
    return 0


def _import(args: argparse.Namespace) -> int:
    from judges.labelling.importing import import_labels  # defers numpy
    from judges.labelling.queue import read_queue  # defers numpy

    queue = read_queue(args.queue) if args.queue else None
    out, counts = import_labels(args.file, args.format, args.out, metric=args.metric, scale=args.scale, queue=queue)
    print(f"wrote {out}: {counts['label']} labels, {counts['null']} null, {counts['skip']} skipped")
    return 0
