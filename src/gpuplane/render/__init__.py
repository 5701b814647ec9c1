"""`gpuplane render`: the platform spec in, every manifest of the GPU cluster out.

    result = render_all(spec)            # RenderResult: files (relative path -> text), index, notes
    objs = kueue.kueue_objects(spec)     # one family as plain dicts

Each family module is a set of pure functions spec -> objects; `output` serialises them
deterministically, and `render_all` lays them out in files with an index saying why each exists.
"""

from __future__ import annotations

from gpuplane.render.assemble import render_all
from gpuplane.render.output import IndexEntry, RenderResult, stream_yaml

__all__ = ["IndexEntry", "RenderResult", "render_all", "stream_yaml"]
