"""Kubernetes on the ground floor: what every engine reads from Kubernetes objects, written once.

`quantity` (the one grammar of resource quantities, as apimachinery's `resource.Quantity`),
`requests` (a pod's requests as Kubernetes and Kueue count them), `runtime` (the expected-runtime
annotation and activeDeadlineSeconds). Imports nothing above `errors`, `limits`, `vocab`.
"""

from __future__ import annotations

from gpuplane.kube.quantity import (
    QuantityError,
    QuantityRangeError,
    format_quantity,
    parse_quantity,
    quantity_value,
)

__all__ = ["QuantityError", "QuantityRangeError", "format_quantity", "parse_quantity", "quantity_value"]
