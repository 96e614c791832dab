#!/usr/bin/env bash
# The scale figure of the Temporal engine (docs/benchmarks.md, "Temporal
# engine at scale"): 50 sessions x 10 turns on the fake DeepSeek server, on
# the local engine, on a Temporal dev server with 3 `harness worker`
# processes, the same with one worker killed (kill -9) mid-run, and on a
# PostgreSQL store. It runs BenchmarkTemporalScale (bench/temporal_test.go)
# through scripts/test.sh, which builds the Temporal CLI once (cached) and
# starts a throwaway PostgreSQL cluster, and stops both at exit.
#
#   bench/scale.sh                                # the figure (a few minutes)
#   BENCH_SCALE_SESSIONS=5 bench/scale.sh         # fewer sessions (also _TURNS, _WORKERS, _HEARTBEAT, _ONLY)
set -euo pipefail
cd "$(dirname "$0")/.."
# scripts/test.sh runs go test -race by default: a benchmark runs without.
exec scripts/test.sh -race=false -run '^$' -bench '^BenchmarkTemporalScale$' -benchtime 1x -timeout 40m -v ./bench
