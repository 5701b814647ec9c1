"""Every spec the loader accepts renders: mutate the examples, and whenever the mutated spec loads,
render_all must succeed and every YAML file it writes must parse."""

from __future__ import annotations

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpuplane.errors import InputError
from gpuplane.render import render_all
from gpuplane.spec import parse_spec
from tests.support.mutation import EXAMPLE_DOCS, lookup, paths, replaced, value_like

SCALARS = st.one_of(
    st.booleans(),
    st.integers(0, 64),
    st.sampled_from(
        ["", "x", "T4", "L4", "H100-80GB", "mig", "mps", "time-slicing", "exclusive", "mixed", "single"]
    ),
    st.lists(st.sampled_from(["1g.10gb", "3g.40gb", "2g.20gb", "7g.80gb"]), min_size=1, max_size=4),
)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_every_loadable_mutation_renders(data: st.DataObject) -> None:
    doc = data.draw(st.sampled_from(EXAMPLE_DOCS))
    for _ in range(data.draw(st.integers(1, 2))):
        path = data.draw(st.sampled_from(paths(doc)))
        current = lookup(doc, path)
        doc = replaced(doc, path, data.draw(st.one_of(value_like(current), SCALARS)))
    try:
        spec, _ = parse_spec(yaml.safe_dump(doc, sort_keys=False), "mutated.yaml")
    except InputError:
        return
    for api in ("v1beta2", "v1beta1"):
        result = render_all(spec, api)
        for name, text in result.files.items():
            if name.endswith((".yaml", ".yml")):
                list(yaml.safe_load_all(text))
