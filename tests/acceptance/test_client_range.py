"""The kubernetes client range pyproject.toml allows (`kubernetes>=29,<38`), both ends tested.

The client checks request bodies differently by version (read in kubernetes-client/python, files
of the 29.0.0 and 37.0.2 wheels): 29.0.0 passes a dict body through
`ApiClient.sanitize_for_serialization` unchanged; 37.x validates it against the typed model first
(`@validate_call` on `BatchV1Api.create_namespaced_job`, `V1ResourceRequirements.limits:
Dict[str, StrictStr]`, models with `extra="forbid"`) and refused the integer `nvidia.com/gpu: 8`
before sending. So every object the suite creates through a typed API is run through both paths
here, for every GPU pool of every example; and the replayed runs (test_ownership.py,
test_runner.py) run again under 29.0.0 from `.venv-kube-low` (`make test` builds it).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from gpuplane.acceptance.suite import render_suite
from gpuplane.spec import load_spec
from tests.acceptance.helpers import REPO, example_pools, options_for

LOW = REPO / ".venv-kube-low" / "bin" / "python"
#: The kinds `acceptance.cluster.Cluster.create` sends through a typed API, and their model.
TYPED = {
    "Namespace": "V1Namespace",
    "ConfigMap": "V1ConfigMap",
    "PersistentVolumeClaim": "V1PersistentVolumeClaim",
    "Job": "V1Job",
}


def _typed_objects() -> list[tuple[str, dict[str, Any]]]:
    out = []
    for example, pool in example_pools():
        spec = load_spec(example)
        for nodes in (1, 2):
            node_pool = spec.pool(pool)
            assert node_pool is not None
            if nodes > 1 and (node_pool.sharing.mode != "exclusive" or node_pool.max_nodes < 2):
                continue
            suite = render_suite(spec, options_for(spec, pool, nodes=nodes))
            for objects in suite.objects.values():
                out += [
                    (f"{example.stem}/{pool}/{nodes}/{o['kind']}", o) for o in objects if o["kind"] in TYPED
                ]
    return out


OBJECTS = _typed_objects()


def test_every_typed_kind_is_covered() -> None:
    assert {o["kind"] for _, o in OBJECTS} == set(TYPED)


@pytest.mark.parametrize(("where", "obj"), OBJECTS, ids=[w for w, _ in OBJECTS])
def test_the_body_survives_both_client_paths_unchanged(where: str, obj: dict[str, Any]) -> None:
    from kubernetes import client

    api = client.ApiClient()
    plain = json.loads(json.dumps(obj))
    # 29.0.0's path (and 37's for a dict): sanitize_for_serialization returns the dict as it is
    assert api.sanitize_for_serialization(plain) == plain  # type: ignore[no-untyped-call]
    model_class = getattr(client, TYPED[obj["kind"]])
    try:
        import pydantic
    except ImportError:  # pragma: no cover - a client without pydantic models has no second path
        return
    if not issubclass(model_class, pydantic.BaseModel):  # pragma: no cover - clients before 37
        return
    # 37's path: validated into the model by validate_call, then serialised from the model
    model = pydantic.TypeAdapter(model_class).validate_python(plain)
    assert api.sanitize_for_serialization(model) == plain  # type: ignore[no-untyped-call]


def test_an_integer_quantity_is_what_the_newest_client_refuses() -> None:
    """The reproduction: the same Job with `nvidia.com/gpu: 8` as an integer fails validation."""
    from kubernetes import client

    pydantic = pytest.importorskip("pydantic")
    if not issubclass(client.V1Job, pydantic.BaseModel):  # pragma: no cover - clients before 37
        pytest.skip("this client does not validate bodies")
    job = next(json.loads(json.dumps(o)) for _, o in OBJECTS if o["kind"] == "Job")
    resources = job["spec"]["template"]["spec"]["containers"][0]["resources"]
    resources["limits"] = {k: int(v) for k, v in resources["limits"].items()}
    with pytest.raises(pydantic.ValidationError, match="valid string"):
        pydantic.TypeAdapter(client.V1Job).validate_python(job)


def test_the_replayed_runs_pass_under_the_lowest_allowed_client() -> None:
    if not LOW.exists():
        pytest.skip("the lowest kubernetes client is missing; `make test` installs it (.venv-kube-low)")
    version = subprocess.run(
        [str(LOW), "-c", "import kubernetes; print(kubernetes.__version__)"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    pin = next(line for line in (REPO / "pyproject.toml").read_text().splitlines() if '"kubernetes>=' in line)
    assert version == "29.0.0" and '"kubernetes>=29,' in pin
    files = [str(Path(__file__).with_name(n)) for n in ("test_ownership.py", "test_runner.py")]
    # The one client (gpuplane.kube) the live readers and acceptance run share: explain --kubeconfig,
    # audit --kubeconfig, and all three against one unreachable or refusing server.
    files += [
        str(REPO / "tests" / p)
        for p in (
            "kube/test_client.py",
            "kube/test_one_client.py",
            "explain/test_live.py",
            "audit/test_live.py",
        )
    ]
    done = subprocess.run(
        [str(LOW), "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist", *files],
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    assert done.returncode == 0, done.stdout[-3000:]
    assert " passed" in done.stdout and "failed" not in done.stdout
    assert sys.executable != str(LOW)
