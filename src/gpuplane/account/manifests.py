"""Kubernetes objects that run `gpuplane exporter` in the cluster (render writes and validates them).

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
from gpuplane.spec.derived import LABEL_MANAGED_BY, MANAGED_BY

NAME = "gpuplane-exporter"
PORT = 9480
SPEC_PATH = "/etc/gpuplane/platform.yaml"
DEFAULT_IMAGE = f"ghcr.io/gpuplane/gpuplane:{__version__}"


def _meta(name: str, namespace: str, **extra: Any) -> dict[str, Any]:
    labels = {
        "app.kubernetes.io/name": NAME,
        "app.kubernetes.io/component": "exporter",
        LABEL_MANAGED_BY: MANAGED_BY,
    }
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
    selector = {"app.kubernetes.io/name": NAME}
    config_name = f"{NAME}-spec"
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
            "rules": [
                {
                    "apiGroups": [""],
                    "resources": ["configmaps"],
                    "resourceNames": [config_name],
                    "verbs": ["get"],
                }
            ],
        },
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "RoleBinding",
            "metadata": _meta(NAME, ns),
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": NAME},
            "subjects": [{"kind": "ServiceAccount", "name": NAME, "namespace": ns}],
        },
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": _meta(config_name, ns),
            "data": {"platform.yaml": _spec_text(spec)},
        },
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": _meta(NAME, ns),
            "spec": {
                "replicas": 1,
                "selector": {"matchLabels": selector},
                "template": {
                    "metadata": {"labels": {**selector, LABEL_MANAGED_BY: MANAGED_BY}},
                    "spec": {
                        "serviceAccountName": NAME,
                        "automountServiceAccountToken": False,
                        "securityContext": {
                            "runAsNonRoot": True,
                            "seccompProfile": {"type": "RuntimeDefault"},
                        },
                        "containers": [_container(url, image, interval, window)],
                        "volumes": [
                            {"name": "spec", "configMap": {"name": config_name}},
                            {"name": "tmp", "emptyDir": {}},
                        ],
                    },
                },
            },
        },
        {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": _meta(NAME, ns),
            "spec": {
                "selector": selector,
                "ports": [{"name": "metrics", "port": PORT, "targetPort": "metrics", "protocol": "TCP"}],
            },
        },
        {
            "apiVersion": "monitoring.coreos.com/v1",
            "kind": "ServiceMonitor",
            "metadata": {
                **_meta(NAME, ns),
                "labels": {**_meta(NAME, ns)["labels"], **(service_monitor_labels or {})},
            },
            "spec": {
                "selector": {"matchLabels": selector},
                "namespaceSelector": {"matchNames": [ns]},
                "endpoints": [
                    {"port": "metrics", "interval": interval, "scrapeTimeout": "10s", "honorLabels": True}
                ],
            },
        },
    ]
