"""What a value column measures: each statistic's direction, its chance level, and when it may never win."""

from __future__ import annotations

from functools import cache

# every statistic the leaderboard ranks is higher-is-better unless named here or by its descriptor
LOWER_IS_BETTER = frozenset({"failure_rate", "mae", "rmse", "brier", "ece", "error_rate"})
# the figures that control for which system wrote the answer (judges.agreement.systems), where labels name systems
SYSTEM_AWARE = frozenset(
    {
        "partial_pearson",
        "partial_spearman",
        "system_level_pearson",
        "system_level_spearman",
        "system_level_kendall",
        "system_level_pairwise_accuracy",
        "balanced_accuracy_system_macro",
    }
)
# the figures within the items of one question or source (judges.agreement.groups), where labels name groups
PER_GROUP = frozenset({"group_pearson", "group_spearman", "group_kendall", "pairwise_accuracy_tie_calibrated"})
# of those, the correlations (a negative value orders items against the humans: it never wins) ...
FIGURE_CORRELATIONS = frozenset(
    name for name in SYSTEM_AWARE | PER_GROUP if "pearson" in name or "spearman" in name or "kendall" in name
)
# ... and the shares of a judge that knows nothing: half the system pairs, or half the classes, told right
FIGURE_HALF = frozenset({"balanced_accuracy_system_macro", "system_level_pairwise_accuracy"})


@cache
def _declared() -> dict[str, tuple[bool, float | None]]:
    """Each agreement statistic's direction and chance level, as its descriptor declares them."""
    from judges.agreement.statistic_index import STATISTICS  # defers numpy

    return {d.name: (d.higher_is_better, d.chance) for d in STATISTICS}


def chance(statistic: str) -> float | None:
    """The figure of a judge that knows nothing: a candidate must beat it even when no baseline has a figure."""
    if statistic in FIGURE_CORRELATIONS:
        return 0.0
    if statistic in FIGURE_HALF:
        return 0.5
    return _declared().get(statistic, (True, None))[1]


def label_statistics() -> frozenset[str]:
    """Every statistic a labelled evaluation may rank by (`statistic` in its table)."""
    return frozenset(_declared().keys() | SYSTEM_AWARE | PER_GROUP)


# every statistic a judge benchmark's evaluation (`format`) may rank by: the pairwise protocols' figures
# (judges.agreement.pairwise_protocols; the per-order and between-order ones need a verdict in each order)
PAIRWISE_STATISTICS = frozenset(
    {
        "accuracy_original",
        "accuracy_swapped",
        "accuracy_mean",
        "both_correct",
        "position_consistency",
        "kappa_original",
        "kappa_swapped",
        "kappa_between_orders",
        "vote_accuracy",
        "accuracy_with_ties",
        "accuracy_without_ties",
        "best_of_n",  # RewardBench 2's mean of its subsets' scores (judges.agreement.best_of_n)
    }
)


def higher_is_better(statistic: str) -> bool:
    return statistic not in LOWER_IS_BETTER and _declared().get(statistic, (True, None))[0]


def direction(statistic: str) -> str:
    return "higher is better" if higher_is_better(statistic) else "lower is better"


def named(statistic: str) -> str:
    """`auroc (higher is better)`: the statistic with its direction, for a column or a cell."""
    return f"{statistic} ({direction(statistic)})"


def oriented(statistic: str, value: float) -> float:
    """The value turned so that larger is always better (for sorting and comparing)."""
    return value if higher_is_better(statistic) else -value


def never_wins(statistic: str, value: float | None) -> str | None:
    """Why a figure can never be named best (a negative correlation, an AUROC below chance), or None."""
    if value is None:
        return None
    level = chance(statistic)
    if level == 0.0 and value < 0:
        return f"negative {statistic} ({value:.3f}): orders items against the humans, never wins"
    if level == 0.5 and value < 0.5:
        return f"{statistic} {value:.3f} below chance (0.5), never wins"
    return None
