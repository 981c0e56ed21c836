"""A probe run's own config keys, typed: what each probe expects of a grade, and what the probes made of the samples."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ProbeSettings:
    """run.json's config `probes` (per probe, what it expects per metric) and `probe_plan` (per probe, applied and
    skips by reason); empty when the run did not record them."""

    probes: dict[str, Any] = field(default_factory=dict)
    probe_plan: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, details: Mapping[str, Any]) -> ProbeSettings:
        """The settings from a run config's kind keys (`RunConfig.settings(ProbeSettings.of)`)."""
        probes, plan = details.get("probes"), details.get("probe_plan")
        return cls(probes if isinstance(probes, dict) else {}, plan if isinstance(plan, dict) else {})
