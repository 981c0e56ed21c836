"""JudgeConfig: one model built alike by the command line, the TOML files and the Python API."""

import typing

import pytest
from conftest import ROOT

from judges.api import load_tests
from judges.cli.main import build_parser, main
from judges.cli.options import config_from_args
from judges.config.judge import JUDGE_FIELDS, JudgeConfig, JudgeSettings, flag_of, judge_config
from judges.errors import ConfigError
from judges.judging.factory import planning_judge
from judges.judging.prompts import sample_variables
from judges.leaderboard.config import load_config
from judges.types import GROUSE_METRICS

JUDGE_COMMANDS = [
    ["meta-eval"],
    ["evaluate", "samples.jsonl"],
    ["validate", "--min", "total=0.5"],
    ["metrics", "--metrics", "hit_rate", "--data", "d.jsonl"],
    ["tune", "--out", "o"],
]


def parsed(*argv):
    return build_parser().parse_args(list(argv))


def test_the_keyword_arguments_match_the_model_field_for_field():
    hints = typing.get_type_hints(JudgeSettings)
    assert list(hints) == [name for name in JUDGE_FIELDS if name != "model"]  # `model` is the `judge` argument
    for name, kind in hints.items():
        wanted = JudgeConfig.model_fields[name].annotation
        if name == "cache":
            assert kind == str | __import__("os").PathLike[str]  # a path is taken too, and kept as its text
        else:
            assert kind == wanted, name


@pytest.mark.parametrize("command", JUDGE_COMMANDS, ids=lambda c: c[0])
def test_every_judge_command_has_one_flag_per_field_and_repeats_no_default(command):
    assert config_from_args(parsed(*command)) == JudgeConfig()
    assert not JudgeConfig().model_fields_set  # no flag given: every field left to the model's default
    given = parsed(*command, "--judge", "openai/x", "--timeout", "30", "--concurrency", "3", "--no-json-schema")
    config = config_from_args(given)
    assert (config.model, config.timeout_s, config.concurrency, config.json_schema) == ("openai/x", 30.0, 3, False)
    assert config.model_fields_set == {"model", "timeout_s", "concurrency", "json_schema"}
    # every field is reachable by its own name too
    assert config_from_args(parsed(*command, "--model", "openai/y", "--timeout-s", "5")).timeout_s == 5.0


def test_flags_are_the_field_names_with_two_named_exceptions():
    renamed = {name: flag_of(name) for name in JUDGE_FIELDS if flag_of(name) != "--" + name.replace("_", "-")}
    assert renamed == {"model": "--judge", "timeout_s": "--timeout"}


@pytest.mark.parametrize("command", JUDGE_COMMANDS, ids=lambda c: c[0])
def test_a_misspelt_flag_is_one_line_naming_the_nearest_flag_and_exit_2(command, capsys):
    assert main([*command, "--temprature", "0.5"]) == 2
    assert capsys.readouterr().err == (
        f"judgelab {command[0]}: error: unrecognized arguments: --temprature 0.5; did you mean --temperature?\n"
    )
    assert main([*command, "--xyzzy=red"]) == 2  # near no flag of any command (`--colour` is near tune's `--columns`)
    assert capsys.readouterr().err == f"judgelab {command[0]}: error: unrecognized arguments: --xyzzy=red\n"


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--concurrency", "0"], "--concurrency must be at least 1, got 0"),
        (["--timeout", "-5"], "--timeout must be a positive number of seconds, got -5.0"),
        (["--image-max-side", "8"], "--image-max-side must be at least 16 pixels, got 8"),
        (["--rpm", "0"], "--rpm must be positive, got 0.0"),
        (["--extra", "{"], "--extra must be a JSON object: Expecting property name enclosed in double quotes"),
    ],
)
def test_a_bad_value_names_its_flag_in_one_line(argv, message, capsys):
    assert main(["meta-eval", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("judgelab: error: ") and message in err and "\n" not in err


def test_samples_is_a_deprecated_alias_of_draws(capsys):
    assert parsed("meta-eval", "--draws", "3").draws == 3
    assert parsed("meta-eval").draws == 1 and capsys.readouterr().err == ""
    assert parsed("meta-eval", "--samples", "4").draws == 4
    assert capsys.readouterr().err == "judgelab: note: --samples is deprecated; use --draws\n"


def test_the_python_api_names_an_unknown_keyword_and_the_nearest_field():
    with pytest.raises(ConfigError) as raised:
        judge_config("openai/x", temprature=0.5)
    assert str(raised.value) == "unknown judge option 'temprature'; did you mean 'temperature'?"
    with pytest.raises(ConfigError, match="^concurrency must be at least 1, got 0$"):
        judge_config("openai/x", concurrency=0)
    base = judge_config("openai/x", temperature=0.5)
    assert judge_config(base, model="local/smollm2-135m").prompts == "compact"  # defaults derived anew
    assert judge_config(base, model="local/smollm2-135m").temperature == 0.5


def gate(tmp_path, judge):
    path = tmp_path / "gate.toml"
    path.write_text(f"[judge]\n{judge}\n[min]\ntotal = 0.5\n", encoding="utf-8")
    return path


def test_the_gate_rejects_an_unknown_judge_key_with_file_line_and_nearest_key(tmp_path, capsys):
    path = gate(tmp_path, 'model = "openai/x"\ntimeout = 30')  # the name judgelab 0.1 used
    assert main(["validate", "--config", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"judgelab: error: {path}:3: unknown key 'judge.timeout'; did you mean 'timeout_s'?"
    path = gate(tmp_path, "concurrency = 0")
    assert main(["validate", "--config", str(path)]) == 2
    assert capsys.readouterr().err.strip() == (
        f"judgelab: error: {path}:2: judge.concurrency: must be at least 1, got 0"
    )


def test_flags_given_win_over_the_gate_file_and_the_file_over_the_defaults(tmp_path):
    from judges.integrations.gate import GateConfig

    path = gate(tmp_path, 'model = "openai/x"\ntimeout_s = 30\nconcurrency = 2')
    from_file = GateConfig.load(path).judge
    assert from_file == {"model": "openai/x", "timeout_s": 30, "concurrency": 2}
    config = config_from_args(parsed("validate", "--config", str(path), "--concurrency", "5"), from_file)
    assert (config.model, config.timeout_s, config.concurrency, config.max_tokens) == ("openai/x", 30.0, 5, 512)


def leaderboard(tmp_path, candidate):
    path = tmp_path / "board.toml"
    path.write_text(
        f'cache = "c.sqlite"\n\n[[candidates]]\nname = "a"\n{candidate}\n\n'
        '[[evaluations]]\nkind = "unit_tests"\nsource = "unit_tests"\n',
        encoding="utf-8",
    )
    return path


def test_the_leaderboard_rejects_an_unknown_judge_key_with_file_line_and_nearest_key(tmp_path, capsys):
    path = leaderboard(tmp_path, 'model = "openai/x"\nmax_token = 64')
    assert main(["leaderboard", str(path), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"judgelab: error: {path}:6: unknown key 'candidates[0].max_token'; did you mean 'max_tokens'?"


def test_the_tuning_space_rejects_an_unknown_judge_key_with_file_line_and_nearest_key(tmp_path, capsys):
    space = tmp_path / "space.toml"
    space.write_text("[decoding]\ntemprature = [0.0, 0.5]\n\n[metrics.completeness]\n", encoding="utf-8")
    assert main(["tune", "--space", str(space), "--out", str(tmp_path / "o"), "--dry-run"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"judgelab: error: {space}:2: unknown key 'decoding.temprature'; did you mean 'temperature'?"


def cache_keys(config, test):
    """The cache key of each metric's first call for one unit test, as a run with `config` would send it."""
    judge, cache = planning_judge(config)
    assert cache is None
    prompts = judge.prompts
    return {
        metric: judge.request(
            metric, [{"role": "user", "content": prompts.templates[metric].render(**sample_variables(test.sample))}], 0
        ).cache_key()
        for metric in GROUSE_METRICS
    }


@pytest.mark.parametrize(
    "flags, keys",
    [
        (["--judge", "local/smollm2-135m"], 'model = "local/smollm2-135m"'),
        (
            [
                "--judge",
                "openai/x",
                "--api-base",
                "http://127.0.0.1:9/v1",
                "--max-tokens",
                "64",
                "--extra",
                '{"top_p": 0.9}',
            ],
            'model = "openai/x"\napi_base = "http://127.0.0.1:9/v1"\nmax_tokens = 64\nextra = {top_p = 0.9}',
        ),
    ],
    ids=["local", "api"],
)
def test_the_same_judge_on_the_command_line_and_in_a_leaderboard_asks_the_same_cached_calls(
    flags, keys, tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)  # no cache file here: nothing is read
    test = load_tests(ROOT / "unit_tests", "test", 1)[0]
    from_cli = config_from_args(parsed("meta-eval", *flags, "--cache", str(tmp_path / "c.sqlite")))
    board = load_config(leaderboard(tmp_path, keys))
    from_board = board.candidates[0].judge(board.cache)
    assert from_board == from_cli
    assert cache_keys(from_board, test) == cache_keys(from_cli, test)
    if flags[1].startswith("local/"):
        assert from_board.prompts == "compact"  # the local judge's own prompts, as on the command line
        other = cache_keys(from_cli.merged(prompts="default"), test)  # what a leaderboard asked before
        assert other["answer_relevancy"] != cache_keys(from_cli, test)["answer_relevancy"]


def test_a_runtime_setting_reaches_the_call_runtime_from_every_source(tmp_path):
    from judges.integrations.gate import GateConfig
    from judges.judging.factory import open_runtime

    base = ["--judge", "openai/x", "--api-base", "http://127.0.0.1:9/v1", "--cache", str(tmp_path / "c.sqlite")]
    from_cli = config_from_args(parsed("meta-eval", *base, "--max-attempts", "2", "--timeout", "7"))
    from_gate = judge_config(**GateConfig.load(gate(tmp_path, f"{keys(base)}\nmax_attempts = 2\ntimeout_s = 7")).judge)
    from_api = judge_config("openai/x", api_base=base[3], cache=tmp_path / "c.sqlite", max_attempts=2, timeout_s=7)
    assert from_cli == from_gate == from_api
    with open_runtime(from_api) as (_, runtime):  # nothing is called: the backend opens lazily
        assert (runtime.settings.max_attempts, runtime.settings.timeout_s) == (2, 7.0)
    with pytest.raises(ConfigError, match="^--max-attempts must be at least 1, got 0$"):
        config_from_args(parsed("meta-eval", "--max-attempts", "0"))


def keys(flags):
    """`--judge M --api-base U --cache C` as the [judge] lines of a gate file."""
    return f'model = "{flags[1]}"\napi_base = "{flags[3]}"\ncache = "{flags[5]}"'
