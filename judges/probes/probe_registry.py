"""The probes, in report order (the shipped ones, then those other packages register under `judgelab.probes`), and
looking one up by name."""

from __future__ import annotations

from judges.plugins import load, load_each, make, names, wrong_type
from judges.probes.base import Probe


def _made(name: str, target: object) -> Probe:
    """A registered probe is its class (made here, with no arguments) or an instance; anything else is an error
    naming the entry."""
    probe = make("probes", name, target) if isinstance(target, type) else target
    if not all(hasattr(probe, part) for part in ("name", "changes", "expects", "apply")):
        raise wrong_type("probes", name, probe, "a Probe (name, changes, expects, apply)")
    return probe  # type: ignore[return-value]


def shipped_probes() -> list[Probe]:
    """Every registered probe: the shipped invariance ones first, then the sensitivity ones, then plug-ins' (a
    package whose entry cannot be loaded is left out with a warning line)."""
    return load_each("probes", _made)


def probes_named(names_given: list[str] | None) -> list[Probe]:
    """The named probes (all of them when `names_given` is empty); an unknown name is a one-line error with "did
    you mean", raised before any probe is imported."""
    if not names_given:
        return shipped_probes()
    for name in names_given:  # every name checked before any import
        if name not in names("probes"):
            load("probes", name)  # raises the ConfigError
    return [_made(name, load("probes", name)) for name in names_given]
