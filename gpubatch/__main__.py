"""`python -m gpubatch` runs the CLI."""
from gpubatch._entry import main

main()
