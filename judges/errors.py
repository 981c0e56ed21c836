"""judgelab's exceptions; user-fixable ones print as one line without a traceback.

JudgelabError                 base; `str(err)` is the one line shown to the user
 +-- InputError               bad input file: names the file, line and field
 |    +-- ConditionError      a condition string that does not parse
 |    +-- InputProblems       every problem of an input file, one `file:line:field: message` line each
 |    +-- DatasetMissing      a public labelled set not on this machine: names the `judgelab data fetch` command
 +-- PromptError              a prompt folder or template that cannot be used
 +-- ConfigError              a bad command-line option or configuration value
 +-- BackendUnavailable       a judge backend that cannot start (missing package, no API key)
 +-- ReplayMiss               replay mode asked for a call that was never recorded
 +-- BudgetExhausted          --max-cost was reached: the run stops cleanly, keeping what was done
 +-- EndpointUnusable         the judge's endpoint cannot serve the run (refused, DNS, 401/403, unknown model,
 |                            a hung server, or its first calls all failed the same way): the run stops at once
 +-- CacheBroken              the reply cache failed a read or write mid-run (a damaged file): the run stops, named
 +-- TooManyFailures          the share of failed verdicts is over --fail-on-error: the run finished but is degraded

Each class carries the process exit code the CLI returns for it (`exit_code`): 2 for bad usage, input or setup
(before any call) and for a cache that breaks mid-run, 3 for an unusable endpoint, 4 for a spent budget, 5 for a
run whose failed verdicts are over --fail-on-error. A failed gate (1) is not an error; 70 (an unforeseen error) and
130 (interrupted) are the CLI's own.
"""

from __future__ import annotations


class JudgelabError(Exception):
    """Base class of errors a user can cause and fix."""

    exit_code = 2


class InputError(JudgelabError):
    """An input file is missing or malformed."""

    def __init__(
        self, message: str, *, path: str | None = None, line: int | None = None, field: str | None = None
    ) -> None:
        self.path, self.line, self.field, self.message = path, line, field, message
        where = ":".join(str(p) for p in (path, line) if p is not None)
        prefix = f"{where}: " if where else ""
        suffix = f" (field {field!r})" if field else ""
        super().__init__(f"{prefix}{message}{suffix}")


class ConditionError(InputError):
    """A unit-test condition that does not parse."""


class InputProblems(InputError):
    """Every problem found in an input file; `str(err)` is one `file:line:field: message` line per problem."""

    def __init__(self, problems: list[str], *, line_numbers: list[int] | None = None) -> None:
        self.problems = list(problems)
        self.line_numbers = line_numbers or [0] * len(self.problems)  # 0: a problem of the whole file
        super().__init__("\n".join(self.problems))


class DatasetMissing(InputError):
    """A public labelled set that is not on this machine; the message names the one command that fetches it."""


class PromptError(JudgelabError):
    """A prompt folder or template that cannot be loaded or rendered."""


class ConfigError(JudgelabError):
    """A bad option or configuration value."""


class BackendUnavailable(JudgelabError):
    """A judge backend that cannot be set up (a missing package, no API key): fixed before any call."""


class ReplayMiss(JudgelabError):
    """Replay mode met a call that is not in the cache."""


class BudgetExhausted(JudgelabError):
    """The run's cost limit was reached; no new call starts."""

    exit_code = 4


class EndpointUnusable(JudgelabError):
    """The judge's endpoint cannot serve this run; the run stops within one timeout of the first failures."""

    exit_code = 3


class CacheBroken(JudgelabError):
    """The reply cache failed mid-run (a page damaged after the opening check): the run stops, keeping its items."""


class TooManyFailures(JudgelabError):
    """More verdicts failed than --fail-on-error allows: the figures rest on too few verdicts to be trusted."""

    exit_code = 5
