"""The audit configuration: rules switched off, exclusions, system components, label names.

A config file (YAML) may set any field below; lists replace the defaults from
`data/defaults.yaml`. Bad config is an `InputError` located at the offending key (exit code 2).

    ignore: [GPU014]
    exclude:
      - {rule: GPU010, namespace: "legacy-*", kind: Deployment, name: "*"}
    systemComponents: [{namespace: gpu-operator}, {namespace: kube-system, name: "nvidia-*"}]
    exemptSystemComponents: true
"""

from __future__ import annotations

import fnmatch
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic.alias_generators import to_camel

from gpuplane.audit.facts import defaults
from gpuplane.audit.model import SEVERITIES
from gpuplane.errors import InputError, Problem
from gpuplane.inputs import display_name, read_text
from gpuplane.yamlio import key_position, load_one


class _Model(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid", frozen=True)


class Selector(_Model):
    """Matches objects by glob patterns; an empty field matches everything."""

    rule: str = ""
    namespace: str = ""
    kind: str = ""
    name: str = ""
    file: str = ""

    def matches(self, rule: str, namespace: str, kind: str, name: str, file: str) -> bool:
        """Whether this suppression covers a finding (each field it sets must match, as a glob)."""
        pairs = (
            (self.rule, rule),
            (self.namespace, namespace),
            (self.kind, kind),
            (self.name, name),
            (self.file, file),
        )
        return all(not pattern or fnmatch.fnmatchcase(value, pattern) for pattern, value in pairs)


class HostPath(_Model):
    """A hostPath the config allows: a path, matched exactly or as a prefix."""

    path: str
    exact: bool = False


def _d(key: str) -> Any:
    return lambda: defaults()[key]


class AuditConfig(_Model):
    """Everything that tunes an audit run."""

    ignore: list[str] = Field(default_factory=list, description="Rule ids switched off.")
    exclude: list[Selector] = Field(default_factory=list, description="Findings to drop, by selector.")
    exempt_system_components: bool = True
    system_components: list[Selector] = Field(
        default_factory=lambda: [Selector(**s) for s in defaults()["systemComponents"]]
    )
    platform_namespaces: list[str] = Field(default_factory=_d("platformNamespaces"))
    team_labels: list[str] = Field(default_factory=_d("teamLabels"))
    class_labels: list[str] = Field(default_factory=_d("classLabels"))
    spot_node_labels: dict[str, str] = Field(default_factory=_d("spotNodeLabels"))
    spot_taints: list[str] = Field(default_factory=_d("spotTaints"))
    gpu_host_paths: list[HostPath] = Field(
        default_factory=lambda: [HostPath(**h) for h in defaults()["gpuHostPaths"]]
    )
    device_env: list[str] = Field(default_factory=_d("deviceEnv"))
    no_device_values: list[str] = Field(default_factory=_d("noDeviceValues"))
    mutable_tags: list[str] = Field(default_factory=_d("mutableTags"))
    system_images: list[str] = Field(default_factory=_d("systemImages"))
    severity: dict[str, str] = Field(default_factory=dict, description="Severity overrides per rule id.")

    @field_validator("severity")
    @classmethod
    def _known_severities(cls, value: dict[str, str]) -> dict[str, str]:
        bad = sorted(v for v in value.values() if v not in SEVERITIES)
        if bad:
            raise ValueError(f"unknown severity {bad[0]!r}; use one of {', '.join(SEVERITIES)}")
        return value

    def is_system(self, namespace: str, name: str) -> bool:
        """Whether an object is a GPU system component (exempt from tenant rules)."""
        if not self.exempt_system_components:
            return False
        return any(s.matches("", namespace, "", name, "") for s in self.system_components)

    def is_system_image(self, repository: str) -> bool:
        """Whether an image repository (no tag or digest) is one of NVIDIA's GPU system components."""
        return self.exempt_system_components and repository in self.system_images

    def is_platform_namespace(self, namespace: str) -> bool:
        """Whether `namespace` holds the platform (listed, kube-*, or a system component's own)."""
        return (
            namespace in self.platform_namespaces
            or namespace.startswith("kube-")
            or any(not s.name and s.namespace == namespace for s in self.system_components)
        )


def load_config(path: Path) -> AuditConfig:
    """Read a config file; InputError (file, line, column, field) on any problem."""
    file = display_name(path)
    raw = load_one(read_text(path), file)
    if not isinstance(raw, dict):
        raise InputError.single(file, "the audit config is a YAML mapping", line=1, column=1)
    try:
        return AuditConfig.model_validate(raw)
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            loc = tuple(err["loc"])
            line, column = key_position(raw, loc) or (None, None)
            problems.append(Problem(file, line, column, ".".join(str(p) for p in loc), err["msg"]))
        raise InputError(problems) from None
