"""One labelled leaderboard row: agreement measured, the ranking statistic chosen, every figure kept."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from judges.agreement.agreement_settings import AgreementSettings
from judges.agreement.measure import measure
from judges.agreement.predictions import Prediction, Predictions
from judges.agreement.predictions_columns import ItemOutcomes
from judges.agreement.result import MetricAgreement
from judges.agreement.threshold import Calibration
from judges.labels.label_sets import open_labels
from judges.labels.schema import LabelledSet, LabelType
from judges.leaderboard.columns import PER_GROUP, SYSTEM_AWARE
from judges.leaderboard.config_types import Evaluation
from judges.leaderboard.entries import Entry, noted
from judges.leaderboard.label_paired import label_pairs
from judges.types import VerdictState

# the figure ranked per label type when the config names none; for a binary label the balanced accuracy ranks a
# judge whose cut is settled (0/1 grades or a given threshold), AUROC a continuous score (it needs no cut)
HEADLINE = {
    LabelType.BINARY: ("auroc", "balanced_accuracy"),
    LabelType.ORDINAL: ("spearman",),
    LabelType.CONTINUOUS: ("spearman",),
    LabelType.PREFERENCE: ("spearman",),
}


def calibration_of(evaluation: Evaluation) -> Calibration:
    """Where a continuous judge's cut for binary labels is fitted: the evaluation's calibration file, a fraction of
    its items, or k-fold cross-fitting."""

    items = open_labels(evaluation.calibration) if evaluation.calibration else None
    return Calibration(items=items, fraction=evaluation.calibration_fraction, folds=evaluation.folds)


# where the labels name two or more systems, the figure that controls for the system ranks instead of the plain one
SYSTEM_AWARE_HEADLINE = {
    LabelType.BINARY: "balanced_accuracy_system_macro",
    LabelType.ORDINAL: "partial_spearman",
    LabelType.CONTINUOUS: "partial_spearman",
}
# where answers share a question (items name their group), the figure within each question ranks: the mean of the
# per-question Spearman (SummEval's summary-level correlation), or for binary labels the tie-calibrated pairwise
# accuracy within questions (acc*_eq, Deutsch, Foster and Freitag, EMNLP 2023), where a tied pair is a right tie
GROUPED_HEADLINE = {
    LabelType.BINARY: "pairwise_accuracy_tie_calibrated",
    LabelType.ORDINAL: "group_spearman",
    LabelType.CONTINUOUS: "group_spearman",
}


def plain_headline(agreement: MetricAgreement, cut_given: bool) -> str:
    """The plain statistic for the label type (see HEADLINE)."""
    if agreement.label_type is LabelType.BINARY and (agreement.judge_scale.binary or cut_given):
        return "balanced_accuracy"
    computed = {f.statistic for f in agreement.judge if f.value is not None}
    order = HEADLINE[agreement.label_type]
    return next((s for s in order if s in computed), order[0])


def headline(agreement: MetricAgreement, evaluation: Evaluation, cut_given: bool) -> tuple[str, str | None]:
    """The statistic that ranks, and the plain one to show beside it when that is a system-aware or per-group
    figure: the config's `statistic`, else the system-aware figure where the items name two or more systems
    (partial Spearman controlling for the system, as FRANK, Pagnoni et al. NAACL 2021, ranks factuality metrics; or
    the macro of per-system balanced accuracy), else the per-question figure where items name their question
    (GROUPED_HEADLINE), else the plain one for the label type."""
    plain = plain_headline(agreement, cut_given)
    chosen = evaluation.statistic
    if chosen is None and agreement.systems is not None:
        chosen = SYSTEM_AWARE_HEADLINE.get(agreement.label_type)
    if chosen is None and agreement.groups is not None:
        chosen = GROUPED_HEADLINE.get(agreement.label_type)
    if chosen is None:
        return plain, None
    return chosen, plain if chosen in SYSTEM_AWARE | PER_GROUP and chosen != plain else None


def _missing_note(agreement: MetricAgreement) -> str | None:
    counts = agreement.counts
    lacking = counts.missing + counts.null + counts.failed
    if not lacking:
        return None
    parts = [
        f"{n} {what}" for n, what in ((counts.missing, "missing"), (counts.null, "null"), (counts.failed, "failed"))
    ]
    done = {"exclude": "excluded", "wrong": "counted as wrong", "impute": "imputed (median)"}[agreement.policy.value]
    return f"{', '.join(p for p in parts if not p.startswith('0 '))} of {agreement.n_items} items: {done}"


def labelled_entry(
    base: dict[str, Any],
    scores: Mapping[str, Prediction],
    labels: LabelledSet,
    evaluation: Evaluation,
    *,
    higher_is_better: bool = True,
    threshold: float | None = None,
    note: str | None = None,
) -> Entry:
    """The row of one judge (its outcome per labelled item id; an id it lacks is missing) on one evaluation."""

    label_type = labels.items[0].label_type
    if not any(p.state is VerdictState.GRADE and p.score is not None for p in scores.values()):
        return noted(
            [
                Entry(
                    **base,
                    statistic=evaluation.statistic or HEADLINE[label_type][0],
                    value=None,
                    ci_low=None,
                    ci_high=None,
                    n=len({item.id for item in labels.items}),
                    note="no figure: every item came back null or failed, or is missing",
                )
            ],
            note,
        )[0]
    agreement = measure(
        labels,
        Predictions(ItemOutcomes(scores), base["candidate"]),
        AgreementSettings.judged(
            evaluation,
            higher_is_better=higher_is_better,
            threshold=threshold if label_type is LabelType.BINARY else None,
        ),
        calibration=calibration_of(evaluation),
        intervals=(),  # only the ranked figure's interval is shown: it is measured below, once that one is known
    )
    statistic, plain = headline(agreement, evaluation, threshold is not None)
    figure = _figure(agreement, statistic, interval=True)
    plain_figure = _figure(agreement, plain) if plain else None
    ceiling = next((f for f in agreement.ceiling if f.statistic == statistic), None)
    why = figure.note if figure else f"{statistic} is not measured on {label_type.value} labels for this judge"
    entry = Entry(
        **base,
        statistic=statistic,
        value=figure.value if figure else None,
        ci_low=figure.ci[0] if figure and figure.ci else None,
        ci_high=figure.ci[1] if figure and figure.ci else None,
        n=figure.n_items if figure else agreement.n_items,
        ceiling=ceiling.value if ceiling else None,
        note=why if figure is None or figure.value is None else None,
        figures={f.statistic: f.value for f in agreement.figures()},
        plain_statistic=plain,
        plain_value=plain_figure.value if plain_figure else None,
        paired=label_pairs(agreement, statistic) if figure and figure.value is not None else None,
    )
    return noted([entry], "; ".join(n for n in (_missing_note(agreement), note) if n) or None)[0]


def _figure(agreement: MetricAgreement, statistic: str, *, interval: bool = False) -> Any:
    """A judge figure by name (plain or system-aware; with its interval when `interval`), or None where it was not
    measured."""
    try:
        return agreement.with_interval(statistic) if interval else agreement.figure(statistic)
    except KeyError:
        return None
