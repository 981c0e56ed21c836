"""Where the offline judge's time goes: SmolLM2 under llama.cpp, with and without flash attention.

    python benchmarks/bench_offline_judge.py

In this process (no server, no LiteLLM), on the first 4 train tests' answer-relevancy prompts: prompt reading
rate, unconstrained decoding time per token, and the extra time per call of decoding under the metric's JSON
schema (the grammar sampler) beyond the per-token decoding cost. Writes results/benchmarks/offline_judge.{json,md}.
"""

from __future__ import annotations

import json
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def measure(flash_attn: bool, prompts: list[str], schema: dict) -> dict:
    from llama_cpp import Llama

    from judges.calls.local_server import smollm2_path

    llm = Llama(str(smollm2_path()), n_ctx=4096, n_threads=2, flash_attn=flash_attn, verbose=False)
    read_tokens = read_s = 0.0
    for prompt in prompts:
        tokens = llm.tokenize(prompt.encode())
        llm.reset()
        started = time.perf_counter()
        llm.eval(tokens)
        read_s += time.perf_counter() - started
        read_tokens += len(tokens)
    steps = 60
    started = time.perf_counter()
    for _ in range(steps):
        llm.eval([llm.token_eos()])
    decode_s = (time.perf_counter() - started) / steps
    overheads, generated = [], []
    for prompt in prompts:
        messages = [{"role": "user", "content": prompt}]
        fmt = {"type": "json_object", "schema": schema}
        llm.create_chat_completion(messages, temperature=0, max_tokens=1, seed=0)  # the prompt is read once here
        started = time.perf_counter()
        reply = llm.create_chat_completion(messages, temperature=0, max_tokens=512, seed=0, response_format=fmt)
        wall = time.perf_counter() - started
        n = reply["usage"]["completion_tokens"]
        generated.append(n)
        overheads.append(wall - n * decode_s)
    return {
        "flash_attn": flash_attn,
        "prompt_tokens_per_s": read_tokens / read_s,
        "decode_ms_per_token": 1000 * decode_s,
        "constrained_tokens_per_call": sum(generated) / len(generated),
        "grammar_overhead_s_per_call": sum(overheads) / len(overheads),
    }


def main() -> None:
    from judges.judging.prompts import load_prompt_set
    from judges.judging.replies import reply_schema
    from judges.suite.loading import load_unit_tests

    prompt_set = load_prompt_set("default")
    tests = load_unit_tests(ROOT / "unit_tests", "train")[:4]
    prompts = [prompt_set.render("answer_relevancy", t.sample) for t in tests]
    rows = [measure(flag, prompts, reply_schema("answer_relevancy")) for flag in (False, True)]
    result = {"date": datetime.now(UTC).isoformat(timespec="seconds"), "prompts": len(prompts), "rows": rows}
    out = ROOT / "results" / "benchmarks"
    out.mkdir(parents=True, exist_ok=True)
    (out / "offline_judge.json").write_text(json.dumps(result, indent=2))
    lines = [
        f"# Offline judge: SmolLM2-135M (Q4_1) in llama.cpp, 2 threads ({result['date']})",
        "",
        f"{len(prompts)} answer-relevancy prompts of the train split, in process.",
        "",
        "| flash attention | prompt reading (tokens/s) | decoding (ms/token) | constrained tokens per call | "
        "grammar overhead per call (s) |",
        "|---|---|---|---|---|",
    ]
    for row in rows:
        lines.append(
            f"| {'on' if row['flash_attn'] else 'off'} | {row['prompt_tokens_per_s']:.0f} | "
            f"{row['decode_ms_per_token']:.1f} | {row['constrained_tokens_per_call']:.0f} | "
            f"{row['grammar_overhead_s_per_call']:.2f} |"
        )
    (out / "offline_judge.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
