"""The Kubernetes API calls `acceptance run` makes, with the official `kubernetes` client.

This is the only module of gpuplane that writes to a cluster: it creates the suite's objects,
deletes one pod (step 5) and deletes the suite's namespace. Everything else it does is a read
(watch pods, read logs, list Workloads, read nodes). API failures become `UpstreamError` (exit 3).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any, ParamSpec, TypeVar

from gpuplane.errors import InputError, UpstreamError
from gpuplane.vocab import KUEUE_GROUP

__all__ = ["Cluster", "NamespaceExists", "connect", "parse_time"]

# Kinds the suite creates from CRDs: kind -> plural (the CRDs' spec.names.plural).
P = ParamSpec("P")
R = TypeVar("R")
CRD_PLURALS = {
    "LocalQueue": "localqueues",
    "JobSet": "jobsets",
    "MPIJob": "mpijobs",
    "PyTorchJob": "pytorchjobs",
}


class NamespaceExists(InputError):
    """The suite's namespace is already there: gpuplane did not create it and will not touch it."""


def parse_time(text: str | None) -> float | None:
    """An RFC 3339 timestamp of the API (`2026-11-20T09:00:00Z`) as Unix seconds."""
    if not text:
        return None
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


@contextmanager
def _transport(cluster_name: str) -> Iterator[None]:
    """Connection failures (refused, DNS, TLS, timeouts) become UpstreamError, exit 3."""
    from urllib3.exceptions import HTTPError

    try:
        yield
    except (HTTPError, OSError) as exc:
        raise UpstreamError(
            f"Kubernetes API {cluster_name}", f"cannot reach the API server ({type(exc).__name__})"
        ) from None


def _reaching(method: Callable[P, R]) -> Callable[P, R]:
    """Run an API call under `_transport` (the cluster's name comes from `self`)."""

    @functools.wraps(method)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        with _transport(getattr(args[0], "name", "?")):
            return method(*args, **kwargs)

    return wrapper


class Cluster:
    """One cluster, reached through a kubeconfig context. Every method is one API call (or a watch)."""

    def __init__(self, api_client: Any, name: str) -> None:
        from kubernetes import client

        self.api_client = api_client
        self.name = name
        # Typed as Any: the client takes plain dicts as bodies, which its annotations do not say.
        self.core: Any = client.CoreV1Api(api_client)
        self.batch: Any = client.BatchV1Api(api_client)
        self.custom: Any = client.CustomObjectsApi(api_client)

    def _error(self, exc: Exception, what: str) -> UpstreamError:
        status = getattr(exc, "status", None)
        reason = getattr(exc, "reason", None) or type(exc).__name__
        return UpstreamError(
            f"Kubernetes API {self.name}", f"{what}: {status or ''} {reason}".replace("  ", " ")
        )

    def _plain(self, value: Any) -> dict[str, Any]:
        if isinstance(value, dict):
            return value
        out: dict[str, Any] = self.api_client.sanitize_for_serialization(value)
        return out

    @_reaching
    def create(self, obj: dict[str, Any]) -> dict[str, Any]:
        """Create one object; returns it as the API server stored it."""
        from kubernetes.client.exceptions import ApiException

        kind, meta = obj["kind"], obj["metadata"]
        ns = meta.get("namespace")
        try:
            if kind == "Namespace":
                return self._plain(self.core.create_namespace(body=obj))
            if kind == "ConfigMap":
                return self._plain(self.core.create_namespaced_config_map(ns, body=obj))
            if kind == "PersistentVolumeClaim":
                return self._plain(self.core.create_namespaced_persistent_volume_claim(ns, body=obj))
            if kind == "Job":
                return self._plain(self.batch.create_namespaced_job(ns, body=obj))
            group, version = obj["apiVersion"].split("/")
            return self._plain(
                self.custom.create_namespaced_custom_object(group, version, ns, CRD_PLURALS[kind], obj)
            )
        except ApiException as exc:
            if kind == "Namespace" and exc.status == 409:
                raise NamespaceExists.single(
                    f"cluster:{self.name}",
                    f"namespace {meta['name']} already exists; gpuplane did not create it and will not use or "
                    "delete it (a run still going, or one left over: delete it yourself first)",
                ) from None
            raise self._error(exc, f"cannot create {kind} {meta['name']}") from None

    def watch_pods(self, namespace: str, selector: str, timeout_s: int) -> Iterator[dict[str, Any]]:
        """Pod watch events (`type`, `object` as a dict) until the server ends the stream."""
        from kubernetes import watch
        from kubernetes.client.exceptions import ApiException

        with _transport(self.name):
            yield from self._watch(watch, ApiException, namespace, selector, timeout_s)

    def _watch(
        self, watch: Any, api_exception: Any, namespace: str, selector: str, timeout_s: int
    ) -> Iterator[dict[str, Any]]:
        try:
            for event in watch.Watch().stream(
                self.core.list_namespaced_pod, namespace, label_selector=selector, timeout_seconds=timeout_s
            ):
                yield {"type": event["type"], "object": event["raw_object"]}
        except api_exception as exc:
            raise self._error(exc, f"cannot watch pods in {namespace}") from None

    @_reaching
    def pod_log(self, namespace: str, pod: str, container: str) -> str:
        """A container's log ('' when it has none yet)."""
        from kubernetes.client.exceptions import ApiException

        try:
            text: str = self.core.read_namespaced_pod_log(pod, namespace, container=container)
        except ApiException as exc:
            if exc.status in (400, 404):  # container not started yet, or pod gone
                return ""
            raise self._error(exc, f"cannot read the log of {pod}/{container}") from None
        return text

    @_reaching
    def delete_pod(self, namespace: str, pod: str) -> None:
        """Delete one pod (step 5)."""
        from kubernetes.client.exceptions import ApiException

        try:
            self.core.delete_namespaced_pod(pod, namespace)
        except ApiException as exc:
            raise self._error(exc, f"cannot delete pod {pod}") from None

    @_reaching
    def node_labels(self, node: str) -> dict[str, str]:
        """A node's labels ({} when it cannot be read)."""
        from kubernetes.client.exceptions import ApiException

        try:
            data = self._plain(self.core.read_node(node))
        except ApiException:
            return {}
        labels: dict[str, str] = data.get("metadata", {}).get("labels", {}) or {}
        return labels

    @_reaching
    def workloads(self, namespace: str, api: str) -> list[dict[str, Any]]:
        """Kueue Workloads in the namespace."""
        from kubernetes.client.exceptions import ApiException

        try:
            data = self.custom.list_namespaced_custom_object(KUEUE_GROUP, api, namespace, "workloads")
        except ApiException as exc:
            raise self._error(exc, f"cannot list Kueue Workloads in {namespace}") from None
        items: list[dict[str, Any]] = data.get("items", [])
        return items

    @_reaching
    def delete_namespace(self, namespace: str) -> bool:
        """Delete the suite's namespace and everything in it; False when it was already gone."""
        from kubernetes.client.exceptions import ApiException

        try:
            self.core.delete_namespace(namespace)
        except ApiException as exc:
            if exc.status == 404:
                return False
            raise self._error(exc, f"cannot delete namespace {namespace}") from None
        return True

    @_reaching
    def namespace_exists(self, namespace: str) -> bool:
        """Whether the namespace is still there (deletion takes a while)."""
        from kubernetes.client.exceptions import ApiException

        try:
            self.core.read_namespace(namespace)
        except ApiException as exc:
            if exc.status == 404:
                return False
            raise self._error(exc, f"cannot read namespace {namespace}") from None
        return True

    def close(self) -> None:
        self.api_client.close()


def connect(kubeconfig: str, context: str | None) -> Cluster:
    """A `Cluster` for a kubeconfig context (bad kubeconfigs are input errors, exit 2)."""
    from kubernetes import client, config

    cfg = client.Configuration()
    try:
        config.load_kube_config(  # type: ignore[no-untyped-call]
            config_file=kubeconfig, context=context, client_configuration=cfg, persist_config=False
        )
    except (config.ConfigException, OSError, ValueError, TypeError) as exc:
        raise InputError.single(kubeconfig, f"cannot use the kubeconfig: {exc}") from None
    cfg.retries = 1
    return Cluster(client.ApiClient(cfg), context or cfg.host)
