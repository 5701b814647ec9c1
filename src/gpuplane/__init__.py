"""gpuplane: declare a GPU Kubernetes platform once; render, explain, simulate, audit and account it."""

from gpuplane.twinbuild import attach_compiled_copy

__version__ = "0.1.0"

# In a checkout, run the twin compiled with mypyc when `make` built a copy from exactly these sources
# (build/compiled, see gpuplane/twinbuild.py); otherwise this is the pure-Python package.
attach_compiled_copy(__path__)
