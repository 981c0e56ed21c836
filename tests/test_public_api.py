"""The public API is locked: `judges.__all__` and the signatures of its members change only with this test."""

import inspect

import judges

EXPORTED = [
    "JudgeConfig",
    "JudgelabError",
    "Run",
    "Sample",
    "UnitTest",
    "Verdict",
    "__version__",
    "grade_samples",
    "load_samples",
    "load_tests",
    "run_metrics",
    "run_unit_tests",
]

FUNCTIONS = {
    "load_tests": "(source: 'str | Path | None' = None, split: 'str | None' = None, limit: 'int | None' = None)"
    " -> 'list[UnitTest]'",
    "load_samples": "(path: 'str | Path', limit: 'int | None' = None) -> 'Sequence[tuple[str, Sample]]'",
    "run_unit_tests": "(tests: 'Sequence[UnitTest]', judge: 'str | JudgeConfig' = 'local/smollm2-135m', *, "
    "out: 'str | Path | None' = None, draws: 'int' = 1, progress: 'bool' = False, data: 'str | None' = None, "
    "split: 'str | None' = None, **options: 'Unpack[JudgeSettings]') -> 'Run'",
    "grade_samples": "(samples: 'Sequence[tuple[str, Sample]]', judge: 'str | JudgeConfig' = 'local/smollm2-135m', "
    "*, metrics: 'Sequence[str] | None' = None, out: 'str | Path | None' = None, draws: 'int' = 1, "
    "progress: 'bool' = False, "
    "data: 'str | None' = None, **options: 'Unpack[JudgeSettings]') -> 'Run'",
    "run_metrics": "(samples: 'Sequence[Any]', metrics: 'Sequence[str]', judge: 'str | JudgeConfig' = "
    "'local/smollm2-135m', *, out: 'str | Path | None' = None, draws: 'int' = 1, progress: 'bool' = False, "
    "data: 'str | None' = None, "
    "settings: 'Any' = None, embeddings: 'str | None' = 'local/multilingual-e5-small', "
    "embeddings_api_base: 'str | None' = None, rag_prompts: 'str | Path | None' = None, "
    "registry: 'dict[str, Any] | None' = None, **options: 'Unpack[JudgeSettings]') -> 'Run'",
}

# classes: their constructor's parameters (name=default; `...` for a required one, `<factory>` for a factory)
CLASSES = {
    "JudgeConfig": "model='local/smollm2-135m', prompts='', api_base=None, client=None, temperature=0.0, "
    "max_tokens=512, seed=0, extra=<factory>, json_schema=None, vision=None, image_max_side=1024, concurrency=8, "
    "timeout_s=120.0, max_attempts=4, cache='.judgelab/cache.sqlite', cache_mode='read-write', rpm=None, tpm=None, "
    "max_cost=None, executor='local', ray_address=None, ray_workers=2, executor_window=None, batch_retry=False, fail_on_error=0.1",
    "Run": "kind=..., config=..., held=..., summary=..., usage=<factory>, stop_reason=None, stop_message=None, "
    "timing=<factory>, folder=None",
    "Sample": "input=None, references=None, expected_output=None, actual_output=None, retrieved_ids=None, "
    "expected_ids=None, guidelines=None, id='', images=(), alternative_output=None",
    "UnitTest": "id=..., sample=..., conditions=..., test_type=..., goal=..., set_id=None, source=None",
    "Verdict": "state=..., grade=None, failure_kind=None, message=None, justification=None",
}


def parameters(kind):
    def shown(p):
        if p.default is inspect.Parameter.empty:
            return f"{p.name}=..."
        return f"{p.name}={p.default!r}" if "factory" not in repr(p.default) else f"{p.name}=<factory>"

    return ", ".join(shown(p) for p in inspect.signature(kind).parameters.values())


def test_the_exported_names_are_pinned():
    assert judges.__all__ == EXPORTED
    assert all(getattr(judges, name) is not None for name in EXPORTED)
    assert sorted(judges.__all__) == judges.__all__ and judges.__version__ == "0.1.0"


def test_the_exported_functions_keep_their_signatures():
    assert {name: str(inspect.signature(getattr(judges, name))) for name in FUNCTIONS} == FUNCTIONS


def test_the_exported_classes_keep_their_constructors():
    assert {name: parameters(getattr(judges, name)) for name in CLASSES} == CLASSES
    assert issubclass(judges.JudgelabError, Exception) and judges.JudgelabError.exit_code == 2
    assert set(EXPORTED) == {*FUNCTIONS, *CLASSES, "JudgelabError", "__version__"}
