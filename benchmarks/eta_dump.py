"""Dump `explain --eta`'s estimates on the benchmark snapshot as JSON, with the CPU time it took.

    python benchmarks/eta_dump.py OUT.json [--small] [--profile PROF] [--reference]

The snapshot is bench_kueue.py's (500 ClusterQueues in 20 cohorts, 50,000 pending, 20,000
admitted; `--small`: 100 / 5,000 / 2,000). The JSON is the `eta` list of the explain JSON output
and the run's notes, so two engines (or two versions of one) compare byte for byte with `cmp`.
`--reference` runs the reference engine (`gpuplane.kueue.reference`: fast paths off). Run it with
PYTHONPATH=build/compiled for the compiled twin. The CPU seconds and cycle count go to stderr.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_explain import eta_cycles
from bench_kueue import build_cluster

from gpuplane.explain.command import ExplainOptions, Explanation, explain_input
from gpuplane.explain.eta import EtaOptions
from gpuplane.kueue.parse import Parsed


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--small", action="store_true")
    ap.add_argument("--profile")
    ap.add_argument("--reference", action="store_true")
    args = ap.parse_args(argv)
    shape = (100, 20, 5_000, 2_000) if args.small else (500, 20, 50_000, 20_000)
    parsed = Parsed(objects=build_cluster(*shape))
    prof = cProfile.Profile() if args.profile else None

    def run() -> Explanation:
        if args.reference:
            from gpuplane.kueue.reference import use_reference_engine

            use_reference_engine(True)
        return explain_input(parsed, ExplainOptions(eta=EtaOptions()))

    c0 = time.process_time()
    result = prof.runcall(run) if prof is not None else run()
    cpu = time.process_time() - c0
    if prof is not None:
        prof.dump_stats(args.profile)
    etas = result.etas
    notes = result.eta_assumptions
    doc = {"eta": [etas[k].as_dict() for k in sorted(etas)], "notes": notes}
    Path(args.out).write_text(json.dumps(doc, indent=0, sort_keys=True) + "\n", encoding="utf-8")
    print(f"cpu {cpu:.1f} s, {eta_cycles(result)} cycles, {len(etas)} estimates", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
