"""The Kubernetes API calls `acceptance run` makes, with the official `kubernetes` client.

This is the only module of gpuplane that writes to a cluster: it creates the suite's objects,
deletes one pod (step 5) and deletes the suite's namespace. Everything else it does is a read
(watch pods, read logs, list Workloads, read nodes). API failures become `UpstreamError` (exit 3).

Every call carries the client's `_request_timeout` (connect, read) from `REQUEST_TIMEOUT_S`, so an
API server that accepts and never answers ends the call instead of hanging the run. An error the
API answers is reduced to its HTTP status and a short reason with credentials redacted; the body
of an error answer (which may echo headers or tokens) is never shown.

Bodies are sent as plain dicts. The client checks them differently by version: up to the releases
generated without pydantic (29.x), `ApiClient.sanitize_for_serialization` passes a dict through
unchanged; 37.x validates it against the typed model (`@validate_call` on `create_namespaced_job`,
`V1ResourceRequirements.limits: Dict[str, StrictStr]`, `extra="forbid"`), so quantities must be
strings and no unknown field may appear (kubernetes-client/python, kubernetes/client/api_client.py
and kubernetes/client/api/batch_v1_api.py of 29.0.0 and 37.0.2).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any, ParamSpec, TypeVar

from gpuplane.account.promurl import redact_text, redact_url
from gpuplane.errors import InputError, UpstreamError
from gpuplane.limits import limits
from gpuplane.vocab import KUEUE_GROUP

__all__ = ["REQUEST_TIMEOUT_S", "Cluster", "NamespaceExists", "connect", "parse_time"]

#: (connect, read) seconds of every API call; a watch adds its own server-side timeout to the read.
REQUEST_TIMEOUT_S = (10.0, 60.0)
#: Shortest kubeconfig secret searched for in what is shown (see `_secrets`).
MIN_SECRET_CHARS = 6
#: Longest reason from an API error shown (the rest is cut: an error body can be anything).
REASON_CHARS = 120

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


def _garbage() -> tuple[type[BaseException], ...]:
    """Exceptions the client raises when an answer is not a Kubernetes object (HTML, bytes, bad JSON)."""
    kinds: list[type[BaseException]] = [ValueError, TypeError, KeyError, AttributeError, UnicodeError]
    try:
        from pydantic import ValidationError

        kinds.append(ValidationError)
    except ImportError:  # clients before 37 do not use pydantic
        pass
    return tuple(kinds)


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
    except _garbage() as exc:
        raise UpstreamError(
            f"Kubernetes API {cluster_name}",
            f"answered something that is not a Kubernetes object ({type(exc).__name__})",
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

    def __init__(self, api_client: Any, name: str, secrets: tuple[str, ...] = ()) -> None:
        from kubernetes import client

        self.api_client = api_client
        self.name = name
        self.secrets = secrets  # kubeconfig token/password: removed from anything shown
        self.timeout = REQUEST_TIMEOUT_S
        # Typed as Any: the client takes plain dicts as bodies, which its annotations do not say.
        self.core: Any = client.CoreV1Api(api_client)
        self.batch: Any = client.BatchV1Api(api_client)
        self.custom: Any = client.CustomObjectsApi(api_client)
        self.networking: Any = client.NetworkingV1Api(api_client)

    def _error(self, exc: Exception, what: str) -> UpstreamError:
        """Status and a short redacted reason; never the answer's body or headers."""
        status = getattr(exc, "status", None)
        reason = str(getattr(exc, "reason", None) or type(exc).__name__)
        reason = " ".join(redact_text(reason, self.secrets).split())[:REASON_CHARS]
        return UpstreamError(
            f"Kubernetes API {self.name}", f"{what}: {status or ''} {reason}".replace("  ", " ")
        )

    def _plain(self, value: Any) -> dict[str, Any]:
        out = value if isinstance(value, dict) else self.api_client.sanitize_for_serialization(value)
        if not isinstance(out, dict):
            raise ValueError("not an object")
        return out

    @_reaching
    def create(self, obj: dict[str, Any]) -> dict[str, Any]:
        """Create one object; returns it as the API server stored it (checked: same name, a UID)."""
        stored = self._create(obj)
        meta = stored.get("metadata")
        if not isinstance(meta, dict) or meta.get("name") != obj["metadata"]["name"] or not meta.get("uid"):
            # kubernetes 29 turns an answer that is not JSON into an empty model instead of failing
            raise ValueError("the answer is not the object created")
        return stored

    def _create(self, obj: dict[str, Any]) -> dict[str, Any]:
        from kubernetes.client.exceptions import ApiException

        kind, meta = obj["kind"], obj["metadata"]
        ns = meta.get("namespace")
        try:
            t = {"_request_timeout": self.timeout}
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
            connect_s, read_s = self.timeout
            for event in watch.Watch().stream(
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
        except api_exception as exc:
            raise self._error(exc, f"cannot watch pods in {namespace}") from None

    @_reaching
    def pod_log(self, namespace: str, pod: str, container: str) -> str:
        """A container's log ('' when it has none yet)."""
        from kubernetes.client.exceptions import ApiException

        try:
            text = self.core.read_namespaced_pod_log(
                pod, namespace, container=container, limit_bytes=log_bytes(), _request_timeout=self.timeout
            )
        except ApiException as exc:
            if exc.status in (400, 404):  # container not started yet, or pod gone
                return ""
            raise self._error(exc, f"cannot read the log of {pod}/{container}") from None
        return text if isinstance(text, str) else str(text)

    @staticmethod
    def _only(uid: str | None) -> dict[str, Any] | None:
        """DeleteOptions that make the API server refuse (409) unless the object has this UID."""
        if not uid:
            return None
        return {"apiVersion": "v1", "kind": "DeleteOptions", "preconditions": {"uid": uid}}

    @_reaching
    def delete_pod(self, namespace: str, pod: str, uid: str | None = None) -> None:
        """Delete one pod (step 5), only if it is still the pod with `uid`."""
        from kubernetes.client.exceptions import ApiException

        try:
            self.core.delete_namespaced_pod(
                pod, namespace, body=self._only(uid), _request_timeout=self.timeout
            )
        except ApiException as exc:
            raise self._error(exc, f"cannot delete pod {pod}") from None

    @_reaching
    def node_labels(self, node: str) -> dict[str, str]:
        """A node's labels ({} when it cannot be read)."""
        from kubernetes.client.exceptions import ApiException

        try:
            data = self._plain(self.core.read_node(node, _request_timeout=self.timeout))
        except ApiException:
            return {}
        labels = (data.get("metadata") or {}).get("labels") or {}
        if not isinstance(labels, dict):
            raise ValueError("node labels are not a map")
        return {str(k): str(v) for k, v in labels.items()}

    @_reaching
    def workloads(self, namespace: str, api: str) -> list[dict[str, Any]]:
        """Kueue Workloads in the namespace."""
        from kubernetes.client.exceptions import ApiException

        try:
            data = self.custom.list_namespaced_custom_object(
                KUEUE_GROUP, api, namespace, "workloads", _request_timeout=self.timeout
            )
        except ApiException as exc:
            raise self._error(exc, f"cannot list Kueue Workloads in {namespace}") from None
        items = self._plain(data).get("items") or []
        if not isinstance(items, list):
            raise ValueError("items is not a list")
        return [i for i in items if isinstance(i, dict)]

    @_reaching
    def delete_namespace(self, namespace: str, uid: str) -> bool:
        """Delete the namespace with this UID and everything in it; False when it was already gone."""
        from kubernetes.client.exceptions import ApiException

        try:
            self.core.delete_namespace(namespace, body=self._only(uid), _request_timeout=self.timeout)
        except ApiException as exc:
            if exc.status == 404:
                return False
            raise self._error(exc, f"cannot delete namespace {namespace}") from None
        return True

    @_reaching
    def read_namespace(self, namespace: str) -> dict[str, Any] | None:
        """The namespace's metadata (uid, labels, deletionTimestamp), or None when it is gone."""
        from kubernetes.client.exceptions import ApiException

        try:
            data = self._plain(self.core.read_namespace(namespace, _request_timeout=self.timeout))
        except ApiException as exc:
            if exc.status == 404:
                return None
            raise self._error(exc, f"cannot read namespace {namespace}") from None
        meta = data.get("metadata")
        if not isinstance(meta, dict):
            raise ValueError("a namespace without metadata")
        return meta

    def close(self) -> None:
        self.api_client.close()


def _secrets(cfg: Any) -> tuple[str, ...]:
    """What a kubeconfig holds that must never be shown: tokens (with and without `Bearer `), passwords.

    Values shorter than `MIN_SECRET_CHARS` are not searched for (removing every `t` from a bundle
    would destroy it and protect nothing)."""
    found: set[str] = set()
    for value in [*(cfg.api_key or {}).values(), getattr(cfg, "password", None)]:
        if value:
            found |= {str(value), str(value).split(" ", 1)[-1]}
    return tuple(sorted(s for s in found if len(s) >= MIN_SECRET_CHARS))


def connect(kubeconfig: str, context: str | None) -> Cluster:
    """A `Cluster` for a kubeconfig context (bad kubeconfigs are input errors, exit 2).

    Kept self-contained so it can be swapped for the project's shared Kubernetes client. The
    cluster is shown by its context name or its server URL with credentials redacted.
    """
    from kubernetes import client, config

    cfg = client.Configuration()
    try:
        config.load_kube_config(  # type: ignore[no-untyped-call]
            config_file=kubeconfig, context=context, client_configuration=cfg, persist_config=False
        )
    except Exception as exc:  # the loader raises many kinds on malformed files: each is exit 2
        raise InputError.single(
            kubeconfig, f"cannot use the kubeconfig: {redact_text(str(exc))[:200]} ({type(exc).__name__})"
        ) from None
    cfg.retries = 0  # one attempt per call, bounded by REQUEST_TIMEOUT_S; the runner decides what next
    return Cluster(client.ApiClient(cfg), context or redact_url(str(cfg.host)), _secrets(cfg))
