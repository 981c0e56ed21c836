"""Time grouse 0.4.2's GroundedQAEvaluator against an OpenAI-compatible server.

Run with the grouse venv made by setup.sh:
  VENVS/grouse/bin/python benchmarks/peers/run_grouse.py --base-url http://127.0.0.1:PORT/v1 --samples FILE
FILE is JSONL with input, references, expected_output, actual_output. Prints one JSON line on stdout;
everything else (grouse's cost log, tqdm, LiteLLM) goes to stderr. Only `evaluator.evaluate()` is timed.

grouse runs at its defaults (semaphore of 20 samples; per sample, one call after another: relevancy,
completeness, then usefulness if relevancy is null, faithfulness unless usefulness is null), with model
`openai/stub` registered at zero cost (grouse looks up each call's cost and an unknown model aborts).
Cold run: it runs in a fresh temporary working directory, so its LiteLLM disk cache
(`./.litellm_cache`; grouse ignores `cache_path`) starts empty; `--no-cache` turns that cache off.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("OPENAI_API_KEY", "sk-stub")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-url", required=True, help="OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1")
    parser.add_argument("--samples", required=True, help="JSONL: input, references, expected_output, actual_output")
    parser.add_argument("--semaphore", type=int, default=20, help="grouse's semaphore_size (its default: 20)")
    parser.add_argument("--model", default="openai/stub")
    parser.add_argument("--no-cache", action="store_true", help="disable grouse's LiteLLM disk cache")
    args = parser.parse_args()
    base_url = args.base_url.rstrip("/")
    if not base_url.endswith("/v1"):
        base_url += "/v1"
    os.environ["OPENAI_API_BASE"] = base_url
    os.environ["OPENAI_BASE_URL"] = base_url
    samples_path = os.path.abspath(args.samples)

    real_stdout, sys.stdout = sys.stdout, sys.stderr  # grouse logs its cost to sys.stdout: keep that off stdout
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)

    import importlib.metadata as md

    import litellm
    from grouse import EvaluationSample, GroundedQAEvaluator
    from grouse.dtos import Failed

    zero = {
        "input_cost_per_token": 0.0,
        "output_cost_per_token": 0.0,
        "max_tokens": 8192,
        "max_input_tokens": 128000,
        "max_output_tokens": 8192,
        "litellm_provider": "openai",
        "mode": "chat",
    }
    bare = args.model.split("/", 1)[-1]
    litellm.register_model({args.model: zero, bare: zero})

    rows = [json.loads(line) for line in Path(samples_path).read_text(encoding="utf-8").splitlines() if line.strip()]
    samples = [
        EvaluationSample(
            input=r["input"],
            actual_output=r["actual_output"],
            expected_output=r["expected_output"],
            references=list(r["references"]),
        )
        for r in rows
    ]

    n = len(samples)
    out: dict = {"tool": "grouse", "version": md.version("grouse")}
    with tempfile.TemporaryDirectory(prefix="grouse-run-") as workdir:
        os.chdir(workdir)  # its disk cache lands in ./.litellm_cache: a fresh directory is a cold cache
        evaluator = GroundedQAEvaluator(model_name=args.model)
        if args.no_cache:
            litellm.disable_cache()
        error = None
        start = time.perf_counter()
        try:
            result = evaluator.evaluate(samples, semaphore_size=args.semaphore)
        except Exception as exc:  # grouse aborts the whole run on one exhausted retry
            result, error = None, f"{type(exc).__name__}: {str(exc)[:300]}"
        wall_s = time.perf_counter() - start
        os.chdir("/")

    out.update(wall_s=round(wall_s, 3), samples=n)
    if result is None:
        out.update(completed=0, failed=n, error=error)
    else:
        fields = ("answer_relevancy", "completeness", "usefulness", "faithfulness")
        evaluations = result.evaluations
        failed_by = {f: sum(isinstance(getattr(e, f), Failed) for e in evaluations) for f in fields}
        bad = sum(any(isinstance(getattr(e, f), Failed) for f in fields) for e in evaluations)
        out.update(
            completed=len(evaluations) - bad,
            failed=n - len(evaluations) + bad,
            failed_by_metric=failed_by,
            cache="off" if args.no_cache else "cold",
            semaphore=args.semaphore,
        )
    print(json.dumps(out), file=real_stdout, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
