"""What a value column measures: each statistic's direction, its chance level, and when it may never win."""

from __future__ import annotations

# every statistic the leaderboard ranks is higher-is-better unless named here
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
# statistics whose sign says the judge orders items against the humans: a negative value never wins
CORRELATIONS = frozenset(
    {"pearson", "spearman", "kendall_tau_b", "mcc", "weighted_kappa", "krippendorff_alpha", "cohen_kappa", "gwet_ac1"}
    | {name for name in SYSTEM_AWARE | PER_GROUP if "pearson" in name or "spearman" in name or "kendall" in name}
)
# shares of a judge that knows nothing: half the classes, or half the system pairs, told right
HALF = frozenset({"auroc", "balanced_accuracy", "balanced_accuracy_system_macro", "system_level_pairwise_accuracy"})
# the figure of a judge that knows nothing: a candidate must beat it even when no baseline has a figure
CHANCE = {**{name: 0.5 for name in HALF}, **{name: 0.0 for name in CORRELATIONS}}
# every statistic a labelled evaluation may rank by (`statistic` in its table)
LABEL_STATISTICS = frozenset(
    CHANCE.keys() | {"f1", "agreement", "agreement_decisive", "krippendorff_alpha"} | SYSTEM_AWARE | PER_GROUP
)

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
    }
)


def higher_is_better(statistic: str) -> bool:
    return statistic not in LOWER_IS_BETTER


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
    if statistic in CORRELATIONS and value < 0:
        return f"negative {statistic} ({value:.3f}): orders items against the humans, never wins"
    if statistic in HALF and value < 0.5:
        return f"{statistic} {value:.3f} below chance (0.5), never wins"
    return None
