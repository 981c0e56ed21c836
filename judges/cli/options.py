"""The flags several commands share: the judge's (derived from JudgeConfig's fields) and the unit tests'."""

from __future__ import annotations

import argparse
import dataclasses
import sys
import types
import typing
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from judges.config.fields import Cli
from judges.config.judge import JUDGE_FIELDS, JudgeConfig, build_config, cli_of, flag_of


def add_judge_options(parser: argparse.ArgumentParser) -> None:
    """One flag per JudgeConfig field (its name with dashes, or the field's `Cli.flag`); the defaults stay in the
    model, so a flag not given leaves the field unset."""
    groups = {"judge": parser.add_argument_group("judge"), "runtime": parser.add_argument_group("runtime")}
    for name, info in JudgeConfig.model_fields.items():
        cli = cli_of(name)
        flags = [flag_of(name)]
        if flags[0] != "--" + name.replace("_", "-"):
            flags.append("--" + name.replace("_", "-"))  # the field's own name works too
        default = info.get_default(call_default_factory=True)
        shown = f" (default {default})" if default not in (None, "", {}) and "default" not in cli.help else ""
        options: dict[str, Any] = {"dest": name, "default": argparse.SUPPRESS, "help": cli.help + shown}
        options.update(_reading(info.annotation))
        if cli.metavar and "choices" not in options and options.get("action") is not argparse.BooleanOptionalAction:
            options["metavar"] = cli.metavar
        groups[cli.group].add_argument(*flags, **options)
    groups["runtime"].add_argument(
        "--quiet", action="store_true", help="no progress on stderr (it is a bar on a terminal, else a line every 10 s)"
    )


def add_model_options(
    parser: argparse.ArgumentParser,
    model: type[BaseModel],
    *,
    groups: dict[str, Any] | None = None,
    only: Sequence[str] | None = None,
    choices: dict[str, Sequence[str]] | None = None,
    helps: dict[str, str] | None = None,
) -> dict[str, Any]:
    """One flag per field of `model` that has `Cli` metadata (`--field-name`), in its `Cli.group` (a container of
    `groups` by that name, else a new section); `only` some fields, `choices` narrowing a field's for one command.
    The defaults stay in the model, so a flag not given leaves the field unset (read back with `given_fields`). The
    groups, by name."""
    groups = dict(groups or {})
    for name, info in model.model_fields.items():
        cli = next((m for m in info.metadata if isinstance(m, Cli)), None)
        if cli is None or (only is not None and name not in only):
            continue
        if cli.group not in groups:
            groups[cli.group] = parser.add_argument_group(cli.group)
        if helps and name in helps:
            cli = dataclasses.replace(cli, help=helps[name])
        _add_field_flag(groups[cli.group], name, cli, info, (choices or {}).get(name))
    return groups


def _add_field_flag(group: Any, name: str, cli: Cli, info: FieldInfo, choices: Sequence[str] | None) -> None:
    """A field's flag (a switch's off flag too, beside it: the two exclude each other)."""
    default = info.get_default(call_default_factory=True)
    if isinstance(default, tuple):
        default = ",".join(str(part) for part in default)
    shown = f" (default {default})" if default not in (None, "", {}, False) and "default" not in cli.help else ""
    options: dict[str, Any] = {"dest": name, "default": argparse.SUPPRESS, "help": cli.help + shown}
    annotation = info.annotation
    tupled = any(typing.get_origin(k) is tuple for k in [annotation, *typing.get_args(annotation)])
    options.update({"type": str} if tupled or cli.parse else _reading(annotation))  # a tuple is given as A,B
    if choices is not None:
        options["choices"] = list(choices)
    if cli.metavar and "choices" not in options and options.get("action") is not argparse.BooleanOptionalAction:
        options["metavar"] = cli.metavar
    flag = cli.flag or "--" + name.replace("_", "-")
    if cli.off is None:
        group.add_argument(flag, **options)
        return
    pair = group.add_mutually_exclusive_group()
    pair.add_argument(flag, **{**options, "action": "store_true"})
    pair.add_argument(cli.off[0], dest=name, default=argparse.SUPPRESS, action="store_false", help=cli.off[1])


def given_fields(args: argparse.Namespace, model: type[BaseModel]) -> dict[str, Any]:
    """The fields of `model` the command line set, a field's text read by its `Cli.parse`."""
    given = {}
    for name, info in model.model_fields.items():
        if hasattr(args, name):
            cli = next((m for m in info.metadata if isinstance(m, Cli)), None)
            value = getattr(args, name)
            given[name] = cli.parse(value) if cli and cli.parse and isinstance(value, str) else value
    return given


def _reading(annotation: Any) -> dict[str, Any]:
    """How argparse reads a field of this type: a switch pair, a choice, a repeatable flag, or one typed value."""
    kinds = [a for a in typing.get_args(annotation) if a is not type(None)] if _is_union(annotation) else [annotation]
    if bool in kinds:
        return {"action": argparse.BooleanOptionalAction}
    literal = next((k for k in kinds if typing.get_origin(k) is Literal), None)
    if literal is not None:
        return {"choices": list(typing.get_args(literal))}
    if any(typing.get_origin(k) is list for k in kinds):
        return {"action": "append"}
    if any(typing.get_origin(k) is dict for k in kinds):
        return {"type": str}  # JSON text, parsed by the model
    kind = kinds[0]
    return {"type": kind if kind in (int, float) else str}


def _is_union(annotation: Any) -> bool:
    return typing.get_origin(annotation) in (typing.Union, types.UnionType)


def config_from_args(args: argparse.Namespace, base: dict[str, Any] | None = None) -> JudgeConfig:
    """The JudgeConfig the command line asks for; flags given win over `base` (e.g. a config file's [judge])."""
    given = {name: getattr(args, name) for name in JUDGE_FIELDS if hasattr(args, name)}
    return build_config({**(base or {}), **given}, flags=True)


def add_test_options(parser: argparse.ArgumentParser, default_split: str) -> None:
    parser.add_argument(
        "--tests",
        default=None,
        metavar="FILE|DIR",
        help="unit-test JSONL, a folder with train.jsonl/test.jsonl, or 'grouse' (the hub "
        "dataset); default: the shipped unit_tests/",
    )
    parser.add_argument(
        "--split",
        choices=["train", "test"],
        default=None,
        help=f"split of a folder or hub dataset (default {default_split} for the shipped suite, else test)",
    )
    parser.add_argument("--limit", type=int, metavar="N", help="only the first N unit tests")
    parser.add_argument("--out", metavar="DIR", help="run folder (default results/runs/<run-id>)")


class DeprecatedAlias(argparse.Action):
    """A flag kept under its old name: stores into the new one's dest and says so in one line on stderr."""

    def __init__(self, option_strings: list[str], dest: str, new: str = "", **kwargs: Any) -> None:
        self.new = new
        super().__init__(option_strings, dest, **kwargs)

    def __call__(self, parser: Any, namespace: argparse.Namespace, values: Any, option: str | None = None) -> None:
        print(f"judgelab: note: {option} is deprecated; use {self.new}", file=sys.stderr)
        setattr(namespace, self.dest, values)
