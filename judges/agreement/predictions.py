"""Reading judge outputs that judgelab did not produce: an id and a score per item, from JSONL or JSON."""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from judges.agreement.predictions_columns import ColumnOutcomes, OneMetric, plain_columns
from judges.errors import ConfigError, InputError
from judges.files.checked import LARGEST_NUMBER, json_type, read_json_file, too_large
from judges.files.jsonl import read_jsonl
from judges.labels.mapping import get_field
from judges.records import MetricRecord
from judges.runs.run_writer import FolderRecorder
from judges.types import VerdictState

if TYPE_CHECKING:
    from judges.agreement.outcome_columns import OutcomeColumns

FAILED_STATUSES = {"failed", "failure", "error"}


@dataclass(frozen=True, slots=True)
class Prediction:
    """One judge outcome for one item: a score, a legitimate null, or a failure (with its message).

    For a pairwise item the score is the judge's preference for answer b (> 0), e.g. score_b - score_a.
    `confidence` is the judge's own confidence in its verdict, in [0, 1], when the source states one (a file's
    `confidence` column, a run record's `confidence`); None otherwise.
    """

    id: str
    state: VerdictState
    score: float | None = None
    message: str | None = None
    confidence: float | None = None


@dataclass(frozen=True)
class Predictions:
    """Judge outcomes keyed by (item id, metric); metric None when the file holds one metric."""

    by_key: Mapping[tuple[str, str | None], Prediction]
    source: str = ""

    def get(self, item_id: str, metric: str) -> Prediction | None:
        return self.by_key.get((item_id, metric)) or self.by_key.get((item_id, None))

    def outcomes(self, ids: Sequence[str], metric: str) -> list[Prediction | None]:
        """`get` of each id, in order (outcomes of one metric held by id: without a key per item)."""
        if isinstance(self.by_key, OneMetric):
            return self.by_key.outcomes(ids)
        return [self.get(i, metric) for i in ids]

    def outcome_columns(self, ids: Sequence[str], metric: str) -> OutcomeColumns:
        """`outcomes` as columns: grades held as a column stay one (no object per item)."""
        from judges.agreement.outcome_columns import OutcomeColumns  # defers numpy

        if isinstance(self.by_key, OneMetric) and (held := self.by_key.score_columns(ids)) is not None:
            return OutcomeColumns.held(*held)
        return OutcomeColumns.of(self.outcomes(ids, metric))

    def covers_any(self, ids: Iterable[str], metric: str) -> bool:
        """Whether any of `ids` has an outcome for `metric` (outcomes of one metric held by id: no index kept)."""
        if isinstance(self.by_key, OneMetric):
            return not self.by_key.item_ids().isdisjoint(ids)
        return any(self.get(i, metric) is not None for i in ids)

    def all_within(self, ids: Sequence[str], metric: str) -> bool:
        """Whether every item with an outcome for `metric` is one of `ids` (without a set of them when the outcomes
        are held as a column of exactly those ids)."""
        if isinstance(self.by_key, OneMetric) and (held := self.by_key.score_columns(ids)) and held[1] is None:
            return len(self.by_key) == len(ids)
        return self.ids(metric) <= set(ids)

    def may_state_confidence(self) -> bool:
        """Whether any outcome may carry a stated confidence (grades held as a column carry none)."""
        return not isinstance(self.by_key, OneMetric) or self.by_key.may_state_confidence()

    def count(self, metric: str) -> int:
        """How many items have an outcome for `metric` (`len(ids(metric))`)."""
        return len(self.by_key) if isinstance(self.by_key, OneMetric) else len(self.ids(metric))

    def ids(self, metric: str) -> set[str]:
        if isinstance(self.by_key, OneMetric):
            return self.by_key.item_ids()
        return {i for (i, m) in self.by_key if m in (metric, None)}


def parse_score_fields(text: str) -> tuple[str, ...]:
    """`score` (one field) or `a_field,b_field` (two scores of a pair; the preference is b - a)."""
    parts = tuple(p.strip() for p in text.split(","))
    if not 1 <= len(parts) <= 2 or not all(parts):
        raise ConfigError(f"--score-field: expected FIELD or A_FIELD,B_FIELD, got {text!r}")
    return parts


FAR_OFF_WIDTHS = 1e6  # a score further than this many label-scale widths outside the scale is a broken value


def score_bounds(scale: tuple[float, float]) -> tuple[float, float]:
    """The widest scores taken as grades for labels on `scale`: a million scale widths on either side.

    Judges grade on their own scales (a probability against 1-5 labels, a logit, a percentage), so a score may
    lie outside the label scale; one beyond a million widths of it (1e308, an overflowed sum, a 1e9 sentinel)
    is not a grade, and would make every correlation undefined or meaningless.
    """
    width = scale[1] - scale[0]
    return scale[0] - FAR_OFF_WIDTHS * width, scale[1] + FAR_OFF_WIDTHS * width


def _number(
    value: Any, *, where: dict[str, Any], bounds: tuple[float, float] | None
) -> tuple[VerdictState, float | None]:
    """A grade or a null; a boolean, a non-finite number or one beyond `bounds` is an InputError (not a grade)."""
    if value is None:
        return VerdictState.NULL, None
    if isinstance(value, bool):
        raise InputError(f"expected a number or null, got the boolean {json.dumps(value)}", **where)
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            raise InputError(f"expected a number or null, got {value!r}", **where) from None
    if not isinstance(value, (int, float)):
        raise InputError(f"expected a number or null, got {json_type(value)}", **where)
    if isinstance(value, int) and abs(value) > LARGEST_NUMBER:
        raise InputError(too_large(value), **where)
    number = float(value)
    if not math.isfinite(number):
        raise InputError(f"expected a finite number or null, got {number}", **where)
    if bounds is not None and not bounds[0] <= number <= bounds[1]:
        raise InputError(
            f"score {number:g} lies far outside the label scale (accepted: [{bounds[0]:g}, {bounds[1]:g}], "
            "a million scale widths either side)",
            **where,
        )
    return VerdictState.GRADE, number


def parse_prediction(
    row: Mapping[str, Any],
    *,
    id_field: str,
    score_fields: tuple[str, ...],
    path: str,
    line: int | None,
    bounds: tuple[float, float] | None = None,
) -> Prediction:
    """A Prediction from one row; a row with a truthy `error` or a failed `status` is a failure; a null score a null."""
    try:
        item_id = get_field(row, id_field)
    except KeyError:
        raise InputError("missing id", path=path, line=line, field=id_field) from None
    error = row.get("error")
    if error or str(row.get("status", "")).lower() in FAILED_STATUSES:
        return Prediction(str(item_id), VerdictState.FAILURE, message=str(error or row.get("status")))
    outcomes = []
    for name in score_fields:
        try:
            value = get_field(row, name)
        except KeyError:
            raise InputError("missing score", path=path, line=line, field=name) from None
        outcomes.append(_number(value, where={"path": path, "line": line, "field": name}, bounds=bounds))
    if any(state is VerdictState.NULL for state, _ in outcomes):
        return Prediction(str(item_id), VerdictState.NULL)
    scores = [score for _, score in outcomes if score is not None]
    confidence = stated_confidence(row.get("confidence"), where={"path": path, "line": line, "field": "confidence"})
    score = scores[-1] - scores[0] if len(scores) == 2 else scores[0]
    return Prediction(str(item_id), VerdictState.GRADE, score=score, confidence=confidence)


def stated_confidence(value: Any, *, where: dict[str, Any]) -> float | None:
    """A verdict's stated confidence: None when absent or null, else a number in [0, 1] (anything else an InputError)."""
    state, number = _number(value, where=where, bounds=None)
    if state is VerdictState.NULL or number is None:
        return None
    if not 0 <= number <= 1:
        raise InputError(f"a confidence lies in [0, 1], got {number:g}", **where)
    return number


def _rows(path: Path, id_field: str) -> Iterator[tuple[int | None, Mapping[str, Any]]]:
    if path.suffix.lower() == ".jsonl":
        yield from read_jsonl(path, expects=f"{id_field} and a score")
        return
    if not path.is_file():
        raise InputError("file not found", path=str(path))

    data = read_json_file(path)
    if isinstance(data, dict):  # {id: score} or {id: {fields}}
        for key, value in data.items():
            yield None, ({id_field: key, **value} if isinstance(value, dict) else {id_field: key, "score": value})
    elif isinstance(data, list) and all(isinstance(row, dict) for row in data):
        yield from ((None, row) for row in data)
    else:
        raise InputError("expected JSON Lines, a JSON list of objects, or a JSON object {id: score}", path=str(path))


def _plain_file(path: Path, fields: tuple[str, ...]) -> bool:
    return path.suffix.lower() == ".jsonl" and len(fields) == 1 and path.is_file()


def read_predictions(
    path: str | Path,
    *,
    id_field: str = "id",
    score_field: str = "score",
    metric: str | None = None,
    scale: tuple[float, float] | None = None,
) -> Predictions:
    """Judge outcomes from a file; `{metric}` in a field name is replaced by `metric`.

    A row may carry a `metric` field (one row per item and metric); otherwise its score applies to
    the metric being measured. Duplicate (id, metric) rows are an error, and so is a score that is a boolean,
    not finite, or (given the label `scale`) far outside it (`score_bounds`).
    """
    if Path(path).is_dir():
        return run_predictions(path)
    fields = parse_score_fields(score_field.replace("{metric}", metric) if metric else score_field)
    bounds = None if scale is None else score_bounds(scale)
    plain = plain_columns(Path(path), id_field, fields[0], bounds) if _plain_file(Path(path), fields) else None
    if plain is not None:  # an id and a score per line: held in columns
        return Predictions(ColumnOutcomes(*plain, Prediction), source=str(path))
    by_key: dict[tuple[str, str | None], Prediction] = {}
    for number, (line, row) in enumerate(_rows(Path(path), id_field), start=1):
        try:
            prediction = parse_prediction(
                row, id_field=id_field, score_fields=fields, path=str(path), line=line, bounds=bounds
            )
        except InputError as err:
            if line is not None:
                raise
            message = str(err).removeprefix(f"{path}: ")
            raise InputError(f"entry {number}: {message}", path=str(path)) from None
        row_metric = row.get("metric")
        key = (prediction.id, str(row_metric) if row_metric is not None else None)
        if key in by_key:
            where = f"line {line}" if line else f"entry {number}"
            raise InputError(
                f"{where}: a second prediction for item {prediction.id!r}"
                + (f" and metric {row_metric!r}" if row_metric else ""),
                path=str(path),
                line=line,
                field=id_field,
            )
        by_key[key] = prediction
    if not by_key:
        raise InputError("no predictions in the file", path=str(path))
    return Predictions(by_key, source=str(path))


def record_prediction(item_id: str, entry: MetricRecord) -> Prediction:
    """A run record's verdict on one metric as a prediction: its grade, its null, or its failure with its kind."""
    verdict = entry.verdict
    message = verdict.failure_kind.value if verdict.failure_kind else verdict.message
    where = {"path": f"record {item_id!r}", "field": "confidence"}
    confidence = stated_confidence(getattr(entry, "confidence", None), where=where) if entry.value is not None else None
    return Prediction(item_id, verdict.state, entry.value, message, confidence)


def run_predictions(folder: str | Path) -> Predictions:
    """A judgelab run folder's verdicts (first draw): a grade, a null, or a failure with its kind, per item and metric."""

    run = FolderRecorder(folder).load()
    by_key: dict[tuple[str, str | None], Prediction] = {}
    for record in run.iter_records():
        if record.draw != 0:
            continue
        for metric, entry in record.metrics.items():
            by_key[(record.id, metric)] = record_prediction(record.id, entry)
    if not by_key:
        raise InputError("the run folder holds no verdicts", path=str(folder))
    return Predictions(by_key, source=str(folder))
