"""The one Kubernetes API client: `connect(kubeconfig, context)`, bounded, one map of failures.

Used by every engine that reaches a cluster: explain and audit `--kubeconfig` (read-only GETs,
`Client.get`) and `acceptance run` (typed calls of the official client on `Client.api_client`,
each inside `Client.calling` with `_request_timeout=Client.request_timeout(...)`).

Every call has a connect and a read timeout (`limits().api_connect_timeout`, `api_read_timeout`)
and the client has an overall deadline (`--timeout`): no call waits past it. Every failure is
mapped in one place (`upstream_error`, as httpx maps its transport's exceptions in one module)
into an `UpstreamError` (exit 3) of one line: an unreachable server, a timeout, an answer that is
not JSON (HTML, bytes), 401/403/5xx. The service is named by the kubeconfig's server URL with
credentials redacted (`gpuplane.redact`); an error body is reduced to its status and a short
redacted reason (the `Status` object's `reason`), and headers are never shown. A kubeconfig that
cannot be used is an `InputError` (exit 2): that is the user's input, not the upstream.

The official `kubernetes` client does the TLS, auth plugins and kubeconfig parsing; it is imported
only when a cluster is reached.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from gpuplane.errors import GpuplaneError, InputError, UpstreamError, UsageError
from gpuplane.limits import limits
from gpuplane.redact import redact_url, short_reason

__all__ = ["Client", "checked_timeout", "connect", "upstream_error"]


def _timeouts(exc: BaseException) -> bool:
    """Whether `exc` (or what it wraps) is a timeout of the transport."""
    from urllib3.exceptions import NewConnectionError
    from urllib3.exceptions import TimeoutError as Urllib3Timeout

    seen: BaseException | None = exc
    for _ in range(5):
        if seen is None or isinstance(seen, NewConnectionError):  # refused: a ConnectTimeoutError subclass
            return False
        if isinstance(seen, TimeoutError | Urllib3Timeout):
            return True
        seen = getattr(seen, "reason", None) or seen.__cause__ or seen.__context__
        if not isinstance(seen, BaseException):
            return False
    return False


def _status_reason(exc: Any) -> str:
    """An ApiException's reason: the `Status` body's `reason` (e.g. Forbidden), else the HTTP one."""
    body = getattr(exc, "body", None)
    if isinstance(body, bytes | str):
        try:
            data = json.loads(body)
        except (ValueError, UnicodeDecodeError):
            data = None
        if isinstance(data, dict) and isinstance(data.get("reason"), str) and data["reason"]:
            return str(data["reason"])
    return str(getattr(exc, "reason", "") or "error")


def upstream_error(
    service: str, what: str, exc: BaseException, secrets: tuple[str, ...] = ()
) -> UpstreamError:
    """The one map from what the client or its transport raises to a one-line UpstreamError."""
    from kubernetes.client.exceptions import ApiException
    from urllib3.exceptions import HTTPError

    if isinstance(exc, UpstreamError):
        return exc
    if isinstance(exc, ApiException) and getattr(exc, "status", None):
        reason = short_reason(_status_reason(exc), secrets, width=60)
        return UpstreamError(service, f"{what}: HTTP {exc.status} {reason}")
    if _timeouts(exc):
        return UpstreamError(service, f"{what}: no answer in time (timeout)")
    if isinstance(exc, HTTPError | OSError | ApiException):
        kind = type(getattr(exc, "reason", None) or exc).__name__
        return UpstreamError(service, f"{what}: cannot reach the API server ({kind})")
    if isinstance(exc, json.JSONDecodeError | UnicodeError):  # an answer that is not JSON (HTML, bytes)
        return UpstreamError(service, f"{what}: the answer is not JSON ({type(exc).__name__})")
    if isinstance(exc, ValueError | TypeError | KeyError | AttributeError):  # JSON, not the object asked
        # (a typed API's model refusing the answer: pydantic's ValidationError is a ValueError)
        return UpstreamError(service, f"{what}: the answer is not a Kubernetes object ({type(exc).__name__})")
    return UpstreamError(service, f"{what}: {short_reason(f'{type(exc).__name__}: {exc}', secrets)}")


class Client:
    """One API server reached through a kubeconfig context, under one deadline.

    Read-only GETs here (`get`, `get_list`); an engine that writes (acceptance run) calls the
    official client's typed APIs on `api_client`, each inside `calling(what)` with
    `_request_timeout=request_timeout(what)`, so its failures leave through the same map.
    """

    def __init__(
        self, api_client: Any, server: str, deadline_s: float, secrets: tuple[str, ...] = ()
    ) -> None:
        self.api_client = api_client
        self.server = redact_url(server)
        self.service = f"Kubernetes API {self.server}"
        self.deadline_s = deadline_s
        self._deadline = time.monotonic() + deadline_s
        self.secrets = tuple(s for s in secrets if s)

    def start(self) -> None:
        """Start the overall deadline again from now (e.g. after a confirmation prompt)."""
        self._deadline = time.monotonic() + self.deadline_s

    def request_timeout(self, what: str, *, past_deadline: bool = False) -> tuple[float, float]:
        """(connect, read) seconds for one call: the limits, cut to what is left of the deadline.

        Past the deadline a call is refused (UpstreamError), unless `past_deadline`: then it gets
        the full limits (cleanup that must still be sent once, as acceptance run's namespace delete).
        """
        connect_s, read_s = float(limits().api_connect_timeout), float(limits().api_read_timeout)
        if past_deadline:
            return (connect_s, read_s)
        left = self._deadline - time.monotonic()
        if left <= 0:
            raise UpstreamError(self.service, f"{what}: no answer within --timeout {self.deadline_s:g} s")
        return (min(connect_s, left), min(read_s, left))

    @contextmanager
    def calling(self, what: str) -> Iterator[None]:
        """Run one call; whatever it raises leaves as `upstream_error`'s one-line UpstreamError."""
        try:
            yield
        except GpuplaneError:  # already one of gpuplane's own errors (e.g. a caller's InputError)
            raise
        except Exception as exc:  # the one place every client/transport failure is mapped
            raise upstream_error(self.service, what, exc, self.secrets) from None

    def get(self, path: str) -> tuple[int, Any]:
        """GET `path`: (HTTP status, decoded JSON; None unless the status is 2xx).

        A non-2xx status is returned for the caller to judge (404: not served); an unreachable or
        silent server, or a 2xx answer that is not a JSON object, raises UpstreamError.
        """
        from kubernetes.client.exceptions import ApiException

        what = f"GET {path}"
        timeout = self.request_timeout(what)
        with self.calling(what):
            try:
                resp = self._rest_get(path, timeout)
            except ApiException as exc:
                if not exc.status:
                    raise
                return (int(exc.status), None)
            status = int(resp.status)
            if not 200 <= status < 300:
                return (status, None)
            data = json.loads(resp.data)
            if not isinstance(data, dict):
                raise ValueError("not a JSON object")
            return (status, data)

    def _rest_get(self, path: str, timeout: tuple[float, float]) -> Any:
        """GET through the REST layer every supported client release has (`rest_client.request`
        with method, url, headers, `_request_timeout`), with the configuration's auth headers.

        `ApiClient.call_api` and `param_serialize` differ between the releases pyproject.toml allows
        (29.x: the old generator; 37.x: the pydantic one), so neither is used. 29.x raises
        ApiException for a non-2xx answer and preloads the body; 37.x returns the answer unread.
        """
        config = self.api_client.configuration
        headers = {"Accept": "application/json", "User-Agent": "gpuplane"}
        for setting in config.auth_settings().values():
            if setting.get("in") == "header" and setting.get("value"):
                headers[str(setting["key"])] = str(setting["value"])
        resp = self.api_client.rest_client.request(
            "GET", config.host + path, headers=headers, _request_timeout=timeout
        )
        if getattr(resp, "data", None) is None:
            resp.read()
        return resp

    def get_list(self, path: str, allowed: tuple[int, ...] = (404,)) -> dict[str, Any] | None:
        """GET a list: the decoded answer, None for a status in `allowed`, else UpstreamError."""
        status, data = self.get(path)
        if data is not None:
            out: dict[str, Any] = data
            return out
        if status in allowed:
            return None
        raise UpstreamError(
            self.service, f"GET {path}: HTTP {status} {_HTTP_REASONS.get(status, '')}".rstrip()
        )

    def close(self) -> None:
        """Close the connection pool."""
        self.api_client.close()


#: Reason phrases of the statuses an API server answers (RFC 9110), for messages without a body.
_HTTP_REASONS = {
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    405: "Method Not Allowed",
    429: "Too Many Requests",
    500: "Internal Server Error",
    502: "Bad Gateway",
    503: "Service Unavailable",
    504: "Gateway Timeout",
}


#: Kubeconfig keys whose values are credentials (clientcmd's AuthInfo fields and auth-provider config).
_SECRET_KEYS = frozenset(
    {"token", "password", "client-key-data", "id-token", "refresh-token", "access-token", "client-secret"}
)


def _kubeconfig_secrets(kubeconfig: str) -> tuple[str, ...]:
    """Every credential value in a kubeconfig file (to keep them out of an error message)."""
    import yaml

    found: list[str] = []

    def walk(node: object) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if str(key) in _SECRET_KEYS and isinstance(value, str | int) and str(value):
                    found.append(str(value))
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    try:
        with open(kubeconfig, encoding="utf-8", errors="replace") as stream:
            for doc in yaml.safe_load_all(stream.read(limits().input_bytes)):
                walk(doc)
    except (OSError, yaml.YAMLError, ValueError):
        pass
    return tuple(sorted(found, key=len, reverse=True))


def checked_timeout(value: float | None, option: str = "--timeout") -> float:
    """A `--timeout` value: finite and positive (a UsageError otherwise); None is the default."""
    if value is None:
        return float(limits().api_deadline)
    if not math.isfinite(value) or value <= 0:
        raise UsageError(f"{value!r} is not a positive number of seconds", option=option)
    return float(value)


def connect(kubeconfig: str, context: str | None = None, timeout: float | None = None) -> Client:
    """A `Client` for a kubeconfig context; `timeout` is the overall deadline in seconds
    (default `limits().api_deadline`). A kubeconfig that cannot be used is an InputError (exit 2)."""
    from kubernetes import client, config

    cfg = client.Configuration()
    cfg.host = ""  # the loader sets it only from a server URL; older clients default to http://localhost
    try:
        config.load_kube_config(  # type: ignore[no-untyped-call]
            config_file=kubeconfig, context=context, client_configuration=cfg, persist_config=False
        )
    except Exception as exc:  # the loader raises many unrelated types for a malformed kubeconfig
        shown = short_reason(f"{type(exc).__name__}: {exc}", _kubeconfig_secrets(kubeconfig), width=200)
        raise InputError.single(kubeconfig, f"cannot use the kubeconfig: {shown}") from None
    if "://" not in str(cfg.host or ""):
        raise InputError.single(kubeconfig, "cannot use the kubeconfig: its cluster has no server URL")
    cfg.retries = 0  # one attempt per call: the timeouts above are the whole wait
    deadline = checked_timeout(timeout)
    return Client(client.ApiClient(cfg), str(cfg.host or "<no server>"), deadline, _secrets(cfg))


#: Shortest credential searched for in what is shown: removing every `t` from a log or a bundle
#: would destroy it and protect nothing.
MIN_SECRET_CHARS = 6


def _secrets(cfg: Any) -> tuple[str, ...]:
    """What a loaded kubeconfig holds that must never be shown: tokens (with and without their
    `Bearer ` prefix), the user name and password; longest first, none shorter than MIN_SECRET_CHARS."""
    found: set[str] = set()
    for value in [*(cfg.api_key or {}).values(), cfg.username, cfg.password]:
        if value:
            found |= {str(value), str(value).split(" ", 1)[-1]}
    return tuple(sorted((s for s in found if len(s) >= MIN_SECRET_CHARS), key=lambda s: (-len(s), s)))
