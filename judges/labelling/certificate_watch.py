"""Labelling until decided: the certificate recomputed after each label, told on each change, the asking stopped once
it is decided (`judgelab label serve --until-decided`)."""

from __future__ import annotations

from collections.abc import Callable

from judges.agreement.sequential_certification import UNDECIDED, SequentialResult

NO_LABELS = "undecided: no labels yet"


class CertificateWatch:
    """`certificate()` gives the certificate on the labels file as written so far (None before the first label);
    `told(line)` hears the status line whenever the certificate's state or a bar's changes."""

    def __init__(
        self, certificate: Callable[[], SequentialResult | None], told: Callable[[str], None] = lambda line: None
    ) -> None:
        self.certificate, self.told = certificate, told
        self.current = certificate()

    @property
    def state(self) -> str:
        return UNDECIDED if self.current is None else self.current.state

    @property
    def decided(self) -> bool:
        return self.state != UNDECIDED

    def status(self) -> str:
        return NO_LABELS if self.current is None else self.current.status()

    def update(self) -> SequentialResult | None:
        """Recompute after a label; tell the new status line when a state changed."""
        before = _states(self.current)
        self.current = self.certificate()
        if _states(self.current) != before:
            self.told(self.status())
        return self.current


def _states(result: SequentialResult | None) -> tuple[str, ...]:
    return () if result is None else (result.state, *(check.state for check in result.checks))
