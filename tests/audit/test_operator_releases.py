"""GPU013 on the GPU Operator at several releases: values files, a values override pinning the
operator, and the chart version a Flux HelmRelease or an Argo CD Application installs
(fixtures/operator-releases/README.md). Expected CVEs come from the bulletins' table in
audit/data/cves.yaml: a release is affected by every CVE whose fixed release is newer."""

from __future__ import annotations

import pytest

from tests.audit.helpers import FIXTURES, audit_files

RELEASES = FIXTURES / "operator-releases"
ALL = ["CVE-2024-0132", "CVE-2024-0133", "CVE-2025-23359", "CVE-2025-23266", "CVE-2025-23267"]


@pytest.mark.parametrize(
    ("name", "cves"),
    [
        ("values-v24.3.0.yaml", ALL),  # toolkit 1.15.0 < 1.16.2
        ("values-v24.6.2.yaml", ALL[2:]),  # toolkit 1.16.2: fixed 0132/0133 only
        ("values-v24.9.2.yaml", ALL[3:]),  # toolkit 1.17.4: fixed 23359
        ("values-v25.3.1.yaml", []),  # toolkit 1.17.8: every listed CVE fixed
        ("helmrelease-v24.3.0.yaml", ALL),
        ("argo-application-v24.3.0.yaml", ALL),
    ],
)
def test_known_cves_per_release(name: str, cves: list[str]) -> None:
    hits = [f for f in audit_files(RELEASES / name) if f.rule == "GPU013"]
    if not cves:
        assert hits == []
        return
    assert len(hits) == 1 and hits[0].severity == "critical"
    assert hits[0].message.split(" is affected by ")[1].split(";")[0] == ", ".join(cves)


def test_operator_version_alone_in_a_values_override_is_judged() -> None:
    path = FIXTURES / "readers" / "gpu-operator-values" / "operator-pin.yaml"
    hits = [f for f in audit_files(path) if f.rule == "GPU013"]
    assert len(hits) == 1 and "gpu-operator v24.3.0" in hits[0].message and hits[0].line == 3


def test_chart_version_points_at_the_field() -> None:
    lines = (RELEASES / "argo-application-v24.3.0.yaml").read_text().splitlines()
    hit = next(f for f in audit_files(RELEASES / "argo-application-v24.3.0.yaml") if f.rule == "GPU013")
    assert hit.line is not None and "targetRevision: v24.3.0" in lines[hit.line - 1]


def test_another_chart_in_an_application_is_not_the_operator() -> None:
    text = (
        (RELEASES / "argo-application-v24.3.0.yaml")
        .read_text()
        .replace("chart: gpu-operator", "chart: other")
    )
    from tests.audit.helpers import audit_yaml

    assert [f for f in audit_yaml(text) if f.rule == "GPU013"] == []
