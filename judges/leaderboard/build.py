"""Runs every candidate on every evaluation through the shared runtime, picks the best, writes all the files."""

from __future__ import annotations

import hashlib
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from judges.files.shipped import SHIPPED_TESTS, bundled_dir
from judges.leaderboard.config_types import PAIR_BASELINES, TOTAL, Candidate, Evaluation, LeaderboardConfig
from judges.leaderboard.entries import Entry
from judges.leaderboard.jury import board_jury_entries
from judges.leaderboard.pareto import plot_filename, plot_pareto
from judges.leaderboard.predictions_source import candidate_predictions, describe
from judges.leaderboard.unit_test_entries import run_folder, unit_test_entries
from judges.version import __version__


def applies(candidate: Candidate, evaluation: Evaluation, labelled: dict[str, Any], read: dict[Any, Any]) -> bool:
    """Whether the candidate gives the evaluation's grades (`labelled`: each label evaluation's set; `read`: each
    predictions candidate's outputs per evaluation)."""
    if evaluation.on_unit_tests:
        return candidate.kind in ("llm", "baseline")  # only the GroUSE judge and the baselines give GroUSE grades
    if evaluation.on_pairs:  # a judge benchmark: verdicts read from released files, and the constant judges
        return candidate.kind == "predictions" or (
            candidate.kind == "baseline" and candidate.baseline in PAIR_BASELINES and evaluation.format != "rewardbench"
        )
    if candidate.kind == "baseline" and candidate.baseline in ("oracle", *PAIR_BASELINES):
        return False  # no oracle for human labels; the constant pair judges give no grade
    labels = labelled[evaluation.name]
    if candidate.kind == "predictions":  # scored where its outputs cover at least one labelled item
        from judges.leaderboard.label_entries import run_metric_name  # defers numpy

        metric = run_metric_name(candidate, labels.metrics()[0])
        return bool(read[candidate.name, evaluation.name].covers_any(labels.by_item[0], metric))
    if labels.items[0].label_type.value == "preference":
        return candidate.kind == "baseline"  # a pair's preference: only predictions made elsewhere give one here
    return candidate.scores(labels.metrics()[0])


def read_predictions(config: LeaderboardConfig, labelled: dict[str, Any]) -> dict[tuple[str, str], Any]:
    """Every predictions candidate's outputs for each labelled evaluation, read before any call (bad input stops
    the board here, naming the file, line and field)."""

    return {
        (c.name, name): candidate_predictions(c, labels.metrics()[0])
        for c in config.candidates
        if c.kind == "predictions"
        for name, labels in labelled.items()
    }


def _file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:12]


def data_versions(evaluations: list[Evaluation], labelled: dict[str, Any]) -> dict[str, str]:
    """Each evaluation's data: the unit-test file and its digest, the labelled set, or a judge benchmark's file."""
    from judges.leaderboard.pairwise_entries import benchmark_version  # defers numpy

    versions = {}
    for evaluation in evaluations:
        if evaluation.on_pairs:
            versions[evaluation.name] = benchmark_version(evaluation, labelled[evaluation.name])
        elif evaluation.on_unit_tests:
            source = Path(evaluation.source)
            file = source / f"{evaluation.split or 'test'}.jsonl" if source.is_dir() else source
            shown = (
                str(file.relative_to(bundled_dir(SHIPPED_TESTS).parent))
                if file.is_relative_to(bundled_dir(SHIPPED_TESTS).parent)
                else str(file)
            )
            digest = _file_digest(file) if file.is_file() else "hub"
            versions[evaluation.name] = f"{shown} (sha256 {digest}), {evaluation.limit or 'all'} tests"
        else:
            labels = labelled[evaluation.name]
            versions[evaluation.name] = (
                f"{labels.name}{f' ({labels.source})' if labels.source else ''}, metric {labels.metrics()[0]}, "
                f"{len({i.id for i in labels.items})}"
                f" items drawn with seed 0, {len(labels.items)} labels"
            )
    return versions


def run_leaderboard(
    config: LeaderboardConfig, out: Path, log: Any = None
) -> tuple[list[Entry], list[Any], dict[str, Any]]:
    from judges.leaderboard.html import render_html  # defers numpy
    from judges.leaderboard.label_entries import labelled_subset  # defers numpy
    from judges.leaderboard.label_jury import label_jury_entries  # defers numpy
    from judges.leaderboard.pairwise_entries import benchmark_labels  # defers numpy
    from judges.leaderboard.render import write_tables  # defers numpy
    from judges.leaderboard.select import pick_best  # defers numpy
    from judges.leaderboard.standings import assign_standings  # defers numpy

    log = log if log is not None else sys.stderr  # the stream of the call, not the one at import
    labelled: dict[str, Any] = {e.name: labelled_subset(e) for e in config.evaluations if e.on_labels}  # fail early
    read = read_predictions(config, labelled)
    labelled |= {e.name: benchmark_labels(e) for e in config.evaluations if e.on_pairs}  # a benchmark's pairs
    entries: list[Entry] = []
    reports: dict[tuple[str, str], str] = {}
    scored: dict[str, dict[str, Any]] = {name: {} for name in labelled}  # evaluation -> candidate -> outcomes
    members = {name for jury in config.jury for name in jury.members}
    pairs = [(e, c) for e in config.evaluations for c in config.candidates if applies(c, e, labelled, read)]
    for done, (evaluation, candidate) in enumerate(pairs, 1):
        print(f"leaderboard [{done}/{len(pairs)}]: {candidate.name} on {evaluation.name}", file=log, flush=True)
        started = time.perf_counter()
        entries += _entries(config, candidate, evaluation, labelled, read, scored, members, out)
        print(
            f"leaderboard [{done}/{len(pairs)}]: {candidate.name} on {evaluation.name} done in "
            f"{time.perf_counter() - started:.1f} s",
            file=log,
            flush=True,
        )
        report = run_folder(out / "runs", candidate, evaluation) / "report.html"
        if report.is_file():
            reports[candidate.name, evaluation.name] = report.relative_to(out).as_posix()

    entries += board_jury_entries(config, out / "runs")  # from the members' runs: no new call
    candidates = {c.name: c for c in config.candidates}
    for evaluation in config.evaluations:
        if evaluation.on_labels and config.jury:
            entries += label_jury_entries(
                config.jury, candidates, evaluation, labelled[evaluation.name], scored[evaluation.name]
            )
    for jury in config.jury:
        for evaluation in config.evaluations:
            report = run_folder(out / "runs", jury, evaluation) / "report.html"
            if report.is_file():
                reports[jury.name, evaluation.name] = report.relative_to(out).as_posix()
    rankings = assign_standings(entries)
    picks = pick_best(entries, config.selection)
    meta = board_meta(config, labelled, entries, rankings)
    write_tables(entries, picks, meta, out)
    plots = []
    for pick in picks:
        if pick.metric == TOTAL or pick.evaluation in labelled:
            plot = plot_pareto(entries, pick.evaluation, pick.metric, out / plot_filename(pick.evaluation, pick.metric))
            if plot is not None:
                plots.append(plot)
    (out / "leaderboard.html").write_text(render_html(entries, picks, meta, plots, reports), encoding="utf-8")
    return entries, picks, meta


def _entries(
    config: LeaderboardConfig,
    candidate: Candidate,
    evaluation: Evaluation,
    labelled: dict[str, Any],
    read: dict[Any, Any],
    scored: dict[str, dict[str, Any]],
    members: set[str],
    out: Path,
) -> list[Entry]:
    """The candidate's rows on one evaluation: its unit-test run, its outcomes on the labels (kept in `scored` for
    a jury's members), or its verdicts on a judge benchmark's pairs."""
    from judges.leaderboard.label_entries import candidate_scores, label_entries  # defers numpy
    from judges.leaderboard.pairwise_entries import pairwise_entry  # defers numpy

    if evaluation.on_unit_tests:
        return unit_test_entries(candidate, evaluation, config.cache, out / "runs", progress=True)
    if evaluation.on_pairs:
        return [pairwise_entry(candidate, evaluation, labelled[evaluation.name])]
    labels = labelled[evaluation.name]
    outcomes = candidate_scores(  # its outputs read are let go once scored (a big board holds one at a time)
        candidate, evaluation, config.cache, labels, out / "runs", read.pop((candidate.name, evaluation.name), None)
    )
    if candidate.name in members:  # only a jury's members' outcomes are needed again
        scored[evaluation.name][candidate.name] = outcomes
    return label_entries(candidate, evaluation, config.cache, labels, out / "runs", scored=outcomes)


def board_meta(
    config: LeaderboardConfig, labelled: dict[str, Any], entries: list[Entry], rankings: list[dict[str, Any]]
) -> dict[str, Any]:
    """What leaderboard.json's `meta` says of the board: when, which judgelab, the config, the summary rankings, the
    data and each judge."""
    juries = {
        j.name: f"jury: {j.rule} of {', '.join(j.members)} (their verdicts, no call of its own)" for j in config.jury
    }
    return {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "judgelab_version": __version__,
        "config": config.path,
        "summary_rankings": rankings,
        "data": data_versions(config.evaluations, labelled),
        "judges": {c.name: _describe(c, entries) for c in config.candidates} | juries,
    }


def _describe(candidate: Candidate, entries: list[Entry]) -> str:
    hashes = sorted({e.prompt_sha for e in entries if e.candidate == candidate.name and e.prompt_sha})
    if candidate.kind == "baseline":
        return f"baseline {candidate.baseline}"
    if candidate.kind == "embedding":
        return f"embedding cosine with {candidate.model}"
    if candidate.kind == "predictions" and all(e.pairwise for e in entries if e.candidate == candidate.name):
        mine = [e for e in entries if e.candidate == candidate.name]
        what = "scores per answer" if all(e.statistic == "best_of_n" for e in mine) else "verdicts in each order"
        return f"{what} read from {candidate.source} (a judge benchmark's released file; no call)"
    if candidate.kind == "predictions":
        return describe(candidate)
    if candidate.kind == "metric":
        mapped = ", ".join(f"{label} by {suite}" for label, suite in sorted(candidate.metrics.items()))
        weighting = ", probability-weighted from the top-5 next tokens" if candidate.logprobs else ""
        return f"{candidate.model}, suite metrics ({mapped}; prompts/rag){weighting}"
    params = ", ".join(f"{k}={v}" for k, v in sorted(candidate.judge_settings().items()))
    return f"{candidate.model}, prompts {candidate.prompts} (sha256 {', '.join(hashes) or '-'}){', ' + params if params else ''}"
