"""`python -m gpubatch` runs the CLI."""
from gpubatch.cli import main

main()
