"""`plan` on Ray keeps the guarantees (issue 19), tested with real Ray: a `--ray-address` or
`RAY_ADDRESS` with a password is never printed; an unreachable or silent head is exit 3 within the
connect timeout; `ray://` without `ray[client]` is one usage line (exit 2); a plan through a real
`ray start --head` gives the in-process result; SIGTERM during a local Ray plan exits 143."""

from __future__ import annotations

import importlib.util
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

GPUPLANE = Path(sys.executable).with_name("gpuplane")
RAY = Path(sys.executable).with_name("ray")
SECRET = "s3cr3t-pw"
#: Ray 2.x heads may require token authentication (docs.ray.io ray-security/token-auth): the head
#: and the driver both run with it, as a user connecting to their own cluster would.
AUTH = {"RAY_AUTH_MODE": "token"}
FILES = ("plan.json", "designs.csv", "report.html", "winner.yaml")


def _plan(
    inputs: tuple[Path, Path, Path], out: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    trace, spec, space = inputs
    return subprocess.run(
        [
            str(GPUPLANE),
            "plan",
            str(spec),
            "-w",
            str(trace),
            "--space",
            str(space),
            "--seeds",
            "1",
            "--goal",
            "p90-wait<=1d",
            "--node-failure-rate",
            "0",
            "-q",
            "-o",
            str(out),
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        env={**os.environ, **(env or {})},
    )


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


def _no_secret(done: subprocess.CompletedProcess[str]) -> None:
    assert SECRET not in done.stdout and SECRET not in done.stderr, done.stderr


@pytest.mark.skipif(importlib.util.find_spec("grpc") is not None, reason="ray[client] is installed here")
@pytest.mark.parametrize("how", ["option", "environment"])
def test_ray_client_address_without_ray_client_is_one_usage_line(
    mmc_tiny: tuple[Path, Path, Path], tmp_path: Path, how: str
) -> None:
    address = f"ray://admin:{SECRET}@head.example:10001"
    args, env = (["--ray-address", address], {}) if how == "option" else ([], {"RAY_ADDRESS": address})
    done = _plan(mmc_tiny, tmp_path / "out", *args, env=env)
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines()[-1] == (
        "gpuplane plan: error: --ray-address: ray://***@head.example:10001 is a Ray Client address, which "
        "needs `pip install 'ray[client]'` (or give the head's GCS address HOST:6379, or drop --ray-address "
        "for a local Ray)"
    )
    _no_secret(done)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("how", ["option", "environment"])
def test_a_refused_head_is_exit_3_and_shows_no_password(
    mmc_tiny: tuple[Path, Path, Path], tmp_path: Path, how: str
) -> None:
    address = f"http://admin:{SECRET}@127.0.0.1:{_free_port()}"
    args, env = (["--ray-address", address], {}) if how == "option" else ([], {"RAY_ADDRESS": address})
    done = _plan(mmc_tiny, tmp_path / "out", *args, env=env)
    assert done.returncode == 3, done.stderr
    assert (
        "gpuplane plan: error: Ray http://***@127.0.0.1:" in done.stderr and "cannot connect" in done.stderr
    )
    assert "Traceback" not in done.stderr
    _no_secret(done)
    assert not (tmp_path / "out").exists()


def test_a_password_in_a_gcs_address_is_a_usage_error_shown_redacted(
    mmc_tiny: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    port = _free_port()
    with socket.socket() as listener:  # a head that answers as gRPC would get past the probe
        listener.bind(("127.0.0.1", port))
        done = _plan(mmc_tiny, tmp_path / "out", "--ray-address", f"admin:{SECRET}@127.0.0.1:{port}")
    assert done.returncode in (2, 3), done.stderr
    assert "***@127.0.0.1" in done.stderr and "Traceback" not in done.stderr
    _no_secret(done)


@pytest.fixture
def silent_head() -> Iterator[int]:
    """A TCP server that accepts connections and never answers (Ray retries it without end)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    held: list[socket.socket] = []
    stop = threading.Event()

    def serve() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(listener.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield listener.getsockname()[1]
    stop.set()
    thread.join()
    for conn in held:
        conn.close()
    listener.close()


def test_a_silent_head_is_exit_3_within_the_connect_timeout(
    mmc_tiny: tuple[Path, Path, Path], tmp_path: Path, silent_head: int
) -> None:
    done = _plan(mmc_tiny, tmp_path / "out", "--ray-address", f"127.0.0.1:{silent_head}")
    assert done.returncode == 3, done.stderr
    assert done.stderr.splitlines()[-1] == (
        f"gpuplane plan: error: Ray 127.0.0.1:{silent_head}: no answer within 10 s (ray_connect_timeout_s)"
    )
    assert not (tmp_path / "out").exists()


def test_num_cpus_with_an_existing_cluster_is_a_usage_error(
    mmc_tiny: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    done = _plan(mmc_tiny, tmp_path / "out", "--num-cpus", "2", env={"RAY_ADDRESS": "127.0.0.1:1"})
    assert done.returncode == 2 and "--num-cpus: " in done.stderr, done.stderr


@pytest.fixture
def ray_head(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real Ray head (`ray start --head --block`), ended by its process group when done."""
    port = _free_port()
    log = tmp_path_factory.mktemp("ray-head") / "head.log"
    with log.open("w") as sink:
        head = subprocess.Popen(
            [
                str(RAY),
                "start",
                "--head",
                f"--port={port}",
                "--num-cpus=1",
                "--include-dashboard=false",
                "--block",
                "--disable-usage-stats",
            ],
            stdout=sink,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            env={**os.environ, **AUTH},
        )
    try:
        deadline = time.monotonic() + 240
        while "will now block forever" not in log.read_text(errors="replace"):
            if head.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"ray start did not come up: {log.read_text(errors='replace')[-2000:]}")
            time.sleep(0.5)
        yield f"127.0.0.1:{port}"
    finally:
        os.killpg(head.pid, signal.SIGTERM)
        head.wait(timeout=120)


def test_a_plan_through_a_real_ray_head_equals_the_in_process_plan(
    mmc_tiny: tuple[Path, Path, Path], tmp_path: Path, ray_head: str
) -> None:
    here = _plan(mmc_tiny, tmp_path / "here", "--no-ray")
    there = _plan(mmc_tiny, tmp_path / "there", env={"RAY_ADDRESS": ray_head, **AUTH})
    assert here.returncode == 0 and there.returncode == 0, there.stderr
    for name in FILES:
        assert (tmp_path / "here" / name).read_bytes() == (tmp_path / "there" / name).read_bytes(), name


def test_sigterm_during_a_local_ray_plan_exits_143(
    mmc_small: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    trace, spec, space = mmc_small
    out = tmp_path / "out"
    plan = subprocess.Popen(
        [
            str(GPUPLANE),
            "plan",
            str(spec),
            "-w",
            str(trace),
            "--space",
            str(space),
            "--node-failure-rate",
            "0",
            "--num-cpus",
            "1",
            "-q",
            "-o",
            str(out),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 400
    while not list((out / "cache").glob("*.json")):  # Ray is up and has returned a first result
        assert plan.poll() is None, plan.communicate()
        assert time.monotonic() < deadline, "no evaluation finished"
        time.sleep(0.2)
    plan.send_signal(signal.SIGTERM)
    _, stderr = plan.communicate(timeout=300)
    assert plan.returncode == 143, stderr
    assert stderr.strip().splitlines()[-1] == "gpuplane plan: terminated"
    assert "Traceback" not in stderr
    assert not (out / "winner.yaml").exists()
    assert not [p for p in out.rglob("*") if "gpuplane-tmp" in p.name]
