"""Every agreement statistic declared once: its label types, direction, chance level, function and weighted form."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial

from judges.agreement import chance
from judges.agreement import statistics as st
from judges.agreement import weighted as w
from judges.agreement.statistics import JudgeScale, Statistic
from judges.labels.schema import LabelType
from judges.stats.alpha_forms import Weighted

BINARY, ORDINAL, CONTINUOUS, PREFERENCE = (
    LabelType.BINARY,
    LabelType.ORDINAL,
    LabelType.CONTINUOUS,
    LabelType.PREFERENCE,
)
Build = Callable[[LabelType, tuple[float, float]], Statistic]  # (label type, scale) -> the statistic on that scale
NEEDS_CUT = "a continuous judge score needs a threshold (--threshold, or one fitted on calibration items)"


@dataclass(frozen=True)
class Descriptor:
    """One agreement statistic: where it is reported, how it reads, and how it is computed.

    `label_types`: the labels it is reported on (in the report, statistics come in the order of `STATISTICS`).
    On binary labels every statistic but a `scores_only` one (AUROC) reads the judge's 0/1 calls (the "binary"
    view: its grades, or its score cut at the threshold) and is not applicable without a cut; `scores_only` is left
    out for a judge of 0/1 grades. `on_scale`: on other labels, not applicable when the judge's values are off the
    label scale. `scaled_on_preferences`: on preferences, it reads the judge's preference min-max scaled to the
    label scale (the RAGChecker protocol). `chance`: the figure of a judge that knows nothing (0: a correlation,
    a negative value never wins on a board; 0.5: a share of pairs or classes told right). `correlation`: two
    judges' values are compared by Williams' test of dependent correlations (`paired.py`), `function` giving the
    judges' own correlation. `function` and `weighted` (the form on a block of bootstrap resamples,
    `judges.agreement.weighted`) compute it; `build` instead, for a statistic that depends on the label scale.
    """

    name: str
    label_types: frozenset[LabelType]
    function: st.One | None = None
    weighted: Weighted | None = None
    higher_is_better: bool = True
    chance: float | None = None
    correlation: bool = False
    on_scale: bool = False
    scores_only: bool = False
    scaled_on_preferences: bool = False
    build: Build | None = field(default=None, kw_only=True)
    bootstrap_items: int | None = field(default=None, kw_only=True)
    asymptotic: st.Asymptotic | None = field(default=None, kw_only=True)
    asymptotic_note: str = field(default="", kw_only=True)

    def statistic(self, label_type: LabelType, scale: tuple[float, float]) -> Statistic:
        """The statistic as computed on these labels."""
        if self.build is not None:
            return self.build(label_type, scale)
        if label_type is BINARY and not self.scores_only:
            view = "binary"
        elif label_type is PREFERENCE and self.scaled_on_preferences:
            view = "scaled"
        else:
            view = "value"
        return Statistic(
            self.name,
            self.function,
            view=view,
            weighted=self.weighted,
            bootstrap_items=self.bootstrap_items,
            asymptotic=self.asymptotic,
            asymptotic_note=self.asymptotic_note,
        )


def _weighted_kappa(label_type: LabelType, scale: tuple[float, float]) -> Statistic:
    levels = st.levels_of(scale)
    return Statistic(
        "weighted_kappa",
        partial(st.weighted_kappa, levels=levels),
        weighted=w.quadratic_kappa([float(v) for v in levels]),
    )


def _alpha(label_type: LabelType, scale: tuple[float, float]) -> Statistic:
    if label_type is BINARY:
        return st.alpha("nominal", [0.0, 1.0], "binary")
    if label_type is ORDINAL:
        return st.alpha("ordinal", [float(v) for v in st.levels_of(scale)], "value")
    return st.alpha("interval", None, "value")


STATISTICS = (
    Descriptor(
        "balanced_accuracy",
        frozenset({BINARY}),
        st.balanced_accuracy,
        w.binary_from_counts(w.balanced_accuracy_counts),
        chance=0.5,
    ),
    Descriptor("f1", frozenset({BINARY}), st.f1, w.binary_from_counts(w.f1_counts)),
    Descriptor("mcc", frozenset({BINARY}), st.mcc, w.binary_from_counts(w.mcc_counts), chance=0.0),
    Descriptor(
        "cohen_kappa", frozenset({BINARY}), chance.cohen_kappa, w.binary_from_counts(chance.kappa_counts), chance=0.0
    ),
    Descriptor(  # beside kappa for skewed labels
        "gwet_ac1", frozenset({BINARY}), chance.gwet_ac1, w.binary_from_counts(chance.ac1_counts), chance=0.0
    ),
    Descriptor("agreement", frozenset({PREFERENCE}), st.sign_agreement, w.sign_agreement(decisive=False)),
    Descriptor("agreement_decisive", frozenset({PREFERENCE}), st.decisive_agreement, w.sign_agreement(decisive=True)),
    Descriptor(
        "pearson",
        frozenset({ORDINAL, CONTINUOUS, PREFERENCE}),
        st.pearson,
        w.pearson,
        chance=0.0,
        correlation=True,
        scaled_on_preferences=True,
    ),
    Descriptor(
        "spearman",
        frozenset({ORDINAL, CONTINUOUS, PREFERENCE}),
        st.spearman,
        w.spearman,
        chance=0.0,
        correlation=True,
        scaled_on_preferences=True,
    ),
    Descriptor(
        "kendall_tau_b",
        frozenset({ORDINAL, CONTINUOUS, PREFERENCE}),
        st.kendall,
        chance=0.0,
        scaled_on_preferences=True,
        bootstrap_items=st.BOOTSTRAP_ITEMS,
        asymptotic=st.kendall_interval,
        asymptotic_note=st.KENDALL_NOTE,
    ),
    Descriptor("weighted_kappa", frozenset({ORDINAL}), chance=0.0, on_scale=True, build=_weighted_kappa),
    Descriptor("krippendorff_alpha", frozenset({BINARY, ORDINAL, CONTINUOUS}), chance=0.0, on_scale=True, build=_alpha),
    Descriptor("auroc", frozenset({BINARY}), st.auroc, w.auroc, chance=0.5, scores_only=True),
)
INDEX = {d.name: d for d in STATISTICS}


def for_label_type(label_type: LabelType) -> list[Descriptor]:
    """The statistics reported on these labels, in the report's order."""
    return [d for d in STATISTICS if label_type in d.label_types]


def choose_statistics(label_type: LabelType, scale: tuple[float, float], judge: JudgeScale) -> list[Statistic]:
    """The statistics reported for this label type, each marked not applicable where the judge's scale rules it out."""
    off_scale = f"the judge's values are not on the label scale [{scale[0]:g}, {scale[1]:g}]"
    chosen = []
    for descriptor in for_label_type(label_type):
        if descriptor.scores_only and judge.binary:
            continue
        reason = None
        if label_type is BINARY and not descriptor.scores_only and not judge.binary and judge.threshold is None:
            reason = NEEDS_CUT
        elif label_type is not BINARY and descriptor.on_scale and not judge.on_label_scale:
            reason = off_scale
        chosen.append(Statistic(descriptor.name, reason=reason) if reason else descriptor.statistic(label_type, scale))
    return chosen
