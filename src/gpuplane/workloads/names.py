"""Workload names as Kueue forms them: `<kind>-<owner name>-<5 hex of a SHA-1>`.

Source: kubernetes-sigs/kueue @ff69552e, pkg/controller/jobframework/workload_names.go
(`GetWorkloadNameForOwnerWithGVK`, `getHash`): the prefix is the lower-cased kind and the owner
name, cut to 247 characters (ShortWorkloadNames, alpha and off by default, would cut to 57); the
hash is SHA-1 over "kind\\ngroup\\nname\\nuid" and its first 5 hex digits. The UID is the one the
API server gave the object, so a job that was never created has no final name yet.
"""

from __future__ import annotations

import hashlib

HASH_LENGTH = 5
MAX_NAME_LENGTH = 253  # longMaxWorkloadNameLength (ShortWorkloadNames off)
MAX_PREFIX_LENGTH = MAX_NAME_LENGTH - 1 - HASH_LENGTH
NO_UID = "<uid>"
"""Placeholder for the hash of an object the API server has not created yet (no metadata.uid)."""


def name_hash(owner_name: str, uid: str, kind: str, group: str) -> str:
    """The 5-hex-digit suffix Kueue appends (`getHash` with no extra part)."""
    digest = hashlib.sha1(f"{kind}\n{group}\n{owner_name}\n{uid}".encode()).hexdigest()
    return digest[:HASH_LENGTH]


def workload_name(owner_name: str, uid: str, kind: str, group: str) -> str:
    """`<kind>-<owner>-<hash>`; with no UID the suffix is the placeholder `<uid>`."""
    prefix = f"{kind.lower()}-{owner_name}"[:MAX_PREFIX_LENGTH]
    suffix = name_hash(owner_name, uid, kind, group) if uid else NO_UID
    return f"{prefix}-{suffix}"
