"""Team mapping: the team-map file, its errors, and the deterministic default."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter

import pytest

from gpuplane.errors import InputError
from gpuplane.traces import PodSet, Workload, default_team, map_teams, parse_team_map


def _w(queue: str, user: str | None = None) -> Workload:
    return Workload(
        f"{queue}-{user}", queue, queue, "batch", 0.0, (PodSet("p", 1, 0.0),), run_time=1.0, user=user
    )


def test_queue_then_user_then_default() -> None:
    tmap = parse_team_map("default: c\nmap:\n  vc1: a\n  '7': b\n", "m.yaml")
    got = map_teams([_w("vc1", "7"), _w("vc2", "7"), _w("vc3", "8")], ["a", "b", "c"], tmap)
    assert [w.team for w in got] == ["a", "b", "c"]
    assert [w.queue for w in got] == ["vc1", "vc2", "vc3"]  # the trace queue is kept


def test_keys_are_read_as_written_not_as_numbers() -> None:
    tmap = parse_team_map("map:\n  0123: a\n  6214e9: b\n  1_000: a\n", "m.yaml")
    assert tmap.mapping == {"0123": "a", "6214e9": "b", "1_000": "a"}


def test_unknown_team_is_reported_at_its_line_and_column() -> None:
    tmap = parse_team_map("default: a\nmap:\n  vc1: a\n  vc2: nobody\n", "m.yaml")
    with pytest.raises(InputError) as info:
        map_teams([_w("vc1")], ["a", "b"], tmap)
    [problem] = info.value.problems
    assert (problem.file, problem.line, problem.column, problem.path) == ("m.yaml", 4, 8, "map.vc2")


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("colour: red\n", 1),
        ("map:\n  vc1: a\n  vc1: b\n", 3),
        ("map:\n  vc1: [a, b]\n", 2),
        ("map: {vc1: a\n", 2),
        ("- a\n", 1),
    ],
)
def test_malformed_team_map_is_a_located_error(text: str, line: int) -> None:
    with pytest.raises(InputError) as info:
        parse_team_map(text, "m.yaml")
    assert info.value.problems[0].line == line


def test_default_team_is_stable_and_ignores_team_order() -> None:
    teams = ["c", "a", "b"]
    picks = [default_team(f"vc{i}", teams) for i in range(300)]
    assert picks == [default_team(f"vc{i}", sorted(teams)) for i in range(300)]
    counts = Counter(picks)
    assert set(counts) == {"a", "b", "c"} and min(counts.values()) > 60


def test_default_team_does_not_depend_on_the_hash_salt() -> None:
    code = "from gpuplane.traces import default_team; print([default_team(f'q{i}', ['x','y','z']) for i in range(50)])"
    runs = {
        subprocess.run(
            [sys.executable, "-c", code],
            check=True,
            capture_output=True,
            text=True,
            env={"PYTHONHASHSEED": salt},
        ).stdout
        for salt in ("0", "1", "2")
    }
    assert len(runs) == 1


def test_records_already_on_the_right_team_are_not_copied() -> None:
    w = _w("a")
    [same] = map_teams([w], ["a"], {"a": "a"})
    assert same is w


def test_a_team_of_the_spec_given_in_the_trace_is_kept() -> None:
    # crc32("vision") % 3 picks "serving" among the sorted teams: the default must not apply to a
    # workload whose team already is a spec team (a gpuplane CSV's `team` column).
    teams = ["research", "serving", "vision"]
    assert default_team("vision", teams) == "serving"
    written = Workload("j", "vision", "vision", "batch", 0.0, (PodSet("p", 1, 1.0),), run_time=1.0)
    [kept] = map_teams([written], teams)
    assert kept.team == "vision"


def test_a_team_map_entry_still_wins_over_the_team_as_written() -> None:
    tmap = parse_team_map("map:\n  vision: research\n", "m.yaml")
    [mapped] = map_teams([_w("vision")], ["research", "serving", "vision"], tmap)
    assert mapped.team == "research"
