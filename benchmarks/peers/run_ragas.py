"""Time ragas 0.4.3 `evaluate()` (faithfulness + answer_relevancy) against an OpenAI-compatible server.

Run with the ragas venv made by setup.sh:
  VENVS/ragas/bin/python benchmarks/peers/run_ragas.py --base-url http://127.0.0.1:PORT/v1 --samples FILE
FILE is JSONL with input, references, expected_output, actual_output. Prints one JSON line on stdout;
everything else (progress bar, logs) goes to stderr. Only the evaluate() call is timed.

ragas runs at its defaults: RunConfig() = 16 workers over (sample, metric) jobs, 180 s timeout per job,
10 tenacity retries (on openai.RateLimitError only, for ChatOpenAI) on top of the OpenAI client's own 2.
Per sample: faithfulness = 2 chat calls in a row; answer_relevancy = 1 chat call with n=3 + 2 embedding
calls, which are synchronous and block the event loop.
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("RAGAS_DO_NOT_TRACK", "true")
os.environ.setdefault("OPENAI_API_KEY", "sk-stub")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


class _JobErrors(logging.Handler):
    """Counts the jobs ragas' executor reports as failed (it logs them and scores them NaN)."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.jobs: set[int] = set()
        self.messages: dict[str, int] = {}

    def emit(self, record: logging.LogRecord) -> None:
        if record.msg == "Exception raised in Job[%s]: %s(%s)":
            self.jobs.add(int(record.args[0]))
            self.messages[str(record.args[1])] = self.messages.get(str(record.args[1]), 0) + 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-url", required=True, help="OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1")
    parser.add_argument("--samples", required=True, help="JSONL: input, references, expected_output, actual_output")
    parser.add_argument("--model", default="stub")
    args = parser.parse_args()
    base_url = args.base_url.rstrip("/")
    if not base_url.endswith("/v1"):
        base_url += "/v1"

    real_stdout, sys.stdout = sys.stdout, sys.stderr  # keep stdout for the one result line
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    import warnings

    warnings.filterwarnings("ignore", category=DeprecationWarning)

    import importlib.metadata as md

    from langchain_openai import ChatOpenAI, OpenAIEmbeddings
    from ragas import EvaluationDataset, evaluate
    from ragas.metrics import answer_relevancy, faithfulness

    rows = [json.loads(line) for line in Path(args.samples).read_text(encoding="utf-8").splitlines() if line.strip()]
    dataset = EvaluationDataset.from_list(
        [
            {
                "user_input": r["input"],
                "response": r["actual_output"],
                "retrieved_contexts": list(r["references"]),
                "reference": r["expected_output"],
            }
            for r in rows
        ]
    )
    llm = ChatOpenAI(model=args.model, base_url=base_url, api_key=os.environ["OPENAI_API_KEY"])
    # check_embedding_ctx_length=False: send text, not tiktoken ids (tiktoken would fetch its
    # vocabulary from the internet, and an OpenAI-compatible server expects strings).
    embeddings = OpenAIEmbeddings(
        model=args.model, base_url=base_url, api_key=os.environ["OPENAI_API_KEY"], check_embedding_ctx_length=False
    )
    metrics = [faithfulness, answer_relevancy]
    errors = _JobErrors()
    logging.getLogger("ragas.executor").addHandler(errors)

    error = None
    start = time.perf_counter()
    try:
        result = evaluate(dataset, metrics=metrics, llm=llm, embeddings=embeddings)
    except Exception as exc:  # a run that aborts still reports
        result, error = None, f"{type(exc).__name__}: {exc}"
    wall_s = time.perf_counter() - start

    n = len(rows)
    out = {"tool": "ragas", "version": md.version("ragas"), "wall_s": round(wall_s, 3), "samples": n}
    if result is None:
        out.update(completed=0, failed=n, error=error)
    else:
        scores = result.scores  # one dict per sample, NaN where a job failed (or the metric gave no score)
        names = [m.name for m in metrics]
        errored = {job // len(metrics) for job in errors.jobs}
        nan = {name: sum(1 for s in scores if _isnan(s.get(name))) for name in names}
        bad = {i for i, s in enumerate(scores) if i in errored or any(_isnan(s.get(name)) for name in names)}
        out.update(completed=n - len(bad), failed=len(bad), errored_jobs=len(errors.jobs), nan_by_metric=nan)
        if errors.messages:
            out["errors"] = errors.messages
        for name in names:
            values = [s[name] for s in scores if not _isnan(s.get(name))]
            out[f"mean_{name}"] = round(sum(values) / len(values), 4) if values else None
    print(json.dumps(out), file=real_stdout, flush=True)
    return 0


def _isnan(value: object) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


if __name__ == "__main__":
    sys.exit(main())
