"""Markdown tables of the system-aware figures, the corrected estimates and the paired comparison of two judges."""

from __future__ import annotations

from collections.abc import Sequence

from judges.agreement import corrected_estimate, systems
from judges.agreement.bootstrap import Figure
from judges.agreement.corrected_estimate import Estimates
from judges.agreement.groups import GroupAgreement
from judges.agreement.paired import PairedDifference
from judges.agreement.result import MetricAgreement
from judges.agreement.systems import SystemAgreement
from judges.pages.markdown import grid


def _value(fig: Figure) -> tuple[str, str, str]:
    value = "n/a" if fig.value is None else f"{fig.value:.4f}"
    return value, _interval(fig.ci), f"{fig.n} ({fig.n_items})"


def _interval(ci: tuple[float, float] | None) -> str:
    return "" if ci is None else f"[{ci[0]:.4f}, {ci[1]:.4f}]"


def estimate_table(estimate: Estimates) -> list[str]:
    """Markdown lines: the mean label four ways, the headline sentence, and which one to report."""
    named = [
        ("judge only (every judged item)", estimate.judge_only),
        ("labelled only", estimate.labelled_only),
        (f"PPI++ (power-tuned, lambda {estimate.lam:.2f})", estimate.ppi),
    ]
    if estimate.rogan_gladen is not None:
        named.append(("Rogan-Gladen (sensitivity and specificity)", estimate.rogan_gladen))
    table = grid(
        ["estimate of the mean label", "value", "95% CI", "items", "note"],
        [
            [name, "n/a" if e.value is None else f"{e.value:.4f}", _interval(e.ci), str(e.n), e.note or ""]
            for name, e in named
        ],
    )
    ppi = estimate.ppi
    headline = (
        f"The judge says {estimate.judge_only.value:.4f}; corrected with {estimate.n_labelled} labels: "
        f"{ppi.value:.4f} {_interval(ppi.ci)} (PPI++ over {estimate.n_labelled + estimate.n_unlabelled} items)."
    )
    notes = "".join(f" {note[0].upper()}{note[1:]}." for note in estimate.notes)
    return [headline + notes, "", table]


def system_tables(systems: SystemAgreement) -> list[str]:
    """Markdown lines: the partial and system-level figures, the per-system table, and when to read which."""
    figures = grid(
        ["system-aware statistic", "judge", "95% CI", "n (items)", "note"],
        [[fig.statistic, *_value(fig), fig.note or ""] for fig in systems.figures],
    )
    rows = grid(
        ["system", "items", "human mean", "judge mean", "within the system"],
        [
            [
                row.system,
                str(row.n_items),
                f"{row.human_mean:.4f}",
                f"{row.judge_mean:.4f}",
                f"{row.statistic} " + ("n/a" if row.value is None else f"{row.value:.4f}"),
            ]
            for row in systems.rows
        ],
    )
    return [
        f"Items from {len(systems.rows)} systems (intervals resample items within each system; one value per item, "
        "the mean of its labels):",
        "",
        figures,
        "",
        rows,
    ]


def group_table(groups: GroupAgreement) -> list[str]:
    """Markdown lines: the per-group figures (items sharing a question or source) and what they say."""
    figures = grid(
        ["per-group statistic", "judge", "95% CI", "n (items)", "note"],
        [[fig.statistic, *_value(fig), fig.note or ""] for fig in groups.figures],
    )
    return [
        f"Items in {groups.n_groups} groups (answers sharing a question or source): how well the judge orders the "
        "answers to one question, the correlation within each group averaged over groups and the pairwise accuracy "
        f"within groups with the tie threshold it chose ({groups.tie_threshold:.6g}: a judge difference up to it "
        "counts as a tie, so a judge predicting the ties people make on a coarse scale is credited). Intervals "
        "resample whole groups.",
        "",
        figures,
    ]


def reading_line(results: Sequence[MetricAgreement]) -> str | None:
    """The one line saying which figure to read when: plain vs partial vs system-level, judge mean vs corrected."""

    parts = [systems.READING] if any(r.systems is not None for r in results) else []
    parts += [corrected_estimate.READING] if any(r.estimate is not None for r in results) else []
    return f"**When to read which:** {'; '.join(parts)}." if parts else None


def comparison_table(metric: str, paths: Sequence[str], differences: Sequence[PairedDifference]) -> list[str]:
    """Markdown lines: judge A and B's statistics on the items both graded, A - B with its paired interval."""

    def number(value: float | None) -> str:
        return "n/a" if value is None else f"{value:.4f}"

    table = grid(
        ["statistic", "A", "B", "A - B", "95% CI (paired)", "Williams t", "p (two-sided)"],
        [
            [
                d.statistic,
                number(d.a),
                number(d.b),
                number(d.difference),
                _interval(d.ci),
                "" if d.williams_t is None else f"{d.williams_t:.3f}",
                "" if d.williams_p is None else f"{d.williams_p:.4f}",
            ]
            for d in differences
        ],
    )
    n_items = differences[0].n_items if differences else 0
    return [
        f"### {metric}: judge A (`{paths[0]}`) against judge B (`{paths[1]}`) on the {n_items} items both graded",
        "",
        table,
        "",
        "A difference whose paired interval excludes 0 (or a Williams p below 0.05 for a correlation) separates the "
        "judges; two separate intervals that overlap do not show they are alike, as both rest on the same items.",
    ]
