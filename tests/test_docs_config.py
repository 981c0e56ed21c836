"""docs/configuration.md documents every key the leaderboard and gate configs accept, and no other."""

import re

from conftest import ROOT

from judges.files.toml_config import keys_at
from judges.leaderboard.config import Candidate, Evaluation, JudgeParams, LeaderboardConfig, Selection
from judges.leaderboard.jury import Jury
from judges.runs.gate_schema import GateFile, GateJudge, GateTests, MaxBars, MinBars


def documented(heading: str) -> set[str]:
    """The first-column keys of the table under a heading of docs/configuration.md."""
    text = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    section = text.split(heading, 1)[1].split("\n#", 1)[0]
    return set(re.findall(r"^\| `([a-z_0-9]+)` \|", section, re.M))


def test_every_config_key_is_documented():
    cases = [
        ("### Top level", LeaderboardConfig),
        ("### `[[candidates]]`", Candidate),
        ("### `params` of a candidate", JudgeParams),
        ("### `[[evaluations]]`", Evaluation),
        ("### `[selection]`", Selection),
        ("### `[[jury]]`", Jury),
        ("### `[judge]`", GateJudge),
        ("### `[tests]`", GateTests),
        ("### `[min]`", MinBars),
        ("### `[max]`", MaxBars),
    ]
    for heading, kind in cases:
        assert documented(heading) == keys_at(kind, ()), heading
    assert keys_at(GateFile, ()) == {"judge", "tests", "min", "max", "baseline"}
    assert documented("### Top level of the gate config") == {"baseline"}
