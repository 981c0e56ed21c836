"""docs/troubleshooting.md's table, row by row: each bad input gives its one line on stderr and its exit code."""

import json
import sqlite3

import pytest
from conftest import ROOT, record, write_jsonl

from judges.cli.main import main

TRAIN = str(ROOT / "unit_tests" / "train.jsonl")
OFFLINE = ["--judge", "openai/stub", "--api-base", "http://127.0.0.1:9/v1"]  # a closed port: no call may be needed


def run(capsys, *argv):
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.err


def unit_tests(tmp_path, records=None, raw=b""):
    path = write_jsonl(tmp_path / "u.jsonl", records if records is not None else [record()])
    path.write_bytes(path.read_bytes() + raw)
    return path


def test_not_utf8(tmp_path, capsys):
    path = unit_tests(tmp_path, raw=b'{"id": "caf\xe9"}\n')
    assert run(capsys, "check-tests", str(path)) == (
        2,
        f"judgelab: error: {path}:2: not UTF-8 text (byte 0xe9 at column 12); save the file as UTF-8\n",
    )


def test_malformed_json_and_every_problem_at_once_before_any_call(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake-for-the-check")
    path = unit_tests(tmp_path, [record(), record(id="t2", input="")], raw=b"{oops\n")
    code, err = run(
        capsys,
        "meta-eval",
        *OFFLINE,
        "--tests",
        str(path),
        "--out",
        str(tmp_path / "run"),
        "--cache",
        str(tmp_path / "c.sqlite"),
    )
    assert (code, err) == (
        2,
        f"judgelab: error: {path}:2:input: must not be empty\n"
        f"{path}:3: not valid JSON (Expecting property name enclosed in double quotes, column 2)\n",
    )
    assert not (tmp_path / "run").exists() and not (tmp_path / "c.sqlite").exists()


@pytest.mark.parametrize(
    "change, problem",
    [
        ({"actual_output": None}, "2:actual_output: expected a string, got null"),
        ({"references": []}, "2:references: must not be empty"),
        ({"id": "t1"}, "2:id: duplicate id 't1' (first on line 1)"),
        (
            {"conditions": {**record()["conditions"], "answer_relevancy_condition": "==6"}},
            "2:conditions.answer_relevancy_condition: no answer_relevancy grade can meet '==6': grades are 1-5 or null",
        ),
    ],
)
def test_bad_records(tmp_path, capsys, change, problem):
    path = unit_tests(tmp_path, [record(), record(**{"id": "t2", **change})])
    assert run(capsys, "check-tests", str(path)) == (2, f"judgelab: error: {path}:{problem}\n")


def test_oversized_record_and_empty_file(tmp_path, capsys, monkeypatch):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    assert run(capsys, "check-tests", str(empty)) == (
        2,
        f"judgelab: error: {empty}: the file holds no records (one JSON object per line expected)\n",
    )
    monkeypatch.setenv("JUDGELAB_MAX_RECORD_BYTES", "200")
    path = unit_tests(tmp_path)
    size = len(path.read_bytes())
    assert run(capsys, "check-tests", str(path)) == (
        2,
        f"judgelab: error: {path}:1: record of {size:,} bytes is over the 200-byte limit "
        "(set JUDGELAB_MAX_RECORD_BYTES to raise it)\n",
    )


def test_suite_problems_in_a_readable_file_exit_1(tmp_path, capsys):
    path = unit_tests(tmp_path, [record(actual_output="It lasts 52 weeks [7].")])
    assert main(["check-tests", str(path)]) == 1
    assert capsys.readouterr().out == (
        f"{path}:1 (t1): actual_output cites [7] but there are 2 references\n{path}: 1 unit tests, 1 problem(s)\n"
    )


def test_misspelt_config_keys(tmp_path, capsys):
    gate = tmp_path / "gate.toml"
    gate.write_text("[min]\ntotl = 0.8\n")
    assert run(capsys, "validate", "--config", str(gate)) == (
        2,
        f"judgelab: error: {gate}:2: unknown key 'min.totl'; did you mean 'total'?\n",
    )
    board = tmp_path / "board.toml"
    board.write_text('[[candidates]]\nname = "a"\nmodle = "m"\n[[evaluations]]\nkind = "labels"\nsource = "x"\n')
    assert run(capsys, "leaderboard", str(board), "--out", str(tmp_path / "out")) == (
        2,
        f"judgelab: error: {board}:3: unknown key 'candidates[0].modle'; did you mean 'model'?\n",
    )


@pytest.mark.parametrize(
    "text, message",
    [
        ("{{ actual_output }}\n{{ input }", "{file}:2: invalid template: unexpected '}}'"),
        (
            "{{ actual_output }} {{ answer }}",
            "{file}:1: undefined variable 'answer'; a template may use actual_output, contexts, expected_output, input",
        ),
        ("{{ input }}", "{file}: never uses {{{{ actual_output }}}}, so the judge would not see the answer under test"),
    ],
)
def test_bad_templates(tmp_path, capsys, text, message):
    folder = tmp_path / "prompts"
    folder.mkdir()
    for metric in ("answer_relevancy", "completeness", "faithfulness", "usefulness"):
        (folder / f"{metric}.txt.jinja").write_text(text)
    code, err = run(
        capsys, "meta-eval", *OFFLINE, "--prompts", str(folder), "--tests", TRAIN, "--limit", "1", "--dry-run"
    )
    assert (code, err) == (2, "judgelab: error: " + message.format(file=folder / "answer_relevancy.txt.jinja") + "\n")


def test_corrupt_and_foreign_cache(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake-for-the-check")
    fix = "give another --cache PATH, run with --cache-mode off, or delete the file"
    corrupt = tmp_path / "corrupt.sqlite"
    corrupt.write_bytes(b"garbage" * 1000)
    foreign = tmp_path / "foreign.sqlite"
    with sqlite3.connect(foreign) as db:
        db.execute("CREATE TABLE notes (text TEXT)")
    common = ["meta-eval", *OFFLINE, "--tests", TRAIN, "--limit", "1", "--out", str(tmp_path / "run")]
    assert run(capsys, *common, "--cache", str(corrupt)) == (
        2,
        f"judgelab: error: cache {corrupt} cannot be used (file is not a database): {fix}\n",
    )
    assert run(capsys, *common, "--cache", str(foreign)) == (
        2,
        f"judgelab: error: cache {foreign} is an SQLite file but not a judgelab reply cache (tables: notes): {fix}\n",
    )


def test_publish_offline(tmp_path, capsys, monkeypatch):
    import huggingface_hub.constants

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # never reach the network
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setenv("HF_TOKEN", "hf_fake_token_for_the_check")
    (tmp_path / "leaderboard.json").write_text(json.dumps({}))
    code, err = run(capsys, "publish", str(tmp_path), "--repo", "me/board")
    assert (code, err) == (
        2,
        "judgelab: error: cannot reach the Hugging Face Hub (OfflineModeIsEnabled); nothing was "
        "pushed: check the network, or use --dry-run to list the commit\n",
    )


def test_debug_shows_the_traceback(tmp_path, capsys):
    from judges.errors import InputError

    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    with pytest.raises(InputError):
        main(["--debug", "meta-eval", "--tests", str(empty), "--dry-run"])


@pytest.mark.parametrize(
    ("score", "message"),
    [
        ("Infinity", "expected a finite number or null, got inf"),
        ("true", "expected a number or null, got the boolean true"),
    ],
)
def test_a_judge_score_that_is_not_a_grade(tmp_path, capsys, score, message):
    labels = write_jsonl(
        tmp_path / "labels.jsonl",
        [
            {"id": "a", "metric": "m", "label": 1, "label_type": "binary"},
            {"id": "b", "metric": "m", "label": 0, "label_type": "binary"},
        ],
    )
    predictions = tmp_path / "p.jsonl"
    predictions.write_text(f'{{"id": "a", "score": 1}}\n{{"id": "b", "score": {score}}}\n', encoding="utf-8")
    code, err = run(
        capsys, "agreement", "--labels", str(labels), "--predictions", str(predictions), "--out", str(tmp_path / "o")
    )
    assert (code, err) == (2, f"judgelab: error: {predictions}:2: {message} (field 'score')\n")


def test_a_validate_bar_outside_its_statistics_range(tmp_path, capsys):
    assert run(capsys, "validate", *OFFLINE, "--min", "total=1.5") == (
        2,
        "judgelab: error: bad --min 'total=1.5': a rate lies between 0 and 1\n",
    )
    labels = write_jsonl(
        tmp_path / "labels.jsonl",
        [
            {
                "id": "a",
                "metric": "faithfulness",
                "label": 1,
                "label_type": "binary",
                "scale": [0, 1],
                "actual_output": "x",
            }
        ],
    )
    predictions = write_jsonl(tmp_path / "p.jsonl", [{"id": "a", "score": 1}])
    code, err = run(
        capsys, "validate", "--labels", str(labels), "--predictions", str(predictions), "--min", "cohen_kappa=-5"
    )
    assert (code, err) == (
        2,
        "judgelab: error: --min cohen_kappa=-5: cohen_kappa lies between -1 and 1 (higher is better); give a bar in "
        "that range\n",
    )
