"""judgelab's command line: one module per command, argument parsing only in `main`."""
