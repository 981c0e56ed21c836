"""The validation gate's TOML file as pydantic types: `[judge]`, `[tests]`, `[min]`, `[max]` and `baseline`."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model, with_config
from typing_extensions import TypedDict

from judges.config.judge import JudgeConfig
from judges.types import ALL_METRICS

_FORBID = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)
Rate = Annotated[float, Field(ge=0.0, le=1.0)]


@with_config(_FORBID)
class GateTests(TypedDict, total=False):
    """The unit tests: a file, folder or `grouse`, a split, a limit."""

    source: str
    split: Literal["train", "test"]
    limit: Annotated[int, Field(ge=1)]


# [min]: lowest pass rate per metric or `total`; [max]: highest format-failure rate.
MinBars = create_model(  # type: ignore[call-overload]
    "MinBars", __config__=_FORBID, **{name: (Rate | None, None) for name in (*ALL_METRICS, "total")}
)
MaxBars = create_model(
    "MaxBars", __config__=_FORBID, failure_rate=(Rate | None, None), format_failure_rate=(Rate | None, None)
)


class GateFile(BaseModel):
    """The whole file."""

    model_config = _FORBID

    judge: JudgeConfig = Field(default_factory=JudgeConfig)  # its keys are JudgeConfig's fields
    tests: GateTests = Field(default_factory=dict)  # type: ignore[assignment]
    min: MinBars = Field(default_factory=MinBars)  # type: ignore[valid-type]
    max: MaxBars = Field(default_factory=MaxBars)  # type: ignore[valid-type]
    baseline: str | None = None  # an earlier run folder of this judge: the gate fails when the pass rate fell
