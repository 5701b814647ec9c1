"""Prometheus URLs: checked before use, and never shown with their credentials.

`redact_url` and `redact_text` are gpuplane's one redaction (`gpuplane.redact`, shared with the
Kubernetes client). `check_url` turns a malformed `--prometheus` value into a usage error that
shows only the redacted form.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from gpuplane.errors import UsageError
from gpuplane.redact import HIDDEN, redact_text, redact_url

__all__ = ["HIDDEN", "check_url", "redact_text", "redact_url"]

_SCHEMES = ("http", "https")


def check_url(url: str, option: str = "--prometheus") -> str:
    """The URL without a trailing slash, or a `UsageError` saying what is wrong (redacted)."""
    shown = redact_url(url)
    if "://" not in url:
        raise UsageError(f"{shown!r} has no scheme; write http://HOST:PORT or https://HOST", option=option)
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:  # urlsplit's documented errors: bad IPv6 brackets, port not 0-65535
        raise UsageError(f"{shown!r} is not a valid URL ({exc})", option=option) from None
    if parts.scheme.lower() not in _SCHEMES:
        raise UsageError(f"{shown!r}: the scheme must be http or https", option=option)
    if not parts.hostname:
        raise UsageError(f"{shown!r} has no host", option=option)
    if port == 0:
        raise UsageError(f"{shown!r}: port 0 is not a port Prometheus can listen on", option=option)
    if any(ch.isspace() for ch in url):
        raise UsageError(f"{shown!r} contains white space", option=option)
    return url.rstrip("/")
