"""What `acceptance render` was asked for, checked against the platform spec.

`SuiteOptions` is the command line as data; `resolve` ties it to one pool and one team of the
spec (the team whose ClusterQueue will admit the suite) or raises `UsageError` saying why not.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from gpuplane.acceptance.fabric import Fabric, fabric_for
from gpuplane.acceptance.thresholds import Threshold, default_threshold, fabric_of, nccl_threshold
from gpuplane.account.promurl import redact_url
from gpuplane.errors import UsageError
from gpuplane.spec import derived
from gpuplane.spec.models import NodePool, PlatformSpec, Team

__all__ = ["MULTI_NODE_KINDS", "ResolvedSuite", "SuiteOptions", "resolve"]

#: Workload kinds step 1 can use when the suite spans several nodes.
MULTI_NODE_KINDS = ("jobset", "pytorchjob")
SOURCE_SCHEMES = ("http", "https", "s3", "pvc")


@dataclass(frozen=True)
class SuiteOptions:
    """The options of `gpuplane acceptance render`."""

    pool: str
    image: str
    command: tuple[str, ...]
    dataset: str | None = None
    weights: str | None = None
    nodes: int = 1
    team: str | None = None
    resource: str | None = None
    window_s: float = 600.0
    checkpoint_size: str = "100Gi"
    storage_class: str | None = None
    s3_secret: str | None = None
    fabric: str | None = None
    nccl_min_busbw: float | None = None
    nccl_metric: str = "busbw_at_max"
    max_admission_wait_s: float | None = None
    min_copy_mb_per_s: float | None = None
    max_resume_s: float | None = None
    api_price_per_unit: float | None = None
    unit: str = "steps"
    progress_regex: str | None = None
    multi_node_kind: str = "jobset"
    kueue_api: str = "v1beta2"


@dataclass(frozen=True)
class ResolvedSuite:
    """The options bound to the spec: pool, team, resource and thresholds."""

    spec: PlatformSpec
    options: SuiteOptions
    pool: NodePool
    team: Team
    namespace: str
    resource: str
    units_per_node: int
    fabric: str | None
    nccl_max_bytes: str
    thresholds: dict[str, Threshold] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    fabric_needs: Fabric = field(default_factory=lambda: Fabric(None))


def _pool(spec: PlatformSpec, name: str) -> NodePool:
    pool = spec.pool(name)
    gpu_pools = ", ".join(p.name for p in spec.node_pools if p.is_gpu)
    if pool is None:
        raise UsageError(f"the spec has no pool {name!r}; GPU pools: {gpu_pools}", option="--pool")
    if not pool.is_gpu:
        raise UsageError(f"pool {name!r} has no GPUs; GPU pools: {gpu_pools}", option="--pool")
    return pool


def _team(spec: PlatformSpec, pool: NodePool, name: str | None) -> Team:
    holders = [t for t in spec.teams if any(q.pool == pool.name for q in t.quotas)]
    if name is not None:
        team = spec.team(name)
        if team is None or team not in holders:
            who = ", ".join(t.name for t in holders) or "none"
            raise UsageError(
                f"team {name!r} holds no quota on pool {pool.name!r} (teams that do: {who})", option="--team"
            )
        return team
    if not holders:
        raise UsageError(
            f"no team holds quota on pool {pool.name!r}, so no ClusterQueue would admit the suite",
            option="--pool",
        )
    return holders[0]


def _resource(pool: NodePool, wanted: str | None) -> tuple[str, int]:
    """The extended resource the suite's pods request and how many of it one node offers."""
    if derived.is_dra(pool):
        raise UsageError(
            f"pool {pool.name!r} hands out its GPUs through DRA claims; the acceptance suite's pods "
            "request extended resources, so it cannot test this pool yet",
            option="--pool",
        )
    per_node = derived.resources_per_node(pool)
    if wanted is not None:
        if wanted not in per_node:
            raise UsageError(
                f"pool {pool.name!r} offers {', '.join(per_node)}, not {wanted!r}", option="--resource"
            )
        return wanted, per_node[wanted]
    if len(per_node) != 1:
        raise UsageError(
            f"pool {pool.name!r} offers several resources ({', '.join(per_node)}); choose one",
            option="--resource",
        )
    name, count = next(iter(per_node.items()))
    return name, count


#: An image digest as registries write it (OCI image-spec descriptor.md: `sha256:` + 64 lowercase hex).
_DIGEST = re.compile(r"sha256:[0-9a-f]{64}")


def _check_image(image: str) -> None:
    """A pinned digest must be a real one: not malformed, not a placeholder such as 64 zeros."""
    if "@" not in image:
        return
    digest = image.rsplit("@", 1)[1]
    if not _DIGEST.fullmatch(digest):
        raise UsageError(
            f"{image!r}: the digest must be sha256: and 64 lowercase hex digits", option="--image"
        )
    if len(set(digest.removeprefix("sha256:"))) == 1:
        raise UsageError(
            f"{image!r}: {digest[:14]}... is a placeholder, not the digest of an image; "
            "pin the digest the registry reports for the production image",
            option="--image",
        )


def _check_sources(options: SuiteOptions) -> None:
    for option, url in (("--dataset", options.dataset), ("--weights", options.weights)):
        if url is None:
            continue
        parts = urlsplit(url)
        shown = redact_url(url)
        if parts.scheme not in SOURCE_SCHEMES or not parts.netloc:
            raise UsageError(
                f"{shown!r}: expected http(s)://HOST/PATH, s3://BUCKET/KEY or pvc://CLAIM/PATH", option=option
            )
        if "@" in parts.netloc:
            raise UsageError(
                f"{shown!r} carries credentials, which would be written into the suite's manifests and "
                "the pods' specs; give them through --s3-secret (a Secret with AWS_* variables) or a pvc:// source",
                option=option,
            )


def _nccl(
    options: SuiteOptions, pool: NodePool, fabric: str | None
) -> tuple[Threshold | None, str, str | None]:
    from gpuplane.acceptance.thresholds import nccl_config

    max_bytes = str(nccl_config()["default_max_bytes"])
    if options.nccl_min_busbw is not None:
        return (
            Threshold(options.nccl_metric, ">=", options.nccl_min_busbw, "GB/s", "command line"),
            max_bytes,
            None,
        )
    found = nccl_threshold(pool.accelerator or "", fabric)
    if found is None:
        note = (
            f"no NCCL threshold is known for {pool.accelerator} on fabric {fabric or '(unknown)'}: step 3 "
            "will fail until one is given with --nccl-min-busbw and --nccl-metric"
        )
        return None, max_bytes, note
    return found[0], found[1], None


def resolve(spec: PlatformSpec, options: SuiteOptions) -> ResolvedSuite:
    """Bind the options to the spec, or raise `UsageError` naming the option that cannot work."""
    pool = _pool(spec, options.pool)
    team = _team(spec, pool, options.team)
    resource, per_node = _resource(pool, options.resource)
    if not options.command:
        raise UsageError(
            "give the production training command (step 4 runs it for the window)", option="--command"
        )
    if options.nodes < 1 or options.nodes > max(pool.max_nodes, 1):
        raise UsageError(
            f"pool {pool.name!r} has at most {pool.max_nodes} nodes, asked for {options.nodes}",
            option="--nodes",
        )
    if options.nodes > 1 and pool.sharing.mode != "exclusive":
        raise UsageError(
            f"a multi-node suite needs whole GPUs; pool {pool.name!r} shares them ({pool.sharing.mode})",
            option="--nodes",
        )
    if options.window_s <= 0:
        raise UsageError("the training window must be positive", option="--window")
    if options.multi_node_kind not in MULTI_NODE_KINDS:
        raise UsageError(f"expected one of {', '.join(MULTI_NODE_KINDS)}", option="--multi-node-kind")
    _check_sources(options)
    _check_image(options.image)
    fabric = options.fabric or fabric_of(pool.vm_size)
    needs = fabric_for(fabric, pool.vm_size, options.nodes)
    thresholds = {
        "admission": default_threshold("max_admission_wait_s", options.max_admission_wait_s),
        "copy": default_threshold("min_copy_mb_per_s", options.min_copy_mb_per_s),
        "units": default_threshold("min_units"),
        "resume": default_threshold("max_resume_s", options.max_resume_s),
    }
    notes: list[str] = []
    nccl_max = "8G"
    if options.nodes > 1:
        nccl, nccl_max, note = _nccl(options, pool, fabric)
        if nccl is not None:
            thresholds["nccl"] = nccl
        if note:
            notes.append(note)
    if needs.note:
        notes.append(needs.note)
    if needs.devices:
        prefixes = ", ".join(sorted({r.split("/")[0] + "/" for r in needs.devices}))
        notes.append(
            f"the multi-node pods request {', '.join(sorted(needs.devices))}: Kueue admits them only if its "
            f"Configuration lists {prefixes} in resources.excludeResourcePrefixes or the team's ClusterQueue "
            "covers the resource (otherwise: resource ... unavailable in ClusterQueue)"
        )
    if options.dataset is None and options.weights is None:
        notes.append("no --dataset or --weights: step 2 will be reported as skipped, and the run cannot pass")
    return ResolvedSuite(
        spec=spec,
        options=options,
        pool=pool,
        team=team,
        namespace=f"acceptance-{pool.name}",
        resource=resource,
        units_per_node=per_node,
        fabric=fabric,
        nccl_max_bytes=nccl_max,
        thresholds=thresholds,
        notes=tuple(notes),
        fabric_needs=needs,
    )
