"""PromQL helpers for render's monitoring tests: bracket balance, the metric names an expression
reads, and the metric names real exporters serve (the gpuplane exporter's own exposition, the
upstream dcgm-exporter CSV, the shared reference for kube-state-metrics and Kueue)."""

from __future__ import annotations

import csv
import re
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

from gpuplane.account.compute import AccountResult, KueueView
from gpuplane.account.exporter import Exporter
from gpuplane.costs import CostBreakdown
from gpuplane.spec import PlatformSpec

PROMQL_WORDS = {
    "sum",
    "avg",
    "max",
    "min",
    "count",
    "by",
    "without",
    "on",
    "ignoring",
    "group_left",
    "group_right",
    "and",
    "or",
    "unless",
    "bool",
    "offset",
    "vector",
    "avg_over_time",
    "max_over_time",
    "min_over_time",
    "rate",
    "increase",
    "label_values",
    "inf",
    "nan",
}
PAIRS = {"(": ")", "{": "}", "[": "]"}


def check_balanced(expr: str) -> None:
    """Brackets balance and nest, and string literals close."""
    stack: list[str] = []
    in_string = False
    for ch in expr:
        if ch == '"':
            in_string = not in_string
        elif in_string:
            continue
        elif ch in PAIRS:
            stack.append(PAIRS[ch])
        elif ch in PAIRS.values():
            assert stack and stack.pop() == ch, f"unbalanced {ch!r} in {expr}"
    assert not in_string, f"unclosed string in {expr}"
    assert not stack, f"unclosed {stack} in {expr}"


def metric_names(expr: str) -> set[str]:
    """Metric names in an expression: identifiers outside matchers, ranges, strings and label lists
    (Grafana's `label_values(metric, label)` reads `metric`)."""
    text = re.sub(r"label_values\(\s*([^,()]+?)\s*,[^)]*\)", r"\1", expr)
    text = re.sub(r'"[^"]*"', '""', text)
    text = re.sub(r"\{[^}]*\}", "", text)
    text = re.sub(r"\[[^\]]*\]", "", text)
    text = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", text)
    names = set()
    for match in re.finditer(r"(?<![\w.])([A-Za-z_:][\w:]*)\s*(\()?", text):
        word, call = match.group(1), match.group(2)
        if call or word.lower() in PROMQL_WORDS or word.startswith("$"):
            continue
        names.add(word)
    return names


def upstream_dcgm(shared_dir: Path) -> set[str]:
    """The fields of dcgm-exporter's dcp-metrics-included.csv (the GPU Operator's default set)."""
    path = shared_dir / "reference" / "nvidia-data" / "dcgm-exporter-dcp-metrics-included.csv"
    rows = csv.reader(
        line for line in path.read_text().splitlines() if line.strip() and not line.startswith("#")
    )
    return {row[0].strip() for row in rows}


def served_by_gpuplane_exporter(spec: PlatformSpec) -> set[str]:
    """The metric families the gpuplane exporter serves after a refresh (an empty window: every
    family is still written, with its HELP and TYPE lines), parsed back from its exposition."""
    exporter = Exporter("http://127.0.0.1:9", spec)
    exporter.result = AccountResult(
        spec.cluster.name,
        spec.costs.currency,
        0.0,
        3600.0,
        30.0,
        "",
        [],
        [],
        CostBreakdown(),
        [],
        KueueView(),
    )
    exporter.last_error = ""
    return {family.name for family in text_string_to_metric_families(exporter.exposition())}


def reference_names(shared_dir: Path, prefix: str) -> set[str]:
    """Metric names the shared reference (exporters.md, read from the exporters' sources) lists."""
    text = (shared_dir / "reference" / "exporters.md").read_text(encoding="utf-8")
    return set(re.findall(rf"`({prefix}[a-z_]+)", text))


def real_metrics(spec: PlatformSpec, shared_dir: Path) -> set[str]:
    """Every metric name some exporter the platform runs really serves."""
    return (
        served_by_gpuplane_exporter(spec)
        | upstream_dcgm(shared_dir)
        | reference_names(shared_dir, "kube_")
        | reference_names(shared_dir, "kueue_")
    )
