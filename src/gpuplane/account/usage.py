"""The accounted records: one pod's and one pool's GPU time over the window."""

from __future__ import annotations

from dataclasses import dataclass, field

from gpuplane.costs import GpuHours


@dataclass
class PodUsage:
    """GPU time and cost of one pod over the window."""

    namespace: str
    pod: str
    team: str
    pool: str
    accelerator: str
    node: str
    resource: str
    units: float  # requested units of `resource` (GPUs, MIG devices or shared replicas)
    gpus: float  # physical-GPU equivalents requested
    allocated_h: float
    useful_h: float
    idle_h: float
    unmeasured_h: float
    failed_h: float
    activity: float | None  # mean engine activity over the measured time (0..1); None: unmeasured
    activity_source: str  # the DCGM metric that measured it ("" when none did)
    outcome: str
    gpu_hourly: float
    gpus_at_end: float = 0.0  # physical-GPU equivalents it held at the window's last step
    created: float | None = None
    start: float | None = None
    end: float | None = None
    running_at_start: bool = False
    window_start: float = 0.0
    queue: str = ""
    job: str = ""
    image: str = ""

    @property
    def hours(self) -> GpuHours:
        """The pod's GPU-hours split into useful, idle, unmeasured and failed."""
        return GpuHours(
            useful=self.useful_h, idle=self.idle_h, unmeasured=self.unmeasured_h, failed=self.failed_h
        )

    @property
    def queue_wait_s(self) -> float | None:
        """Time from creation to Running inside the window; None for pods already running at its start."""
        if self.start is None or self.running_at_start:
            return None
        since = max(self.created if self.created is not None else self.start, self.window_start)
        return max(self.start - since, 0.0)


@dataclass
class PoolUsage:
    """Capacity, use and health of one node pool over the window."""

    pool: str
    accelerator: str
    gpus_per_node: int
    gpu_hourly: float
    spot: bool
    nodes_seen: int = 0
    nodes_at_end: int = 0
    gpus_at_end: int = 0
    provisioned_h: float = 0.0
    hours: GpuHours = field(default_factory=GpuHours)
    xid_gpus: int = 0
    max_temp_c: float | None = None
    max_fb_used_mib: float | None = None
    energy_kwh: float = 0.0

    @property
    def allocated_h(self) -> float:
        """GPU-hours allocated to pods."""
        return self.hours.allocated

    @property
    def unallocated_h(self) -> float:
        """GPU-hours provisioned but allocated to no pod."""
        return self.hours.unallocated
