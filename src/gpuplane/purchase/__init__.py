"""Buying capacity the way the clouds sell it: a pool's purchase mix (`mix`), what a node-count
history costs under it with unused reservation as its own idle term (`amortise`), and the
reserved-count break-even (`breakeven`). Prices come from the spec's `purchase[].hourly` (the
catalog publishes none for reservations and blocks: `gpuplane.catalog.purchase`)."""
