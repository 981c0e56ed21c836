"""Probes: deterministic perturbations of a sample, each declaring per metric whether the grade must stay or move."""

# the run kind this package defines, registered as a package's `judgelab.kinds` entry point is (judges.plugins)
KINDS = {"probes": "judges.probes.kind:PROBE_KIND"}
