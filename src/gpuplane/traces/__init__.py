"""Workloads for the simulator: one record type, streaming readers for public GPU traces and the
gpuplane CSV, a team mapping, and a seeded synthetic generator."""

from gpuplane.traces.csvformat import COLUMNS, parse_pod_sets, write_csv_stream, write_workloads_csv
from gpuplane.traces.formats import (
    TraceFormat,
    detect_format,
    format_names,
    register_format,
    trace_formats,
)
from gpuplane.traces.generator import DEFAULT_TEAMS, builtin_week, generate
from gpuplane.traces.load import FORMATS, WorkloadSet, WorkloadStream, load_workload, read_workloads
from gpuplane.traces.model import (
    FINAL_STATUSES,
    WORKLOAD_CLASSES,
    Checkpoint,
    FinalStatus,
    PodSet,
    Workload,
    WorkloadClass,
    check_workload,
    timed_work,
    with_checkpoint,
)
from gpuplane.traces.params import GeneratorParams, default_params, params_from_dict
from gpuplane.traces.teams import (
    TeamMap,
    default_team,
    iter_map_teams,
    load_team_map,
    map_teams,
    parse_team_map,
)

__all__ = [
    "COLUMNS",
    "DEFAULT_TEAMS",
    "FINAL_STATUSES",
    "FORMATS",
    "WORKLOAD_CLASSES",
    "Checkpoint",
    "FinalStatus",
    "GeneratorParams",
    "PodSet",
    "TeamMap",
    "TraceFormat",
    "Workload",
    "WorkloadClass",
    "WorkloadSet",
    "WorkloadStream",
    "builtin_week",
    "check_workload",
    "default_params",
    "default_team",
    "detect_format",
    "format_names",
    "generate",
    "iter_map_teams",
    "load_team_map",
    "load_workload",
    "map_teams",
    "params_from_dict",
    "parse_pod_sets",
    "parse_team_map",
    "read_workloads",
    "register_format",
    "timed_work",
    "trace_formats",
    "with_checkpoint",
    "write_csv_stream",
    "write_workloads_csv",
]
