"""The probes, in report order (the shipped ones, then those other packages register under `judgelab.probes`), and
looking one up by name."""

from __future__ import annotations

from judges.plugins import load, names
from judges.probes.base import Probe


def _made(target: object) -> Probe:
    """A registered probe is its class (made here, with no arguments) or an instance."""
    return target() if isinstance(target, type) else target  # type: ignore[return-value]


def shipped_probes() -> list[Probe]:
    """Every registered probe: the shipped invariance ones first, then the sensitivity ones, then plug-ins'."""
    return [_made(load("probes", name)) for name in names("probes")]


def probes_named(names_given: list[str] | None) -> list[Probe]:
    """The named probes (all of them when `names_given` is empty); an unknown name is a one-line error with "did
    you mean", raised before any probe is imported."""
    if not names_given:
        return shipped_probes()
    for name in names_given:  # every name checked before any import
        if name not in names("probes"):
            load("probes", name)  # raises the ConfigError
    return [_made(load("probes", name)) for name in names_given]
