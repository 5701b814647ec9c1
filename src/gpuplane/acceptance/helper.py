"""gpuplane's in-pod acceptance helper: times the steps and prints one JSON line per measurement.

Python standard library only (3.8 or newer), so it runs inside any production image that has python3; the
suite mounts this file from a ConfigMap and never puts a gpuplane image in the workload path.

    python3 helper.py fetch --to DIR --source dataset=URL --source weights=URL
    python3 helper.py run --window SECONDS --checkpoint-dir DIR [--progress-regex RE] -- CMD ...

`fetch` copies each source (http(s)://, s3://bucket/key-or-prefix/ with AWS Signature V4 from the
usual AWS_* variables, file:// for a mounted PVC) and reports bytes, seconds and MB/s.
`run` runs the user's own training command for a fixed window, reads its progress from its
output (`step N` by default), reports each checkpoint that appears in the checkpoint directory,
and, when the directory already held a checkpoint at start (the pod was restarted), the seconds
until progress resumed. Every line printed for gpuplane starts with `{"gpuplane":`.
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import hmac
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request
import uuid
import xml.etree.ElementTree as ET
from typing import IO, Any

PROTOCOL = "acceptance/v1"
DEFAULT_PROGRESS = r"(?i)\bstep[\s=:#]+(\d+)"
CHUNK = 1 << 20
EMPTY_SHA256 = hashlib.sha256(b"").hexdigest()
_lock = threading.Lock()
# Tells this process's lines apart from another's in the same pod name (an operator may recreate a
# deleted pod under its own name, e.g. PyTorchJob's train-master-0).
RUN_ID = uuid.uuid4().hex[:12]


def emit(event: str, **fields: Any) -> None:
    """Print one measurement as a JSON line (the runner and `acceptance score` read these)."""
    record = {
        "gpuplane": PROTOCOL,
        "event": event,
        "ts": round(time.time(), 3),
        "pod": socket.gethostname(),
        "run": RUN_ID,
    }
    record.update(fields)
    with _lock:
        sys.stdout.write(json.dumps(record, sort_keys=True) + "\n")
        sys.stdout.flush()


# -- S3 (AWS Signature Version 4, docs.aws.amazon.com/AmazonS3/latest/API/sig-v4-header-based-auth.html)


def _hmac(key: bytes, text: str) -> bytes:
    return hmac.new(key, text.encode("utf-8"), hashlib.sha256).digest()


def sigv4_headers(
    method: str, url: str, headers: dict[str, str], env: dict[str, str], now: datetime.datetime
) -> dict[str, str]:
    """`headers` plus x-amz-date, x-amz-content-sha256 and Authorization for an empty-body request."""
    parts = urllib.parse.urlsplit(url)
    out = dict(headers)
    out["host"] = parts.netloc
    out["x-amz-date"] = now.strftime("%Y%m%dT%H%M%SZ")
    out.setdefault("x-amz-content-sha256", EMPTY_SHA256)
    if env.get("AWS_SESSION_TOKEN"):
        out["x-amz-security-token"] = env["AWS_SESSION_TOKEN"]
    names = sorted(k.lower() for k in out)
    lowered = {k.lower(): " ".join(v.split()) for k, v in out.items()}
    query = sorted(urllib.parse.parse_qsl(parts.query, keep_blank_values=True))
    canonical_query = "&".join(f"{_q(k)}={_q(v)}" for k, v in query)
    canonical = "\n".join(
        [
            method,
            _q(urllib.parse.unquote(parts.path or "/"), safe="/"),
            canonical_query,
            "".join(f"{n}:{lowered[n]}\n" for n in names),
            ";".join(names),
            lowered["x-amz-content-sha256"],
        ]
    )
    day = now.strftime("%Y%m%d")
    region = env.get("AWS_REGION") or env.get("AWS_DEFAULT_REGION") or "us-east-1"
    scope = f"{day}/{region}/s3/aws4_request"
    to_sign = "\n".join(
        ["AWS4-HMAC-SHA256", out["x-amz-date"], scope, hashlib.sha256(canonical.encode()).hexdigest()]
    )
    key = _hmac(("AWS4" + env["AWS_SECRET_ACCESS_KEY"]).encode(), day)
    for part in (region, "s3", "aws4_request"):
        key = _hmac(key, part)
    signature = hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()
    out["Authorization"] = (
        f"AWS4-HMAC-SHA256 Credential={env['AWS_ACCESS_KEY_ID']}/{scope},"
        f"SignedHeaders={';'.join(names)},Signature={signature}"
    )
    return out


def _q(text: str, safe: str = "") -> str:
    return urllib.parse.quote(text, safe="-_.~" + safe)


def _s3_endpoint(env: dict[str, str]) -> str:
    region = env.get("AWS_REGION") or env.get("AWS_DEFAULT_REGION") or "us-east-1"
    explicit = env.get("AWS_ENDPOINT_URL_S3") or env.get("AWS_ENDPOINT_URL")
    return (explicit or f"https://s3.{region}.amazonaws.com").rstrip("/")


def _s3_open(url: str, env: dict[str, str]) -> IO[bytes]:
    headers: dict[str, str] = {}
    if env.get("AWS_ACCESS_KEY_ID") and env.get("AWS_SECRET_ACCESS_KEY"):
        now = datetime.datetime.now(datetime.timezone.utc)  # noqa: UP017 (images may have python3 < 3.11)
        headers = sigv4_headers("GET", url, {}, env, now)
        headers.pop("host")
    response: IO[bytes] = urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=60)
    return response


def _s3_keys(bucket: str, prefix: str, env: dict[str, str]) -> list[str]:
    """Every key under `prefix` (ListObjectsV2, following continuation tokens)."""
    keys: list[str] = []
    token = ""
    while True:
        query = {"list-type": "2", "prefix": prefix}
        if token:
            query["continuation-token"] = token
        url = f"{_s3_endpoint(env)}/{bucket}?{urllib.parse.urlencode(query, quote_via=urllib.parse.quote)}"
        with _s3_open(url, env) as response:
            root = ET.fromstring(response.read())
        ns = root.tag.split("}")[0] + "}" if root.tag.startswith("{") else ""
        keys += [el.text or "" for el in root.iter(f"{ns}Key")]
        token = root.findtext(f"{ns}NextContinuationToken") or ""
        if root.findtext(f"{ns}IsTruncated") != "true" or not token:
            return keys


# -- fetch ------------------------------------------------------------------------------------


def _copy_stream(source: IO[bytes], target: str) -> int:
    os.makedirs(os.path.dirname(target) or ".", exist_ok=True)
    copied = 0
    with open(target + ".part", "wb") as out:
        while chunk := source.read(CHUNK):
            out.write(chunk)
            copied += len(chunk)
    os.replace(target + ".part", target)
    return copied


def _copy_one(url: str, dest: str, env: dict[str, str]) -> tuple[int, int]:
    """Copy `url` into directory `dest`; (bytes, files)."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme in ("http", "https"):
        name = os.path.basename(parts.path) or "index"
        with urllib.request.urlopen(url, timeout=60) as response:
            return _copy_stream(response, os.path.join(dest, name)), 1
    if parts.scheme == "s3":
        bucket, key = parts.netloc, parts.path.lstrip("/")
        keys = _s3_keys(bucket, key, env) if key.endswith("/") or not key else [key]
        total = 0
        for item in keys:
            rel = item[len(key) :] if key.endswith("/") else os.path.basename(item)
            with _s3_open(f"{_s3_endpoint(env)}/{bucket}/{_q(item, safe='/')}", env) as response:
                total += _copy_stream(response, os.path.join(dest, rel))
        return total, len(keys)
    if parts.scheme == "file":
        path = urllib.parse.unquote(parts.path)
        if os.path.isdir(path):
            total = files = 0
            for root, _, names in os.walk(path):
                for name in sorted(names):
                    src = os.path.join(root, name)
                    with open(src, "rb") as handle:
                        total += _copy_stream(handle, os.path.join(dest, os.path.relpath(src, path)))
                    files += 1
            return total, files
        with open(path, "rb") as handle:
            return _copy_stream(handle, os.path.join(dest, os.path.basename(path))), 1
    raise ValueError(f"unsupported source scheme {parts.scheme!r} (use http, https, s3 or file)")


def _shown(url: str) -> str:
    """The URL without query string or user info (presigned tokens are secrets)."""
    parts = urllib.parse.urlsplit(url)
    host = parts.netloc.rsplit("@", 1)[-1]
    return urllib.parse.urlunsplit((parts.scheme, host, parts.path, "", ""))


def _scrub(text: str, url: str) -> str:
    """`text` (an error message) without any secret part of `url`: the URL is shown as `_shown`
    shows it, and its user info, password (quoted and unquoted) and query are replaced by `***`.

    This file runs alone in the pod (stdlib only), so it cannot import gpuplane's redaction
    (`gpuplane.account.promurl.redact_text`); the runner passes every log it collects through
    that one before it is scored, written or shown."""
    parts = urllib.parse.urlsplit(url)
    text = text.replace(url, _shown(url))
    secrets = [parts.query, parts.fragment]
    if "@" in parts.netloc:
        userinfo = parts.netloc.rsplit("@", 1)[0]
        secrets += [userinfo, userinfo.partition(":")[2]]
        secrets += [urllib.parse.unquote(s) for s in (userinfo, userinfo.partition(":")[2])]
    for secret in sorted({s for s in secrets if s}, key=len, reverse=True):
        text = text.replace(secret, "***")
    return text


def fetch(args: argparse.Namespace) -> int:
    """Copy every source and report it; exit 1 when any copy failed."""
    failed = 0
    env = dict(os.environ)
    for item in args.source:
        what, _, url = item.partition("=")
        started = time.monotonic()
        try:
            copied, files = _copy_one(url, os.path.join(args.to, what), env)
        except (OSError, ValueError, ET.ParseError) as exc:
            error = _scrub(f"{type(exc).__name__}: {exc}", url)
            emit("copy_failed", what=what, source=_shown(url), error=error)
            failed += 1
            continue
        seconds = max(round(time.monotonic() - started, 6), 1e-6)
        emit(
            "copy",
            what=what,
            source=_shown(url),
            bytes=copied,
            files=files,
            seconds=seconds,
            mb_per_s=round(copied / 1e6 / seconds, 3),
        )
    return 1 if failed else 0


# -- run --------------------------------------------------------------------------------------


def _dir_state(path: str) -> tuple[int, float]:
    """(total bytes, newest mtime) of the files under `path`."""
    total, newest = 0, 0.0
    for root, _, names in os.walk(path):
        for name in names:
            try:
                info = os.stat(os.path.join(root, name))
            except OSError:
                continue
            total += info.st_size
            newest = max(newest, info.st_mtime)
    return total, newest


class _Progress:
    """Shared between the output reader and the checkpoint watcher."""

    def __init__(self) -> None:
        self.units = 0
        self.seen = False


def _watch_checkpoints(path: str, progress: _Progress, stop: threading.Event, interval: float) -> None:
    last = _dir_state(path)
    while not stop.wait(interval):
        state = _dir_state(path)
        if state[1] > last[1] and state[0] > 0:
            emit("checkpoint", bytes=state[0], units=progress.units)
        last = state


def _read_output(
    stream: IO[str], pattern: re.Pattern[str], progress: _Progress, started: float, restored: bool
) -> None:
    for line in stream:
        sys.stdout.write(line)
        sys.stdout.flush()
        match = pattern.search(line)
        if not match:
            continue
        units = int(match.group(1))
        if restored and not progress.seen:
            emit("resumed", seconds=round(time.monotonic() - started, 3), units=units)
        progress.seen = True
        if units != progress.units:
            progress.units = units
            emit("progress", units=units)


def _stop_child(child: subprocess.Popen[str], grace: float) -> None:
    if child.poll() is None:
        child.send_signal(signal.SIGTERM)
        try:
            child.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()


def run(args: argparse.Namespace) -> int:
    """Run the training command for the window; exit 0 when it made progress."""
    started = time.monotonic()
    os.makedirs(args.checkpoint_dir, exist_ok=True)
    held, _ = _dir_state(args.checkpoint_dir)
    restored = held > 0
    emit("window_start", window_s=args.window, restored=restored, checkpoint_bytes=held)
    env = dict(os.environ, GPUPLANE_CHECKPOINT_DIR=args.checkpoint_dir, GPUPLANE_WINDOW_S=str(args.window))
    # torchrun reads --master-addr/--master-port from PET_MASTER_ADDR/PORT; the Kubeflow Training
    # Operator sets MASTER_ADDR/MASTER_PORT on PyTorchJob pods: pass them on when not set.
    for name in ("MASTER_ADDR", "MASTER_PORT"):
        if name in env and f"PET_{name}" not in env:
            env[f"PET_{name}"] = env[name]
    try:
        child = subprocess.Popen(
            args.command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, bufsize=1
        )
    except OSError as exc:
        emit("window_end", units=0, seconds=0.0, exit=127, reason=f"cannot start: {exc}")
        return 1
    progress, stop = _Progress(), threading.Event()
    watcher = threading.Thread(
        target=_watch_checkpoints, args=(args.checkpoint_dir, progress, stop, args.poll), daemon=True
    )
    watcher.start()
    assert child.stdout is not None
    reader = threading.Thread(
        target=_read_output,
        args=(child.stdout, re.compile(args.progress_regex), progress, started, restored),
        daemon=True,
    )
    reader.start()
    try:
        child.wait(timeout=max(args.window - (time.monotonic() - started), 0.0))
        reason = "exited"
    except subprocess.TimeoutExpired:
        reason = "window"
        _stop_child(child, args.grace)
    reader.join(timeout=5)
    stop.set()
    watcher.join(timeout=5)
    code = child.returncode
    emit(
        "window_end",
        units=progress.units,
        seconds=round(time.monotonic() - started, 3),
        exit=code,
        reason=reason,
    )
    return 0 if progress.seen and (reason == "window" or code == 0) else 1


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point of the helper."""
    parser = argparse.ArgumentParser(prog="gpuplane-acceptance-helper")
    sub = parser.add_subparsers(dest="cmd", required=True)
    f = sub.add_parser("fetch", help="copy dataset sample and weights")
    f.add_argument("--to", required=True)
    f.add_argument("--source", action="append", default=[], metavar="NAME=URL")
    r = sub.add_parser("run", help="run the training command for a window")
    r.add_argument("--window", type=float, required=True)
    r.add_argument("--checkpoint-dir", required=True)
    r.add_argument("--progress-regex", default=DEFAULT_PROGRESS)
    r.add_argument("--grace", type=float, default=30.0)
    r.add_argument("--poll", type=float, default=1.0)
    r.add_argument("command", nargs="+")
    args = parser.parse_args(argv)
    emit("start", helper=args.cmd, python=sys.version.split()[0])
    return fetch(args) if args.cmd == "fetch" else run(args)


if __name__ == "__main__":
    sys.exit(main())
