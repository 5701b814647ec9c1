"""The evidence bundle's HTML report: verdict, timeline, each step's figures and thresholds, images.

Built with `gpuplane.report` (self-contained HTML, inline SVG, no scripts).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from gpuplane.acceptance.observations import Observations
from gpuplane.acceptance.results import Results, StepResult
from gpuplane.report import Html, Page, cards, charts, note, table

__all__ = ["report_page"]


def _when(ts: float | None) -> str:
    if ts is None:
        return "–"
    return datetime.fromtimestamp(ts, tz=UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def _timeline(obs: Observations) -> list[tuple[str, float, str]]:
    """(what, when, pod) for the run's milestones and the helper's events, in time order."""
    rows = [
        (what, ts, "")
        for what, ts in (
            ("submitted", obs.submitted),
            ("admitted by Kueue", obs.admitted),
            ("running", obs.running),
            (f"pod {obs.deleted_pod} deleted" if obs.deleted_pod else "pod deleted", obs.deleted_at),
            ("finished", obs.finished),
        )
        if ts is not None
    ]
    shown = {"copy", "copy_failed", "window_start", "checkpoint", "resumed", "window_end", "no_python"}
    rows += [
        (str(e["event"]), float(e["ts"]), str(e.get("pod", "")))
        for e in obs.events
        if e.get("event") in shown
    ]
    return sorted(rows, key=lambda r: r[1])


def _progress_chart(obs: Observations, unit: str) -> Html | None:
    series: dict[str, list[tuple[float, float]]] = {}
    for event in obs.events:
        if event.get("event") in ("progress", "resumed") and "ts" in event:
            series.setdefault(str(event.get("pod", "")), []).append(
                (float(event["ts"]), float(event["units"]))
            )
    if not series:
        return None
    return charts.line(
        {pod: sorted(points) for pod, points in sorted(series.items())},
        title=f"Progress ({unit}) per pod",
        y_label=unit,
        time_axis=True,
    )


def _step_section(page: Page, step: StepResult) -> None:
    rows: list[list[Any]] = []
    for fig in step.figures:
        t = fig.threshold
        rows.append(
            [
                fig.name,
                fig.value,
                fig.unit,
                f"{t.op} {t.value:g} {t.unit}".rstrip() if t else None,
                None if fig.passed is None else ("yes" if fig.passed else "NO"),
                t.source if t else None,
            ]
        )
    blocks: list[Html | str] = [cards([("status", step.status)])]
    if rows:
        blocks.append(
            table(["figure", "value", "unit", "threshold", "met", "source"], rows, float_format=",.4g")
        )
    blocks += [note(m, warn=step.status in ("fail", "skipped")) for m in step.messages]
    page.section(f"Step {step.number}: {step.name}", *blocks, anchor=f"step-{step.number}")


def report_page(results: Results, obs: Observations, applied: list[str]) -> Page:
    """The report of one run (or one rescoring) as a Page."""
    suite = results.suite
    verdict = "PASS" if results.passed else "FAIL"
    page = Page(
        f"Acceptance: pool {suite.get('pool')} of {suite.get('cluster')}: {verdict}",
        subtitle=f"image {suite.get('image')}; {suite.get('nodes')} node(s); team {suite.get('team')}",
        footer="gpuplane acceptance; thresholds and their sources are in suite.json",
    )
    summary = [(f"step {s.number}", s.status) for s in results.steps]
    blocks: list[Html | str] = [cards([("verdict", verdict), *summary])]
    blocks += [note(line, warn=True) for line in results.failures()]
    blocks += [note(n) for n in results.notes]
    page.section("Verdict", *blocks, anchor="verdict")
    timeline = [[what, _when(ts), pod] for what, ts, pod in _timeline(obs)]
    chart = _progress_chart(obs, str(suite.get("unit", "units")))
    page.section(
        "Timeline",
        *([chart] if chart is not None else []),
        table(["event", "time", "pod"], timeline) if timeline else "No timed events were observed.",
        anchor="timeline",
    )
    for step in results.steps:
        _step_section(page, step)
    images = [
        [p.name, p.step, i.get("container"), i.get("image"), i.get("image_id")]
        for p in obs.pods
        for i in p.images
    ]
    page.section(
        "Images and manifests",
        table(["pod", "step", "container", "image", "image ID (digest)"], images)
        if images
        else "No pod was observed.",
        table(["applied object"], [[a] for a in applied])
        if applied
        else "Nothing was applied (rescored offline).",
        anchor="evidence",
    )
    return page
