"""Reading a live cluster, read-only, with the official `kubernetes` client.

Only GET list calls are made. Kinds whose API is not installed (404) or not readable (403) are
skipped with a note; an unreachable cluster is an InputError (exit code 2).
"""

from __future__ import annotations

import json
from typing import Any

from gpuplane.audit.objects import K8sObject, as_str
from gpuplane.audit.readers import Inputs
from gpuplane.errors import InputError
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


def _client(kubeconfig: str, context: str | None) -> Any:
    from kubernetes import client, config

    cfg = client.Configuration()
    try:
        config.load_kube_config(  # type: ignore[no-untyped-call]
            config_file=kubeconfig, context=context, client_configuration=cfg, persist_config=False
        )
    except (config.ConfigException, OSError, ValueError, TypeError) as exc:
        raise InputError.single(kubeconfig, f"cannot use the kubeconfig: {exc}") from None
    cfg.retries = 1
    return client.ApiClient(cfg)


def _get(api: Any, path: str) -> tuple[int, Any]:
    """GET one list path: (HTTP status, decoded JSON or None)."""
    from kubernetes.client.exceptions import ApiException

    method, url, headers, _body, _post = api.param_serialize(
        "GET",
        path,
        header_params={"Accept": "application/json"},
        auth_settings=["BearerToken"],
    )
    try:
        resp = api.call_api(method, url, header_params=headers, _request_timeout=30)
        resp.read()
    except ApiException as exc:
        return (int(exc.status or 0), None)
    status = int(resp.status)
    if status != 200:
        return (status, None)
    return (status, json.loads(resp.data))


def read_cluster(kubeconfig: str, context: str | None = None, notes: list[str] | None = None) -> Inputs:
    """List the audit's kinds from a cluster. `notes` collects kinds that were skipped."""
    import urllib3

    api = _client(kubeconfig, context)
    label = f"cluster:{context or 'current-context'}"
    out = Inputs(live=True)
    paths = list(LIST_PATHS) + [f"/api/v1/namespaces/{ns}/configmaps" for ns in CONFIGMAP_NAMESPACES]
    try:
        for path in paths:
            status, data = _get(api, path)
            if data is None:
                if status not in (404,) and notes is not None:
                    notes.append(f"{path}: HTTP {status}, skipped")
                continue
            kind = as_str(data.get("kind")).removesuffix("List")
            for item in data.get("items") or []:
                if isinstance(item, dict):
                    item.setdefault("kind", kind)
                    item.setdefault("apiVersion", as_str(data.get("apiVersion")))
                    out.objects.append(K8sObject(item, label, None, live=True))
    except urllib3.exceptions.HTTPError as exc:
        raise InputError.single(kubeconfig, f"cannot reach the cluster: {exc}") from None
    finally:
        api.close()
    return out
