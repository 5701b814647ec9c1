"""`gpuplane plan`: search platform designs with the twin for the cheapest that meets a goal.

    space = derive_space(spec)                        # candidates per GPU pool (plan.yaml refines)
    result = search(spec, space, reference, goal, evaluator, Settings())

Modules: `space` (candidates, designs), `spacefile` (plan.yaml), `design` (a design as a validated
spec, quotas scaled with capacity), `evaluate` (one design through the twin -> `DesignResult`),
`goal` (constraints, verdicts), `runner` (in process or Ray tasks, the per-design cache),
`search` (grid, successive halving, seeds, Pareto front), `output`, `report`, `command` (one run:
the front door the CLI calls).
"""

from gpuplane.plan.command import PlanOptions, execute
from gpuplane.plan.evaluate import DesignResult, Task, evaluate
from gpuplane.plan.goal import Constraint, parse_goal
from gpuplane.plan.search import SearchResult, Settings, search
from gpuplane.plan.space import SearchSpace, derive_space

__all__ = [
    "Constraint",
    "DesignResult",
    "PlanOptions",
    "SearchResult",
    "SearchSpace",
    "Settings",
    "Task",
    "derive_space",
    "evaluate",
    "execute",
    "parse_goal",
    "search",
]
