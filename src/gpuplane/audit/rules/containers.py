"""Rules about what one GPU pod asks for: resources, env, host access, images, CUDA version."""

from __future__ import annotations

import re
from collections.abc import Iterator

from gpuplane.audit.bundle import Bundle
from gpuplane.audit.facts import (
    driver_cuda,
    driver_for_cuda,
    minor_version_min_drivers,
    ngc_cuda,
    version_tuple,
)
from gpuplane.audit.images import image_tag
from gpuplane.audit.model import Finding, rule
from gpuplane.audit.nodes import NodeInfo
from gpuplane.audit.objects import as_dict, as_list, as_str, get
from gpuplane.audit.pools import Pool
from gpuplane.audit.readers.gpu_operator_values import GPU_OPERATOR_VALUES
from gpuplane.audit.rules.common import at_workload
from gpuplane.audit.workloads import Container, PodTemplate, is_gpu_resource, quantity


@rule(
    "GPU001",
    "gpu-request-limit-mismatch",
    "GPU in requests without limits, or request and limit differ",
    "high",
    why="""Kubernetes takes GPUs from `limits`. A GPU in `requests` without the same amount in `limits` is
    rejected by the API server or, through templates, leaves a controller unable to create pods; a
    mismatch means the author expected an amount the scheduler will not give.""",
    fix="""Set the GPU amount in `resources.limits` (a request may be omitted; if given it must equal the limit).""",
)
def gpu001(b: Bundle) -> Iterator[Finding]:
    for w in b.workloads:
        for t in w.templates:
            for c in t.containers:
                requests, limits = c.resources("requests"), c.resources("limits")
                for res, value in requests.items():
                    if not is_gpu_resource(str(res)):
                        continue
                    if res not in limits:
                        yield at_workload(
                            "GPU001",
                            b,
                            w,
                            (*c.path, "resources", "requests", res),
                            f"container {c.name!r} requests {res}: {as_str(value)} but sets no limit for it",
                        )
                    elif quantity(limits[res]) != quantity(value):
                        yield at_workload(
                            "GPU001",
                            b,
                            w,
                            (*c.path, "resources", "limits", res),
                            f"container {c.name!r} requests {as_str(value)} {res} but its limit is {as_str(limits[res])}",
                        )


@rule(
    "GPU002",
    "nvidia-device-env",
    "NVIDIA_VISIBLE_DEVICES or another NVIDIA_* device env in a tenant container",
    "high",
    why="""With the NVIDIA runtime honouring the variable, a container that sets `NVIDIA_VISIBLE_DEVICES`
    (or the MIG/IMEX device variables) gets GPUs the device plugin never allocated to it: it can see
    and use every GPU on the node, including other tenants'; `NVIDIA_DRIVER_CAPABILITIES` widens what
    the driver exposes (video, display, all). The values `void`, `none` and empty select nothing and
    are not reported.""",
    fix="""Remove the variable and request GPUs through `resources.limits`. On the nodes, set the toolkit's
    `accept-nvidia-visible-devices-envvar-when-unprivileged = false` and the device plugin's
    `DEVICE_LIST_STRATEGY=volume-mounts` (GPU Operator `toolkit.env` / `devicePlugin.env`).""",
    tags=("gpu", "security", "multi-tenancy"),
    security=True,
)
def gpu002(b: Bundle) -> Iterator[Finding]:
    device, harmless = set(b.config.device_env), {v.lower() for v in b.config.no_device_values}
    for w in b.workloads:
        for t in w.templates:
            for c in t.containers:
                for i, env in c.env():
                    name, value = as_str(env.get("name")), as_str(env.get("value")).strip()
                    # `void`/`none`/empty select nothing (toolkit docs), so they are not reported.
                    if name in device and (value.lower() not in harmless or "valueFrom" in env):
                        why = "" if c.gpus() else " without requesting any GPU"
                        yield at_workload(
                            "GPU002",
                            b,
                            w,
                            (*c.path, "env", i, "name"),
                            f"container {c.name!r} sets {name}={value or '<from reference>'}{why}: it bypasses the device plugin",
                            key=False,
                        )


def _gpu_host_path(b: Bundle, path: str) -> bool:
    clean = path.rstrip("/") or "/"
    for hp in b.config.gpu_host_paths:
        if hp.exact and clean == hp.path:
            return True
        if not hp.exact and clean.startswith(hp.path):
            return True
    return False


@rule(
    "GPU003",
    "gpu-hostpath",
    "hostPath to GPU devices, the device-plugin directory or driver files",
    "high",
    why="""`/dev/nvidia*`, `/dev/dri`, `/var/lib/kubelet/device-plugins`, `/run/nvidia` and the driver
    libraries give a container direct access to every GPU on the node and to the kubelet's device
    plugin registry. Only the GPU Operator and the device plugin need them; generic linters miss them
    because their patterns are anchored (`^/dev$`).""",
    fix="""Request GPUs with `resources.limits` instead of mounting devices. If this really is a GPU system
    component, run it in a system namespace listed under `systemComponents` in the audit config.""",
    tags=("gpu", "security", "multi-tenancy"),
    security=True,
)
def gpu003(b: Bundle) -> Iterator[Finding]:
    for w in b.workloads:
        for t in w.templates:
            for i, vol in enumerate(as_list(t.spec.get("volumes"))):
                path = as_str(get(vol, "hostPath", "path"))
                if path and _gpu_host_path(b, path):
                    yield at_workload(
                        "GPU003",
                        b,
                        w,
                        (*t.path, "volumes", i, "hostPath", "path"),
                        f"volume {as_str(get(vol, 'name'))!r} mounts host path {path}",
                        key=False,
                    )


def _privileged_fields(t: PodTemplate) -> Iterator[tuple[tuple[str | int, ...], str]]:
    for key in ("hostPID", "hostIPC", "hostNetwork"):
        if t.spec.get(key) is True:
            yield ((*t.path, key), f"{key}: true")
    for c in t.containers:
        sc = as_dict(c.data.get("securityContext"))
        if sc.get("privileged") is True:
            yield ((*c.path, "securityContext", "privileged"), f"container {c.name!r} is privileged")
        for j, cap in enumerate(as_list(get(sc, "capabilities", "add"))):
            if as_str(cap).upper() in ("SYS_ADMIN", "CAP_SYS_ADMIN", "ALL"):
                yield (
                    (*c.path, "securityContext", "capabilities", "add", j),
                    f"container {c.name!r} adds capability {as_str(cap)}",
                )


@rule(
    "GPU004",
    "gpu-pod-host-access",
    "privileged, hostPID, hostIPC, hostNetwork or SYS_ADMIN in a GPU pod",
    "high",
    why="""A privileged GPU container sees every GPU device on the node, can reconfigure MIG and the driver,
    and escapes the container easily; host namespaces expose other tenants' processes, CUDA IPC
    shared memory and node networking.""",
    fix="""Drop `privileged`, `SYS_ADMIN` and the host namespaces. For NCCL over RDMA use the network
    operator's resources (e.g. `rdma/...`) and `IPC_LOCK` instead of `hostNetwork`/`privileged`.""",
    tags=("gpu", "security"),
    security=True,
)
def gpu004(b: Bundle) -> Iterator[Finding]:
    for w in b.workloads:
        for t in w.templates:
            if not (t.is_gpu() or _tolerates_gpu(b, t)):
                continue
            for path, what in _privileged_fields(t):
                yield at_workload("GPU004", b, w, path, f"GPU pod template: {what}")


def _tolerates_gpu(b: Bundle, t: PodTemplate) -> bool:
    keys = b.gpu_taint_keys()
    return any(
        isinstance(tol, dict) and as_str(tol.get("key")) in keys for tol in as_list(t.spec.get("tolerations"))
    )


def _limitrange_defaults(b: Bundle, ns: str) -> set[str]:
    """Resources a LimitRange in the namespace gives containers a default limit for."""
    out: set[str] = set()
    for lr in b.in_ns(ns, "LimitRange"):
        for item in as_list(get(lr.data, "spec", "limits")):
            if as_str(get(item, "type")) in ("Container", ""):
                out.update(str(k) for k in as_dict(get(item, "default")))
    return out


@rule(
    "GPU009",
    "gpu-pod-no-cpu-memory-limits",
    "GPU pod without CPU and memory limits",
    "medium",
    why="""GPU nodes are the most expensive nodes in the cluster. A GPU pod without CPU and memory limits
    can starve the data loaders and sidecars of the other GPU pods on the node (idle GPUs), or get
    the node OOM-killing its neighbours' training runs.""",
    fix="""Set `resources.limits.cpu` and `resources.limits.memory` on every container of GPU pods, or give
    the namespace a LimitRange with default limits.""",
)
def gpu009(b: Bundle) -> Iterator[Finding]:
    for w in b.gpu_workloads():
        defaults = _limitrange_defaults(b, w.namespace)
        for t in w.gpu_templates():
            # app containers plus native sidecars (init containers with restartPolicy: Always run all along)
            running = [
                c for c in t.containers if not c.init or as_str(c.data.get("restartPolicy")) == "Always"
            ]
            for c in running:
                limits = c.resources("limits")
                missing = [r for r in ("cpu", "memory") if r not in limits and r not in defaults]
                if missing:
                    path = (
                        (*c.path, "resources", "limits")
                        if limits
                        else (*c.path, "resources")
                        if c.data.get("resources")
                        else (*c.path, "name")
                    )
                    yield at_workload(
                        "GPU009",
                        b,
                        w,
                        path,
                        f"container {c.name!r} of a GPU pod has no {' or '.join(missing)} limit",
                    )


@rule(
    "GPU010",
    "gpu-image-mutable-tag",
    "GPU image by mutable tag (latest or none) instead of a pinned tag or digest",
    "medium",
    why="""A GPU image bundles a CUDA version that must match the node driver. A moving tag silently
    swaps CUDA, framework and NCCL under a running job: the next restart can fail or change results,
    and nobody can say which image produced a model. Only containers that get a GPU are judged:
    sidecars and init containers do not run a GPU image.""",
    fix="""Pin a version tag (`nvcr.io/nvidia/pytorch:24.05-py3`) or, better, a digest (`@sha256:...`).""",
)
def gpu010(b: Bundle) -> Iterator[Finding]:
    mutable = {t.lower() for t in b.config.mutable_tags}
    for w in b.gpu_workloads():
        for t in w.gpu_templates():
            for c in t.containers:
                # Only the containers that get a GPU run a GPU image; sidecars and init steps do not.
                if not c.gpus() or not c.image or "{{" in c.image or "$" in c.image:
                    continue
                _, tag, digest = image_tag(c.image)
                if digest:
                    continue
                if not tag or tag.lower() in mutable:
                    what = f"tag {tag!r}" if tag else "no tag (means latest)"
                    yield at_workload(
                        "GPU010",
                        b,
                        w,
                        (*c.path, "image"),
                        f"container {c.name!r} uses image {c.image} with {what}",
                        key=False,
                    )


_REQUIRE = re.compile(r"cuda>=?\s*(\d+)\.(\d+)")
_TAG_CUDA = re.compile(r"(?:^|[-_.])cuda-?(\d+)\.(\d+)|(?:^|[-_])cu(\d{2})(\d)(?:$|[-_.])")


def container_cuda(c: Container) -> tuple[tuple[int, int], tuple[str | int, ...], str] | None:
    """The CUDA version a container needs, the field that says so, and how it was read."""
    for i, env in c.env():
        name, value = as_str(env.get("name")), as_str(env.get("value"))
        if name == "NVIDIA_REQUIRE_CUDA" and (m := _REQUIRE.search(value)):
            return (
                (int(m.group(1)), int(m.group(2))),
                (*c.path, "env", i, "value"),
                f"NVIDIA_REQUIRE_CUDA {value.split()[0]}",
            )
        if name == "CUDA_VERSION" and (v := version_tuple(value)) and len(v) >= 2:
            return ((v[0], v[1]), (*c.path, "env", i, "value"), f"CUDA_VERSION {value}")
    repo, tag, _ = image_tag(c.image)
    if not tag:
        return None
    ngc = ngc_cuda(repo, tag)  # NGC framework images name a release, not a CUDA version
    if ngc is not None and len(ngc.cuda) >= 2:
        cuda_text = ".".join(map(str, ngc.cuda))
        return (
            (ngc.cuda[0], ngc.cuda[1]),
            (*c.path, "image"),
            f"image {c.image}, CUDA {cuda_text} ({ngc.source})",
        )
    if repo.rsplit("/", 1)[-1] == "cuda" and (v := version_tuple(tag)) and len(v) >= 2:
        return ((v[0], v[1]), (*c.path, "image"), f"image {c.image}")
    m = _TAG_CUDA.search(tag)
    if m:
        major, minor = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
        return ((int(major), int(minor)), (*c.path, "image"), f"image {c.image}")
    return None


def _require_holds(require: str, driver: tuple[int, ...], cuda_of_driver: tuple[int, int] | None) -> bool:
    """Whether NVIDIA_REQUIRE_CUDA admits a driver: space-separated alternatives are ORed, the
    comma-separated constraints of one are ANDed (nvidia-container-toolkit cmd/nvidia-container-runtime
    README @d34b304). `cuda>=` is compared with the driver's CUDA version, `driver>=`/`driver<` with
    the driver; `brand` and `arch` cannot be judged from manifests and are taken as met."""
    for alternative in require.split():
        ok = True
        for constraint in alternative.split(","):
            m = re.match(r"^(cuda|driver)(>=|<=|>|<|=)(\S+)$", constraint.strip())
            if not m:
                continue
            have = cuda_of_driver if m.group(1) == "cuda" else driver
            want = version_tuple(m.group(3))
            if have is None or want is None:
                continue
            width = len(want)
            mine, op = tuple(have[:width]), m.group(2)
            ok = (
                ok
                and {
                    ">=": mine >= want,
                    "<=": mine <= want,
                    ">": mine > want,
                    "<": mine < want,
                    "=": mine == want,
                }[op]
            )
        if ok:
            return True
    return False


def _too_old(
    cuda: tuple[int, int], node_cuda: tuple[int, int] | None, driver: str | None, require: str | None
) -> str | None:
    """Why a node/pool cannot run `cuda`, or None when it can (or we cannot tell).

    NVIDIA's CUDA compatibility: a driver runs CUDA of its own major family through minor-version
    compatibility (12.x on >= 525; `data/cuda_compat.yaml`), so CUDA 12.6 on 535 is no error. An
    explicit NVIDIA_REQUIRE_CUDA in the manifest is checked as the container runtime checks it.
    """
    have = version_tuple(driver or "")
    driver_version = node_cuda or (driver_cuda(have) if have else None)
    if require is not None and have is not None and not _require_holds(require, have, driver_version):
        return f"driver {driver} does not meet NVIDIA_REQUIRE_CUDA={require!r}: the runtime will not start the container"
    if node_cuda is not None and have is None:
        if node_cuda[0] < cuda[0]:
            return f"its driver supports CUDA {node_cuda[0]}.{node_cuda[1]}, an older major version"
        return None
    if have is None or have >= (driver_for_cuda(cuda) or (0,)):
        return None
    floor = minor_version_min_drivers().get(cuda[0])
    if floor is None:
        return None  # a CUDA major NVIDIA's compatibility table does not list: no claim
    if have < floor:
        return (
            f"driver {driver} is older than {'.'.join(map(str, floor))}, the minimum for CUDA {cuda[0]}.x "
            "even with minor-version compatibility (only NVIDIA's forward-compatibility package could run it)"
        )
    return None


def _require(c: Container) -> str | None:
    """The container's NVIDIA_REQUIRE_CUDA value, when the manifest sets one."""
    for _, env in c.env():
        if as_str(env.get("name")) == "NVIDIA_REQUIRE_CUDA":
            return as_str(env.get("value"))
    return None


def _driver_targets(b: Bundle, t: PodTemplate) -> list[tuple[str, tuple[int, int] | None, str | None]]:
    """(name, max CUDA, driver version) of each GPU node or pool the template can land on."""
    out: list[tuple[str, tuple[int, int] | None, str | None]] = []
    nodes: list[NodeInfo] = b.matching_nodes(t)
    out += [(f"node {n.name}", n.cuda, n.driver) for n in nodes if n.cuda or n.driver]
    pools: list[Pool] = b.matching_pools(t)
    out += [(f"pool {p.name}", None, p.driver_version) for p in pools if p.driver_version]
    for cp in b.by_kind.get("ClusterPolicy", []) + b.by_kind.get(GPU_OPERATOR_VALUES, []):
        base: tuple[str, ...] = ("spec",) if cp.kind == "ClusterPolicy" else ()
        version = as_str(get(cp.data, *base, "driver", "version"))
        enabled = get(cp.data, *base, "driver", "enabled")
        if version and enabled is not False:
            out.append((f"GPU Operator driver ({cp.file})", None, version))
    return out


@rule(
    "GPU021",
    "cuda-needs-newer-driver",
    "container CUDA version needs a newer driver than the nodes or pool declare",
    "high",
    why="""A CUDA application needs a driver of its CUDA major family: NVIDIA's minor-version compatibility
    runs CUDA 12.x on any driver >= 525 (13.x >= 580, 11.x >= 450.80.02; `data/cuda_compat.yaml`), with
    stated limits (no JIT of newer PTX, no features that need the newer driver), so CUDA 12.6 on a 535
    driver is not reported. Below that floor only NVIDIA's forward-compatibility package could run it;
    the job fails at its first CUDA call, on a GPU that was paid for. An `NVIDIA_REQUIRE_CUDA` the
    manifest sets is checked as the container runtime checks it (alternatives ORed, constraints ANDed):
    when no alternative holds, the runtime refuses to start the container. NGC framework images
    (`nvcr.io/nvidia/pytorch:24.05-py3`) are mapped to their CUDA version from NVIDIA's release notes
    (`data/ngc_images.csv`).""",
    fix="""Use an image built for a CUDA major the nodes' driver supports, or upgrade the driver (GPU
    Operator `driver.version`, the node image, or the pool's `driverVersion`).""",
)
def gpu021(b: Bundle) -> Iterator[Finding]:
    for w in b.gpu_workloads():
        for t in w.gpu_templates():
            targets = _driver_targets(b, t)
            if not targets:
                continue
            for c in t.containers:
                found = container_cuda(c) if c.gpus() else None  # only GPU containers load the driver
                if found is None:
                    continue
                cuda, path, source = found
                for name, node_cuda, driver in targets:
                    reason = _too_old(cuda, node_cuda, driver, _require(c))
                    if reason:
                        yield at_workload(
                            "GPU021",
                            b,
                            w,
                            path,
                            f"container {c.name!r} needs CUDA {cuda[0]}.{cuda[1]} ({source}) but {name}: {reason}",
                            key=False,
                        )
                        break
