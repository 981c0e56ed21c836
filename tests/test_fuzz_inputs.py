"""Fuzzed input for every loader and the CLI's entry points (Hypothesis, 500 cases each): a clean load whose text
every later stage can encode, or a judgelab error of one line per problem; never another exception, a traceback
or exit 70. Records are valid ones with fields replaced by any JSON value (lone surrogates and deep nesting among
them), dropped, or lines replaced by raw bytes."""

import dataclasses
import json
import tempfile
from pathlib import Path

import pytest
from conftest import ROOT
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from judges.cli.main import main
from judges.errors import JudgelabError

MANY = settings(
    derandomize=True,  # the same cases on every CI run; a failure is reproducible
    database=None,
    max_examples=500,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
DEAD = "http://127.0.0.1:9/v1"  # nothing listens: a valid file reaches an unusable endpoint (exit 3), never a model

UNIT_TEST = json.loads((ROOT / "unit_tests" / "test.jsonl").read_text(encoding="utf-8").splitlines()[0])
RAG_SAMPLE = {
    **json.loads((ROOT / "tests" / "data" / "rag_samples.jsonl").read_text(encoding="utf-8").splitlines()[0]),
    "retrieved_ids": ["a", "b"],
    "expected_ids": ["b"],
}
LABEL = {
    "id": "a1",
    "metric": "faithfulness",
    "label": 1,
    "label_type": "binary",
    "input": "Where did the Beatles form?",
    "references": ["The Beatles formed in Liverpool in 1960."],
    "actual_output": "In Liverpool.",
}
PREDICTION = {"id": "a1", "score": 1}

odd_text = st.sampled_from(["\ud800", "X is \udfff 1 [1].", "", " ", "\x00", "[1]", "é", "\U0001f600"]) | st.text(
    max_size=12
)


class Deep(int):
    """A line nested this many levels deep: too deep for Python's json to parse, written out only by `_line`."""


deep = st.integers(min_value=60, max_value=3000).map(lambda n: json.loads("[" * n + "]" * n) if n < 900 else Deep(n))
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | odd_text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(odd_text, inner, max_size=3),
    max_leaves=8,
)
DROP = object()


def records(base):
    """`base` with some of its fields (or their parts) replaced by any JSON value, or dropped."""
    paths = [(k,) for k in base] + [(k, sub) for k, v in base.items() if isinstance(v, dict) for sub in v]
    paths += [("id",), ("conditions", "faithfulness_condition"), ("metadata", "test_type"), ("references", 0)]
    change = st.tuples(st.sampled_from(paths), json_values | deep | st.just(DROP))
    return st.lists(change, max_size=3).map(lambda changes: _apply(base, changes))


def _apply(base, changes):
    out = json.loads(json.dumps(base))
    for path, value in changes:
        holder = out
        for part in path[:-1]:
            holder = holder.get(part) if isinstance(holder, dict) else None
        last = path[-1]
        if isinstance(holder, dict) or (isinstance(holder, list) and isinstance(last, int) and last < len(holder)):
            if value is DROP:
                if isinstance(holder, dict):
                    holder.pop(last, None)
            else:
                holder[last] = value
    return out


def _line(value):
    if isinstance(value, Deep):  # far deeper than json's limit
        return ("[" * value + "]" * value).encode()
    if isinstance(value, bytes):
        return value
    return json.dumps(value).encode()  # ensure_ascii: a lone surrogate is written as the escape \ud800


def jsonl_files(base):
    line = records(base) | st.binary(max_size=40) | json_values | deep
    return st.lists(line, min_size=1, max_size=3).map(lambda lines: b"\n".join(_line(v) for v in lines) + b"\n")


def _check_error(err, path):
    text = str(err)
    lines = text.splitlines()
    assert lines and all(line.strip() for line in lines), text
    assert "Traceback" not in text


def _encodable(value):
    """What a request body or the cache would do with a loaded value: JSON, then UTF-8."""
    plain = dataclasses.asdict(value) if dataclasses.is_dataclass(value) and not isinstance(value, type) else value
    json.dumps(plain, ensure_ascii=False, default=str).encode("utf-8")


def _load(loader, content, name, *, sent=True):
    """`loader` on a file of `content`; with `sent`, what it loaded goes into requests, so it must encode."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / name
        path.write_bytes(content)
        try:
            loaded = loader(path)
        except JudgelabError as err:
            _check_error(err, path)
            return
        for item in (loaded if isinstance(loaded, list) else [loaded]) if sent else []:
            _encodable(item)


@MANY
@given(jsonl_files(UNIT_TEST))
def test_fuzzed_unit_test_files_load_or_are_refused(content):
    from judges.suite.loading import load_unit_tests

    _load(load_unit_tests, content, "u.jsonl")


@MANY
@given(jsonl_files(UNIT_TEST))
def test_fuzzed_sample_files_load_or_are_refused(content):
    from judges.judging.samples import load_samples

    _load(load_samples, content, "s.jsonl")


@MANY
@given(jsonl_files(RAG_SAMPLE))
def test_fuzzed_rag_sample_files_load_or_are_refused(content):
    from judges.rag.dataset import load_rag_samples

    _load(lambda path: load_rag_samples(str(path)), content, "r.jsonl")


@MANY
@given(jsonl_files(LABEL))
def test_fuzzed_label_files_load_or_are_refused(content):
    from judges.labels.io import read_labels

    _load(lambda path: list(read_labels(path).items), content, "l.jsonl")


@MANY
@given(jsonl_files(PREDICTION), st.booleans())
def test_fuzzed_prediction_files_load_or_are_refused(content, whole_json):
    from judges.agreement.predictions import read_predictions

    if whole_json:  # the same rows as one JSON document
        rows = [line for line in content.decode("utf-8", "replace").splitlines() if line.strip()]
        content = ("[" + ",".join(rows) + "]").encode()
    _load(lambda path: [read_predictions(path)], content, "p.json" if whole_json else "p.jsonl", sent=False)


@MANY
@given(jsonl_files(LABEL), st.sampled_from(["t.json", "t.jsonl", "t.csv"]))
def test_fuzzed_label_tables_load_or_are_refused(content, name):
    from judges.labels.tables import iter_rows

    if name.endswith(".json"):
        rows = [line for line in content.decode("utf-8", "replace").splitlines() if line.strip()]
        content = ("[" + ",".join(rows) + "]").encode()
    _load(lambda path: [dict(row) for _, row in iter_rows(str(path))], content, name)


RUN_JSON = {"format": 2, "kind": "metrics", "config": {}, "summary": {}, "stop_reason": None}
RESULT = {
    "id": "s1",
    "order": 0,
    "draw": 0,
    "metrics": {"hit_rate": {"verdict": {"state": "grade", "grade": 1.0}, "calls": [{"call": 1, "cost": 0.0}]}},
}


@MANY
@given(jsonl_files(RUN_JSON), jsonl_files(RESULT))
def test_fuzzed_run_folders_load_or_are_refused(meta, results):
    from judges.runs.run import Run
    from judges.runs.summarizer import summarize

    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "run.json").write_bytes(meta.splitlines()[0])
        (Path(folder) / "results.jsonl").write_bytes(results)
        try:
            run = Run.load(folder)
            records = run.records  # read from results.jsonl when first asked for
        except JudgelabError as err:
            _check_error(err, folder)
            return
        summarize(records, run.kind)  # what compare and the pages compute from a loaded folder


# TOML: a valid config with lines added (known keys, any value, deep arrays, raw text), or with its text cut


GATE = "[judge]\nmodel = 'openai/x'\n[tests]\nlimit = 2\n[min]\ntotal = 0.8\n"
LEADERBOARD = (ROOT / "tests" / "data" / "leaderboard_stub.toml").read_text(encoding="utf-8")
SPACE = (ROOT / "judges" / "tuning" / "default_space.toml").read_text(encoding="utf-8")
toml_values = st.one_of(
    st.integers().map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    odd_text.map(lambda t: json.dumps(t, ensure_ascii=True)),
    st.integers(min_value=1, max_value=3000).map(lambda n: "[" * n + "]" * n),
    st.just("{a = 1, b = [1, 2]}"),
    st.sampled_from(["true", "[1, 'a']", "'x'", "1979-05-27"]),
)
toml_keys = st.sampled_from(["model", "limit", "total", "name", "kind", "prompts", "cache", "x", "faithfulness"])
toml_lines = st.one_of(
    st.tuples(toml_keys, toml_values).map(lambda kv: f"{kv[0]} = {kv[1]}"),
    st.sampled_from(["[judge]", "[min]", "[max]", "[tests]", "[[candidates]]", "[[evaluations]]", "[selection]"]),
    st.text(max_size=20),
)


def toml_files(base):
    cut = st.integers(min_value=0, max_value=len(base)).map(lambda n: base[:n])
    grown = st.lists(st.tuples(st.integers(min_value=0, max_value=40), toml_lines), max_size=4).map(
        lambda adds: _insert(base, adds)
    )
    return (cut | grown).map(lambda text: text.encode("utf-8", "surrogatepass"))


def _insert(base, adds):
    lines = base.splitlines()
    for where, line in adds:
        lines.insert(min(where, len(lines)), line)
    return "\n".join(lines) + "\n"


@MANY
@given(toml_files(GATE))
def test_fuzzed_gate_configs_load_or_are_refused(content):
    from judges.integrations.gate import GateConfig

    _load(GateConfig.load, content, "gate.toml", sent=False)


@MANY
@given(toml_files(LEADERBOARD))
def test_fuzzed_leaderboard_configs_load_or_are_refused(content):
    from judges.leaderboard.config import load_config

    _load(load_config, content, "board.toml", sent=False)


@MANY
@given(toml_files(SPACE))
def test_fuzzed_tuning_spaces_load_or_are_refused(content):
    from judges.tuning.space import load_space

    _load(lambda path: [load_space(path)[0]], content, "space.toml", sent=False)


# The CLI's entry points, in this process: any exit but 70, and never a traceback on stderr


def _cli(capsys, args):
    try:
        code = main([str(a) for a in args])
    except SystemExit as exit_:  # argparse's own usage errors
        code = exit_.code
    err = capsys.readouterr().err
    assert code != 70 and "Traceback" not in err and "unexpected error" not in err, (args, err)
    return code


@pytest.fixture
def key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")


CLI = settings(MANY, max_examples=100)  # each case a whole command in this process: fewer, but over every entry point


@CLI
@given(content=jsonl_files(UNIT_TEST), command=st.sampled_from(["check-tests", "evaluate", "meta-eval"]))
def test_fuzzed_files_through_the_cli_never_crash(content, command, capsys, key):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "u.jsonl"
        path.write_bytes(content)
        judge = ["--judge", "openai/stub", "--api-base", DEAD, "--cache-mode", "off", "--quiet", "--timeout", "2"]
        args = {
            "check-tests": ["check-tests", path],
            "evaluate": ["evaluate", path, "--out", Path(folder) / "run", *judge],
            "meta-eval": ["meta-eval", "--tests", path, "--out", Path(folder) / "run", *judge],
        }[command]
        assert _cli(capsys, args) in (0, 1, 2, 3)


@CLI
@given(content=jsonl_files(RAG_SAMPLE))
def test_fuzzed_metrics_data_through_the_cli_never_crash(content, capsys, key):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "r.jsonl"
        path.write_bytes(content)
        args = ["metrics", "--metrics", "hit_rate,mrr", "--data", path, "--out", Path(folder) / "run", "--quiet"]
        assert _cli(capsys, [*args, "--cache-mode", "off"]) in (0, 2, 5)


@CLI
@given(labels=jsonl_files(LABEL), predictions=jsonl_files(PREDICTION))
def test_fuzzed_agreement_inputs_through_the_cli_never_crash(labels, predictions, capsys):
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "l.jsonl").write_bytes(labels)
        (Path(folder) / "p.jsonl").write_bytes(predictions)
        args = ["agreement", "--labels", Path(folder) / "l.jsonl", "--predictions", Path(folder) / "p.jsonl"]
        assert _cli(capsys, [*args, "--out", Path(folder) / "out", "--resamples", "20"]) in (0, 2)


@CLI
@given(content=toml_files(GATE))
def test_fuzzed_gate_configs_through_the_cli_never_crash(content, capsys, key):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "gate.toml"
        path.write_bytes(content)
        tests = Path(folder) / "none.jsonl"  # a bad tests file: a config that passes stops there, before any call
        tests.write_text("{}\n")
        args = ["validate", "--config", path, "--tests", tests, "--api-base", DEAD, "--cache-mode", "off", "--quiet"]
        assert _cli(capsys, args) == 2
