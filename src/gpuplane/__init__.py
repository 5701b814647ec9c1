"""gpuplane: declare a GPU Kubernetes platform once; render, explain, simulate, audit and account it."""

__version__ = "0.1.0"
