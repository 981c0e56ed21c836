"""A judge's outcomes of the labelled items as columns: each item's score (NaN: none) and state code."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from judges.types import VerdictState

GRADE, NULL, FAILED, MISSING = 0, 1, 2, 3  # an item's state: graded, a legitimate null, a failure, no outcome
_CODES = {VerdictState.GRADE: GRADE, VerdictState.NULL: NULL}


@dataclass
class OutcomeColumns:
    """One row per labelled item, in the labels' order: the outcome's score (NaN when it has none) and its state
    (GRADE, NULL, FAILED, MISSING); a column of grades read from a file stays these two arrays, no object per item."""

    scores: np.ndarray
    states: np.ndarray

    @classmethod
    def of(cls, outcomes: Sequence[Any]) -> OutcomeColumns:
        """The columns of a list of outcomes (`Prediction` or None for a missing one)."""
        scores = np.fromiter(
            (np.nan if o is None or o.score is None else o.score for o in outcomes), dtype=float, count=len(outcomes)
        )
        states = np.fromiter(
            (MISSING if o is None else _CODES.get(o.state, FAILED) for o in outcomes),
            dtype=np.int8,
            count=len(outcomes),
        )
        return cls(scores, states)

    @classmethod
    def held(cls, scores: np.ndarray, present: np.ndarray | None) -> OutcomeColumns:
        """Grades held as a column (`present`: which items have one; None: every item)."""
        if present is None:
            return cls(scores, np.zeros(scores.size, dtype=np.int8))
        return cls(np.where(present, scores, np.nan), np.where(present, GRADE, MISSING).astype(np.int8))

    def take(self, rows: Sequence[int] | np.ndarray) -> OutcomeColumns:
        """The outcomes of the given rows, in that order."""
        index = np.asarray(rows, dtype=np.int64)
        return OutcomeColumns(self.scores[index], self.states[index])

    def scored(self) -> np.ndarray:
        """The scores of the outcomes that have one, in order."""
        return self.scores[~np.isnan(self.scores)]

    def n_matched(self) -> int:
        """How many items have an outcome (graded or not)."""
        return int(np.count_nonzero(self.states != MISSING))
