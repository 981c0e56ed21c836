"""`judgelab metrics`: run RAG-suite metrics over a JSONL or HF dataset; writes the run folder. `--list` prints the
registry."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from judges.agreement.pairwise_formats import FORMATS
from judges.api import run_metrics
from judges.calls.endpoint_auth import check_url
from judges.cli.finish import finish_run
from judges.cli.options import add_judge_options, add_model_options, config_from_args, given_fields
from judges.config.judge import JudgeConfig
from judges.errors import ConfigError
from judges.rag.benchmark_pairs import benchmark_format, benchmark_samples
from judges.rag.dataset import HF_PREFIX, load_rag_samples
from judges.rag.metric_registry import build_registry, select
from judges.rag.settings import MetricSettings, metric_settings
from judges.runs.folder import default_run_dir


def configure(parser: argparse.ArgumentParser) -> None:
    """The judge's options and the command's own."""
    add_judge_options(parser)
    parser.add_argument("--list", action="store_true", help="list the metrics and exit")
    parser.add_argument(
        "--metrics",
        metavar="A,B",
        help="metric names, family names (`--list` shows them, with the metrics other packages register) or 'all'",
    )
    parser.add_argument(
        "--data",
        metavar="FILE|hf:SOURCE",
        help="JSONL file, or hf:<local file | saved folder | hub dataset> read through `datasets`",
    )
    parser.add_argument(
        "--format",
        choices=FORMATS,
        help="--data is a judge benchmark's released pairs (detected by shape when not given): each pair a sample, "
        "its id as `judgelab agreement --format` reads the labels (for pairwise_preference)",
    )
    parser.add_argument("--split", help="dataset split for hf: sources (default: test, or the only one)")
    parser.add_argument("--hf-config", metavar="NAME", help="configuration of a hub dataset")
    parser.add_argument(
        "--map",
        action="append",
        default=[],
        metavar="FIELD=KEY",
        help="read FIELD (question, answer, contexts, ground_truth, retrieved_ids, expected_ids, "
        "guidelines) from the record's KEY; repeatable",
    )
    parser.add_argument("--limit", type=int, metavar="N", help="only the first N samples")
    parser.add_argument("--out", metavar="DIR", help="run folder (default results/runs/<run-id>)")
    parser.add_argument(
        "--embeddings",
        default="local/multilingual-e5-small",
        metavar="MODEL",
        help="embedding model: local/multilingual-e5-small (offline, default) or a LiteLLM id",
    )
    parser.add_argument("--embeddings-api-base", metavar="URL", help="server for a LiteLLM embedding model")
    parser.add_argument(
        "--rag-prompts",
        metavar="DIR",
        help="folder of templates overriding prompts/rag/ ones, or a shipped one (llmbar/vanilla, llmbar/rules)",
    )
    parser.add_argument(
        "--draws",
        type=int,
        default=1,
        metavar="K",
        help="score each sample K times (each draw its own requests): per metric the modal value, with the share "
        "of draws that gave it as its confidence, and the judge's consistency with itself (default 1)",
    )
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="print which metrics would ask the judge and how many first calls that makes; call nothing",
    )
    group = add_model_options(parser, MetricSettings)["metric settings"]
    group.add_argument(
        "--aspect",
        action="append",
        default=[],
        metavar="NAME=DEFINITION",
        help="add an aspect critique ragas_aspect_NAME; repeatable",
    )
    group.add_argument(
        "--criterion",
        action="append",
        default=[],
        metavar="NAME=DEFINITION",
        help="add a G-Eval rubric rubric_NAME; repeatable",
    )


def _pairs(items: list[str], option: str) -> dict[str, str]:
    out = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name.strip() or not value.strip():
            raise ConfigError(f"{option} takes NAME=VALUE, got {item!r}")
        out[name.strip()] = value.strip()
    return out


def _settings(args: argparse.Namespace) -> MetricSettings:
    return metric_settings(given_fields(args, MetricSettings))


def print_registry(registry: dict[str, Any]) -> None:
    width = max(len(name) for name in registry)
    for spec in registry.values():
        needs = ",".join(spec.needs) or "(its components)"
        print(f"{spec.name:<{width}}  {spec.family:<10}  needs {needs:<40}  {spec.description}")


def run(args: argparse.Namespace) -> int:
    aspects, criteria = _pairs(args.aspect, "--aspect"), _pairs(args.criterion, "--criterion")
    if args.list:
        print_registry(build_registry(aspects, criteria))
        return 0
    if not args.metrics or not args.data:
        raise ConfigError("give --metrics and --data (or --list)")
    config = config_from_args(args)  # a bad judge option fails before the data is read
    if args.embeddings_api_base:
        try:
            check_url(args.embeddings_api_base)
        except ValueError as err:
            raise ConfigError(f"--embeddings-api-base {err}") from None
    settings = _settings(args)
    registry = build_registry(aspects, criteria, using=[*args.metrics.split(","), *settings.ragas_score_of])
    metrics = select(registry, args.metrics.split(","))
    if any(spec.name == "ragas_score" for spec in metrics):
        select(registry, settings.ragas_score_of)  # unknown components fail here, before any call
    if args.limit is not None and args.limit < 1:
        raise ConfigError("--limit must be at least 1")

    fmt = None if args.data.startswith(HF_PREFIX) else benchmark_format(args.data, args.format)
    if fmt is not None:  # a judge benchmark's pairs, read as they are released
        samples: Sequence[Any] = benchmark_samples(args.data, fmt, args.limit)
    else:
        samples = load_rag_samples(
            args.data, split=args.split, config=args.hf_config, mapping=_pairs(args.map, "--map"), limit=args.limit
        )
    if not samples:
        raise ConfigError(f"{args.data}: no samples")
    if args.dry_run:
        return dry_run(metrics, samples, config, args.draws)
    return execute(args, config, metrics, registry, settings, samples)


def dry_run(metrics: list[Any], samples: Sequence[Any], config: JudgeConfig, draws: int = 1) -> int:
    """What a metrics run would ask: the metrics that call the judge, and their first calls (one per sample each
    applies to, in each of the `draws`: a sample missing a field a metric needs is not judged by it; claims and
    generated questions add more, which only the replies decide)."""
    judged = [spec for spec in metrics if spec.uses_judge]
    applies = dict.fromkeys((spec.name for spec in judged), 0)
    n_samples = 0
    for sample in samples:
        n_samples += 1
        for spec in judged:
            applies[spec.name] += 0 if sample.missing(spec.needs) else spec.first_calls
    print(
        f"{len(samples)} samples x {len(metrics)} metrics{f' x {draws} draws' if draws > 1 else ''} with {config.model}"
    )
    per_draw = sum(applies.values())
    print(
        f"dry run: {len(judged)} of the {len(metrics)} metrics ask the judge"
        + (f" ({', '.join(applies)})" if judged else "")
        + f": at most {per_draw * draws} first calls, one per sample each applies to"
        + (" (two for a pairwise metric, one per order)" if any(spec.first_calls > 1 for spec in judged) else "")
        + (f" in each of {draws} draws ({per_draw} per draw)" if draws > 1 else "")
        + "; metrics that extract claims or generate questions then ask once per claim or question. Nothing was called."
    )
    for spec in judged:
        if applies[spec.name] < n_samples * spec.first_calls:
            print(
                f"  {spec.name} applies to {applies[spec.name] // spec.first_calls} of {n_samples} samples "
                f"(it needs {', '.join(spec.needs)})"
            )
    return 0


def execute(
    args: argparse.Namespace,
    config: JudgeConfig,
    metrics: list[Any],
    registry: dict[str, Any],
    settings: Any,
    samples: Sequence[Any],
) -> int:
    out_dir = Path(args.out) if args.out else default_run_dir(Path("results/runs"), "metrics", config.model)
    run = run_metrics(
        samples,
        [spec.name for spec in metrics],
        config,
        out=out_dir,
        draws=args.draws,
        progress=not args.quiet,
        data=args.data,
        settings=settings,
        embeddings=args.embeddings,
        embeddings_api_base=args.embeddings_api_base,
        rag_prompts=args.rag_prompts,
        registry=registry,
    )
    return finish_run(run, ["results.jsonl", "run.json", "summary.md"])
