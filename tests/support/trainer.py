"""A small trainer for the acceptance helper's tests: standard library only, run as a subprocess.

It counts steps, prints `step N` after each, writes its step to a checkpoint file in
$GPUPLANE_CHECKPOINT_DIR every `--every` steps (atomically, as real trainers do), and starts from
the checkpoint when one is there. `--steps` ends it after that many steps in total.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--every", type=int, default=5)
    parser.add_argument("--delay", type=float, default=0.02)
    parser.add_argument("--steps", type=int, default=10**9)
    args = parser.parse_args()
    directory = os.environ["GPUPLANE_CHECKPOINT_DIR"]
    path = os.path.join(directory, "checkpoint.json")
    step = 0
    if os.path.exists(path):
        with open(path, encoding="utf-8") as handle:
            step = int(json.load(handle)["step"])
        print(f"restored checkpoint: {step} steps done", flush=True)
    while step < args.steps:
        time.sleep(args.delay)
        step += 1
        print(f"step {step} loss {1.0 / step:.4f}", flush=True)
        if step % args.every == 0:
            with open(path + ".tmp", "w", encoding="utf-8") as handle:
                json.dump({"step": step}, handle)
            os.replace(path + ".tmp", path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
