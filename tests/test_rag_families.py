"""Each metric family registers its own specs: the registry's metrics, in order, are exactly the committed ones."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

from conftest import ROOT

from judges import plugins
from judges.rag.metric_registry import build_registry, registered
from judges.rag.spec import MetricSpec

# Every built-in metric as it was when the families were listed in one central function (generated then).
SNAPSHOT = ROOT / "tests" / "data" / "builtin_metrics.json"


def as_row(spec: MetricSpec) -> dict[str, Any]:
    return {
        "name": spec.name,
        "family": spec.family,
        "needs": list(spec.needs),
        "target": spec.target,
        "description": spec.description,
        "options": dict(spec.options),
        "uses_judge": spec.uses_judge,
        "uses_embeddings": spec.uses_embeddings,
        "higher_is_better": spec.higher_is_better,
        "range": list(spec.value_range),
    }


def test_the_registry_holds_exactly_the_committed_metrics_in_order() -> None:
    expected = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    assert len(expected) == 74
    assert [as_row(spec) for spec in build_registry().values()] == expected


def test_each_builtin_entry_is_one_family_module_listing_that_family_only() -> None:
    own = [name for name, entry in plugins.entries("metrics").items() if entry.package is None]
    assert own == ["ragas", "trace", "llamaindex", "ragchecker", "grouse", "trulens", "multimodal", "rubric"] + [
        "langchain",
        "pairwise",
    ]
    for family in own:
        assert plugins.entries("metrics")[family].target.endswith(":specs")
        assert {spec.family for spec in registered(family)} == {family}


# what a metric's function pulls in: numpy (formulas), the embedding cache (steps) and the families' own code
HEAVY = ["numpy", "judges.rag.steps", *(f"judges.rag.{m}" for m in ("ragas", "trace", "llamaindex", "ragchecker"))]
HEAVY += ["judges.rag.grouse", "judges.rag.multimodal", "judges.rag.trulens", "judges.rag.pairwise"]


def test_listing_the_metrics_imports_no_metric_function() -> None:
    code = (
        "import sys; from judges.rag.metric_registry import build_registry; build_registry(); "
        f"print(sorted(set(sys.modules) & set({HEAVY!r})))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True
    )
    assert done.stdout.strip() == "[]", done.stderr


def test_a_family_is_found_from_its_specs_module_in_the_order_of_its_listed_number(tmp_path, monkeypatch) -> None:
    package = tmp_path / "families"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "late_specs.py").write_text("LISTED = 2\ndef specs():\n    return []\n")
    (package / "early_specs.py").write_text("LISTED = 1\ndef specs():\n    return []\n")
    (package / "helpers.py").write_text("raise ImportError('a module not named *_specs is never imported')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(plugins, "METRIC_FAMILIES", "families")
    assert plugins.builtin_metric_families() == {
        "early": "families.early_specs:specs",
        "late": "families.late_specs:specs",
    }


def test_every_module_of_the_suite_that_lists_specs_is_a_family_module() -> None:
    listing = sorted(
        path.stem for path in (ROOT / "judges" / "rag").glob("*.py") if "\ndef specs(" in path.read_text("utf-8")
    )
    own = [name for name, entry in plugins.entries("metrics").items() if entry.package is None]
    assert listing == sorted(f"{family}_specs" for family in own)
