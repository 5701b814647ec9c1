"""The in-pod helper run for real as subprocesses: copies from a local HTTP server, from moto's S3
server and from a directory (a mounted PVC); a trainer that checkpoints, is killed and resumes."""

from __future__ import annotations

import base64
import datetime
import http.server
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from gpuplane.acceptance import helper
from gpuplane.acceptance.observations import helper_events
from gpuplane.acceptance.pods import NO_PYTHON_EXIT, python_guard
from tests.acceptance.helpers import REPO

HELPER = Path(helper.__file__)
TRAINER = REPO / "tests" / "support" / "trainer.py"
MOTO = REPO / ".venv-moto" / "bin" / "moto_server"


def _helper(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(HELPER), *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )


def _events(text: str) -> list[dict[str, Any]]:
    return helper_events(text)


@pytest.fixture()
def http_root(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    root = tmp_path / "www"
    root.mkdir()

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), partial(Quiet, directory=str(root)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}", root
    server.shutdown()
    server.server_close()


def test_fetch_over_http_copies_and_reports_bytes_seconds_and_rate(
    http_root: tuple[str, Path], tmp_path: Path
) -> None:
    url, root = http_root
    payload = os.urandom(3 * (1 << 20) + 17)
    (root / "sample.bin").write_bytes(payload)
    done = _helper(
        "fetch", "--to", str(tmp_path / "data"), "--source", f"dataset={url}/sample.bin?token=secret"
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "data" / "dataset" / "sample.bin").read_bytes() == payload
    copy = next(e for e in _events(done.stdout) if e["event"] == "copy")
    assert copy["bytes"] == len(payload) and copy["files"] == 1 and copy["what"] == "dataset"
    assert copy["mb_per_s"] == pytest.approx(len(payload) / 1e6 / copy["seconds"], rel=1e-3)
    assert "secret" not in done.stdout  # query strings (presigned tokens) are never printed


def test_a_failed_copy_is_reported_and_exits_1(http_root: tuple[str, Path], tmp_path: Path) -> None:
    url, _ = http_root
    done = _helper("fetch", "--to", str(tmp_path), "--source", f"weights={url}/missing.safetensors")
    assert done.returncode == 1
    failed = [e for e in _events(done.stdout) if e["event"] == "copy_failed"]
    assert failed and failed[0]["what"] == "weights" and "404" in failed[0]["error"]


def test_fetch_from_a_mounted_volume_copies_the_tree(tmp_path: Path) -> None:
    source = tmp_path / "pvc" / "weights"
    (source / "shards").mkdir(parents=True)
    (source / "config.json").write_text("{}")
    (source / "shards" / "0.bin").write_bytes(b"x" * 1000)
    done = _helper("fetch", "--to", str(tmp_path / "data"), "--source", f"weights=file://{source}")
    assert done.returncode == 0, done.stderr
    copy = next(e for e in _events(done.stdout) if e["event"] == "copy")
    assert (copy["bytes"], copy["files"]) == (1002, 2)
    assert (tmp_path / "data" / "weights" / "shards" / "0.bin").stat().st_size == 1000


def test_sigv4_matches_the_aws_documented_example() -> None:
    # AWS S3 API reference, "Signature Calculations for the Authorization Header", GET Object example.
    env = {
        "AWS_ACCESS_KEY_ID": "AKIAIOSFODNN7EXAMPLE",
        "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "AWS_REGION": "us-east-1",
    }
    now = datetime.datetime(2013, 5, 24, tzinfo=datetime.UTC)
    headers = helper.sigv4_headers(
        "GET", "https://examplebucket.s3.amazonaws.com/test.txt", {"Range": "bytes=0-9"}, env, now
    )
    assert headers["Authorization"] == (
        "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,"
        "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,"
        "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"
    )


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture()
def s3(tmp_path: Path) -> Iterator[str]:
    if not MOTO.exists():
        pytest.skip("moto's S3 server is missing; `make test` installs it (.venv-moto)")
    port = _free_port()
    log = (tmp_path / "moto.log").open("w")
    proc = subprocess.Popen(
        [str(MOTO), "-H", "127.0.0.1", "-p", str(port)], stdout=log, stderr=subprocess.STDOUT
    )
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                urllib.request.urlopen(url + "/moto-api/", timeout=1)
                break
            except OSError:
                time.sleep(0.1)
        else:
            pytest.fail("moto_server did not start")
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        log.close()


SEED = """
import base64, json, sys
import boto3
job = json.load(sys.stdin)
s3 = boto3.client("s3", endpoint_url=job["url"], aws_access_key_id="testing",
                  aws_secret_access_key="testing", region_name="us-east-1")
s3.create_bucket(Bucket=job["bucket"])
for key, body in job["files"].items():
    s3.put_object(Bucket=job["bucket"], Key=key, Body=base64.b64decode(body))
"""


def _seed(url: str, bucket: str, files: dict[str, bytes]) -> None:
    """Upload with boto3 (the AWS SDK, from moto's own environment), as a real producer would."""
    job = {"url": url, "bucket": bucket, "files": {k: base64.b64encode(v).decode() for k, v in files.items()}}
    python = MOTO.parent / "python"
    subprocess.run([str(python), "-c", SEED], input=json.dumps(job), text=True, check=True, timeout=120)


def test_fetch_from_s3_lists_a_prefix_and_copies_single_keys(s3: str, tmp_path: Path) -> None:
    files = {
        "sample/part-0.jsonl": b"a" * 2048,
        "sample/part-1.jsonl": b"b" * 1024,
        "sample/sub/x y.txt": b"c",
    }
    _seed(s3, "datasets", {**files, "other.bin": b"zz"})
    env = dict(
        os.environ,
        AWS_ENDPOINT_URL_S3=s3,
        AWS_ACCESS_KEY_ID="testing",
        AWS_SECRET_ACCESS_KEY="testing",
        AWS_REGION="us-east-1",
    )
    done = _helper(
        "fetch",
        "--to",
        str(tmp_path),
        "--source",
        "dataset=s3://datasets/sample/",
        "--source",
        "weights=s3://datasets/other.bin",
        env=env,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    copies = {e["what"]: e for e in _events(done.stdout) if e["event"] == "copy"}
    assert (copies["dataset"]["bytes"], copies["dataset"]["files"]) == (3073, 3)
    assert (copies["weights"]["bytes"], copies["weights"]["files"]) == (2, 1)
    assert (tmp_path / "dataset" / "sub" / "x y.txt").read_bytes() == b"c"
    assert (tmp_path / "weights" / "other.bin").read_bytes() == b"zz"


def _start_run(ckpt: Path, window: float, *trainer_args: str) -> subprocess.Popen[str]:
    command = [sys.executable, str(HELPER), "run", "--window", str(window), "--checkpoint-dir", str(ckpt)]
    command += ["--poll", "0.05", "--grace", "5", "--", sys.executable, str(TRAINER), *trainer_args]
    return subprocess.Popen(command, stdout=subprocess.PIPE, text=True, start_new_session=True)


def test_trainer_checkpoints_is_killed_and_resumes_from_its_checkpoint(tmp_path: Path) -> None:
    ckpt = tmp_path / "ckpt" / "rank-0"
    first = _start_run(ckpt, 120, "--every", "5")
    seen: list[str] = []
    assert first.stdout is not None
    for line in first.stdout:
        seen.append(line)
        if '"event": "checkpoint"' in line:
            break
    os.killpg(first.pid, signal.SIGKILL)  # the pod is deleted: helper and trainer die at once
    first.wait(timeout=30)
    before = _events("".join(seen))
    assert before[0]["event"] == "start" and before[1] == {
        **before[1],
        "event": "window_start",
        "restored": False,
    }
    saved = json.loads((ckpt / "checkpoint.json").read_text())["step"]
    assert saved >= 5 and saved % 5 == 0

    # the restarted trainer runs 20 more steps and ends by itself (no wall-clock window to race)
    second = _start_run(ckpt, 300, "--every", "5", "--steps", str(saved + 20))
    output, _ = second.communicate(timeout=300)
    assert second.returncode == 0, output
    after = _events(output)
    start = next(e for e in after if e["event"] == "window_start")
    assert start["restored"] is True and start["checkpoint_bytes"] > 0
    resumed = next(e for e in after if e["event"] == "resumed")
    assert resumed["units"] == saved + 1  # the first step after the restored checkpoint
    end = after[-1]
    assert (end["event"], end["reason"], end["exit"], end["units"]) == ("window_end", "exited", 0, saved + 20)
    assert len({e["run"] for e in before} | {e["run"] for e in after}) == 2  # two helper runs


def test_a_command_that_ends_early_with_an_error_fails_the_window(tmp_path: Path) -> None:
    done = _helper(
        "run",
        "--window",
        "30",
        "--checkpoint-dir",
        str(tmp_path),
        "--",
        sys.executable,
        "-c",
        "import sys; print('step 1'); sys.exit(3)",
    )
    assert done.returncode == 1
    end = _events(done.stdout)[-1]
    assert (end["event"], end["reason"], end["exit"], end["units"]) == ("window_end", "exited", 3, 1)


def test_an_image_without_python3_says_so(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    sh = "/bin/sh"
    done = subprocess.run(
        [sh, "-c", python_guard("train"), "sh", "python3", "helper.py"],
        capture_output=True, text=True, env={"PATH": str(bin_dir)}, check=False, timeout=30,
    )  # fmt: skip
    assert done.returncode == NO_PYTHON_EXIT
    assert _events(done.stdout) == [{"gpuplane": "acceptance/v1", "event": "no_python", "step": "train"}]
    assert "this image has no python3" in done.stderr


def test_the_window_end_stops_the_command_and_without_progress_fails(tmp_path: Path) -> None:
    command = [sys.executable, "-c", "import time; time.sleep(600)"]
    done = _helper("run", "--window", "2", "--grace", "5", "--checkpoint-dir", str(tmp_path), "--", *command)
    assert done.returncode == 1  # stopped at the window, but it never reported a step
    end = _events(done.stdout)[-1]
    assert (end["event"], end["reason"], end["exit"], end["units"]) == ("window_end", "window", -15, 0)
