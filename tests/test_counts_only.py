"""measure(counts_only=True): the label rows and each figure's value as the full measure gives them, with no bootstrap
resample drawn; `label serve --until-decided` uses it, and its certificate after each label equals the one the full
(bootstrapped) measure gives on the same file."""

from __future__ import annotations

import numpy as np
import pytest
from test_label_until_decided import main_args, queue_and_judge

from judges.agreement import bootstrap
from judges.agreement.agreement_settings import AgreementSettings
from judges.agreement.measure import measure
from judges.agreement.predictions import Prediction, Predictions
from judges.cli.certify_cmd import measured, opened
from judges.cli.sequential_cmd import sequential_checks
from judges.cli.until_decided_cmd import certificate_now, validate_args
from judges.labelling.label_server import LabelPages
from judges.labelling.queue import read_queue
from judges.labelling.scales import scale_for
from judges.labelling.session import LabellingSession
from judges.labels.schema import LabelledItem, LabelledSet, LabelType
from judges.types import Sample, VerdictState


def no_resample(*args: object, **kwargs: object) -> None:
    raise AssertionError("a bootstrap resample was drawn")


def labelled(n: int = 60) -> tuple[LabelledSet, Predictions]:
    rng = np.random.default_rng(5)
    human = rng.integers(0, 2, n)
    judge = np.where(rng.random(n) < 0.8, human, 1 - human)
    items = [
        LabelledItem(
            f"i{k}", "faithfulness", float(human[k]), LabelType.BINARY, (0.0, 1.0), "ann", Sample(input=f"q{k}")
        )
        for k in range(n)
    ]
    by_key = {(f"i{k}", None): Prediction(f"i{k}", VerdictState.GRADE, float(judge[k])) for k in range(n)}
    return LabelledSet("own", tuple(items)), Predictions(by_key)


def test_counts_only_gives_the_rows_and_values_of_the_full_measure_and_draws_no_resample(monkeypatch):
    labels, predictions = labelled()
    settings = AgreementSettings(resamples=200)
    full = measure(labels, predictions, settings)
    monkeypatch.setattr(bootstrap, "resample_blocks", no_resample)
    counted = measure(labels, predictions, settings, counts_only=True)
    assert full.rows is not None and counted.rows is not None
    assert np.array_equal(full.rows.human, counted.rows.human)
    assert np.array_equal(full.rows.views["binary"], counted.rows.views["binary"])
    values = {f.statistic: f.value for f in full.judge}
    assert {f.statistic: f.value for f in counted.judge} == pytest.approx(values, nan_ok=True)
    human, said = full.rows.human, full.rows.views["binary"]
    recalls = np.mean(said[human == 1] == 1), np.mean(said[human == 0] == 0)
    assert values["balanced_accuracy"] == pytest.approx(float(np.mean(recalls)))
    assert all(f.ci is None for f in counted.judge)
    assert (counted.errors, counted.systems, counted.groups, counted.estimate) == (None, None, None, None)
    with pytest.raises(AssertionError, match="resample"):  # the full measure draws them
        measure(labels, predictions, settings)


def test_until_decided_after_each_label_equals_the_full_computation_with_no_resample(tmp_path, monkeypatch):
    queue, judge = queue_and_judge(tmp_path, n=30, wrong=frozenset({4, 7}))
    out, bars = tmp_path / "labels.jsonl", ("--min-recall", "0.6")
    session = LabellingSession(read_queue(queue), "faithfulness", scale_for("faithfulness"), "", "ann", out)
    pages = LabelPages(session, None)
    options = validate_args(main_args(queue, out, judge, *bars), "faithfulness")
    for position in range(30):
        pages.submit(position, {"choice": str(position % 2)})
        with monkeypatch.context() as patch:
            patch.setattr(bootstrap, "resample_blocks", no_resample)
            now = certificate_now(options)
        chosen, subset, _, _, read = opened(options, options.min)
        full = sequential_checks(options, measured(options, subset, read), chosen)
        assert now is not None
        assert (now.state, now.decided_at, now.labels_seen) == (full.state, full.decided_at, full.labels_seen)
        assert [c.to_dict() for c in now.checks] == [c.to_dict() for c in full.checks]
    assert now.labels_seen == 30
