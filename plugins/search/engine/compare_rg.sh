#!/usr/bin/env bash
# Compares the engine with ripgrep on Go's source tree and prints ratios.
#
#   plugins/search/engine/compare_rg.sh [runs]
#
# The engine is timed by its Go benchmarks (in process, so without the ~1 ms
# a process start costs); rg by running it, with the same queries and the
# same page cache. Each side reports the median of its runs. Timings only;
# the tests check that both find the same lines.
set -euo pipefail

runs=${1:-15}
here=$(cd "$(dirname "$0")" && pwd)
src=$(go env GOROOT)/src
command -v rg >/dev/null || { echo "rg is not on PATH (apt package ripgrep)" >&2; exit 1; }

median() { sort -n | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

# rg_ms PATTERN: median wall time of rg -c in milliseconds.
rg_ms() {
	rg -c --no-config "$1" "$src" >/dev/null || true # warm the page cache
	for _ in $(seq "$runs"); do
		start=$(date +%s%N)
		rg -c --no-config "$1" "$src" >/dev/null || true
		end=$(date +%s%N)
		echo $(((end - start) / 1000))
	done | median | awk '{printf "%.1f", $1/1000}'
}

# go_ms NAME: median ns/op of a benchmark, in milliseconds.
go_ms() {
	(cd "$here" && go test -run '^$' -bench "^$1\$" -count "$runs" .) |
		awk -v b="$1" '$1 ~ "^"b {print $3}' | median | awk '{printf "%.1f", $1/1e6}'
}

printf '%-8s %-30s %10s %10s %7s\n' query pattern engine_ms rg_ms ratio
while IFS='|' read -r name bench pattern; do
	e=$(go_ms "$bench")
	r=$(rg_ms "$pattern")
	printf '%-8s %-30s %10s %10s %7s\n' "$name" "$pattern" "$e" "$r" "$(awk -v e="$e" -v r="$r" 'BEGIN {printf "%.2f", e/r}')"
done <<'QUERIES'
literal|BenchmarkSearchGoSrcLiteral|func NewReader
regex|BenchmarkSearchGoSrcRegex|func [A-Z][a-z]+Reader\(
QUERIES
