#!/usr/bin/env bash
# gpubatch on a Dask cluster of two GPU hosts (see docs/cluster.md). Run each part on the host it names.
set -euo pipefail
SCHEDULER=${SCHEDULER:-tcp://hostA:8786}
case "${1:-}" in
  scheduler) dask scheduler --port 8786 & dask cuda worker "$SCHEDULER" ;;  # host A
  worker) dask cuda worker "$SCHEDULER" ;;                                  # host B (and more)
  run) gpubatch run-batt --dataset arc1-eval --depth 3 --cluster "$SCHEDULER" --results results.json --stats ;;
  *) echo "usage: $0 scheduler|worker|run" >&2; exit 2 ;;
esac
