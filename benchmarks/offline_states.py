"""The offline judge's main job as shipped against a variant that reads each metric's instructions once per run: the
compact templates with each metric's instructions moved before the sample, on a server that keeps recent prompts'
states in RAM (llama-cpp-python's prompt cache: before each completion it restores the saved state sharing the
longest token prefix with the prompt, if longer than the one in place) saved without llama-cpp-python's logits table.
Whole processes, side by side (the same load on both) and then each alone; tokens read, pass rates, verdicts that
differ. Not adopted: see results/benchmarks/offline_judge.md. Used by bench_offline_judge.py (`--parts states`)."""

from __future__ import annotations

import ctypes
import os
import tempfile
from pathlib import Path
from typing import Any

from offline_layouts import instructions_first
from offline_order import KEEP_LOG, MAIN, load_span, order_job, pass_rate_columns, server_columns

BENCHMARKS = Path(__file__).resolve().parent
STATES_BYTES = 256 << 20  # about a dozen prompts' states (23 kB a token for SmolLM2): a few calls back per metric
# in the judgelab process: start the server through serve_keeping_states, with llama-cpp-python's RAM prompt cache on
KEEP_STATES = (
    "import subprocess\n"
    "start, popen = s.LlamaServer.start, subprocess.Popen\n"
    "def keeping_states(command, **options):\n"
    "    at = command.index('judges.calls.llama_serve')\n"
    f'    code = "import sys; sys.path.insert(0, {str(BENCHMARKS)!r}); import offline_states as o; o.serve_keeping_states()"\n'
    "    command = [command[0], '-c', code, *command[at + 1:]]\n"
    f"    return popen([*command, '--cache', 'true', '--cache_type', 'ram', '--cache_size', '{STATES_BYTES}'], **options)\n"
    "def start_keeping_states(self):\n"
    "    subprocess.Popen = keeping_states\n"
    "    try:\n"
    "        start(self)\n"
    "    finally:\n"
    "        subprocess.Popen = popen\n"
    "s.LlamaServer.start = start_keeping_states\n"
)
CONFIGS = {
    "sample first, one state (shipped)": KEEP_LOG + MAIN,
    "instructions first, states kept": KEEP_LOG + KEEP_STATES + MAIN,
}


def serve_keeping_states() -> None:
    """In the server's process: judgelab's server (judges/calls/llama_serve.py) with lean prompt states."""
    from llama_cpp import Llama

    from judges.calls import llama_serve

    Llama.save_state = save_prompt_state  # type: ignore[method-assign]
    Llama.load_state = load_prompt_state  # type: ignore[method-assign]
    llama_serve.main()


# llama-cpp-python's own save_state also copies its logits table (4,096 x 49,152 floats, 805 MB, as the server loads
# the model) and load_state writes it back: 0.2-0.5 s each. A completion evaluates at least its last prompt token
# afresh, so only llama.cpp's state is needed: 18 MB for 800 tokens, saved in 12 ms and restored in 3 ms here.


def save_prompt_state(self: Any) -> Any:
    """`Llama.save_state` without the logits table: the tokens evaluated and llama.cpp's state, copied once."""
    from llama_cpp import llama_cpp
    from llama_cpp.llama import LlamaState

    size = llama_cpp.llama_state_get_size(self._ctx.ctx)
    data = (ctypes.c_uint8 * size)()
    written = llama_cpp.llama_state_get_data(self._ctx.ctx, data, size)
    return LlamaState(
        input_ids=self.input_ids[: self.n_tokens].copy(),
        scores=self.scores[:0],
        n_tokens=self.n_tokens,
        llama_state=data,  # type: ignore[arg-type]  # read back by load_prompt_state alone
        llama_state_size=written,
        seed=self._seed,
    )


def load_prompt_state(self: Any, state: Any) -> None:
    """`Llama.load_state` for a state `save_prompt_state` made: llama.cpp's state and the tokens it holds."""
    from llama_cpp import llama_cpp

    if (
        llama_cpp.llama_state_set_data(self._ctx.ctx, state.llama_state, state.llama_state_size)
        != state.llama_state_size
    ):
        raise RuntimeError("llama.cpp refused a saved prompt state")
    self.input_ids[: state.n_tokens] = state.input_ids
    self.n_tokens = state.n_tokens
    self._seed = state.seed


def instructions_first_folder(folder: Path) -> Path:
    """The compact prompt set with each metric's instructions before the sample, written into `folder`."""
    from judges.files.shipped import bundled_dir

    for path in (bundled_dir("prompts") / "compact").glob("*.jinja"):
        (folder / path.name).write_text(instructions_first(path.read_text()))
    return folder


def measure(limit: int, work: Path) -> dict:
    """Both configurations at the same time (each with its own server), then each alone, shipped first."""
    from concurrent.futures import ThreadPoolExecutor
    from datetime import UTC, datetime

    moved = instructions_first_folder(Path(tempfile.mkdtemp(prefix="instructions-first-", dir=work)))
    options = {name: ("--prompts", str(moved)) if "states kept" in name else () for name in CONFIGS}

    def job(name: str) -> dict:
        return order_job(name, limit, work, CONFIGS[name], options[name])

    with ThreadPoolExecutor(len(CONFIGS)) as pool:
        side_by_side = dict(zip(CONFIGS, pool.map(job, CONFIGS), strict=True))
    alone = {name: job(name) for name in CONFIGS}
    rows = []
    for mode, runs in (("side by side", side_by_side), ("alone", alone)):
        shipped = next(iter(runs.values()))["answers"]
        for name, run in runs.items():
            row = {k: v for k, v in run.items() if k not in ("answers", "order")} | {"mode": mode, "config": name}
            differing = [key for key in shipped if run["answers"][key][0] != shipped[key][0]]
            row["verdicts_differing"] = len(differing)
            row["verdicts_differing_by_metric"] = {
                metric: sum(key.endswith("/" + metric) for key in differing) for metric in run["pass_rates"]
            }
            row["replies_differing"] = sum(run["answers"][key][1] != shipped[key][1] for key in shipped)
            rows.append(row)
    return {"date": datetime.now(UTC).isoformat(timespec="seconds"), "cpus": os.cpu_count(), "rows": rows}


def render_states(part: dict) -> list[str]:
    from judges.pages.markdown import table
    from judges.types import ALL_METRICS

    return [
        f"## Each metric's instructions read once per run: measured, not adopted ({part['date']}, {part['cpus']} CPUs)",
        "",
        "`judgelab meta-eval` (the main job, 32 train tests) into a new reply cache as a whole process, interpreter "
        "start and model load included. Shipped: the compact templates (each metric's instructions after the sample) "
        "on judgelab's server, which keeps the last prompt's state (it reads each prompt from where it parts from the "
        "one before). Instructions first, states kept: the same templates with each metric's instructions moved before "
        "the sample, on the same server with llama-cpp-python's RAM prompt cache on (recent prompts' states kept, "
        "without llama-cpp-python's logits table; before each call the one sharing the longest prefix is restored), "
        "so each metric's instructions are read about once per run (benchmarks/offline_states.py). Side by side: both "
        "at the same time, each with its own server (each slower than alone); alone: one after the other. Tokens read "
        "and generated are llama.cpp's counts from the server's log; the load average before and after each run is "
        "shown; verdicts unlike the shipped run's of the same row pair, by metric.",
        "",
        table(
            [
                {
                    "run": r["mode"],
                    "config": r["config"],
                    "wall (s)": f"{r['wall_s']:.1f}",
                    "load avg": load_span(r),
                    **server_columns(r),
                    **pass_rate_columns(r),
                    "verdicts unlike shipped (AR/C/F/U/PA/NR)": f"{r['verdicts_differing']} ("
                    + "/".join(str(r["verdicts_differing_by_metric"][m]) for m in ALL_METRICS)
                    + ")",
                    "replies unlike shipped": r["replies_differing"],
                }
                for r in part["rows"]
            ]
        ),
        "",
    ]
