"""Agreement of a judged run with the labels (through `judges.agreement.measure`), the items it gets most wrong,
and the paired bootstrap of tuned minus base on the same items."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

from judges.agreement.agreement_settings import AgreementSettings
from judges.agreement.bootstrap import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    ItemRows,
    percentile_interval,
    resample_blocks,
    resampler,
)
from judges.agreement.label_rows import grouped
from judges.agreement.measure import measure
from judges.agreement.policy import Policy
from judges.agreement.predictions import Prediction, Predictions, record_prediction
from judges.agreement.result import MetricAgreement
from judges.agreement.statistic_index import INDEX
from judges.errors import ConfigError
from judges.labels.schema import LabelledSet, LabelType
from judges.runs.run import Run
from judges.tuning.search import no_figure
from judges.types import VerdictState

# The statistic the search maximises, per label type: balanced accuracy for binary labels (a 0/1 judge: chance is
# 0.5 whatever the class balance), Spearman's rho for ordinal and continuous ones (no judge prompt grades a pair).
OBJECTIVE = {LabelType.BINARY: "balanced_accuracy", LabelType.ORDINAL: "spearman", LabelType.CONTINUOUS: "spearman"}
CONSTANT = {"balanced_accuracy": 0.5, "spearman": None}  # what a judge giving every item the same grade scores
POLICY = Policy.WRONG  # a null or a failed verdict counts as the grade farthest from the label, never as a grade


def objective(labels: LabelledSet) -> str:
    label_type = labels.items[0].label_type
    if label_type not in OBJECTIVE:
        raise ConfigError(f"{labels.name}: pairwise preferences are not tuned (a judge prompt grades one answer)")
    return OBJECTIVE[label_type]


def run_predictions(run: Run, template: str) -> Predictions:
    """The run's verdicts on the template's metric, keyed by item (applied to the labelled metric measured)."""
    found = [  # the records streamed; the predictions put in item order, as the run's records are
        (record.order, record.id, record_prediction(record.id, record.metrics[template]))
        for record in run.iter_records()
        if record.draw == 0 and template in record.metrics
    ]
    found.sort(key=lambda entry: entry[0])
    by_key: dict[tuple[str, str | None], Prediction] = {(item, None): prediction for _, item, prediction in found}
    return Predictions(by_key, source=run.config.prompts_folder or "")


def agreement(labels: LabelledSet, predictions: Predictions, resamples: int = DEFAULT_RESAMPLES) -> MetricAgreement:
    return measure(labels, predictions, AgreementSettings.model_construct(policy=POLICY.value, resamples=resamples))


def _graded(prediction: Prediction | None) -> bool:
    return prediction is not None and prediction.state is VerdictState.GRADE and prediction.score is not None


def _item_arrays(labels: LabelledSet, predictions: Predictions) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Per item: the mean human label, and the judge's value with a null or failure counted wrong (on the label
    scale: the end farthest from the label)."""

    ids, annotations = grouped(labels)
    low, high = labels.items[0].scale
    human = np.array([np.mean([lab for _, lab in ann]) for ann in annotations], dtype=float)
    values = []
    for item_id, mean in zip(ids, human, strict=True):
        prediction = predictions.get(item_id, labels.items[0].metric)
        farthest = low if (mean - low) / (high - low) >= 0.5 else high
        values.append(prediction.score if prediction is not None and _graded(prediction) else farthest)
    return ids, human, np.array(values, dtype=float)


def disagreements(labels: LabelledSet, predictions: Predictions, template_scale: tuple[float, float]) -> list[str]:
    """Item ids, the ones the judge gets most wrong first: |judge - mean label|, both as positions on their scale
    (a null or failure is as wrong as can be); ties keep the given order."""
    ids, human, judge = _item_arrays(labels, predictions)
    low, high = labels.items[0].scale
    graded = {i for i in ids if _graded(predictions.get(i, labels.items[0].metric))}
    human_position = (human - low) / (high - low)
    judge_position = (judge - template_scale[0]) / (template_scale[1] - template_scale[0])
    distance = [1.0 if i not in graded else abs(j - h) for i, h, j in zip(ids, human_position, judge_position)]
    order = sorted(range(len(ids)), key=lambda n: -distance[n])
    return [ids[n] for n in order]


def _majority(human: np.ndarray, statistic: str) -> np.ndarray:
    """Balanced accuracy compares with the majority label (a tie counted as 1, as `measure` does)."""
    return (human >= 0.5).astype(float) if statistic == "balanced_accuracy" else human


def _statistic(name: str) -> Any:
    """The objective as `measure` computes it: on binary labels the judge's 0/1 calls, else its values."""
    label_type = next(t for t, objective in OBJECTIVE.items() if objective == name)
    return INDEX[name].statistic(label_type, (0.0, 1.0))


def ungraded(labels: LabelledSet, predictions: Predictions) -> str | None:
    """Why the judge has no figure on these items: not one of its verdicts is a grade (None when one is)."""
    ids, metric = sorted({item.id for item in labels.items}), labels.items[0].metric
    kinds: Counter[str] = Counter()
    nulls = 0
    for item_id in ids:
        prediction = predictions.get(item_id, metric)
        if _graded(prediction):
            return None
        if prediction is None or prediction.state is VerdictState.FAILURE:
            kinds[(prediction.message if prediction else None) or "no verdict"] += 1
        else:
            nulls += 1
    return no_figure("grade", f"{len(ids)} items", kinds, nulls)


def statistic_value(labels: LabelledSet, predictions: Predictions, statistic: str) -> float | None:
    """The statistic on the items' mean labels, nulls and failures counted wrong: what the search ranks on; None
    when the judge graded none of the items (no figure is made of failures alone) or the statistic is undefined."""
    if ungraded(labels, predictions):
        return None
    _, human, judge = _item_arrays(labels, predictions)
    value = _statistic(statistic)(_majority(human, statistic), judge)
    return float(value) if np.isfinite(value) else None


def paired_difference(
    labels: LabelledSet,
    base: Predictions,
    tuned: Predictions,
    statistic: str,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> dict[str, Any]:
    """Tuned minus base on the statistic, on the items both graded, with a percentile interval from one paired
    bootstrap: each resample draws the same items for both (Efron & Tibshirani 1993, ch. 16), so the difference is
    not blurred by which items were drawn. Items are scored on their mean label; an item either side failed or left
    null is left out (a failure is not a grade, so it is not compared). No item graded by both, or a statistic
    undefined on them: no figure, and `reason` says why. Each resample's statistic comes from the agreement
    module's own resampler."""
    import warnings

    ids, human, base_values = _item_arrays(labels, base)
    _, _, tuned_values = _item_arrays(labels, tuned)
    metric = labels.items[0].metric
    both = [k for k, i in enumerate(ids) if _graded(base.get(i, metric)) and _graded(tuned.get(i, metric))]
    out: dict[str, Any] = {
        "statistic": statistic, "value": None, "ci_low": None, "ci_high": None, "n_items": len(both),
        "n_held_out": len(ids), "resamples": resamples, "undefined_resamples": None, "reason": None,
    }  # fmt: skip
    if not both:
        side = next((name for name, p in (("base", base), ("tuned", tuned)) if ungraded(labels, p)), None)
        out["reason"] = (
            f"the {side} prompts graded none of the {len(ids)} items" if side else "no item was graded by both"
        )
        return out
    human = _majority(human[both], statistic)
    base_values, tuned_values = base_values[both], tuned_values[both]
    stat = _statistic(statistic)
    value = stat(human, tuned_values) - stat(human, base_values)
    if not np.isfinite(value):
        out["reason"] = f"{statistic} is undefined on the {len(both)} items both graded (one class only)"
        return out
    rows = ItemRows.repeated(np.ones(len(both), dtype=np.int64))
    on_base, on_tuned = resampler(stat, human, base_values, rows), resampler(stat, human, tuned_values, rows)
    blocks = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for index in resample_blocks(len(both), resamples, seed):
            weights = rows.weights(index)
            blocks.append(on_tuned(index, weights) - on_base(index, weights))
    ci, undefined = percentile_interval(np.concatenate(blocks), 0.95)
    out.update(
        value=float(value),
        ci_low=None if ci is None else ci[0],
        ci_high=None if ci is None else ci[1],
        undefined_resamples=undefined,
    )
    return out


def per_item_usage(run: Run) -> dict[str, float]:
    """What judging one item cost in the run: calls, tokens (prompt plus reply) and USD, averaged over its items."""
    usage = run.summary.usage
    n = max(run.summary.n_items, 1)
    return {
        "calls": usage.calls / n,
        "tokens": (usage.prompt_tokens + usage.completion_tokens) / n,
        "cost_usd": usage.cost / n,
        "priced_cost_usd": usage.priced_cost / n,
    }


def graded_share(predictions: Predictions, ids: Sequence[str]) -> float:
    graded = sum(1 for i in ids if _graded(predictions.get(i, "")))
    return graded / len(ids) if ids else 0.0
