"""The platform spec: pydantic models, a located loader, catalog resolution and semantic checks.

spec = load_spec(Path("platform.yaml"))   # InputError with file:line:col + field path on bad input
"""

from gpuplane.spec.loader import format_path, load_spec, load_spec_with_warnings, parse_spec
from gpuplane.spec.models import (
    Cluster,
    Cohort,
    Costs,
    NodePool,
    PlatformSpec,
    PriorityClass,
    Queueing,
    Quota,
    Sharing,
    Taint,
    Team,
)

__all__ = [
    "Cluster",
    "Cohort",
    "Costs",
    "NodePool",
    "PlatformSpec",
    "PriorityClass",
    "Queueing",
    "Quota",
    "Sharing",
    "Taint",
    "Team",
    "format_path",
    "load_spec",
    "load_spec_with_warnings",
    "parse_spec",
]
