"""Reading a live cluster, read-only, with the official `kubernetes` client.

Only GET list calls are made, through `gpuplane.kube`'s client (timeouts, one error map). Kinds
whose API is not installed (404) or not readable (403) are skipped with a note; an unreachable
cluster, 401, a server error or no readable list at all is an UpstreamError (exit code 3).
"""

from __future__ import annotations

from gpuplane.audit.objects import K8sObject, as_str
from gpuplane.audit.readers import Inputs
from gpuplane.errors import UpstreamError
from gpuplane.kube.client import connect
from gpuplane.vocab import KUEUE_GROUP, NVIDIA_PREFIX

# (API path, what it lists). Core and built-in groups first, then the GPU-world CRDs.
LIST_PATHS: tuple[str, ...] = (
    "/api/v1/nodes",
    "/api/v1/namespaces",
    "/api/v1/pods",
    "/api/v1/resourcequotas",
    "/api/v1/limitranges",
    "/apis/apps/v1/deployments",
    "/apis/apps/v1/statefulsets",
    "/apis/apps/v1/daemonsets",
    "/apis/batch/v1/jobs",
    "/apis/batch/v1/cronjobs",
    "/apis/networking.k8s.io/v1/networkpolicies",
    "/apis/rbac.authorization.k8s.io/v1/roles",
    "/apis/rbac.authorization.k8s.io/v1/clusterroles",
    "/apis/rbac.authorization.k8s.io/v1/rolebindings",
    "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
    "/apis/scheduling.k8s.io/v1/priorityclasses",
    f"/apis/{NVIDIA_PREFIX}v1/clusterpolicies",
    f"/apis/{KUEUE_GROUP}/v1beta1/localqueues",
    "/apis/jobset.x-k8s.io/v1alpha2/jobsets",
    "/apis/kubeflow.org/v1/pytorchjobs",
    "/apis/trainer.kubeflow.org/v1alpha1/trainjobs",
    "/apis/ray.io/v1/rayjobs",
    "/apis/ray.io/v1/rayclusters",
    "/apis/serving.kserve.io/v1beta1/inferenceservices",
    "/apis/leaderworkerset.x-k8s.io/v1/leaderworkersets",
)
CONFIGMAP_NAMESPACES = ("gpu-operator", "nvidia-gpu-operator", "nvidia-device-plugin", "kube-system")


def read_cluster(
    kubeconfig: str, context: str | None = None, notes: list[str] | None = None, timeout: float | None = None
) -> Inputs:
    """List the audit's kinds from a cluster. `notes` collects kinds that were skipped.

    A kind the cluster does not serve (404) is skipped silently and one it refuses (403) with a
    note; 401 or a server error (5xx) on any list, or no list answered at all, is an UpstreamError
    (exit 3): an audit that could not read the cluster must not say "no findings".
    """
    api = connect(kubeconfig, context, timeout)
    label = f"cluster:{context or 'current-context'}"
    out = Inputs(live=True)
    paths = list(LIST_PATHS) + [f"/api/v1/namespaces/{ns}/configmaps" for ns in CONFIGMAP_NAMESPACES]
    refused: list[tuple[str, int]] = []
    answered = 0
    try:
        for path in paths:
            status, data = api.get(path)
            if data is None:
                if status == 401 or status >= 500:
                    raise UpstreamError(api.service, f"GET {path}: HTTP {status}")
                if status != 404:
                    refused.append((path, status))
                    if notes is not None:
                        notes.append(f"{path}: HTTP {status}, skipped")
                continue
            answered += 1
            kind = as_str(data.get("kind")).removesuffix("List")
            for item in data.get("items") or []:
                if isinstance(item, dict):
                    item.setdefault("kind", kind)
                    item.setdefault("apiVersion", as_str(data.get("apiVersion")))
                    out.objects.append(K8sObject(item, label, None, live=True))
    finally:
        api.close()
    if not answered:
        first = f"GET {refused[0][0]}: HTTP {refused[0][1]}" if refused else "no list is served"
        raise UpstreamError(
            api.service, f"could not read the cluster ({first}; {len(refused)} lists refused)"
        )
    return out
