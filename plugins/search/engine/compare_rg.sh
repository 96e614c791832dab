#!/usr/bin/env bash
# Compares the engine with ripgrep on Go's source tree and prints ratios.
#
#   plugins/search/engine/compare_rg.sh [rounds]
#
# Each round times the engine (one iteration of its Go benchmark, in
# process, so without the ~1 ms a process start costs) and then rg -c on
# the same query; the two alternate so that a busy machine slows both
# alike. Medians over the rounds are printed. Timings only: the tests check
# that both find the same lines.
set -euo pipefail

rounds=${1:-21}
here=$(cd "$(dirname "$0")" && pwd)
src=$(go env GOROOT)/src
command -v rg >/dev/null || { echo "rg is not on PATH (apt package ripgrep)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$here" && go test -c -o "$work/engine.test" .)

median() { sort -n | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

# engine_us BENCH: microseconds per search, from one benchmark iteration.
engine_us() {
	"$work/engine.test" -test.run '^$' -test.bench "^$1\$" -test.benchtime 1x |
		awk -v b="$1" '$1 ~ "^"b {printf "%d\n", $3/1000}'
}

# rg_us PATTERN: microseconds of one rg -c run.
rg_us() {
	local start end
	start=$(date +%s%N)
	rg -c --no-config "$1" "$src" >/dev/null || true
	end=$(date +%s%N)
	echo $(((end - start) / 1000))
}

printf '%-8s %-28s %10s %10s %7s\n' query pattern engine_ms rg_ms ratio
while IFS='|' read -r name bench pattern; do
	engine_us "$bench" >/dev/null # warm the page cache
	rg_us "$pattern" >/dev/null
	: >"$work/e"
	: >"$work/r"
	for _ in $(seq "$rounds"); do
		engine_us "$bench" >>"$work/e"
		rg_us "$pattern" >>"$work/r"
	done
	e=$(median <"$work/e")
	r=$(median <"$work/r")
	awk -v n="$name" -v p="$pattern" -v e="$e" -v r="$r" \
		'BEGIN {printf "%-8s %-28s %10.1f %10.1f %7.2f\n", n, p, e/1000, r/1000, e/r}'
done <<'QUERIES'
literal|BenchmarkSearchGoSrcLiteral|func NewReader
regex|BenchmarkSearchGoSrcRegex|func [A-Z][a-z]+Reader\(
QUERIES
