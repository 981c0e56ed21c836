"""A fully cached `judgelab evaluate` re-run does only what its run folder needs, with the same output: the installed
packages' metadata read once for every plug-in group; no numpy.ma (numpy.percentile's import), the intervals the same
to the bit; each prompt rendered once (the kept ones bounded); the 309-digit check on a line's bytes; the command's
modules frozen after their import; report.html's `td` and `tree` the macros' markup to the byte; OpenBLAS started
with one thread (the intervals the same to the bit)."""

import json
import math
import os
import re
import subprocess
import sys

import numpy as np
import pytest
from conftest import ROOT, hang_guard, write_jsonl
from stub import stub_server

from judges import plugins
from judges.api import grade_samples, load_samples
from judges.cli.evaluate_cmd import BLAS_THREAD_VARIABLES, one_blas_thread
from judges.judging import prompts
from judges.runs.intervals import tails

RERUN_CODE = (
    "import sys\nfrom judges.cli.main import main\ncode = main(sys.argv[1:])\n"
    "print('LOADED', sorted(m for m in sys.modules if m == 'numpy.ma' or m.startswith('numpy.ma.')))\n"
    "import os\nprint('BLAS THREADS', os.environ.get('OPENBLAS_NUM_THREADS'))\n"
    "sys.exit(code)\n"
)
SAMPLES = [
    {"input": f"Question {n}?", "references": [f"Fact {n}."], "expected_output": f"Answer {n}.", "actual_output": a}
    for n, a in enumerate(["Answer 0 [1].", "Answer 1.", "Answer 2 [1].", "No idea.", "Answer 4 [1].", "Answer 5 [1]."])
]


@pytest.mark.parametrize("n", [1, 2, 3, 10, 999, 1000, 1001])
def test_tails_are_numpy_percentile_to_the_bit(n):
    rng = np.random.default_rng(n)
    for values in (rng.normal(size=n), rng.integers(0, 6, size=n) / 7.0, np.round(rng.uniform(0, 5, size=n), 3)):
        expected = [float(v) for v in np.percentile(values, [2.5, 97.5])]
        assert list(tails(values.tolist())) == expected
    assert all(math.isnan(v) for v in tails([0.5, math.nan, 1.0]))


def test_the_metadata_is_read_once_for_every_group(monkeypatch):
    reads = []
    real = plugins.entry_points

    def counted():
        reads.append(1)
        return real()

    monkeypatch.setattr(plugins, "entry_points", counted)
    plugins.entries.cache_clear()
    plugins.installed.cache_clear()
    try:
        for group in plugins.GROUPS:
            plugins.names(group)
        assert len(reads) == 1
    finally:
        plugins.entries.cache_clear()
        plugins.installed.cache_clear()


def test_a_cached_rerun_leaves_numpy_ma_alone(tmp_path, monkeypatch):
    """The re-run's report.html still has its bootstrap intervals (numpy draws them) but not numpy.ma."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    data = write_jsonl(tmp_path / "samples.jsonl", SAMPLES)
    cache = tmp_path / "c.sqlite"
    with stub_server(latency_ms=1) as base:
        grade_samples(load_samples(data), "openai/stub", api_base=base, cache=cache, out=tmp_path / "fill")
    args = ["evaluate", str(data), "--judge", "openai/stub", "--api-base", base, "--cache", str(cache)]
    done = subprocess.run(
        [sys.executable, "-c", RERUN_CODE, *args, "--out", str(tmp_path / "again")],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**{k: v for k, v in os.environ.items() if k not in BLAS_THREAD_VARIABLES}, "PYTHONPATH": str(ROOT)},
        timeout=hang_guard(),
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "LOADED []" in done.stdout and "BLAS THREADS 1" in done.stdout  # OpenBLAS started one thread
    intervals = [
        re.findall(r"\[\d\.\d{3}, \d\.\d{3}\]", (tmp_path / f / "report.html").read_text()) for f in ("fill", "again")
    ]
    assert intervals[0] == intervals[1] and len(intervals[0]) == 3  # those of this process's numpy, to the bit
    usage = json.loads((tmp_path / "again" / "run.json").read_text(encoding="utf-8"))["usage"]
    assert usage["calls"] == usage["cached_calls"] > 0
    assert "95% interval (bootstrap)" in (tmp_path / "again" / "report.html").read_text(encoding="utf-8")


def test_one_blas_thread_unless_the_user_chose_or_numpy_is_loaded():
    for environ, loaded, expected in [
        ({}, {}, {"OPENBLAS_NUM_THREADS": "1"}),
        ({"OMP_NUM_THREADS": "4"}, {}, {"OMP_NUM_THREADS": "4"}),
        ({"OPENBLAS_NUM_THREADS": "2"}, {}, {"OPENBLAS_NUM_THREADS": "2"}),
        ({}, {"numpy": np}, {}),  # too late: its threads have started
    ]:
        one_blas_thread(environ, loaded)
        assert environ == expected


def test_each_prompt_renders_once_in_a_run_and_its_report(tmp_path, monkeypatch):
    """The check before any call, the calls and report.html's prompts render the same texts: once each."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    monkeypatch.setattr(prompts, "RENDERED", prompts.RenderedPrompts())
    rendered = []
    real = prompts.PromptTemplate.render

    def counted(self, **variables):
        rendered.append(self.metric)
        return real(self, **variables)

    monkeypatch.setattr(prompts.PromptTemplate, "render", counted)
    data = write_jsonl(tmp_path / "samples.jsonl", SAMPLES)
    with stub_server(latency_ms=1) as base:
        run = grade_samples(load_samples(data), "openai/stub", api_base=base, out=tmp_path / "run", cache_mode="off")
    assert run.usage is not None and run.usage.calls >= 2 * len(SAMPLES)
    assert sorted(rendered) == sorted(prompts.GROUSE_METRICS * len(SAMPLES))
    assert "Question 5?" in (tmp_path / "run" / "report.html").read_text(encoding="utf-8")


def test_the_rendered_prompts_kept_are_bounded(monkeypatch):
    monkeypatch.setattr(prompts, "RENDERED_CHARS", 100)
    kept = prompts.RenderedPrompts()
    for n in range(50):
        assert kept.put(("k", n), "x" * 30, 10) == "x" * 30
        assert kept.chars == sum(size for _, size in kept.texts.values()) <= 100
    assert list(kept.texts) == [("k", 48), ("k", 49)] and kept.get(("k", 49)) == "x" * 30
    assert kept.put(("big",), "y" * 200, 0) == "y" * 200 and kept.get(("big",)) is None


@pytest.mark.parametrize(
    "text",
    [
        '{"a": ' + "9" * 309 + "}",
        '{"a": ' + "9" * 308 + "}",
        '{"a": "' + "\u0663" * 400 + '"}',
        '{"a": 1.' + "5" * 320 + "}",
    ],
)
def test_the_long_number_check_reads_the_line_bytes_as_its_text(text):
    from judges.files.checked import passes_unwalked

    assert (
        passes_unwalked(text, text.encode("utf-8"))
        == passes_unwalked(text)
        == ("9" * 309 not in text and "5" * 309 not in text)
    )


def test_the_command_line_freezes_what_its_command_imported_and_collects_again(tmp_path):
    """A process of its own loads the command's modules with the collector off, then freezes them (later collections
    pass them over) and collects again; a caller's main([...]) leaves the collector alone."""
    code = (
        "import gc, sys\nfrom judges.cli.main import main\nsys.argv = ['judgelab', 'check-tests', sys.argv[1]]\n"
        "code = main()\nprint('STATE', gc.isenabled(), gc.get_freeze_count() > 1000, code)\n"
        "gc.unfreeze()\nmain(['check-tests', sys.argv[1]])\nprint('CALLER', gc.isenabled(), gc.get_freeze_count())\n"
    )
    tests = ROOT / "unit_tests" / "test.jsonl"
    done = subprocess.run(
        [sys.executable, "-c", code, str(tests)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=hang_guard(),
    )
    assert "STATE True True 0" in done.stdout, done.stderr[-2000:]
    assert "CALLER True 0" in done.stdout


OLD_MACROS = """{% macro td(c) %}<td{% if c.sort is not none %} data-value="{{ c.sort }}"{% endif %}{% if c.cls %} \
class="{{ c.cls }}"{% endif %}>{{ c.text }}</td>{% endmacro %}

{% macro tree(value) %}
{% if value is mapping %}
<dl class="tree">{% for k, v in value.items() %}<dt>{{ k }}</dt><dd>{{ tree(v) }}</dd>{% endfor %}</dl>
{% elif value is iterable and value is not string %}
{% if value %}<ol>{% for v in value %}<li>{{ tree(v) }}</li>{% endfor %}</ol>{% else %}(none){% endif %}
{% else %}
{{ value if value is not none else "null" }}
{% endif %}
{% endmacro %}
"""

TREES = [
    None,
    0,
    1.5,
    True,
    "a <b> & 'c' \"d\"",
    [],
    {},
    (),
    [1, None, "x"],
    {"k": {"<k>": [[], {}, (1, 2.25)]}},
    {"judge": "openai/stub", "params": {"temperature": 0.0}, "list": ["a", ["b", ["c"]]], "empty": ""},
    {1: "int key", None: "none key"},
    [{"a": 1}, {"b": [None]}],
    "",
    10**20,
    -0.0,
    float("inf"),
]


@pytest.mark.parametrize("value", TREES)
def test_tree_and_td_make_what_the_jinja_macros_made(value):
    """report.html's `tree` and `td`, now Python, give the macros' markup to the byte (whitespace and escaping)."""
    from markupsafe import Markup

    from judges.pages.page_template import page_environment
    from judges.pages.table import Cell

    env = page_environment()
    old = env.from_string(OLD_MACROS).module
    assert str(env.globals["tree"](value)) == str(old.tree(value))
    for cell in (
        Cell("t<x>"),
        Cell("3", 3.0, "num"),
        Cell(Markup("<b>ok</b>"), "s&t", ""),
        {"text": 1, "sort": 0, "cls": None},
    ):
        assert str(env.globals["td"](cell)) == str(old.td(cell))
