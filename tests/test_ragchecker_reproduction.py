"""RAGChecker's published meta-evaluation, reproduced from its own files with its protocol (Pearson/Spearman x 100).

Protocol of the source (data/meta_evaluation/meta_eval.py): per pair, RAGChecker's metric for model2 minus
model1, min-max scaled to [-2, 2], repeated once per annotator and correlated with the 560 human labels;
human-human is annotator 1 (rows 0, 2, 4, ...) against annotator 2 (rows 1, 3, 5, ...).
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from conftest import compact

from judges.agreement.agreement_settings import AgreementSettings
from judges.agreement.measure import measure
from judges.agreement.predictions import read_predictions
from judges.cli.main import main
from judges.labels.label_sets import load_set

BASELINE = ("ragchecker", "baseline_ragchecker.json")
SCORES = "model1.ragchecker.{metric}_label,model2.ragchecker.{metric}_label"
# metric: (Pearson, Spearman) x 100 of RAGChecker vs humans, then of annotator 1 vs annotator 2
PUBLISHED = {
    "correctness": ((49.66, 46.9), (63.67, 59.19)),
    "completeness": ((60.67, 58.1), (71.91, 68.36)),
    "overall": ((61.93, 60.9), (70.09, 68.89)),
}


@pytest.fixture(scope="module")
def results(shared_datasets):
    labels = load_set("ragchecker")
    out = {}
    for metric in PUBLISHED:
        predictions = read_predictions(
            shared_datasets.joinpath(*BASELINE), id_field="instance_id", score_field=SCORES, metric=metric
        )
        out[metric] = measure(labels.for_metric(metric), predictions, AgreementSettings(resamples=200, seed=0))
    return out


@pytest.mark.parametrize("metric", list(PUBLISHED))
def test_ragchecker_vs_humans_matches_the_paper(results, metric):
    (pearson, spearman), _ = PUBLISHED[metric]
    result = results[metric]
    assert round(result.figure("pearson").value * 100, 2) == pearson
    assert round(result.figure("spearman").value * 100, 1) == spearman  # published to one decimal
    assert result.figure("pearson").n == 560 and result.figure("pearson").n_items == 280
    assert result.counts.graded == 280 and result.counts.excluded == 0 and result.unmatched_predictions == 0


@pytest.mark.parametrize("metric", list(PUBLISHED))
def test_human_human_ceiling_matches_the_paper(results, metric):
    _, (pearson, spearman) = PUBLISHED[metric]
    result = results[metric]
    assert round(result.figure("pearson", ceiling=True).value * 100, 2) == pearson
    assert round(result.figure("spearman", ceiling=True).value * 100, 2) == spearman
    assert result.figure("pearson", ceiling=True).n == 280


def test_intervals_bracket_the_reproduced_figures(results):
    for result in results.values():
        for fig in result.judge + result.ceiling:
            assert fig.ci is not None and fig.ci[0] < fig.value < fig.ci[1], fig


def test_metric_mapping_is_precision_recall_f1(shared_datasets):
    """baseline_ragchecker.json's correctness/completeness/overall are claim precision, recall and their F1."""
    rows = json.loads(shared_datasets.joinpath(*BASELINE).read_text(encoding="utf-8"))
    checked = 0
    for row in rows:
        for side in ("model1", "model2"):
            scores = row[side]["ragchecker"]
            p, r, f1 = scores["correctness_label"], scores["completeness_label"], scores["overall_label"]
            assert math.isclose(f1, 2 * p * r / (p + r) if p + r else 0.0, abs_tol=1e-12)
            checked += 1
    assert checked == 560


def agreement_on_ragchecker(baseline, out):
    return main(
        [
            "agreement",
            "--labels",
            "ragchecker",
            "--predictions",
            str(baseline),
            "--id-field",
            "instance_id",
            "--score-field",
            SCORES,
            "--out",
            str(out),
            "--resamples",
            "100",
        ]
    )


def test_the_command_reproduces_the_three_pearson_figures(tmp_path, capsys, shared_datasets):
    code = agreement_on_ragchecker(shared_datasets.joinpath(*BASELINE), tmp_path)
    assert code == 0 and "| pearson | 0.4966 |" in compact(capsys.readouterr().out)
    metrics = json.loads((tmp_path / "agreement.json").read_text())["metrics"]
    pearson = {m: next(f["value"] for f in metrics[m]["judge"] if f["statistic"] == "pearson") for m in PUBLISHED}
    assert {m: round(v * 100, 2) for m, v in pearson.items()} == {m: PUBLISHED[m][0][0] for m in PUBLISHED}


def test_scaling_is_the_sources_and_does_not_move_the_correlations():
    from judges.agreement.label_rows import minmax_scale

    delta = np.array([-0.5, 0.1, 0.25])
    scaled = minmax_scale(delta, (-2.0, 2.0))
    assert scaled.tolist() == pytest.approx(list(((delta - delta.min()) / (delta.max() - delta.min()) - 0.5) * 4))


def test_the_command_follows_the_protocol_on_the_miniature_set(tmp_path, mini_shared):
    """The same command on the miniature sets (tests/miniature_sets.py): each Pearson figure is the protocol's, recomputed here with scipy."""
    from scipy.stats import pearsonr

    assert agreement_on_ragchecker(mini_shared.joinpath(*BASELINE), tmp_path) == 0
    metrics = json.loads((tmp_path / "agreement.json").read_text())["metrics"]
    rows = json.loads(mini_shared.joinpath(*BASELINE).read_text(encoding="utf-8"))
    humans = json.loads((mini_shared / "ragchecker" / "human_labeled_data.json").read_text(encoding="utf-8"))
    for metric in PUBLISHED:
        name = f"{metric}_label"
        delta = np.array([r["model2"]["ragchecker"][name] - r["model1"]["ragchecker"][name] for r in rows])
        scaled = ((delta - delta.min()) / (delta.max() - delta.min()) - 0.5) * 4
        expected = pearsonr(np.repeat(scaled, 2), [h[name] for h in humans]).statistic
        figure = next(f for f in metrics[metric]["judge"] if f["statistic"] == "pearson")
        assert figure["value"] == pytest.approx(expected) and figure["n"] == 8
