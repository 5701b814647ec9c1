"""The example Jobs render writes (dra/example-workloads.yaml) are what a platform engineer runs first
to see the platform work, so each must be admissible as rendered: for every example spec and a variant
per provider with DRA pools, render, then `gpuplane explain` every example Job against the rendered
Kueue objects, claim templates, namespaces and priority classes (and the spec's node shapes): each is
admitted, in the ClusterQueue of a team that holds quota for what it claims. A kind of device no team
has quota for gets no example Job, and a note says the pool offers devices nobody can be admitted to."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from gpuplane.cli import app
from gpuplane.render import dra, dra_examples
from gpuplane.spec import derived, load_spec
from tests.render.render_helpers import EXAMPLES, PROVIDERS, VARIANT, spec_from

EXAMPLE_JOBS = "dra/example-workloads.yaml"
EKS_DRA = next(p for p in EXAMPLES if p.name == "eks-dra.yaml")
NODE_SHAPE = {"cpuPerNode": "96", "memoryGiBPerNode": "1024"}


def with_node_shapes(text: str) -> str:
    """The variant with vCPUs and memory per node on every pool (it names GPU counts only)."""
    flow = ", ".join(f"{k}: {v}" for k, v in NODE_SHAPE.items())
    text = re.sub(r"^(  - \{\{name: [^,]+, )", lambda m: m.group(1) + flow + ", ", text, flags=re.M)

    def block(m: re.Match[str]) -> str:
        indent = m.group(1)
        return m.group(0) + "".join(f"\n{indent}{k}: {v}" for k, v in NODE_SHAPE.items())

    return re.sub(r"^( +)maxNodes: \d+$", block, text, flags=re.M)


SPECS: list[tuple[str, str | Path]] = [(p.stem, p) for p in EXAMPLES] + [
    (f"variant-{provider}", with_node_shapes(VARIANT).format(provider=provider)) for provider in PROVIDERS
]


def _spec_file(source: str | Path, tmp_path: Path) -> Path:
    if isinstance(source, Path):
        return source
    path = tmp_path / "platform.yaml"
    path.write_text(source, encoding="utf-8")
    return path


def _render(spec: Path, out: Path) -> None:
    result = CliRunner().invoke(app, ["render", str(spec), "-o", str(out)])
    assert result.exit_code == 0, result.output


def _explain_jobs(spec: Path, out: Path) -> list[dict[str, Any]]:
    args = ["explain", "-o", "json", "--spec", str(spec)]
    for part in ("kueue", "dra", "tenancy"):
        args += ["-f", str(out / part)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    what_if: list[dict[str, Any]] = json.loads(result.stdout)["whatIf"]
    return what_if


def _index_jobs(out: Path) -> set[str]:
    index = yaml.safe_load((out / "index.yaml").read_text(encoding="utf-8"))
    return {o for f in index["files"] if f["path"] == EXAMPLE_JOBS for o in f["objects"]}


@pytest.mark.parametrize(("name", "source"), SPECS, ids=[n for n, _ in SPECS])
def test_every_rendered_example_job_is_admitted_as_rendered(
    name: str, source: str | Path, tmp_path: Path
) -> None:
    spec_path = _spec_file(source, tmp_path)
    spec = load_spec(spec_path)
    out = tmp_path / "out"
    _render(spec_path, out)
    has_dra = any(derived.is_dra(p) for p in spec.node_pools if p.is_gpu)
    if not has_dra:
        assert not (out / EXAMPLE_JOBS).exists()
        return
    answers = _explain_jobs(spec_path, out)
    jobs = {a["job"] for a in answers}
    assert jobs and jobs == _index_jobs(out)
    teams = {ns: t.name for t in spec.teams for ns in t.namespaces}
    for answer in answers:
        assert answer["status"] == "admitted", f"{answer['job']}: {answer['answer']}"
        namespace = answer["job"].split()[1].split("/")[0]
        team = spec.team(teams[namespace])
        assert team is not None and answer["clusterQueue"] == derived.cluster_queue_name(team)


def test_the_eks_dra_example_has_a_job_for_every_kind_its_pools_offer(tmp_path: Path) -> None:
    out = tmp_path / "out"
    _render(EKS_DRA, out)
    assert _index_jobs(out) == {
        "Job research/dra-example-gpu",
        "Job research/dra-example-gpu-time-slicing",
        "Job serving/dra-example-mig-1g-10gb",
        "Job serving/dra-example-mig-2g-20gb",
        "Job serving/dra-example-mig-3g-40gb",
    }


def test_a_kind_no_team_has_quota_for_gets_a_note_and_no_job(tmp_path: Path) -> None:
    text = EKS_DRA.read_text(encoding="utf-8")
    line = "      - {pool: a100-mig, resource: dra.gpuplane.io/mig-2g.20gb, nominal: 16}\n"
    assert line in text
    spec_path = tmp_path / "platform.yaml"
    spec_path.write_text(text.replace(line, ""), encoding="utf-8")
    out = tmp_path / "out"
    _render(spec_path, out)
    jobs = _index_jobs(out)
    assert "Job serving/dra-example-mig-2g-20gb" not in jobs and len(jobs) == 4
    readme = (out / "README.md").read_text(encoding="utf-8")
    assert (
        "kind mig-2g.20gb" in readme
        and "no team holds nominal quota for dra.gpuplane.io/mig-2g.20gb" in readme
    )
    assert all(a["status"] == "admitted" for a in _explain_jobs(spec_path, out))


def test_pools_without_cpu_and_memory_per_node_get_a_note_instead_of_jobs_that_never_fit() -> None:
    # Their cpu/memory quota is 0, so the example's requests (and LimitRange defaults) never fit.
    spec = spec_from(VARIANT.format(provider="generic"))
    assert dra_examples.example_workloads(spec) == []
    (note,) = [n for n in dra_examples.example_notes(spec) if n.startswith("no example Job")]
    assert "gpu" in note and "cpuPerNode and memoryGiBPerNode" in note
    shaped = spec_from(with_node_shapes(VARIANT).format(provider="generic"))
    assert len(dra_examples.example_workloads(shaped)) == len(dra.dra_kinds(shaped))
    assert dra_examples.example_notes(shaped) == []
