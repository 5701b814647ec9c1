"""A local Kubernetes API server replaying recorded responses, for `acceptance run` tests.

It keeps the objects it was asked to create (POST), answers with what an API server answers
(the object with uid/resourceVersion/creationTimestamp, 201; `Status` objects with the same
reason and code for 404, 409 and 400), streams pod watch events as newline-delimited JSON (the
`{"type", "object"}` form of `?watch=true`), serves container logs as text, and deletes a
namespace with everything in it (Terminating once, then 404). Which pods appear and how they move
is a recorded script (`script.json`): events released when a kind is created or a pod deleted.

Every request is recorded as "METHOD path" ("WATCH path" for watches) in `calls`; every object
created as (kind, namespace, name) in `created` and every DELETE as (kind, namespace, name) in
`deleted`. A DELETE with `preconditions.uid` that does not match the object is answered 409
Conflict, as the API server does. Pods are served in the namespace they were watched in.
"""

from __future__ import annotations

import copy
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

CREATED_AT = "2026-11-20T09:00:00Z"
# Collection paths -> kind, for the kinds the suite creates.
COLLECTIONS = {
    "namespaces": "Namespace",
    "configmaps": "ConfigMap",
    "networkpolicies": "NetworkPolicy",
    "persistentvolumeclaims": "PersistentVolumeClaim",
    "jobs": "Job",
    "localqueues": "LocalQueue",
    "jobsets": "JobSet",
    "mpijobs": "MPIJob",
}


def status(code: int, reason: str, message: str, details: dict[str, Any] | None = None) -> dict[str, Any]:
    """A metav1.Status as the API server writes it for a failed request."""
    body: dict[str, Any] = {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": reason,
        "code": code,
    }
    if details:
        body["details"] = details
    return body


@dataclass
class ReplayState:
    """What the fake API server holds."""

    fixtures: Path
    script: dict[str, Any]
    calls: list[str] = field(default_factory=list)
    created: list[tuple[str, str, str]] = field(default_factory=list)
    deleted: list[tuple[str, str, str]] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)  # every GET with its query string
    objects: dict[tuple[str, str, str], dict[str, Any]] = field(default_factory=dict)  # (kind, ns, name)
    queues: dict[str, list[list[str]]] = field(default_factory=dict)  # watch group -> events
    terminating: set[str] = field(default_factory=set)
    version: int = 1000
    lock: threading.Lock = field(default_factory=threading.Lock)

    def pod(self, name: str, phase: str) -> dict[str, Any]:
        pod: dict[str, Any] = json.loads((self.fixtures / "pods" / f"{name}.json").read_text())
        pod["status"]["phase"] = phase
        if phase == "Pending":
            pod["status"].pop("containerStatuses", None)
            pod["status"].pop("initContainerStatuses", None)
        elif phase in ("Succeeded", "Failed"):
            for c in pod["status"].get("containerStatuses", []):
                c["state"] = {
                    "terminated": {"exitCode": 0 if phase == "Succeeded" else 137, "reason": "Completed"}
                }
                c["ready"] = False
        self.version += 1
        pod["metadata"]["resourceVersion"] = str(self.version)
        return pod

    def release(self, key: str) -> None:
        for group, events in self.script.get(key, {}).items():
            self.queues.setdefault(group, []).extend(copy.deepcopy(events))

    def leftovers(self) -> list[tuple[str, str, str]]:
        """Objects still in the cluster (none may be left after a run)."""
        return sorted(self.objects)


class _Handler(BaseHTTPRequestHandler):
    state: ReplayState

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _send(self, code: int, body: Any, content_type: str = "application/json") -> None:
        data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _route(self) -> tuple[list[str], dict[str, list[str]]]:
        parts = urlsplit(self.path)
        return [p for p in parts.path.split("/") if p], parse_qs(parts.query)

    def do_POST(self) -> None:
        segments, _ = self._route()
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        st = self.state
        with st.lock:
            st.calls.append(f"POST {urlsplit(self.path).path}")
            kind = COLLECTIONS[segments[-1]]
            ns = segments[segments.index("namespaces") + 1] if kind != "Namespace" else ""
            name = body["metadata"]["name"]
            if kind == "Namespace" and ("Namespace", "", name) in st.objects:
                msg = f'namespaces "{name}" already exists'
                return self._send(
                    409, status(409, "AlreadyExists", msg, {"name": name, "kind": "namespaces"})
                )
            if ns and (("Namespace", "", ns) not in st.objects or ns in st.terminating):
                return self._send(404, status(404, "NotFound", f'namespaces "{ns}" not found'))
            st.version += 1
            body["metadata"].update(
                uid=f"00000000-0000-4000-8000-{st.version:012d}",
                resourceVersion=str(st.version),
                creationTimestamp=CREATED_AT,
            )
            st.objects[(kind, ns, name)] = body
            st.created.append((kind, ns, name))
            st.release(f"create {kind}")
        self._send(201, body)

    def do_GET(self) -> None:
        segments, query = self._route()
        st = self.state
        with st.lock:
            # the API server parses bools with Go's strconv.ParseBool: kubernetes 29 sends `True`
            if query.get("watch", [""])[0] in ("1", "t", "T", "true", "TRUE", "True"):
                st.calls.append(f"WATCH {urlsplit(self.path).path}")
                return self._watch(query)
            st.calls.append(f"GET {urlsplit(self.path).path}")
            st.paths.append(self.path)
            return self._get(segments, query)

    def _watch(self, query: dict[str, list[str]]) -> None:
        selector = query.get("labelSelector", [""])[0]
        group = "nccl" if "nccl" in selector else "train"
        events = self.state.queues.pop(group, [])
        segments, _ = self._route()
        ns = segments[segments.index("namespaces") + 1]
        pods = [(t, self.state.pod(name, phase)) for t, name, phase in events]
        for _, pod in pods:
            pod["metadata"]["namespace"] = ns
        lines = [json.dumps({"type": t, "object": pod}) for t, pod in pods]
        self._send(200, "".join(line + "\n" for line in lines))

    def _get(self, segments: list[str], query: dict[str, list[str]]) -> None:
        st = self.state
        if segments[-1] == "log":
            container = query.get("container", [""])[0]
            file = st.fixtures / "logs" / f"{segments[-2]}.{container}.log"
            if not file.is_file():
                msg = f'container "{container}" in pod "{segments[-2]}" is waiting to start: PodInitializing'
                return self._send(400, status(400, "BadRequest", msg))
            return self._send(200, file.read_text(), "text/plain")
        if segments[:3] == ["api", "v1", "nodes"]:
            return self._send(200, json.loads((st.fixtures / "node.json").read_text()))
        if segments[-1] == "workloads":
            return self._send(200, json.loads((st.fixtures / "workloads.json").read_text()))
        if segments[:3] == ["api", "v1", "namespaces"] and len(segments) == 4:
            name = segments[3]
            if name in st.terminating:
                st.terminating.discard(name)  # gone on the next look
                ns = dict(st.objects.get(("Namespace", "", name), {"metadata": {"name": name}}))
                ns["status"] = {"phase": "Terminating"}
                st.objects.pop(("Namespace", "", name), None)
                return self._send(200, {"apiVersion": "v1", "kind": "Namespace", **ns})
            if ("Namespace", "", name) in st.objects:
                return self._send(200, st.objects[("Namespace", "", name)])
            return self._send(404, status(404, "NotFound", f'namespaces "{name}" not found'))
        self._send(404, status(404, "NotFound", "the server could not find the requested resource"))

    def do_DELETE(self) -> None:
        segments, _ = self._route()
        st = self.state
        length = int(self.headers.get("Content-Length", 0) or 0)
        body = json.loads(self.rfile.read(length) or b"{}") if length else {}
        want = (body.get("preconditions") or {}).get("uid")
        with st.lock:
            st.calls.append(f"DELETE {urlsplit(self.path).path}")
            if segments[-2] == "pods":
                pod = st.pod(segments[-1], "Running")
                if want is not None and want != pod["metadata"]["uid"]:
                    return self._send(
                        409, status(409, "Conflict", "Precondition failed: UID in precondition")
                    )
                st.deleted.append(("Pod", segments[-3], segments[-1]))
                st.release(f"delete {segments[-1]}")
                pod["metadata"]["deletionTimestamp"] = "2026-11-20T09:07:30Z"
                return self._send(200, pod)
            name = segments[-1]
            if ("Namespace", "", name) not in st.objects:
                return self._send(404, status(404, "NotFound", f'namespaces "{name}" not found'))
            uid = st.objects[("Namespace", "", name)]["metadata"].get("uid")
            if want is not None and want != uid:
                return self._send(409, status(409, "Conflict", "Precondition failed: UID in precondition"))
            st.deleted.append(("Namespace", "", name))
            for key in [k for k in st.objects if k[1] == name]:
                st.objects.pop(key)
            st.terminating.add(name)
            ns = st.objects[("Namespace", "", name)]
            self._send(200, {**ns, "status": {"phase": "Terminating"}})


@contextmanager
def replay_server(
    fixtures: Path, tmp: Path, script: str = "script.json"
) -> Iterator[tuple[ReplayState, Path]]:
    """Serve `fixtures` on 127.0.0.1 by `script`; yields the state and a kubeconfig pointing at it."""
    state = ReplayState(fixtures, json.loads((fixtures / script).read_text()))
    handler = type("Handler", (_Handler,), {"state": state})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    config = tmp / "kubeconfig"
    config.write_text(
        "apiVersion: v1\nkind: Config\n"
        f"clusters:\n- name: replay\n  cluster: {{server: 'http://127.0.0.1:{server.server_address[1]}'}}\n"
        "users:\n- name: runner\n  user: {token: not-a-secret}\n"
        "contexts:\n- name: replay\n  context: {cluster: replay, user: runner}\ncurrent-context: replay\n"
    )
    try:
        yield state, config
    finally:
        server.shutdown()
        server.server_close()
