"""`judgelab data fetch|list`: the public sets fetched by name from a local server holding the same paths, checked by
sha256; a missing set's error names the fetch command; a board's dry run without labels; hub loads offline."""

from __future__ import annotations

import functools
import http.server
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import ROOT

from judges.cli.main import main
from judges.errors import DatasetMissing
from judges.labels.dataset_registry import registry, set_for_labels
from judges.labels.label_sets import SETS, load_set

BEGIN_RUN = ROOT / "results" / "runs" / "smollm2-grouse--labels_begin-cmu_40-items"


@pytest.fixture(scope="module")
def served_files(shared_datasets, tmp_path_factory) -> Path:
    """A copy of every pinned file under its raw.githubusercontent.com path (owner/name/commit/path upstream)."""
    root = tmp_path_factory.mktemp("mirror")
    for entry in registry().values():
        for file in entry.files:
            target = root / entry.repo / entry.revision / file.upstream
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(shared_datasets / file.path, target)
    return root


@pytest.fixture(scope="module")
def mirror(served_files) -> Iterator[str]:
    """A local HTTP server on 127.0.0.1 serving that copy: the real download path, another host."""
    yield from serve(served_files)


def serve(folder: Path) -> Iterator[str]:
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(folder)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=30)


@pytest.fixture
def no_shared(monkeypatch, tmp_path) -> Path:
    """No $JUDGELAB_SHARED and no ../shared: only the user's data cache (returned, empty) is searched."""
    monkeypatch.delenv("JUDGELAB_SHARED", raising=False)
    monkeypatch.setattr("judges.labels.shared.beside_checkout", lambda: [tmp_path / "no-shared"])
    home = tmp_path / "data-home"
    monkeypatch.setenv("JUDGELAB_DATA_HOME", str(home))
    monkeypatch.delenv("JUDGELAB_DATA_MIRROR", raising=False)
    return home


def run(capsys, *argv: object) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_fetch_downloads_the_pinned_files_checks_them_and_shows_the_licence(mirror, shared_datasets, tmp_path, capsys):
    dest = tmp_path / "sets"
    code, out, _ = run(capsys, "data", "fetch", "begin", "--to", dest, "--mirror", mirror)
    assert code == 0
    for name in ("begin_dev_wow.tsv", "begin_dev_cmu.tsv", "begin_dev_tc.tsv"):
        assert (dest / "begin" / name).read_bytes() == (shared_datasets / "begin" / name).read_bytes()
    assert sorted(p.name for p in dest.iterdir()) == ["begin"]  # no staging folder left
    assert f"begin: 3 file(s) fetched, sha256 checked, in {dest / 'begin'}" in out
    assert "licence: CC BY 4.0 (WoW, CMU-DoG); CDLA-Sharing-1.0 (TopicalChat)\n" in out
    assert "cite: Dziri et al., Evaluating Attribution in Dialogue Systems: The BEGIN Benchmark, TACL 2022" in out
    assert f"read it with JUDGELAB_SHARED={dest}" in out
    code, out, _ = run(capsys, "data", "fetch", "begin-cmu", "--to", dest, "--mirror", mirror)  # a --labels name
    assert code == 0 and "begin: 0 file(s) fetched, 3 already there" in out


def test_the_mirror_variable_and_the_data_home_are_the_defaults(mirror, no_shared, monkeypatch, capsys):
    monkeypatch.setenv("JUDGELAB_DATA_MIRROR", mirror)
    code, out, _ = run(capsys, "data", "fetch", "topical-chat")
    assert code == 0 and (no_shared / "topical_chat" / "topical_chat.json").is_file()
    assert "licence: MIT (UniEval's copy of the USR annotations)" in out and "JUDGELAB_SHARED=" not in out
    assert len(load_set("topical-chat").items) == 360  # read from the data home


def test_a_checksum_mismatch_is_one_line_and_leaves_nothing(served_files, tmp_path, capsys):
    altered = tmp_path / "altered"
    shutil.copytree(served_files, altered)
    entry = registry()["begin"]
    last = altered / entry.repo / entry.revision / entry.files[-1].upstream  # the last file: two are good before it
    last.write_bytes(last.read_bytes() + b"x")
    dest = tmp_path / "sets"
    for url in serve(altered):
        code, out, err = run(capsys, "data", "fetch", "begin", "--to", dest, "--mirror", url)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert f"{url}/google/BEGIN-dataset/{entry.revision}/topicalchat/begin_dev_tc.tsv: sha256 " in err
    assert f"is not the pinned {entry.files[-1].sha256}; nothing was kept" in err
    assert not dest.exists()


def test_a_file_the_host_lacks_is_one_line(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    for url in serve(tmp_path / "empty"):
        code, _, err = run(capsys, "data", "fetch", "alce", "--to", tmp_path / "sets", "--mirror", url)
    revision = registry()["alce"].revision
    assert code == 2 and err.count("\n") == 1 and not (tmp_path / "sets").exists()
    assert f"cannot download {url}/princeton-nlp/ALCE/{revision}/human_eval/human_eval_utility_completed.json" in err
    assert "HTTP 404" in err


def test_an_unknown_set_names_the_nearest(capsys):
    code, _, err = run(capsys, "data", "fetch", "begn")
    assert code == 2 and err == "judgelab: error: no labelled set 'begn'; did you mean begin?\n"


def test_list_names_every_set_its_labels_licence_and_where_it_is(mirror, no_shared, capsys):
    assert run(capsys, "data", "fetch", "alce", "--mirror", mirror)[0] == 0
    code, out, _ = run(capsys, "data", "list")
    lines = out.splitlines()
    assert code == 0 and lines[0].split() == ["set", "--labels", "names", "source", "files", "licence", "here"]
    assert [line.split()[0] for line in lines[1:-1]] == list(registry())
    alce = next(line for line in lines if line.startswith("alce "))
    assert "alce, alce-asqa, alce-eli5" in alce and "princeton-nlp/ALCE@246c476a4edf" in alce
    assert alce.endswith(str(no_shared / "alce"))
    begin = next(line for line in lines if line.startswith("begin "))
    assert begin.endswith(" -") and "CC BY 4.0" in begin
    assert "hub snapshot" in next(line for line in lines if line.startswith("wikieval "))
    assert lines[-1].startswith("fetch one with `judgelab data fetch NAME`")


def test_a_missing_set_names_the_command_that_fetches_it(no_shared, capsys, tmp_path):
    with pytest.raises(
        DatasetMissing, match=r"begin/begin_dev_cmu\.tsv not found in .*; run `judgelab data fetch begin`"
    ):
        load_set("begin-cmu")
    predictions = tmp_path / "p.jsonl"
    predictions.write_text('{"id": "cmu/0", "score": 1}\n', encoding="utf-8")
    code, _, err = run(capsys, "agreement", "--labels", "topical-chat", "--predictions", predictions)
    assert code == 2 and err.count("\n") == 1 and "run `judgelab data fetch topical-chat`" in err


def test_the_readme_example_after_one_fetch_gives_the_documented_figures(mirror, no_shared, tmp_path, capsys):
    """README: `judgelab agreement --labels begin-cmu --predictions RUN_DIR`, with the committed run folder whose
    figure docs/leaderboard.md gives (balanced accuracy 0.45 [0.08, 0.63], n = 25)."""
    out_dir = tmp_path / "agreement"
    argv = ("agreement", "--labels", "begin-cmu", "--predictions", BEGIN_RUN, "--out", out_dir)
    code, _, err = run(capsys, *argv)
    assert code == 2 and "run `judgelab data fetch begin`" in err
    assert run(capsys, "data", "fetch", "begin", "--mirror", mirror)[0] == 0
    code, out, _ = run(capsys, *argv)
    row = re.search(r"\| balanced_accuracy +\| ([\d.]+) +\| \[([\d.]+), ([\d.]+)\] +\| (\d+) ", out)
    assert code == 0 and row is not None, out
    value, low, high, n = (float(x) for x in row.groups())
    assert f"balanced accuracy {value:.2f} [{low:.2f}, {high:.2f}], n = {n:.0f}" == documented_begin_cmu_figure()


def documented_begin_cmu_figure() -> str:
    """smollm2-grouse's begin-cmu cell of docs/leaderboard.md's table of agreement with human labels."""
    page = (ROOT / "docs" / "leaderboard.md").read_text(encoding="utf-8")
    return re.search(r"^\| smollm2-grouse \| (balanced accuracy [^|]+?) \|", page, re.M).group(1)


def documented_set_names() -> set[str]:
    """Every set a docs example or a committed board names: `--labels NAME` in README.md and docs/*.md (not a
    file, a folder or a placeholder), a labels evaluation's source and a `shared:` file in results/*.toml."""
    names = set()
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for name in re.findall(r"judgelab [a-z-]+(?: [a-z]+)? --labels[ =]([^\s`]+)", page.read_text(encoding="utf-8")):
            if not re.search(r"[/.A-Z]", name):
                names.add(name)
    for board in sorted((ROOT / "results").glob("*.toml")):
        config = tomllib.loads(board.read_text(encoding="utf-8"))
        names |= {  # a judge benchmark's `shared:llmbar/Natural` names its set's folder
            e["source"].removeprefix("shared:").split("/")[0] if e["source"].startswith("shared:") else e["source"]
            for e in config.get("evaluations", [])
            if e.get("kind") == "labels"
        }
        names |= {
            c["source"].removeprefix("shared:").split("/")[0]
            for c in config.get("candidates", [])
            if str(c.get("source", "")).startswith("shared:")
        }
    return names


def test_every_set_the_docs_and_boards_name_is_fetchable_and_loads_after_one_fetch(
    mirror, no_shared, capsys, monkeypatch
):
    names = documented_set_names()
    assert {"begin-cmu", "begin-wow", "topical-chat", "ragchecker", "alce"} <= names
    for name in sorted(names):
        entry = set_for_labels(name)
        assert entry is not None, f"{name} is named in the docs but no set of the registry gives it"
        assert run(capsys, "data", "fetch", entry.name, "--mirror", mirror)[0] == 0
        if name in SETS:
            assert load_set(name).items, name
    monkeypatch.chdir(ROOT)  # the boards name unit_tests/ from the checkout
    for board in sorted((ROOT / "results").glob("*.toml")):
        code, out, err = run(capsys, "leaderboard", board, "--dry-run")
        assert (code, err) == (0, "") and "not shown" not in out and out.endswith("Nothing was called.\n"), board


def test_every_named_set_is_in_the_registry():
    """Each `--labels` name judgelab knows has a set to fetch (the hub's by a snapshot)."""
    assert {name: set_for_labels(name) is not None for name in SETS} == dict.fromkeys(SETS, True)


def test_a_boards_dry_run_shows_the_evaluations_that_need_no_labels(no_shared, capsys):
    code, out, err = run(capsys, "leaderboard", str(ROOT / "results" / "offline_leaderboard.toml"), "--dry-run")
    assert (code, err) == (0, "")
    assert "on unit_tests:unit_tests:test:first-32:" in out and out.endswith("Nothing was called.\n")
    for name, fetch in (("begin-cmu:40-items", "begin"), ("topical-chat:40-items", "topical-chat")):
        line = next(line for line in out.splitlines() if line.startswith(f"labels:{name}: not shown"))
        assert line.endswith(f"run `judgelab data fetch {fetch}` (or set JUDGELAB_SHARED to a folder holding it)")


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.parametrize("offline", [False, True])
def test_a_hub_set_offline_fails_in_one_line_without_retries(offline, tmp_path):
    predictions = tmp_path / "p.jsonl"
    predictions.write_text('{"id": "0", "score": 1}\n', encoding="utf-8")
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "HF_ENDPOINT": f"http://127.0.0.1:{closed_port()}",
        "HF_HOME": str(tmp_path / "hf"),
        "JUDGELAB_DATA_HOME": str(tmp_path / "data"),
        "HF_HUB_OFFLINE": "1" if offline else "0",
    }
    done = subprocess.run(
        [sys.executable, "-m", "judges.cli.main", "agreement", "--labels", "wikieval", "--predictions", predictions],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=600,  # a hang guard only
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1, done.stderr
    if offline:  # no request at all: datasets' own line, with the fetch command
        assert done.stderr.rstrip().endswith("(OfflineModeIsEnabled); `judgelab data fetch wikieval` gets a copy")
    else:
        assert "cannot reach the Hugging Face hub for explodinggradients/WikiEval" in done.stderr
        assert done.stderr.rstrip().endswith(
            "run `judgelab data fetch wikieval` where it is reachable, or give wikieval:DIR"
        )


def test_a_fetched_hub_snapshot_is_read_without_the_hub(no_shared, monkeypatch, capsys):
    shutil.copytree(ROOT / "tests" / "data" / "wikieval", no_shared / "wikieval")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    labels = load_set("wikieval")
    assert len(labels.items) == 6 and labels.source == str(no_shared / "wikieval")  # 3 rows, 2 metrics
    out = run(capsys, "data", "list")[1]
    assert next(line for line in out.splitlines() if line.startswith("wikieval ")).endswith(str(no_shared / "wikieval"))


def test_fetching_a_hub_set_from_an_unreachable_host_is_one_line(no_shared, capsys):
    url = f"http://127.0.0.1:{closed_port()}"
    code, out, err = run(capsys, "data", "fetch", "wikieval", "--mirror", url)
    assert code == 2 and out == "" and err.count("\n") == 1 and not no_shared.exists()
    assert err.startswith("judgelab: error: cannot reach the Hugging Face hub for explodinggradients/WikiEval (")
