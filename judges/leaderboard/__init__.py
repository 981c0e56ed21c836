"""Leaderboards: candidate judges over unit tests and human labels, the best judge per metric, and its pages."""
