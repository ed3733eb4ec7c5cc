"""The console entry point: Ctrl-C or SIGTERM while the CLI is still importing ends it quietly (exit 130 or 143)
instead of printing a traceback from the middle of an import; the commands install their own handling after."""
import signal
import sys


def _quiet(signum, frame):
    raise SystemExit(130 if signum == signal.SIGINT else 143)


def main() -> None:
    """Run the gpubatch CLI (the `gpubatch` script and `python -m gpubatch`)."""
    signal.signal(signal.SIGINT, _quiet)
    signal.signal(signal.SIGTERM, _quiet)
    from gpubatch.cli import app  # typer, rich and the command modules: the slow part of start-up

    signal.signal(signal.SIGINT, signal.default_int_handler)
    sys.exit(app())
