"""The evidence bundle: everything a run proves, in one directory, written first and incrementally.

bundle.json         what this is (gpuplane writes and replaces only directories whose bundle.json
                    starts with its header); `verdict` is "incomplete" until the run is scored
results.json        the verdict and every step's figures, thresholds and messages
observations.json   what the run saw (rescored by `gpuplane acceptance score BUNDLE`)
report.html         the report: timeline, each step's figures and thresholds, images
suite.json          the suite as rendered (thresholds with sources, prices)
manifests/...       the exact manifests applied
images.json         the image and image ID (digest) every container ran
logs/POD.log        each pod's log as collected (POD made a safe file name, see `safe_name`)

`Evidence` writes the skeleton (bundle.json, suite.json, manifests) before the run touches the
cluster, each log as soon as it is collected, observations.json as soon as the run ends, and the
scored files last, so a later failure (scoring, the report, Prometheus) loses no evidence. Every
file is written to a temporary name and renamed into place (a link planted in the bundle is
replaced, never followed), and every text passes through the project's one redaction
(`gpuplane.account.promurl.redact_text`) with the kubeconfig's secrets.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import stat
import tempfile
from pathlib import Path
from typing import Any

from gpuplane.acceptance.observations import Observations
from gpuplane.acceptance.report import report_page
from gpuplane.acceptance.results import Results
from gpuplane.acceptance.thresholds import check_thresholds
from gpuplane.account.promurl import redact_text
from gpuplane.errors import InputError, OutputError
from gpuplane.limits import limits
from gpuplane.outputs import TreeMarker, check_tree_target, write_tree_atomic
from gpuplane.render.output import to_json

__all__ = [
    "BUNDLE_MARKER",
    "MARKER",
    "Evidence",
    "bundle_files",
    "load_bundle",
    "safe_name",
    "skeleton_files",
    "write_bundle",
]

MARKER = "bundle.json"
BUNDLE_KIND = "gpuplane-acceptance-bundle"
#: bundle.json as `to_json` writes it starts with this ("kind" sorts first among its keys).
BUNDLE_MARKER = TreeMarker(MARKER, '{\n  "kind": "gpuplane-acceptance-bundle",\n')
BUNDLE_VERSION = 1
INCOMPLETE = "incomplete"
#: Longest file name a log gets (file systems allow 255 bytes; room for `.log` and a hash).
NAME_CHARS = 100
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


def safe_name(name: str) -> str:
    """`name` as one safe file name: only [A-Za-z0-9._-], no leading dot, at most NAME_CHARS
    characters; a name that had to change gets a short hash of the original (so two never collide)."""
    clean = _UNSAFE.sub("_", name).lstrip(".")[:NAME_CHARS]
    if clean == name and clean:
        return clean
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    return f"{clean[: NAME_CHARS - 13]}-{digest}"


def _marker_text(verdict: str) -> str:
    return to_json({"kind": BUNDLE_KIND, "version": BUNDLE_VERSION, "verdict": verdict})


def skeleton_files(suite: dict[str, Any], manifests: dict[str, str]) -> dict[str, str]:
    """The files written before the run touches the cluster."""
    return {MARKER: _marker_text(INCOMPLETE), "suite.json": to_json(_suite_copy(suite)), **manifests}


def _suite_copy(suite: dict[str, Any]) -> dict[str, Any]:
    """The suite info without the suite folder's own marker (a bundle is not a suite folder)."""
    from gpuplane.acceptance.suite import GENERATED_KEY

    return {k: v for k, v in suite.items() if k != GENERATED_KEY}


class Evidence:
    """A bundle written piece by piece (see the module docstring)."""

    def __init__(self, dest: Path, secrets: tuple[str, ...] = ()) -> None:
        self.dest = Path(os.path.abspath(dest))
        self.secrets = secrets

    def check(self) -> None:
        """OutputError now if `dest` is not new, empty or a bundle gpuplane wrote."""
        _check_replaceable(self.dest)

    def start(self, files: dict[str, str]) -> None:
        """Replace `dest` (new, empty, or gpuplane's bundle) with the skeleton, atomically."""
        _check_replaceable(self.dest)
        write_tree_atomic(self.dest, {k: self._redact(v) for k, v in files.items()}, BUNDLE_MARKER)

    def _redact(self, text: str) -> str:
        return redact_text(text, self.secrets)

    def add(self, rel: str, text: str) -> None:
        """Write one file of the bundle (replacing what is there; a link is replaced, not followed)."""
        parts = Path(rel).parts
        if os.path.isabs(rel) or ".." in parts or not parts:
            raise ValueError(f"not a path inside the bundle: {rel!r}")
        folder = self.dest
        try:
            if not stat.S_ISDIR(os.lstat(folder).st_mode):
                raise OutputError.at(
                    str(folder), "is no longer a directory (a link?); refusing to write through it"
                )
            for part in parts[:-1]:
                folder = folder / part
                try:
                    info = os.lstat(folder)
                except FileNotFoundError:
                    os.mkdir(folder)
                    continue
                if not stat.S_ISDIR(info.st_mode):
                    raise OutputError.at(
                        str(folder), "is not a directory (a link?); refusing to write through it"
                    )
            fd, tmp = tempfile.mkstemp(prefix=".gpuplane-tmp-", dir=folder)
            try:
                with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
                    handle.write(self._redact(text))
                os.chmod(tmp, 0o644)
                os.replace(tmp, folder / parts[-1])
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
        except OSError as exc:
            raise OutputError.at(str(self.dest / rel), f"cannot write: {exc.strerror or exc}") from None

    def log(self, pod: str, text: str) -> None:
        """Save one pod's log now (logs/<safe name>.log)."""
        self.add(f"logs/{safe_name(pod)}.log", text)

    def finish(self, results: Results, obs: Observations) -> None:
        """The scored files, then bundle.json with the verdict (last: the bundle is complete)."""
        files = bundle_files(results, obs, {}, {})
        for rel in sorted(files):
            if rel not in (MARKER, "suite.json"):
                self.add(rel, files[rel])
        self.add(MARKER, files[MARKER])


def bundle_files(
    results: Results, obs: Observations, manifests: dict[str, str], logs: dict[str, str]
) -> dict[str, str]:
    """Relative path -> text of every file of the bundle."""
    applied = [obj for objects in results.suite.get("manifests", {}).values() for obj in objects]
    images = [{"pod": p.name, "step": p.step, **i} for p in obs.pods for i in p.images]
    files = {
        MARKER: _marker_text(results.as_dict()["verdict"]),
        "results.json": to_json(results.as_dict()),
        "observations.json": to_json(obs.as_dict()),
        "report.html": report_page(results, obs, applied).render(),
        "suite.json": to_json(_suite_copy(results.suite)),
        "images.json": to_json(images),
    }
    files.update({path: text for path, text in manifests.items()})
    files.update({f"logs/{safe_name(pod)}.log": text for pod, text in sorted(logs.items())})
    return files


def _check_replaceable(dest: Path) -> None:
    """A bundle replaces only a new or empty directory or one whose bundle.json has gpuplane's header."""
    try:
        check_tree_target(dest, BUNDLE_MARKER)
    except OutputError:
        raise OutputError.at(
            str(dest),
            f"exists and is not an acceptance evidence bundle (no {MARKER} written by gpuplane); "
            "refusing to replace it",
        ) from None


def write_bundle(dest: Path, files: dict[str, str]) -> None:
    """Write the bundle atomically; a directory gpuplane did not write is never replaced."""
    _check_replaceable(dest)
    write_tree_atomic(dest, files, BUNDLE_MARKER)


def _finite(value: float) -> Any:
    raise ValueError(f"{value} is not a finite number")


def _json(path: Path) -> Any:
    """A bundle file: capped at the input limit, never through a link, finite numbers only."""
    cap = limits().input_bytes
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        with os.fdopen(fd, "rb") as handle:
            data = handle.read(cap + 1)
    except OSError as exc:
        raise InputError.single(str(path), f"cannot read: {exc.strerror or exc}") from None
    if len(data) > cap:
        raise InputError.single(str(path), f"larger than {cap} bytes (limit input_bytes)")
    try:
        return json.loads(
            data.decode("utf-8"),
            parse_constant=lambda c: _finite(float(c)),
            parse_float=lambda t: float(t) if math.isfinite(float(t)) else _finite(float(t)),
        )
    except (ValueError, RecursionError) as exc:
        raise InputError.single(str(path), f"not JSON: {str(exc)[:200]}") from None


def load_bundle(path: Path) -> tuple[dict[str, Any], Observations]:
    """The suite info and observations of a bundle directory."""
    suite = _json(path / "suite.json")
    data = _json(path / "observations.json")
    if not isinstance(suite, dict) or not isinstance(data, dict):
        raise InputError.single(str(path), "suite.json and observations.json must hold JSON objects")
    bad = check_thresholds(suite)
    if bad is not None:
        raise InputError.single(str(path / "suite.json"), bad[1], path=bad[0])
    try:
        return suite, Observations.from_dict(data)
    except (TypeError, ValueError, AttributeError, KeyError) as exc:
        raise InputError.single(
            str(path / "observations.json"), f"not gpuplane observations: {str(exc)[:200]}"
        ) from None
