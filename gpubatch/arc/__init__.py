"""run-batt: ARC tasks, batched grids, the grid DSL, program search and scoring."""
