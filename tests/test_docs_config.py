"""docs/configuration.md documents every key the judge, leaderboard and gate configs accept, and no other."""

import re

from conftest import ROOT

from judges.config.judge import JUDGE_FIELDS, JudgeConfig, flag_of
from judges.files.toml_config import keys_at
from judges.integrations.gate_schema import GateFile, GateTests, MaxBars, MinBars
from judges.leaderboard.config_types import Candidate, Evaluation, Jury, LeaderboardConfig, Selection


def section(heading: str) -> str:
    text = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    return text.split(heading, 1)[1].split("\n#", 1)[0]


def documented(heading: str) -> set[str]:
    """The first-column keys of the table under a heading of docs/configuration.md."""
    return set(re.findall(r"^\| `([a-z_0-9]+)` \|", section(heading), re.M))


def test_every_config_key_is_documented():
    cases = [
        ("### Top level", LeaderboardConfig),
        ("### `[[evaluations]]`", Evaluation),
        ("### `[selection]`", Selection),
        ("### `[[jury]]`", Jury),
        ("### `[tests]`", GateTests),
        ("### `[min]`", MinBars),
        ("### `[max]`", MaxBars),
    ]
    for heading, kind in cases:
        assert documented(heading) == keys_at(kind, ()), heading
    assert keys_at(GateFile, ()) == {"judge", "tests", "min", "max", "baseline"}
    assert documented("### Top level of the gate config") == {"baseline"}


def test_the_judge_keys_are_documented_once_with_their_flag_and_default():
    rows = {
        row[0]: row
        for row in re.findall(
            r"^\| `([a-z_0-9]+)` \| ([^|]+) \| ([^|]+) \| `([^`]+)` \|", section("## Judge keys"), re.M
        )
    }
    assert list(rows) == list(JUDGE_FIELDS)
    for name, (_, _, default, flag) in rows.items():
        assert flag == flag_of(name), name
        value = JudgeConfig.model_fields[name].get_default(call_default_factory=True)
        if value not in (None, "", {}) and not isinstance(value, bool):
            assert default == f"`{value}`", name
    # the gate's [judge] table and a candidate take exactly these keys
    assert keys_at(GateFile, ("judge",)) == set(JUDGE_FIELDS)
    assert keys_at(Candidate, ()) == documented("### `[[candidates]]`") | set(JUDGE_FIELDS)
