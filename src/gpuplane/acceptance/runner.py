"""`acceptance run`: apply a rendered suite, drive it through the seven steps, collect, clean up.

    plan = load_plan(suite_dir)              # what will be created (shown before asking)
    obs, manifests, logs = Runner(cluster, plan, clock=time.time, sleep=time.sleep).run()

The sequence is fixed: create the namespace set; step 3's MPIJob and wait for its launcher;
create step 1's workload; when a training pod has reported a checkpoint, save its log and delete
it (step 5); wait for the training pods to finish; read the Workloads (admission times) and the
nodes (labels); delete the namespace. The namespace is deleted on every way out, Ctrl-C
included, and only when this run created it.

Ownership: the run creates its own namespace, named from the suite's plus a run id
(`acceptance-h100-train-3f9c1a2b`), labelled `LABEL_ACCEPTANCE_RUN=<run id>` with an annotation
saying so; every object it creates carries the same label. Cleanup reads that namespace back and
deletes it only when it carries this run's label (and the UID the API gave it at creation),
with a UID precondition, so a namespace the run did not create is never deleted, whatever
suite.json says. `remains()` says what may be left (and the kubectl command) when cleanup could
not confirm the namespace gone: an interrupt during cleanup, an API error, the deadline.
"""

from __future__ import annotations

import copy
import json
import os
import re
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from gpuplane.acceptance.cluster import Cluster, parse_time
from gpuplane.acceptance.observations import Observations, PodRecord, helper_events, run_of
from gpuplane.acceptance.suite import SUITE_FILE
from gpuplane.acceptance.thresholds import check_thresholds
from gpuplane.account.promurl import redact_text
from gpuplane.errors import InputError, UpstreamError
from gpuplane.limits import limits
from gpuplane.vocab import (
    ANNOTATION_ACCEPTANCE_RUN,
    LABEL_ACCEPTANCE,
    LABEL_ACCEPTANCE_RUN,
    LABEL_ACCEPTANCE_STEP,
)

__all__ = ["Plan", "RunTimeout", "Runner", "load_plan", "run_namespace"]

WATCH_S = 10
POLL_S = 5.0
NAMESPACE_GONE_S = 300.0
#: A DNS-1123 label (a namespace name): at most 63 characters.
_DNS_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?")
WORKLOAD_KINDS = ("Job", "JobSet", "PyTorchJob", "MPIJob")


def run_namespace(base: str, run_id: str) -> str:
    """The namespace one run creates: the suite's name cut to fit, then `-<run id>` (63 characters at most)."""
    keep = 63 - len(run_id) - 1
    return f"{base[:keep].rstrip('-')}-{run_id}"


class RunTimeout(Exception):
    """The suite did not get where it had to within the run's deadline."""


@dataclass
class Plan:
    """A rendered suite read back from its directory."""

    directory: Path
    info: dict[str, Any]
    manifests: dict[str, str]
    objects: list[dict[str, Any]] = field(default_factory=list)

    @property
    def namespace(self) -> str:
        """The suite's namespace as suite.json names it (a run adds its run id)."""
        return str(self.info["namespace"])

    def describe(self, run_id: str) -> list[str]:
        """What the run will create and delete, one line each (shown before asking)."""
        ns = run_namespace(self.namespace, run_id)
        lines = [
            f"create {o['kind']} {ns + '/' if o['kind'] != 'Namespace' else ''}"
            f"{ns if o['kind'] == 'Namespace' else o['metadata']['name']}"
            for o in self.objects
        ]
        lines.append(f"  (every object labelled {LABEL_ACCEPTANCE_RUN}={run_id})")
        lines.append(f"delete one running training pod in {ns} after its first checkpoint (step 5)")
        lines.append(
            f"delete namespace {ns} and everything in it at the end (also on Ctrl-C), "
            "only if it still carries this run's label and UID"
        )
        return lines


def _problem(path: Path, field: str, message: str) -> InputError:
    return InputError.single(str(path), message, path=field)


def _read_inside(directory: Path, rel: object, suite_file: Path) -> str:
    """The text of manifest `rel`, which must be a plain file inside the suite folder (no link)."""
    if not isinstance(rel, str) or not rel or os.path.isabs(rel) or ".." in Path(rel).parts:
        raise _problem(suite_file, "manifests", f"{rel!r} is not a path inside the suite folder; refusing it")
    path = directory / rel
    cap = limits().input_bytes
    try:
        parent = directory.resolve()
        for part in [path, *path.parents]:
            if part == directory:
                break
            if stat.S_ISLNK(os.lstat(part).st_mode):
                raise _problem(suite_file, "manifests", f"{rel} is a symbolic link; refusing to follow it")
        if not path.resolve().is_relative_to(parent):
            raise _problem(suite_file, "manifests", f"{rel} is outside the suite folder; refusing it")
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        with os.fdopen(fd, "rb") as handle:
            data = handle.read(cap + 1)
    except OSError as exc:
        raise InputError.single(str(path), f"cannot read the manifest ({exc.strerror or exc})") from None
    if len(data) > cap:
        raise InputError.single(str(path), f"larger than {cap} bytes (limit input_bytes)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError.single(str(path), "not UTF-8 text") from None


def _read_suite_file(suite_file: Path) -> dict[str, Any]:
    cap = limits().input_bytes
    try:
        fd = os.open(suite_file, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        with os.fdopen(fd, "rb") as handle:
            data = handle.read(cap + 1)
    except OSError as exc:
        raise InputError.single(
            str(suite_file), f"cannot read ({exc.strerror}); is this an acceptance suite?"
        ) from None
    if len(data) > cap:
        raise InputError.single(str(suite_file), f"larger than {cap} bytes (limit input_bytes)")
    try:
        info = json.loads(data.decode("utf-8"), parse_constant=_no_constant)
    except (ValueError, RecursionError) as exc:
        raise InputError.single(str(suite_file), f"not JSON: {str(exc)[:200]}") from None
    if not isinstance(info, dict):
        raise InputError.single(str(suite_file), "not a JSON object; is this an acceptance suite?")
    ns = info.get("namespace")
    if not isinstance(ns, str) or not _DNS_LABEL.fullmatch(ns):
        raise _problem(suite_file, "namespace", f"{ns!r} is not a namespace name (a DNS-1123 label)")
    for key, kind in (("manifests", dict), ("workloads", dict)):
        if not isinstance(info.get(key), kind):
            raise _problem(suite_file, key, "missing or not a JSON object")
    if not isinstance(info.get("nodes"), int) or isinstance(info["nodes"], bool) or info["nodes"] < 1:
        raise _problem(suite_file, "nodes", f"{info.get('nodes')!r} is not a positive whole number")
    bad = check_thresholds(info)
    if bad is not None:
        raise _problem(suite_file, *bad)
    return info


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a finite number")


def load_plan(directory: Path) -> Plan:
    """Read a suite directory written by `acceptance render` (manifests only from inside it)."""
    suite_file = directory / SUITE_FILE
    info = _read_suite_file(suite_file)
    manifests: dict[str, str] = {}
    objects: list[dict[str, Any]] = []
    for rel in sorted(info["manifests"]):
        text = _read_inside(directory, rel, suite_file)
        try:
            docs = [d for d in yaml.safe_load_all(text) if d is not None]
        except yaml.YAMLError as exc:
            raise InputError.single(str(directory / rel), f"cannot read the manifest: {exc}") from None
        bad = [d for d in docs if not isinstance(d, dict) or not isinstance(d.get("metadata"), dict)]
        if bad or any(not isinstance(d.get("metadata", {}).get("name"), str) for d in docs):
            raise InputError.single(
                str(directory / rel), "every document must be an object with metadata.name"
            )
        manifests[rel] = text
        objects += docs
    ns = info["namespace"]
    wrong = [o for o in objects if o["metadata"].get("namespace", ns) != ns]
    if wrong:
        raise InputError.single(
            str(directory),
            f"{wrong[0].get('kind')} {wrong[0]['metadata']['name']} is outside namespace {ns}",
        )
    namespaces = [o for o in objects if o.get("kind") == "Namespace"]
    if len(namespaces) != 1 or namespaces[0]["metadata"]["name"] != ns:
        raise _problem(suite_file, "namespace", f"the manifests must create exactly one Namespace, {ns}")
    from gpuplane.acceptance.cluster import CRD_PLURALS

    known = {"Namespace", "NetworkPolicy", "ConfigMap", "PersistentVolumeClaim", "Job", *CRD_PLURALS}
    odd = [o for o in objects if o.get("kind") not in known]
    if odd:
        raise InputError.single(str(directory), f"{odd[0].get('kind')!r} is not a kind the suite creates")
    return Plan(directory, info, manifests, objects)


def _phase(pod: dict[str, Any]) -> str:
    return str(pod.get("status", {}).get("phase", ""))


def _name(pod: dict[str, Any]) -> str:
    return str(pod["metadata"]["name"])


class Runner:
    """Drives one suite on one cluster. `clock` and `sleep` are injected so tests replay exactly."""

    def __init__(
        self,
        cluster: Cluster,
        plan: Plan,
        *,
        clock: Callable[[], float],
        sleep: Callable[[float], None],
        deadline_s: float,
        run_id: str,
        on_log: Callable[[str, str], None] | None = None,
    ) -> None:
        self.cluster = cluster
        self.plan = plan
        self.clock = clock
        self.sleep = sleep
        self.deadline = clock() + deadline_s
        self.run_id = run_id
        self.namespace = run_namespace(plan.namespace, run_id)
        self.objects = [self._owned(o) for o in plan.objects]
        self.on_log = on_log  # called with (pod, text) as soon as a log is collected (evidence first)
        self.obs = Observations(run_id=run_id, namespace=self.namespace)
        self.logs: dict[str, str] = {}
        self.pods: dict[str, dict[str, Any]] = {}
        self.namespace_sent = False  # the create was sent: the namespace may exist
        self.namespace_uid: str | None = None
        self.gone = False  # cleanup saw the namespace gone (or it was never created)
        self.deleted_uid: str | None = None

    def _owned(self, obj: dict[str, Any]) -> dict[str, Any]:
        """A copy of a suite object placed in this run's namespace and labelled with the run id."""
        out: dict[str, Any] = copy.deepcopy(obj)
        meta = out["metadata"]
        meta["labels"] = {**(meta.get("labels") or {}), LABEL_ACCEPTANCE_RUN: self.run_id}
        if out["kind"] == "Namespace":
            meta["name"] = self.namespace
            meta["annotations"] = {
                **(meta.get("annotations") or {}),
                ANNOTATION_ACCEPTANCE_RUN: f"created by gpuplane acceptance run {self.run_id} "
                f"(suite {self.plan.namespace}); deleted by it when the run ends",
            }
        else:
            meta["namespace"] = self.namespace
        return out

    def remains(self) -> list[str]:
        """What may be left in the cluster, and how to delete it ([] when nothing is)."""
        if self.gone or not self.namespace_sent:
            return []
        uid = f", uid {self.namespace_uid}" if self.namespace_uid else ""
        return [
            f"namespace {self.namespace}{uid} and everything in it may remain in cluster {self.cluster.name}",
            f"delete it with: kubectl delete namespace -l {LABEL_ACCEPTANCE_RUN}={self.run_id}",
        ]

    @property
    def _container(self) -> str:
        return str(self.plan.info.get("train_container", "train"))

    # -- the sequence ----------------------------------------------------------------------
    def run(self) -> Observations:
        """Run the suite; the namespace is cleaned up however this ends."""
        try:
            self._create([o for o in self.objects if o["kind"] not in WORKLOAD_KINDS])
            if self.plan.info["workloads"].get("nccl"):
                self._nccl()
            self._train()
            self._admission()
        except RunTimeout as exc:
            self.obs.notes.append(f"the run stopped early: {exc}")
        finally:
            self._cleanup()
        return self.obs

    def _create(self, objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
        out = []
        for obj in objects:
            if obj["kind"] == "Namespace":
                self.namespace_sent = True
            created = self.cluster.create(obj)
            if obj["kind"] == "Namespace":
                self.namespace_uid = str((created.get("metadata") or {}).get("uid") or "") or None
            out.append(created)
        return out

    def _workload(self, kind: str) -> dict[str, Any]:
        return self._create([o for o in self.objects if o["kind"] in kind.split("|")])[0]

    def _nccl(self) -> None:
        self._workload("MPIJob")
        done = self._wait(f"{LABEL_ACCEPTANCE_STEP} in (nccl-launcher,nccl-worker)", self._launcher_done)
        for pod in done.values():
            self._record(pod, str(pod["metadata"]["labels"].get(LABEL_ACCEPTANCE_STEP, "nccl")))
        launcher = [
            p for p in done.values() if p["metadata"]["labels"].get(LABEL_ACCEPTANCE_STEP) == "nccl-launcher"
        ]
        if launcher:
            text = self.cluster.pod_log(self.namespace, _name(launcher[0]), "launcher")
            self.obs.nccl_log = self._keep_log(_name(launcher[0]), text)

    @staticmethod
    def _launcher_done(pods: dict[str, dict[str, Any]]) -> bool:
        return any(
            p["metadata"]["labels"].get(LABEL_ACCEPTANCE_STEP) == "nccl-launcher"
            and _phase(p) in ("Succeeded", "Failed")
            for p in pods.values()
        )

    def _train(self) -> None:
        created = self._workload("Job|JobSet|PyTorchJob")
        self.obs.submitted = parse_time(created.get("metadata", {}).get("creationTimestamp"))
        nodes = int(self.plan.info["nodes"])
        pods = self._wait(f"{LABEL_ACCEPTANCE_STEP}=train", lambda ps: self._train_step(ps, nodes))
        for _, pod in sorted(pods.items()):
            if pod["metadata"].get("uid") != self.deleted_uid:
                self._finish(pod)
        self.obs.finished = self.clock()

    def _train_step(self, pods: dict[str, dict[str, Any]], nodes: int) -> bool:
        """One look at the training pods: delete one after its checkpoint; True when all are done."""
        live = {n: p for n, p in pods.items() if p["metadata"].get("uid") != self.deleted_uid}
        running = sorted(n for n, p in live.items() if _phase(p) == "Running")
        if running and self.obs.running is None:
            self.obs.running = min(
                parse_time(live[n].get("status", {}).get("startTime")) or self.clock() for n in running
            )
        if self.obs.deleted_pod is None and running:
            victim = running[0]
            text = self.cluster.pod_log(self.namespace, victim, self._container)
            events = helper_events(text)
            if any(e.get("event") == "checkpoint" for e in events):
                self._record(live[victim], "train", text, deleted=True)
                self.cluster.delete_pod(self.namespace, victim, live[victim]["metadata"].get("uid"))
                self.obs.deleted_pod, self.obs.deleted_at = victim, self.clock()
                self.obs.deleted_run = next(
                    (run_of(e) for e in events if e.get("event") == "window_start"), None
                )
                self.deleted_uid = live[victim]["metadata"].get("uid")
                return False
        finished = [p for p in live.values() if _phase(p) in ("Succeeded", "Failed")]
        failed = [p for p in finished if _phase(p) == "Failed"]
        return len(finished) >= nodes or bool(failed)

    def _wait(
        self, selector: str, done: Callable[[dict[str, dict[str, Any]]], bool]
    ) -> dict[str, dict[str, Any]]:
        """Watch the suite's pods matching `selector` until `done(pods)`; pods by name."""
        pods: dict[str, dict[str, Any]] = {}
        selector = f"{LABEL_ACCEPTANCE}={self.plan.namespace},{selector}"
        while True:
            for event in self.cluster.watch_pods(self.namespace, selector, WATCH_S):
                pod = event["object"]
                if event["type"] == "DELETED":
                    pods.pop(_name(pod), None)
                else:
                    pods[_name(pod)] = pod
                if done(pods):
                    return pods
            if done(pods):
                return pods
            if self.clock() > self.deadline:
                raise RunTimeout(f"waiting for pods ({selector}) past the deadline")
            self.sleep(POLL_S)

    # -- collection ------------------------------------------------------------------------
    def _record(self, pod: dict[str, Any], step: str, log: str | None = None, deleted: bool = False) -> None:
        status = pod.get("status", {})
        images = [
            {
                "container": str(c.get("name")),
                "image": str(c.get("image")),
                "image_id": str(c.get("imageID", "")),
            }
            for c in status.get("initContainerStatuses", []) + status.get("containerStatuses", [])
        ]
        node = str(pod.get("spec", {}).get("nodeName", ""))
        record = PodRecord(
            name=_name(pod),
            step=step,
            node=node,
            labels=dict(pod["metadata"].get("labels", {})),
            node_labels=self.cluster.node_labels(node) if node else {},
            images=images,
            phase=_phase(pod),
            deleted=deleted,
        )
        self.obs.pods.append(record)
        if log is not None:
            self.obs.events += helper_events(self._keep_log(record.name, log))

    def _finish(self, pod: dict[str, Any]) -> None:
        name = _name(pod)
        text = self.cluster.pod_log(self.namespace, name, "fetch") + self.cluster.pod_log(
            self.namespace, name, self._container
        )
        self._record(pod, "train", text)

    def _admission(self) -> None:
        api = str(self.plan.info.get("kueue_api", "v1beta2"))
        for workload in self.cluster.workloads(self.namespace, api):
            owners = [o.get("name") for o in workload.get("metadata", {}).get("ownerReferences", [])]
            if self.plan.info["workloads"]["train"] not in owners:
                continue
            conditions = {c.get("type"): c for c in workload.get("status", {}).get("conditions", [])}
            for kind in ("Admitted", "QuotaReserved"):
                cond = conditions.get(kind)
                if cond and cond.get("status") == "True":
                    self.obs.admitted = parse_time(cond.get("lastTransitionTime"))
                    return

    def _keep_log(self, pod: str, text: str) -> str:
        """Keep a collected log, redacted (URL credentials, the kubeconfig's secrets), and save it now."""
        text = redact_text(text, self.cluster.secrets)
        self.logs[pod] = text
        if self.on_log is not None:
            self.on_log(pod, text)
        return text

    def _cleanup(self) -> None:
        """Delete this run's namespace (only if it carries this run's label and UID); wait until it is gone.

        Bounded by the run's deadline (at least one read and one delete are sent, each under the
        client's request timeout); `remains()` says what is left when it could not finish.
        """
        if not self.namespace_sent:
            self.gone = True
            return
        try:
            meta = self.cluster.read_namespace(self.namespace)
            if meta is None:
                self.gone = True
                return
            labels = meta.get("labels") or {}
            uid = str(meta.get("uid") or "")
            if labels.get(LABEL_ACCEPTANCE_RUN) != self.run_id or (
                self.namespace_uid is not None and uid != self.namespace_uid
            ):
                self.obs.notes.append(
                    f"namespace {self.namespace} does not carry this run's label and UID; not deleted"
                )
                self.gone = True  # not ours: nothing of this run remains in it to report
                return
            self.namespace_uid = uid
            if not meta.get("deletionTimestamp"):
                self.cluster.delete_namespace(self.namespace, uid)
            stop = min(self.clock() + NAMESPACE_GONE_S, max(self.deadline, self.clock()))
            while self.cluster.read_namespace(self.namespace) is not None:
                if self.clock() >= stop:
                    self.obs.notes.append(
                        f"namespace {self.namespace} was still terminating when the run ended"
                    )
                    return
                self.sleep(POLL_S)
            self.gone = True
        except UpstreamError as exc:
            self.obs.notes.append(f"cleanup failed ({exc.message})")
