"""A plain predictions file (an id and a score per line) is read in columns, with the outcomes the row reader gives."""

import json
from pathlib import Path

import pytest

from judges.agreement import predictions as reader
from judges.agreement.predictions import Prediction, read_predictions
from judges.agreement.predictions_columns import ColumnOutcomes
from judges.errors import InputError
from judges.types import VerdictState


def write(folder: Path, rows: list[dict], name: str = "p.jsonl") -> Path:
    path = folder / name
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def by_rows(path: Path, monkeypatch: pytest.MonkeyPatch, **options) -> dict:
    with monkeypatch.context() as patch:
        patch.setattr(reader, "_plain_file", lambda *_: False)
        return dict(read_predictions(path, **options).by_key)


def test_a_plain_file_is_held_in_columns_and_gives_the_row_readers_outcomes(tmp_path, monkeypatch):
    path = write(tmp_path, [{"id": f"i{n}", "score": n / 7} for n in range(50)])
    read = read_predictions(path)
    assert isinstance(read.by_key, ColumnOutcomes)
    assert list(read.by_key.items()) == list(by_rows(path, monkeypatch).items())
    assert read.get("i1", "faithfulness") == Prediction("i1", VerdictState.GRADE, 1 / 7)
    assert read.get("nowhere", "faithfulness") is None and read.ids("faithfulness") == {f"i{n}" for n in range(50)}
    numbered = write(tmp_path, [{"id": 7, "score": 3}, {"id": 8, "score": 0.25}], "numbered.jsonl")
    read = read_predictions(numbered)
    assert isinstance(read.by_key, ColumnOutcomes) and read.by_key == by_rows(numbered, monkeypatch)
    assert read.get("7", "faithfulness") == Prediction("7", VerdictState.GRADE, 3.0)


@pytest.mark.parametrize(
    "rows",
    [
        [{"id": "a", "score": 0.5}, {"id": "b", "score": None}],  # a null
        [{"id": "a", "score": 0.5}, {"id": "b", "score": 0.1, "error": "timeout"}],  # a failure
        [{"id": "a", "score": 0.5}, {"id": "b", "score": 0.1, "confidence": 0.9}],  # another field
        [{"id": "a", "score": 0.5}, {"id": "b", "score": "0.25"}],  # a number as text
    ],
)
def test_other_files_are_read_row_by_row_with_the_same_outcomes(tmp_path, monkeypatch, rows):
    path = write(tmp_path, rows)
    read = read_predictions(path)
    assert isinstance(read.by_key, dict) and read.by_key == by_rows(path, monkeypatch)


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ([{"id": "a", "score": 1}, {"id": "b"}], ":2: missing score (field 'score')"),
        (
            [{"id": "a", "score": 1}, {"id": "a", "score": 0}],
            ":2: line 2: a second prediction for item 'a' (field 'id')",
        ),
        ([{"id": "a", "score": 1}, {"id": "b", "score": True}], "expected a number or null, got the boolean true"),
    ],
)
def test_a_bad_plain_file_still_names_the_line_and_field(tmp_path, rows, message):
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        read_predictions(write(tmp_path, rows))


def test_a_score_far_off_the_label_scale_is_refused_as_before(tmp_path):
    path = write(tmp_path, [{"id": "a", "score": 0.5}, {"id": "b", "score": 1e9}])
    with pytest.raises(
        InputError, match=r":2: score 1e\+09 lies far outside the label scale \(accepted: \[-1e\+06, 1e\+06\]"
    ):
        read_predictions(path, scale=(0, 1))


def test_a_file_above_the_record_limit_is_read_in_columns_unless_one_line_passes_it(tmp_path, monkeypatch):
    from judges.agreement.predictions_columns import plain_columns

    monkeypatch.setenv("JUDGELAB_MAX_RECORD_BYTES", "30")
    lines = [f'{{"id": "a{n}", "score": 0.5}}' for n in range(5)]  # 26 bytes each, 135 in all
    path = tmp_path / "p.jsonl"
    path.write_text("\n".join(lines) + "\n")
    found = plain_columns(path, "id", "score", None)
    assert found is not None and found[0] == [f"a{n}" for n in range(5)]
    path.write_text("\n".join([*lines, '{"id": "long", "score": 0.25000000000}']))  # 38 bytes, no final newline
    assert plain_columns(path, "id", "score", None) is None
    path.write_text("\n".join([*lines, '{"id": "b", "score": 0.250000}']))  # 30 bytes: at the limit, not above
    assert plain_columns(path, "id", "score", None) is not None
