"""The field helpers workload readers use; they live on the ground floor in `gpuplane.kube.fields`."""

from __future__ import annotations

from gpuplane.kube.fields import FieldError, Path, api_group, as_dict, as_int, as_list, as_str, count, get

__all__ = ["FieldError", "Path", "api_group", "as_dict", "as_int", "as_list", "as_str", "count", "get"]
