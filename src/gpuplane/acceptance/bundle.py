"""The evidence bundle: everything a run proves, in one directory written all at once.

bundle.json         what this is (gpuplane writes and replaces only directories holding it)
results.json        the verdict and every step's figures, thresholds and messages
observations.json   what the run saw (rescored by `gpuplane acceptance score BUNDLE`)
report.html         the report: timeline, each step's figures and thresholds, images
suite.json          the suite as rendered (thresholds with sources, prices)
manifests/...       the exact manifests applied
images.json         the image and image ID (digest) every container ran
logs/POD.log        each pod's log as collected
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gpuplane.acceptance.observations import Observations
from gpuplane.acceptance.report import report_page
from gpuplane.acceptance.results import Results
from gpuplane.errors import InputError, OutputError
from gpuplane.outputs import TreeMarker, write_tree_atomic
from gpuplane.render.output import to_json

__all__ = ["MARKER", "bundle_files", "load_bundle", "write_bundle"]

MARKER = "bundle.json"
BUNDLE_VERSION = 1


def bundle_files(
    results: Results, obs: Observations, manifests: dict[str, str], logs: dict[str, str]
) -> dict[str, str]:
    """Relative path -> text of every file of the bundle."""
    applied = [obj for objects in results.suite.get("manifests", {}).values() for obj in objects]
    images = [{"pod": p.name, "step": p.step, **i} for p in obs.pods for i in p.images]
    files = {
        MARKER: to_json(
            {
                "kind": "gpuplane-acceptance-bundle",
                "version": BUNDLE_VERSION,
                "verdict": results.as_dict()["verdict"],
            }
        ),
        "results.json": to_json(results.as_dict()),
        "observations.json": to_json(obs.as_dict()),
        "report.html": report_page(results, obs, applied).render(),
        "suite.json": to_json(results.suite),
        "images.json": to_json(images),
    }
    files.update({path: text for path, text in manifests.items()})
    files.update({f"logs/{pod}.log": text for pod, text in sorted(logs.items())})
    return files


def _check_replaceable(dest: Path) -> None:
    if dest.exists() and (not dest.is_dir() or (any(dest.iterdir()) and not (dest / MARKER).is_file())):
        raise OutputError.at(
            str(dest), "exists and is not an acceptance evidence bundle; refusing to replace it"
        )


def write_bundle(dest: Path, files: dict[str, str]) -> None:
    """Write the bundle atomically; a directory gpuplane did not write is never replaced."""
    _check_replaceable(dest)
    write_tree_atomic(dest, files, TreeMarker(MARKER))


def _json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError.single(str(path), f"cannot read: {exc.strerror}") from None
    except ValueError as exc:
        raise InputError.single(str(path), f"not JSON: {exc}") from None


def load_bundle(path: Path) -> tuple[dict[str, Any], Observations]:
    """The suite info and observations of a bundle directory."""
    suite = _json(path / "suite.json")
    data = _json(path / "observations.json")
    if not isinstance(suite, dict) or not isinstance(data, dict):
        raise InputError.single(str(path), "suite.json and observations.json must hold JSON objects")
    try:
        return suite, Observations.from_dict(data)
    except TypeError as exc:
        raise InputError.single(
            str(path / "observations.json"), f"not gpuplane observations: {exc}"
        ) from None
