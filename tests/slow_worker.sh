#!/usr/bin/env bash
# slow_worker.sh - run $SLOW_WORKER_REAL (a ccsim, or the fake) after
# sleeping $SLOW_WORKER_S, so a test can kill a sweep half-way.
sleep "${SLOW_WORKER_S:-0.3}"
exec "$SLOW_WORKER_REAL" "$@"
