"""Issue 9, "Why" items 4, 5 and 6 through the installed CLI: hostile, huge and silently-wrong
inputs end in one located line and exit 2 (or a correct result), never a traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support.cli import EXAMPLE, assert_one_error, gpuplane, shell

REPO = Path(__file__).resolve().parents[2]
KUEUE = REPO / "tests" / "kueue_upstream" / "scenarios"
TRACE = "id,class,submit_s,pod_sets,work_gpu_s,team\nj1,training,0,worker:1x1,3600,vision\n"
UTF16 = EXAMPLE.read_text().encode("utf-16")


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    made = {
        "utf16.yaml": UTF16,
        "latin1.yaml": b"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: caf\xe9}\n",
        "trace.csv": TRACE.encode(),
        "latin1.csv": (TRACE + "j2,training,0,worker:1x1,3600,\xe9quipe\n").encode("latin-1"),
        "deep.yaml": ("a: " + "[" * 1000 + "]" * 1000 + "\n").encode(),
        "block-deep.yaml": ("".join("  " * i + "k:\n" for i in range(150)) + "  " * 150 + "x: 1\n").encode(),
        "bigint.yaml": f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: n}}\ndata: {{a: {'9' * 5000}}}\n".encode(),
    }
    out = {}
    for name, data in made.items():
        out[name] = tmp_path / name
        out[name].write_bytes(data)
    return out


def test_text_that_is_not_utf8_names_the_file_and_the_byte_in_every_role(files: dict[str, Path]) -> None:
    utf16, latin1 = files["utf16.yaml"], files["latin1.yaml"]
    roles = [
        ("spec", "validate", utf16),
        ("render", utf16, "-o", files["utf16.yaml"].parent / "out"),
        ("simulate", utf16),
        ("simulate", EXAMPLE, "-w", files["trace.csv"], "--team-map", utf16),
        ("explain", "-f", latin1),
        ("audit", "--spec", utf16),
        ("audit", "-f", EXAMPLE, "--config", latin1),
    ]
    for args in roles:
        line = assert_one_error(gpuplane(*args))
        bad = utf16 if utf16 in args else latin1
        assert line.startswith(f"{bad}:"), line
        assert "UTF-16/UTF-32 text" in line or "byte 0xe9 at byte offset 51" in line, line
    line = assert_one_error(gpuplane("simulate", EXAMPLE, "-w", files["latin1.csv"], "-q"))
    csv_file = files["latin1.csv"]
    assert (
        line
        == f"{csv_file}:3:31: error: not UTF-8 text: byte 0xe9 at byte offset 110 (invalid continuation byte)"
    )
    audited = gpuplane("audit", "-f", latin1)  # audit keeps reading: a GPU000 finding at the byte
    assert audited.code == 1 and f"{latin1}:3:21  HIGH  GPU000    not UTF-8 text: byte 0xe9" in audited.out


def test_binary_and_closed_stdin() -> None:
    binary = Path(sys.executable).read_bytes()[:4096]
    for command in (["explain", "-f", "-"], ["audit", "-f", "-"], ["spec", "validate", "-"]):
        line = assert_one_error(gpuplane(*command, stdin=binary))
        assert line.startswith("<stdin>:") and ("not UTF-8" in line or "NUL byte" in line), line
    closed = shell("gp explain -f - <&-")
    assert assert_one_error(closed) == "<stdin>: error: stdin is closed; pipe the input in or name a file"


def test_nesting_and_huge_integers_are_stated_limits(files: dict[str, Path], tmp_path: Path) -> None:
    for name in ("deep.yaml", "block-deep.yaml", "bigint.yaml"):
        for args in (("spec", "validate"), ("explain", "-f"), ("audit", "-f", EXAMPLE, "--config")):
            line = assert_one_error(gpuplane(*args, files[name]))
            assert line.startswith(f"{files[name]}:1:") or line.startswith(f"{files[name]}:")
            assert "nest" in line or "digits" in line, line
    deep_map = tmp_path / "teams.yaml"
    deep_map.write_text("map: " + "{a: " * 10_000 + "b" + "}" * 10_000 + "\n")
    line = assert_one_error(
        gpuplane("simulate", EXAMPLE, "-w", files["trace.csv"], "--team-map", deep_map, "-q")
    )
    assert line.startswith(f"{deep_map}:1:") and "nesting" in line


def kueue_objects() -> list[dict[str, Any]]:
    path = sorted(KUEUE.glob("*/objects.yaml"))[0]
    return [d for d in yaml.safe_load_all(path.read_text()) if d]


def test_kueue_numbers_that_overflow_are_located(tmp_path: Path) -> None:
    objects = kueue_objects()
    cq = next(o for o in objects if o["kind"] == "ClusterQueue")
    cq["spec"]["fairSharing"] = {"weight": "1e400"}
    path = tmp_path / "kueue.yaml"
    path.write_text(yaml.safe_dump_all(objects))
    line = assert_one_error(gpuplane("explain", "-f", path))
    assert line.startswith(f"{path}:") and "spec.fairSharing.weight: quantity '1e400' is larger" in line
    cq["spec"]["fairSharing"] = {"weight": 1}
    cq["spec"]["cohort"] = ["a", "list"]
    path.write_text(yaml.safe_dump_all(objects))
    assert "spec.cohort: expected a name" in assert_one_error(gpuplane("explain", "-f", path))


def test_a_node_with_1e400_gpus_is_a_located_error_in_audit(tmp_path: Path) -> None:
    node = tmp_path / "node.yaml"
    node.write_text(
        "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus:\n  capacity: {nvidia.com/gpu: '1e400'}\n"
    )
    line = assert_one_error(gpuplane("audit", "-f", node))
    assert line == (
        f"{node}:5:30: error: status.capacity.nvidia.com/gpu: quantity '1e400' is larger than a Kubernetes quantity can be (2^63-1)"
    )


def test_ctrl_c_during_start_up_is_one_line_and_130() -> None:
    # An interrupt while the CLI is still being imported (deterministic: the import raises it).
    script = (
        "import builtins, sys\n"
        "real = builtins.__import__\n"
        "def hook(name, *a, **k):\n"
        "    if name == 'typer':\n"
        "        raise KeyboardInterrupt\n"
        "    return real(name, *a, **k)\n"
        "builtins.__import__ = hook\n"
        "from gpuplane.entry import main\n"
        "main()\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=False)
    assert (proc.returncode, proc.stderr) == (130, "gpuplane: interrupted\n")


def test_unbounded_inputs_stop_at_their_limits(tmp_path: Path) -> None:
    line = assert_one_error(gpuplane("explain", "-f", "/dev/zero"))
    assert (
        line
        == "/dev/zero: error: larger than the input limit of 67108864 bytes (limits: input_bytes); split the input"
    )
    spec = tmp_path / "replicas.yaml"
    spec.write_text(
        EXAMPLE.read_text().replace(
            "sharing: {mode: exclusive}", "sharing: {mode: time-slicing, replicas: 1.0e+40}", 1
        )
    )
    for args in (("spec", "validate", spec), ("render", spec, "-o", tmp_path / "out"), ("simulate", spec)):
        assert "nodePools[0].sharing.replicas" in assert_one_error(gpuplane(*args))
    trace = tmp_path / "huge.csv"
    trace.write_text(
        "id,class,submit_s,pod_sets,work_gpu_s,team\nj1,training,0,worker:1000000000x8,3600,vision\n"
    )
    strict = assert_one_error(gpuplane("simulate", EXAMPLE, "-w", trace, "-q", "--strict"))
    assert (
        strict
        == f"{trace}:2: error: pod_sets: 1000000000 pods; a workload has at most 150000 (limits: pods_per_workload)"
    )
    lenient = gpuplane("simulate", EXAMPLE, "-w", trace, "-q")
    assert lenient.code == 0 and "1 bad trace rows were skipped" in lenient.err
    assert not (tmp_path / "out").exists()


def test_duplicate_keys_are_errors_in_the_spec_and_warnings_in_manifests(tmp_path: Path) -> None:
    spec = tmp_path / "dup.yaml"
    spec.write_text(EXAMPLE.read_text().replace("  name: ml-aks\n", "  name: ml-aks\n  name: other\n", 1))
    line = assert_one_error(gpuplane("spec", "validate", spec))
    assert line == f"{spec}:9:3: error: duplicate key 'name' (first at line 8)"
    pod = tmp_path / "pod.yaml"
    pod.write_text(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n  name: b\nspec: {containers: [{name: c, image: i}]}\n"
    )
    run = gpuplane("audit", "-f", pod)
    assert f"{pod}:5:3: warning: duplicate key 'name': this later value wins over line 4" in run.err
    assert "Traceback" not in run.err


def test_unreadable_entries_are_errors_not_a_false_clean(tmp_path: Path) -> None:
    manifests = tmp_path / "manifests"
    manifests.mkdir()
    (manifests / "ok.yaml").write_text("apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n")
    (manifests / "loop.yaml").symlink_to(manifests / "loop.yaml")  # cannot be read by anyone
    for command in (("audit", "-f"), ("explain", "-f")):
        line = assert_one_error(gpuplane(*command, manifests))
        assert line == f"{manifests / 'loop.yaml'}: error: cannot read: Too many levels of symbolic links"


def test_infinite_costs_never_reach_the_json(tmp_path: Path) -> None:
    spec = tmp_path / "inf.yaml"
    spec.write_text(EXAMPLE.read_text().replace("supportMonthly: 1500", "supportMonthly: .inf", 1))
    if "supportMonthly: .inf" not in spec.read_text():
        pytest.fail("the example spec no longer has supportMonthly: 1500")
    assert "is not a finite number" in assert_one_error(
        gpuplane("simulate", spec, "--json", tmp_path / "m.json")
    )
    assert not (tmp_path / "m.json").exists()


def test_process_substitution_works_wherever_stdin_does(tmp_path: Path) -> None:
    trace = tmp_path / "trace.csv"
    trace.write_text(TRACE)
    kueue = sorted(KUEUE.glob("*/objects.yaml"))[0]
    direct = gpuplane("explain", "-f", kueue, "-o", "json")
    assert direct.code == 0
    piped = shell(f'gp explain -f <(cat "{kueue}") -o json')
    assert (piped.code, piped.out) == (0, direct.out)
    from_stdin = shell(f'cat "{kueue}" | gp explain -f - -o json')
    assert (from_stdin.code, from_stdin.out) == (0, direct.out)
    sim = shell(f'gp simulate "{EXAMPLE}" "{EXAMPLE}" -w <(cat "{trace}") -q --json -')
    assert sim.code == 0, sim.err
    assert '"platforms"' in sim.out
    stdin_sim = shell(f'cat "{trace}" | gp simulate "{EXAMPLE}" -w - -q --json -')
    assert stdin_sim.code == 0, stdin_sim.err
