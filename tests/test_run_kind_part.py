"""A run kind's part of the summary sits under the kind's own key in run.json (the unit-test kind's too); a run.json
written before (its figures beside the summary's own, and a `probes: null` every run carried) loads, migrated on read,
and a committed folder's pages regenerated from its records are byte for byte the committed ones."""

from __future__ import annotations

import json
import shutil

import pytest
from conftest import ROOT

from judges.records import Summary
from judges.runs.folder import save_run
from judges.runs.run import Run
from judges.runs.summarizer import summarize
from judges.suite.outcome_summary import OutcomeSummary

OLD = ROOT / "results" / "runs" / "smollm2-default--unit_tests_unit_tests_test_first-32"  # committed, older layout
FIGURES = ("total_pass_rate", "completed_tests", "tests_passing_all", "wrong_grades", "failures", "by_test_type")


def test_an_older_unit_test_run_json_loads_its_figures_as_the_kinds_part():
    written = json.loads((OLD / "run.json").read_text(encoding="utf-8"))["summary"]
    assert "unit_tests" not in written and written["probes"] is None  # the layout before parts had their key
    run = Run.load(OLD)
    assert isinstance(run.summary.part, OutcomeSummary)
    assert run.summary.part.total_pass_rate == written["total_pass_rate"] == run.summary.total_pass_rate
    now = run.summary.to_json()
    assert list(now) == ["n_items", "metrics", "usage", "consistency", "unit_tests"]  # no `probes`, no guessing
    assert {key: now["unit_tests"][key] for key in FIGURES} == {key: written[key] for key in FIGURES}
    assert summarize(run.iter_records(), run.kind) == run.summary  # the migrated figures are the records' own


def test_a_part_is_read_by_the_kind_run_json_names_not_by_its_keys():
    part = OutcomeSummary(total_pass_rate=0.5, completed_tests=2)
    written = Summary(n_items=2, part=part).to_json()
    assert written["unit_tests"]["total_pass_rate"] == 0.5 and "total_pass_rate" not in written
    assert Summary.from_json(written, "unit_tests").part == part
    assert Summary.from_json(written, "grade").part is None  # a kind with no part reads none, whatever the keys
    assert Summary.from_json({"n_items": 1, "total_pass_rate": 0.5, "probes": None}, "grade").part is None
    assert Summary.from_json({"n_items": 1, "probes": None}, "probes").part is None  # a probe run with no pair


COMMITTED = sorted(p.parent for p in (ROOT / "results").glob("**/runs/*/report.html"))  # a run with its pages


@pytest.mark.parametrize("committed", COMMITTED, ids=[p.name for p in COMMITTED])
def test_a_committed_folder_regenerated_from_its_records_is_byte_for_byte_the_same(tmp_path, committed):
    run = Run.load(committed)
    folder = tmp_path / "again"
    folder.mkdir()
    shutil.copy(committed / "results.jsonl", folder / "results.jsonl")
    run.summary = summarize(run.iter_records(), run.kind)
    save_run(run, folder)
    for page in ("summary.md", "report.html"):
        assert (folder / page).read_bytes() == (committed / page).read_bytes(), page
    again = json.loads((folder / "run.json").read_text(encoding="utf-8"))
    assert Run.load(folder).summary == Run.load(committed).summary and again["kind"] == run.kind


def test_every_committed_run_folder_is_regenerated_above():
    assert len(COMMITTED) >= 20 and {p.parent.parent.name for p in COMMITTED} == {"results", "llmbar"}
