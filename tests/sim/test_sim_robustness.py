"""Every spec the loader accepts can be simulated: mutate the examples, and whenever the mutated
spec loads, a small generated workload runs to the end with every workload accounted for once."""

from __future__ import annotations

import yaml
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from gpuplane.errors import InputError
from gpuplane.sim import SimConfig, simulate, summarize
from gpuplane.spec import parse_spec
from gpuplane.traces import generate
from tests.support.mutation import EXAMPLE_DOCS, lookup, paths, replaced, value_like


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_every_loadable_mutation_simulates(data: st.DataObject) -> None:
    doc = data.draw(st.sampled_from(EXAMPLE_DOCS))
    for _ in range(data.draw(st.integers(1, 2))):
        path = data.draw(st.sampled_from(paths(doc)))
        doc = replaced(doc, path, data.draw(value_like(lookup(doc, path))))
    try:
        spec, _ = parse_spec(yaml.safe_dump(doc, sort_keys=False), "mutated.yaml")
    except InputError:
        event("mutation rejected by the loader")
        return
    event("mutation loaded and simulated")
    teams = [t.name for t in spec.teams] or ["none"]
    workloads = generate(data.draw(st.integers(0, 50)), 6 * 3600, teams, jobs_per_hour=8)
    config = SimConfig(seed=1, horizon_s=3 * 86400)
    outcome = simulate(spec, workloads, config)
    figures = summarize(outcome, config, None, "mutated")
    counts = figures.workloads
    assert counts.total == len(workloads)
    ends = ("completed", "failed", "killed", "running", "admitted", "pending", "rejected")
    assert sum(getattr(counts, k) for k in ends) == len(
        workloads
    )  # every workload accounted for exactly once
