"""Closed-form statistics of weighted rows the run core needs below the agreement package (numpy only)."""
