"""`gpuplane mig`: check a MIG layout against one GPU, list maximal layouts, profiles and the
GPU Operator's default configs. Thin: parse, call `gpuplane.sharing.mig`, print.

Exit codes: 0 fits / listed, 1 the layout does not fit, 2 unknown GPU or profile.
"""

from __future__ import annotations

import json
from enum import StrEnum
from typing import Annotated, Any

import typer

from gpuplane.catalog import Accelerator, load_catalog
from gpuplane.errors import UsageError
from gpuplane.sharing import mig
from gpuplane.sharing.operator_configs import configs_for
from gpuplane.vocab import mig_resource

mig_app = typer.Typer(
    name="mig",
    help="MIG rules: does a layout fit one GPU, which layouts are maximal, which profiles exist.",
    no_args_is_help=True,
)

GPU_HELP = "GPU model: a catalog name or alias (A100-40GB, H100, NVIDIA-H100-80GB-HBM3, ...)."


class Output(StrEnum):
    """Output formats."""

    table = "table"
    json = "json"


GpuOption = Annotated[str, typer.Option("--gpu", "-g", help=GPU_HELP)]
OutputOption = Annotated[Output, typer.Option("--output", "-o", help="table or json.")]
ProfilesArg = Annotated[
    list[str], typer.Argument(help="MIG profiles for ONE GPU, e.g. 3g.40gb 2g.20gb 1g.10gb.")
]
MediaOption = Annotated[
    bool, typer.Option("--with-media", help="Also use the +me (media extension) profiles.")
]


def _accelerator(name: str, *, need_mig: bool = True) -> Accelerator:
    """The catalog accelerator, or an InputError (exit 2) naming the known ones."""
    cat = load_catalog()
    acc = cat.accelerator(name)
    if acc is None:
        known = ", ".join(cat.accelerator_names())
        raise UsageError(f"unknown GPU {name!r}; known: {known}", option="--gpu")
    if need_mig and not acc.mig_capable:
        mig_gpus = ", ".join(a.name for a in cat.accelerators() if a.mig_capable)
        raise UsageError(f"{acc.name} does not support MIG; MIG GPUs: {mig_gpus}", option="--gpu")
    return acc


def _slot_map(acc: Accelerator, placements: list[tuple[str, int]]) -> str:
    """One cell per memory slice, e.g. `[1g.10gb|1g.10gb|2g.20gb 2g.20gb|...]`, '-' when free."""
    cells = ["-"] * acc.memory_slices
    for profile, start in placements:
        size = acc.mig_profiles[profile].memory_slices
        for slot in range(start, start + size):
            cells[slot] = profile
    return " | ".join(f"{i}:{c}" for i, c in enumerate(cells))


def _print_json(data: Any) -> None:
    typer.echo(json.dumps(data, indent=2, sort_keys=False))


def check(
    profiles: ProfilesArg,
    gpu: GpuOption,
    output: OutputOption = Output.table,
) -> None:
    """Check that MIG instances fit one GPU; print the start slot of each (exit 1 if not)."""
    acc = _accelerator(gpu)
    fit = mig.check_layout(acc, profiles)
    if fit.unknown:
        raise UsageError(fit.reason, option="PROFILES")
    if output is Output.json:
        _print_json(
            {
                "gpu": acc.name,
                "fits": fit.fits,
                "reason": fit.reason,
                "placements": [
                    {
                        "profile": p,
                        "start": s,
                        "memory_slices": acc.mig_profiles[p].memory_slices,
                        "resource": mig_resource(p),
                    }
                    for p, s in fit.placements
                ],
            }
        )
    elif fit.fits:
        typer.echo(f"{acc.name}: layout fits ({fit.reason.removeprefix('fits: ')})")
        typer.echo(f"{'#':>2}  {'profile':<12} {'start':>5}  {'slices':<7} resource")
        for i, (profile, start) in enumerate(fit.placements):
            size = acc.mig_profiles[profile].memory_slices
            span = f"{start}-{start + size - 1}" if size > 1 else str(start)
            typer.echo(f"{i:>2}  {profile:<12} {start:>5}  {span:<7} {mig_resource(profile)}")
        typer.echo(f"memory slices: {_slot_map(acc, fit.placements)}")
    else:
        typer.echo(f"{acc.name}: layout does not fit: {fit.reason}", err=True)
    if not fit.fits:
        # SystemExit, not typer.Exit: main() runs click with standalone_mode=False, where click
        # turns typer.Exit into a return value that would be lost.
        raise SystemExit(1)


def layouts(
    gpu: GpuOption,
    with_media: MediaOption = False,
    output: OutputOption = Output.table,
) -> None:
    """List every maximal MIG layout of a GPU (no further profile can be added)."""
    acc = _accelerator(gpu)
    found = mig.maximal_layouts(acc, include_media=with_media)
    if output is Output.json:
        _print_json({"gpu": acc.name, "layouts": found})
        return
    typer.echo(f"{acc.name}: {len(found)} maximal layouts")
    for layout in found:
        compute = sum(acc.mig_profiles[p].compute_slices for p in layout)
        memory = sum(acc.mig_profiles[p].memory_slices for p in layout)
        typer.echo(
            f"  {' + '.join(layout):<60} compute {compute}/{acc.compute_slices}  "
            f"memory {memory}/{acc.memory_slices}"
        )


def profiles(
    gpu: GpuOption,
    output: OutputOption = Output.table,
) -> None:
    """List the MIG profiles of a GPU with slices, max count and valid start slots."""
    acc = _accelerator(gpu)
    rows: list[dict[str, Any]] = [
        {
            "profile": p.name,
            "compute_slices": p.compute_slices,
            "memory_slices": p.memory_slices,
            "max_count": p.max_count,
            "placements": p.placements,
            "resource": p.resource_name,
            "placement_source": p.placement_source,
        }
        for p in acc.mig_profiles.values()
    ]
    if output is Output.json:
        _print_json({"gpu": acc.name, "source": acc.source, "profiles": rows})
        return
    typer.echo(f"{acc.name} ({acc.compute_slices} compute / {acc.memory_slices} memory slices; {acc.source})")
    typer.echo(
        f"  {'profile':<12} {'compute':>7} {'memory':>6} {'max':>3}  {'starts':<16} {'placements':<10} resource"
    )
    for r in rows:
        starts = ",".join(str(s) for s in r["placements"])
        typer.echo(
            f"  {r['profile']:<12} {r['compute_slices']:>7} {r['memory_slices']:>6} {r['max_count']:>3}  "
            f"{starts:<16} {r['placement_source']:<10} {r['resource']}"
        )


def configs(
    gpu: GpuOption,
    output: OutputOption = Output.table,
) -> None:
    """List the GPU Operator default MIG configs that apply to a GPU and the layout each gives."""
    acc = _accelerator(gpu, need_mig=False)
    found = configs_for(acc)
    if output is Output.json:
        _print_json({"gpu": acc.name, "configs": found})
        return
    for name, layout in found.items():
        typer.echo(f"  {name:<18} {' + '.join(layout) if layout else '(no instances)'}")


def register(app: typer.Typer) -> None:
    """Add `gpuplane mig check|layouts|profiles|configs` to the app."""
    mig_app.command("check")(check)
    mig_app.command("layouts")(layouts)
    mig_app.command("profiles")(profiles)
    mig_app.command("configs")(configs)
    app.add_typer(mig_app, name="mig")
