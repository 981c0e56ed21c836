"""docs/troubleshooting.md's rows for inputs once read as a bug (exit 70) or taken as a value: each is now its one
line on stderr and exit 2 before any work, or, for a run folder cut off mid-write, a warning and its records."""

from __future__ import annotations

import json
import socket

import pytest
from conftest import ROOT, hang_guard, write_jsonl

from judges.cli.main import main

BINARY = [
    {"id": "a", "metric": "m", "label": 1, "label_type": "binary"},
    {"id": "b", "metric": "m", "label": 0, "label_type": "binary"},
]
TOO_LARGE = "is too large (the largest is about 1.8e+308)"


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    return code, capsys.readouterr().err


def agreement(capsys, tmp_path, labels, predictions, *extra):
    return run(capsys, "agreement", "--labels", labels, "--predictions", predictions, "--out", tmp_path / "o", *extra)


def predictions_file(tmp_path, text):
    path = tmp_path / "p.jsonl"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("digits", "message"),
    [
        (309, f"1: a number of 309 digits {TOO_LARGE} (field 'score')"),
        (400, f"1: a number of 400 digits {TOO_LARGE} (field 'score')"),
        (4301, f"1: a number of more than 4,300 digits {TOO_LARGE}"),
    ],
)
def test_a_score_beyond_the_float_range(tmp_path, capsys, digits, message):
    labels = write_jsonl(tmp_path / "l.jsonl", BINARY)
    predictions = predictions_file(tmp_path, '{"id": "a", "score": ' + "9" * digits + '}\n{"id": "b", "score": 0}\n')
    assert agreement(capsys, tmp_path, labels, predictions) == (2, f"judgelab: error: {predictions}:{message}\n")


def test_a_label_beyond_the_float_range_in_a_labels_file_and_a_csv(tmp_path, capsys):
    predictions = predictions_file(tmp_path, '{"id": "a", "score": 1}\n{"id": "b", "score": 0}\n')
    labels = tmp_path / "l.jsonl"
    labels.write_text(json.dumps(BINARY[0]).replace('"label": 1', '"label": ' + "9" * 310) + "\n")
    assert agreement(capsys, tmp_path, labels, predictions) == (
        2,
        f"judgelab: error: {labels}:1: a number of 310 digits {TOO_LARGE} (field 'label')\n",
    )
    table = tmp_path / "l.csv"
    table.write_text("id,label\na,1\nb," + "1" * 5000 + "\n")
    mapped = ["--columns", "id=id,label=label", "--metric", "m", "--label-type", "continuous"]
    assert agreement(capsys, tmp_path, table, predictions, *mapped) == (
        2,
        f"judgelab: error: {table}:3: expected a finite number, got inf (field 'label')\n",
    )


def test_a_boolean_is_a_label_only_for_binary_labels(tmp_path, capsys):
    predictions = predictions_file(tmp_path, '{"id": "a", "score": 1}\n{"id": "b", "score": 3}\n')
    rows = tmp_path / "rows.jsonl"
    rows.write_text('{"id": "a", "rating": true}\n{"id": "b", "rating": 3}\n')
    mapped = ["--columns", "id=id,label=rating", "--metric", "m", "--label-type", "ordinal", "--scale", "1,5"]
    assert agreement(capsys, tmp_path, rows, predictions, *mapped) == (
        2,
        f"judgelab: error: {rows}:1: expected a number, got the boolean true (ordinal labels are numbers) "
        "(field 'rating')\n",
    )
    labels = tmp_path / "labels.jsonl"
    labels.write_text(json.dumps({"id": "a", "metric": "m", "label": True, "label_type": "ordinal", "scale": [1, 5]}))
    assert agreement(capsys, tmp_path, labels, predictions) == (
        2,
        f"judgelab: error: {labels}:1: expected a number, got the boolean true (field 'label')\n",
    )


def test_a_csv_given_to_evaluate_is_one_line(tmp_path, capsys):
    table = tmp_path / "samples.csv"
    table.write_text("id,input,actual_output,references\n" + "".join(f"{n},q,a,r\n" for n in range(6)))
    code, err = run(capsys, "evaluate", table, "--judge", "openai/x", "--api-base", "http://127.0.0.1:9/v1")
    assert (code, err) == (
        2,
        f"judgelab: error: {table}:1: the file looks like CSV (its first line is "
        "'id,input,actual_output,references'), not JSON Lines; JSON Lines expected: one JSON object per line, "
        "with the fields input, references, actual_output (and id, expected_output)\n",
    )


@pytest.mark.parametrize(
    "name, text, kind",
    [
        ("judge.toml", (ROOT / "examples" / "judge.toml").read_text(encoding="utf-8"), "TOML"),  # a comment first
        ("judge.toml", '[judge]\nmodel = "openai/x"\n', "TOML"),
        ("settings.txt", 'model = "openai/x"\n', "TOML"),
        ("samples.yaml", "- input: q\n  actual_output: a\n", "YAML"),
        ("samples.txt", "samples:\n  - input: q, and more\n", "YAML"),
        ("samples.yml", "# my samples, as YAML\n- input: q\n", "YAML"),
        ("samples.tsv", "id\tinput\n1\tq\n", "TSV"),
    ],
)
def test_a_files_kind_is_named_right_when_json_lines_is_expected(tmp_path, capsys, name, text, kind):
    """`evaluate examples/judge.toml` names TOML (not CSV, as its first line, a comment with commas, once made it)."""
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    code, err = run(capsys, "evaluate", path, "--judge", "openai/x", "--api-base", "http://127.0.0.1:9/v1")
    assert code == 2 and err.startswith(f"judgelab: error: {path}:1: the file looks like {kind} (its first line is ")
    assert (
        err.endswith(
            "), not JSON Lines; JSON Lines expected: one JSON object per line, with the fields input, "
            "references, actual_output (and id, expected_output)\n"
        )
        and err.count("\n") == 1
    )


@pytest.mark.parametrize("indent", [None, 1])
def test_a_json_list_given_for_json_lines_is_one_line(tmp_path, capsys, indent):
    labels = tmp_path / "labels.jsonl"
    labels.write_text(json.dumps(BINARY, indent=indent) + "\n")
    predictions = predictions_file(tmp_path, json.dumps([{"id": "a", "score": 1}], indent=indent) + "\n")
    code, err = agreement(capsys, tmp_path, labels, predictions)
    assert (code, err) == (
        2,
        f"judgelab: error: {labels}:1: the file holds a JSON list, not JSON Lines; JSON Lines expected: one JSON "
        "object per line\n",
    )
    code, err = agreement(capsys, tmp_path, write_jsonl(tmp_path / "l2.jsonl", BINARY), predictions)
    assert (code, err) == (
        2,
        f"judgelab: error: {predictions}:1: the file holds a JSON list, not JSON Lines; JSON Lines expected: one "
        "JSON object per line, with the fields id and a score\n",
    )


@pytest.mark.parametrize("content", [b"", b"id,label\na,1\n"])
def test_a_parquet_file_that_is_not_parquet(tmp_path, capsys, content):
    table = tmp_path / "labels.parquet"
    table.write_bytes(content)
    predictions = predictions_file(tmp_path, '{"id": "a", "score": 1}\n')
    mapped = ["--columns", "id=id,label=label", "--metric", "m", "--label-type", "binary"]
    code, err = agreement(capsys, tmp_path, table, predictions, *mapped)
    assert code == 2
    assert err.startswith(f"judgelab: error: {table}: not a readable Parquet file (") and err.count("\n") == 1, err


def test_out_that_cannot_be_written_is_refused_before_any_work(tmp_path, capsys, monkeypatch):
    import judges.leaderboard.build

    def refuse(*args, **kwargs):
        raise AssertionError("the board was computed before --out was checked")

    monkeypatch.setattr(judges.leaderboard.build, "run_leaderboard", refuse)
    taken = tmp_path / "taken"
    taken.write_text("a file")
    config = ROOT / "tests" / "data" / "leaderboard_stub.toml"
    assert run(capsys, "leaderboard", config, "--out", taken) == (
        2,
        f"judgelab: error: --out {taken}: is a file, not a folder; name a folder (it is made if needed)\n",
    )
    under = taken / "board"
    assert run(capsys, "leaderboard", config, "--out", under) == (
        2,
        f"judgelab: error: --out {under}: {taken} is a file, so nothing can be written under it\n",
    )
    labels = write_jsonl(tmp_path / "l.jsonl", BINARY)
    assert run(capsys, "label", "import", labels, "--format", "argilla", "--out", tmp_path) == (
        2,
        f"judgelab: error: --out {tmp_path}: is a folder; a file is expected here\n",
    )


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["agreement", "--labels", "L", "--predictions", "P", "--threshold", "nan"],
            "--threshold: expected a finite number, got nan",
        ),
        (
            ["evaluate", "S", "--judge", "openai/x", "--temperature", "inf"],
            "--temperature: expected a finite number, got inf",
        ),
        (
            ["agreement", "--labels", "L", "--predictions", "P", "--scale", "1,inf"],
            "--scale: expected two finite numbers, got '1,inf'",
        ),
        (["view", "DIR", "--port", "80000", "--no-browser"], "--port: expected 0 (any free port) to 65535, got 80000"),
    ],
)
def test_an_option_that_cannot_work(tmp_path, capsys, argv, message):
    labels = write_jsonl(tmp_path / "l.jsonl", BINARY)
    predictions = predictions_file(tmp_path, '{"id": "a", "score": 1}\n{"id": "b", "score": 0}\n')
    files = {"L": labels, "P": predictions, "S": write_jsonl(tmp_path / "s.jsonl", [{"x": 1}]), "DIR": tmp_path}
    assert run(capsys, *[files.get(a, a) for a in argv]) == (2, f"judgelab: error: {message}\n")


def test_a_shared_path_that_leaves_the_shared_folder(tmp_path, capsys):
    config = tmp_path / "board.toml"
    config.write_text(
        '[[candidates]]\nname = "p"\nkind = "predictions"\nsource = "shared:../../../../etc/passwd"\n'
        '[[evaluations]]\nkind = "labels"\nsource = "l.jsonl"\n'
    )
    assert run(capsys, "leaderboard", config, "--out", tmp_path / "out") == (
        2,
        f"judgelab: error: {config}:4: candidates[0].source: shared:../../../../etc/passwd leaves the shared "
        "datasets folder; name a file under it, e.g. shared:begin/x.json\n",
    )


@pytest.mark.parametrize("scale", ["[1, 5]", "[1.0, 5.0]", '"1,5"'])
def test_a_leaderboard_scale_as_toml_writes_it(tmp_path, scale):
    from judges.leaderboard.config import load_config

    config = tmp_path / "board.toml"
    config.write_text(
        '[[candidates]]\nname = "o"\nkind = "baseline"\nbaseline = "oracle"\n[[evaluations]]\nkind = "labels"\n'
        f'source = "mine.csv"\nmetric = "m"\ncolumns = "label=x"\nlabel_type = "ordinal"\nscale = {scale}\n'
    )
    assert load_config(config).evaluations[0].scale == (1.0, 5.0)


def _metrics_run(tmp_path, capsys):
    sample = json.loads((ROOT / "tests" / "data" / "rag_samples.jsonl").read_text(encoding="utf-8").splitlines()[0])
    data = write_jsonl(
        tmp_path / "r.jsonl",
        [{**sample, "id": f"s{n}", "retrieved_ids": ["a", "b"], "expected_ids": ["b"]} for n in range(3)],
    )
    folder = tmp_path / "run"
    argv = ["metrics", "--metrics", "hit_rate", "--data", data, "--out", folder, "--quiet", "--cache-mode", "off"]
    assert run(capsys, *argv)[0] == 0
    return folder


def test_a_run_folder_cut_off_mid_write_reads_its_complete_records(tmp_path, capsys):
    folder = _metrics_run(tmp_path, capsys)
    results = folder / "results.jsonl"
    lines = results.read_bytes().splitlines(keepends=True)
    results.write_bytes(b"".join(lines[:2]) + lines[2][: len(lines[2]) // 2])
    code, err = run(capsys, "show", folder, "--print")
    assert (code, err) == (
        0,
        f"judgelab: warning: {results}:3: the last record was cut off mid-write (the run was stopped while "
        "writing it); the complete records before it are read\n",
    )
    results.write_bytes(lines[0] + lines[1][:20] + b"\n" + lines[2])  # torn in the middle: not a crash's trace
    code, err = run(capsys, "show", folder, "--print")
    assert code == 2 and err.startswith(f"judgelab: error: {results}:2: not valid JSON"), err


def _status(port, target):
    with socket.create_connection(("127.0.0.1", port), timeout=hang_guard(10)) as conn:
        conn.sendall(f"GET {target} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n".encode("latin-1"))
        reply = b""
        while chunk := conn.recv(65536):
            reply += chunk
    return reply.split(b"\r\n", 1)[0].decode("latin-1")


def test_view_answers_400_or_404_to_malformed_requests(tmp_path, capsys):
    import threading

    from judges.viewer.view_server import make_server

    folder = _metrics_run(tmp_path, capsys)
    server = make_server(tmp_path, 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        port, run_path = server.server_address[1], f"/run/{folder.name}"
        assert _status(port, f"{run_path}?page=2").endswith("200 OK")
        for target, status in [
            (f"{run_path}?page=%C2%B2", "400"),
            (f"{run_path}?page=" + "9" * 5000, "400"),
            ("/run/%00", "400"),
            ("/files/a%00b", "400"),
            ("/compare?run=%00&run=x", "400"),
            ("/run/" + "a" * 8192, "404"),
            ("/files/" + "a" * 8192, "404"),
            ("/leaderboard/" + "b" * 8192, "404"),
            ("/compare?run=" + "c" * 8192 + "&run=d", "404"),
        ]:
            assert _status(port, target).split(" ")[1] == status, target[:60]
    finally:
        server.shutdown()
        server.server_close()
    assert "Traceback" not in capsys.readouterr().err


def test_a_port_already_taken(tmp_path, capsys):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code, err = run(capsys, "view", tmp_path, "--port", port, "--no-browser")
    assert (code, err) == (
        2,
        f"judgelab: error: --port {port}: cannot listen on 127.0.0.1:{port} (Address already in use)\n",
    )


@pytest.mark.parametrize(("token", "shown"), [("Infinity", "inf"), ("-1e999", "-inf"), ("NaN", "nan")])
def test_a_label_that_is_not_a_finite_number(tmp_path, capsys, token, shown):
    predictions = predictions_file(tmp_path, '{"id": "a", "score": 1}\n')
    labels = tmp_path / "l.jsonl"
    labels.write_text('{"id": "a", "metric": "m", "label": ' + token + ', "label_type": "continuous", "scale": [0, 1]}')
    assert agreement(capsys, tmp_path, labels, predictions) == (
        2,
        f"judgelab: error: {labels}:1: expected a finite number, got {shown} (field 'label')\n",
    )
