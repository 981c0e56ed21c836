"""The search on labelled items: one metric's templates, with few-shot examples from the search part (the items the
base judge gets most wrong first), halved on the label type's agreement statistic; then decoding settings."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from judges.errors import ConfigError
from judges.judging.replies import GRADE_SPECS
from judges.labels.schema import LabelledSet
from judges.tuning.align_data import subset, template_for
from judges.tuning.align_measure import disagreements, objective, run_predictions, statistic_value, ungraded
from judges.tuning.candidates import Candidate, Example, build_candidates
from judges.tuning.runner import BudgetStop, CandidateRunner, check_chosen, write_prompt_folder
from judges.tuning.search import Halving, Score, halve
from judges.tuning.space import TuneSpace
from judges.tuning.stages import Budget, chosen_candidate, tag_of
from judges.types import Sample


@dataclass(frozen=True)
class AgreementScore(Score):
    """A candidate's agreement statistic on a round's items; an undefined value (one class only) ranks last."""

    statistic: str = ""
    value: float | None = None

    def rank_key(self) -> tuple[float, ...]:
        value = round(self.value, 9) if self.value is not None else -math.inf  # 2/3 computed two ways is one tie
        return (-value, self.tokens, self.length, self.order)

    def to_dict(self) -> dict[str, Any]:
        return {
            "candidate": self.name,
            "statistic": self.statistic,
            "value": self.value,
            "n_items": self.n,
            "tokens": self.tokens,
            "template_chars": self.length,
            "no_figure": self.missing,
        }


@dataclass
class CallLog:
    """Every call of the search phase: which run, item, template and prompt (written to search/calls.jsonl)."""

    rows: list[dict[str, Any]] = field(default_factory=list)

    def add(self, run: Any, label: str) -> None:
        """The run's calls in item order (draw, then order), its records streamed from results.jsonl."""
        found: list[tuple[int, int, list[dict[str, Any]]]] = []
        for record in run.iter_records():
            rows = [
                {
                    "run": label,
                    "item": record.id,
                    "template": call.get("template"),
                    "prompt_sha256": call.get("prompt_sha256"),
                    "cached": bool(call.get("cached")),
                }
                for call in record.calls()
            ]
            found.append((record.draw, record.order, rows))
        found.sort(key=lambda entry: (entry[0], entry[1]))  # stable, as the sorted records were
        for _, _, rows in found:
            self.rows.extend(rows)


@dataclass
class LabelSearch:
    """One labelled metric's search: the template that grades it, the statistic maximised, the candidates (the
    base first), the search items shown as examples (left out of the scoring), the items scored, the rounds."""

    metric: str
    template: str
    statistic: str
    candidates: list[Candidate]
    examples: list[str]
    eval_items: int
    halving: Halving

    @property
    def winner(self) -> Candidate:
        return chosen_candidate(self.candidates, self.halving)


def label_grade(mean_label: float, scale: tuple[float, float], template: str) -> float:
    """A label's place on its scale carried to the nearest grade of the template's scale (a 0/1 label to 0/1, a
    1-5 label to 1-5, a continuous [0, 1] label rounded to 0 or 1 for faithfulness)."""

    grades = GRADE_SPECS[template][1]
    position = (mean_label - scale[0]) / (scale[1] - scale[0])
    target = grades[0] + position * (grades[-1] - grades[0])
    return float(min(grades, key=lambda g: (abs(g - target), -g)))


def examples_from(labels: LabelledSet, ids: Sequence[str], template: str) -> list[Example]:
    """The items as worked examples: question, documents, answer and the (mean) human label as the template grades."""
    by_id: dict[str, list[float]] = {}
    samples: dict[str, Sample] = {}
    for item in labels.items:
        by_id.setdefault(item.id, []).append(item.label)
        samples.setdefault(item.id, item.sample)
    scale = labels.items[0].scale
    return [
        Example(
            samples[i].input or "",
            samples[i].actual_output or "",
            label_grade(sum(by_id[i]) / len(by_id[i]), scale, template),
            references=tuple(samples[i].references or ()),
        )
        for i in ids
    ]


def search_labels(
    labels: LabelledSet,
    search_ids: Sequence[str],
    base_run: Any,
    space: TuneSpace,
    root: Path,
    base_sources: Mapping[str, str],
    samples: Mapping[str, Sample],
    runner: CandidateRunner,
    budget: Budget,
    out: Path,
    log: CallLog,
    progress: Callable[[str], None],
) -> LabelSearch:
    """Successive halving over the metric's candidates on the search part's items (`labels`, in the split's seeded
    order `search_ids`); the examples are the items the base run (on the whole search part) gets most wrong."""

    metric = labels.metrics()[0]
    template = template_for(metric)
    statistic = objective(labels)
    metric_space = space.metric_spaces().get(template)
    if metric_space is None:
        raise ConfigError(f"the space has no [metrics.{template}] table (the template that grades {metric})")
    grades = GRADE_SPECS[template][1]
    ranked = disagreements(labels, run_predictions(base_run, template), (grades[0], grades[-1]))
    wanted = max(metric_space.examples)
    if wanted > len(ranked) // 2:
        raise ConfigError(f"{metric}: {wanted} examples asked for, but the search part holds {len(ranked)} items")
    shown = ranked[:wanted]
    labelled = {item.id for item in labels.items}
    order = [i for i in search_ids if i in labelled and i not in set(shown)]
    candidates = build_candidates(template, base_sources[template], space, root, examples_from(labels, shown, template))
    by_name = {c.name: c for c in candidates}
    folders = {
        c.name: write_prompt_folder(out / "search" / metric / c.name, {**base_sources, template: c.source})
        for c in candidates
    }
    done = [0]

    def evaluate(names: Sequence[str], n: int) -> list[Score] | None:
        progress(f"{metric}: {len(names)} candidate(s) on {n} search items")
        before = runner.ledger.needed
        scores: list[Score] = []
        try:
            for name in names:
                run = runner.grade(folders[name], [(i, samples[i]) for i in order[:n]], [template])
                log.add(run, f"{metric}/{name}")
                scored, predictions = subset(labels, order[:n]), run_predictions(run, template)
                usage = run.summary.metrics[template].usage
                scores.append(
                    AgreementScore(
                        name, 0, n, None, None, usage.prompt_tokens + usage.completion_tokens,
                        len(by_name[name].source), by_name[name].order, ungraded(scored, predictions),
                        statistic=statistic, value=statistic_value(scored, predictions, statistic),
                    )
                )  # fmt: skip
        except BudgetStop:
            return None
        budget.learn(runner.ledger.needed - before, len(names), n - done[0])
        done[0] = n
        return scores

    first = min(space.search.first_round_items, len(order))
    halving = halve([c.name for c in candidates], len(order), first, evaluate, budget.check)
    check_chosen(metric, halving)
    return LabelSearch(metric, template, statistic, candidates, shown, len(order), halving)


def search_decoding_on_labels(
    choices: dict[str, dict[str, Any]],
    folder: Path,
    sets: Sequence[LabelledSet],
    order: Sequence[str],
    samples: Mapping[str, Sample],
    first: int,
    runner: CandidateRunner,
    budget: Budget,
    log: CallLog,
    progress: Callable[[str], None],
) -> Halving:
    """Successive halving over decoding settings with the tuned templates, on the mean of the metrics' statistics."""
    templates = list(dict.fromkeys(template_for(s.metrics()[0]) for s in sets))
    names = list(choices)
    budget.rate = float(len(templates))  # a new setting changes every call of an item

    def evaluate(chosen: Sequence[str], n: int) -> list[Score] | None:
        progress(f"decoding: {len(chosen)} setting(s) on {n} search items")
        scores: list[Score] = []
        try:
            for name in chosen:
                items = [(i, samples[i]) for i in order[:n]]
                run = runner.grade(folder, items, templates, overrides=choices[name], tag=tag_of(name, choices))
                log.add(run, f"decoding/{name}")
                values, missing = [], []
                for labels in sets:
                    template, statistic = template_for(labels.metrics()[0]), objective(labels)
                    scored, predictions = subset(labels, order[:n]), run_predictions(run, template)
                    values.append(statistic_value(scored, predictions, statistic))
                    missing += [f"{labels.metrics()[0]}: {why}"] if (why := ungraded(scored, predictions)) else []
                defined = [v for v in values if v is not None]
                mean = sum(defined) / len(defined) if len(defined) == len(values) else None
                tokens = run.summary.usage.prompt_tokens + run.summary.usage.completion_tokens
                scores.append(
                    AgreementScore(
                        name, 0, n, None, None, tokens, 0, names.index(name), "; ".join(missing) or None,
                        statistic="mean", value=mean,
                    )
                )  # fmt: skip
        except BudgetStop:
            return None
        return scores

    halving = halve(names, len(order), min(first, len(order)), evaluate, budget.check)
    check_chosen("decoding", halving)
    return halving
