"""GPU013: NVIDIA Container Toolkit or GPU Operator versions with known container-escape CVEs.

Where a version is declared: the toolkit in a ClusterPolicy or the chart's values (`toolkit.version`)
and in toolkit images; the operator in the chart's values (`operator.version`, NVIDIA/gpu-operator
deployments/gpu-operator/values.yaml: "If version is not specified, then default is to use
chart.AppVersion"), the chart label of a ClusterPolicy the chart made, its images, and the chart
version a GitOps object installs (`helm install --version v24.3.0` as a Flux `HelmRelease`
`spec.chart.spec.version` or an Argo CD `Application` `spec.source(s).targetRevision` of the
`gpu-operator` chart).
"""

from __future__ import annotations

from collections.abc import Iterator

from gpuplane.audit.bundle import Bundle
from gpuplane.audit.facts import affected, version_tuple
from gpuplane.audit.images import image_tag
from gpuplane.audit.model import Finding, rule
from gpuplane.audit.objects import K8sObject, Path, as_list, as_str, get
from gpuplane.audit.readers.gpu_operator_values import GPU_OPERATOR_VALUES
from gpuplane.audit.rules.common import at
from gpuplane.vocab import APP_NAME_LABEL, APP_VERSION_LABEL, HELM_CHART_LABEL

COMPONENT_IMAGES = {"container-toolkit": "container-toolkit", "gpu-operator": "gpu-operator"}
OPERATOR_CHART = "gpu-operator"
FLUX_HELM_GROUP = "helm.toolkit.fluxcd.io"
ARGO_GROUP = "argoproj.io"


def _chart_versions(b: Bundle) -> list[tuple[str, str, K8sObject, Path]]:
    """The gpu-operator chart version a Flux HelmRelease or an Argo CD Application installs."""
    out: list[tuple[str, str, K8sObject, Path]] = []
    for obj in b.by_kind.get("HelmRelease", []):
        chart: Path = ("spec", "chart", "spec")
        if obj.group == FLUX_HELM_GROUP and as_str(get(obj.data, *chart, "chart")) == OPERATOR_CHART:
            version = as_str(get(obj.data, *chart, "version"))
            if version:
                out.append(("gpu-operator", version, obj, (*chart, "version")))
    for obj in b.by_kind.get("Application", []):
        if obj.group != ARGO_GROUP:
            continue
        sources: list[Path] = [("spec", "source")]
        sources += [("spec", "sources", i) for i, _ in enumerate(as_list(get(obj.data, "spec", "sources")))]
        for path in sources:
            if as_str(get(obj.data, *path, "chart")) == OPERATOR_CHART:
                version = as_str(get(obj.data, *path, "targetRevision"))
                if version:
                    out.append(("gpu-operator", version, obj, (*path, "targetRevision")))
    return out


def _sources(b: Bundle) -> list[tuple[str, str, K8sObject, Path]]:
    """(component, version text, object, field) for every version the input declares."""
    out: list[tuple[str, str, K8sObject, Path]] = []
    for cp in b.by_kind.get("ClusterPolicy", []) + b.by_kind.get(GPU_OPERATOR_VALUES, []):
        base: Path = ("spec",) if cp.kind == "ClusterPolicy" else ()
        version = as_str(get(cp.data, *base, "toolkit", "version"))
        if version and get(cp.data, *base, "toolkit", "enabled") is not False:
            out.append(("container-toolkit", version, cp, (*base, "toolkit", "version")))
        operator_version = as_str(get(cp.data, "operator", "version"))
        if cp.kind == GPU_OPERATOR_VALUES and operator_version:
            out.append(("gpu-operator", operator_version, cp, ("operator", "version")))
        labels = cp.labels
        chart = labels.get(HELM_CHART_LABEL, "")
        if chart.startswith("gpu-operator-"):
            out.append(
                (
                    "gpu-operator",
                    chart.removeprefix("gpu-operator-"),
                    cp,
                    ("metadata", "labels", HELM_CHART_LABEL),
                )
            )
        elif labels.get(APP_VERSION_LABEL) and "gpu-operator" in labels.get(APP_NAME_LABEL, "gpu-operator"):
            out.append(
                (
                    "gpu-operator",
                    labels[APP_VERSION_LABEL],
                    cp,
                    ("metadata", "labels", APP_VERSION_LABEL),
                )
            )
    for w in b.workloads:
        for t in w.templates:
            for c in t.containers:
                repo, tag, _ = image_tag(c.image)
                component = COMPONENT_IMAGES.get(repo.rsplit("/", 1)[-1])
                if component and tag:
                    out.append((component, tag, w.obj, (*c.path, "image")))
    return out + _chart_versions(b)


@rule(
    "GPU013",
    "gpu-stack-known-cve",
    "NVIDIA Container Toolkit or GPU Operator version with a known container-escape CVE",
    "critical",
    why="""The NVIDIA Container Toolkit runs as root on every GPU node when containers start. Versions with
    known CVEs (e.g. CVE-2024-0132, CVE-2025-23266 'NVIDIAScape') let a crafted image escape to the
    host: any tenant who can run an image owns the node and its GPUs.""",
    fix="""Upgrade the toolkit (GPU Operator `toolkit.version`) or the GPU Operator to a release at or above
    the fixed versions in `gpuplane/audit/data/cves.yaml` (taken from NVIDIA's security bulletins).""",
    tags=("gpu", "security", "cve"),
    system=True,
    security=True,
)
def gpu013(b: Bundle) -> Iterator[Finding]:
    sources = _sources(b)
    toolkit_known = any(c == "container-toolkit" for c, _, _, _ in sources)
    for component, text, obj, path in sources:
        if component == "gpu-operator" and toolkit_known:
            continue  # the toolkit version actually deployed decides
        version = version_tuple(text)
        if version is None:
            continue
        cves = affected(component, version)
        if cves:
            ids = ", ".join(c.id for c in cves)
            fixed = max(c.fixed[component] for c in cves)
            yield at(
                "GPU013",
                b,
                obj,
                path,
                f"{component} {text} is affected by {ids}; upgrade to {'.'.join(map(str, fixed))} or later",
                key=False,
            )
