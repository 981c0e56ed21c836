"""The shipped probes, in report order, and looking one up by name."""

from __future__ import annotations

from judges.errors import ConfigError
from judges.probes.base import Probe


def shipped_probes() -> list[Probe]:
    """Every shipped probe: the invariance ones first, then the sensitivity ones."""
    from judges.probes.content import DropCitedFact, UnsupportedClaim, WrongCitation
    from judges.probes.form import BulletsVersusProse, ClosingSentence
    from judges.probes.framing import AuthorityFraming, Verbosity
    from judges.probes.order import ShuffleReferences, SwapAnswers

    return [
        ShuffleReferences(),
        SwapAnswers(),
        BulletsVersusProse(),
        ClosingSentence(),
        Verbosity(),
        AuthorityFraming(),
        DropCitedFact(),
        UnsupportedClaim(),
        WrongCitation(),
    ]


def probes_named(names: list[str] | None) -> list[Probe]:
    """The named probes (all of them when `names` is empty); an unknown name is a one-line error."""
    probes = shipped_probes()
    if not names:
        return probes
    known = {probe.name: probe for probe in probes}
    unknown = [name for name in names if name not in known]
    if unknown:
        import difflib

        near = difflib.get_close_matches(unknown[0], list(known), n=1, cutoff=0.6)
        hint = f"did you mean {near[0]}?" if near else f"known: {', '.join(known)}"
        raise ConfigError(f"unknown probe {unknown[0]!r}; {hint}")
    return [known[name] for name in names]
