"""The search space of `judgelab tune`: a TOML file read into typed settings; a default ships with judgelab."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model, field_validator

from judges.config.judge import JudgeConfig
from judges.errors import ConfigError
from judges.files.toml_config import read_toml, validate_config

DEFAULT_SPACE = Path(__file__).resolve().parent / "default_space.toml"
MAX_EXAMPLES = 6
ReplyFormat = Literal["as_written", "justification_first", "grade_first", "grade_only"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


class MetricSpace(_Strict):
    """What may change in one metric's template."""

    instructions: list[str] = Field(default_factory=lambda: ["base"], min_length=1)
    examples: list[int] = Field(default_factory=lambda: [0], min_length=1)
    example_types: list[str] = Field(default_factory=list)
    reply_formats: list[ReplyFormat] = Field(default_factory=lambda: ["as_written"], min_length=1)  # type: ignore[arg-type]

    @field_validator("examples")
    @classmethod
    def _counts(cls, value: list[int]) -> list[int]:
        if any(k < 0 or k > MAX_EXAMPLES for k in value):
            raise ValueError(f"each count must be between 0 and {MAX_EXAMPLES}")
        return value

    @field_validator("instructions")
    @classmethod
    def _names(cls, value: list[str]) -> list[str]:
        if len(set(value)) != len(value):
            raise ValueError("a name is listed twice")
        return value


class Metrics(_Strict):
    """One table per GroUSE metric; a metric left out is not tuned."""

    answer_relevancy: MetricSpace | None = None
    completeness: MetricSpace | None = None
    faithfulness: MetricSpace | None = None
    usefulness: MetricSpace | None = None


def _values_of(name: str) -> Any:
    """`list[T]` for the JudgeConfig field `name` of type T: the values of that setting to try."""
    return list[JudgeConfig.model_fields[name].annotation]  # type: ignore[misc, name-defined]


# The judge settings a search may vary after the templates are chosen: each [decoding] key is a JudgeConfig field
# and lists values of that field's type; a key left out keeps the judge's own setting.
DECODING_FIELDS = ("temperature", "json_schema", "max_tokens", "seed")
Decoding = create_model(  # type: ignore[call-overload]
    "Decoding",
    __config__=ConfigDict(extra="forbid", allow_inf_nan=False),
    **{name: (_values_of(name) | None, Field(default=None, min_length=1)) for name in DECODING_FIELDS},
)


class Search(_Strict):
    """How the search runs."""

    first_round_tests: int = Field(default=4, ge=1)
    first_round_items: int = Field(default=8, ge=2)  # `tune --labels`: labelled items in the first round
    budget_calls: int | None = Field(default=800, ge=1)
    seed: int = 0
    variants: str = "variants"


class TuneSpace(_Strict):
    """The whole space file: [search], [decoding] and [metrics.<metric>] tables."""

    search: Search = Field(default_factory=Search)
    decoding: Decoding = Field(default_factory=Decoding)  # type: ignore[valid-type]
    metrics: Metrics = Field(default_factory=Metrics)

    def metric_spaces(self) -> dict[str, MetricSpace]:
        """The metrics this space tunes, in GroUSE order."""
        return {name: space for name, space in self.metrics if space is not None}


def load_space(path: str | Path | None = None) -> tuple[TuneSpace, Path]:
    """The space from a TOML file (default: the shipped one) and the folder its relative paths start from."""

    chosen = Path(path) if path is not None else DEFAULT_SPACE
    space = validate_config(TuneSpace, read_toml(chosen), chosen)
    if not space.metric_spaces():
        raise ConfigError(f"{chosen}: the space tunes no metric; add a [metrics.<metric>] table")
    return space, chosen.resolve().parent


def variant_path(root: Path, space: TuneSpace, metric: str, name: str) -> Path:
    """Where an instruction variant's template is: <variants>/<metric>/<name>.txt.jinja under the space's folder."""
    return root / space.search.variants / metric / f"{name}.txt.jinja"
