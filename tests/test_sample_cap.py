"""A record keeps its sample's texts capped as it keeps a judge's reply: a text over the limit of one reply is cut to
its start with a marker naming its size, the texts together within a quarter of the record's limit, and what was
cut listed under `truncated`; so a results.jsonl record stays under its limit (1 MB) whatever the sample."""

from __future__ import annotations

import json

from conftest import reply, serve_double

from judges.api import grade_samples
from judges.calls.scripted import ScriptedBackend
from judges.files.jsonl import max_record_bytes
from judges.runs.run import Run
from judges.runs.tasks import sample_fields
from judges.types import Sample

BIG = 3_000_000
KEPT_CHARS = 1_000  # the start of an oversized text its record keeps, as of a reply


def test_a_3_mb_sample_is_kept_under_the_record_limit_with_its_truncation_marked(tmp_path, monkeypatch):
    serve_double(monkeypatch, ScriptedBackend(lambda request: reply(request.metric, 1)))
    document = "The report says the bridge opened in 1894. " * (BIG // 43 + 1)
    sample = Sample(
        input="When did the bridge open?",
        references=(document[:BIG], "A short second reference."),
        expected_output="In 1894.",
        actual_output="It opened in 1894 [1].",
    )
    run = grade_samples([("big", sample)], "openai/double", metrics=["faithfulness"], out=tmp_path, cache_mode="off")
    lines = (tmp_path / "results.jsonl").read_bytes().splitlines()
    assert len(lines) == 1 and len(lines[0]) < max_record_bytes()
    kept = json.loads(lines[0])["sample"]
    assert kept["truncated"] == {"references[0]": BIG}
    assert (
        kept["references"][0]
        == f"{document[:KEPT_CHARS]} [... truncated by judgelab: the sample's references[0] was 3,000,000 bytes]"
    )
    assert kept["references"][1] == "A short second reference." and kept["input"] == "When did the bridge open?"
    assert [r.id for r in Run.load(tmp_path).records] == ["big"]  # the folder reads back
    assert run.records[0].metrics["faithfulness"].verdict.grade == 1  # the judge saw the whole sample


def test_many_texts_under_the_limit_of_one_are_kept_within_a_quarter_of_the_record():
    chunk = "x" * 60_000  # each under the limit of one text (62,500 bytes)
    fields = sample_fields(Sample(input="q", references=tuple([chunk] * 50), actual_output="a"))
    size = len(json.dumps(fields, ensure_ascii=False).encode())
    assert size <= max_record_bytes() // 4 + 1_000
    assert fields["references"][:4] == [chunk] * 4  # the first ones whole, until the quarter is spent
    assert fields["truncated"]["references[4]"] == 60_000 and fields["truncated"]["references items dropped"] == 45
    assert fields["references"][4].endswith("[... truncated by judgelab: the sample's references[4] was 60,000 bytes]")


def test_a_usual_sample_is_kept_as_it_is():
    sample = Sample(input="q?", references=("r1", "r2"), actual_output="a", expected_output="e")
    assert sample_fields(sample) == {
        "input": "q?",
        "references": ["r1", "r2"],
        "expected_output": "e",
        "actual_output": "a",
    }
