"""The Kueue Configuration fragment render writes for every spec: each field it sets exists, with its
type, in Kueue's own Configuration API of the version it names (Kueue decodes the file strictly,
pkg/config/config.go `serializer.EnableStrict`, so an unknown field stops the controller), and it
always turns on the ClusterQueue resource metrics that `gpuplane account` reads.

The shapes below are transcribed by hand from kubernetes-sigs/kueue
apis/config/{v1beta1,v1beta2}/configuration_types.go (json tags) at v0.19.2 and @ff69552e
(v0.20.0-devel-377): every top-level field, and the sections render fills in full.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from gpuplane.cli import app
from gpuplane.render import kueue as render_kueue
from gpuplane.render import render_all
from tests.render.render_helpers import EXAMPLES, SMALL_SPEC, rendered, spec_from

# A leaf is a Python type; "object" is a section render never fills (any key in it fails below).
Shape = dict[str, Any]
OBJECT = "object"
_TOP_COMMON: Shape = {
    "apiVersion": str,
    "kind": str,
    "namespace": str,
    # ControllerManager (inline)
    "webhook": OBJECT,
    "leaderElection": OBJECT,
    "metrics": {"bindAddress": str, "enableClusterQueueResources": bool, "customLabels": OBJECT},
    "health": OBJECT,
    "pprofBindAddress": str,
    "controller": OBJECT,
    "tls": OBJECT,
    "manageJobsWithoutQueueName": bool,
    "managedJobsNamespaceSelector": OBJECT,
    "internalCertManagement": OBJECT,
    "waitForPodsReady": OBJECT,
    "clientConnection": OBJECT,
    "integrations": OBJECT,
    "multiKueue": OBJECT,
    "admissionFairSharing": OBJECT,
    "featureGates": OBJECT,
    "objectRetentionPolicies": OBJECT,
}
_MAPPING = {"name": str, "deviceClassNames": [str]}
SHAPES: dict[str, Shape] = {
    "v1beta1": {
        **_TOP_COMMON,
        "queueVisibility": OBJECT,
        "fairSharing": {"enable": bool, "preemptionStrategies": [str]},
        "resources": {
            "excludeResourcePrefixes": [str],
            "transformations": OBJECT,
            "deviceClassMappings": [_MAPPING],
        },
    },
    "v1beta2": {
        **_TOP_COMMON,
        "visibilityServer": OBJECT,
        # v1beta2 dropped `enable`: the section's presence turns fair sharing on.
        "fairSharing": {"preemptionStrategies": [str]},
        "resources": {
            "quotaCheckStrategy": OBJECT,
            "excludeResourcePrefixes": [str],
            "transformations": OBJECT,
            "deviceClassMappings": [{**_MAPPING, "sources": OBJECT}],
        },
    },
}
# FairSharing.preemptionStrategies values (configuration_types.go PreemptionStrategy consts).
PREEMPTION_STRATEGIES = {"LessThanOrEqualToFinalShare", "LessThanInitialShare"}


def shape_errors(value: Any, shape: Any, path: str = "") -> list[str]:
    """Where `value` leaves `shape`: unknown fields, wrong types, filled-in untranscribed sections."""
    if shape == OBJECT:
        return [f"{path}: a section render should not set"]
    if isinstance(shape, dict):
        if not isinstance(value, dict):
            return [f"{path}: expected an object"]
        errors = []
        for key, item in value.items():
            where = f"{path}.{key}" if path else key
            errors += shape_errors(item, shape[key], where) if key in shape else [f"{where}: unknown field"]
        return errors
    if isinstance(shape, list):
        if not isinstance(value, list):
            return [f"{path}: expected a list"]
        return [e for i, item in enumerate(value) for e in shape_errors(item, shape[0], f"{path}[{i}]")]
    return [] if type(value) is shape else [f"{path}: expected {shape.__name__}"]


def test_the_shape_check_rejects_unknown_fields_and_wrong_types() -> None:
    shape = SHAPES["v1beta2"]
    assert shape_errors({"metrics": {"enableClusterQueueResources": True}}, shape) == []
    assert shape_errors({"metrics": {"enableClusterQueueResource": True}}, shape) == [
        "metrics.enableClusterQueueResource: unknown field"
    ]
    assert shape_errors({"fairSharing": {"enable": True}}, shape) == ["fairSharing.enable: unknown field"]
    assert shape_errors({"metrics": {"enableClusterQueueResources": "true"}}, shape) == [
        "metrics.enableClusterQueueResources: expected bool"
    ]
    assert shape_errors({"health": {}}, shape) == ["health: a section render should not set"]


def _fragment(text: str) -> dict[str, Any]:
    doc: dict[str, Any] = yaml.safe_load(text)
    return doc


@pytest.mark.parametrize("api", ["v1beta1", "v1beta2"])
def test_every_examples_fragment_fits_kueues_configuration_api(example: Path, api: str) -> None:
    spec, result = rendered(example, api)
    config = _fragment(result.files["kueue/kueue-configuration.yaml"])
    assert config["apiVersion"] == f"config.kueue.x-k8s.io/{api}" and config["kind"] == "Configuration"
    assert shape_errors(config, SHAPES[api]) == []
    assert config["metrics"] == {"enableClusterQueueResources": True}
    fair = config.get("fairSharing")
    assert (fair is not None) is spec.queueing.fair_sharing.enabled
    if fair is not None:
        assert set(fair["preemptionStrategies"]) <= PREEMPTION_STRATEGIES
        assert fair.get("enable") is (True if api == "v1beta1" else None)


def test_the_fragment_is_written_for_a_spec_without_fair_sharing_or_dra() -> None:
    spec = spec_from(SMALL_SPEC)
    assert not spec.queueing.fair_sharing.enabled
    config = render_kueue.kueue_configuration(spec)
    assert config == {
        "apiVersion": "config.kueue.x-k8s.io/v1beta2",
        "kind": "Configuration",
        "metrics": {"enableClusterQueueResources": True},
    }
    result = render_all(spec)
    assert _fragment(result.files["kueue/kueue-configuration.yaml"]) == config
    # Not a Kubernetes object: `-o -` (kubectl apply) leaves it out.
    assert "kueue/kueue-configuration.yaml" not in result.objects
    entry = next(e for e in result.index if e.path == "kueue/kueue-configuration.yaml")
    assert "enableClusterQueueResources" in entry.why


def test_a_v1beta1_fragment_turns_explains_fair_sharing_on(tmp_path: Path) -> None:
    example = next(p for p in EXAMPLES if p.name == "gke-h100.yaml")
    out = tmp_path / "out"
    runner = CliRunner()
    result = runner.invoke(app, ["render", str(example), "-o", str(out), "--kueue-api", "v1beta1"])
    assert result.exit_code == 0, result.output
    explained = runner.invoke(app, ["explain", "-o", "json", "-f", str(out / "kueue")])
    assert explained.exit_code == 0, explained.output
    assert '"fairSharing": true' in explained.stdout
