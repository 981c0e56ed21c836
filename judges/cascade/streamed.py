"""`cascade apply` a line at a time: when every judge is a JSON Lines predictions file listing the same ids in the
same order (outputs over one item set), the decisions are made as the files are read, holding nothing per item;
any other shape is read whole (`applying.decide`), which names what does not match."""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from itertools import zip_longest
from pathlib import Path

import numpy as np

from judges.agreement.predictions import Prediction, parse_prediction
from judges.cascade.applying import Decision
from judges.cascade.decision_schema import id_problem
from judges.cascade.verdicts import VerdictRule
from judges.errors import InputError
from judges.files.jsonl import read_jsonl

Bars = Sequence[float | None] | Callable[[str, Mapping[str, object]], Sequence[float | None]]


class NotAligned(Exception):
    """The files do not list the same ids in the same order, one metric each: read them whole instead."""


class StreamedDecisions(Collection[Decision]):
    """Every item's Decision, made again from the files each time it is iterated (nothing held per item); `counted`
    the items each judge decided (None: escalated), from the first pass that checked the files line up. The
    thresholds are the judges', or each item's from its id and its first file's row (a calibration by slice)."""

    def __init__(self, names: Sequence[str], paths: Sequence[Path], thresholds: Bars, rule: VerdictRule) -> None:
        self.names, self.paths, self.thresholds, self.rule = list(names), list(paths), thresholds, rule
        self.counted: Counter[str | None] = Counter()
        hashes = array("q")  # 8 bytes an item, to find a repeated id
        for decision in self._made(check=True):
            self.counted[decision.decided_by] += 1
            hashes.append(hash(decision.id))
        self.n = len(hashes)
        keys = np.sort(np.frombuffer(hashes, dtype=np.int64))
        if not self.n or (np.diff(keys) == 0).any():
            raise NotAligned  # a repeated id (or a hash collision): the whole reader names it exactly

    def __len__(self) -> int:
        return self.n

    def __iter__(self) -> Iterator[Decision]:
        return self._made(check=False)

    def __contains__(self, item: object) -> bool:
        return any(decision == item for decision in self)

    def _made(self, *, check: bool) -> Iterator[Decision]:
        readers = [read_jsonl(path, expects="id and a score") for path in self.paths]
        for rows in zip_longest(*readers):
            if any(row is None for row in rows):
                raise NotAligned  # one file is longer
            predictions = [
                self._prediction(path, line, row) for path, (line, row) in zip(self.paths, rows, strict=True)
            ]
            item_id = predictions[0].id
            if check and (any(p.id != item_id for p in predictions) or any("metric" in row for _, row in rows)):
                raise NotAligned
            if check and (problem := id_problem(item_id)):
                raise InputError(problem, path=str(self.paths[0]), line=rows[0][0], field="id")
            bars = self.thresholds(item_id, rows[0][1]) if callable(self.thresholds) else self.thresholds
            yield self._decided(item_id, predictions, bars)

    @staticmethod
    def _prediction(path: Path, line: int, row: dict[str, object]) -> Prediction:
        return parse_prediction(row, id_field="id", score_fields=("score",), path=str(path), line=line)

    def _decided(self, item_id: str, predictions: list[Prediction], bars: Sequence[float | None]) -> Decision:
        """The first judge whose confidence reaches its threshold decides (a judge with no threshold keeps
        nothing); a grade without a confidence is one line naming the file."""
        for name, path, threshold, prediction in zip(self.names, self.paths, bars, predictions, strict=True):
            if threshold is None:
                continue
            confidence = self.rule.confidence(prediction)
            if prediction.score is not None and confidence is None:
                raise InputError(
                    f"item {item_id!r} has a grade but no confidence: give a `confidence` column in [0, 1] "
                    "(binary labels with a probability score in [0, 1] need none)",
                    path=str(path),
                )
            if prediction.score is not None and confidence is not None and confidence >= threshold:
                return Decision(item_id, name, self.rule.call(prediction.score), round(confidence, 6))
        return Decision(item_id)


def streamed_decisions(
    sources: Sequence[tuple[str, str]], thresholds: Bars, rule: VerdictRule
) -> StreamedDecisions | None:
    """The decisions a line at a time when every source (name, path) is a JSON Lines file and they line up, else
    None (read them whole)."""
    paths = [Path(path) for _, path in sources]
    if not all(path.suffix.lower() == ".jsonl" and path.is_file() for path in paths):
        return None
    try:
        return StreamedDecisions([name for name, _ in sources], paths, thresholds, rule)
    except NotAligned:
        return None
