"""Hostile content in every file the CLI reads, through judgelab's own `main` in this process (Hypothesis): numbers
beyond the float range or over Python's 4,300-digit conversion limit, NaN and Infinity literals, booleans where
numbers go, nested and wrong types, odd unicode, NUL bytes, torn lines, empty and binary files. Each command ends
in exit 2 with `judgelab: error:` lines (or a clean result), never exit 70 or a traceback."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from conftest import record
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from judges.cli.main import main

CASES = settings(
    derandomize=True,  # the same cases on every run: a failure is reproducible
    database=None,
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
DEAD = "http://127.0.0.1:9/v1"  # nothing listens: a file that loads meets an unusable endpoint (exit 3), never a model
JUDGE = ["--judge", "openai/stub", "--api-base", DEAD, "--cache-mode", "off", "--quiet", "--timeout", "2"]

# JSON tokens written into a record as they are: each one a value some loader once took for a number, or crashed on
HUGE = ["9" * 309, "-" + "9" * 400, "1" * 4301, "1e999", "-1e999", "1" * 308 + ".5"]
LITERALS = ["NaN", "Infinity", "-Infinity", "true", "false", "null", "0", "-1", "3.5", "1e308", "5"]
SHAPES = ["[]", "{}", "[1, 5]", "[[[[1]]]]", '{"a": [1e400]}', "[true, 5]", '["1", "5"]', "[" * 80 + "]" * 80]
TEXTS = [
    '""',
    '"nan"',
    '"inf"',
    '"true"',
    '"1,5"',
    '"\\u0000"',
    '"\\ud800"',
    '"\\u2028é\\U0001"',
    '"' + "9" * 400 + '"',
]
json_tokens = st.one_of(
    st.sampled_from(HUGE),
    st.sampled_from(LITERALS),
    st.sampled_from(SHAPES),
    st.sampled_from(TEXTS),
    st.integers().map(str),
    st.text(max_size=8).map(json.dumps),
)

LABEL = {
    "id": "a1",
    "metric": "faithfulness",
    "label": 1,
    "label_type": "binary",
    "input": "Where did the Beatles form?",
    "references": ["The Beatles formed in Liverpool in 1960."],
    "actual_output": "In Liverpool.",
}
ORDINAL = {**LABEL, "label": 3, "label_type": "ordinal", "scale": [1, 5]}
PREDICTION = {"id": "a1", "score": 1}
SAMPLE = {k: v for k, v in record().items() if k not in ("conditions", "metadata")}


def _record_line(base: dict, changes: list[tuple[str, str | None]]) -> bytes:
    """`base` as one JSON line with fields replaced by raw tokens (None: the field dropped)."""
    out, raw = dict(base), {}
    for n, (name, token) in enumerate(changes):
        if token is None:
            out.pop(name, None)
        else:
            out[name] = f"@@{n}@@"
            raw[f'"@@{n}@@"'] = token
    text = json.dumps(out)
    for placeholder, token in raw.items():
        text = text.replace(placeholder, token)
    return text.encode("utf-8", "surrogatepass")


def _numbered(base: dict, n: int) -> dict:
    """`base` as the n-th record of a file: its own id, and labels and scores that vary (both classes present)."""
    varied = {"id": f"a{n}"}
    if "label" in base:
        varied["label"] = n % 2 if base["label_type"] == "binary" else 1 + n % 5
    if "score" in base:
        varied["score"] = n % 2
    return {**base, **varied}


def files(base: dict, least: int = 1, most: int = 4) -> st.SearchStrategy[bytes]:
    """Mostly a JSONL file of `least` to `most` records, a few of their fields hostile (one record in four); else one with raw bytes or NUL
    lines among its records, perhaps torn at the end; or an empty, binary or whole-JSON file."""
    numbers = [name for name in ("label", "score", "scale") if name in base]
    names = [*base, "extra", "system", "scale", "annotator", *numbers * 3]  # the number fields most often
    changes = st.lists(st.tuples(st.sampled_from(names), json_tokens | st.none()), max_size=2)
    some = st.lists(st.one_of(st.just([]), st.just([]), st.just([]), changes), min_size=least, max_size=most)
    records = some.map(lambda each: [_record_line(_numbered(base, n), c) for n, c in enumerate(each)])
    junk = st.binary(max_size=24) | st.sampled_from([b"\x00" * 8, b"\xff\xfe", b"{", b"[1, 2]"])
    mixed = st.tuples(records, st.lists(st.tuples(st.integers(0, most), junk), max_size=2)).map(_insert_lines)
    jsonl = st.tuples(records | mixed, st.booleans()).map(lambda t: b"\n".join(t[0]) + (b"\n" if t[1] else b""))
    whole = st.sampled_from([b"", b"\n\n", b"\x00", json.dumps([base]).encode(), b"PAR1\x00\x00PAR1"])
    return st.one_of(jsonl, jsonl, jsonl, whole, st.binary(max_size=64))


def _insert_lines(drawn: tuple[list[bytes], list[tuple[int, bytes]]]) -> list[bytes]:
    lines, inserts = list(drawn[0]), drawn[1]
    for where, line in inserts:
        lines.insert(where, line)
    return lines


CELLS = ["9" * 309, "1" * 4301, "nan", "NaN", "inf", "-inf", "1e999", "true", "True", "", "\x00", "é", "3", "0", "1"]
csv_cells = st.sampled_from(CELLS) | st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=6)


def csv_files(most: int = 6) -> st.SearchStrategy[bytes]:
    """A table of `id,label` rows, ids a0, a1, ...: mostly plain labels 1-5, a few hostile cells (the id's too)."""
    plain = st.sampled_from(["0", "1", "1", "2", "3", "4", "5"])
    cell = st.one_of(plain, plain, plain, csv_cells)
    rows = st.lists(st.tuples(st.sampled_from(["", "\x00", None, None, None]), cell), min_size=1, max_size=most)
    return rows.map(
        lambda rs: (
            "id,label\n"
            + "".join(f'{f"a{n}" if i is None else i},"{c.replace(chr(34), "")}"\n' for n, (i, c) in enumerate(rs))
        ).encode("utf-8", "surrogatepass")
    )


def _cli(capsys: pytest.CaptureFixture[str], args: list[object]) -> int:
    """Exit code of `judgelab ARGS` in this process; never 70, a traceback or an unforeseen error's line."""
    try:
        code = main([str(a) for a in args])
    except SystemExit as exit_:  # argparse's own usage errors
        code = int(exit_.code or 0)
    err = capsys.readouterr().err
    assert code != 70 and "Traceback" not in err and "unexpected error" not in err, (args, err[-2000:])
    if code == 2:
        assert "judgelab: error: " in err or "usage:" in err, err[-2000:]
    return code


@pytest.fixture
def key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")


@CASES
@given(labels=files(LABEL) | files(ORDINAL), predictions=files(PREDICTION))
def test_hostile_labels_and_predictions_through_agreement(labels, predictions, capsys):
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "l.jsonl").write_bytes(labels)
        (Path(folder) / "p.jsonl").write_bytes(predictions)
        args = ["agreement", "--labels", Path(folder) / "l.jsonl", "--predictions", Path(folder) / "p.jsonl"]
        assert _cli(capsys, [*args, "--out", Path(folder) / "out", "--resamples", "100"]) in (0, 2)


@CASES
@given(predictions=files(PREDICTION), whole=st.sampled_from(["list", "object"]))
def test_hostile_json_predictions_through_agreement(predictions, whole, capsys):
    """The same rows as one JSON document: a list of rows, or {id: score}."""
    rows = [line for line in predictions.decode("utf-8", "replace").splitlines() if line.strip()]
    text = (
        "[" + ",".join(rows) + "]"
        if whole == "list"
        else "{" + ",".join(f'"a{n}": {r}' for n, r in enumerate(rows)) + "}"
    )
    with tempfile.TemporaryDirectory() as folder:
        labels = Path(folder) / "l.jsonl"
        labels.write_text(json.dumps(LABEL) + "\n" + json.dumps({**LABEL, "id": "a0", "label": 0}) + "\n")
        (Path(folder) / "p.json").write_text(text, encoding="utf-8", errors="surrogatepass")
        args = ["agreement", "--labels", labels, "--predictions", Path(folder) / "p.json", "--resamples", "100"]
        assert _cli(capsys, [*args, "--out", Path(folder) / "out"]) in (0, 2)


@CASES
@given(table=csv_files(), label_type=st.sampled_from(["binary", "ordinal", "continuous"]))
def test_hostile_csv_labels_through_agreement(table, label_type, capsys):
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "l.csv").write_bytes(table)
        (Path(folder) / "p.jsonl").write_text("".join(f'{{"id": "a{n}", "score": {n % 3}}}\n' for n in range(6)))
        args = ["agreement", "--labels", Path(folder) / "l.csv", "--columns", "id=id,label=label", "--metric", "m"]
        args += ["--label-type", label_type, *(["--scale", "1,5"] if label_type == "ordinal" else [])]
        args += ["--predictions", Path(folder) / "p.jsonl", "--resamples", "100", "--out", Path(folder) / "out"]
        assert _cli(capsys, args) in (0, 2)


TOML_TOKENS = ["9" * 309, "1" * 4301, "nan", "inf", "-inf", "true", "[1, 5]", "[1.0, 5.0]", '"1,5"', "[true, 5]"]
TOML_TOKENS += ["[[1]]", '"\\u0000"', "1979-05-27", "{a = 1}", "-1", "0", "0.5", '"x"', "[]", "[" * 70 + "]" * 70]
BOARD_KEYS = ["scale", "limit", "resamples", "folds", "calibration_fraction", "label_type", "metric", "columns"]
CANDIDATE_KEYS = ["threshold", "temperature", "score_field", "source", "max_tokens", "timeout"]


@CASES
@given(
    evaluation=st.lists(st.tuples(st.sampled_from(BOARD_KEYS), st.sampled_from(TOML_TOKENS)), max_size=3),
    candidate=st.lists(st.tuples(st.sampled_from(CANDIDATE_KEYS), st.sampled_from(TOML_TOKENS)), max_size=2),
    predictions=files(PREDICTION),
)
def test_hostile_leaderboard_configs_through_the_cli(evaluation, candidate, predictions, capsys):
    """A board of one predictions candidate on one labelled file, its keys given hostile TOML values and its
    predictions file hostile rows: the whole board is computed, or refused in one line per problem."""
    with tempfile.TemporaryDirectory() as folder:
        base = Path(folder)
        (base / "p.jsonl").write_bytes(predictions)
        (base / "l.jsonl").write_text(
            "".join(json.dumps({**ORDINAL, "id": f"a{n}", "label": 1 + n % 5}) + "\n" for n in range(8))
        )
        cand = {"name": '"p"', "kind": '"predictions"', "source": '"p.jsonl"', **dict(candidate)}
        ev = {"kind": '"labels"', "source": '"l.jsonl"', "resamples": "100", **dict(evaluation)}
        text = "[[candidates]]\n" + "".join(f"{k} = {v}\n" for k, v in cand.items())
        text += "[[evaluations]]\n" + "".join(f"{k} = {v}\n" for k, v in ev.items())
        (base / "board.toml").write_text(text, encoding="utf-8")
        assert _cli(capsys, ["leaderboard", base / "board.toml", "--out", base / "out"]) in (0, 2)


@CASES
@given(labels=files(ORDINAL, least=8, most=10) | csv_files(most=10), mapped=st.booleans())
def test_hostile_tuning_labels_through_the_cli(labels, mapped, capsys, key):
    """`tune --labels`: a file that loads goes on to the dead endpoint (exit 3); every other file is exit 2."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / ("l.csv" if labels.startswith(b"id,label") else "l.jsonl")
        path.write_bytes(labels)
        args = ["tune", "--labels", path, "--out", Path(folder) / "out", "--metrics", "faithfulness", *JUDGE]
        if mapped:
            args += ["--columns", "id=id,label=label", "--label-type", "ordinal", "--scale", "1,5"]
        assert _cli(capsys, [*args, "--resamples", "100"]) in (0, 2, 3)


@CASES
@given(content=files(record()), command=st.sampled_from(["check-tests", "meta-eval"]))
def test_hostile_unit_test_files_through_the_cli(content, command, capsys, key):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "u.jsonl"
        path.write_bytes(content)
        args = {
            "check-tests": ["check-tests", path],
            "meta-eval": ["meta-eval", "--tests", path, "--out", Path(folder) / "run", *JUDGE],
        }[command]
        assert _cli(capsys, args) in (0, 1, 2, 3)


@CASES
@given(content=files(SAMPLE))
def test_hostile_sample_files_through_evaluate(content, capsys, key):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "s.jsonl"
        path.write_bytes(content)
        assert _cli(capsys, ["evaluate", path, "--out", Path(folder) / "run", *JUDGE]) in (0, 2, 3)


def test_a_309_digit_score_is_one_line_exit_2(tmp_path, capsys):
    """The case that once crashed (OverflowError, exit 70), pinned exactly."""
    labels = tmp_path / "l.jsonl"
    labels.write_text(json.dumps(LABEL) + "\n" + json.dumps({**LABEL, "id": "a2", "label": 0}) + "\n")
    predictions = tmp_path / "p.jsonl"
    predictions.write_text('{"id": "a1", "score": ' + "9" * 309 + '}\n{"id": "a2", "score": 0}\n')
    code = main(["agreement", "--labels", str(labels), "--predictions", str(predictions), "--out", str(tmp_path / "o")])
    assert (code, capsys.readouterr().err) == (
        2,
        f"judgelab: error: {predictions}:1: a number of 309 digits is too large (the largest is about 1.8e+308) "
        "(field 'score')\n",
    )
