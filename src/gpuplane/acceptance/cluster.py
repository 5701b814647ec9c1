"""The Kubernetes API calls `acceptance run` makes, through the one client (`gpuplane.kube.client`).

This is the only module of gpuplane that writes to a cluster: it creates the suite's objects,
deletes one pod (step 5) and deletes the suite's namespace. Everything else it does is a read
(watch pods, read logs, list Workloads, read nodes).

The kubeconfig is loaded by `gpuplane.kube.client.connect` (its secrets collected there), and every
call runs inside the client's `calling(what)`, so a failure leaves through the one exception map
(`upstream_error`): `Kubernetes API SERVER: WHAT: REASON`, exit 3, the same line explain and audit
print. Every call carries `_request_timeout=Client.request_timeout(...)` (limits.yaml
`api_connect_timeout`, `api_read_timeout`, cut to the overall deadline, `--timeout`); cleanup's
namespace read and delete are sent even past the deadline (`past_deadline`), once each. An error
the API answers is reduced to its HTTP status and a short redacted reason; never its body.

Bodies are sent as plain dicts. The client checks them differently by version: up to the releases
generated without pydantic (29.x), `ApiClient.sanitize_for_serialization` passes a dict through
unchanged; 37.x validates it against the typed model (`@validate_call` on `create_namespaced_job`,
`V1ResourceRequirements.limits: Dict[str, StrictStr]`, `extra="forbid"`), so quantities must be
strings and no unknown field may appear (kubernetes-client/python, kubernetes/client/api_client.py
and kubernetes/client/api/batch_v1_api.py of 29.0.0 and 37.0.2).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any

from gpuplane.errors import InputError
from gpuplane.kube.client import Client
from gpuplane.kube.client import connect as kube_connect
from gpuplane.limits import limits
from gpuplane.vocab import KUEUE_GROUP

__all__ = ["Cluster", "NamespaceExists", "connect", "parse_time"]

# Kinds the suite creates from CRDs: kind -> plural (the CRDs' spec.names.plural).
CRD_PLURALS = {
    "LocalQueue": "localqueues",
    "JobSet": "jobsets",
    "MPIJob": "mpijobs",
    "PyTorchJob": "pytorchjobs",
}


class NamespaceExists(InputError):
    """The suite's namespace is already there: gpuplane did not create it and will not touch it."""


def parse_time(text: object) -> float | None:
    """An RFC 3339 timestamp of the API (`2026-11-20T09:00:00Z`) as Unix seconds (None if unreadable)."""
    if not text or not isinstance(text, str):
        return None
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def log_bytes() -> int:
    """Most bytes of one container log read (the API's `limitBytes`): a quarter of `input_bytes`, so
    the bundle's observations.json, which carries the NCCL log, stays readable by `acceptance score`."""
    return limits().input_bytes // 4


def _status(exc: BaseException) -> int | None:
    """The HTTP status of an ApiException the server answered (None for anything else)."""
    from kubernetes.client.exceptions import ApiException

    if isinstance(exc, ApiException) and exc.status:
        return int(exc.status)
    return None


class Cluster:
    """One cluster, reached through `gpuplane.kube`'s client. Every method is one API call (or a watch)."""

    def __init__(self, client: Client, name: str) -> None:
        from kubernetes import client as k8s

        self.client = client
        self.name = name  # the context, or the server URL redacted: how the banner names the cluster
        self.secrets = client.secrets  # kubeconfig token/password: removed from anything shown
        # Typed as Any: the client takes plain dicts as bodies, which its annotations do not say.
        self.core: Any = k8s.CoreV1Api(client.api_client)
        self.batch: Any = k8s.BatchV1Api(client.api_client)
        self.custom: Any = k8s.CustomObjectsApi(client.api_client)
        self.networking: Any = k8s.NetworkingV1Api(client.api_client)

    def _plain(self, value: Any) -> dict[str, Any]:
        out = value if isinstance(value, dict) else self.client.api_client.sanitize_for_serialization(value)
        if not isinstance(out, dict):
            raise ValueError("not an object")
        return out

    def create(self, obj: dict[str, Any]) -> dict[str, Any]:
        """Create one object; returns it as the API server stored it (checked: same name, a UID)."""
        kind, meta = obj["kind"], obj["metadata"]
        what = f"cannot create {kind} {meta['name']}"
        with self.client.calling(what):
            try:
                stored = self._create(obj, self.client.request_timeout(what))
            except Exception as exc:
                if kind == "Namespace" and _status(exc) == 409:
                    raise NamespaceExists.single(
                        f"cluster:{self.name}",
                        f"namespace {meta['name']} already exists; gpuplane did not create it and will not "
                        "use or delete it (a run still going, or one left over: delete it yourself first)",
                    ) from None
                raise
            stored_meta = stored.get("metadata")
            if (
                not isinstance(stored_meta, dict)
                or stored_meta.get("name") != meta["name"]
                or not stored_meta.get("uid")
            ):
                # kubernetes 29 turns an answer that is not JSON into an empty model instead of failing
                raise ValueError("the answer is not the object created")
            return stored

    def _create(self, obj: dict[str, Any], timeout: tuple[float, float]) -> dict[str, Any]:
        kind, ns = obj["kind"], obj["metadata"].get("namespace")
        t = {"_request_timeout": timeout}
        if kind == "Namespace":
            return self._plain(self.core.create_namespace(body=obj, **t))
        if kind == "ConfigMap":
            return self._plain(self.core.create_namespaced_config_map(ns, body=obj, **t))
        if kind == "NetworkPolicy":
            return self._plain(self.networking.create_namespaced_network_policy(ns, body=obj, **t))
        if kind == "PersistentVolumeClaim":
            return self._plain(self.core.create_namespaced_persistent_volume_claim(ns, body=obj, **t))
        if kind == "Job":
            return self._plain(self.batch.create_namespaced_job(ns, body=obj, **t))
        group, version = obj["apiVersion"].split("/")
        return self._plain(
            self.custom.create_namespaced_custom_object(group, version, ns, CRD_PLURALS[kind], obj, **t)
        )

    def watch_pods(self, namespace: str, selector: str, timeout_s: int) -> Iterator[dict[str, Any]]:
        """Pod watch events (`type`, `object` as a dict) until the server ends the stream."""
        from kubernetes import watch

        what = f"cannot watch pods in {namespace}"
        watcher: Any = watch.Watch()  # type: ignore[no-untyped-call]
        with self.client.calling(what):
            connect_s, read_s = self.client.request_timeout(what)
            for event in watcher.stream(
                self.core.list_namespaced_pod,
                namespace,
                label_selector=selector,
                timeout_seconds=timeout_s,
                _request_timeout=(connect_s, read_s + timeout_s),
            ):
                raw = event.get("raw_object") if isinstance(event, dict) else None
                if not isinstance(raw, dict) or not isinstance(raw.get("metadata"), dict):
                    raise ValueError("a watch event without an object")
                yield {"type": event["type"], "object": raw}

    def pod_log(self, namespace: str, pod: str, container: str) -> str:
        """A container's log ('' when it has none yet)."""
        what = f"cannot read the log of {pod}/{container}"
        with self.client.calling(what):
            try:
                text = self.core.read_namespaced_pod_log(
                    pod,
                    namespace,
                    container=container,
                    limit_bytes=log_bytes(),
                    _request_timeout=self.client.request_timeout(what),
                )
            except Exception as exc:
                if _status(exc) in (400, 404):  # container not started yet, or pod gone
                    return ""
                raise
            return text if isinstance(text, str) else str(text)

    @staticmethod
    def _only(uid: str | None) -> dict[str, Any] | None:
        """DeleteOptions that make the API server refuse (409) unless the object has this UID."""
        if not uid:
            return None
        return {"apiVersion": "v1", "kind": "DeleteOptions", "preconditions": {"uid": uid}}

    def delete_pod(self, namespace: str, pod: str, uid: str | None = None) -> None:
        """Delete one pod (step 5), only if it is still the pod with `uid`."""
        what = f"cannot delete pod {pod}"
        with self.client.calling(what):
            self.core.delete_namespaced_pod(
                pod, namespace, body=self._only(uid), _request_timeout=self.client.request_timeout(what)
            )

    def node_labels(self, node: str) -> dict[str, str]:
        """A node's labels ({} when the API refuses to show the node)."""
        what = f"cannot read node {node}"
        with self.client.calling(what):
            try:
                data = self._plain(
                    self.core.read_node(node, _request_timeout=self.client.request_timeout(what))
                )
            except Exception as exc:
                if _status(exc) is not None:
                    return {}
                raise
            labels = (data.get("metadata") or {}).get("labels") or {}
            if not isinstance(labels, dict):
                raise ValueError("node labels are not a map")
            return {str(k): str(v) for k, v in labels.items()}

    def workloads(self, namespace: str, api: str) -> list[dict[str, Any]]:
        """Kueue Workloads in the namespace."""
        what = f"cannot list Kueue Workloads in {namespace}"
        with self.client.calling(what):
            data = self.custom.list_namespaced_custom_object(
                KUEUE_GROUP, api, namespace, "workloads", _request_timeout=self.client.request_timeout(what)
            )
            items = self._plain(data).get("items") or []
            if not isinstance(items, list):
                raise ValueError("items is not a list")
            return [i for i in items if isinstance(i, dict)]

    def delete_namespace(self, namespace: str, uid: str) -> bool:
        """Delete the namespace with this UID and everything in it; False when it was already gone.

        Sent even past the deadline (cleanup), under the full request timeouts."""
        what = f"cannot delete namespace {namespace}"
        with self.client.calling(what):
            try:
                self.core.delete_namespace(
                    namespace,
                    body=self._only(uid),
                    _request_timeout=self.client.request_timeout(what, past_deadline=True),
                )
            except Exception as exc:
                if _status(exc) == 404:
                    return False
                raise
            return True

    def read_namespace(self, namespace: str) -> dict[str, Any] | None:
        """The namespace's metadata (uid, labels, deletionTimestamp), or None when it is gone.

        Sent even past the deadline (cleanup reads the namespace before and after its delete)."""
        what = f"cannot read namespace {namespace}"
        with self.client.calling(what):
            try:
                data = self._plain(
                    self.core.read_namespace(
                        namespace, _request_timeout=self.client.request_timeout(what, past_deadline=True)
                    )
                )
            except Exception as exc:
                if _status(exc) == 404:
                    return None
                raise
            meta = data.get("metadata")
            if not isinstance(meta, dict):
                raise ValueError("a namespace without metadata")
            return meta

    def close(self) -> None:
        """Close the client's connection pool."""
        self.client.close()


def connect(kubeconfig: str, context: str | None, timeout: float | None = None) -> Cluster:
    """A `Cluster` for a kubeconfig context, through `gpuplane.kube.client.connect` (a kubeconfig
    that cannot be used is an input error, exit 2); `timeout` is the run's overall deadline."""
    client = kube_connect(kubeconfig, context, timeout)
    return Cluster(client, context or client.server)
