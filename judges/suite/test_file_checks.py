"""Validates unit-test files: parsing, conditions, citations, ids, the typology's structural promises, splits."""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

from judges.errors import InputError
from judges.files.shipped import SHIPPED_TESTS, bundled_dir
from judges.suite.loading import load_unit_tests
from judges.suite.test_types import BY_NAME, ENDS_WITH_CITATION, MULTI_CITATION
from judges.types import ABSTENTION_SENTENCE, GROUSE_METRICS, UnitTest

CITATION = re.compile(r"\[(\d+)\]")


def check_tests(tests: list[UnitTest], strict: bool = False) -> list[str]:
    """Problems found, one line each, naming the test's source line; empty when the file is sound.

    Every file gets the generic checks (citations point at a reference); `strict` adds the shipped suite's house
    rules (each type's conditions and shape, 3-6 references, complete sets of 16 types)."""
    problems: list[str] = []
    by_set: dict[str, list[UnitTest]] = defaultdict(list)
    for test in tests:
        where = f"{test.source} ({test.id})"
        sample = test.sample
        references = sample.references or ()
        for field in ("expected_output", "actual_output"):
            for number in CITATION.findall(getattr(sample, field) or ""):
                if not 1 <= int(number) <= len(references):
                    problems.append(f"{where}: {field} cites [{number}] but there are {len(references)} references")
        spec = BY_NAME.get(test.test_type)
        if not strict or spec is None:
            continue  # not strict, or a type outside judgelab's typology: only the generic checks apply
        if test.set_id:
            by_set[test.set_id].append(test)
        wanted = dict(zip(GROUSE_METRICS, spec.conditions))
        for metric in GROUSE_METRICS:
            if str(test.conditions[metric]) != wanted[metric]:
                problems.append(
                    f"{where}: {metric} condition {test.conditions[metric]} should be {wanted[metric]} "
                    f"for {test.test_type!r}"
                )
        if not 3 <= len(references) <= 6:
            problems.append(f"{where}: {len(references)} references; a set uses 3-6")
        actual = (sample.actual_output or "").strip()
        if spec.abstains != actual.startswith(ABSTENTION_SENTENCE):
            problems.append(
                f"{where}: actual_output {'must' if spec.abstains else 'must not'} begin with the abstention sentence"
            )
        if spec.abstains_only and actual != ABSTENTION_SENTENCE:
            problems.append(f"{where}: actual_output must be exactly the abstention sentence")
        if spec.abstains and not spec.abstains_only and not CITATION.search(actual):
            problems.append(f"{where}: related information after the abstention must be cited")
        if spec.references_answer == (sample.expected_output or "").strip().startswith(ABSTENTION_SENTENCE):
            problems.append(
                f"{where}: expected_output {'must not' if spec.references_answer else 'must'} be an "
                f"abstention (references {'answer' if spec.references_answer else 'do not answer'})"
            )
        if test.test_type in ENDS_WITH_CITATION and not re.search(r"\]\s*\.?\s*$", actual):
            problems.append(f"{where}: actual_output must end with a citation")
        if test.test_type in MULTI_CITATION and not re.search(r"\]\s*\[", actual):
            problems.append(f"{where}: actual_output must cite two references on one statement, e.g. [1][3]")
        if not spec.abstains and not CITATION.search(actual):
            problems.append(f"{where}: actual_output has no citation")
    for set_id, members in by_set.items():
        types = [t.test_type for t in members]
        missing = sorted(set(BY_NAME) - set(types))
        repeated = sorted({t for t in types if types.count(t) > 1})
        if missing or repeated:
            problems.append(f"set {set_id}: missing types {missing}, repeated types {repeated}")
        if len({t.sample.input for t in members}) != 1:
            problems.append(f"set {set_id}: its records ask different questions")
    return problems


def check_splits(train: list[UnitTest], test: list[UnitTest]) -> list[str]:
    """Train and test must share no question and no set."""
    problems = []
    shared = {t.sample.input or "" for t in train} & {t.sample.input or "" for t in test}
    problems += [f"train and test share the question {q!r}" for q in sorted(shared)]
    shared_sets = {t.set_id for t in train if t.set_id} & {t.set_id for t in test if t.set_id}
    problems += [f"train and test share the set {s!r}" for s in sorted(shared_sets)]
    return problems


def is_shipped_suite(path: str | Path) -> bool:
    """Whether `path` is the shipped unit_tests/ folder or one of its files (its house rules always apply)."""

    shipped = bundled_dir(SHIPPED_TESTS).resolve()
    resolved = Path(path).resolve()
    return resolved == shipped or (resolved.parent == shipped and resolved.suffix == ".jsonl")


def check_path(path: str | Path, strict: bool | None = None) -> tuple[int, list[str]]:
    """Check a file, or a folder's train.jsonl and test.jsonl (and their separation). Returns (n tests, problems).

    `strict` (house rules) defaults to on for the shipped suite only. A file that cannot be read raises
    InputProblems listing all its problems."""
    path = Path(path)
    strict = is_shipped_suite(path) if strict is None else strict
    if path.is_dir():
        splits = {name: load_unit_tests(path, name) for name in ("train", "test") if (path / f"{name}.jsonl").is_file()}
        if not splits:
            raise InputError("no train.jsonl or test.jsonl in this folder", path=str(path))
        problems = [p for tests in splits.values() for p in check_tests(tests, strict)]
        if len(splits) == 2:
            problems += check_splits(splits["train"], splits["test"])
        return sum(len(t) for t in splits.values()), problems
    tests = load_unit_tests(path)
    return len(tests), check_tests(tests, strict)
