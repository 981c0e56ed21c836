"""The metric registry: the metrics registered under `judgelab.metrics` (the built-ins first, then other packages'),
plus user-defined aspects and rubric criteria; lookups by name or family, with "did you mean"."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from judges.errors import ConfigError
from judges.plugins import PluginError, entries, load, make, names, warn, wrong_type
from judges.rag.spec import MetricSpec, aspect_spec, criterion_spec


def build_registry(
    aspects: dict[str, str] | None = None,
    criteria: dict[str, str] | None = None,
    using: Iterable[str] | None = None,
) -> dict[str, MetricSpec]:
    """Registered metrics plus user-defined aspect critiques and rubric criteria (name -> definition).

    `using` (the names a command asks for) loads only what they need: judgelab's own entries and the entries of
    those names, where another package's broken entry is a PluginError naming it; only a name found in neither
    (or `all`, or no `using`: every metric) loads the other packages' entries, each broken one passed over with a
    warning line."""
    wanted = None if using is None else {name.strip() for name in using if name.strip()}
    own = [aspect_spec(n, d) for n, d in (aspects or {}).items()]
    own += [criterion_spec(n, d) for n, d in (criteria or {}).items()]
    loaded: dict[str, list[MetricSpec]] = {}
    if wanted is not None:
        for name, entry in entries("metrics").items():
            if entry.package is None or name in wanted:
                loaded[name] = registered(name)
    if wanted is None or not wanted <= _names_and_families([*(s for specs in loaded.values() for s in specs), *own]):
        for name in names("metrics"):
            try:
                loaded[name] = loaded[name] if name in loaded else registered(name)
            except PluginError as err:
                warn(err)
    registry: dict[str, MetricSpec] = {}
    for spec in [*(spec for name in names("metrics") for spec in loaded.get(name, [])), *own]:
        registry[spec.name] = spec  # a user-defined one replaces a built-in of the same name
    return registry


def _names_and_families(specs: Iterable[MetricSpec]) -> set[str]:
    return {part for spec in specs for part in (spec.name, spec.family)}


def registered(name: str) -> list[MetricSpec]:
    """The specs an entry of `judgelab.metrics` stands for: a MetricSpec, a list of them, or a function returning
    either (each built-in family's entry is its module's `specs`); anything else is a PluginError naming the entry."""
    target = load("metrics", name, what="metric entry")
    if callable(target) and not isinstance(target, MetricSpec):
        target = make("metrics", name, target)
    specs = list(target) if isinstance(target, list | tuple) else [target]
    wrong = [spec for spec in specs if not isinstance(spec, MetricSpec)]
    if wrong:
        raise wrong_type("metrics", name, wrong[0], "a MetricSpec")
    return specs


def select(registry: dict[str, MetricSpec], names: Iterable[str]) -> list[MetricSpec]:
    """Metrics by name, by family name (ragas, trace, ...) or `all`; an unknown name is a ConfigError with hints."""
    families = {spec.family for spec in registry.values()}
    chosen: dict[str, MetricSpec] = {}
    for name in (n.strip() for n in names if n.strip()):
        if name == "all" or name in families:
            chosen.update({s.name: s for s in registry.values() if name in ("all", s.family)})
        elif name in registry:
            chosen[name] = registry[name]
        else:
            close = difflib.get_close_matches(name, [*registry, *families], n=3, cutoff=0.5)
            hint = f"; did you mean {', '.join(close)}?" if close else "; see `judgelab metrics --list`"
            raise ConfigError(f"unknown metric {name!r}{hint}")
    if not chosen:
        raise ConfigError("no metric chosen: give --metrics a,b (names, families or 'all')")
    return list(chosen.values())
