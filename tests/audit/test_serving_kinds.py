"""Serving APIs through the one workload registry: KServe's LLMInferenceService (v1alpha1 and
v1alpha2), NVIDIA Dynamo's DynamoGraphDeployment (v1alpha1 and v1beta1) and an SGLang
LeaderWorkerSet get every rule (fixtures/serving/README.md names what each is modelled on).
Expectations are written from the fixtures by hand: which template asks for what."""

from __future__ import annotations

from gpuplane.audit import Finding
from gpuplane.workloads import SERVING, lookup, not_understood, pod_templates
from gpuplane.yamlio import load_one
from tests.audit.helpers import FIXTURES, audit_files, audit_yaml

SERVING_FIXTURES = FIXTURES / "serving"


def _rules(findings: list[Finding]) -> list[tuple[str, str]]:
    return sorted((f.rule, f.message) for f in findings)


def _ids(findings: list[Finding]) -> list[str]:
    return sorted(f.rule for f in findings)


def test_llm_inference_service_kinds_are_serving_kinds_of_the_registry() -> None:
    for version in ("v1alpha1", "v1alpha2"):
        data = {"apiVersion": f"serving.kserve.io/{version}", "kind": "LLMInferenceService"}
        kind = lookup(data)
        assert kind is not None and kind.category == SERVING and kind.kueue is None


def test_v1alpha1_sample_is_understood_and_clean_but_for_labels() -> None:
    findings = audit_files(SERVING_FIXTURES / "llmisvc-v1alpha1.yaml")
    assert _ids(findings) == ["GPU024"]  # no team/class label; priority, limits, tag are right


def test_v1alpha2_prefill_decode_every_template_is_judged() -> None:
    path = SERVING_FIXTURES / "llmisvc-v1alpha2-pd.yaml"
    data = load_one(path.read_text(), str(path))
    assert [t.role for t in pod_templates(data)] == ["main", "main-worker", "prefill"]
    findings = audit_files(path)
    # decode on spot (GPU017), latest tag on decode (GPU010), prefill: GPU in requests only (GPU001)
    # and no cpu/memory limit (GPU009); no priorityClassName in any of the three (GPU014); the pods
    # carry the team label through spec.labels, not the class label (GPU024).
    assert _ids(findings) == ["GPU001", "GPU009", "GPU010", "GPU014", "GPU014", "GPU014", "GPU017", "GPU024"]
    assert "gpuplane.io/workload-class" in next(f.message for f in findings if f.rule == "GPU024")
    assert "team" not in next(f.message for f in findings if f.rule == "GPU024").split("no ")[1]


def test_without_the_registry_entry_it_was_not_understood() -> None:
    text = (SERVING_FIXTURES / "llmisvc-v1alpha1.yaml").read_text().replace("LLMInferenceService", "LLMThing")
    assert _ids(audit_yaml(text)) == ["GPU000"]


def test_llm_inference_service_config_is_a_base_not_a_workload() -> None:
    path = SERVING_FIXTURES / "llmisvc-config.yaml"
    data = load_one(path.read_text(), str(path))
    assert pod_templates(data) == [] and not_understood(data) == []
    assert audit_files(path) == []


def test_dynamo_v1alpha1_gpu_items_are_nvidia_gpus() -> None:
    findings = audit_files(SERVING_FIXTURES / "dynamo-v1alpha1.yaml")
    # decode: NVIDIA_VISIBLE_DEVICES in envs (GPU002), no cpu/memory limits (GPU009); prefill: gpu in
    # requests only (GPU001), no limits (GPU009), no priority (GPU014); no labels (GPU024).
    assert _ids(findings) == ["GPU001", "GPU002", "GPU009", "GPU009", "GPU014", "GPU024"]
    assert "nvidia.com/gpu: 1" in next(f.message for f in findings if f.rule == "GPU001")


def test_dynamo_v1beta1_pod_templates() -> None:
    findings = audit_files(SERVING_FIXTURES / "dynamo-v1beta1.yaml")
    assert _ids(findings) == ["GPU010", "GPU014", "GPU024"]
    assert "decode" in next(f.message for f in findings if f.rule == "GPU014")


def test_sglang_leader_worker_set() -> None:
    findings = audit_files(SERVING_FIXTURES / "lws-sglang.yaml")
    assert _ids(findings) == ["GPU009", "GPU009", "GPU010", "GPU014", "GPU014", "GPU024"]


def test_serving_kinds_on_spot_are_inference_on_spot() -> None:
    for name in ("llmisvc-v1alpha1.yaml", "dynamo-v1beta1.yaml"):
        text = (SERVING_FIXTURES / name).read_text()
        marker = "    containers:\n" if "llmisvc" in name else "          containers:\n"
        selector = marker.replace("containers:", "nodeSelector: {karpenter.sh/capacity-type: spot}")
        text = text.replace(marker, selector + marker)
        assert "GPU017" in _ids(audit_yaml(text)), name
