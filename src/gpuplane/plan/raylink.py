"""Connecting `plan` to Ray, within the guarantees: the address is never shown with its password
(the project's one URL redaction, `gpuplane.account.promurl`), an unreachable head is an upstream
error within `ray_connect_timeout_s` (exit 3), and Ray's own signal handlers are replaced by the
ones gpuplane had, so SIGTERM ends a Ray plan with 143 after cleanup, as every command.

Addresses: `--ray-address` or, without it, the `RAY_ADDRESS` environment variable Ray itself reads
(`ray.init` docs, Ray 2.x); without either, a new local Ray (`address="local"`, so a cluster that
`ray start` left on the machine is not joined). `ray://HOST:PORT` is Ray Client and needs `ray[client]` (its grpcio);
without it the address is a usage error (exit 2: the environment cannot run what was asked, no
service was tried). `auto` and `local` are passed to Ray as they are.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import signal
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from gpuplane.account.promurl import redact_text, redact_url
from gpuplane.errors import UpstreamError, UsageError
from gpuplane.plan.defaults import default
from gpuplane.swap import SIGNALS

__all__ = ["address_of", "connect", "kept_signal_handlers", "shown"]

ENV = "RAY_ADDRESS"
OPTION = "--ray-address"
_RAY_DEFAULT_PORT = 6379


def address_of(option: str | None) -> str | None:
    """The Ray cluster to use: the option, else RAY_ADDRESS, else None (start a local Ray)."""
    for value in (option, os.environ.get(ENV)):
        if value is not None and value.strip():
            return value.strip()
    return None


def shown(address: str) -> str:
    """The address as it may be printed (no password, no token)."""
    return redact_url(address)


def _host_port(address: str) -> tuple[str, int] | None:
    """(host, port) of a head address, or None for `auto`/`local` (nothing to probe)."""
    if address in ("auto", "local"):
        return None
    rest = address.split("://", 1)[1] if "://" in address else address
    rest = rest.split("/", 1)[0].rsplit("@", 1)[-1]
    if rest.startswith("["):  # [IPv6]:port
        host, _, port = rest[1:].partition("]")
        port = port.lstrip(":")
    else:
        host, _, port = rest.rpartition(":") if ":" in rest else (rest, "", "")
    if not host:
        raise UsageError(f"{shown(address)!r} is not HOST:PORT or ray://HOST:PORT", option=OPTION)
    if not port:
        return host, _RAY_DEFAULT_PORT
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise UsageError(f"{shown(address)!r}: the port must be a number from 1 to 65535", option=OPTION)
    return host, int(port)


#: HTTP/2's client connection preface and an empty SETTINGS frame (RFC 9113 section 3.4): a gRPC
#: server (Ray's GCS and the Ray Client server both are) answers with its own SETTINGS frame.
_H2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes([0, 0, 0, 4, 0, 0, 0, 0, 0])
_H2_SETTINGS = 4


def _probe(address: str) -> None:
    """UpstreamError unless the head accepts a TCP connection and answers as a gRPC (HTTP/2) server
    within the timeout. Ray retries a GCS address that accepts connections but never answers
    without end; this bounds that case too."""
    target = _host_port(address)
    if target is None:
        return
    timeout = float(default("ray_connect_timeout_s"))
    service = f"Ray {shown(address)}"
    try:
        with socket.create_connection(target, timeout=timeout) as conn:
            conn.settimeout(timeout)
            conn.sendall(_H2_PREFACE)
            head = conn.recv(9)
    except TimeoutError:
        raise UpstreamError(service, f"no answer within {timeout:g} s (ray_connect_timeout_s)") from None
    except OSError as exc:
        reason = redact_text(exc.strerror or str(exc), (address,))
        raise UpstreamError(service, f"cannot connect: {reason}") from None
    if len(head) < 4 or head[3] != _H2_SETTINGS:
        raise UpstreamError(service, "answers, but not as a Ray head (no gRPC/HTTP/2 server there)")


def _client_missing() -> bool:
    """Whether Ray Client's dependency (grpcio, what `ray[client]` adds) is missing; Ray checks the
    same in `ray._private.utils.get_ray_client_dependency_error`."""
    return importlib.util.find_spec("grpc") is None


@contextmanager
def kept_signal_handlers() -> Iterator[None]:
    """Put back, after the block, the SIGINT/SIGTERM/SIGHUP handlers in effect before it.

    `ray.init` installs its own (SIGTERM -> sys.exit(15), or a node's drain-and-exit(1)); gpuplane's
    turn SIGTERM into exit 143 after cleanup, so they must stay in charge."""
    before = {signum: signal.getsignal(signum) for signum in SIGNALS}
    try:
        yield
    finally:
        try:
            for signum, handler in before.items():
                if handler is not None:
                    signal.signal(signum, handler)
        except ValueError:  # not the main thread: the handlers were not ours to change
            pass


def connect(ray: Any, address: str | None, num_cpus: int | None) -> None:
    """`ray.init` for a plan: a local Ray (address None) or an existing cluster, with the rules
    of the module docstring. Errors are gpuplane's: UsageError or UpstreamError, redacted."""
    kwargs: dict[str, Any] = {"logging_level": logging.WARNING, "log_to_driver": False}
    if address is None:
        # "local": always a new Ray of this process, never one that `ray start` left on the machine
        with kept_signal_handlers():
            ray.init(address="local", num_cpus=num_cpus, include_dashboard=False, **kwargs)
        return
    if num_cpus is not None:
        raise UsageError(
            "--num-cpus is for a local Ray; an existing cluster has its own CPUs", option="--num-cpus"
        )
    if address.startswith("ray://") and _client_missing():
        raise UsageError(
            f"{shown(address)} is a Ray Client address, which needs `pip install 'ray[client]'` "
            "(or give the head's GCS address HOST:6379, or drop --ray-address for a local Ray)",
            option=OPTION,
        )
    _probe(address)
    try:
        with kept_signal_handlers():
            ray.init(address=address, **kwargs)
    except ValueError as exc:  # Ray refuses the address itself (its format): nothing was tried
        reason = redact_text(str(exc), (address,)).splitlines()[0][:300]
        raise UsageError(reason, option=OPTION) from None
    except (ConnectionError, TimeoutError, RuntimeError) as exc:
        reason = redact_text(f"{type(exc).__name__}: {exc}", (address,)).splitlines()[0][:300]
        raise UpstreamError(f"Ray {shown(address)}", reason) from None
