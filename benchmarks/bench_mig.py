"""MIG and catalog figures: catalog load, fit checks per second, maximal-layout enumeration."""

from __future__ import annotations

import time
from collections.abc import Callable

from gpuplane.catalog import load_catalog
from gpuplane.catalog.loader import load_accelerators, load_vm_skus
from gpuplane.sharing import mig

CHECK_LAYOUTS = [
    ["3g.40gb", "2g.20gb", "1g.10gb", "1g.10gb"],
    ["1g.10gb"] * 7,
    ["4g.40gb", "4g.40gb"],
    ["2g.20gb", "2g.20gb", "2g.20gb", "1g.10gb"],
    ["1g.20gb", "1g.20gb", "1g.20gb", "1g.20gb"],
]


def _timed(fn: Callable[[], object], repeat: int) -> float:
    start = time.perf_counter()
    for _ in range(repeat):
        fn()
    return (time.perf_counter() - start) / repeat


def run() -> list[tuple[str, str]]:
    """Figures as (label, value) rows."""
    load_seconds = _timed(lambda: (load_accelerators(), load_vm_skus()), 5)
    cat = load_catalog()
    h100 = cat.accelerator("H100-80GB")
    assert h100 is not None
    checks = 2000
    start = time.perf_counter()
    for i in range(checks):
        mig.check_layout(h100, CHECK_LAYOUTS[i % len(CHECK_LAYOUTS)])
    per_check = (time.perf_counter() - start) / checks
    rows = [
        ("catalog load (uncached, all data files)", f"{load_seconds * 1000:.1f} ms"),
        ("mig.check_layout on H100-80GB", f"{per_check * 1e6:.0f} us/check ({1 / per_check:,.0f}/s)"),
    ]
    for acc in cat.accelerators():
        if not acc.mig_capable:
            continue
        start = time.perf_counter()
        found = mig._maximal(acc, False)  # the uncached enumeration
        rows.append(
            (f"maximal layouts {acc.name}", f"{len(found)} in {(time.perf_counter() - start) * 1000:.1f} ms")
        )
    return rows


if __name__ == "__main__":
    for label, figure in run():
        print(f"{label:<45} {figure}")
