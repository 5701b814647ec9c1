"""Which spec team runs each trace workload: a `--team-map` YAML file or a deterministic default.

Team-map file::

    default: team-c          # optional: for queues/users the map does not name
    map:
      6214e9: team-a         # a trace queue / virtual cluster / QoS ...
      user-12: team-b        # ... or a user (the queue is looked up first)

Keys and values are read as written (`0123` stays "0123", not the number 83). The team of a
workload is, in this order: the map's entry for its queue, the map's entry for its user, its
`team` as given when that already is a team of the spec (a gpuplane CSV's `team` column), the
map's `default`, else `sorted(teams)[crc32(queue) % len(teams)]`: stable across runs and machines
(Python's `hash` is salted per process, so it is not used).
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import yaml

from gpuplane.errors import InputError, Problem
from gpuplane.inputs import display_name, read_text
from gpuplane.traces.model import Workload
from gpuplane.yamlio import composer_loader, parse_error

Pos = tuple[int, int]


@dataclass(frozen=True)
class TeamMap:
    """Trace queue/user -> spec team, an optional default, and where each entry was written."""

    mapping: dict[str, str]
    default: str | None = None
    file: str = "<team map>"
    positions: dict[str, Pos] = field(default_factory=dict)  # key -> position of its value

    def check(self, teams: Sequence[str]) -> None:
        """Raise InputError naming every entry whose team is not one of the spec's teams."""
        known = set(teams)
        problems = []
        entries = [("default", self.default)] if self.default is not None else []
        for key, team in [*entries, *self.mapping.items()]:
            if team not in known:
                line, column = self.positions.get(key, (None, None))
                problems.append(
                    Problem(
                        self.file,
                        line,
                        column,
                        "default" if key == "default" else f"map.{key}",
                        f"team {team!r} is not a team of the platform spec ({', '.join(sorted(known))})",
                    )
                )
        if problems:
            raise InputError(problems)


def _scalar(node: yaml.Node, file: str, what: str) -> str:
    if not isinstance(node, yaml.ScalarNode) or not str(node.value).strip():
        raise InputError.single(
            file,
            f"{what} must be a non-empty name",
            line=node.start_mark.line + 1,
            column=node.start_mark.column + 1,
        )
    return str(node.value).strip()


def parse_team_map(text: str, file: str) -> TeamMap:
    """Parse team-map YAML text (see the module docstring); errors carry line and column."""
    try:
        root = yaml.compose(text, Loader=composer_loader())
    except yaml.YAMLError as exc:
        raise parse_error(file, exc) from exc
    if not isinstance(root, yaml.MappingNode):
        raise InputError.single(file, "a team map is a mapping with `map:` and optionally `default:`", line=1)
    mapping: dict[str, str] = {}
    positions: dict[str, Pos] = {}
    default: str | None = None
    seen: set[str] = set()
    for key_node, value_node in root.value:
        key = _scalar(key_node, file, "a key")
        if key in seen:
            raise InputError.single(
                file,
                f"duplicate key {key!r}",
                line=key_node.start_mark.line + 1,
                column=key_node.start_mark.column + 1,
            )
        seen.add(key)
        pos = (value_node.start_mark.line + 1, value_node.start_mark.column + 1)
        if key == "default":
            default, positions["default"] = _scalar(value_node, file, "default"), pos
        elif key == "map" and isinstance(value_node, yaml.MappingNode):
            for k_node, v_node in value_node.value:
                k = _scalar(k_node, file, "a queue or user")
                if k in mapping:
                    raise InputError.single(
                        file,
                        f"{k!r} is mapped twice",
                        line=k_node.start_mark.line + 1,
                        column=k_node.start_mark.column + 1,
                        path=f"map.{k}",
                    )
                mapping[k] = _scalar(v_node, file, f"the team of {k!r}")
                positions[k] = (v_node.start_mark.line + 1, v_node.start_mark.column + 1)
        else:
            raise InputError.single(
                file,
                f"unexpected {key!r}: a team map has `map:` (a mapping) and `default:`",
                line=key_node.start_mark.line + 1,
                column=key_node.start_mark.column + 1,
                path=key,
            )
    return TeamMap(mapping, default, file, positions)


def load_team_map(path: Path | str) -> TeamMap:
    """Read a `--team-map` file."""
    return parse_team_map(read_text(path), display_name(path))


def default_team(queue: str, teams: Sequence[str]) -> str:
    """The deterministic default: sorted(teams)[crc32(queue) % len(teams)]."""
    ordered = sorted(teams)
    return ordered[zlib.crc32(queue.encode("utf-8")) % len(ordered)]


def _as_map(mapping: TeamMap | Mapping[str, str] | None) -> TeamMap:
    if mapping is None:
        return TeamMap({})
    if isinstance(mapping, TeamMap):
        return mapping
    return TeamMap(dict(mapping))


def iter_map_teams(
    workloads: Iterable[Workload], teams: Sequence[str], mapping: TeamMap | Mapping[str, str] | None = None
) -> Iterator[Workload]:
    """Stream the workloads with `team` set to a spec team (queue, user, team as given, default, hash).

    The map is checked against `teams` at once, before the first workload is read.
    """
    if not teams:
        raise ValueError("map_teams needs at least one team")
    tmap = _as_map(mapping)
    tmap.check(teams)
    return _mapped(workloads, teams, tmap)


def _mapped(workloads: Iterable[Workload], teams: Sequence[str], tmap: TeamMap) -> Iterator[Workload]:
    known = set(teams)
    cache: dict[tuple[str, str | None, str], str] = {}
    for w in workloads:
        key = (w.queue, w.user, w.team)
        team = cache.get(key)
        if team is None:
            team = (
                tmap.mapping.get(w.queue)
                or (tmap.mapping.get(w.user) if w.user else None)
                or (w.team if w.team in known else None)
                or tmap.default
                or default_team(w.queue, teams)
            )
            cache[key] = team
        yield w if w.team == team else replace(w, team=team)


def map_teams(
    workloads: Iterable[Workload], teams: Sequence[str], mapping: TeamMap | Mapping[str, str] | None = None
) -> list[Workload]:
    """The workloads with spec teams (see `iter_map_teams`); a map naming an unknown team is an error."""
    return list(iter_map_teams(workloads, teams, mapping))
