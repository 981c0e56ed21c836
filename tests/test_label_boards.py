"""Leaderboards on labelled data: predictions candidates (no call), juries on labels, paired comparisons of figures."""

import io
import json
import statistics
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import spearmanr
from sklearn.metrics import balanced_accuracy_score

from judges.cli.main import main
from judges.errors import ConfigError
from judges.leaderboard.build import run_leaderboard
from judges.leaderboard.config import load_config

N_ITEMS = 120


def write_labels(folder: Path, labels: list[float], label_type: str = "binary", scale=(0, 1)) -> Path:
    """A labelled-item JSONL: one annotator per item, ids i0, i1, ..."""
    path = folder / "labels.jsonl"
    rows = [
        {
            "id": f"i{n}",
            "metric": "faithfulness",
            "label": label,
            "label_type": label_type,
            "scale": list(scale),
            "actual_output": f"answer {n}",
        }
        for n, label in enumerate(labels)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def write_predictions(folder: Path, name: str, scores: dict[str, float]) -> Path:
    path = folder / f"{name}.jsonl"
    path.write_text("".join(json.dumps({"id": i, "score": s}) + "\n" for i, s in scores.items()))
    return path


def board(folder: Path, text: str) -> dict:
    """Build the board of a config written in `folder`; its leaderboard.json."""
    config = folder / "board.toml"
    config.write_text(text)
    run_leaderboard(load_config(config), folder / "board", log=io.StringIO())
    return json.loads((folder / "board" / "leaderboard.json").read_text())


def candidate(name: str, source: Path, **keys) -> str:
    extra = "".join(f"{k} = {json.dumps(v)}\n" for k, v in keys.items())
    return f'[[candidates]]\nname = "{name}"\nkind = "predictions"\nsource = "{source}"\n{extra}\n'


BASELINES = '[[candidates]]\nname = "always-top"\nkind = "baseline"\nbaseline = "always-top"\n\n'


def evaluation(labels: Path, **keys) -> str:
    extra = "".join(f"{k} = {json.dumps(v)}\n" for k, v in keys.items())
    return f'[[evaluations]]\nkind = "labels"\nsource = "{labels}"\nname = "set"\nresamples = 100\n{extra}\n'


def rows(data: dict, name: str) -> dict:
    [row] = [e for e in data["entries"] if e["candidate"] == name]
    return row


def seven_judges(rng: np.random.Generator, truth: np.ndarray) -> dict[str, np.ndarray]:
    """Continuous scores in [0, 1] (never 0 or 1): three judges each wrong on a different third of the items, four
    more wrong on a random share of them; a vote is score >= 0.5."""
    n = truth.size
    votes = {}
    for k, name in enumerate(("third-a", "third-b", "third-c")):
        wrong = np.zeros(n, dtype=bool)
        wrong[k * n // 3 : (k + 1) * n // 3] = True
        votes[name] = np.where(wrong, 1 - truth, truth)
    for name, share in (("noisy-10", 0.1), ("noisy-20", 0.2), ("noisy-30", 0.3), ("noisy-45", 0.45)):
        votes[name] = np.where(rng.random(n) < share, 1 - truth, truth)
    return {name: np.where(v == 1, 0.55, 0.05) + rng.random(n) * 0.4 for name, v in votes.items()}


@pytest.fixture(scope="module")
def seven(tmp_path_factory):
    folder = tmp_path_factory.mktemp("seven")
    rng = np.random.default_rng(7)
    truth = (rng.random(N_ITEMS) < 0.4).astype(int)
    labels = write_labels(folder, [float(t) for t in truth])
    scores = seven_judges(rng, truth)
    files = {
        name: write_predictions(folder, name, {f"i{n}": float(s) for n, s in enumerate(values)})
        for name, values in scores.items()
    }
    text = (
        "".join(candidate(name, path, threshold=0.5) for name, path in files.items())
        + BASELINES
        + evaluation(labels)
        + '[[jury]]\nname = "panel"\nmembers = ["third-a", "third-b", "third-c"]\nrule = "majority"\n\n'
        + '[[jury]]\nname = "weak-panel"\nmembers = ["noisy-10", "noisy-45", "third-a"]\nrule = "majority"\n'
    )
    return folder, labels, truth, scores, files, board(folder, text)


def test_seven_predictions_files_give_the_balanced_accuracy_of_agreement_at_threshold_half(seven):
    folder, labels, truth, scores, files, data = seven
    for name, path in files.items():
        out = folder / f"agreement-{name}"
        command = ["agreement", "--labels", str(labels), "--predictions", str(path), "--threshold", "0.5"]
        assert main([*command, "--resamples", "100", "--out", str(out)]) == 0
        metric = json.loads((out / "agreement.json").read_text())["metrics"]["faithfulness"]
        expected = next(f["value"] for f in metric["judge"] if f["statistic"] == "balanced_accuracy")
        row = rows(data, name)
        assert row["statistic"] == "balanced_accuracy" and row["value"] == expected
        assert expected == balanced_accuracy_score(truth, (scores[name] >= 0.5).astype(int))
        assert row["calls"] == 0 and row["cost_measured"] is False and row["n"] == N_ITEMS


def test_a_jury_reports_the_balanced_accuracy_of_its_members_majority_and_wins_only_over_its_best_member(seven):
    _, _, truth, scores, _, data = seven
    for jury, members in (
        ("panel", ("third-a", "third-b", "third-c")),
        ("weak-panel", ("noisy-10", "noisy-45", "third-a")),
    ):
        votes = np.array([(scores[m] >= 0.5).astype(int) for m in members])
        majority = (votes.sum(axis=0) >= 2).astype(int)
        row = rows(data, jury)
        assert row["kind"] == "jury" and row["members"] == list(members)
        assert row["statistic"] == "balanced_accuracy"
        assert row["value"] == balanced_accuracy_score(truth, majority)
    [pick] = data["picks"]
    # each member of the panel is wrong on another third: the majority is right everywhere and beats them all
    assert rows(data, "panel")["value"] == 1.0 and pick["best"] == "panel"
    assert "its best member" in pick["why"] and "paired bootstrap of balanced_accuracy" in pick["why"]
    # the weak panel does no better than its best member, noisy-10: it is not crowned
    assert pick["excluded"]["weak-panel"].startswith("does not beat its best member")


def test_a_predictions_candidate_with_missing_items_counts_them_by_the_evaluations_policy(tmp_path):
    rng = np.random.default_rng(3)
    truth = (rng.random(N_ITEMS) < 0.5).astype(int)
    labels = write_labels(tmp_path, [float(t) for t in truth])
    votes = np.where(rng.random(N_ITEMS) < 0.2, 1 - truth, truth)
    covered = list(range(20, N_ITEMS))  # the file lacks the first 20 items
    path = write_predictions(tmp_path, "partial", {f"i{n}": float(votes[n]) for n in covered})
    for policy, n, expected in (
        ("exclude", 100, balanced_accuracy_score(truth[20:], votes[20:])),
        # counted as wrong: the judge value farthest from the label, i.e. the other class
        ("wrong", N_ITEMS, balanced_accuracy_score(truth, np.concatenate([1 - truth[:20], votes[20:]]))),
    ):
        data = board(tmp_path, candidate("partial", path) + BASELINES + evaluation(labels, policy=policy))
        row = rows(data, "partial")
        assert row["n"] == n and row["value"] == pytest.approx(expected, abs=1e-12)
        done = {"exclude": "excluded", "wrong": "counted as wrong"}[policy]
        assert row["note"] == f"20 missing of {N_ITEMS} items: {done}"
    assert "## Notes on figures" in (tmp_path / "board" / "leaderboard.md").read_text()


def test_a_median_jury_on_ordinal_labels_is_scored_on_the_members_median_grade(tmp_path):
    rng = np.random.default_rng(11)
    truth = rng.integers(1, 6, size=N_ITEMS)
    labels = write_labels(tmp_path, [float(t) for t in truth], label_type="ordinal", scale=(1, 5))
    grades = {f"judge-{k}": np.clip(truth + rng.integers(-2, 3, size=N_ITEMS), 1, 5) for k in range(3)}
    files = {
        name: write_predictions(tmp_path, name, {f"i{n}": float(g) for n, g in enumerate(v)})
        for name, v in grades.items()
    }
    data = board(
        tmp_path,
        "".join(candidate(name, path) for name, path in files.items())
        + evaluation(labels)
        + '[[jury]]\nname = "median-of-3"\nmembers = ["judge-0", "judge-1", "judge-2"]\nrule = "median"\n',
    )
    median = [statistics.median_low(int(grades[m][n]) for m in grades) for n in range(N_ITEMS)]
    row = rows(data, "median-of-3")
    assert row["statistic"] == "spearman"
    assert row["value"] == pytest.approx(spearmanr(truth, median).statistic, abs=1e-12)
    for name in grades:
        assert rows(data, name)["value"] == pytest.approx(spearmanr(truth, grades[name]).statistic, abs=1e-12)


def test_a_majority_jury_on_continuous_scores_without_a_threshold_says_why_it_has_no_figure(tmp_path):
    truth = [float(n % 2) for n in range(40)]
    labels = write_labels(tmp_path, truth)
    files = [
        write_predictions(tmp_path, f"p{k}", {f"i{n}": 0.3 + 0.1 * k + 0.01 * n for n in range(40)}) for k in range(2)
    ]
    data = board(
        tmp_path,
        candidate("p0", files[0])
        + candidate("p1", files[1], threshold=0.5)
        + evaluation(labels)
        + '[[jury]]\nname = "j"\nmembers = ["p0", "p1"]\n',
    )
    row = rows(data, "j")
    assert (
        row["value"] is None
        and row["note"] == "member p0 gives continuous scores and no threshold: a majority needs its 0/1 votes"
    )


def test_a_bad_predictions_candidate_is_one_line_naming_the_file_line_and_key(tmp_path):
    labels = write_labels(tmp_path, [1.0, 0.0])
    config = tmp_path / "board.toml"
    config.write_text(candidate("gone", tmp_path / "nowhere.jsonl") + evaluation(labels))
    with pytest.raises(ConfigError) as raised:
        load_config(config)
    assert str(raised.value) == (
        f"{config}:4: candidates[0].source: no predictions file or run folder {str(tmp_path / 'nowhere.jsonl')!r}"
    )
    config.write_text(candidate("llm-ish", labels, model="openai/gpt-4o-mini") + evaluation(labels))
    with pytest.raises(
        ConfigError, match=r"board.toml:5: candidates\[0\].model: a predictions candidate makes no call"
    ):
        load_config(config)
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "i0", "score": 1}\n{"id": "i1"}\n')
    config.write_text(candidate("bad", bad) + evaluation(labels))
    assert main(["leaderboard", str(config), "--out", str(tmp_path / "out")]) == 2
    assert not (tmp_path / "out" / "leaderboard.json").exists()


def test_where_labels_name_systems_the_board_chooses_by_the_partial_correlation_and_shows_the_plain_one(tmp_path):
    """One judge only recognises the system (plain Spearman high, partial near 0), the other tracks each answer
    within its system: the plain figure would crown the first, the system-aware one crowns the second."""
    rng = np.random.default_rng(5)
    systems = np.repeat(["weak", "middle", "strong"], 40)
    level = np.repeat([0.2, 0.5, 0.8], 40)
    deviation = rng.uniform(-0.15, 0.15, size=systems.size)
    path = tmp_path / "labels.jsonl"
    path.write_text(
        "".join(
            json.dumps(
                {
                    "id": f"i{n}",
                    "metric": "faithfulness",
                    "label": float(level[n] + deviation[n]),
                    "label_type": "continuous",
                    "scale": [0, 1],
                    "actual_output": f"a{n}",
                    "system": str(systems[n]),
                }
            )
            + "\n"
            for n in range(systems.size)
        )
    )
    spotter = level + rng.normal(0, 0.01, size=systems.size)
    tracker = deviation + rng.normal(0, 0.03, size=systems.size)
    files = {
        name: write_predictions(tmp_path, name, {f"i{n}": float(v) for n, v in enumerate(values)})
        for name, values in (("system-spotter", spotter), ("item-tracker", tracker))
    }
    judges = "".join(candidate(name, p) for name, p in files.items())
    judges += '[[candidates]]\nname = "random"\nkind = "baseline"\nbaseline = "random"\n\n'
    data = board(tmp_path, judges + evaluation(path))
    spotted, tracked = rows(data, "system-spotter"), rows(data, "item-tracker")
    assert spotted["statistic"] == tracked["statistic"] == "partial_spearman"
    assert spotted["plain_statistic"] == "spearman" and spotted["plain_value"] > 0.8 > tracked["plain_value"]
    assert tracked["value"] > 0.8 and abs(spotted["value"]) < 0.3
    [pick] = data["picks"]
    assert pick["best"] == "item-tracker"
    page = (tmp_path / "board" / "leaderboard.md").read_text()
    assert "| partial_spearman (system-aware), " in page and f"spearman {tracked['plain_value']:.3f}" in page
    # the config picks the statistic explicitly: by the plain Spearman the system spotter would win
    data = board(tmp_path, judges + evaluation(path, statistic="spearman"))
    assert rows(data, "system-spotter")["statistic"] == "spearman" and data["picks"][0]["best"] == "system-spotter"


def test_the_committed_ragchecker_board_reproduces_the_published_figures():
    """results/ragchecker_leaderboard: each released metric on its own label gives the paper's Pearson x 100 (and the ceiling the
    human-human one); the jury of the three is not crowned unless it beats its best member."""
    data = json.loads(
        Path(__file__).parents[1].joinpath("results", "ragchecker_leaderboard", "leaderboard.json").read_text()
    )
    by = {(e["evaluation"].rsplit(":", 1)[1], e["candidate"]): e for e in data["entries"]}
    published = {
        ("correctness", "ragchecker-precision"): (49.66, 63.67),
        ("completeness", "ragchecker-recall"): (60.67, 71.91),
        ("overall", "ragchecker-f1"): (61.93, 70.09),
    }
    for key, (pearson, ceiling) in published.items():
        assert by[key]["statistic"] == "pearson" and by[key]["n"] == 280
        assert round(by[key]["value"] * 100, 2) == pearson and round(by[key]["ceiling"] * 100, 2) == ceiling
    for pick in data["picks"]:
        assert pick["best"] != "ragchecker-mean"
        assert pick["excluded"]["ragchecker-mean"].startswith("does not beat its best member")


def test_a_run_folder_or_a_file_with_costs_gives_its_cost_and_latency_and_a_bare_file_says_not_measured(tmp_path):
    from conftest import write_jsonl
    from labelling_helpers import graded_run, samples_file

    flagged = {3, 7, 11, 19, 23, 31}
    data = samples_file(tmp_path / "samples.jsonl", n=40, flagged=flagged)
    run = graded_run(tmp_path / "run", data, "scripted", lambda prompt: 0 if "FLAGGED" in prompt else 1)
    labels = write_jsonl(
        tmp_path / "labels.jsonl",
        [
            {"id": f"s{i:02d}", "metric": "faithfulness", "label": 0 if i in flagged else 1, "label_type": "binary"}
            | {"actual_output": "answer"}
            for i in range(40)
        ],
    )
    priced = write_jsonl(
        tmp_path / "priced.jsonl",
        [{"id": f"s{i:02d}", "score": float(i not in flagged), "usd": 0.002, "s": 0.5 + i} for i in range(40)],
    )
    bare = write_predictions(tmp_path, "bare", {f"s{i:02d}": float(i not in flagged) for i in range(40)})
    data = board(
        tmp_path,
        candidate("from-run", run)
        + candidate("priced", priced, cost_field="usd", latency_field="s")
        + candidate("bare", bare)
        + evaluation(labels),
    )
    from_run, priced_row, bare_row = rows(data, "from-run"), rows(data, "priced"), rows(data, "bare")
    assert from_run["value"] == 1.0 and from_run["cost_measured"] is True and from_run["calls"] == 40
    assert priced_row["calls"] == 40 and priced_row["cost_usd"] == pytest.approx(0.08)
    assert priced_row["latency_s_per_uncached_call"] == statistics.median(0.5 + i for i in range(40))
    assert bare_row["cost_measured"] is False and bare_row["latency_s_per_uncached_call"] is None
    page = (tmp_path / "board" / "leaderboard.md").read_text()
    [bare_line] = [line for line in page.splitlines() if line.startswith("| set ") and "| bare " in line]
    assert bare_line.count("not measured") == 2
    # no cost, no speed, no trade-off to plot: the Pareto plot is left out only when nothing was measured
    assert list((tmp_path / "board").glob("pareto_*.png"))


def test_a_shipped_set_name_stays_a_name_beside_a_folder_of_that_name(tmp_path):
    (tmp_path / "ragchecker").mkdir()  # e.g. a board written next to its config
    config = tmp_path / "board.toml"
    config.write_text(BASELINES + '[[evaluations]]\nkind = "labels"\nsource = "ragchecker"\nmetric = "overall"\n')
    assert load_config(config).evaluations[0].source == "ragchecker"


def test_an_unknown_statistic_is_one_line_naming_the_file_line_and_key(tmp_path):
    labels = write_labels(tmp_path, [1.0, 0.0])
    config = tmp_path / "board.toml"
    config.write_text(BASELINES + evaluation(labels, statistic="partial_pearsn"))
    with pytest.raises(ConfigError, match=r"board.toml:11: evaluations\[0\].statistic: 'partial_pearsn' is not a"):
        load_config(config)


def test_a_jury_on_over_20000_items_from_nine_systems_is_crowned_over_its_members(tmp_path):
    """The system-aware figure has no paired form: the jury beats its best member by the rule a candidate beats the
    best baseline with, its 95% interval above the member's figure (at any size; here above 20,000 items, where the
    figure's interval is drawn from each system's counts)."""
    rng = np.random.default_rng(43)
    n_items, n_systems = 20_700, 9
    system = np.arange(n_items) % n_systems
    truth = (rng.random(n_items) < np.linspace(0.3, 0.7, n_systems)[system]).astype(int)
    path = tmp_path / "labels.jsonl"
    path.write_text(
        "".join(
            json.dumps(
                {
                    "id": f"i{n}",
                    "metric": "faithfulness",
                    "label": float(truth[n]),
                    "label_type": "binary",
                    "scale": [0, 1],
                    "system": f"system-{system[n]}",
                }
            )
            + "\n"
            for n in range(n_items)
        )
    )
    # three detectors each wrong on an independent 16% of the items: the majority is wrong on about 7%
    votes = {name: np.where(rng.random(n_items) < 0.16, 1 - truth, truth) for name in ("d1", "d2", "d3")}
    files = {
        name: write_predictions(tmp_path, name, {f"i{n}": float(v) for n, v in enumerate(values)})
        for name, values in votes.items()
    }
    text = "".join(candidate(name, p) for name, p in files.items()) + BASELINES + evaluation(path)
    data = board(tmp_path, text + '[[jury]]\nname = "panel"\nmembers = ["d1", "d2", "d3"]\nrule = "majority"\n')
    majority = (sum(votes.values()) >= 2).astype(int)
    macro = statistics.fmean(
        balanced_accuracy_score(truth[system == k], majority[system == k]) for k in range(n_systems)
    )
    panel = rows(data, "panel")
    assert panel["statistic"] == "balanced_accuracy_system_macro" and panel["n"] == n_items
    assert panel["value"] == pytest.approx(macro, abs=1e-12) and panel["ci_low"] > 0.9
    best = max(rows(data, name)["value"] for name in votes)
    assert 0.8 < best < 0.87
    [pick] = data["picks"]
    assert pick["best"] == "panel", pick
    assert f"95% interval lower bound {panel['ci_low']:.3f} > {best:.3f}" in pick["why"]
