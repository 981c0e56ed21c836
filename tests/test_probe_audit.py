"""The blind probe audit: pairs drawn blind and evenly across probes, answered on the labelling page, and scored
against each probe's declared expectations with Wilson intervals."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from judges.api import load_tests
from judges.cli.main import main
from judges.labelling.label_server import make_server
from judges.labelling.pairs import PairSession, is_audit
from judges.probes.audit import KEY_FILE, PAIRS_FILE, agrees_with, draw_pairs, read_pairs, score
from judges.probes.probe_registry import shipped_probes
from judges.probes.task import perturb


def write_shipped_audit(folder: Path, n: int) -> dict:
    assert main(["probe", "--audit", str(n), "--out", str(folder), "--limit", "32", "--quiet"]) == 0
    return json.loads((folder / KEY_FILE).read_text())


def oracle_answers(key: dict, annotator: str = "oracle") -> list[dict]:
    """A grader who answers exactly what each probe declares (and "same" on the metrics it does not declare)."""
    return [
        {
            "pair": pair_id,
            "annotator": annotator,
            "answers": {
                m: entry["original"] if entry["expects"].get(m) == "lower" else "same"
                for m in ("answer_relevancy", "completeness", "faithfulness")
            },
        }
        for pair_id, entry in key["pairs"].items()
    ]


def test_the_audit_file_is_blind_and_the_draw_even_across_probes(tmp_path):
    key = write_shipped_audit(tmp_path / "audit", 16)
    text = (tmp_path / "audit" / PAIRS_FILE).read_text()
    for probe in shipped_probes():
        assert probe.name not in text  # no probe name, and the key lives apart
    assert "original" not in text and "sample_id" not in text
    probes = [entry["probe"] for entry in key["pairs"].values()]
    assert len(probes) == 16 and "swap_answers" not in probes
    assert {probes.count(name) for name in set(probes)} == {2}  # 8 audited probes, 2 pairs each
    assert {entry["original"] for entry in key["pairs"].values()} == {"a", "b"}
    assert is_audit(tmp_path / "audit" / PAIRS_FILE) and len(read_pairs(tmp_path / "audit" / PAIRS_FILE)) == 16
    again = write_shipped_audit(tmp_path / "again", 16)
    assert again["pairs"] == key["pairs"]  # seeded


def test_each_pair_shows_its_original_on_the_side_the_key_names():
    tests = load_tests(None, "test", 16)
    made, _ = perturb([(t.id, t.sample) for t in tests], shipped_probes())
    pairs, key = draw_pairs(made, {p.name: p.expects for p in shipped_probes()}, 10, seed=3)
    originals = {sid: s for sid, probe, s in made if probe == "original"}
    for pair in pairs:
        entry = key["pairs"][pair.id]
        shown = pair.a if entry["original"] == "a" else pair.b
        assert shown == originals[entry["sample_id"]]
        assert set(entry["expects"]) <= {"answer_relevancy", "completeness", "faithfulness"}


def test_scoring_counts_each_graders_last_answer_per_declared_metric():
    key = {
        "pairs": {
            "p001": {"probe": "closing_sentence", "original": "a", "expects": {"faithfulness": "same"}},
            "p002": {"probe": "drop_cited_fact", "original": "b", "expects": {"completeness": "lower"}},
        }
    }
    answers = [
        {"pair": "p001", "annotator": "x", "answers": {"faithfulness": "a"}},
        {"pair": "p001", "annotator": "x", "answers": {"faithfulness": "same"}},  # changed mind: this one counts
        {"pair": "p002", "annotator": "x", "answers": {"completeness": "b", "faithfulness": "a"}},
        {"pair": "p002", "annotator": "y", "answers": {"completeness": "same"}},
    ]
    result = score(key, answers)
    assert result.graders == ["x", "y"]
    assert (result.overall.agree, result.overall.n) == (2, 3)
    rows = {row.probe: row for row in result.rows}
    assert (rows["closing_sentence"].agree, rows["closing_sentence"].n) == (1, 1)
    assert (rows["drop_cited_fact"].agree, rows["drop_cited_fact"].n, rows["drop_cited_fact"].pairs) == (1, 2, 1)
    assert rows["drop_cited_fact"].disagreements == ["p002 completeness: y chose same"]
    assert result.overall.always_same == pytest.approx(1 / 3)
    low, high = result.overall.low, result.overall.high
    assert low == pytest.approx(0.2077, abs=1e-3) and high == pytest.approx(0.9385, abs=1e-3)  # Wilson, 2 of 3


def test_probe_audit_scores_an_oracle_grader_at_100_and_an_always_same_grader_at_the_invariance_share(tmp_path):
    key = write_shipped_audit(tmp_path / "audit", 16)
    oracle, lazy = tmp_path / "oracle.jsonl", tmp_path / "lazy.jsonl"
    oracle.write_text("".join(json.dumps(a) + "\n" for a in oracle_answers(key)))
    same = [{**a, "annotator": "lazy", "answers": dict.fromkeys(a["answers"], "same")} for a in oracle_answers(key)]
    lazy.write_text("".join(json.dumps(a) + "\n" for a in same))
    assert main(["probe", "audit", str(tmp_path / "audit"), str(oracle)]) == 0
    scored = json.loads((tmp_path / "audit" / "audit-score.json").read_text())
    assert scored["overall"]["agree"] == scored["overall"]["n"] > 16
    assert main(["probe", "audit", str(tmp_path / "audit"), str(lazy)]) == 0
    scored = json.loads((tmp_path / "audit" / "audit-score.json").read_text())
    assert scored["overall"]["agree"] / scored["overall"]["n"] == pytest.approx(scored["overall"]["always_same"])
    assert scored["overall"]["agree"] < scored["overall"]["n"]
    report = (tmp_path / "audit" / "audit-score.md").read_text()
    assert "| drop_cited_fact" in report and 'always "same"' in report
    assert main(["probe", "audit", str(tmp_path / "nowhere"), str(lazy)]) == 2
    assert main(["probe", "audit", str(tmp_path / "audit"), str(tmp_path / "missing.jsonl")]) == 2


def test_the_pair_page_takes_a_choice_per_metric_and_refuses_an_incomplete_one(tmp_path):
    write_shipped_audit(tmp_path / "audit", 4)
    pairs = read_pairs(tmp_path / "audit" / PAIRS_FILE)
    session = PairSession(pairs, "ann", tmp_path / "answers.jsonl")
    server = make_server(session)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        page = urllib.request.urlopen(f"{url}/item/0").read().decode()
        assert "Answer A" in page and "Answer B" in page and 'name="faithfulness"' in page
        assert not any(probe.name in page for probe in shipped_probes())
        form = {"answer_relevancy": "same", "completeness": "a", "faithfulness": "same", "note": "fine"}
        urllib.request.urlopen(f"{url}/item/0", urllib.parse.urlencode(form).encode()).read()
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(f"{url}/item/1", urllib.parse.urlencode({"completeness": "b"}).encode())
        assert refused.value.code == 400
    finally:
        server.shutdown()
        server.server_close()
    (answer,) = [json.loads(line) for line in (tmp_path / "answers.jsonl").read_text().splitlines()]
    assert answer["pair"] == pairs[0].id and answer["answers"]["completeness"] == "a" and answer["note"] == "fine"
    assert session.resume_position() == 1


def test_an_audit_of_data_samples_draws_only_pairs_the_probes_vouch_for(tmp_path):
    from conftest import write_jsonl

    tests = load_tests(None, "test", 16)
    data = write_jsonl(
        tmp_path / "data.jsonl",
        [
            {
                "id": t.id,
                "input": t.sample.input,
                "references": list(t.sample.references or ()),
                "expected_output": t.sample.expected_output,
                "actual_output": t.sample.actual_output,
            }
            for t in tests
        ],
    )
    assert main(["probe", "--data", str(data), "--audit", "40", "--out", str(tmp_path / "audit"), "--quiet"]) == 0
    key = json.loads((tmp_path / "audit" / KEY_FILE).read_text())
    skipped = key["plan"]["skipped"]["drop_cited_fact"]
    assert "its conditions do not say the answer is relevant, complete and faithful" not in skipped  # no conditions
    assert skipped["the answer abstains: its completeness does not move"] == 5  # the five abstaining types
    assert len(key["pairs"]) == 40 and len(read_pairs(tmp_path / "audit" / PAIRS_FILE)) == 40


@pytest.mark.parametrize(
    ("folder", "seed", "pairs", "agree"),
    [
        ("probe-audit-test-split", 7, 40, (95, 95)),
        ("probe-audit-test-split-seed-11", 11, 40, (95, 95)),
        ("probe-audit-blind-seed-2026", 2026, 60, (290, 290)),  # two blind graders
    ],
)
def test_the_published_audits_are_the_pairs_the_probes_make_today(tmp_path, folder, seed, pairs, agree):
    """A change to a probe changes its pairs: the published audit (and its graders' answers) must then be redone."""
    from conftest import ROOT

    published = ROOT / "results" / "audits" / folder
    args = ["probe", "--audit", str(pairs), "--audit-seed", str(seed), "--out", str(tmp_path), "--quiet"]
    assert main(args) == 0
    assert (tmp_path / PAIRS_FILE).read_bytes() == (published / PAIRS_FILE).read_bytes()
    key = json.loads((published / KEY_FILE).read_text())
    assert json.loads((tmp_path / KEY_FILE).read_text()) == key
    answers = [
        json.loads(line) for path in sorted(published.glob("answers-*.jsonl")) for line in path.read_text().splitlines()
    ]
    result = score(key, answers)
    assert (result.overall.agree, result.overall.n) == agree


def test_a_grader_agrees_with_never_higher_when_the_perturbed_answer_is_no_better():
    assert agrees_with("not higher", "a", "same") and agrees_with("not higher", "a", "a")
    assert not agrees_with("not higher", "a", "b")  # b, the perturbed answer, judged better: the bias
    assert agrees_with("lower", "b", "b") and not agrees_with("lower", "b", "same")
    assert agrees_with("same", "a", "same") and not agrees_with("same", "a", "a")
