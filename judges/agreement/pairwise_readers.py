"""Readers of the judge benchmarks' released files, one pair per format (labels, a judge's verdicts).

- LLMBar (princeton-nlp/LLMBar, `Dataset/LLMBar/<set>/`): `dataset.json`, a JSON list of {input, output_1, output_2,
  label}, label 1 or 2 (the output that follows the instruction); an evaluator's `evaluators/<model>/<strategy>/
  result.json`, the same list with `results`, whose last element holds {"swap = False": {"winner": "1"}, "swap = True":
  {"winner": "2"}}: the winner with the outputs as given and swapped, both named as in the given order ("1", "2" or
  null when the reply did not parse). Items are matched by position (ids "0", "1", ...).
- JudgeBench (ScalerLab/JudgeBench): `data/dataset=judgebench,...jsonl` rows {pair_id, source, label} with label
  "A>B" or "B>A"; a judge's `outputs/*.jsonl`, the same rows with `judgments`: one per order, the second with the
  responses swapped and its `decision` ("A>B", "B>A", "A=B", null) named in the swapped order; a reward model's
  judgment also holds `scores` [A, B] in its order. Categories from `source`: mmlu-pro-* knowledge,
  livebench-reasoning reasoning, livebench-math math, livecodebench coding.
- MT-Bench human judgments (lmsys/mt_bench_human_judgments, splits `human` and `gpt4_pair`): rows {question_id,
  model_a, model_b, winner, judge, turn}, winner "model_a", "model_b", "tie" or "tie (bothbad)". An item is a
  question, a model pair (in name order, the winner turned with it) and a turn; labels are the expert votes (several
  per item; `author_*` votes left out, as FastChat's `compute_agreement.py` leaves them), the judge's verdict its one
  row per item (both orders already combined by the authors; `judge` ["gpt-4", "pair-v2"] in FastChat's file).
  Votes on items the judge has no row for are left out of its figures, as FastChat counts them. Category: turn.
- RewardBench 2 (allenai/reward-bench-2, split `test`): rows {id, prompt, chosen: [...], rejected: [...], subset,
  num_correct, ...}; a model's scores as allenai/reward-bench-2-results releases them (`eval-set-scores/<model>.json`,
  one JSON object of columns {id: [...], scores: [[...], ...], subset, results, num_correct, text, model, ...}, each
  answer's score a number or a one-element list), or one row per prompt {id, scores: [...]}, the chosen answers'
  scores first in the dataset's order (or {id, scores_chosen, scores_rejected}). Category: subset.
"""

from __future__ import annotations

from typing import Any

from judges.agreement.pairwise_formats import FORMATS, PairLabels, PairVerdicts, Verdict, detect, need, rows_of
from judges.agreement.pairwise_runs import is_run_folder, run_verdicts
from judges.errors import InputError

JUDGEBENCH_DECISIONS = {"A>B": "A", "B>A": "B", "A=B": "tie"}
JUDGEBENCH_CATEGORIES = {
    "mmlu-pro": "knowledge",
    "livebench-reasoning": "reasoning",
    "livebench-math": "math",
    "livecodebench": "coding",
}
MTBENCH_WINNERS = {"model_a": "A", "model_b": "B", "tie": "tie", "tie (bothbad)": "tie"}
FLIP: dict[Verdict, Verdict] = {"A": "B", "B": "A", "tie": "tie", None: None}


def llmbar_labels(rows: list[dict[str, Any]], source: str) -> PairLabels:
    """LLMBar's `dataset.json` (or a `result.json`, which repeats the label)."""
    labels = []
    for number, row in enumerate(rows):
        label = need(row, "label", number, source)
        if label not in (1, 2, "1", "2"):
            raise InputError(f"row {number}: label must be 1 or 2, got {label!r}", path=source, field="label")
        labels.append("A" if str(label) == "1" else "B")
    ids = tuple(str(number) for number in range(len(rows)))
    return PairLabels("llmbar", source, ids, tuple(labels), (None,) * len(rows))


def llmbar_verdicts(rows: list[dict[str, Any]], source: str) -> PairVerdicts:
    """An LLMBar evaluator's `result.json`: the winner per order from the last element of each row's `results`."""
    winners: dict[Any, Verdict] = {"1": "A", "2": "B", None: None}
    verdicts = {}
    for number, row in enumerate(rows):
        results = need(row, "results", number, source)
        last = results[-1] if isinstance(results, list) and results else None
        if not isinstance(last, dict) or "swap = False" not in last or "swap = True" not in last:
            raise InputError(f"row {number}: results[-1] has no 'swap = False'/'swap = True'", path=source)
        orders = tuple(winners.get((last[key] or {}).get("winner")) for key in ("swap = False", "swap = True"))
        verdicts[str(number)] = orders
    return PairVerdicts("llmbar", source, verdicts)


def _judgebench_category(source: str) -> str:
    return next((name for prefix, name in JUDGEBENCH_CATEGORIES.items() if source.startswith(prefix)), source)


def judgebench_labels(rows: list[dict[str, Any]], source: str) -> PairLabels:
    """JudgeBench's pairs (or a judge's output file, which repeats them)."""
    ids, labels, categories = [], [], []
    for number, row in enumerate(rows):
        label = need(row, "label", number, source)
        if label not in JUDGEBENCH_DECISIONS:
            raise InputError(f"row {number}: label must be A>B, B>A or A=B, got {label!r}", path=source, field="label")
        ids.append(str(need(row, "pair_id", number, source)))
        labels.append(JUDGEBENCH_DECISIONS[label])
        categories.append(_judgebench_category(str(row.get("source") or "")) or None)
    return PairLabels("judgebench", source, tuple(ids), tuple(labels), tuple(categories))


def _judgebench_decision(judgment: Any) -> Verdict:
    """One judgment's verdict in its own order: its decision, else its two reward scores compared."""
    if not isinstance(judgment, dict):
        return None
    decision = judgment.get("decision")
    if decision in JUDGEBENCH_DECISIONS:
        return JUDGEBENCH_DECISIONS[decision]
    scores = (judgment.get("judgment") or {}).get("scores")
    if isinstance(scores, list) and len(scores) == 2 and all(isinstance(s, int | float) for s in scores):
        return "A" if scores[0] > scores[1] else "B" if scores[1] > scores[0] else "tie"
    return None


def judgebench_verdicts(rows: list[dict[str, Any]], source: str) -> PairVerdicts:
    """A judge's JudgeBench output: the first judgment in the given order, the second swapped (turned back here)."""
    verdicts: dict[str, tuple[Verdict, ...]] = {}
    for number, row in enumerate(rows):
        judgments = need(row, "judgments", number, source)
        if not isinstance(judgments, list) or len(judgments) not in (1, 2):
            raise InputError(f"row {number}: judgments must list one or two", path=source, field="judgments")
        orders = [_judgebench_decision(judgments[0])]
        if len(judgments) == 2:
            orders.append(FLIP[_judgebench_decision(judgments[1])])
        verdicts[str(need(row, "pair_id", number, source))] = tuple(orders)
    return PairVerdicts("judgebench", source, verdicts)


def mtbench_vote(row: dict[str, Any], number: int, source: str) -> tuple[str, Verdict, str]:
    """A vote's item id (question, the models in name order, turn), its winner named in that order, its turn (the
    models in name order: `mtbench_models`)."""
    first, second = str(need(row, "model_a", number, source)), str(need(row, "model_b", number, source))
    winner = MTBENCH_WINNERS.get(str(need(row, "winner", number, source)))
    if second < first:
        first, second, winner = second, first, FLIP[winner]
    turn = str(row.get("turn", 1))
    return f"{need(row, 'question_id', number, source)}|{first}|{second}|turn {turn}", winner, turn


def mtbench_models(row: dict[str, Any]) -> tuple[str, str]:
    """A vote's two models in name order (answer A, answer B of its item)."""
    first, second = str(row["model_a"]), str(row["model_b"])
    return (first, second) if first <= second else (second, first)


def mtbench_labels(rows: list[dict[str, Any]], source: str) -> PairLabels:
    """MT-Bench's human votes (the `human` split): one label row per vote, with the two systems it compares; where
    the votes name expert judges (`expert_0`, ...), only theirs, as FastChat's `compute_agreement.py` compares a judge
    with the experts (`author_*` votes left out)."""
    experts = any(str(row.get("judge", "")).startswith("expert") for row in rows)
    ids, labels, categories, systems = [], [], [], []
    for number, row in enumerate(rows):
        if experts and not str(row.get("judge", "")).startswith("expert"):
            continue
        item, winner, turn = mtbench_vote(row, number, source)
        if winner is None:
            raise InputError(f"row {number}: winner {row.get('winner')!r} is not a vote", path=source, field="winner")
        ids.append(item)
        labels.append(winner)
        categories.append(f"turn {turn}")
        systems.append(mtbench_models(row))
    return PairLabels("mtbench", source, tuple(ids), tuple(labels), tuple(categories), systems=tuple(systems))


def mtbench_verdicts(rows: list[dict[str, Any]], source: str) -> PairVerdicts:
    """A judge's MT-Bench votes (the `gpt4_pair` split): one verdict per item, its orders already combined."""
    verdicts: dict[str, tuple[Verdict, ...]] = {}
    for number, row in enumerate(rows):
        item, winner, _ = mtbench_vote(row, number, source)
        if item in verdicts:
            raise InputError(f"row {number}: a second vote on {item}", path=source, field="winner")
        verdicts[item] = (winner,)
    named = rows[0].get("judge") if rows else None  # the gpt4_pair split's ["gpt-4", "pair-v2"]
    judge = named[0] if isinstance(named, list) and named else named if isinstance(named, str) else None
    return PairVerdicts("mtbench", source, verdicts, judge=judge)


def rewardbench_labels(rows: list[dict[str, Any]], source: str) -> PairLabels:
    """RewardBench 2's prompts: the chosen and rejected answers per prompt, and its subset."""
    ids, categories, chosen = [], [], {}
    for number, row in enumerate(rows):
        item = str(need(row, "id", number, source))
        good, bad = need(row, "chosen", number, source), need(row, "rejected", number, source)
        if not isinstance(good, list) or not isinstance(bad, list) or not good or not bad:
            raise InputError(f"row {number}: chosen and rejected must be non-empty lists", path=source)
        ids.append(item)
        categories.append(str(need(row, "subset", number, source)))
        chosen[item] = len(good)
    return PairLabels("rewardbench", source, tuple(ids), ("A",) * len(ids), tuple(categories), chosen)


def rewardbench_scores(rows: list[dict[str, Any]], source: str) -> PairVerdicts:
    """A model's RewardBench scores per prompt, the chosen answers' first."""
    scores: dict[str, tuple[float, ...]] = {}
    for number, row in enumerate(rows):
        item = str(need(row, "id", number, source))
        given = row.get("scores")
        if given is None:
            given = list(need(row, "scores_chosen", number, source)) + list(
                need(row, "scores_rejected", number, source)
            )
        if isinstance(given, list):  # a model may give each answer's score as a one-element list
            given = [s[0] if isinstance(s, list) and len(s) == 1 else s for s in given]
        if not isinstance(given, list) or not all(isinstance(s, int | float) and s == s for s in given):
            raise InputError(f"row {number}: scores must be a list of numbers", path=source, field="scores")
        scores[item] = tuple(float(s) for s in given)
    return PairVerdicts("rewardbench", source, scores=scores)


def read_labels(spec: str, fmt: str | None) -> PairLabels:
    """A benchmark's labels from a file, folder or hub id, in the format named or detected."""

    rows, source = rows_of(spec)
    fmt = fmt or (detect(rows[0]) if rows else None)
    if fmt not in FORMATS:
        raise InputError(f"not a judge benchmark's format ({', '.join(FORMATS)}); name it with --format", path=spec)
    if not rows:
        raise InputError("no rows", path=spec)
    reader = {
        "llmbar": llmbar_labels,
        "judgebench": judgebench_labels,
        "mtbench": mtbench_labels,
        "rewardbench": rewardbench_labels,
    }[fmt]
    return reader(rows, source)


def read_verdicts(spec: str, fmt: str) -> PairVerdicts:
    """A judge's verdicts on a benchmark, read in the labels' format; or a judgelab run folder of
    `pairwise_preference` (both orders per item)."""
    if is_run_folder(spec):
        return run_verdicts(spec, fmt)
    rows, source = rows_of(spec)
    if not rows:
        raise InputError("no rows", path=spec)
    shown = detect(rows[0])
    if shown is not None and shown != fmt and not (fmt == "rewardbench" and "scores" in rows[0]):
        raise InputError(f"these look like {shown} rows, the labels are {fmt}", path=spec)
    reader = {
        "llmbar": llmbar_verdicts,
        "judgebench": judgebench_verdicts,
        "mtbench": mtbench_verdicts,
        "rewardbench": rewardbench_scores,
    }[fmt]
    return reader(rows, source)
