#!/usr/bin/env bash
# Runs every fuzz target of the module for a while each (default 30s):
#   scripts/fuzz.sh [DURATION]
# CI runs it briefly; run it longer by hand. A crasher that go test finds is
# written under the package's testdata/fuzz/ and becomes a regression test:
# commit it with the fix.
set -euo pipefail
cd "$(dirname "$0")/.."
duration="${1:-30s}"
for pkg in $(go list ./...); do
  dir=$(go list -f '{{.Dir}}' "$pkg")
  for target in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //' | sort -u); do
    echo "fuzz $pkg $target ($duration)"
    go test -run '^$' -fuzz "^${target}\$" -fuzztime "$duration" "$pkg"
  done
done
