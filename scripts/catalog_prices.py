"""Add on-demand rows to `src/gpuplane/catalog/data/prices.csv` for catalog VM sizes that have none.

Sources (the generated price tables the Karpenter providers ship, read from a local checkout):

- Azure: Azure/karpenter-provider-azure `pkg/providers/pricing/zz_generated.pricing.go`
  (`initialOnDemandPrices[region][vm]`, Azure Retail Prices API, every public region);
- AWS: aws/karpenter-provider-aws `pkg/providers/pricing/zz_generated.pricing_aws.go`
  (`InitialOnDemandPricesAWS["us-east-1"]`, AWS Price List API, us-east-1 only);
- GCP (optional 7th-9th arguments): cloudpilot-ai/karpenter-provider-gcp
  `pkg/providers/pricing/initial-prices.json` (`prices[region].on_demand|spot[machine]`, the
  Cloud Billing Catalog's machine + attached-GPU SKUs, every region), with spot.

The Azure and AWS tables have no spot prices (both providers fetch spot live), so their rows have
an empty spot column: a spot pool on such a size needs `costs.pools.<pool>.spotHourly`. Existing rows (the
skypilot-catalog snapshot, which has spot) are kept; a (provider, vm, region) already present is
never overwritten.

    python scripts/catalog_prices.py AZURE_GO AZURE_COMMIT AZURE_DATE AWS_GO AWS_COMMIT AWS_DATE \
        [GCP_JSON GCP_COMMIT GCP_DATE]
"""

from __future__ import annotations

import csv
import io
import json
import re
import sys
from pathlib import Path
from typing import Any

import yaml

DATA = Path(__file__).resolve().parent.parent / "src" / "gpuplane" / "catalog" / "data"
_AZ_REGION = re.compile(r'initialOnDemandPrices\["([^"]+)"\]')
_PAIR = re.compile(r'"([^"]+)":\s*([0-9.]+)')
_AWS_REGION = re.compile(r'^\t"([a-z0-9-]+)": \{', re.M)


def azure_prices(text: str) -> dict[tuple[str, str], float]:
    out: dict[tuple[str, str], float] = {}
    parts = _AZ_REGION.split(text)
    for i in range(1, len(parts), 2):
        region, body = parts[i], parts[i + 1]
        for vm, price in _PAIR.findall(body):
            out[(vm.lower(), region)] = float(price)
    return out


def aws_prices(text: str) -> dict[tuple[str, str], float]:
    out: dict[tuple[str, str], float] = {}
    parts = _AWS_REGION.split(text)
    for i in range(1, len(parts), 2):
        region, body = parts[i], parts[i + 1]
        for vm, price in _PAIR.findall(body):
            out[(vm.lower(), region)] = float(price)
    return out


def gcp_rows(
    skus: dict[str, Any], have: set[tuple[str, str, str]], path: str, commit: str, date: str
) -> list[list[str]]:
    """Rows for GKE machine types from the karpenter-provider-gcp price file (on-demand and spot)."""
    prices = json.loads(Path(path).read_text(encoding="utf-8"))["prices"]
    source = f"karpenter-provider-gcp pkg/providers/pricing/initial-prices.json @{commit[:8]}"
    names = [str(row[0]) for fam in skus.get("gke", []) for row in fam["skus"]]
    rows = []
    for name in names:
        for region in sorted(prices):
            od = prices[region].get("on_demand", {}).get(name)
            if not od or ("gke", name.lower(), region) in have:
                continue
            spot = prices[region].get("spot", {}).get(name)
            spot_text = f"{spot:.6g}" if spot and spot < od else ""
            note = "machine + attached GPUs (Cloud Billing SKUs)" + (
                "" if spot_text else "; no spot price in source"
            )
            rows.append(["gke", name, region, f"{od:.6g}", spot_text, "USD", date, source, note])
    return rows


def main(argv: list[str]) -> int:
    az_go, az_commit, az_date, aws_go, aws_commit, aws_date = argv[:6]
    skus = yaml.safe_load((DATA / "vm_skus.yaml").read_text(encoding="utf-8"))
    path = DATA / "prices.csv"
    text = path.read_text(encoding="utf-8")
    body = "".join(line for line in io.StringIO(text) if not line.startswith("#"))
    have = {(r["provider"], r["vm"].lower(), r["region"]) for r in csv.DictReader(io.StringIO(body))}
    sources = {
        "aks": (
            azure_prices(Path(az_go).read_text(encoding="utf-8")),
            f"karpenter-provider-azure pkg/providers/pricing/zz_generated.pricing.go @{az_commit[:8]}",
            az_date,
        ),
        "eks": (
            aws_prices(Path(aws_go).read_text(encoding="utf-8")),
            f"karpenter-provider-aws pkg/providers/pricing/zz_generated.pricing_aws.go @{aws_commit[:8]}",
            aws_date,
        ),
    }
    rows: list[list[str]] = []
    if len(argv) == 9:
        rows += gcp_rows(skus, have, *argv[6:9])
    for provider, (prices, source, date) in sources.items():
        names = [str(row[0]) for fam in skus.get(provider, []) for row in fam["skus"]]
        for name in names:
            for (vm, region), price in sorted(prices.items()):
                if vm != name.lower() or (provider, vm, region) in have or price <= 0:
                    continue
                note = "no spot price in source (on-demand list price only)"
                rows.append([provider, name, region, f"{price:g}", "", "USD", date, source, note])
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    path.write_text(text.rstrip("\n") + "\n" + out.getvalue(), encoding="utf-8")
    print(f"added {len(rows)} rows")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
