"""Probes: deterministic perturbations of a sample, each declaring per metric whether the grade must stay or move."""
