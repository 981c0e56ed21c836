"""Agreement's settings, typed: their fields make `judgelab agreement`'s flags and a leaderboard evaluation's keys."""

from __future__ import annotations

import math
from typing import Annotated, Any, Literal, TypeVar

from pydantic import BaseModel, BeforeValidator, ConfigDict, ValidationError, ValidationInfo, field_validator

from judges.config.fields import Cli, Range, in_range
from judges.errors import ConfigError
from judges.files.toml_config import number_pair
from judges.labels.label_sets import open_labels
from judges.labels.label_values import parse_label_map
from judges.labels.schema import LabelledSet
from judges.stats.resampling import RESAMPLES, SEED

OWN = "your own labelled data"
CUT = "the cut of a continuous judge score for binary labels (AUROC needs none; 0/1 grades are used as given)"
OPTIONS = "options"  # the command's own section
LabelTypeName = Literal["binary", "ordinal", "continuous", "preference"]
PolicyName = Literal["exclude", "wrong", "impute"]
Settings = TypeVar("Settings", bound=BaseModel)
_STRICT = ConfigDict(extra="forbid", frozen=True, strict=True, allow_inf_nan=False)


def parse_scale(text: str) -> tuple[float, float]:
    """`--scale LOW,HIGH`: two finite numbers, the first below the second."""
    try:
        low, high = (float(v) for v in text.split(","))
    except ValueError:
        raise ConfigError(f"--scale: expected LOW,HIGH, got {text!r}") from None
    if not (math.isfinite(low) and math.isfinite(high)):
        raise ConfigError(f"--scale: expected two finite numbers, got {text!r}")
    if low >= high:
        raise ConfigError("--scale: LOW must be below HIGH")
    return low, high


class LabelReading(BaseModel):
    """How labels are read: a shared set as it is, your own file through its columns, label type and scale (the
    label options of agreement, tune, cascade and validate). `LabelMeasuring` adds to it, `AgreementSettings` to that."""

    model_config = _STRICT

    metric: Annotated[str | None, Cli("only this metric (default: every metric of the labels)", "M", group=OPTIONS)] = (
        None
    )
    columns: Annotated[
        str | None,
        Cli(
            "field=path pairs, e.g. input=question,actual_output=answer,label=score (also id, references, "
            "expected_output, annotator, actual_output_b, metric, system: the system that wrote the answer, for the "
            "partial and system-level figures). Paths may be nested (doc.sentences[0]), fan out over annotators "
            "(label=annotations.*.label) or be constants (metric=const:faithfulness); a field not named keeps its "
            "own column name (label, id, input, ...), so a plain file needs none: no text when the predictions "
            "share the ids",
            "MAP",
            group=OWN,
        ),
    ] = None
    label_map: Annotated[
        dict[str, float] | None,
        Cli(
            'text labels to numbers, e.g. "Fully attributable=1,Generic=0,yes=1,no=0"',
            "TEXT=N,...",
            group=OWN,
            parse=parse_label_map,
        ),
    ] = None
    label_type: Annotated[
        LabelTypeName | None,
        Cli(
            "what your own file's labels are (read through the columns' default names, renamed with --columns): "
            "yes/no, grades on a scale, scores, or A-vs-B preferences",
            group=OWN,
        ),
    ] = None
    scale: Annotated[
        tuple[float, float] | None,
        BeforeValidator(number_pair),  # [1, 5] or "1,5" in a TOML file
        Cli("label scale, e.g. 1,5 (required for ordinal and preference)", "LOW,HIGH", group=OWN, parse=parse_scale),
    ] = None
    split: Annotated[str | None, Cli("split of a hub set or HF dataset", "SPLIT", group=OWN)] = None

    def open(self, spec: str, *, metric: bool = True, keep: tuple[str, ...] = ()) -> LabelledSet:
        """The labelled set `spec` read with these settings (`metric`: with the metric named for your own file;
        `keep`: your own file's further columns kept under each item's `extra`, e.g. a --slice field)."""
        return open_labels(
            spec,
            columns=self.columns,
            metric=self.metric if metric else None,
            label_type=self.label_type,
            scale=self.scale,
            split=self.split,
            label_map=self.label_map,
            keep=keep,
        )


RANGES: dict[str, Range] = {  # a number field: its check, what a bad value hears
    "resamples": (lambda v: v >= 100, "must be at least 100"),
    "folds": (lambda v: v >= 2, "must be at least 2"),
    "calibration_fraction": (lambda v: 0 < v < 1, "must be a fraction strictly between 0 and 1, e.g. 0.3"),
}


class LabelMeasuring(LabelReading):
    """How a judge's outcomes are measured on the labels: failures, the fitted cut, the bootstrap, the statistic (with
    the reading, the keys a leaderboard `labels` evaluation takes beside its source)."""

    policy: Annotated[
        PolicyName,
        Cli(
            "null, failed and missing judge outcomes: drop the item, count it as wrong, or impute the median "
            "(default exclude)",
            group=OPTIONS,
        ),
    ] = "exclude"
    calibration: Annotated[
        str | None,
        Cli(
            "fit the threshold on these labelled items (read like --labels, with the same --columns); the figures "
            "rest on the items of --labels",
            "SET_OR_FILE",
            group=CUT,
        ),
    ] = None
    calibration_fraction: Annotated[
        float | None,
        Cli(
            "fit the threshold on a seeded fraction F of the items and report on the rest (cross-fitted instead when "
            "that is under 50 items)",
            "F",
            group=CUT,
        ),
    ] = None
    folds: Annotated[
        int, Cli("folds of the cross-fitting used when no calibration is given (default 5)", "K", group=CUT)
    ] = 5
    resamples: Annotated[int, Cli(f"bootstrap resamples (default {RESAMPLES})", "N", group=OPTIONS)] = RESAMPLES
    statistic: str | None = None  # the leaderboard's ranking statistic (default: by label type and system names)

    @field_validator(*RANGES)
    @classmethod
    def _in_range(cls, value: float | None, info: ValidationInfo) -> float | None:
        return in_range(RANGES, info.field_name, value)


class AgreementSettings(LabelMeasuring):
    """Everything `judgelab agreement` measures with: the labels' reading and measuring, and the judge's side (its
    score fields and direction, the given cut; a leaderboard gives those per candidate), the bootstrap's seed."""

    id_field: Annotated[str, Cli("prediction id field (dotted path; default id)", "FIELD", group=OPTIONS)] = "id"
    score_field: Annotated[
        str,
        Cli(
            "score field, or the two score fields of a pair (preference = b - a); dotted paths; {metric} is replaced "
            "by the metric name (default score)",
            "FIELD[,FIELD_B]",
            group=OPTIONS,
        ),
    ] = "score"
    higher_is_better: Annotated[
        bool,
        Cli(
            "a higher judge score means a better answer (the default)",
            group=OPTIONS,
            off=("--lower-is-better", "a lower judge score means a better answer (e.g. a hallucination probability)"),
        ),
    ] = True
    threshold: Annotated[float | None, Cli("cut at T (given, not fitted)", "T", group=CUT)] = None
    seed: Annotated[int, Cli(f"bootstrap seed (default {SEED})", group=OPTIONS)] = SEED
    confidence: float = 0.95  # the bootstrap intervals' level

    @classmethod
    def judged(cls, measuring: LabelMeasuring, **judge: Any) -> AgreementSettings:
        """A leaderboard's labels evaluation (`measuring`) with one candidate's side (`higher_is_better`, `threshold`)."""
        return cls.model_validate(measuring.model_dump(include=set(LabelMeasuring.model_fields)) | judge)


def checked_settings(model: type[Settings], values: dict[str, Any]) -> Settings:
    """Checked settings (`AgreementSettings`, or a part of them) from the command line's flags; a bad value is one
    ConfigError line naming the flag."""
    try:
        return model.model_validate(values)
    except ValidationError as err:
        problem = err.errors(include_url=False)[0]
        name = str(problem["loc"][0]) if problem["loc"] else ""
        message = str(problem["msg"]).removeprefix("Value error, ")
        raise ConfigError(f"--{name.replace('_', '-')} {message}, got {problem.get('input')!r}") from None
