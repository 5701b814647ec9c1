"""`acceptance run`: apply a rendered suite, drive it through the seven steps, collect, clean up.

    plan = load_plan(suite_dir)              # what will be created (shown before asking)
    obs, manifests, logs = Runner(cluster, plan, clock=time.time, sleep=time.sleep).run()

The sequence is fixed: create the namespace set; step 3's MPIJob and wait for its launcher;
create step 1's workload; when a training pod has reported a checkpoint, save its log and delete
it (step 5); wait for the training pods to finish; read the Workloads (admission times) and the
nodes (labels); delete the namespace. The namespace is deleted on every way out, Ctrl-C
included, and only when this run created it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from gpuplane.acceptance.cluster import Cluster, parse_time
from gpuplane.acceptance.observations import Observations, PodRecord, helper_events, run_of
from gpuplane.acceptance.suite import SUITE_FILE
from gpuplane.errors import InputError, UpstreamError
from gpuplane.vocab import LABEL_ACCEPTANCE, LABEL_ACCEPTANCE_STEP

__all__ = ["Plan", "RunTimeout", "Runner", "load_plan"]

WATCH_S = 10
POLL_S = 5.0
NAMESPACE_GONE_S = 300.0


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
        return str(self.info["namespace"])

    def describe(self) -> list[str]:
        """What the run will create and delete, one line each (shown before asking)."""
        lines = [
            f"create {o['kind']} {o['metadata'].get('namespace', '-')}/{o['metadata']['name']}"
            for o in self.objects
        ]
        lines.append(
            f"delete one running training pod in {self.namespace} after its first checkpoint (step 5)"
        )
        lines.append(f"delete namespace {self.namespace} and everything in it at the end (also on Ctrl-C)")
        return lines


def load_plan(directory: Path) -> Plan:
    """Read a suite directory written by `acceptance render`."""
    suite_file = directory / SUITE_FILE
    try:
        info = json.loads(suite_file.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError.single(
            str(suite_file), f"cannot read ({exc.strerror}); is this an acceptance suite?"
        ) from None
    except ValueError as exc:
        raise InputError.single(str(suite_file), f"not JSON: {exc}") from None
    manifests: dict[str, str] = {}
    objects: list[dict[str, Any]] = []
    for rel in sorted(info.get("manifests", {})):
        path = directory / rel
        try:
            text = path.read_text(encoding="utf-8")
            docs = [d for d in yaml.safe_load_all(text) if isinstance(d, dict)]
        except (OSError, yaml.YAMLError) as exc:
            raise InputError.single(str(path), f"cannot read the manifest: {exc}") from None
        manifests[rel] = text
        objects += docs
    wrong = [
        o for o in objects if o.get("metadata", {}).get("namespace", info["namespace"]) != info["namespace"]
    ]
    if wrong:
        raise InputError.single(
            str(directory),
            f"{wrong[0]['kind']} {wrong[0]['metadata']['name']} is outside namespace {info['namespace']}",
        )
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
    ) -> None:
        self.cluster = cluster
        self.plan = plan
        self.clock = clock
        self.sleep = sleep
        self.deadline = clock() + deadline_s
        self.obs = Observations()
        self.logs: dict[str, str] = {}
        self.pods: dict[str, dict[str, Any]] = {}
        self.created_namespace = False
        self.deleted_uid: str | None = None

    @property
    def _container(self) -> str:
        return str(self.plan.info.get("train_container", "train"))

    # -- the sequence ----------------------------------------------------------------------
    def run(self) -> Observations:
        """Run the suite; the namespace is cleaned up however this ends."""
        try:
            self._create(
                [o for o in self.plan.objects if o["kind"] not in ("Job", "JobSet", "PyTorchJob", "MPIJob")]
            )
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
            out.append(self.cluster.create(obj))
            if obj["kind"] == "Namespace":
                self.created_namespace = True
        return out

    def _workload(self, kind: str) -> dict[str, Any]:
        return self._create([o for o in self.plan.objects if o["kind"] in kind.split("|")])[0]

    def _nccl(self) -> None:
        self._workload("MPIJob")
        done = self._wait(f"{LABEL_ACCEPTANCE_STEP} in (nccl-launcher,nccl-worker)", self._launcher_done)
        for pod in done.values():
            self._record(pod, str(pod["metadata"]["labels"].get(LABEL_ACCEPTANCE_STEP, "nccl")))
        launcher = [
            p for p in done.values() if p["metadata"]["labels"].get(LABEL_ACCEPTANCE_STEP) == "nccl-launcher"
        ]
        if launcher:
            text = self.cluster.pod_log(self.plan.namespace, _name(launcher[0]), "launcher")
            self.logs[_name(launcher[0])] = text
            self.obs.nccl_log = text

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
            text = self.cluster.pod_log(self.plan.namespace, victim, self._container)
            events = helper_events(text)
            if any(e.get("event") == "checkpoint" for e in events):
                self._record(live[victim], "train", text, deleted=True)
                self.cluster.delete_pod(self.plan.namespace, victim)
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
            for event in self.cluster.watch_pods(self.plan.namespace, selector, WATCH_S):
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
            self.logs[record.name] = log
            self.obs.events += helper_events(log)

    def _finish(self, pod: dict[str, Any]) -> None:
        name = _name(pod)
        text = self.cluster.pod_log(self.plan.namespace, name, "fetch") + self.cluster.pod_log(
            self.plan.namespace, name, self._container
        )
        self._record(pod, "train", text)

    def _admission(self) -> None:
        api = str(self.plan.info.get("kueue_api", "v1beta2"))
        for workload in self.cluster.workloads(self.plan.namespace, api):
            owners = [o.get("name") for o in workload.get("metadata", {}).get("ownerReferences", [])]
            if self.plan.info["workloads"]["train"] not in owners:
                continue
            conditions = {c.get("type"): c for c in workload.get("status", {}).get("conditions", [])}
            for kind in ("Admitted", "QuotaReserved"):
                cond = conditions.get(kind)
                if cond and cond.get("status") == "True":
                    self.obs.admitted = parse_time(cond.get("lastTransitionTime"))
                    return

    def _cleanup(self) -> None:
        """Delete the suite's namespace (only if this run created it) and wait until it is gone."""
        if not self.created_namespace:
            return
        try:
            self.cluster.delete_namespace(self.plan.namespace)
            deadline = self.clock() + NAMESPACE_GONE_S
            while self.cluster.namespace_exists(self.plan.namespace):
                if self.clock() > deadline:
                    self.obs.notes.append(
                        f"namespace {self.plan.namespace} was still terminating when the run ended"
                    )
                    return
                self.sleep(POLL_S)
        except UpstreamError as exc:
            self.obs.notes.append(f"cleanup failed, delete namespace {self.plan.namespace} by hand: {exc}")
