"""GPU021 follows NVIDIA's CUDA compatibility: minor-version compatibility within a major family
(12.x on >= 525, 13.x on >= 580, 11.x on >= 450.80.02), the container runtime's reading of an
explicit NVIDIA_REQUIRE_CUDA, and NGC framework images by release. Expected outcomes come from
NVIDIA's tables (data/cuda_compat.yaml, data/cuda_driver.csv, data/ngc_images.csv), by hand."""

from __future__ import annotations

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from gpuplane.audit.facts import cuda_min_driver, driver_cuda, minor_version_min_drivers
from tests.audit.helpers import audit_yaml

POD = """apiVersion: v1
kind: Node
metadata:
  name: gpu-1
  labels: {{nvidia.com/gpu.present: "true", nvidia.com/cuda.driver-version.full: "{driver}"}}
spec:
  taints: [{{key: nvidia.com/gpu, value: present, effect: NoSchedule}}]
status:
  capacity: {{nvidia.com/gpu: "8"}}
---
apiVersion: v1
kind: Pod
metadata: {{name: p, namespace: team-a}}
spec:
  containers:
    - name: c
      image: {image}
      env: {env}
      resources: {{limits: {{nvidia.com/gpu: 1}}}}
"""


def _gpu021(driver: str, image: str, env: str = "[]") -> list[str]:
    found = audit_yaml(POD.format(driver=driver, image=image, env=env))
    return [f.message for f in found if f.rule == "GPU021"]


@pytest.mark.parametrize(
    ("driver", "image", "flagged"),
    [
        ("535.104.05", "nvcr.io/nvidia/cuda:12.6.2-runtime-ubuntu22.04", False),  # 12.x on >= 525
        ("525.60.13", "nvcr.io/nvidia/cuda:12.8.0-runtime-ubuntu22.04", False),  # the 12.x floor itself
        ("520.61.05", "nvcr.io/nvidia/cuda:12.0.0-runtime-ubuntu22.04", True),  # below 525
        ("470.82.01", "nvcr.io/nvidia/cuda:12.2.2-runtime-ubuntu22.04", True),
        ("575.57.08", "nvcr.io/nvidia/cuda:13.0.1-runtime-ubuntu24.04", True),  # 13.x needs >= 580
        ("580.65.06", "nvcr.io/nvidia/cuda:13.2.0-runtime-ubuntu24.04", False),
        ("450.80.02", "nvcr.io/nvidia/cuda:11.8.0-runtime-ubuntu22.04", False),  # 11.x from 450.80.02
        ("450.51.06", "nvcr.io/nvidia/cuda:11.8.0-runtime-ubuntu22.04", True),
        ("535.104.05", "nvcr.io/nvidia/pytorch:24.05-py3", False),  # NGC 24.05 is CUDA 12.4.1
        ("470.82.01", "nvcr.io/nvidia/pytorch:24.05-py3", True),
        ("575.57.08", "nvcr.io/nvidia/pytorch:25.12-py3", True),  # NGC 25.12 is CUDA 13.1.0
        ("575.57.08", "nvcr.io/nvidia/tritonserver:25.10-trtllm-python-py3", False),  # 12.9.1
        ("470.82.01", "nvcr.io/nvidia/tritonserver:24.05-py3", False),  # not a listed variant: no guess
    ],
)
def test_minor_version_compatibility(driver: str, image: str, flagged: bool) -> None:
    assert bool(_gpu021(driver, image)) is flagged


def test_the_message_names_the_floor_of_the_major_family() -> None:
    (message,) = _gpu021("470.82.01", "nvcr.io/nvidia/pytorch:24.05-py3")
    assert "older than 525" in message and "CUDA 12.x" in message and "rel-24-05" in message


@pytest.mark.parametrize(
    ("driver", "require", "flagged"),
    [
        # The runtime compares cuda>= with the driver's CUDA (535.104 -> 12.2): 12.6 is refused...
        ("535.104.05", "cuda>=12.6", True),
        # ...unless an ORed alternative holds, as NVIDIA's official images write them.
        ("535.104.05", "cuda>=12.6 brand=tesla,driver>=535,driver<536", False),
        ("550.54.15", "cuda>=12.4", False),
        ("545.23.06", "cuda>=12.4 brand=tesla,driver>=535,driver<536", True),
    ],
)
def test_an_explicit_require_is_read_as_the_runtime_reads_it(
    driver: str, require: str, flagged: bool
) -> None:
    env = f'[{{name: NVIDIA_REQUIRE_CUDA, value: "{require}"}}]'
    assert bool(_gpu021(driver, "registry.example.com/app:1.0", env)) is flagged


def test_driver_cuda_versions_follow_table_3() -> None:
    assert driver_cuda((535, 104, 5)) == (12, 2)
    assert driver_cuda((550, 54, 15)) == (12, 4)
    assert driver_cuda((580, 65, 6)) == (13, 0)
    assert minor_version_min_drivers() == {13: (580,), 12: (525,), 11: (450, 80, 2)}


def _driver_text(version: tuple[int, ...]) -> str:
    return ".".join(str(p) for p in version)


@given(st.sampled_from(sorted(cuda_min_driver().items())), st.integers(0, 3))
def test_a_driver_at_or_above_the_toolkit_driver_is_never_flagged(
    row: tuple[tuple[int, int], tuple[int, ...]], bump: int
) -> None:
    cuda, need = row
    driver = _driver_text((need[0] + bump, *need[1:]))
    assert _gpu021(driver, f"nvcr.io/nvidia/cuda:{cuda[0]}.{cuda[1]}.0-runtime-ubuntu22.04") == []


@given(st.sampled_from(sorted(cuda_min_driver())), st.integers(1, 60))
def test_a_driver_below_the_major_floor_is_always_flagged(cuda: tuple[int, int], below: int) -> None:
    floor = minor_version_min_drivers().get(cuda[0])
    assume(floor is not None and floor[0] - below > 300)
    assert floor is not None
    driver = f"{floor[0] - below}.10.01"
    assert len(_gpu021(driver, f"nvcr.io/nvidia/cuda:{cuda[0]}.{cuda[1]}.0-runtime-ubuntu22.04")) == 1


@given(st.sampled_from(sorted(cuda_min_driver())))
def test_within_the_major_family_minor_version_compatibility_holds(cuda: tuple[int, int]) -> None:
    floor = minor_version_min_drivers().get(cuda[0])
    assume(floor is not None)
    assert floor is not None
    # the floor of a major family (525 for 12.x) runs every minor of the family
    assert (
        _gpu021(
            _driver_text(floor + (0,) * (3 - len(floor))), f"nvcr.io/nvidia/cuda:{cuda[0]}.{cuda[1]}.0-base"
        )
        == []
    )
