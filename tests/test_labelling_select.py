"""`judgelab label select`: a queue drawn from two scripted judges' runs favours their disagreements, reproducibly."""

from __future__ import annotations

import json

import pytest
from conftest import compact
from labelling_helpers import graded_run, samples_file

from judges.cli.main import main
from judges.labelling.graded import read_pool
from judges.labelling.queue import read_queue
from judges.labelling.selection import allocate, draw
from judges.runs.run_config import RunConfig

FLAGGED = {0, 5, 10, 15, 20, 25, 30, 35}  # the 8 items where the two judges disagree


def two_runs(tmp_path):
    data = samples_file(tmp_path / "mine.jsonl", 40, FLAGGED)
    lenient = graded_run(tmp_path / "run-a", data, "judge-a", lambda prompt: 1)
    strict = graded_run(tmp_path / "run-b", data, "judge-b", lambda prompt: 0 if "FLAGGED" in prompt else 1)
    return lenient, strict


def test_allocation_gives_each_stratum_one_then_shares_by_size_and_priority():
    # 2 strata: 8 items at spread 1 (priority 1.2), 32 at spread 0 (priority 0.2); 10 draws
    assert allocate([8, 32], [1.2, 0.2], 10) == [6, 4]
    assert allocate([8, 32], [1.2, 0.2], 40) == [8, 32]  # everything
    assert allocate([3, 3, 3], [1.0, 1.0, 1.0], 2) == [1, 1, 0]  # too short for every stratum
    assert sum(allocate([5, 7, 100], [1.2, 0.7, 0.2], 30)) == 30


def test_select_over_represents_disagreement_with_exact_inclusion_probabilities(tmp_path, capsys):
    lenient, strict = two_runs(tmp_path)
    queue = tmp_path / "queue.jsonl"
    assert main(["label", "select", str(lenient), str(strict), "--n", "10", "--out", str(queue), "--seed", "0"]) == 0
    items = read_queue(queue)
    assert len(items) == 10 and [i.position for i in items] == list(range(10))
    disagreeing = [i for i in items if int(i.id[1:]) in FLAGGED]
    assert len(disagreeing) == 6  # 60% of the queue against 8 / 40 = 20% of the population
    for item in items:
        flagged = int(item.id[1:]) in FLAGGED
        selection = item.selection
        assert selection["disagreement"] == (1.0 if flagged else 0.0)
        assert selection["stratum"] == (
            "score [0.40, 0.60), disagreement strong" if flagged else "score [0.80, 1.00], disagreement none"
        )
        assert selection["inclusion_probability"] == (0.75 if flagged else 0.125)
        assert selection["weight"] == pytest.approx(8 / 6 if flagged else 32 / 4)
        assert selection["population"] == 40 and selection["uniform"] is False
        # the sample text is re-read from the runs' data file; no judge grade is kept in the queue
        assert item.sample.input == f"What is fact {int(item.id[1:])}?"
        assert "grade" not in json.dumps(item.to_record())
    report = compact((tmp_path / "queue.md").read_text())
    assert (
        "inverse-probability weights" in report
        and "| score [0.40, 0.60), disagreement strong | 8 | 6 | 0.75 |" in report
    )
    assert "6 of 10 in the queue, 8 of 40 in the population" in capsys.readouterr().out


def test_the_draw_is_reproducible_with_its_seed_and_changes_with_another(tmp_path):
    lenient, strict = two_runs(tmp_path)
    pool = read_pool([lenient, strict])
    first, again, other = (draw(pool, 10, seed=s) for s in (0, 0, 1))
    assert [c.id for c in first.chosen] == [c.id for c in again.chosen]
    assert [c.id for c in first.chosen] != [c.id for c in other.chosen]
    assert first.strata == other.strata  # the same allocation, other items within the strata
    for seed in (0, 1):
        out = tmp_path / f"q{seed}.jsonl"
        main(["label", "select", str(lenient), str(strict), "--n", "10", "--out", str(out), "--seed", str(seed)])
    again_file = tmp_path / "q0-again.jsonl"
    main(["label", "select", str(lenient), str(strict), "--n", "10", "--out", str(again_file), "--seed", "0"])
    assert again_file.read_text() == (tmp_path / "q0.jsonl").read_text()


def test_one_judge_and_a_queue_covering_everything_is_a_uniform_draw(tmp_path):
    lenient, _ = two_runs(tmp_path)
    pool = read_pool([lenient])
    drawn = draw(pool, 100)
    assert drawn.uniform and len(drawn.chosen) == 40 and {c.inclusion_probability for c in drawn.chosen} == {1.0}
    from judges.labelling.queue import queue_report

    assert "The draw was uniform" in queue_report(pool, drawn, "q.jsonl")


def test_a_run_of_another_kind_or_several_metrics_is_a_one_line_error(tmp_path, capsys):
    lenient, _ = two_runs(tmp_path)
    assert main(["label", "select", str(lenient), "--metric", "completeness", "--out", str(tmp_path / "q")]) == 2
    assert "--metric completeness: not graded by every run (they share: faithfulness)" in capsys.readouterr().err
    assert main(["label", "select", str(tmp_path / "nowhere"), "--out", str(tmp_path / "q")]) == 2
    assert "not a run folder" in capsys.readouterr().err


def test_metrics_runs_written_by_hand_are_read_with_their_samples_in_ragas_names(tmp_path):
    from conftest import write_jsonl

    from judges.records import ItemRecord, Summary
    from judges.runs.run import Run

    data = write_jsonl(
        tmp_path / "rag.jsonl",
        [{"id": f"r{k}", "question": f"Q{k}?", "answer": f"A{k}.", "contexts": [f"C{k}."]} for k in range(6)],
    )
    folders = []
    for name, grades in (("x", [0.1, 0.2, 0.9, 0.9, 0.5, 0.5]), ("y", [0.1, 0.8, 0.9, 0.1, 0.5, 0.5])):
        folder = tmp_path / name
        folder.mkdir()
        records = [
            {"id": f"r{k}", "order": k, "metrics": {"ragas_faithfulness": {"verdict": {"state": "grade", "grade": g}}}}
            for k, g in enumerate(grades)
        ]
        write_jsonl(folder / "results.jsonl", records)
        typed = [ItemRecord.from_json(r) for r in records]
        Run("metrics", RunConfig.from_json({"judge": name, "data": str(data)}), typed, Summary()).save(folder)
        folders.append(folder)
    pool = read_pool(folders)
    assert pool.metric == "ragas_faithfulness" and pool.grade_range == (0.0, 1.0) and pool.judges == ["x", "y"]
    drawn = draw(pool, 2, seed=3)
    # 4 strata and 2 draws: no stratum is sure of one; r1 (spread 0.6) and r3 (0.8) form the one heavy stratum
    assert drawn.strata == {
        "score [0.00, 0.20), disagreement none": (1, 0),
        "score [0.40, 0.60), disagreement none": (2, 0),
        "score [0.40, 0.60), disagreement strong": (2, 2),
        "score [0.80, 1.00], disagreement none": (1, 0),
    }
    assert sorted(c.id for c in drawn.chosen) == ["r1", "r3"] and not drawn.uniform
    assert pool.samples["r1"].input == "Q1?" and pool.samples["r1"].references == ("C1.",)


def test_the_pool_streams_each_runs_records_and_keeps_item_order(tmp_path, monkeypatch):
    """The runs' records are streamed from results.jsonl, not read whole into memory; records written in another
    order (as a concurrent run writes them) give the very same pool, in item order."""
    from judges.runs.run import Run

    lenient, strict = two_runs(tmp_path)
    expected = read_pool([lenient, strict])
    for folder in (lenient, strict):
        results = folder / "results.jsonl"
        results.write_text("".join(reversed(results.read_text().splitlines(keepends=True))))
    monkeypatch.setattr(Run, "records", property(lambda run: pytest.fail("a whole run was read into memory")))
    streamed = read_pool([lenient, strict])
    assert list(streamed.verdicts) == list(expected.verdicts) == [f"s{i:02d}" for i in range(40)]
    assert streamed.verdicts == expected.verdicts and streamed.samples == expected.samples
