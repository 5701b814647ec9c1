"""GPU015: tenant RBAC that can re-taint GPU nodes or exec into GPU system namespaces."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from gpuplane.audit.bundle import Bundle
from gpuplane.audit.model import Finding, rule
from gpuplane.audit.objects import K8sObject, Path, as_dict, as_list, as_str, get
from gpuplane.audit.rules.common import at

NODE_VERBS = frozenset({"patch", "update", "*"})
EXEC_VERBS = frozenset({"create", "get", "*"})
# Built-in ClusterRoles (Kubernetes "User-facing roles"): what they grant that matters here.
BUILTIN = {"cluster-admin": ("nodes", "exec"), "admin": ("exec",), "edit": ("exec",)}
AGGREGATE_LABELS = (
    "rbac.authorization.k8s.io/aggregate-to-admin",
    "rbac.authorization.k8s.io/aggregate-to-edit",
    "rbac.authorization.k8s.io/aggregate-to-view",
)


@dataclass(frozen=True)
class Grant:
    """A role rule that grants a GPU-relevant power (reading nodes, exec into pods), at its path."""

    what: str  # "nodes" or "exec"
    path: Path


def _matches(values: list[str], wanted: set[str] | frozenset[str]) -> bool:
    return any(v in wanted for v in values)


def grants(role: K8sObject) -> list[Grant]:
    """Dangerous permissions in a Role/ClusterRole's rules, with the field that grants them."""
    out: list[Grant] = []
    for i, r in enumerate(as_list(role.data.get("rules"))):
        groups = [as_str(g) for g in as_list(get(r, "apiGroups"))]
        resources = [as_str(x) for x in as_list(get(r, "resources"))]
        verbs = [as_str(v).lower() for v in as_list(get(r, "verbs"))]
        if not (_matches(groups, {"", "*"}) or not groups):
            continue
        if _matches(resources, {"nodes", "*"}) and _matches(verbs, NODE_VERBS) and role.kind == "ClusterRole":
            out.append(Grant("nodes", ("rules", i, "verbs")))
        if _matches(resources, {"pods/exec", "pods/attach", "*", "pods/*"}) and _matches(verbs, EXEC_VERBS):
            out.append(Grant("exec", ("rules", i, "verbs")))
    return out


def tenant_subjects(b: Bundle, binding: K8sObject) -> list[str]:
    """Subjects of a binding that are tenants (not system users/groups, not platform service accounts)."""
    out = []
    for s in as_list(binding.data.get("subjects")):
        kind, name = as_str(get(s, "kind")), as_str(get(s, "name"))
        if not name or name.startswith("system:"):
            continue
        if kind == "ServiceAccount":
            ns = as_str(get(s, "namespace")) or binding.namespace
            if b.config.is_platform_namespace(ns):
                continue
            out.append(f"ServiceAccount {ns}/{name}")
        else:
            out.append(f"{kind} {name}")
    return out


def _system_namespaces(b: Bundle) -> set[str]:
    return {s.namespace for s in b.config.system_components if s.namespace and not s.name}


@rule(
    "GPU015",
    "tenant-rbac-nodes-or-gpu-exec",
    "tenant RBAC that can patch Nodes or exec into GPU system namespaces",
    "high",
    why="""Taints and labels on GPU nodes are what keep tenants apart (dedicated pools, time-sliced pools,
    spot pools). A tenant that can patch Nodes can untaint a pool or relabel a node into its own
    selector. Exec into the GPU Operator's namespace means a shell in privileged pods with the driver.""",
    fix="""Bind tenants to namespaced roles without `nodes` patch/update and without `pods/exec` in GPU
    system namespaces; keep node changes to the platform team (cluster-admin).""",
    tags=("gpu", "security", "multi-tenancy", "rbac"),
    system=True,
    security=True,
)
def gpu015(b: Bundle) -> Iterator[Finding]:
    roles = {
        (o.kind, o.namespace if o.kind == "Role" else "", o.name): o
        for k in ("Role", "ClusterRole")
        for o in b.by_kind.get(k, [])
    }
    system_ns = _system_namespaces(b)
    for kind in ("ClusterRoleBinding", "RoleBinding"):
        for binding in b.by_kind.get(kind, []):
            subjects = tenant_subjects(b, binding)
            if subjects:
                yield from _binding_findings(b, binding, subjects, roles, system_ns)
    for role in b.by_kind.get("ClusterRole", []):
        labels = role.labels
        aggregated = [k.rsplit("-", 1)[-1] for k in AGGREGATE_LABELS if labels.get(k) == "true"]
        for g in grants(role) if aggregated else []:
            if g.what == "nodes" or aggregated != ["view"]:
                yield at(
                    "GPU015",
                    b,
                    role,
                    g.path,
                    f"ClusterRole aggregates into {'/'.join(aggregated)} and grants {_what(g.what)}",
                    key=False,
                )


def _what(what: str) -> str:
    return "patch/update on nodes" if what == "nodes" else "pods/exec"


def _binding_findings(
    b: Bundle,
    binding: K8sObject,
    subjects: list[str],
    roles: dict[tuple[str, str, str], K8sObject],
    system_ns: set[str],
) -> Iterator[Finding]:
    ref = as_dict(binding.data.get("roleRef"))
    ref_kind, ref_name = as_str(ref.get("kind")), as_str(ref.get("name"))
    cluster_wide = binding.kind == "ClusterRoleBinding"
    ns = binding.namespace
    if not cluster_wide and ns not in system_ns:
        return  # a RoleBinding grants only inside its own (tenant) namespace
    role = roles.get((ref_kind, ns if ref_kind == "Role" else "", ref_name))
    if role is not None:
        found = [(g.what, role, g.path) for g in grants(role)]
    else:
        found = [
            (what, binding, ("roleRef", "name"))
            for what in BUILTIN.get(ref_name, ())
            if ref_kind == "ClusterRole"
        ]
    where = (
        "in every namespace, including the GPU system namespaces"
        if cluster_wide
        else f"in GPU system namespace {ns}"
    )
    seen: set[str] = set()
    for what, obj, path in found:
        if what in seen or (what == "nodes" and not cluster_wide):
            continue
        seen.add(what)
        scope = "" if what == "nodes" else f" {where}"
        yield at(
            "GPU015",
            b,
            obj,
            path,
            f"{binding.kind} {binding.name} gives {', '.join(subjects)} {_what(what)}{scope} via {ref_kind} {ref_name}",
            key=False,
        )
