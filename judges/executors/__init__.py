"""Executors: where a run's pending calls are made when not one by one in the run (a provider batch API, Ray)."""
