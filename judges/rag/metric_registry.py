"""The metric registry: the metrics registered under `judgelab.metrics` (the built-ins first, then other packages'),
plus user-defined aspects and rubric criteria; lookups by name or family, with "did you mean"."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from judges.errors import ConfigError
from judges.plugins import load, names
from judges.rag.spec import MetricSpec, aspect_spec, criterion_spec


def build_registry(
    aspects: dict[str, str] | None = None, criteria: dict[str, str] | None = None
) -> dict[str, MetricSpec]:
    """Registered metrics plus user-defined aspect critiques and rubric criteria (name -> definition)."""
    specs = [spec for name in names("metrics") for spec in registered(name)]
    specs += [aspect_spec(n, d) for n, d in (aspects or {}).items()]
    specs += [criterion_spec(n, d) for n, d in (criteria or {}).items()]
    registry: dict[str, MetricSpec] = {}
    for spec in specs:
        registry[spec.name] = spec  # a user-defined one replaces a built-in of the same name
    return registry


def registered(name: str) -> list[MetricSpec]:
    """The specs an entry of `judgelab.metrics` stands for: a MetricSpec, a list of them, or a function returning
    either (the built-ins' entry is `builtin_specs`)."""
    target = load("metrics", name, what="metric entry")
    if callable(target) and not isinstance(target, MetricSpec):
        target = target()
    specs = [target] if isinstance(target, MetricSpec) else list(target)
    wrong = [spec for spec in specs if not isinstance(spec, MetricSpec)]
    if wrong:
        raise ConfigError(f"judgelab.metrics entry {name!r} gives {type(wrong[0]).__name__}, not a MetricSpec")
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
