"""One redaction for everything gpuplane shows: URLs, kubeconfig servers, upstream error texts.

`redact_url` hides userinfo (`user:pw@`, with or without a scheme) and the values of token-like
query parameters; `redact_text` does the same to every URL inside a message (an error text, a
log line, `/healthz`) and removes the given secrets. Used by account's Prometheus client and by
`gpuplane.kube`'s API client; nothing here imports anything of gpuplane.
"""

from __future__ import annotations

import re

__all__ = ["HIDDEN", "redact_text", "redact_url", "short_reason"]

HIDDEN = "***"
#: Query parameters whose values are secrets (tokens, keys, signatures, passwords).
_SECRET_PARAM = re.compile(
    r"(?i)(token|secret|passw|pwd|key|auth|credential|signature|^sig$|bearer|session|jwt)"
)
#: A URL inside free text: `scheme://...` up to whitespace or a quote.
_URL_IN_TEXT = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"<>]+")
#: `user:password@host` without a scheme, inside free text.
_BARE_USERINFO = re.compile(r"(?<![/\w*])([^\s/@'\"<>:]+:[^\s/@'\"<>]*)@(?=[\w\[])")


def _redact_query(query: str) -> str:
    parts = []
    for item in query.split("&"):
        name, eq, _value = item.partition("=")
        parts.append(f"{name}={HIDDEN}" if eq and _SECRET_PARAM.search(name) else item)
    return "&".join(parts)


def redact_url(url: str) -> str:
    """`url` with any `user:password@` and token-like query values replaced by `***`, safe to print."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        scheme, rest = "", url
    cut = min((i for i in (rest.find("/"), rest.find("?"), rest.find("#")) if i >= 0), default=len(rest))
    authority, tail = rest[:cut], rest[cut:]
    if "@" in authority:
        authority = f"{HIDDEN}@{authority.rsplit('@', 1)[1]}"
    path, qmark, query = tail.partition("?")
    fragment = ""
    if "#" in query:
        query, fragment = query.split("#", 1)
        fragment = "#" + fragment
    if qmark:
        tail = f"{path}?{_redact_query(query)}{fragment}"
    return f"{scheme}{sep}{authority}{tail}"


def redact_text(text: str, secrets: tuple[str, ...] = ()) -> str:
    """`text` with every URL redacted, bare `user:pw@host` hidden and each of `secrets` removed."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, redact_url(secret) if "@" in secret or "?" in secret else HIDDEN)
    text = _URL_IN_TEXT.sub(lambda m: redact_url(m.group(0)), text)
    return _BARE_USERINFO.sub(f"{HIDDEN}@", text)


def short_reason(text: str, secrets: tuple[str, ...] = (), width: int = 80) -> str:
    """An upstream's error text reduced to one short redacted line (never its whole body)."""
    line = " ".join(redact_text(text, secrets).split())
    return line if len(line) <= width else line[: width - 3] + "..."
