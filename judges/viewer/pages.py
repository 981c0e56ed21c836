"""The viewer's HTML pages: the index of runs, a run with its items page by page, a comparison, a leaderboard."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from judges.errors import InputError
from judges.files.checked import read_json_file
from judges.pages.page_template import render_page
from judges.records import Summary
from judges.render.sample_rows import mean_text
from judges.runs.call_totals import call_totals
from judges.runs.kinds import Kind, kind_of
from judges.runs.paired_runs import as_dict, paired_metrics
from judges.runs.run_compare import changes, run_figures, variant
from judges.runs.run_config import RunConfig
from judges.runs.run_writer import FolderRecorder
from judges.tuning.manifest import manifest_rows, read_manifest
from judges.viewer.catalog import calibrations, catalog, inside, run_entry
from judges.viewer.item_pages import ItemPage, read_page

OUTCOMES = [("", "all"), ("not-passed", "not passed / failed"), ("pass", "pass"), ("wrong_grade", "wrong grade")]
OUTCOMES += [("failure", "run failure"), ("grade", "graded"), ("null", "null")]


def _folder(root: Path, relative: str, needs: str) -> Path:
    folder = inside(root, relative)
    if folder is None or not (folder / needs).is_file():
        raise InputError(f"no {needs} there", path=relative)
    return folder


def index_page(root: Path) -> str:
    runs, boards = catalog(root)
    cascades = calibrations(root)
    return render_page(
        "view_index.html.jinja",
        root=str(root),
        runs=runs,
        boards=boards,
        cascades=cascades,
        kinds=sorted({r.kind for r in runs}),
    )


def _figures(kind: Kind, summary: Summary, config: RunConfig) -> list[dict[str, Any]]:
    own = kind.figure_rows(summary, config)  # a kind's own figures (the unit-test kind's pass rates)
    if own is not None:
        return own
    info = config.metric_info or {}
    return [
        {"metric": m, "mean": mean_text(s.mean, m, info), "graded": s.graded, "null": s.null, "failed": s.failed}
        for m, s in summary.metrics.items()
    ]


def run_page(root: Path, relative: str, page: int, outcome: str, metric: str) -> str:
    folder = _folder(root, relative, "run.json")
    entry = run_entry(root, folder / "run.json")
    run = FolderRecorder(folder).load()
    summary, config = run.summary, run.config
    results = folder / "results.jsonl"
    items = read_page(results, page, outcome=outcome, metric=metric) if results.is_file() else None

    kind = kind_of(run.kind)
    manifest = read_manifest(config.prompts_folder)
    return render_page(
        "view_run.html.jinja",
        provenance=manifest_rows(manifest) if manifest else None,
        path=relative,
        title=f"{entry.judge} / {entry.prompts}" if entry else relative,
        kind=run.kind,
        date=entry.date if entry else "",
        stopped=run.stop_message or run.stop_reason,
        figures=_figures(kind, summary, config),
        conclusion=kind.conclusion(summary, config),
        calls=call_totals(run.usage.to_json() if run.usage is not None else {}, summary.usage).line(),
        empty=summary.n_items == 0,
        page=items or ItemPage([], 0, 1, 50),
        outcomes=OUTCOMES,
        outcome=outcome,
        metric=metric,
        metrics=list(summary.metrics),
    )


def compare_page(root: Path, relatives: list[str]) -> str:
    if len(relatives) < 2:
        raise InputError("tick two or more runs to compare")
    runs = [FolderRecorder(_folder(root, r, "run.json")).load() for r in relatives]
    rows = [
        {"run": rel, "judge / prompts": variant(r), "kind": r.kind, "split": r.split, **run_figures(r)}
        for rel, r in zip(relatives, runs)
    ]
    pairs = []
    for i, before in enumerate(runs):
        for j in range(i + 1, len(runs)):
            after = runs[j]
            pair: dict[str, Any] = {"before": relatives[i], "after": relatives[j], "skipped": "", "flips": []}
            if before.kind != after.kind or before.split != after.split:
                pair.update(title="not comparable", skipped="different kinds of run or different splits")
            else:
                pair["flips"] = changes(before, after)
                pair["stats"] = [_shown(as_dict(m)) for m in paired_metrics(before, after)]
                pair["title"] = f"{len(pair['flips'])} flipped"
            pairs.append(pair)
    return render_page("view_compare.html.jinja", runs=relatives, figures=rows, pairs=pairs)


def _shown(row: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for key, value in row.items():
        out[key.replace("_", " ")] = "n/a" if value is None else f"{value:.3g}" if isinstance(value, float) else value
    return out


def leaderboard_page(root: Path, relative: str) -> str:
    folder = _folder(root, relative, "leaderboard.json")
    data = read_json_file(folder / "leaderboard.json")
    links: dict[str, str] = {}
    page = folder / "leaderboard.html"
    if page.is_file():
        for link in re.findall(r'href="(runs/[^"#?]+)/report\.html"', page.read_text(encoding="utf-8")):
            links[link.split("/", 1)[1]] = f"{relative}/{link}" if relative != "." else link
    entries = []
    for e in data.get("entries", []):
        slug = f"{e['candidate']}--{re.sub(r'[^A-Za-z0-9._-]+', '_', str(e['evaluation']))}"
        entries.append({**e, "run": links.get(slug)})
    reference = [e for e in entries if e.get("kind") == "baseline" or e.get("baseline")]
    return render_page(
        "view_leaderboard.html.jinja",
        path=relative,
        picks=data.get("picks", []),
        candidates=[e for e in entries if e not in reference],
        references=reference,
    )
