"""What NVIDIA's device plugin advertises on a node, modelled from its documented behaviour (not
from gpuplane's code), for tests that read rendered configs as the plugin would.

k8s-device-plugin README and api/config/v1 @1b826ac: a node selects its config by the
`nvidia.com/device-plugin.config` label (else the `default` key); `flags.migStrategy` is `none`
(whole GPUs as nvidia.com/gpu), `single` (every MIG device as nvidia.com/gpu; one profile per
node) or `mixed` (one nvidia.com/mig-<profile> per profile, `+` written `.`). `sharing.timeSlicing`
or `sharing.mps` multiply a resource by its `replicas`, renamed `<name>.shared` when
`renameByDefault`. The MIG layout comes from the mig-parted config the node's
`nvidia.com/mig.config` label selects (mig-parted api/spec/v1: `mig-devices` per GPU).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import yaml

PLUGIN_LABEL = "nvidia.com/device-plugin.config"
MIG_LABEL = "nvidia.com/mig.config"


def node_config(configmap: dict[str, Any] | None, labels: dict[str, str], default_key: str) -> dict[str, Any]:
    """The config file a node's plugin loads (an empty config without a ConfigMap)."""
    if configmap is None:
        return {}
    data = configmap["data"]
    key = labels.get(PLUGIN_LABEL, default_key)
    loaded: dict[str, Any] = yaml.safe_load(data[key])
    return loaded


def mig_layout(mig_configmap: dict[str, Any] | None, labels: dict[str, str]) -> Counter[str]:
    """MIG instances per GPU on a node, from the mig-parted config its label selects."""
    name = labels.get(MIG_LABEL)
    if mig_configmap is None or name is None:
        return Counter()
    config = yaml.safe_load(mig_configmap["data"]["config.yaml"])
    [entry] = config["mig-configs"][name]
    if not entry.get("mig-enabled"):
        return Counter()
    return Counter({str(k): int(v) for k, v in entry["mig-devices"].items()})


def advertised(config: dict[str, Any], layout: Counter[str], gpus: int) -> dict[str, int]:
    """Extended resources one node advertises, by name."""
    strategy = (config.get("flags") or {}).get("migStrategy", "none")
    if layout and strategy == "mixed":
        out = {f"nvidia.com/mig-{p.replace('+', '.')}": n * gpus for p, n in layout.items()}
    elif layout and strategy == "single":
        assert len(layout) == 1, "the single strategy needs one profile per node"
        out = {"nvidia.com/gpu": sum(layout.values()) * gpus}
    else:
        out = {"nvidia.com/gpu": gpus}
    sharing = config.get("sharing") or {}
    for mode in ("timeSlicing", "mps"):
        if mode in sharing:
            shared: dict[str, int] = {}
            rename = bool(sharing[mode].get("renameByDefault"))
            for res in sharing[mode]["resources"]:
                name = res["name"] + (".shared" if rename else "")
                shared[name] = out.pop(res["name"]) * int(res["replicas"])
            out.update(shared)
    return dict(sorted(out.items()))
