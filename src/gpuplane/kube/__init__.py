"""Kubernetes on the ground floor: what every engine reads from Kubernetes objects, written once.

`quantity` (the one grammar of resource quantities, as apimachinery's `resource.Quantity`),
`requests` (a pod's requests as Kubernetes and Kueue count them), `runtime` (the expected-runtime
annotation and activeDeadlineSeconds). Imports nothing above `errors`, `limits`, `vocab`.
"""

from __future__ import annotations

from gpuplane.kube.quantity import QuantityError, format_quantity, parse_quantity

__all__ = ["QuantityError", "format_quantity", "parse_quantity"]
