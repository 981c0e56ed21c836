"""The manifest a tuned prompt folder carries: where it came from (base prompts, search data) and its held-out figures."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

MANIFEST_NAME = "manifest.json"  # beside the templates; a prompt folder loads the same with or without it


def write_manifest(folder: Path, manifest: dict[str, Any]) -> Path:
    path = Path(folder) / MANIFEST_NAME
    path.write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def write_tuning_report(
    out: Path, report: dict[str, Any], markdown: str, tuned_folder: Path, manifest: dict[str, Any]
) -> None:
    """A tuning's report (`report.json`, `report.md` in `out`) and the tuned folder's manifest."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "report.json").write_text(json.dumps(report, indent=2, ensure_ascii=False), encoding="utf-8")
    (out / "report.md").write_text(markdown, encoding="utf-8")
    write_manifest(tuned_folder, manifest)


def read_manifest(folder: str | Path | None) -> dict[str, Any] | None:
    """The folder's manifest, or None when it has none (or it cannot be read as a JSON object)."""
    if not folder:
        return None
    path = Path(folder) / MANIFEST_NAME
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def manifest_rows(manifest: dict[str, Any]) -> list[dict[str, str]]:
    """The manifest as (what, value) rows for a page: origin first, then each metric's held-out figures."""
    rows = [
        {"what": "made by", "value": str(manifest.get("made_by"))},
        {"what": "tuned with", "value": str(manifest.get("judge"))},
        {"what": "base prompts", "value": str(manifest.get("base_prompts"))},
    ]
    if isinstance(manifest.get("labels"), dict):
        rows.append({"what": "labels", "value": str(manifest["labels"].get("spec"))})
    searched, held = manifest.get("search_items"), manifest.get("held_out_items")
    rows += [
        {"what": "search data SHA-256", "value": str(manifest.get("search_data_sha256"))},
        {"what": "items searched / held out", "value": f"{searched} / {held}"},
    ]
    for metric, entry in manifest.get("held_out", {}).items():
        difference = entry.get("difference") or {}
        interval = (
            f" [{_number(difference.get('ci_low'))}, {_number(difference.get('ci_high'))}]"
            if "ci_low" in difference
            else ""
        )
        rows.append(
            {
                "what": f"{metric}: {entry.get('statistic')} held out, base -> tuned",
                "value": f"{_number(entry.get('base'))} -> {_number(entry.get('tuned'))}, difference "
                f"{_number(difference.get('value'))}{interval}",
            }
        )
    for metric, sha in manifest.get("base_sha256", {}).items():
        rows.append({"what": f"base {metric} template SHA-256", "value": str(sha)})
    return rows


def _number(value: Any) -> str:
    return "n/a" if value is None else f"{value:.3f}"
