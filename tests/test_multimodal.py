"""Multi-modal samples: image references read and checked on load, sent as OpenAI image parts (shrunk, hashed in
the cache key, never stored), refused by judges that cannot see, and the two multi-modal metrics."""

import base64
import io
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys

import pytest
from conftest import ROOT, hang_guard, write_jsonl
from PIL import Image as PILImage
from rag_helpers import claims, score, verdicts
from stub import stub_server

from judges.calls.backend import CompletionRequest
from judges.calls.content_views import content_text
from judges.errors import InputProblems
from judges.images.image_parts import with_image_parts
from judges.judging.samples import load_samples
from judges.rag.dataset import load_rag_samples
from judges.types import Sample

MULTIMODAL = ROOT / "unit_tests" / "multimodal"
TESTS = str(MULTIMODAL / "test.jsonl")


def judgelab(*args, cwd):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OPENAI_API_KEY": "sk-test-not-a-real-key"}
    command = [sys.executable, "-m", "judges.cli.main", *args]
    return subprocess.run(command, env=env, capture_output=True, text=True, cwd=cwd, timeout=hang_guard())


def png(path, size=(300, 200), colour=(200, 30, 30)):
    path.parent.mkdir(parents=True, exist_ok=True)
    PILImage.new("RGB", size, colour).save(path, format="PNG")
    return path


def image_record(**overrides):
    base = {
        "id": "s1",
        "input": "Which month was the wettest?",
        "references": [{"image": "img/chart.png"}, "The chart shows monthly rainfall."],
        "actual_output": "January [1].",
        "expected_output": "January [1].",
    }
    return {**base, **overrides}


def test_an_image_path_relative_to_the_data_file_loads_as_a_marker_and_an_image(tmp_path):
    png(tmp_path / "data" / "img" / "chart.png")
    data = write_jsonl(tmp_path / "data" / "s.jsonl", [image_record()])
    for sample in (load_rag_samples(str(data))[0], load_samples(data)[0][1]):
        (image,) = sample.images
        assert (image.kind, image.source, image.location) == (
            "file",
            "img/chart.png",
            str(data.parent / "img/chart.png"),
        )
        assert image.mime == "image/png"
        assert sample.references == (
            f"[image sha256:{image.sha256} img/chart.png]",
            "The chart shows monthly rainfall.",
        )


def test_a_list_of_text_and_image_parts_is_one_reference(tmp_path):
    png(tmp_path / "a.png")
    data = write_jsonl(tmp_path / "s.jsonl", [image_record(references=[["Figure 2:", {"image": "a.png"}]])])
    sample = load_rag_samples(str(data))[0]
    assert sample.references == (f"Figure 2:\n{sample.images[0].marker}",)


@pytest.mark.parametrize(
    ("make", "problem"),
    [
        (lambda d: None, "references.0: image file not found: img/chart.png"),
        (
            lambda d: (d / "img").mkdir() or (d / "img" / "chart.png").write_bytes(os.urandom(300)),
            "references.0: img/chart.png: not an image Pillow can read",
        ),
    ],
    ids=["missing", "corrupt"],
)
def test_a_missing_or_corrupt_image_is_one_line_naming_file_line_and_field_before_any_call(tmp_path, make, problem):
    make(tmp_path)
    data = write_jsonl(
        tmp_path / "s.jsonl",
        [{"id": "ok", "input": "q", "references": ["t"], "actual_output": "a", "expected_output": "e"}, image_record()],
    )
    for command in (["metrics", "--metrics", "mm_faithfulness", "--data", str(data)], ["evaluate", str(data)]):
        # an unreachable endpoint: a call would exit 3, so exit 2 shows none was made
        result = judgelab(
            *command, "--judge", "openai/x", "--api-base", "http://127.0.0.1:9/v1", "--vision", cwd=tmp_path
        )
        assert result.returncode == 2, result.stderr
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"judgelab: error: {data}:2:{problem}"), result.stderr


def test_the_loader_reports_every_image_problem_of_a_file(tmp_path):
    data = write_jsonl(
        tmp_path / "s.jsonl", [image_record(), image_record(id="s2", input=[{"image": "q.png"}, "What is it?"])]
    )
    with pytest.raises(InputProblems) as err:
        load_samples(data)
    assert [p.split(": ", 1)[0] for p in err.value.problems] == [
        f"{data}:1:references.0",
        f"{data}:2:references.0",
        f"{data}:2:input",
    ]


@pytest.mark.parametrize(
    ("judge", "words"),
    [
        (
            ["--judge", "local/smollm2-135m"],
            "judge local/smollm2-135m cannot see images, and 1 sample(s) hold images: the offline judge reads text only",
        ),
        (
            ["--judge", "openai/x", "--api-base", "http://127.0.0.1:9/v1"],
            "judge openai/x cannot see images, and 1 sample",
        ),
    ],
    ids=["offline", "endpoint-without-vision"],
)
def test_a_text_only_judge_asked_to_grade_images_is_one_clear_line_and_no_call(tmp_path, judge, words):
    png(tmp_path / "img" / "chart.png")
    data = write_jsonl(tmp_path / "s.jsonl", [image_record()])
    for command in (
        ["metrics", "--metrics", "mm_context_relevancy", "--data", str(data)],
        ["meta-eval", "--tests", TESTS],
    ):
        result = judgelab(*command, *judge, "--out", str(tmp_path / "run"), cwd=tmp_path)
        assert result.returncode == 2, result.stderr
        lines = result.stderr.strip().splitlines()
        expected = words if command[0] == "metrics" else words.replace("and 1 sample", "and 9 sample")
        assert len(lines) == 1 and expected in lines[0], result.stderr
        assert not (tmp_path / "run").exists()


def _request(sample: Sample, max_side: int = 1024) -> CompletionRequest:
    messages = with_image_parts([{"role": "user", "content": "\n".join(sample.references or ())}], max_side)
    return CompletionRequest("openai/x", tuple(messages), {"temperature": 0})


def test_the_cache_key_hashes_image_bytes_not_paths(tmp_path):
    png(tmp_path / "a" / "chart.png")
    shutil.copy(tmp_path / "a" / "chart.png", png(tmp_path / "b" / "other.png"))
    png(tmp_path / "c" / "chart.png", colour=(0, 0, 255))
    keys = []
    for folder, name in (("a", "chart.png"), ("b", "other.png"), ("c", "chart.png")):
        data = write_jsonl(tmp_path / folder / "s.jsonl", [image_record(references=[{"image": name}])])
        keys.append(_request(load_rag_samples(str(data))[0]).cache_key())
    assert keys[0] == keys[1] and keys[0] != keys[2]


def test_images_are_shrunk_to_the_max_side_and_shown_without_bytes(tmp_path):
    png(tmp_path / "big.png", size=(1000, 500))
    data = write_jsonl(tmp_path / "s.jsonl", [image_record(references=[["Chart:", {"image": "big.png"}]])])
    request = _request(load_rag_samples(str(data))[0], max_side=100)
    text, image = request.messages[0]["content"]
    assert text == {"type": "text", "text": "Chart:\n"}
    url = image["image_url"]["url"]
    assert url.startswith("data:image/png;base64,")
    assert PILImage.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))).size == (100, 50)
    assert "base64" not in content_text(request.messages[0]["content"])


def test_mm_metrics_give_their_verdicts_per_statement_and_per_reference(tmp_path):
    png(tmp_path / "chart.png")
    data = write_jsonl(
        tmp_path / "s.jsonl", [image_record(references=[{"image": "chart.png"}, "Rain is measured in mm."])]
    )
    sample = load_rag_samples(str(data))[0]
    replies = {
        "claims": claims("January was the wettest month.", "It was cold."),
        "claim_support": verdicts((True, [1]), False),
    }
    result, backend = score("mm_faithfulness", sample, lambda r: replies[r.metric])
    assert result.verdict.grade == 0.5
    assert result.details["references"] == [
        {"reference": 1, "kind": "image", "supports": [1]},
        {"reference": 2, "kind": "text", "supports": []},
    ]
    support_prompt = next(r for r in backend.requests if r.metric == "claim_support").messages[0]["content"]
    assert [part["type"] for part in support_prompt] == ["text", "image_url", "text"]

    def relevance(request):
        is_image = isinstance(request.messages[0]["content"], list)
        return json.dumps({"reason": "r", "relevant": is_image})

    result, _ = score("mm_context_relevancy", sample, relevance)
    assert result.verdict.grade == 0.5
    assert result.details["references"] == [
        {"reference": 1, "kind": "image", "relevant": True, "reason": "r"},
        {"reference": 2, "kind": "text", "relevant": False, "reason": "r"},
    ]


def _sent_images(record_file):
    bodies = [json.loads(line) for line in record_file.read_text().splitlines()]
    parts = [p for b in bodies for m in b["messages"] if isinstance(m["content"], list) for p in m["content"]]
    return bodies, [p["image_url"]["url"] for p in parts if p["type"] == "image_url"]


def _no_base64_in(folder, cache):
    for path in folder.iterdir():
        if path.is_file() and path.suffix in (".jsonl", ".json", ".md", ".html"):
            assert "base64," not in path.read_text(encoding="utf-8"), path
    with sqlite3.connect(cache) as db:
        assert not [row for row in db.execute("SELECT reply FROM replies") if "base64," in row[0]]


def test_a_multimodal_metrics_run_against_the_stub_sends_image_parts(tmp_path):
    sent = tmp_path / "sent.jsonl"
    data = shutil.copytree(MULTIMODAL, tmp_path / "mm") / "charts.jsonl"
    records = [json.loads(line) for line in (MULTIMODAL / "test.jsonl").read_text().splitlines()]
    write_jsonl(data, [{k: r[k] for k in ("id", "input", "references", "actual_output")} for r in records[:3]])
    with stub_server(latency_ms=1, record=str(sent)) as base:
        result = judgelab(
            "metrics", "--metrics", "mm_faithfulness,mm_context_relevancy", "--data", str(data),
            "--judge", "openai/stub", "--api-base", base, "--vision", "--image-max-side", "64",
            "--out", str(tmp_path / "run"), "--cache", str(tmp_path / "c.sqlite"), "--quiet", cwd=tmp_path,
        )  # fmt: skip
    assert result.returncode == 0, result.stderr
    bodies, urls = _sent_images(sent)
    assert urls and all(url.startswith("data:image/png;base64,") for url in urls)
    sizes = {PILImage.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))).size for url in urls}
    assert max(max(size) for size in sizes) == 64
    rows = [json.loads(line) for line in (tmp_path / "run" / "results.jsonl").read_text().splitlines()]
    states = {r["metrics"][m]["verdict"]["state"] for r in rows for m in ("mm_faithfulness", "mm_context_relevancy")}
    assert states == {"grade"}
    assert rows[0]["sample"]["images"][0]["source"] == "rainfall.png"
    assert [v["kind"] for v in rows[0]["metrics"]["mm_context_relevancy"]["details"]["references"]] == [
        "image",
        "text",
        "image",
    ]
    _no_base64_in(tmp_path / "run", tmp_path / "c.sqlite")
    # the same run again, against the same endpoint (its URL keys the replies), now stopped: every reply comes from
    # the cache, since any call would be refused
    again = judgelab(
        "metrics", "--metrics", "mm_faithfulness,mm_context_relevancy", "--data", str(data),
        "--judge", "openai/stub", "--api-base", base, "--vision", "--image-max-side", "64",
        "--out", str(tmp_path / "run2"), "--cache", str(tmp_path / "c.sqlite"), "--quiet", cwd=tmp_path,
    )  # fmt: skip
    usage = json.loads((tmp_path / "run2" / "run.json").read_text())["usage"]
    assert again.returncode == 0 and usage["calls"] == usage["cached_calls"] > 0, again.stderr
    assert bodies[0]["model"] == "stub"


def test_a_meta_eval_on_the_multimodal_tests_against_the_stub(tmp_path):
    sent = tmp_path / "sent.jsonl"
    with stub_server(latency_ms=1, record=str(sent)) as base:
        result = judgelab(
            "meta-eval", "--tests", TESTS, "--judge", "openai/stub", "--api-base", base, "--vision",
            "--out", str(tmp_path / "run"), "--cache", str(tmp_path / "c.sqlite"), "--quiet", cwd=tmp_path,
        )  # fmt: skip
    assert result.returncode == 0, result.stderr
    _, urls = _sent_images(sent)
    assert urls and all(url.startswith("data:image/png;base64,") for url in urls)
    rows = [json.loads(line) for line in (tmp_path / "run" / "results.jsonl").read_text().splitlines()]
    assert len(rows) == 9
    outcomes = {o["outcome"] for r in rows for o in r["metrics"].values()}
    assert outcomes <= {"pass", "wrong_grade", "failure"} and "pass" in outcomes
    _no_base64_in(tmp_path / "run", tmp_path / "c.sqlite")
    page = (tmp_path / "run" / "report.html").read_text(encoding="utf-8")
    thumbnails = set(re.findall(r'<img src="([^"]+)"', page))
    assert {(tmp_path / "run" / src).resolve().name for src in thumbnails} == {
        "rainfall.png",
        "population.png",
        "energy_mix.png",
        "ferry_fares.png",
    }
    assert all((tmp_path / "run" / src).resolve().is_file() for src in thumbnails)


def test_check_tests_passes_the_multimodal_set_and_its_baselines_separate(tmp_path):
    result = judgelab("check-tests", TESTS, "--baselines", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert f"{TESTS}: 9 unit tests, 0 problem(s)" in result.stdout
    totals = {
        line.split("|")[1].strip(): line.split("|")[-2].strip()
        for line in result.stdout.splitlines()
        if line.startswith("| ") and "%" in line
    }
    # the set's discrimination, exact: the constant and seeded random judges are deterministic
    assert totals == {
        "oracle": "100.0%",
        "always-top": "57.4%",
        "always-lowest": "42.6%",
        "always-null": "40.7%",
        "random": "40.7%",
    }


def test_whether_a_judge_sees_is_its_flag_else_litellms_model_table_and_never_the_offline_judge():
    from judges.calls.model_spec import JudgeModel
    from judges.images.vision import can_see

    assert can_see(JudgeModel.from_name("gpt-4o-mini")) is True
    assert can_see(JudgeModel.from_name("openai/x", api_base="http://127.0.0.1:9/v1")) is False
    assert can_see(JudgeModel.from_name("openai/x", api_base="http://127.0.0.1:9/v1", vision=True)) is True
    assert can_see(JudgeModel.from_name("local/smollm2-135m", vision=True)) is False
