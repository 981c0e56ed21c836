"""Juries on labelled sets: the members' outcomes per item combined by the jury's rule, then measured."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from judges.agreement.label_rows import minmax_scale, orient
from judges.agreement.predictions import Prediction
from judges.agreement.predictions_columns import ColumnItems
from judges.labels.schema import LabelledSet, LabelType
from judges.leaderboard.config_types import Candidate, Evaluation, Jury
from judges.leaderboard.entries import Entry
from judges.leaderboard.jury import combine, set_error_figures
from judges.leaderboard.jury_errors import ErrorCorrelation, error_correlation
from judges.leaderboard.label_figures import HEADLINE, labelled_entry
from judges.types import FailureKind, Verdict, VerdictState

Scored = tuple[Mapping[str, Prediction], dict[str, Any]]  # a candidate's outcome per item, and what it took
MAJORITY_LABELS = (LabelType.BINARY, LabelType.ORDINAL)  # votes need classes (ordinal levels count as classes)


def _votes(member: Candidate, scores: Mapping[str, Prediction], label_type: LabelType, scale: Any) -> Any:
    """A member's outcome per item as a majority vote (a 0/1 verdict, or a level of the scale), or why it has none."""
    graded = [p.score for p in scores.values() if p.score is not None]
    if label_type is LabelType.BINARY and all(v in (0.0, 1.0) for v in graded):
        cut = 0.5  # 0/1 grades vote as given (a lower-is-better 1 votes 0)
    elif label_type is LabelType.BINARY and member.threshold is not None:
        cut = member.threshold
    elif label_type is LabelType.BINARY:
        return f"member {member.name} gives continuous scores and no threshold: a majority needs its 0/1 votes"
    elif all(scale[0] <= v <= scale[1] and float(v).is_integer() for v in graded):
        turned, _ = orient(list(scores.values()), scale, member.higher_is_better)
        return dict(zip(scores, turned))
    else:
        return f"member {member.name} gives scores off the label levels: a majority needs votes on them"

    def vote(score: float) -> float:
        return float(score >= cut) if member.higher_is_better else float(score <= cut)

    return {i: p if p.score is None else Prediction(i, p.state, vote(p.score), p.message) for i, p in scores.items()}


def _vote_matrix(
    members: list[Candidate], scored: Sequence[Mapping[str, Prediction]], ids: list[str], first: Any
) -> np.ndarray | None:
    """(members, items) of 0/1 votes, as `_votes` gives them, when the labels are binary and every member graded
    exactly the labelled items with a cut (a big board's usual jury), in arrays; None otherwise (item by item)."""
    if first.label_type is not LabelType.BINARY:
        return None
    rows = []
    for member, scores in zip(members, scored):
        values = scores.scores_in(ids) if isinstance(scores, ColumnItems) else _graded_scores(scores, ids)
        if values is None:
            return None
        if np.isin(values, (0.0, 1.0)).all():
            cut = 0.5
        elif member.threshold is not None:
            cut = member.threshold
        else:
            return None
        rows.append(values >= cut if member.higher_is_better else values <= cut)
    return np.array(rows, dtype=float)


def _graded_scores(scores: Mapping[str, Prediction], ids: list[str]) -> np.ndarray | None:
    """The score of each id when the outcomes are exactly grades of `ids`, else None."""
    outcomes = [scores.get(i) for i in ids]
    if len(scores) != len(ids) or any(p is None or p.state is not VerdictState.GRADE for p in outcomes):
        return None
    return np.array([p.score for p in outcomes if p is not None], dtype=float)


def _majority(votes: np.ndarray, ids: list[str]) -> ColumnItems:
    """`combine`'s majority of 0/1 votes on every item: the value most members give, the first member's on a tie;
    a grade per item, held as a column."""
    ones = votes.sum(axis=0)
    zeros = votes.shape[0] - ones
    chosen = np.where(ones > zeros, 1.0, np.where(ones < zeros, 0.0, votes[0]))
    return ColumnItems(list(ids), chosen, Prediction)


def _turned(member: Candidate, scores: Mapping[str, Prediction], scale: Any) -> dict[str, Prediction]:
    """A member's scores with a lower-is-better member turned around (as agreement turns it), for median and mean."""
    turned, _ = orient(list(scores.values()), scale, member.higher_is_better)
    return dict(zip(scores, turned))


def _verdict(prediction: Prediction) -> Verdict:
    if prediction.state is VerdictState.FAILURE:
        return Verdict.failed(FailureKind.UPSTREAM_FAILED, prediction.message or "member failed")
    if prediction.state is VerdictState.NULL or prediction.score is None:
        return Verdict.null()
    return Verdict.graded(float(prediction.score))


def jury_scores(
    jury: Jury, members: list[Candidate], scored: Sequence[Mapping[str, Prediction]], labels: LabelledSet
) -> Mapping[str, Prediction] | str:
    """The jury's outcome per item from the members that have one (an item none has stays missing), or why it
    cannot be combined on these labels."""
    first = labels.items[0]
    if jury.rule == "majority":
        if first.label_type not in MAJORITY_LABELS:
            return f"majority combines votes on binary or ordinal labels; these are {first.label_type.value}: use median or mean"
        ids = labels.by_item[0]
        if (votes := _vote_matrix(members, scored, ids, first)) is not None:
            return _majority(votes, ids)
        ready = [_votes(m, s, first.label_type, first.scale) for m, s in zip(members, scored)]
        problems = [r for r in ready if isinstance(r, str)]
        if problems:
            return problems[0]
    else:
        ready = [_turned(m, s, first.scale) for m, s in zip(members, scored)]
    out = {}
    for item in dict.fromkeys(i.id for i in labels.items):
        given = [outcomes[item] for outcomes in ready if item in outcomes]
        if not given:
            continue
        verdict = combine([_verdict(p) for p in given], jury.rule)
        out[item] = Prediction(item, verdict.state, verdict.grade, verdict.message if verdict.is_failure else None)
    return out


def _failure_rate(outcomes: Mapping[str, Prediction]) -> float | None:
    """The share of items whose outcome is a failure (none among grades held as a column); None without items."""
    if not outcomes:
        return None
    if isinstance(outcomes, ColumnItems):
        return 0.0
    return sum(p.state is VerdictState.FAILURE for p in outcomes.values()) / len(outcomes)


def on_label_scale(scores: Mapping[str, Prediction], first: Any) -> Mapping[str, Prediction]:
    """A member's grades as they stand when every one lies on the label scale, else (and always for preferences,
    as agreement scales a preference difference) min-max scaled onto it, so that its signed errors mean
    distances on the label scale whatever scale the member grades on."""
    graded = {i: float(p.score) for i, p in scores.items() if p.score is not None}
    low, high = first.scale
    if first.label_type is not LabelType.PREFERENCE and all(low <= v <= high for v in graded.values()):
        return scores
    scaled = dict(zip(graded, minmax_scale(np.array(list(graded.values()), dtype=float), first.scale).tolist()))
    return {i: Prediction(i, p.state, scaled[i], p.message) if i in scaled else p for i, p in scores.items()}


def member_errors(
    members: list[Candidate], scored: Sequence[Mapping[str, Prediction]], labels: LabelledSet
) -> ErrorCorrelation:
    """Each member's error per item against the mean human label: on binary labels 1 where its 0/1 vote differs
    from the label (items whose annotators disagree left out), on graded labels its signed error (score - label);
    the correlation of these over the jury's members, or why there is none."""
    first = labels.items[0]
    ids, annotations = labels.by_item
    truth = {i: sum(label for _, label in pairs) / len(pairs) for i, pairs in zip(ids, annotations)}
    binary = first.label_type is LabelType.BINARY
    outcomes: list[Any]
    if binary and (votes := _vote_matrix(members, scored, ids, first)) is not None:
        decided = [truth[i] in (0.0, 1.0) for i in ids]
        return error_correlation(
            [{i: float(v != truth[i]) for i, v, d in zip(ids, row.tolist(), decided) if d} for row in votes]
        )
    if binary:
        outcomes = [_votes(m, s, first.label_type, first.scale) for m, s in zip(members, scored)]
    else:
        outcomes = [on_label_scale(_turned(m, s, first.scale), first) for m, s in zip(members, scored)]
    if problems := [o for o in outcomes if isinstance(o, str)]:
        return ErrorCorrelation(None, None, 0, 0, problems[0])
    errors = [
        {
            i: (float(p.score != truth[i]) if binary else float(p.score) - truth[i])
            for i, p in outcome.items()
            if p.score is not None and i in truth and (not binary or truth[i] in (0.0, 1.0))
        }
        for outcome in outcomes
    ]
    return error_correlation(errors)


def label_jury_entries(
    juries: list[Jury],
    candidates: Mapping[str, Candidate],
    evaluation: Evaluation,
    labels: LabelledSet,
    scored: Mapping[str, Scored],
) -> list[Entry]:
    """Each jury's row on one labelled evaluation, from its members' outcomes there (no call); costs summed."""

    entries = []
    for jury in juries:
        members = [candidates[name] for name in jury.members]
        base: dict[str, Any] = dict(
            candidate=jury.name,
            kind="jury",
            model=None,
            prompts=None,
            prompt_sha=None,
            evaluation=evaluation.name,
            metric=labels.metrics()[0],
            members=tuple(jury.members),
        )
        absent = [m.name for m in members if m.name not in scored]
        outcomes: Mapping[str, Prediction] | str = (
            f"no outputs here from {', '.join(absent)}"
            if absent
            else jury_scores(jury, members, [scored[m.name][0] for m in members], labels)
        )
        if isinstance(outcomes, str):
            statistic = evaluation.statistic or HEADLINE[labels.items[0].label_type][0]
            entries.append(
                Entry(**base, statistic=statistic, value=None, ci_low=None, ci_high=None, n=0, note=outcomes)
            )
            continue
        costs = [scored[m.name][1] for m in members]
        latencies: list[float | None] = [c.get("latency_s_per_uncached_call") for c in costs]
        base |= dict(
            calls=sum(int(c["calls"]) for c in costs),
            cost_usd=sum(float(c["cost_usd"]) for c in costs),
            seconds=sum(float(c["seconds"]) for c in costs),
            cost_measured=all(c.get("cost_measured", True) for c in costs),
            # the members are asked side by side: the jury waits for the slowest
            latency_s_per_uncached_call=None if None in latencies else max(x for x in latencies if x is not None),
            failure_rate=_failure_rate(outcomes),
        )
        entry = labelled_entry(base, outcomes, labels, evaluation)
        set_error_figures(entry, member_errors(members, [scored[m.name][0] for m in members], labels))
        entries.append(entry)
    return entries
