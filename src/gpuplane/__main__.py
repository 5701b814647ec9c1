"""`python -m gpuplane`: the same entry point as the `gpuplane` console script."""

from gpuplane.entry import main

main()
