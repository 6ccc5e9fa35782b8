#!/usr/bin/env bash
# Runs pytest and refuses to pass silently when no test was collected (pytest exit code 5).
set -uo pipefail
"$@"
rc=$?
if [ "$rc" -eq 5 ]; then
    echo "run-pytest: pytest collected no tests; treating this as a failure" >&2
    exit 1
fi
exit "$rc"
