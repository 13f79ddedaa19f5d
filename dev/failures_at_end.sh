#!/usr/bin/env bash
# Runs a test command (sbt, usually), its output shown as it comes and kept in a log; when it
# fails, prints each failed or aborted test's report again, with the lines that follow it, as the
# last lines of the output: a long run's report is read from its end.
# Usage: dev/failures_at_end.sh <log file> <command> [args...]
set -uo pipefail
log=$1
shift
mkdir -p "$(dirname "$log")"
"$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
if [ "$status" -ne 0 ]; then
  echo "== what failed (from $log):"
  grep -a -A 12 -E '\*\*\* (FAILED|ABORTED) \*\*\*' "$log" | cut -c 1-400 | head -n 120
fi
exit "$status"
