"""A calibration is untrusted input: every tampered shape of calibration.json (a threshold out of range, not finite,
null where the judge keeps items, text; a list as metric; a judge without a name; a bad label type; no format
version or a future one; credentials in a kept endpoint) is one line naming the file and the field, exit 2, before
any call or file; judge names that are paths (`../../victim`, an absolute path) write nothing outside `--out`; ids
the files cannot hold are refused whole; a judge that keeps nothing is never called; a dead endpoint is exit 3; and
the cascade's run against a gateway that checks its token sends the real token, never the mask."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from conftest import write_jsonl
from labelling_helpers import samples_file
from stub import stub_server  # noqa: F401  (puts benchmarks/ on the path for stub_server's replies)
from stub_server import judge_reply, message_text

from judges.cli.main import main

SHA = "0" * 64
TOKEN = "sk-gateway-token-4f2a9c"


def calibration(**changes: Any) -> dict[str, Any]:
    """A valid calibration.json (format 1) of two judges from predictions files, with `changes` applied."""
    record: dict[str, Any] = {
        "format_version": 1,
        "method": "fixed-sequence testing",
        "target": 0.85,
        "delta": 0.1,
        "min_kept": 30,
        "cut": 0.5,
        "label_type": "binary",
        "metric": "faithfulness",
        "labels": {"name": "labels", "spec": "labels.jsonl", "sha256": SHA, "count": 40},
        "judges": [
            {"name": "cheap", "source": "cheap.jsonl", "threshold": 0.8, "offered": 40, "kept": 30},
            {"name": "strong", "source": "strong.jsonl", "threshold": None, "offered": 10, "kept": 0},
        ],
        "escalated": 10,
        "escalated_share": 0.25,
    }
    record.update(changes)
    return record


def with_judge(n: int, **changes: Any) -> dict[str, Any]:
    record = calibration()
    record["judges"][n] = {**record["judges"][n], **changes}
    return record


def without(record: dict[str, Any], *path: str | int) -> dict[str, Any]:
    target: Any = record
    for part in path[:-1]:
        target = target[part]
    del target[path[-1]]
    return record


# (the tampered record, the field the line names, words of the line)
TAMPERED = [
    (with_judge(0, threshold=2), "judges[0].threshold", "less than or equal to 1"),
    (with_judge(0, threshold=-5), "judges[0].threshold", "greater than or equal to 0"),
    (with_judge(0, threshold=float("nan")), "judges[0].threshold", "finite"),
    (with_judge(0, threshold=None), "judges[0]", "threshold is null (the judge keeps nothing) but kept is 30"),
    (with_judge(0, threshold="0.9"), "judges[0].threshold", "valid number"),
    (calibration(metric=["faithfulness"]), "metric", "valid string"),
    (without(calibration(), "judges", 0, "name"), "judges[0].name", "missing field"),
    (with_judge(0, name=7), "judges[0].name", "valid string"),
    (calibration(label_type="continuous"), "label_type", "'binary', 'ordinal' or 'preference'"),
    (calibration(label_type=1), "label_type", "'binary', 'ordinal' or 'preference'"),
    (without(calibration(), "format_version"), "format_version", "no format_version"),
    (calibration(format_version=3), "format_version", "newer than this judgelab reads (2)"),
    (calibration(format_version="1"), "format_version", "a whole number"),
    (calibration(target=None), "target", "valid number"),
    (calibration(delta=1.5), "delta", "less than 1"),
    (calibration(cut=float("inf")), "cut", "finite"),
    (calibration(judges=[]), "judges", "at least 1 item"),
    (without(calibration(), "labels", "count"), "labels.count", "missing field"),
    (with_judge(0, kept=50), "judges[0]", "kept (50) is more than offered (40)"),
    (with_judge(0, surprise=1), "judges[0].surprise", "unknown field (not of format_version 2)"),
    (with_judge(1, name="cheap"), "", "the judge name 'cheap' is given twice"),
    (with_judge(0, name="../../victim"), "judges[0].name", "not a path"),
    (with_judge(0, name="/tmp/victim"), "judges[0].name", "not a path"),
    (with_judge(0, name=".."), "judges[0].name", "not a path"),
    (with_judge(0, name="a\nb"), "judges[0].name", "no control characters"),
    (
        with_judge(0, run_config={"judge": "openai/x", "api_base": "http://***@127.0.0.1:9/v1?key=***"}),
        "judges[0].run_config.api_base",
        "without credentials",
    ),
]


@pytest.fixture
def predictions(tmp_path: Path) -> list[str]:
    """Two judges' predictions on 40 items (the calibration's names)."""
    rows = [{"id": f"q{k}", "score": 0.95 if k % 2 else 0.3} for k in range(40)]
    return [f"{name}={write_jsonl(tmp_path / f'{name}.jsonl', rows)}" for name in ("cheap", "strong")]


def files_under(folder: Path) -> set[Path]:
    return {path for path in folder.rglob("*")}


@pytest.mark.parametrize(
    ("record", "field", "words"), TAMPERED, ids=[f"{f or 'names'}-{w[:24]}" for _, f, w in TAMPERED]
)
def test_a_tampered_calibration_is_one_line_naming_the_file_and_field_exit_2(
    record, field, words, tmp_path, predictions, capsys
):
    path = tmp_path / "calibration.json"
    path.write_text(json.dumps(record), encoding="utf-8")  # NaN and Infinity as Python's json writes them
    before = files_under(tmp_path)
    args = [a for spec in predictions for a in ("--predictions", spec)]
    code = main(["cascade", "apply", str(path), *args, "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err.strip()
    assert code == 2, err
    assert "\n" not in err and "Traceback" not in err
    assert err.startswith(f"judgelab: error: {path}: ")
    assert words in err
    if field:
        assert err.endswith(f"(field '{field}')")
    assert files_under(tmp_path) == before  # nothing written: not even --out


@pytest.mark.parametrize("name", ["../../victim", "/ABSOLUTE/victim"])
def test_evaluate_cascade_with_a_judge_named_as_a_path_writes_nothing_outside_out(name, tmp_path, capsys):
    name = name.replace("/ABSOLUTE", str(tmp_path / "elsewhere"))
    run = {"judge": "openai/stub", "api_base": "http://127.0.0.1:9/v1"}
    record = with_judge(0, name=name, run_config=run)
    record["judges"][1]["run_config"] = run
    path = tmp_path / "calibration.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    data = samples_file(tmp_path / "s.jsonl", n=4)
    before = files_under(tmp_path)
    out = tmp_path / "deep" / "er" / "out"
    code = main(["evaluate", str(data), "--cascade", str(path), "--out", str(out), "--quiet"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and "\n" not in err and "not a path" in err and "(field 'judges[0].name')" in err
    assert files_under(tmp_path) == before


@pytest.mark.parametrize("name", ["../../victim", str(Path("/tmp") / "victim-abs"), "a/b", ".."])
def test_calibrate_refuses_a_judge_name_that_is_a_path(name, tmp_path, predictions, capsys):
    labels = write_jsonl(
        tmp_path / "labels.jsonl",
        [{"id": f"q{k}", "metric": "faithfulness", "label": k % 2, "label_type": "binary"} for k in range(40)],
    )
    source = predictions[0].split("=", 1)[1]
    before = files_under(tmp_path)
    out = tmp_path / "out"
    code = main(
        ["cascade", "calibrate", "--labels", str(labels), "--target", "0.85", "--out", str(out)]
        + ["--predictions", f"{name}={source}"]
    )
    err = capsys.readouterr().err.strip()
    assert code == 2 and "\n" not in err and "not a path" in err, err
    assert files_under(tmp_path) == before


def test_an_id_no_file_can_hold_is_refused_and_leaves_no_partial_decisions(tmp_path, capsys):
    from judges.cascade.applying import Decision
    from judges.cascade.decision_files import queue_of, write_decisions
    from judges.errors import InputError

    out = tmp_path / "out"
    out.mkdir()
    (out / "decisions.jsonl").write_text("an earlier file\n")
    decisions = [Decision("q1", "cheap", 1.0, 0.9), Decision("q\udc80", "cheap", 1.0, 0.9)]
    with pytest.raises(InputError, match="lone surrogate at character 2"):
        write_decisions(out, decisions, ["# summary"], queue_of("faithfulness", {}, "calibration.json"))
    assert (out / "decisions.jsonl").read_text() == "an earlier file\n"  # untouched: nothing partial
    assert sorted(p.name for p in out.iterdir()) == ["decisions.jsonl"]


def test_calibrate_refuses_ids_that_are_not_utf8_text(tmp_path, predictions, capsys):
    labels = tmp_path / "labels.jsonl"
    rows = [
        json.dumps({"id": f"q{k}", "metric": "faithfulness", "label": k % 2, "label_type": "binary"}) for k in range(40)
    ]
    rows[3] = rows[3].replace('"q3"', '"q\\udc80"')
    labels.write_text("\n".join(rows) + "\n", encoding="utf-8")
    code = main(
        [
            "cascade",
            "calibrate",
            "--labels",
            str(labels),
            "--target",
            "0.85",
            "--out",
            str(tmp_path / "out"),
            "--predictions",
            predictions[0],
        ]
    )
    err = capsys.readouterr().err.strip()
    assert code == 2 and "\n" not in err and "surrogate" in err, err
    assert not (tmp_path / "out").exists()


def test_a_judge_that_keeps_nothing_is_not_read_by_apply(tmp_path, predictions, capsys):
    from judges.cascade.applying import decide

    class Unread:
        name = "strong"

        def __getattr__(self, _name: str) -> Any:
            raise AssertionError("a judge with no threshold was asked")

    from judges.cascade.sources import open_judge
    from judges.cascade.verdicts import VerdictRule
    from judges.labels.schema import LabelType

    cheap = open_judge(predictions[0], "faithfulness")
    decisions = decide([cheap, Unread()], [0.9, None], VerdictRule(LabelType.BINARY))  # type: ignore[list-item]
    assert sum(d.decided_by == "cheap" for d in decisions) == 20
    assert sum(d.decided_by is None for d in decisions) == 20


def test_an_unknown_flag_of_a_subcommand_is_not_suggested_as_itself(capsys):
    assert main(["cascade", "apply", "c.json", "--threshold", "0.5", "--out", "o", "--predictions", "x"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == "judgelab cascade apply: error: unrecognized arguments: --threshold 0.5"
    assert main(["cascade", "apply", "c.json", "--predictions", "x", "--out", "o", "--predictons", "y"]) == 2
    assert capsys.readouterr().err.strip().endswith("did you mean --predictions?")


# --- the cascade's runs against endpoints -------------------------------------------------------------------------


class Gateway(ThreadingHTTPServer):
    """An OpenAI-compatible gateway on 127.0.0.1 that answers only `Authorization: Bearer TOKEN` (and a `key` query
    parameter, when given, equal to TOKEN): anything else is a 401. It counts the requests by model and keeps every
    credential it was sent."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), GatewayHandler)
        self.asked: dict[str, int] = {}
        self.seen: list[str] = []
        self.refused = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class GatewayHandler(BaseHTTPRequestHandler):
    server: Gateway

    def log_message(self, *args: Any) -> None:
        pass

    def allowed(self) -> bool:
        auth = self.headers.get("Authorization", "")
        query = self.path.partition("?")[2]
        self.server.seen += [auth, query] + [v for k, v in self.headers.items() if k.lower().startswith("x-")]
        keys = [p.partition("=")[2] for p in query.split("&") if p.startswith("key=")]
        if auth != f"Bearer {TOKEN}" or any(k != TOKEN for k in keys):
            self.server.refused += 1
            self.send(401, {"error": {"message": "invalid token", "type": "invalid_request_error"}})
            return False
        return True

    def send(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        if self.allowed():
            self.send(200, {"object": "list", "data": [{"id": "cheap"}, {"id": "strong"}]})

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        if not self.allowed():
            return
        model = str(body.get("model"))
        self.server.asked[model] = self.server.asked.get(model, 0) + 1
        prompt = "\n".join(message_text(m.get("content", "")) for m in body.get("messages", []))
        message = {"role": "assistant", "content": judge_reply(prompt)}
        usage = {"prompt_tokens": len(prompt) // 4, "completion_tokens": 10, "total_tokens": len(prompt) // 4 + 10}
        choice = {"index": 0, "message": message, "finish_reason": "stop"}
        self.send(
            200,
            {"id": "g", "object": "chat.completion", "created": 0, "model": model, "choices": [choice], "usage": usage},
        )


@pytest.fixture
def gateway() -> Iterator[Gateway]:
    server = Gateway()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def test_evaluate_cascade_sends_the_real_token_to_a_gateway_that_checks_it(gateway, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", TOKEN)
    data = samples_file(tmp_path / "s.jsonl", n=40)
    with_key = f"{gateway.url}?api-version=1&key={TOKEN}"  # the runs' endpoint carries the key in its query too
    for name in ("cheap", "strong"):
        args = ["evaluate", str(data), "--judge", f"openai/{name}", "--api-base", with_key, "--draws", "3"]
        assert main([*args, "--out", str(tmp_path / name), "--cache", str(tmp_path / "c.sqlite"), "--quiet"]) == 0
    from judges.records import ItemRecord

    lines = (tmp_path / "cheap" / "results.jsonl").read_text().splitlines()
    graded = {r.id: r.metrics["faithfulness"].value for r in map(ItemRecord.from_json_line, lines)}
    labels = [{"id": i, "metric": "faithfulness", "label_type": "binary", "label": int(v)} for i, v in graded.items()]
    judges = ["--predictions", f"cheap={tmp_path / 'cheap'}", "--predictions", f"strong={tmp_path / 'strong'}"]
    calibrate = ["cascade", "calibrate", "--labels", str(write_jsonl(tmp_path / "l.jsonl", labels)), "--target", "0.85"]
    assert main([*calibrate, *judges, "--out", str(tmp_path / "calibration")]) == 0
    kept = json.loads((tmp_path / "calibration" / "calibration.json").read_text())
    assert [j["run_config"]["api_base"] for j in kept["judges"]] == [f"{gateway.url}?api-version=1"] * 2
    assert TOKEN not in (tmp_path / "calibration" / "calibration.json").read_text()
    gateway.asked.clear(), gateway.seen.clear()
    capsys.readouterr()
    cascade = ["evaluate", str(data), "--cascade", str(tmp_path / "calibration" / "calibration.json"), "--quiet"]
    code = main([*cascade, "--out", str(tmp_path / "cascade"), "--cache", str(tmp_path / "fresh.sqlite")])
    assert code == 0, capsys.readouterr().err
    assert gateway.refused == 0 and gateway.asked == {"cheap": 120}  # 40 items, 3 draws; strong keeps nothing
    assert not any("***" in seen for seen in gateway.seen)
    decisions = [json.loads(line) for line in (tmp_path / "cascade" / "decisions.jsonl").read_text().splitlines()]
    assert len(decisions) == 40 and all(d["decided_by"] == "cheap" for d in decisions)
    assert not (tmp_path / "cascade" / "runs" / "strong").exists()  # a judge that keeps nothing is never called


def written_calibration(tmp_path: Path, base: str) -> Path:
    run = {"judge": "openai/cheap", "api_base": base, "draws": 1}
    record = with_judge(0, run_config=run)
    record["judges"][1]["run_config"] = {**run, "judge": "openai/strong"}
    path = tmp_path / "calibration.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    return path


def test_api_base_and_extra_given_to_evaluate_cascade_apply_to_its_judges(gateway, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", TOKEN)
    path = written_calibration(tmp_path, "http://127.0.0.1:9/v1")  # calibrated elsewhere: nothing listens there
    record = json.loads(path.read_text())
    record["judges"][1]["threshold"], record["judges"][1]["kept"] = 0.0, 10  # the strong judge keeps the rest
    path.write_text(json.dumps(record), encoding="utf-8")
    data = samples_file(tmp_path / "s.jsonl", n=4)
    extra = json.dumps({"extra_headers": {"X-Gateway-Tag": "tag-7d1e"}})
    args = ["evaluate", str(data), "--cascade", str(path), "--api-base", gateway.url, "--extra", extra, "--quiet"]
    code = main([*args, "--out", str(tmp_path / "out"), "--cache", str(tmp_path / "c.sqlite")])
    assert code == 0, capsys.readouterr().err
    assert gateway.refused == 0 and set(gateway.asked) <= {"cheap", "strong"} and gateway.asked.get("cheap") == 4
    assert gateway.seen.count("tag-7d1e") == sum(gateway.asked.values())  # the header went with every request


def test_a_dead_endpoint_in_a_cascade_is_exit_3_with_plain_evaluates_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    path = written_calibration(tmp_path, "http://127.0.0.1:9/v1")
    data = samples_file(tmp_path / "s.jsonl", n=4)
    code = main(["evaluate", str(data), "--cascade", str(path), "--out", str(tmp_path / "out"), "--quiet"])
    err = capsys.readouterr().err.strip().splitlines()
    plain = main(
        ["evaluate", str(data), "--judge", "openai/cheap", "--api-base", "http://127.0.0.1:9/v1", "--quiet"]
        + ["--out", str(tmp_path / "plain")]
    )
    plain_err = capsys.readouterr().err.strip().splitlines()
    assert (code, plain) == (3, 3)
    assert "is unusable" in err[-1] and "holds no verdicts" not in err[-1]
    # the same line but for the count of calls (the cascade asks one metric, plain evaluate several)
    assert err[-1].rpartition("; ")[0] == plain_err[-1].rpartition("; ")[0]
    assert err[-1].startswith("judgelab: stopped (endpoint_unusable): judge openai/cheap at http://127.0.0.1:9/v1")


def test_apply_reads_files_that_line_up_a_line_at_a_time_and_others_whole_alike(tmp_path, monkeypatch, capsys):
    import judges.cascade.applying as applying
    from judges.cascade.decision_schema import read_decisions

    path = tmp_path / "calibration.json"
    path.write_text(json.dumps(with_judge(1, threshold=0.6, kept=5)), encoding="utf-8")
    rows = [{"id": f"q{k}", "score": [0.95, 0.3, 0.5, 0.65][k % 4]} for k in range(40)]
    cheap = write_jsonl(tmp_path / "cheap.jsonl", rows)
    strong = write_jsonl(tmp_path / "strong.jsonl", [{**r, "score": 1 - r["score"]} for r in rows])
    shuffled = write_jsonl(tmp_path / "shuffled.jsonl", [{**r, "score": 1 - r["score"]} for r in reversed(rows)])
    whole, decide = [], applying.decide
    monkeypatch.setattr(applying, "decide", lambda *given: whole.append(1) or decide(*given))
    found = {}
    for name, second in (("aligned", strong), ("shuffled", shuffled)):
        out = tmp_path / name
        args = ["cascade", "apply", str(path), "--predictions", f"cheap={cheap}", "--predictions", f"strong={second}"]
        assert main([*args, "--out", str(out)]) == 0
        found[name] = [d.model_dump(exclude={"timestamp"}) for d in read_decisions(out / "decisions.jsonl")]
        found[name + "-queue"] = (out / "queue.jsonl").read_text()
    assert found["aligned"] == found["shuffled"]
    assert found["aligned-queue"] == found["shuffled-queue"]
    assert whole == [1]  # the files that line up were read a line at a time; the shuffled one whole
    by = [d["decided_by"] for d in found["aligned"]]
    # cheap (threshold 0.8) keeps 0.95 alone; strong (0.6) sees 0.7, 0.5 and 0.35: confidences 0.7, 0.5, 0.65
    assert by[:4] == ["cheap", "strong", None, "strong"] and len(by) == 40
    assert [json.loads(line)["id"] for line in found["aligned-queue"].splitlines()] == [
        f"q{k}" for k in range(40) if k % 4 == 2
    ]
