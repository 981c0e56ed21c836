"""Runs: the one run service, run folders, summaries, plots, comparisons, estimates and the gate."""
