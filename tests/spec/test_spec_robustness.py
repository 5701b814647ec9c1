"""Any mutation of a valid spec either loads or fails with located InputErrors: never a crash."""

from __future__ import annotations

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpuplane.errors import InputError
from gpuplane.spec import parse_spec
from tests.support.mutation import EXAMPLE_DOCS, paths, replaced

SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 300),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(
        ["", "x", "A100-80GB", "mig", "7g.80gb", "3g.40gb", "nvidia.com/gpu", "time-slicing", "-1"]
    ),
    st.lists(st.sampled_from(["1g.10gb", "3g.40gb", "4g.40gb", "7g.80gb", "2g.20gb"]), max_size=8),
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_mutated_specs_load_or_fail_with_located_errors(data: st.DataObject) -> None:
    doc = data.draw(st.sampled_from(EXAMPLE_DOCS))
    for _ in range(data.draw(st.integers(1, 3))):
        path = data.draw(st.sampled_from(paths(doc)))
        doc = replaced(doc, path, data.draw(SCALARS))
    text = yaml.safe_dump(doc, sort_keys=False)
    try:
        parse_spec(text, "mutated.yaml")
    except InputError as exc:
        assert exc.problems
        assert all(p.file == "mutated.yaml" and p.message for p in exc.problems)
