"""arc-dsl solver files for run-batt (issue 14): solvers in Michael Hodel's arc-dsl form, parsed (never imported
or run as Python), interpreted line by line over every sample of every task in one batch.

- `solvers`: the file's `def solve_<id>(I):` functions as straight-line programs; a construct outside that form
  or an unknown name makes that solver unsupported, with its line and reason.
- `prims_*`: the 160 primitives and the constants, per value (the reference every batched form must equal).
- `interp`: a solver run line by line over a batch of samples; a sample whose line raises is an error, and
  the run goes on.
- `battery`: the own and cross batteries through the engine, scored as run-batt scores its search.
- `native`: those per-value modules compiled by Cython (`batt.compiled`), put first on this package's path.
"""
import os as _os

COMPILED_ENV = "_GPUBATCH_ARCDSL_COMPILED"  # the compiled modules' folder, set by `native.prepare`
# a worker process started by a run that compiled the primitives loads the same compiled modules (native.py)
_compiled = _os.environ.get(COMPILED_ENV)
if _compiled and _os.path.isdir(_compiled):
    __path__.insert(0, _compiled)
