"""Kubernetes objects that run `gpuplane exporter` in the cluster (render writes and validates them).

The exporter listens on 127.0.0.1 unless told otherwise; in a pod it must answer Prometheus and
the kubelet's probes on the pod's address, so the Deployment passes `--address 0.0.0.0`.
Least privilege: the exporter talks only to Prometheus over HTTP and reads the spec from a
mounted ConfigMap, so its ServiceAccount token is not mounted; the one Role lets that account
read nothing but its own spec ConfigMap. The container runs as non-root with a read-only root
filesystem, no capabilities and the runtime's default seccomp profile.
"""

from __future__ import annotations

from typing import Any

import yaml

from gpuplane import __version__
from gpuplane.spec import PlatformSpec
from gpuplane.vocab import APP_COMPONENT_LABEL, APP_NAME_LABEL, LABEL_MANAGED_BY, MANAGED_BY

NAME = "gpuplane-exporter"
PORT = 9480
LISTEN_ADDRESS = "0.0.0.0"  # the pod's every address: Prometheus and the probes come from outside
SPEC_PATH = "/etc/gpuplane/platform.yaml"
DEFAULT_IMAGE = f"ghcr.io/gpuplane/gpuplane:{__version__}"
CONFIG_NAME = f"{NAME}-spec"
SELECTOR = {APP_NAME_LABEL: NAME}


def _meta(name: str, namespace: str, **extra: Any) -> dict[str, Any]:
    labels = {APP_NAME_LABEL: NAME, APP_COMPONENT_LABEL: "exporter", LABEL_MANAGED_BY: MANAGED_BY}
    return {"name": name, "namespace": namespace, "labels": labels, **extra}


def _spec_text(spec: PlatformSpec) -> str:
    data = spec.model_dump(mode="json", by_alias=True, exclude_none=True)
    return yaml.safe_dump(data, sort_keys=False)


def _container(prometheus_url: str, image: str, interval: str, window: str) -> dict[str, Any]:
    probe = {"httpGet": {"path": "/healthz", "port": "metrics"}, "periodSeconds": 30, "failureThreshold": 3}
    return {
        "name": "exporter",
        "image": image,
        "imagePullPolicy": "IfNotPresent",
        "args": [
            "exporter",
            "--prometheus",
            prometheus_url,
            "--spec",
            SPEC_PATH,
            "--address",
            LISTEN_ADDRESS,
            "--port",
            str(PORT),
            "--interval",
            interval,
            "--window",
            window,
        ],
        "ports": [{"name": "metrics", "containerPort": PORT, "protocol": "TCP"}],
        "readinessProbe": probe,
        "livenessProbe": {
            "httpGet": {"path": "/metrics", "port": "metrics"},
            "periodSeconds": 60,
            "timeoutSeconds": 10,
        },
        "resources": {
            "requests": {"cpu": "100m", "memory": "256Mi"},
            "limits": {"cpu": "1", "memory": "1Gi"},
        },
        "securityContext": {
            "allowPrivilegeEscalation": False,
            "readOnlyRootFilesystem": True,
            "runAsNonRoot": True,
            "runAsUser": 65532,
            "runAsGroup": 65532,
            "capabilities": {"drop": ["ALL"]},
            "seccompProfile": {"type": "RuntimeDefault"},
        },
        "volumeMounts": [
            {"name": "spec", "mountPath": "/etc/gpuplane", "readOnly": True},
            {"name": "tmp", "mountPath": "/tmp"},
        ],
    }


def exporter_manifests(
    spec: PlatformSpec,
    *,
    prometheus_url: str | None = None,
    image: str = DEFAULT_IMAGE,
    interval: str = "60s",
    window: str = "1h",
    service_monitor_labels: dict[str, str] | None = None,
) -> list[dict[str, Any]]:
    """ServiceAccount, Role, RoleBinding, ConfigMap (the spec), Deployment, Service and ServiceMonitor.

    `prometheus_url` defaults to kube-prometheus-stack's `prometheus-operated` Service in the
    spec's monitoring namespace.
    """
    ns = spec.monitoring.namespace
    url = prometheus_url or f"http://prometheus-operated.{ns}.svc:9090"
    return [
        *_rbac(ns),
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": _meta(CONFIG_NAME, ns),
            "data": {"platform.yaml": _spec_text(spec)},
        },
        _deployment(ns, _container(url, image, interval, window)),
        {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": _meta(NAME, ns),
            "spec": {
                "selector": SELECTOR,
                "ports": [{"name": "metrics", "port": PORT, "targetPort": "metrics", "protocol": "TCP"}],
            },
        },
        _service_monitor(ns, interval, service_monitor_labels or {}),
    ]


def _rbac(ns: str) -> list[dict[str, Any]]:
    """A ServiceAccount without a token, and a Role that can read only the exporter's spec ConfigMap."""
    rule = {"apiGroups": [""], "resources": ["configmaps"], "resourceNames": [CONFIG_NAME], "verbs": ["get"]}
    return [
        {
            "apiVersion": "v1",
            "kind": "ServiceAccount",
            "metadata": _meta(NAME, ns),
            "automountServiceAccountToken": False,
        },
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "Role",
            "metadata": _meta(NAME, ns),
            "rules": [rule],
        },
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "RoleBinding",
            "metadata": _meta(NAME, ns),
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": NAME},
            "subjects": [{"kind": "ServiceAccount", "name": NAME, "namespace": ns}],
        },
    ]


def _deployment(ns: str, container: dict[str, Any]) -> dict[str, Any]:
    pod = {
        "serviceAccountName": NAME,
        "automountServiceAccountToken": False,
        "securityContext": {"runAsNonRoot": True, "seccompProfile": {"type": "RuntimeDefault"}},
        "containers": [container],
        "volumes": [{"name": "spec", "configMap": {"name": CONFIG_NAME}}, {"name": "tmp", "emptyDir": {}}],
    }
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": _meta(NAME, ns),
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": SELECTOR},
            "template": {"metadata": {"labels": {**SELECTOR, LABEL_MANAGED_BY: MANAGED_BY}}, "spec": pod},
        },
    }


def _service_monitor(ns: str, interval: str, labels: dict[str, str]) -> dict[str, Any]:
    meta = _meta(NAME, ns)
    return {
        "apiVersion": "monitoring.coreos.com/v1",
        "kind": "ServiceMonitor",
        "metadata": {**meta, "labels": {**meta["labels"], **labels}},
        "spec": {
            "selector": {"matchLabels": SELECTOR},
            "namespaceSelector": {"matchNames": [ns]},
            "endpoints": [
                {"port": "metrics", "interval": interval, "scrapeTimeout": "10s", "honorLabels": True}
            ],
        },
    }
