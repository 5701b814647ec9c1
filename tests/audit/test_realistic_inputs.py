"""Regressions found by running real-world-shaped manifests and node pools through the audit.

Each fixture in fixtures/realistic/ is modelled on what the tools and charts actually produce
(KServe, KubeRay, Knative, Helm output, `az aks nodepool list -o json`).
"""

from __future__ import annotations

from pathlib import Path

from gpuplane.audit import Finding
from tests.audit.helpers import FIXTURES, audit_files, audit_yaml, line_at, rule_ids

REALISTIC = FIXTURES / "realistic"


def _by(findings: list[Finding], rule_id: str) -> list[Finding]:
    return [f for f in findings if f.rule == rule_id]


def test_void_and_none_are_not_device_bypasses_but_driver_capabilities_are() -> None:
    findings = audit_files(REALISTIC / "device-env-values.yaml")
    hits = _by(findings, "GPU002")
    assert [f.name for f in hits] == ["cpu-caps-only"]  # audit_and_cost.md §1.6-4 names it
    assert "NVIDIA_DRIVER_CAPABILITIES=all" in hits[0].message


def test_visible_devices_all_is_still_a_bypass() -> None:
    text = (REALISTIC / "device-env-values.yaml").read_text().replace("value: none", "value: all", 1)
    hits = _by(audit_yaml(text), "GPU002")
    assert [f.name for f in hits] == ["cpu-none", "cpu-caps-only"]
    assert "NVIDIA_VISIBLE_DEVICES=all" in hits[0].message


def test_mutable_tags_of_sidecars_and_init_containers_are_not_gpu_images() -> None:
    findings = audit_files(REALISTIC / "gpu-pod-untagged-sidecar.yaml")
    assert _by(findings, "GPU010") == []


def test_untagged_gpu_container_image_is_still_reported() -> None:
    text = (REALISTIC / "gpu-pod-untagged-sidecar.yaml").read_text().replace("pytorch:24.05-py3", "pytorch")
    hits = _by(audit_yaml(text), "GPU010")
    assert len(hits) == 1 and "'train'" in hits[0].message


def test_kserve_multinode_worker_spec_is_audited() -> None:
    findings = audit_files(REALISTIC / "kserve-multinode.yaml")
    # The worker asks for a GPU in requests only and sets no cpu/memory limits.
    gpu001 = _by(findings, "GPU001")
    assert len(gpu001) == 1 and "worker-container" in gpu001[0].message
    assert any("worker-container" in f.message for f in _by(findings, "GPU009"))
    lines = (REALISTIC / "kserve-multinode.yaml").read_text().splitlines()
    assert "nvidia.com/gpu" in line_at(lines, gpu001[0].line)


def test_unnamed_kserve_runtime_container_is_called_kserve_container() -> None:
    findings = audit_files(REALISTIC / "kserve-unnamed-runtime.yaml")
    gpu009 = _by(findings, "GPU009")
    assert len(gpu009) == 1
    assert "'kserve-container'" in gpu009[0].message


def test_knative_service_and_rayservice_on_spot_are_inference_on_spot() -> None:
    findings = audit_files(REALISTIC / "serving-on-spot.yaml")
    assert sorted(f.kind for f in _by(findings, "GPU017")) == ["RayService", "Service"]
    # Serving kinds are not batch: the queue rule does not treat them as jobs.
    assert "GPU020" not in rule_ids(findings)


def test_aks_mig_pool_offers_slices_whose_names_depend_on_the_mig_strategy() -> None:
    findings = audit_files(REALISTIC / "mig-workload.yaml", REALISTIC / "aks-mig-pool.json")
    assert "GPU022" not in rule_ids(findings)
    assert "GPU025" not in rule_ids(findings)


def test_mig_request_without_any_mig_pool_is_still_reported(tmp_path: Path) -> None:
    pools = tmp_path / "pools.json"
    pools.write_text(
        (REALISTIC / "aks-mig-pool.json").read_text().replace('"gpuInstanceProfile": "MIG1g",', "")
    )
    findings = audit_files(REALISTIC / "mig-workload.yaml", pools)
    assert {"GPU022", "GPU025"} <= rule_ids(findings)


def test_only_requests_quota_items_cap_gpus() -> None:
    findings = audit_files(REALISTIC / "quota-forms.yaml")
    assert sorted(f.name for f in _by(findings, "GPU006")) == ["team-bare", "team-limits"]


def test_device_plugin_helm_release_in_kube_system_is_a_system_component() -> None:
    findings = audit_files(REALISTIC / "nvdp-helm-kube-system.yaml")
    assert findings == []


def test_same_daemonset_in_a_tenant_namespace_is_reported() -> None:
    text = (
        (REALISTIC / "nvdp-helm-kube-system.yaml")
        .read_text()
        .replace("namespace: kube-system", "namespace: team-a")
    )
    assert {"GPU002", "GPU003"} <= rule_ids(audit_yaml(text))


def test_gke_gpu_pool_next_to_a_cpu_pool_is_tainted_by_gke() -> None:
    # autoscaling.minNodeCount is omitted by gcloud when it is 0 (proto3 JSON): scale-to-zero.
    findings = audit_files(REALISTIC / "gke-node-pools.json")
    assert findings == []


def test_lone_described_gke_gpu_pool_is_not_judged_untainted() -> None:
    assert "GPU007" not in rule_ids(audit_files(REALISTIC / "gke-node-pool-describe.json"))


def test_gke_list_of_only_gpu_pools_is_untainted(tmp_path: Path) -> None:
    import json

    pools = json.loads((REALISTIC / "gke-node-pools.json").read_text())[1:]
    path = tmp_path / "gpu-only.json"
    path.write_text(json.dumps(pools))
    assert "GPU007" in rule_ids(audit_files(path))


def test_time_slicing_config_in_the_gpu_operator_namespace_is_judged() -> None:
    findings = _by(audit_files(REALISTIC / "time-slicing-gpu-operator.yaml"), "GPU008")
    assert [(f.kind, f.namespace) for f in findings] == [("ConfigMap", "gpu-operator")]
    assert "team-a, team-b" in findings[0].message


def test_time_slicing_used_by_one_tenant_is_fine() -> None:
    text = (
        (REALISTIC / "time-slicing-gpu-operator.yaml")
        .read_text()
        .replace("namespace: team-b", "namespace: team-a")
    )
    assert "GPU008" not in rule_ids(audit_yaml(text))


def test_trainjob_on_spot_through_pod_overrides_needs_checkpoints() -> None:
    path = REALISTIC / "trainjob-spot.yaml"
    hits = _by(audit_files(path), "GPU019")
    assert len(hits) == 1
    assert "capacityType" in line_at(path.read_text().splitlines(), hits[0].line)


def test_trainjob_on_spot_with_a_checkpoint_volume_is_fine() -> None:
    text = (REALISTIC / "trainjob-spot.yaml").read_text() + (
        "      volumes:\n        - name: ckpt\n          persistentVolumeClaim: {claimName: ckpt}\n"
    )
    assert "GPU019" not in rule_ids(audit_yaml(text))


def test_trainjob_v21_pod_template_overrides_are_read() -> None:
    text = (
        (REALISTIC / "trainjob-spot.yaml").read_text().replace("podSpecOverrides:", "podTemplateOverrides:")
    )
    text = text.replace(
        "      nodeSelector:\n        eks", "      spec:\n        nodeSelector:\n          eks"
    )
    text = text.replace("      tolerations:\n        - {key", "        tolerations:\n          - {key")
    assert "GPU019" in rule_ids(audit_yaml(text))


def test_device_env_from_a_reference_is_still_a_bypass() -> None:
    text = (
        (REALISTIC / "device-env-values.yaml")
        .read_text()
        .replace(
            "{name: NVIDIA_VISIBLE_DEVICES, value: void}",
            "{name: NVIDIA_VISIBLE_DEVICES, valueFrom: {configMapKeyRef: {name: gpus, key: devices}}}",
        )
    )
    hits = _by(audit_yaml(text), "GPU002")
    assert [f.name for f in hits] == ["cpu-void", "cpu-caps-only"] and "<from reference>" in hits[0].message


def test_volcano_job_tasks_are_pod_templates() -> None:
    hits = _by(audit_files(REALISTIC / "volcano-job.yaml"), "GPU001")
    assert len(hits) == 1 and "'mpiworker'" in hits[0].message


def test_dcgm_exporter_chart_in_its_own_namespace_is_a_system_component() -> None:
    assert audit_files(REALISTIC / "dcgm-exporter-helm.yaml") == []


def test_cronjob_labels_on_its_job_template_count() -> None:
    ids = rule_ids(audit_files(REALISTIC / "cronjob-job-labels.yaml"))
    assert "GPU024" not in ids and "GPU020" not in ids


def test_cuda_of_a_container_without_gpu_is_not_matched_to_the_driver() -> None:
    path = REALISTIC / "cuda-sidecar-on-535.yaml"
    assert "GPU021" not in rule_ids(audit_files(path))
    text = path.read_text().replace("cuda:12.2.2-runtime", "cuda:13.0.1-runtime")
    hits = _by(audit_yaml(text), "GPU021")
    assert len(hits) == 1 and "'server'" in hits[0].message


def test_aks_fpga_pool_is_not_a_gpu_pool_but_nv_is() -> None:
    findings = audit_files(REALISTIC / "aks-fpga-pool.json")
    assert [(f.rule, f.name) for f in findings] == [("GPU007", "viz")]


def test_native_sidecar_without_limits_counts_one_shot_init_does_not() -> None:
    hits = _by(audit_files(REALISTIC / "native-sidecar.yaml"), "GPU009")
    assert len(hits) == 1 and "'proxy'" in hits[0].message


def test_a_gpu_kind_no_reader_knows_is_reported_not_skipped(repo_dir: Path) -> None:
    # A custom resource no reader knows: its `template` is a bare pod spec.
    found = audit_files(repo_dir / "tests" / "workloads" / "fixtures" / "unknown-gpu-kind.yaml")
    hits = _by(found, "GPU000")
    assert [(f.kind, f.namespace, f.name) for f in hits] == [("ModelServer", "search", "qwen-chat")]
    llmisvc = audit_files(repo_dir / "tests" / "workloads" / "fixtures" / "llminferenceservice.yaml")
    assert _by(llmisvc, "GPU000") == []  # KServe's LLMInferenceService is a registered serving kind
    assert "not understood" in hits[0].message and hits[0].line is not None


def test_gpu025_knows_p3dn_and_makes_no_claim_when_a_pool_size_is_unknown() -> None:
    job = REALISTIC / "eight-gpu-job.yaml"
    pools = REALISTIC / "eks-p3dn-and-g4dn.yaml"
    assert _by(audit_files(job, pools), "GPU025") == []  # p3dn.24xlarge holds 8
    text = pools.read_text().replace("p3dn.24xlarge", "p9.64xlarge")  # a type the catalog lacks
    assert _by(audit_yaml(job.read_text() + "\n---\n" + text), "GPU025") == []
    sixteen = job.read_text().replace("nvidia.com/gpu: 8", "nvidia.com/gpu: 16")
    hits = _by(audit_yaml(sixteen + "\n---\n" + pools.read_text()), "GPU025")
    assert [f.message for f in hits] == [
        "pod asks for 16 nvidia.com/gpu but the largest node it can land on has 8"
    ]


def test_cluster_scoped_kinds_are_not_shown_in_namespace_default() -> None:
    found = audit_files(REALISTIC / "cluster-training-runtime.yaml")
    assert found and all(f.namespace == "" for f in found if f.kind == "ClusterTrainingRuntime")
    assert "GPU010" in rule_ids(found)


def test_gpu014_names_every_gpu_pod_template() -> None:
    hits = _by(audit_files(REALISTIC / "multi-template-no-priority.yaml"), "GPU014")
    assert [f.message for f in hits] == [
        "GPU pod template Master sets no priorityClassName",
        "GPU pod template Worker sets no priorityClassName",
    ]


def test_gpu006_accepts_a_kueue_cluster_queue_capping_hami_resources() -> None:
    assert _by(audit_files(REALISTIC / "hami-kueue.yaml"), "GPU006") == []
    uncapped = (REALISTIC / "hami-kueue.yaml").read_text().replace(", nvidia.com/total-gpumem]", "]")
    hits = _by(audit_yaml(uncapped), "GPU006")
    assert len(hits) == 1 and "requests.nvidia.com/gpumem" in hits[0].message
    assert "requests.nvidia.com/gpucores" not in hits[0].message
