"""The audit's data files load and say what the rules rely on."""

from __future__ import annotations

import itertools

from gpuplane.audit.facts import affected, cuda_min_driver, cves, defaults, driver_for_cuda, version_tuple


def test_cuda_driver_table_is_monotonic_within_each_major() -> None:
    table = cuda_min_driver()
    assert table[(12, 4)] == (550, 54, 14) and table[(12, 0)] == (525, 60, 13)
    keys = sorted(table)
    for a, b in itertools.pairwise(keys):
        assert table[a] <= table[b], (a, b)


def test_unknown_cuda_version_has_no_minimum() -> None:
    assert driver_for_cuda((99, 0)) is None


def test_cve_table_fixed_versions() -> None:
    ids = {c.id for c in cves()}
    assert {"CVE-2024-0132", "CVE-2025-23359", "CVE-2025-23266"} <= ids
    assert [c.id for c in affected("container-toolkit", (1, 17, 8))] == []
    assert "CVE-2025-23266" in [c.id for c in affected("container-toolkit", (1, 17, 7))]
    assert "CVE-2024-0132" in [c.id for c in affected("gpu-operator", (24, 6, 1))]
    assert all(c.source.startswith("https://") for c in cves())


def test_version_tuple_reads_image_tags() -> None:
    assert version_tuple("v1.17.3-ubuntu20.04") == (1, 17, 3)
    assert version_tuple("latest") is None


def test_defaults_name_the_gpu_system_namespaces() -> None:
    d = defaults()
    assert {"namespace": "gpu-operator"} in d["systemComponents"]
    assert "NVIDIA_VISIBLE_DEVICES" in d["deviceEnv"]


def test_cve_affected_ranges_end_just_below_the_fixed_release() -> None:
    from importlib.resources import files

    import yaml

    rows = yaml.safe_load(files("gpuplane.audit.data").joinpath("cves.yaml").read_text())["cves"]
    for row in rows:
        assert set(row["affected"]) == set(row["fixed"]), row["id"]
        for component, bound in row["affected"].items():
            last = version_tuple(bound.removeprefix("<=").strip())
            fixed = version_tuple(str(row["fixed"][component]))
            assert last is not None and fixed is not None
            assert last[:2] == fixed[:2] and last[2] + 1 == fixed[2], (row["id"], component)
