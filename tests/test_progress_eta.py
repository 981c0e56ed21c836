"""The progress line's time left: no estimate from the first item alone (it carries the start), then the pace of the
items finished since; with items in flight together, none until more than a round of them has finished."""

import io
from types import SimpleNamespace

from judges.runs.progress import Progress


def estimates(finished_at: list[float], total: int, in_flight: int = 1) -> list[str]:
    """The ETA shown right after each item finishes, items finishing at the given clock times."""
    now = [0.0]
    usage = SimpleNamespace(calls=0, cached_calls=0, failed_calls=0, cost=0.0)  # a stand-in for the runtime's counter
    progress = Progress(
        "unit tests",
        "test",
        total,
        lambda: usage,
        stream=io.StringIO(),
        clock=lambda: now[0],
        in_flight=in_flight,
        tty=False,
    )
    shown = []
    for moment in finished_at:
        now[0] = moment
        progress.item_done()
        shown.append(progress.eta())
    return shown


def test_a_slow_start_is_not_spread_over_the_items_left():
    # the main job's shape: the local server starts and loads (80 s on a busy machine), then a test every 3 s
    finished_at = [80.0 + 3 * i for i in range(32)]
    shown = estimates(finished_at, 32)
    assert shown[:2] == ["ETA ?", "ETA ?"]  # the old estimate after one item: 80 s x 31 = 41 minutes
    assert shown[2] == "ETA 01:27"  # 29 tests left at 3 s: exactly the time left
    assert shown[10] == "ETA 01:03"
    for done, text in enumerate(shown[2:-1], start=3):
        assert text == f"ETA {(32 - done) * 3 // 60:02d}:{(32 - done) * 3 % 60:02d}"


def test_items_finishing_together_make_no_pace_until_a_round_has_passed():
    # four in flight, each taking 10 s: rounds of four finishing together (a few ms apart) every 10 s
    finished_at = [10.0 * (1 + i // 4) + 0.001 * (i % 4) for i in range(20)]
    shown = estimates(finished_at, 20, in_flight=4)
    assert shown[:4] == ["ETA ?"] * 4  # the first round alone: 3 items in 3 ms would say 0 s left
    assert shown[4] == "ETA 00:38"  # 10 s for 4 items since the first: 15 left at 2.5 s (the truth: 30 s)
    assert shown[8] == "ETA 00:28"  # 20 s for 8 since the first: 11 left at 2.5 s (the truth: 20 s)
