"""Rendering of runs and figures: Markdown tables, the run summary, report.html, plots, JUnit XML."""
