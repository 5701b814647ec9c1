"""The Alibaba openb reader: GPU fractions, model constraints, QoS, phases, and bad rows."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from gpuplane.errors import InputError
from gpuplane.traces import load_workload

OPENB = "alibaba-gpu-v2023-openb"
HEADER = (
    "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
    "deletion_time,scheduled_time\n"
)
GOOD = "p0,12000,16384,1,1000,,LS,Running,0,100,10\n"


def test_default_pod_list_keeps_every_pod_that_ran(traces_dir: Path) -> None:
    ws = load_workload(traces_dir / OPENB / "openb_pod_list_default.csv")
    assert ws.format == "openb"
    [note] = ws.warnings
    found = re.match(r"(\d+) pods never ran", note.message)
    assert found is not None
    pending = int(found.group(1))
    assert pending == 897 and len(ws) + pending == 8_152
    assert Counter(w.final_status for w in ws) == {"completed": 5_193 + 192, "failed": 1_870}
    shared = [w for w in ws if 0 < w.total_gpus < 1]
    assert len({w.pod_sets[0].gpus_per_pod for w in shared}) <= 20
    assert all(w.pod_sets[0].count == 1 for w in ws)
    assert {w.klass for w in ws if w.queue == "LS"} == {"inference"}
    assert {w.klass for w in ws if w.queue == "BE"} == {"batch"}


def test_shares_and_run_times_come_from_the_documented_example_rows(traces_dir: Path) -> None:
    ws = {w.id: w for w in load_workload(traces_dir / OPENB / "openb_pod_list_default.csv")}
    one = ws["openb-pod-0001"]  # 6000,12288,1,460,,LS,Running,427061,12902960,427061
    assert (one.total_gpus, one.submit, one.run_time, one.klass) == (
        0.46,
        427061.0,
        12902960.0 - 427061,
        "inference",
    )
    big = ws["openb-pod-0017"]  # 88000,327680,8,1000,,Burstable,Succeeded,9437497,10769854,9437497
    assert (big.total_gpus, big.pod_sets[0].cpu_milli, big.pod_sets[0].memory_mib) == (8.0, 88000, 327680)
    assert big.klass == "training" and big.duration == 10769854 - 9437497


def test_gpuspec_variant_carries_the_model_constraint_unchanged(traces_dir: Path) -> None:
    ws = load_workload(traces_dir / OPENB / "openb_pod_list_gpuspec33.csv")
    constrained = [w for w in ws if w.gpu_model]
    assert constrained
    assert "V100M16|V100M32|V100M32" in {w.gpu_model for w in constrained}  # kept as written
    assert {m for w in constrained for m in w.allowed_gpu_models} <= {
        "A10",
        "G2",
        "G3",
        "P100",
        "T4",
        "V100M16",
        "V100M32",
    }


def test_multigpu_variant_without_times_is_refused(traces_dir: Path) -> None:
    with pytest.raises(InputError, match="no creation/deletion times"):
        load_workload(traces_dir / OPENB / "openb_pod_list_multigpu20.csv")


BAD = [
    ("p1,1000,1000,2,500,,LS,Running,0,100,10", "gpu_milli"),
    ("p1,1000,1000,0,500,,LS,Running,0,100,10", "gpu_milli"),
    ("p1,1000,1000,1,1000,,Gold,Running,0,100,10", "qos"),
    ("p1,1000,1000,1,1000,,LS,Lost,0,100,10", "pod_phase"),
    ("p1,1000,1000,1,1000,,LS,Running,50,100,10", "scheduled_time"),
    ("p1,1000,1000,1,1000,,LS,Running,0,5,10", "deletion_time"),
    ("p1,1000,1000,1,1000,,BE,Failed,0,10,10", "deletion_time"),
    ("p1,-1,1000,1,1000,,LS,Running,0,100,10", "cpu_milli"),
]


@pytest.mark.parametrize(("row", "column"), BAD)
def test_bad_pod_row_warns_or_fails_with_line_and_column(
    write_csv: Callable[[str, str], Path], row: str, column: str
) -> None:
    path = write_csv("o.csv", HEADER + GOOD + row + "\n")
    ws = load_workload(path)
    assert [w.id for w in ws] == ["p0"]
    assert [(p.line, p.path) for p in ws.warnings] == [(3, column)]
    with pytest.raises(InputError) as info:
        load_workload(path, strict=True)
    assert [(p.line, p.path) for p in info.value.problems] == [(3, column)]


def test_pending_pods_are_counted_not_failed_even_when_strict(write_csv: Callable[[str, str], Path]) -> None:
    path = write_csv("o.csv", HEADER + GOOD + "p1,1,1,1,1000,,BE,Pending,5,9,\n")
    ws = load_workload(path, strict=True)
    assert len(ws) == 1
    assert ws.warnings[0].line == 3 and "1 pods never ran" in ws.warnings[0].message


def _pod_lists(traces_dir: Path) -> dict[str, dict[str, object]]:
    stats = json.loads((traces_dir / "stats.json").read_text(encoding="utf-8"))
    lists: dict[str, dict[str, object]] = stats["alibaba_v2023_openb"]["pod_lists"]
    return lists


def test_every_timed_variant_accounts_for_every_pod(traces_dir: Path) -> None:
    checked = 0
    for name, facts in sorted(_pod_lists(traces_dir).items()):
        if not facts["has_time_columns"]:
            continue
        ws = load_workload(traces_dir / OPENB / name)
        pending = sum(
            int(m.group(1)) for p in ws.warnings if (m := re.match(r"(\d+) pods never ran", p.message))
        )
        assert len(ws.warnings) == 1, name
        assert len(ws) + pending == facts["pods"], name
        checked += 1
    assert checked == 20
