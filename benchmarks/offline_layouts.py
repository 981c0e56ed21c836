"""How many prompt tokens llama.cpp must read for the main job under each prompt layout and call order, counted with
the served model's tokenizer (no model run): a server that keeps one prompt's KV cache reads each prompt from the
first token where it parts from the one before (llama-cpp-python's `Llama.generate`). Layouts: the compact set as
shipped (the sample, then the metric's instructions) and the same text with the instructions moved before the sample
(so calls of one metric share them). Orders: each test's calls together (file order, or prompt-prefix order), or all
tests' calls of one metric before the next metric's (file order, or sorted). Used by bench_offline_judge.py."""

from __future__ import annotations

import tempfile
from pathlib import Path

CALLS = ("answer_relevancy", "completeness", "faithfulness")  # the main job's three calls a test (relevancy graded)


def instructions_first(source: str) -> str:
    """A compact template with its "Metric:" block moved from after the sample to before it; nothing else changed."""
    sample, metric, ask = source.index("References:"), source.index("Metric:"), source.index("\nGrade ")
    return (
        source[:sample]
        + source[metric:ask].rstrip("\n")
        + "\n\n"
        + source[sample:metric].rstrip("\n")
        + "\n"
        + source[ask:]
    )


def tokens_read(prompts: list[list[int]]) -> int:
    read, before = 0, []
    for tokens in prompts:
        shared = next(
            (i for i, (a, b) in enumerate(zip(before, tokens, strict=False)) if a != b), min(len(before), len(tokens))
        )
        read, before = read + len(tokens) - shared, tokens
    return read


def count(model_path: Path) -> dict:
    from llama_cpp import Llama

    from judges.api import load_tests
    from judges.files.shipped import bundled_dir
    from judges.judging.prompts import load_prompt_set

    llm = Llama(str(model_path), vocab_only=True, verbose=False)
    tests = load_tests(None, "train")
    compact = bundled_dir("prompts") / "compact"
    with tempfile.TemporaryDirectory() as folder:
        for path in compact.glob("*.jinja"):
            (Path(folder) / path.name).write_text(instructions_first(path.read_text()))
        sets = {"sample first (shipped)": load_prompt_set("compact"), "instructions first": load_prompt_set(folder)}
        by_prompt = sorted(tests, key=lambda t: sets["sample first (shipped)"].render(CALLS[0], t.sample))
        orders = {
            "each test's calls together, file order": [(m, t) for t in tests for m in CALLS],
            "each test's calls together, prefix order": [(m, t) for t in by_prompt for m in CALLS],
            "metric by metric, file order": [(m, t) for m in CALLS for t in tests],
            "metric by metric, prefix order": [(m, t) for m in CALLS for t in by_prompt],
        }
        rows = []
        for layout, prompts in sets.items():
            for order, calls in orders.items():
                texts = [render_chat(llm, prompts.render(metric, test.sample)) for metric, test in calls]
                tokens = [llm.tokenize(text.encode(), add_bos=False, special=True) for text in texts]
                rows.append(
                    {"layout": layout, "order": order, "sent": sum(map(len, tokens)), "read": tokens_read(tokens)}
                )
    return {"tests": len(tests), "rows": rows}


def render_chat(llm: object, user: str) -> str:
    """The text the server tokenizes for one user message: the model's chat template (its default system line)."""
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    meta = llm.metadata  # type: ignore[attr-defined]
    formatter = Jinja2ChatFormatter(meta["tokenizer.chat_template"], eos_token="<|im_end|>", bos_token="")
    return formatter(messages=[{"role": "user", "content": user}]).prompt


def render_layouts(part: dict) -> list[str]:
    from judges.pages.markdown import table

    return [
        f"## Prompt layouts and call orders, counted ({part['tests']} train tests, 3 calls each)",
        "",
        "Prompt tokens a server that keeps one prompt's KV cache must read for the main job, counted with the served "
        "model's tokenizer and chat template (no model run; the first row is exactly the count in llama.cpp's log "
        "above). Instructions first: the compact templates with each metric's block moved before the sample.",
        "",
        table(
            [
                {"layout": r["layout"], "calls": r["order"], "prompt tokens sent": r["sent"], "read": r["read"]}
                for r in part["rows"]
            ]
        ),
        "",
    ]
