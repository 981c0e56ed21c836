"""Self-preference on labelled pairs that name their systems (MT-Bench's human judgments): the judge's win rate for
each system beside the humans' on the same votes, with bootstrap intervals over items, and the gap for the judge's
own system (a judge that favours its own answers wins them more often than the humans let them win)."""

from __future__ import annotations

from typing import Any

import numpy as np

from judges.agreement.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED
from judges.agreement.pairwise_formats import PairLabels, PairVerdicts
from judges.agreement.pairwise_protocols import CODES, NONE, Stat, bootstrap_figures, combined, weighted_share
from judges.agreement.pairwise_report import pair_rows
from judges.errors import InputError
from judges.pages.markdown import grid


def own_system(labels: PairLabels, verdicts: PairVerdicts, named: str | None) -> tuple[str, str] | None:
    """The judge's own system and how it was found (`--judge-system`, else the judge's model name, provider prefix
    dropped, equal to a system's); None when the pairs name no systems or the judge is none of them."""
    systems = {name for pair in labels.systems for name in pair}
    if not systems:
        return None
    if named is not None:
        if named not in systems:
            raise InputError(f"--judge-system {named!r} is none of the set's systems: {', '.join(sorted(systems))}")
        return named, "--judge-system"
    model = verdicts.judge or ""
    found = sorted({model, model.rsplit("/", 1)[-1]} & systems)
    return (found[0], "the judge's model name") if found else None


def _points(verdict: np.ndarray, side: np.ndarray) -> np.ndarray:
    """The system's points per row: 1 when the verdict names its answer, 0 the other, a tie 0.5 (0 off its rows)."""
    mine = np.where(side == 1, CODES["A"], CODES["B"])
    return np.where(verdict == mine, 1.0, np.where(verdict == CODES["tie"], 0.5, 0.0)) * (side != 0)


def _difference(judge: Stat, human: Stat) -> Stat:
    def stat(w: np.ndarray) -> np.ndarray:
        return judge(w) - human(w)

    return stat


def self_preference_block(
    labels: PairLabels,
    verdicts: PairVerdicts,
    system: str,
    found_by: str,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = 0.95,
) -> dict[str, Any]:
    """Per system, its win rate (ties half) by the humans' votes and by the judge's verdict on the same votes'
    items (both orders combined: orders that disagree are a tie), on the votes whose item the judge decided; the
    difference judge - humans per system, and for the judge's own."""
    rows = pair_rows(labels, verdicts)
    judged = combined(rows.original, rows.swapped)
    decided = judged != NONE
    names = sorted({name for pair in labels.systems for name in pair})
    stats: dict[str, Stat] = {}
    for name in names:
        side = np.array([1 if a == name else -1 if b == name else 0 for a, b in labels.systems])
        among = (side != 0) & decided
        human, judge = weighted_share(_points(rows.label, side), among), weighted_share(_points(judged, side), among)
        stats[f"human:{name}"], stats[f"judge:{name}"] = human, judge
        stats[f"gap:{name}"] = _difference(judge, human)
    figures = bootstrap_figures(stats, rows.items, resamples=resamples, seed=seed, confidence=confidence)
    per_system = {
        name: {
            "votes": int(np.sum([name in pair for pair, kept in zip(labels.systems, decided, strict=True) if kept])),
            "human_win_rate": figures[f"human:{name}"].to_dict(),
            "judge_win_rate": figures[f"judge:{name}"].to_dict(),
            "difference": figures[f"gap:{name}"].to_dict(),
        }
        for name in names
    }
    return {
        "judge_system": system,
        "found_by": found_by,
        "rows": int(decided.sum()),
        "rows_without_verdict": int((~decided).sum()),
        "systems": per_system,
        "own_system_gap": per_system[system]["difference"],
    }


def self_preference_lines(block: dict[str, Any]) -> list[str]:
    """The block as a page section: one row per system, the judge's own marked."""

    def cell(figure: dict[str, Any]) -> str:
        if figure.get("value") is None:
            return "undefined"
        ci = figure.get("ci")
        return f"{figure['value']:.3f}" + (f" [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else "")

    rows = [
        [f"{name} (the judge's own)" if name == block["judge_system"] else name, str(part["votes"])]
        + [cell(part[key]) for key in ("human_win_rate", "judge_win_rate", "difference")]
        for name, part in block["systems"].items()
    ]
    gap = block["own_system_gap"]
    return [
        f"### Self-preference: the judge is {block['judge_system']} (by {block['found_by']})",
        "",
        *grid(["system", "votes", "humans' win rate", "judge's win rate", "judge - humans"], rows).splitlines(),
        "",
        f"Win rates count a tie as half a win, on the {block['rows']} votes whose item the judge decided. The judge "
        f"rates its own system {cell(gap)} above the humans: self-preference where the interval is above 0.",
    ]
