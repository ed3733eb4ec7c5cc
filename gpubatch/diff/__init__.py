"""Compare two results files of the same job (run-batt `--results`, analyze `--format json`) on outcomes."""
from .outcomes import Difference, DiffError, compare, compare_files, load

__all__ = ["DiffError", "Difference", "compare", "compare_files", "load"]
