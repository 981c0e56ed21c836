"""A board measures many candidates on one read of the labels: its rows equal each candidate measured alone."""

import io
import json
from pathlib import Path

import numpy as np
import pytest

from judges.agreement.agreement_settings import AgreementSettings
from judges.agreement.measure import measure
from judges.agreement.policy import Policy
from judges.agreement.predictions import Prediction, read_predictions
from judges.agreement.predictions_columns import parsed_lines, regular_lines
from judges.errors import InputError
from judges.labels.io import read_labels
from judges.labels.label_sets import open_labels
from judges.leaderboard.build import run_leaderboard
from judges.leaderboard.config import load_config
from judges.leaderboard.config_types import Candidate, Jury
from judges.leaderboard.jury import combine
from judges.leaderboard.jury_errors import error_correlation
from judges.leaderboard.label_figures import calibration_of
from judges.leaderboard.label_jury import jury_scores, member_errors
from judges.types import Verdict, VerdictState

N_ITEMS = 160
SHARES = (0.1, 0.2, 0.35)  # each candidate's share of wrong calls


def _inputs(folder: Path) -> tuple[Path, list[Path]]:
    """Seeded binary labels from 3 systems and one probability file per share of wrong calls."""
    rng = np.random.default_rng(7)
    truth = (rng.random(N_ITEMS) < 0.5).astype(int)
    labels = folder / "labels.jsonl"
    labels.write_text(
        "".join(
            json.dumps({"id": f"i{n}", "metric": "faithfulness", "label": int(t), "label_type": "binary"})[:-1]
            + f', "system": "s{n % 3}"}}\n'
            for n, t in enumerate(truth)
        )
    )
    files = []
    for k, share in enumerate(SHARES):
        vote = np.where(rng.random(N_ITEMS) < share, 1 - truth, truth)
        score = np.where(vote == 1, 0.55, 0.05) + rng.random(N_ITEMS) * 0.4
        path = folder / f"judge-{k}.jsonl"
        path.write_text("".join(f'{{"id": "i{n}", "score": {s:.4f}}}\n' for n, s in enumerate(score)))
        files.append(path)
    return labels, files


def _config(labels: Path, files: list[Path]) -> str:
    candidates = "".join(
        f'[[candidates]]\nname = "judge-{k}"\nkind = "predictions"\nsource = "{path}"\nthreshold = 0.5\n\n'
        for k, path in enumerate(files)
    )
    unthresholded = f'[[candidates]]\nname = "scores"\nkind = "predictions"\nsource = "{files[1]}"\n\n'
    evaluations = (
        f'[[evaluations]]\nkind = "labels"\nsource = "{labels}"\nname = "plain"\nstatistic = "balanced_accuracy"\n\n'
        f'[[evaluations]]\nkind = "labels"\nsource = "{labels}"\nname = "systems"\n\n'
    )
    jury = '[[jury]]\nname = "panel"\nmembers = ["judge-0", "judge-1", "judge-2"]\nrule = "majority"\n'
    return candidates + unthresholded + evaluations + jury


def test_every_board_row_equals_the_candidate_measured_alone_with_every_interval(tmp_path):
    labels_path, files = _inputs(tmp_path)
    (tmp_path / "board.toml").write_text(_config(labels_path, files))
    config = load_config(tmp_path / "board.toml")
    entries, _, _ = run_leaderboard(config, tmp_path / "board", log=io.StringIO())
    labels = open_labels(str(labels_path))
    sources = {f"judge-{k}": (path, 0.5) for k, path in enumerate(files)} | {"scores": (files[1], None)}
    checked = 0
    for entry in entries:
        if entry.candidate not in sources:
            continue
        evaluation = next(e for e in config.evaluations if e.name == entry.evaluation)
        path, threshold = sources[entry.candidate]
        alone = measure(
            labels,
            read_predictions(path),
            AgreementSettings(
                policy=Policy(evaluation.policy).value, threshold=threshold, resamples=evaluation.resamples
            ),
            calibration=calibration_of(evaluation),
        )
        figure = alone.figure(entry.statistic)
        assert figure.ci is not None
        assert (entry.value, entry.ci_low, entry.ci_high) == (figure.value, *figure.ci)
        assert entry.figures == {f.statistic: f.value for f in alone.figures()}
        checked += 1
    assert checked == 8  # 4 candidates on 2 evaluations
    ranked = {e.statistic for e in entries if e.candidate in sources}
    assert ranked == {"balanced_accuracy", "balanced_accuracy_system_macro"}


def _jury_inputs(votes: list[list[float]]) -> tuple[list[Candidate], list[dict[str, Prediction]], object]:
    """Members scoring 0/1 probabilities cut at 0.5 (a vote of 1 as 0.8, of 0 as 0.3) on labels i0, i1, ..."""
    members = [Candidate(name=f"m{k}", kind="predictions", source="x", threshold=0.5) for k in range(len(votes))]
    scored = [
        {f"i{n}": Prediction(f"i{n}", VerdictState.GRADE, 0.8 if v else 0.3) for n, v in enumerate(row)}
        for row in votes
    ]
    rows = [{"id": f"i{n}", "metric": "m", "label": n % 2, "label_type": "binary"} for n in range(len(votes[0]))]
    return members, scored, rows


@pytest.mark.parametrize("n_members", [2, 3, 4])
def test_a_majority_of_vote_arrays_equals_combining_each_items_verdicts(tmp_path, n_members):
    rng = np.random.default_rng(n_members)
    votes = (rng.random((n_members, 40)) < 0.5).astype(float).tolist()
    members, scored, rows = _jury_inputs(votes)
    path = tmp_path / "labels.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    labels = open_labels(str(path))
    jury = Jury(name="panel", members=[m.name for m in members], rule="majority")
    found = jury_scores(jury, members, scored, labels)
    assert not isinstance(found, str)
    assert all(p.state is VerdictState.GRADE and p.id == i for i, p in found.items())
    expected = {
        f"i{n}": combine([Verdict.graded(row[n]) for row in votes], "majority").grade for n in range(len(votes[0]))
    }
    assert {i: p.score for i, p in found.items()} == expected
    assert list(found) == [f"i{n}" for n in range(len(votes[0]))]
    errors = [{f"i{n}": float(v != n % 2) for n, v in enumerate(row)} for row in votes]
    assert member_errors(members, scored, labels) == error_correlation(errors)


LINES = [
    '{"id": "a", "score": 0.5}',
    '{"id":"b","score":-0}',
    '{"id": "c", "score": -0.0}',
    '{ "id" : "é" , "score" : 12 }\r',
    '{"id": "d", "score": 2E-2}',
    "",
    '{"id": 5, "score": 1}',
    '{"score": 1, "id": "x"}',
    '{"id": "y", "score": 01}',
    '{"id": "t\\"", "score": 1}',
    '{"id": "v", "score": 1, "x": 2}',
    '{"id": "r", "score": 1e999}',
]


@pytest.mark.parametrize("count", [1, 2, 3])
def test_the_regular_expression_reads_a_file_as_the_parser_or_leaves_it_to_the_parser(count):
    rng = np.random.default_rng(count)
    for _ in range(300):
        data = ("\n".join(rng.choice(LINES, size=count)) + "\n").encode()
        regular, parsed = regular_lines(data, "id", "score"), parsed_lines(data, "id", "score")
        if regular is not None:
            assert parsed is not None
            assert regular[0] == parsed[0]
            assert [repr(v) for v in regular[1]] == [repr(v) for v in parsed[1]]  # -0.0 and 0.0 told apart
    assert regular_lines(b'{"id": "a", "score": 0.5}\n{"id": 5, "score": 1}\n', "id", "score") is None
    assert regular_lines(b'{"id":"b","score":-0}\n', "id", "score") == (["b"], [0.0])


def test_a_file_read_in_blocks_of_lines_reads_as_one_block(monkeypatch):
    import functools

    from judges.agreement import predictions_columns

    lines = [f'{{"id": "i{n}", "score": {n / 7:.4f}}}' for n in range(200)]
    data = ("\n".join(lines) + "\n").encode()
    whole = regular_lines(data, "id", "score")
    small = functools.partial(predictions_columns._blocks, size=50)
    monkeypatch.setattr(predictions_columns, "_blocks", small)
    assert len(list(small(data.decode()))) > 50
    assert regular_lines(data, "id", "score") == whole == parsed_lines(data, "id", "score")
    assert regular_lines(data + b'{"id": 5, "score": 1}\n', "id", "score") is None  # a later block's line


@pytest.mark.parametrize(
    ("second", "field"),
    [
        ('"label": 1, "scale": null', "scale"),
        ('"label": 1, "scale": [0, null]', "scale"),
        ('"label": 1, "scale": []', "scale"),
        ('"label": true', "label"),
        ('"label": 1, "scale": [0, 2]', "scale"),
    ],
)
def test_a_label_seen_before_is_still_checked_with_its_own_scale(tmp_path, second, field):
    path = tmp_path / "labels.jsonl"
    common = '"metric": "m", "label_type": "binary"'
    path.write_text(f'{{"id": "a", "label": 1, {common}}}\n{{"id": "b", {second}, {common}}}\n')
    with pytest.raises(InputError) as caught:
        read_labels(path)
    assert (caught.value.line, caught.value.field) == (2, field)


@pytest.mark.parametrize("policy", [Policy.EXCLUDE, Policy.WRONG, Policy.IMPUTE])
def test_a_column_of_grades_is_measured_without_an_outcome_object_per_item_as_the_same_outcomes(tmp_path, policy):
    from judges.agreement.predictions import Predictions
    from judges.agreement.predictions_columns import ColumnOutcomes

    labels_path, files = _inputs(tmp_path)
    labels = read_labels(labels_path)
    held = read_predictions(files[0])
    assert isinstance(held.by_key, ColumnOutcomes)
    made: list[str] = []

    def counted(item: str, *args: object) -> Prediction:
        made.append(item)
        return Prediction(item, *args)  # type: ignore[arg-type]

    names = [i for i, _ in held.by_key]
    scores = np.array([held.by_key[i, None].score for i in names])
    last = names.pop()  # the last item missing: a hole in the column
    column = Predictions(ColumnOutcomes(names, scores[:-1], counted), source=str(files[0]))
    objects = Predictions({(i, None): Prediction(i, VerdictState.GRADE, float(s)) for i, s in zip(names, scores)})
    for threshold in (0.5, None):
        found = measure(labels, column, AgreementSettings(policy=policy.value, threshold=threshold, resamples=200))
        expected = measure(labels, objects, AgreementSettings(policy=policy.value, threshold=threshold, resamples=200))
        assert found.to_dict() == expected.to_dict()
        assert found.counts.missing == 1 and last not in names
    assert made == []


def test_a_file_of_the_labelled_items_in_another_order_stays_a_column_put_in_the_labels_order(tmp_path):
    from judges.agreement.predictions import Predictions
    from judges.agreement.predictions_columns import ColumnItems, ColumnOutcomes

    labels_path, files = _inputs(tmp_path)
    labels = read_labels(labels_path)
    held = read_predictions(files[0])
    made: list[str] = []

    def counted(item: str, *args: object) -> Prediction:
        made.append(item)
        return Prediction(item, *args)  # type: ignore[arg-type]

    names = [i for i, _ in held.by_key]
    scores = np.array([held.by_key[i, None].score for i in names])
    order = np.random.default_rng(3).permutation(len(names))
    shuffled = ColumnOutcomes([names[k] for k in order], scores[order], counted)
    in_order = shuffled.items_in(names)
    assert isinstance(in_order, ColumnItems) and [in_order[i].score for i in names] == scores.tolist()
    assert shuffled.items_in(names[:-1]) is None and shuffled.items_in([*names[:-1], "other"]) is None
    made.clear()
    objects = Predictions({(i, None): Prediction(i, VerdictState.GRADE, float(s)) for i, s in zip(names, scores)})
    found = measure(
        labels, Predictions(shuffled, source=str(files[0])), AgreementSettings(threshold=0.5, resamples=200)
    )
    assert found.to_dict() == measure(labels, objects, AgreementSettings(threshold=0.5, resamples=200)).to_dict()
    assert made == []
