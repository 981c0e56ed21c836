"""Agreement's settings are one typed model: its fields make `judgelab agreement`'s flags (the same flags, defaults
and choices as when they were written by hand), the label options of tune, cascade and validate, and the keys of a
leaderboard `labels` evaluation."""

from __future__ import annotations

import argparse
import json

import pytest
from conftest import ROOT, write_jsonl

from judges.agreement.agreement_settings import AgreementSettings, LabelMeasuring, LabelReading
from judges.cli.main import build_parser, main
from judges.leaderboard.config_types import Evaluation

# `judgelab agreement --help` before its flags were made from AgreementSettings: flag -> (dest, default, choices,
# metavar, action); a default of a flag not given is the model's now (the flag leaves the field unset)
AGREEMENT_FLAGS = {
    "--labels": ("labels", None, None, "SET_OR_FILE", "store"),
    "--predictions": ("predictions", None, None, "FILE", "append"),
    "--metric": ("metric", None, None, "M", "store"),
    "--policy": ("policy", "exclude", ["exclude", "wrong", "impute"], None, "store"),
    "--out": ("out", None, None, "DIR", "store"),
    # inputs added since: a judge benchmark's released format, and the judge's own system for self-preference
    "--format": ("format", None, ("llmbar", "judgebench", "mtbench", "rewardbench"), None, "store"),
    "--judge-system": ("judge_system", None, None, "NAME", "store"),
    "--id-field": ("id_field", "id", None, "FIELD", "store"),
    "--score-field": ("score_field", "score", None, "FIELD[,FIELD_B]", "store"),
    "--higher-is-better": ("higher_is_better", True, None, None, "store_true"),
    "--lower-is-better": ("higher_is_better", True, None, None, "store_false"),
    "--threshold": ("threshold", None, None, "T", "store"),
    "--calibration": ("calibration", None, None, "SET_OR_FILE", "store"),
    "--calibration-fraction": ("calibration_fraction", None, None, "F", "store"),
    "--folds": ("folds", 5, None, "K", "store"),
    "--resamples": ("resamples", 1000, None, "N", "store"),
    "--seed": ("seed", 0, None, None, "store"),
    "--columns": ("columns", None, None, "MAP", "store"),
    "--label-map": ("label_map", None, None, "TEXT=N,...", "store"),
    "--label-type": ("label_type", None, ["binary", "ordinal", "continuous", "preference"], None, "store"),
    "--scale": ("scale", None, None, "LOW,HIGH", "store"),
    "--split": ("split", None, None, "SPLIT", "store"),
}
ACTIONS = {
    argparse._StoreAction: "store",
    argparse._AppendAction: "append",
    argparse._StoreTrueAction: "store_true",
    argparse._StoreFalseAction: "store_false",
}


def command(*names: str) -> argparse.ArgumentParser:
    parser = build_parser(names[0])
    for name in names:
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        parser = sub.choices[name]
    return parser


def flags(parser: argparse.ArgumentParser) -> dict[str, tuple[object, ...]]:
    """Each option's dest, default (the model's for a flag that leaves its field unset), choices, metavar, action."""
    out = {}
    for action in parser._actions:
        if not action.option_strings or isinstance(action, argparse._HelpAction):
            continue
        default = action.default
        if default == argparse.SUPPRESS and action.dest in AgreementSettings.model_fields:
            default = AgreementSettings.model_fields[action.dest].default
        kind = ACTIONS.get(type(action), type(action).__name__)
        out[action.option_strings[0]] = (action.dest, default, action.choices, action.metavar, kind)
    return out


def test_the_agreement_flags_are_the_ones_written_by_hand_before() -> None:
    assert flags(command("agreement")) == AGREEMENT_FLAGS


def test_every_agreement_flag_but_its_inputs_and_output_is_a_settings_field() -> None:
    generated = {a.dest for a in command("agreement")._actions if a.default == argparse.SUPPRESS and a.option_strings}
    assert generated - {"help"} == {
        name for name in AgreementSettings.model_fields if name not in ("statistic", "confidence")
    }


@pytest.mark.parametrize(
    ("names", "label_types"),
    [
        (("tune",), ["binary", "ordinal", "continuous"]),
        (("cascade", "calibrate"), ["binary", "ordinal", "preference"]),
        (("validate",), ["binary", "ordinal", "continuous", "preference"]),
    ],
)
def test_the_label_options_of_other_commands_are_agreements_own(names, label_types) -> None:
    ours, theirs = command("agreement"), command(*names)
    shown = {a.dest: a for a in theirs._actions}
    for name in ("columns", "label_map", "label_type", "scale"):
        mine = next(a for a in ours._actions if a.dest == name)
        assert (shown[name].option_strings, shown[name].help, shown[name].metavar) == (
            mine.option_strings,
            mine.help,
            mine.metavar,
        )
    assert shown["label_type"].choices == label_types


def test_a_labels_evaluation_takes_the_measuring_settings_as_its_keys() -> None:
    own = {"kind", "source", "limit", "name", "format"}  # format: a judge benchmark's released pairs
    assert set(Evaluation.model_fields) - own == set(LabelMeasuring.model_fields)
    assert set(LabelReading.model_fields) < set(LabelMeasuring.model_fields) < set(AgreementSettings.model_fields)


def test_the_agreement_path_holds_no_type_ignore() -> None:
    for path in ("judges/cli/agreement_cmd.py", "judges/agreement/agreement_settings.py"):
        assert "type: ignore" not in (ROOT / path).read_text(encoding="utf-8")


BOARD = '[[candidates]]\nname = "o"\nkind = "baseline"\nbaseline = "oracle"\n[[evaluations]]\nkind = "labels"\n'


@pytest.mark.parametrize(
    ("key", "message"),
    [
        ('polcy = "wrong"', "unknown key 'evaluations[0].polcy'; did you mean 'policy'?"),
        ("resamples = 50", "evaluations[0].resamples: must be at least 100, got 50"),
        ('policy = "drop"', "evaluations[0].policy: input should be 'exclude', 'wrong' or 'impute', got 'drop'"),
    ],
)
def test_a_labels_evaluation_with_a_bad_key_is_one_line_naming_file_line_and_key(tmp_path, capsys, key, message):
    labels = write_jsonl(tmp_path / "l.jsonl", [])
    config = tmp_path / "board.toml"
    config.write_text(BOARD + f'source = "{labels}"\n{key}\n')
    assert main(["leaderboard", str(config), "--out", str(tmp_path / "out")]) == 2
    assert capsys.readouterr().err == f"judgelab: error: {config}:8: {message}\n"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--resamples", "50"], "--resamples must be at least 100, got 50"),
        (["--folds", "1"], "--folds must be at least 2, got 1"),
        (["--calibration-fraction", "1.5"], "--calibration-fraction must be a fraction strictly between 0 and 1"),
        (["--label-map", "yes"], "--label-map: expected TEXT=NUMBER, got 'yes'"),
        (["--scale", "5,1"], "--scale: LOW must be below HIGH"),
    ],
)
def test_a_bad_agreement_setting_is_one_line_naming_its_flag(tmp_path, capsys, argv, message):
    labels = write_jsonl(tmp_path / "l.jsonl", [])
    assert main(["agreement", "--labels", str(labels), "--predictions", str(labels), *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"judgelab: error: {message}") and err.count("\n") == 1


# `validate --labels` measures the judge's outputs as `agreement` does: these flags are agreement's own (a command's
# own wording aside), their defaults the model's, a flag not given leaving its field unset
VALIDATE_MEASURING = ("--metric", "--policy", "--resamples", "--id-field", "--score-field", "--threshold")
VALIDATE_MEASURING += ("--higher-is-better", "--lower-is-better", "--columns", "--label-map", "--label-type", "--scale")
OWN_WORDING = {"--metric", "--threshold"}  # validate takes one metric; the cut of a continuous score is its only use


def test_the_measuring_flags_of_validate_are_agreements_own() -> None:
    ours, theirs = command("agreement"), command("validate")
    mine = {a.option_strings[0]: a for a in ours._actions if a.option_strings}
    shown = {a.option_strings[0]: a for a in theirs._actions if a.option_strings}
    assert {flag: flags(theirs)[flag] for flag in VALIDATE_MEASURING} == {
        flag: AGREEMENT_FLAGS[flag] for flag in VALIDATE_MEASURING
    }
    for flag in VALIDATE_MEASURING:
        assert shown[flag].default == argparse.SUPPRESS, flag  # the model's default, written once
        assert flag in OWN_WORDING or shown[flag].help == mine[flag].help, flag
    assert shown["--metric"].help == "the metric (default: the labels' one metric)"
    assert "(default 1000)" in shown["--resamples"].help and "(default exclude)" in shown["--policy"].help


def test_the_metric_and_cut_flags_of_cascade_calibrate_are_agreements_own() -> None:
    calibrate = command("cascade", "calibrate")
    assert {flag: flags(calibrate)[flag] for flag in ("--metric", "--threshold")} == {
        flag: AGREEMENT_FLAGS[flag] for flag in ("--metric", "--threshold")
    }
    shown = {a.dest: a for a in calibrate._actions}
    assert shown["metric"].default == shown["threshold"].default == argparse.SUPPRESS
    assert shown["threshold"].help == "cut of a probability score, binary labels (0.5)"  # its own default: a verdict's


def test_cascade_calibrate_cuts_a_probability_at_one_half_unless_told(tmp_path, capsys) -> None:
    labels = write_jsonl(tmp_path / "l.jsonl", [{"id": f"i{n}", "metric": "m", "label": n % 2} for n in range(60)])
    scores = write_jsonl(tmp_path / "p.jsonl", [{"id": f"i{n}", "score": 0.6 if n % 2 else 0.4} for n in range(60)])
    cuts = {}
    for given in ([], ["--threshold", "0.7"]):
        out = tmp_path / f"c{len(given)}"
        argv = ["cascade", "calibrate", "--labels", str(labels), "--predictions", f"j={scores}", "--target", "0.8"]
        assert main([*argv, "--label-type", "binary", *given, "--out", str(out)]) == 0, capsys.readouterr().err
        cuts[tuple(given)] = json.loads((out / "calibration.json").read_text())["cut"]
    assert cuts == {(): 0.5, ("--threshold", "0.7"): 0.7}


def test_validate_without_labels_names_a_measuring_flag_as_given(tmp_path, capsys) -> None:
    assert main(["validate", "--lower-is-better", "--policy", "wrong", "--min", "total=0.5"]) == 2
    assert capsys.readouterr().err == (
        "judgelab: error: --policy, --lower-is-better: only with --labels (certifying a judge's outputs on labels)\n"
    )


def test_validate_reads_a_score_field_pair_and_a_lower_is_better_judge_as_agreement_does(tmp_path, capsys) -> None:
    labels = write_jsonl(
        tmp_path / "labels.jsonl",
        [{"id": f"i{n}", "metric": "faithfulness", "label": n % 2} for n in range(40)],
    )
    # a hallucination flag under a nested field: 1 means unfaithful, so lower is better
    predictions = write_jsonl(tmp_path / "p.jsonl", [{"id": f"i{n}", "out": {"flag": 1 - n % 2}} for n in range(40)])
    argv = ["validate", "--labels", str(labels), "--predictions", str(predictions), "--label-type", "binary"]
    argv += ["--score-field", "out.flag", "--lower-is-better", "--min-recall", "0.8", "--out", str(tmp_path / "c")]
    assert main(argv) == 0, capsys.readouterr().err
    assert capsys.readouterr().out.splitlines()[-1].startswith("CERTIFIED: 2/2 bounds reach their bars")
