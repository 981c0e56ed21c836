"""`judgelab show RUN_DIR`: a run folder's report.html in the browser (or served, or its summary printed)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from judges.cli.serve import serve_folder
from judges.render.report_html import write_report
from judges.render.summary_md import summary_markdown
from judges.runs.run_writer import FolderRecorder


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_dir", metavar="RUN_DIR", help="a run folder (it holds run.json and report.html)")
    how = parser.add_mutually_exclusive_group()
    how.add_argument("--print", action="store_true", help="only print summary.md (the items not passed included)")
    how.add_argument(
        "--serve", action="store_true", help="serve the folder on 127.0.0.1 and print the report's URL (Ctrl-C stops)"
    )
    parser.add_argument("--port", type=int, default=0, help="port for --serve (default: any free port)")


def has_display() -> bool:
    """A browser can be shown: macOS and Windows always, elsewhere when X11 or Wayland is there."""
    return sys.platform in ("darwin", "win32") or bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def report_path(run_dir: str) -> Path:
    """The folder's report.html, written from its run.json and results.jsonl when the folder predates it."""

    run = FolderRecorder(run_dir).load()
    path = Path(run_dir) / "report.html"
    return path if path.is_file() else write_report(run, Path(run_dir))


def run(args: argparse.Namespace) -> int:
    if args.print:
        print(summary_markdown(FolderRecorder(args.run_dir).load()), end="")
        return 0
    report = report_path(args.run_dir).resolve()
    if args.serve:
        serve_folder(report.parent, args.port, report.name)
        return 0
    print(summary_markdown(FolderRecorder(args.run_dir).load()), end="")
    print(f"report: {report}")
    if has_display():
        import webbrowser

        if not webbrowser.open(report.as_uri()):
            print("no browser could be started; open the file above, or use --serve", file=sys.stderr)
    return 0
