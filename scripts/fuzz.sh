#!/usr/bin/env bash
# Runs every fuzz target of the module for a while each (default 30s):
#   scripts/fuzz.sh [DURATION]
# CI runs it briefly; run it longer by hand. A crasher that go test finds is
# written under the package's testdata/fuzz/ and becomes a regression test:
# commit it with the fix.
#
# go's fuzzing coordinator sometimes ends a run with "context deadline
# exceeded" and no failing input when the time runs out while a worker is
# busy on a loaded machine; such a run is retried once. A run that writes a
# failing input always fails.
set -uo pipefail
cd "$(dirname "$0")/.."
duration="${1:-30s}"
status=0
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
for pkg in $(go list ./...); do
  dir=$(go list -f '{{.Dir}}' "$pkg")
  for target in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //' | sort -u); do
    for try in 1 2; do
      echo "fuzz $pkg $target ($duration)"
      if go test -run '^$' -fuzz "^${target}\$" -fuzztime "$duration" "$pkg" 2>&1 | tee "$log"; then
        break
      fi
      if grep -q "Failing input written to" "$log" || [ "$try" = 2 ]; then
        status=1
        break
      fi
      echo "fuzz $pkg $target: the fuzzing engine stopped without a failing input; trying once more"
    done
  done
done
exit "$status"
