"""Generate `docs/spec.md`, the field-by-field reference, from the spec models themselves, so the
documentation can never drift from what the loader accepts."""

from __future__ import annotations

import types
import typing
from typing import Any, Literal, get_args, get_origin

from pydantic import BaseModel
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from gpuplane.spec.models import PlatformSpec
from gpuplane.vocab import (
    GPU_RESOURCE,
    LABEL_ACCELERATOR,
    LABEL_CAPACITY,
    LABEL_CLASS,
    LABEL_POOL,
    LABEL_SHARING,
    LABEL_TEAM,
    MIG_RESOURCE_PREFIX,
)

INTRO = f"""\
# The platform spec

One YAML file declares the whole GPU platform: the cluster, its GPU node pools and how they share
their GPUs, the teams with their namespaces, quotas and priorities, the Kueue queueing policy,
monitoring thresholds and prices. Every gpuplane command reads it.

- `gpuplane spec validate FILE` checks it: types, catalog facts (accelerators, VM sizes, MIG
  layouts) and cross references. Each error names `file:line:column`, the field path
  (`nodePools[1].sharing.layout`) and what is wrong; the exit code is 2.
- `gpuplane spec schema` prints the JSON Schema (for editor completion and CI).
- Examples: `examples/aks-platform.yaml`, `examples/gke-h100.yaml`, `examples/eks-mixed.yaml`.

Keys are camelCase; unknown keys are errors, so a typo never silently does nothing.

## Semantic checks

Beyond types, the loader rejects (error, exit 2) or warns about:

| check | level |
|---|---|
| accelerator not in the catalog; VM size carrying another GPU; `gpusPerNode` contradicting the VM size; GPU pool whose GPUs per node cannot be derived | error |
| `minNodes` > `maxNodes` | error |
| MIG on a GPU without MIG; MIG layout that does not fit one GPU (NVIDIA's placement rules); unknown MIG profile or GPU Operator MIG config; `single` strategy with different profiles | error |
| time-slicing or MPS with `replicas` < 2; `replicas`, `layout` or `config` on a mode they do not apply to | error |
| inference-serving pool on spot, unless waived (`waivers: [inference-on-spot]`) | error |
| GPU pool with an explicit `taints: []`, unless waived (`no-taints`) | error |
| quota naming an unknown pool or a resource the pool does not offer; a MIG-mixed pool quota without `resource` | error |
| quota on a spot pool for a team with `spotAllowed: false`; `borrowingLimit` without a cohort | error |
| duplicate pool or team names; one namespace in two teams; unknown cohort, parent cohort, cohort cycle or priority class; price override for an unknown pool | error |
| a team quota above what the pool can hold at `maxNodes` (waiver `quota-above-capacity`) | warning |
| a visualization-only GPU (M60) serving training or inference | warning |
| a time-sliced or MPS pool holding quota of more than one team (no memory or fault isolation) | warning |
| a design the provider cannot run, quoting the fact's source (`gpuplane providers` lists the facts): a `gpuStack` the provider has none of (EKS and generic have no provider stack); with `gpuStack: provider`, an AKS MIG layout no `--gpu-instance-profile` gives, a GKE MIG layout other than one `gpu-partition-size` filling the GPU, the mixed strategy or `renameShared` on GKE | error |
| spot on a provider that cannot create spot capacity (generic); DRA on a provider that documents none (AKS) or below its version | warning |
| a DRA pool (`deviceApi: dra`) with `replicas`, `renameShared` or a MIG `strategy` (device-plugin settings); DRA below Kubernetes 1.32 or on `gpuStack: provider`; more than 16 DRA device kinds (Kueue's `deviceClassMappings` limit) | error |
| DRA below Kubernetes 1.34, where Kueue cannot account claims | warning |

## Derived facts and the label schema

Every engine derives the same facts from the spec (`gpuplane.spec.derived`): GPUs, vCPUs and memory
per node from the VM catalog; the extended resources a node advertises (`{GPU_RESOURCE}`,
`{MIG_RESOURCE_PREFIX}<profile>` with the mixed strategy, time-slicing/MPS replicas); node-hour prices (the
spec's `costs.pools` override, else the catalog's price for the cluster's region; spot pools pay
the spot price). Every node of a pool carries these labels, used as Kueue flavor selectors, quota
dimensions and cost tags alike:

| label | value |
|---|---|
| `{LABEL_POOL}` | pool name |
| `{LABEL_ACCELERATOR}` | catalog accelerator name, lower case |
| `{LABEL_SHARING}` | exclusive, mig, time-slicing or mps |
| `{LABEL_CAPACITY}` | spot or on-demand |

Workloads carry `{LABEL_TEAM}` and `{LABEL_CLASS}` (training, inference, batch).

## Field reference
"""


def _type_name(annotation: Any) -> str:
    origin = get_origin(annotation)
    if origin is Literal:
        return " \\| ".join(f"`{a}`" for a in get_args(annotation))
    if origin in (typing.Union, types.UnionType):
        return " or ".join(_type_name(a) for a in get_args(annotation) if a is not type(None))
    if origin is list:
        return f"list of {_type_name(get_args(annotation)[0])}"
    if origin is dict:
        key, value = get_args(annotation)
        return f"map {_type_name(key)} → {_type_name(value)}"
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return f"[{annotation.__name__}](#{annotation.__name__.lower()})"
    return getattr(annotation, "__name__", str(annotation))


def _field_type(info: FieldInfo) -> str:
    """The annotation's name, or the values of a string field the schema enumerates (provider) or
    fixes (apiVersion)."""
    extra = info.json_schema_extra
    values = extra.get("enum") if isinstance(extra, dict) else None
    if isinstance(extra, dict) and isinstance(extra.get("const"), str):
        values = [extra["const"]]
    if isinstance(values, list):
        return " \\| ".join(f"`{v}`" for v in values)
    return _type_name(info.annotation)


def _default(info: FieldInfo) -> str:
    if info.is_required():
        return "required"
    if info.default_factory is not None:
        value = info.default_factory()  # type: ignore[call-arg]
        if isinstance(value, BaseModel):
            return "see type"
        return f"`{value!r}`" if value not in ([], {}) else "empty"
    if info.default is PydanticUndefined:
        return ""
    return f"`{info.default!r}`" if info.default is not None else "none"


def _models(root: type[BaseModel]) -> list[type[BaseModel]]:
    seen: list[type[BaseModel]] = []
    stack: list[type[BaseModel]] = [root]
    while stack:
        model = stack.pop(0)
        if model in seen:
            continue
        seen.append(model)
        for info in model.model_fields.values():
            for arg in _walk(info.annotation):
                if isinstance(arg, type) and issubclass(arg, BaseModel) and arg not in seen:
                    stack.append(arg)
    return seen


def _walk(annotation: Any) -> list[Any]:
    args = get_args(annotation)
    return [annotation] + [a for arg in args for a in _walk(arg)]


def generate_markdown() -> str:
    """The whole of docs/spec.md."""
    out = [INTRO]
    for model in _models(PlatformSpec):
        doc = (model.__doc__ or "").strip().splitlines()[0] if model.__doc__ else ""
        out.append(
            f"\n### {model.__name__}\n\n{doc}\n\n| field | type | default | meaning |\n|---|---|---|---|\n"
        )
        for name, info in model.model_fields.items():
            alias = info.alias or name
            desc = (info.description or "").replace("|", "\\|")
            out.append(f"| `{alias}` | {_field_type(info)} | {_default(info)} | {desc} |\n")
    return "".join(out)


if __name__ == "__main__":
    import sys

    sys.stdout.write(generate_markdown())
