"""Table tests for the image, CUDA and quantity parsing the container rules rest on."""

from __future__ import annotations

import pytest

from gpuplane.audit.images import image_tag
from gpuplane.audit.rules.containers import container_cuda
from gpuplane.audit.workloads import Container, quantity


@pytest.mark.parametrize(
    ("image", "expected"),
    [
        ("nginx", ("nginx", "", False)),
        ("nginx:1.27", ("nginx", "1.27", False)),
        ("registry.local:5000/team/app", ("registry.local:5000/team/app", "", False)),
        ("registry.local:5000/team/app:v2", ("registry.local:5000/team/app", "v2", False)),
        ("vllm/vllm-openai@sha256:abc", ("vllm/vllm-openai", "", True)),
        ("vllm/vllm-openai:v0.6.3@sha256:abc", ("vllm/vllm-openai", "", True)),
    ],
)
def test_image_reference_parsing(image: str, expected: tuple[str, str, bool]) -> None:
    assert image_tag(image) == expected


@pytest.mark.parametrize(
    ("image", "env", "cuda"),
    [
        ("nvcr.io/nvidia/cuda:12.4.1-runtime-ubuntu22.04", [], (12, 4)),
        ("nvidia/cuda:11.8.0-base-ubuntu22.04", [], (11, 8)),
        ("pytorch/pytorch:2.5.1-cuda12.4-cudnn9-runtime", [], (12, 4)),
        ("ghcr.io/org/train:2.1-cu121", [], (12, 1)),
        ("nvcr.io/nvidia/pytorch:24.05-py3", [], (12, 4)),  # NGC 24.05: CUDA 12.4.1
        ("nvcr.io/nvidia/pytorch:99.01-py3", [], None),  # a release the table does not list: no guess
        (
            "app:1.0",
            [{"name": "NVIDIA_REQUIRE_CUDA", "value": "cuda>=12.6 brand=tesla,driver>=535,driver<536"}],
            (12, 6),
        ),
        ("app:1.0", [{"name": "CUDA_VERSION", "value": "11.7.1"}], (11, 7)),
        ("cuda:latest", [], None),
    ],
)
def test_container_cuda_version(image: str, env: list[dict[str, str]], cuda: tuple[int, int] | None) -> None:
    found = container_cuda(Container({"name": "c", "image": image, "env": env}, ("spec", "containers", 0)))
    assert (found[0] if found else None) == cuda


@pytest.mark.parametrize(
    ("value", "amount"),
    [
        (1, 1.0),
        ("2", 2.0),
        ("0", 0.0),
        ("1000m", 1.0),  # Kubernetes' grammar (gpuplane.kube.quantity): 1000m is 1
        ("1k", 1000.0),
        ("abc", None),
        ("-1", None),
        (True, None),
        (None, None),
    ],
)
def test_quantity(value: object, amount: float | None) -> None:
    assert quantity(value) == amount
