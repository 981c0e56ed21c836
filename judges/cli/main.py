"""`judgelab` entry point: wires the commands (each module holds its own options), installs process setup, and
turns user errors into one line.

A command is a module with `configure(parser)` (its options; imports nothing heavy), `run(args)` (the work,
returning the exit code) and `HELP`, registered under `judgelab.commands` like another package's command (judgelab's
own declared once, with their help lines, in `judges.cli.command_table`); only the module of the command that runs
(or shows its help) is imported."""

from __future__ import annotations

import argparse
import gc
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from judges.cli.command_table import COMMANDS
from judges.cli.early_checks import check_args
from judges.errors import JudgelabError
from judges.plugins import entries, load, names
from judges.secrets import scrub_text
from judges.version import __version__


def commands() -> list[str]:
    """Every command's name: the built-ins, then those other packages register under `judgelab.commands`."""
    return names("commands")


def command_help(name: str) -> str:
    """A command's one line: a built-in's from the table of commands; a plug-in's without importing it (its package
    named)."""
    entry = entries("commands")[name]
    if entry.package is None:
        return next(command.help for command in COMMANDS if command.name == name)
    return f"a plug-in command ({entry.package})"


class OneLineParser(argparse.ArgumentParser):
    """A parser whose refusal is one line (an invalid choice names the valid ones), exit 2, not argparse's usage
    block; its subcommands' parsers are of this class too."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}; see {self.prog} --help\n")


def build_parser(chosen: str | None = None) -> argparse.ArgumentParser:
    """The parser, with the options of the `chosen` command only (every command's when None): a command's module,
    and what it imports, loads only when that command runs or shows its help."""
    parser = OneLineParser(
        prog="judgelab",
        description="Check the LLM judges of your RAG answers against unit tests before you trust them.",
        allow_abbrev=False,
    )

    parser.add_argument("--version", action="version", version=f"judgelab {__version__}")
    parser.add_argument(
        "--debug", action="store_true", help="show the full traceback of an error instead of its one-line message"
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in commands():
        help_text = command_help(name)
        command = sub.add_parser(name, help=help_text, description=help_text)
        command.set_defaults(command_name=name)
        if chosen is None or chosen == name:
            module = load("commands", name, what="command")
            command.description = getattr(module, "HELP", None) or help_text
            module.configure(command)
    refuse_abbreviations(parser)
    return parser


def refuse_abbreviations(parser: argparse.ArgumentParser) -> None:
    """No option is taken by a prefix of its name (`--judg` is not `--judge`), in every command and subcommand: a
    typo must not silently become another option."""
    parser.allow_abbrev = False
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                refuse_abbreviations(child)


def unknown_command(argv: Sequence[str]) -> str | None:
    """One line for a command judgelab does not have, naming the nearest one (`evalute`: did you mean evaluate?)."""
    import difflib

    word = next((a for a in argv if not a.startswith("-")), None)
    known = commands()
    if word is None or word in known:
        return None
    near = difflib.get_close_matches(word, known, n=1, cutoff=0.6)
    hint = f"; did you mean {near[0]}?" if near else f"; the commands: {', '.join(known)}"
    return f"judgelab: error: no command {word!r}{hint}"


def unknown_options(parser: argparse.ArgumentParser, given: Sequence[str], unknown: list[str]) -> str:
    """One line for arguments no option takes, naming the nearest option of the (sub)command given for a misspelt
    one: never the unknown flag itself, nor an option of a sibling subcommand (`cascade apply --threshold`)."""
    import difflib

    words = [parser.prog]
    options = [o for o in _long_options(parser) if o != "--help"]
    chosen = parser
    while (child := _subcommand(chosen, given)) is not None:
        chosen, name = child
        words.append(name)
        options = _long_options(chosen)
    flag = next((u.split("=", 1)[0] for u in unknown if u.startswith("--")), None)
    candidates = [o for o in set(options) if o != flag]
    near = difflib.get_close_matches(flag, sorted(candidates), n=1, cutoff=0.6) if flag else []
    hint = f"; did you mean {near[0]}?" if near else ""
    return f"{' '.join(words)}: error: unrecognized arguments: {' '.join(unknown)}{hint}"


def _subcommand(parser: argparse.ArgumentParser, given: Sequence[str]) -> tuple[argparse.ArgumentParser, str] | None:
    """The subcommand of `parser` named in `given` (its parser and name), or None."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            name = next((word for word in given if word in action.choices), None)
            if name is not None:
                return action.choices[name], name
    return None


def _long_options(parser: argparse.ArgumentParser) -> list[str]:
    """Every `--option` of this parser itself (not of its subcommands)."""
    return [o for action in parser._actions for o in action.option_strings if o.startswith("--")]


def main(argv: Sequence[str] | None = None) -> int:
    given = list(sys.argv[1:] if argv is None else argv)
    misspelt = unknown_command(given)
    if misspelt is not None:  # before argparse, whose answer is a usage block and the list of every command
        print(misspelt, file=sys.stderr)
        return 2
    collecting = gc.isenabled() and argv is None  # a process of its own (the console script), not a caller's
    if collecting:  # the command's modules (most of a run's objects) load with no collection walking them...
        gc.disable()
    try:
        parser = build_parser(next((arg for arg in given if arg in commands()), ""))
    except JudgelabError as err:  # a plug-in command that cannot be loaded: its package, entry point and error
        print(f"judgelab: error: {err}", file=sys.stderr)
        return err.exit_code
    finally:
        if collecting:  # ...and live as long as the process, so later collections pass them over (a tenth less CPU)
            gc.enable()
            gc.freeze()
    args, unknown = parser.parse_known_args(given)
    if unknown:  # argparse's usage block would bury the one line that matters
        print(unknown_options(parser, given, unknown), file=sys.stderr)
        return 2
    if args.command is None:
        parser.print_help()
        return 0
    import warnings

    # A run stopped at once (an unusable endpoint) cancels calls LiteLLM had created but not started; Python
    # then warns about each never-awaited coroutine at exit. They are expected, and not the user's concern.
    warnings.filterwarnings("ignore", message=r"coroutine '.*' was never awaited", category=RuntimeWarning)

    try:
        check_args(parser, args)  # before any work: a leaderboard must not compute its whole board to fail on --out
        return int(load("commands", args.command_name, what="command").run(args) or 0)
    except JudgelabError as err:
        if args.debug:
            raise
        print(f"judgelab: error: {err}", file=sys.stderr)
        return err.exit_code
    except BrokenPipeError:  # the reader of stdout went away (`judgelab ... | head`): no error line, as a shell tool
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # the interpreter's last flush at exit finds nowhere to fail
        return 141  # 128 + SIGPIPE, what a shell reports for a tool the pipe's reader closed
    except KeyboardInterrupt:
        print(
            "judgelab: interrupted; finished calls are in the cache, rerun the same command to resume", file=sys.stderr
        )
        return 130
    except Exception as err:  # unforeseen: still one line, the traceback only with --debug
        if args.debug:
            raise

        print(
            f"judgelab: unexpected error: {type(err).__name__}: {scrub_text(str(err))} (a bug in judgelab; rerun "
            "with --debug for the traceback)",
            file=sys.stderr,
        )
        return 70  # sysexits' EX_SOFTWARE: not 1, which means a gate failed


if __name__ == "__main__":
    sys.exit(main())
