"""The blind audit of the probes: random original/perturbed pairs written in random order and on random sides
without their probe names (the key apart), and the graders' "which answer deserves the higher grade" answers scored
against what each probe declares, per probe, with Wilson intervals."""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judges.errors import InputError
from judges.files.jsonl import append_jsonl, read_jsonl
from judges.probes.base import LOWER, NOT_HIGHER, ORIGINAL, SAME
from judges.runs.intervals import wilson
from judges.types import Sample

ASKED = ("answer_relevancy", "completeness", "faithfulness")  # the same three for every pair, so none gives it away
CHOICES = ("a", "same", "b")
NOT_AUDITED = {"swap_answers": "right by definition: the same two answers, each in the other's place"}
PAIRS_FILE, KEY_FILE = "audit.jsonl", "audit-key.json"


@dataclass(frozen=True)
class AuditPair:
    """One pair as a grader sees it: the question, and two versions A and B (references, reference answer, answer)."""

    id: str
    input: str | None
    a: Sample
    b: Sample

    def to_record(self) -> dict[str, Any]:
        return {"pair": self.id, "input": self.input, "a": _side(self.a), "b": _side(self.b), "metrics": list(ASKED)}


def _side(sample: Sample) -> dict[str, Any]:
    return {
        "references": list(sample.references or ()),
        "expected_output": sample.expected_output,
        "actual_output": sample.actual_output,
    }


def draw_pairs(
    made: Sequence[tuple[str, str, Sample]], expects: Mapping[str, Mapping[str, str]], n: int, seed: int
) -> tuple[list[AuditPair], dict[str, Any]]:
    """N pairs drawn at random (seeded) from the (sample id, probe, sample) list of a probe run, as evenly across
    the probes as their pairs allow, in random order, each pair's original on side A or B at random; and the key: per pair, its sample, probe, the original's side and what the
    probe declares for the asked metrics."""
    originals = {sample_id: sample for sample_id, probe, sample in made if probe == ORIGINAL}
    pool = [(sid, probe, sample) for sid, probe, sample in made if probe != ORIGINAL and probe not in NOT_AUDITED]
    rng = random.Random(seed)
    by_probe: dict[str, list[tuple[str, str, Sample]]] = {}
    for entry in pool:
        by_probe.setdefault(entry[1], []).append(entry)
    for entries in by_probe.values():
        rng.shuffle(entries)
    chosen: list[tuple[str, str, Sample]] = []
    while len(chosen) < min(n, len(pool)):  # round robin over the probes: as even as their pairs allow
        for entries in by_probe.values():
            if entries and len(chosen) < n:
                chosen.append(entries.pop())
    rng.shuffle(chosen)
    pairs, key = [], {}
    for number, (sample_id, probe, perturbed) in enumerate(chosen, 1):
        pair_id = f"p{number:03d}"
        original = originals[sample_id]
        side = rng.choice(("a", "b"))
        a, b = (original, perturbed) if side == "a" else (perturbed, original)
        pairs.append(AuditPair(pair_id, original.input, a, b))
        declared = {m: e for m, e in expects[probe].items() if m in ASKED}
        key[pair_id] = {"sample_id": sample_id, "probe": probe, "original": side, "expects": declared}
    return pairs, {"seed": seed, "pool": len(pool), "not_audited": NOT_AUDITED, "pairs": key}


def write_audit(folder: Path, pairs: Iterable[AuditPair], key: Mapping[str, Any]) -> tuple[Path, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / PAIRS_FILE).open("w", encoding="utf-8") as handle:
        for pair in pairs:
            append_jsonl(handle, pair.to_record())
    (folder / KEY_FILE).write_text(json.dumps(key, indent=1) + "\n", encoding="utf-8")
    return folder / PAIRS_FILE, folder / KEY_FILE


def read_pairs(path: str | Path) -> list[AuditPair]:
    pairs = []
    for line, record in read_jsonl(Path(path)):
        try:
            a, b = (
                Sample(
                    input=record.get("input"),
                    references=tuple(record[side]["references"]),
                    expected_output=record[side]["expected_output"],
                    actual_output=record[side]["actual_output"],
                )
                for side in ("a", "b")
            )
            pairs.append(AuditPair(str(record["pair"]), record.get("input"), a, b))
        except (KeyError, TypeError) as err:
            raise InputError(
                f"{path}:{line}: field {err}: not an audit pair (`judgelab probe --audit N` writes them)"
            ) from None
    return pairs


def agrees_with(expectation: str, original_side: str, choice: str) -> bool:
    """Whether a grader's choice agrees with the probe's declaration: "same" for SAME; the original's side for LOWER
    (the perturbed answer deserves the lower grade); either for NOT_HIGHER (the perturbed answer is no better)."""
    if expectation == SAME:
        return choice == "same"
    if expectation == LOWER:
        return choice == original_side
    if expectation == NOT_HIGHER:
        return choice in ("same", original_side)
    raise ValueError(expectation)


@dataclass(frozen=True)
class AuditRow:
    """One probe's audit: judgements agreeing with its declaration, of n, with the Wilson interval; and what a grader
    answering "same" to everything would agree on, on the same judgements."""

    probe: str
    agree: int
    n: int
    low: float | None
    high: float | None
    pairs: int
    always_same: float | None
    disagreements: list[str]


@dataclass(frozen=True)
class AuditScore:
    rows: list[AuditRow]
    overall: AuditRow
    graders: list[str]


def score(key: Mapping[str, Any], answers: Iterable[Mapping[str, Any]]) -> AuditScore:
    """Per probe and over all, the graders' judgements that agree with the declared expectations (a grader's last
    answer per pair counts; a metric a grader left blank is no judgement)."""
    latest: dict[tuple[str, str], Mapping[str, str]] = {}
    for answer in answers:
        latest[str(answer["annotator"]), str(answer["pair"])] = answer.get("answers") or {}
    found: dict[str, list[tuple[str, bool, bool, str]]] = {}  # probe -> (pair, agrees, "same" would agree, shown)
    for (annotator, pair_id), given in sorted(latest.items()):
        entry = key["pairs"].get(pair_id)
        if entry is None:
            raise InputError(f"an answer for pair {pair_id!r}, which the audit's key does not hold")
        for metric, expectation in entry["expects"].items():
            if given.get(metric) in CHOICES:
                agrees = agrees_with(expectation, entry["original"], given[metric])
                shown = f"{pair_id} {metric}: {annotator} chose {given[metric]}"
                same_agrees = agrees_with(expectation, entry["original"], "same")
                found.setdefault(entry["probe"], []).append((pair_id, agrees, same_agrees, shown))
    rows = [_row(probe, judged) for probe, judged in sorted(found.items())]
    overall = _row("all probes", [j for judged in found.values() for j in judged])
    return AuditScore(rows, overall, sorted({annotator for annotator, _ in latest}))


def _row(probe: str, judged: list[tuple[str, bool, bool, str]]) -> AuditRow:
    agree, n = sum(j[1] for j in judged), len(judged)
    low, high = wilson(agree, n)
    same = sum(j[2] for j in judged) / n if n else None
    return AuditRow(probe, agree, n, low, high, len({j[0] for j in judged}), same, [j[3] for j in judged if not j[1]])
