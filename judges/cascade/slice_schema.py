"""calibration.json's optional `slices` block (`cascade calibrate --slice`): each slice's thresholds, kept items,
agreement and bound, delta split over the slices (Bonferroni); typed and strict like the rest of the file."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, model_validator

STRICT = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False, frozen=True)
Share = Annotated[float, Field(ge=0, le=1)]
Count = Annotated[int, Field(ge=0)]


def kept_problem(threshold: float | None, offered: int, kept: int, *, threshold_elsewhere: bool = False) -> str | None:
    """What is wrong with a judge's counts (a calibration's or one slice's), or None: it cannot keep more items than
    reached it, nor any without a threshold (unless its thresholds are per slice, `threshold_elsewhere`)."""
    if kept > offered:
        return f"kept ({kept}) is more than offered ({offered})"
    if threshold is None and kept and not threshold_elsewhere:
        return f"threshold is null (the judge keeps nothing) but kept is {kept}"
    return None


class SliceJudge(BaseModel):
    """One judge on one slice: its threshold there (None: it keeps nothing of the slice), the slice's items reaching
    it, those it kept, their agreement with people and the upper bound of their disagreement."""

    model_config = STRICT

    name: str
    threshold: Share | None
    offered: Count
    kept: Count
    agreement: Share | None = None
    disagreement_upper_bound: Share | None = None

    @model_validator(mode="after")
    def _consistent(self) -> SliceJudge:
        if problem := kept_problem(self.threshold, self.offered, self.kept):
            raise ValueError(problem)
        return self


class CalibratedSlice(BaseModel):
    """One slice's cascade: its labelled items and each judge's part, in the cascade's order."""

    model_config = STRICT

    items: Count
    judges: Annotated[list[SliceJudge], Field(min_length=1)]

    @model_validator(mode="after")
    def _within(self) -> CalibratedSlice:
        if (kept := sum(j.kept for j in self.judges)) > self.items:
            raise ValueError(f"the judges keep {kept} items of a slice of {self.items}")
        return self


class Slices(BaseModel):
    """A cascade per slice of the labels by `field`: every slice calibrated at `delta_each` = delta / slices."""

    model_config = STRICT

    field: Annotated[str, Field(min_length=1)]
    delta_each: Annotated[float, Field(gt=0, lt=1)]
    split: str
    by_slice: Annotated[dict[str, CalibratedSlice], Field(min_length=1)]
