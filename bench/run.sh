#!/usr/bin/env bash
# Measures harness against its outside references, side by side in one run,
# and prints one Markdown table of medians and ratios (docs/benchmarks.md
# records the latest):
#
#   bench/run.sh
#
# It builds the harness binary and the plugin binaries the benchmarks start
# as a release is built (CGO_ENABLED=0 -trimpath: a static binary, README
# "Building harness"), and Crush the way its own releases are built (its
# .goreleaser.yml: CGO_ENABLED=0),
# installs ripgrep from Debian when it is missing (as root,
# with apt-get), and runs:
#   - the benchmarks of bench/ (each alternates the harness path with its
#     reference in one loop and reports p50s);
#   - a few existing benchmarks of the packages, for the breakdown (their
#     figure is the median of several runs' means);
#   - the offline quickstart, interleaved with `harness version`, and the
#     summed package-init time of one process (GODEBUG=inittrace=1);
#   - whole sessions (2 and 100 turns) of harness and of Crush against the
#     same fake DeepSeek server (BenchmarkSession), interleaved. Crush
#     (the version below) is installed once into ~/.cache/harness-bench with `go
#     install`; where the module proxy does not serve it, CRUSH_SRC=DIR
#     builds it from a checkout of that tag, or CRUSH_BIN=PATH names a
#     binary. Without any, its columns say why.
# It prints the load average before and after.
# Timings are never pass/fail: the table says which targets the figures
# meet on this machine.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

export DEBIAN_FRONTEND=noninteractive
need=()
command -v rg >/dev/null 2>&1 || need+=(ripgrep)
if [ ${#need[@]} -gt 0 ]; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		echo "installing ${need[*]} (apt-get)" >&2
		if ! { apt-get update -qq && apt-get install -y -qq "${need[@]}" >/dev/null; }; then
			echo "bench/run.sh: could not install ${need[*]} with apt-get; install them and run again" >&2
			exit 1
		fi
	else
		echo "bench/run.sh: needs ${need[*]}: run as root on Debian/Ubuntu, or install them (apt-get install ${need[*]})" >&2
		exit 1
	fi
fi
if [ ! -x .ci/npm/node_modules/.bin/mcp-server-everything ] && command -v npm >/dev/null 2>&1; then
	echo "installing the MCP reference server (npm ci --prefix .ci/npm)" >&2
	npm ci --prefix .ci/npm --no-audit --no-fund --loglevel=error >&2 || true
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Crush, the peer the session figures are compared with: one pinned
# release, built once, static as its releases are.
crush_version=v0.90.0
export CGO_ENABLED=0 GOFLAGS="${GOFLAGS:+$GOFLAGS }-trimpath"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/harness-bench"
crush_bin="${CRUSH_BIN:-}" crush_why=""
crush_cached="$cache/crush-$crush_version-static"
if [ -z "$crush_bin" ] && [ -x "$crush_cached" ]; then
	crush_bin="$crush_cached"
fi
if [ -z "$crush_bin" ]; then
	mkdir -p "$cache"
	echo "installing Crush $crush_version once into $cache (go install)" >&2
	ldflags="-X github.com/charmbracelet/crush/internal/version.Version=$crush_version"
	if GOBIN="$cache/gobin" go install -ldflags "$ldflags" "github.com/charmbracelet/crush@$crush_version" 2>"$work/crush.log"; then
		mv "$cache/gobin/crush" "$crush_cached" && crush_bin="$crush_cached"
	elif [ -n "${CRUSH_SRC:-}" ] && (cd "$CRUSH_SRC" && go build -ldflags "$ldflags" -o "$crush_cached" .) 2>>"$work/crush.log"; then
		crush_bin="$crush_cached"
	else
		crush_why="Crush $crush_version could not be installed: $(grep -m1 -o '[0-9][0-9][0-9] [A-Z][a-z]*' "$work/crush.log" || tail -n1 "$work/crush.log")"
		[ -z "${CRUSH_SRC:-}" ] && crush_why="$crush_why from the module proxy (set CRUSH_SRC to a checkout of $crush_version)"
		echo "  $crush_why" >&2
	fi
fi

echo "building harness, the benchmark plugins and the benchmarks" >&2
go build -o "$work/harness" ./cmd/harness
go build -o "$work/testplugin" ./core/pluginhost/testdata/testplugin
go build -o "$work/bareplugin" ./bench/bareplugin
go test -c -o "$work/bench.test" ./bench
export HARNESS_BIN="$work/harness" BENCH_TESTPLUGIN="$work/testplugin" BENCH_BAREPLUGIN="$work/bareplugin"

raw="$work/raw.txt"
: >"$raw"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
# bench NAME BENCHTIME: one benchmark of bench/ (run from bench/, where its
# relative paths point).
bench() {
	echo "  bench/$1 ($2)" >&2
	(cd bench && "$work/bench.test" -test.run '^$' -test.bench "^$1\$" -test.benchtime "$2") >>"$raw" ||
		echo "  $1 failed; its rows stay empty" >&2
}
# existing PACKAGE REGEXP BENCHTIME COUNT: benchmarks that live with the code.
existing() {
	echo "  $1 $2 ($3 × $4)" >&2
	go test -run '^$' -bench "$2" -benchtime "$3" -count "$4" "./$1" 2>/dev/null | grep '^Benchmark' |
		sed "s#^Benchmark#$1:Benchmark#" >>"$raw" || echo "  $1: the benchmarks failed; their rows stay empty" >&2
}

echo "running (a few minutes)" >&2
bench BenchmarkSearch 11x
bench BenchmarkStartToFirstCall 21x
bench BenchmarkNoopCall 1000x
bench BenchmarkCall64KiB 300x
bench BenchmarkProviderStream 31x
bench BenchmarkMCPCall 200x
bench BenchmarkQuickstartRSS 7x
echo "  sessions of harness${crush_bin:+ and Crush}, interleaved" >&2
CRUSH_BIN="$crush_bin" bench 'BenchmarkSession/turns=2' 21x
CRUSH_BIN="$crush_bin" bench 'BenchmarkSession/turns=100' 5x
existing plugins/search/engine 'SearchGoSrc' 5x 3
existing core/pluginhost 'StartToFirstCall' 20x 3
existing core/pluginhost 'NoopCallThroughHost|BareUnaryCall' 2000x 3
existing plugins/provider-deepseek 'DecodePerChunk|HTTPOnly' 30x 5
existing core/session 'Append$|AppendAll4' 500x 5

# The quickstart, in a copy, as a user runs it; `harness version` is the
# floor: one start of the binary.
qs="$work/quickstart"
cp -r examples/quickstart "$qs"
rm -rf "$qs/workspace/.harness" "$qs/workspace/out"
export HARNESS_STATE_DIR="$work/state" # the runs' sessions stay out of the user's store
# Interleaved (quickstart, version, quickstart, …) so that a busy machine
# slows both alike; hyperfine would run all of one, then all of the other.
echo "  quickstart and version, interleaved (31 rounds after 3 warm-ups)" >&2
ms() { local t0 t1; t0=$(date +%s%N); "$@" >/dev/null 2>&1 </dev/null || true; t1=$(date +%s%N); echo $(((t1 - t0) / 1000)); }
: >"$work/qs.us"; : >"$work/version.us"
for i in $(seq 34); do
	q=$(cd "$qs" && ms "$work/harness" run --no-input agent.hcl 'Summarize the open TODOs')
	v=$(ms "$work/harness" version)
	[ "$i" -gt 3 ] && echo "$q" >>"$work/qs.us" && echo "$v" >>"$work/version.us"
done
# Summed package-init time of one process (every plugin process pays it too).
echo "  package init (GODEBUG=inittrace=1 harness version, 21 runs)" >&2
for i in $(seq 21); do
	GODEBUG=inittrace=1 "$work/harness" version 2>&1 >/dev/null | awk '/^init / { s += $5 } END { printf "%.3f\n", s }'
done >"$work/init.ms"

# metrics: "NAME UNIT VALUE" lines, the median where a benchmark ran more
# than once. Go's -N GOMAXPROCS suffix is dropped.
metrics="$work/metrics.txt"
awk '/^[a-z\/-]*:?Benchmark/ {
	name = $1; sub(/-[0-9]+$/, "", name)
	for (i = 3; i < NF; i += 2) print name, $(i+1), $i
}' "$raw" | sort -k1,1 -k2,2 -k3,3g | awk '
	function flush() { if (n) print key, (n % 2 ? v[(n+1)/2] : (v[n/2] + v[n/2+1]) / 2) }
	{ k = $1 " " $2; if (k != key) { flush(); key = k; n = 0 } v[++n] = $3 }
	END { flush() }' >"$metrics"
median() { sort -g "$1" | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2 ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2) }'; }
printf 'interleaved:quickstart us %s\ninterleaved:version us %s\ninittrace:version ms %s\n' \
	"$(median "$work/qs.us")" "$(median "$work/version.us")" "$(median "$work/init.ms")" >>"$metrics"
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

m() { awk -v n="$1" -v u="$2" '$1 == n && $2 == u { print $3; f = 1 } END { if (!f) print "" }' "$metrics"; }
# f VALUE FORMAT: the value formatted, or "—" when it was not measured.
f() { if [ -n "$1" ]; then awk -v v="$1" -v fmt="$2" 'BEGIN { printf fmt, v }'; else printf '—'; fi; }
# fs VALUE DIVISOR FORMAT: the value divided, formatted, or "—".
fs() { if [ -n "$1" ]; then awk -v v="$1" -v d="$2" -v fmt="$3" 'BEGIN { printf fmt, v / d }'; else printf '—'; fi; }
ratio() { if [ -n "$1" ] && [ -n "$2" ]; then awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f×", a / b }'; else printf '—'; fi; }
# verdict EXPR: "met" or "not met" for an awk condition on the named values.
verdict() { if [ -z "$2" ]; then printf '—'; else awk -v x="$2" -v y="${3:-0}" "BEGIN { print ($1) ? \"met\" : \"**not met**\" }"; fi; }
row() { printf '| %s | %s | %s | %s | %s | %s |\n' "$@"; }

cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
printf '%s · %s × %s · Linux %s · %s · %s\n' "$(date -u +%F)" "$(nproc)" "$cpu" "$(uname -r)" \
	"$(go env GOVERSION)" "$(rg --version | awk 'NR == 1')"
echo
echo "load average (1, 5, 15 min) before: $load_before · after: $load_after"
echo
row "measurement (p50 unless noted)" "harness" "reference" "ratio" "target" "verdict"
row "---" "---:" "---:" "---:" "---" "---"
for q in literal regex; do
	p=$(m BenchmarkSearch/$q plugin-p50-ms) r=$(m BenchmarkSearch/$q rg-p50-ms)
	h=$(m BenchmarkSearch/$q hits) rh=$(m BenchmarkSearch/$q rg-hits)
	label='`func NewReader`'; limit=1.0
	[ $q = regex ] && label='`func [A-Z][a-z]+Reader\(`' && limit=1.5
	row "search_workspace $q $label on \$GOROOT/src, through the plugin (hits)" "$(f "$p" '%.1f ms') ($(f "$h" %d))" \
		"rg -c $(f "$r" '%.1f ms') ($(f "$rh" %d))" "$(ratio "$p" "$r")" "≤ ${limit}× rg, same hits" \
		"$(verdict "x/y <= $limit" "$p" "$r")$([ "$h" = "$rh" ] || echo ', hits differ')"
	e=$(m plugins/search/engine:BenchmarkSearchGoSrc${q^} ns/op)
	row "… the search engine in process, no plugin boundary (mean)" "$(fs "$e" 1e6 '%.1f ms')" \
		"rg -c $(f "$r" '%.1f ms')" "$(ratio "$(awk -v e="$e" 'BEGIN { if (e) print e / 1e6 }')" "$r")" "" ""
done
p=$(m BenchmarkStartToFirstCall host-p50-ms) r=$(m BenchmarkStartToFirstCall bare-p50-ms)
row "plugin start to first call: built-in read_file (harness re-executed) through the host, from a sealed copy" "$(f "$p" '%.1f ms')" \
	"bare go-plugin, same copy $(f "$r" '%.1f ms')" "$(ratio "$p" "$r")" "≤ 1.0× bare" "$(verdict "x <= y" "$p" "$r")"
w=$(m BenchmarkStartToFirstCall bare-file-p50-ms)
row "… bare go-plugin from the sealed copy (how a host runs a binary named by path, and every third-party plugin)" "$(f "$r" '%.1f ms')" \
	"the same from the file $(f "$w" '%.1f ms')" "$(ratio "$r" "$w")" "" ""
p=$(m core/pluginhost:BenchmarkStartToFirstCall ns/op) r=$(m core/pluginhost:BenchmarkBareStartToFirstCall ns/op)
row "… a small SDK test plugin (core/pluginhost bench, mean)" "$(fs "$p" 1e6 '%.1f ms')" \
	"bare go-plugin $(fs "$r" 1e6 '%.1f ms')" "$(ratio "$p" "$r")" "≤ 15 ms" "$(verdict "x <= 15e6" "$p")"
p=$(m BenchmarkNoopCall host-p50-us) r=$(m BenchmarkNoopCall bare-p50-us) e=$(m BenchmarkNoopCall bare-execute-p50-us)
row "no-op tool call through the host's handle" "$(f "$p" '%.0f µs')" "bare gRPC unary $(f "$r" '%.0f µs')" \
	"$(ratio "$p" "$r")" "≤ bare + 50 µs" "$(verdict "x <= y + 50" "$p" "$r")"
p=$(m BenchmarkNoopCall phases-p50-us) n=$(m BenchmarkNoopCall phases-nostore-p50-us) w=$(m BenchmarkNoopCall phases+commit-p50-us)
row "no-op tool call through all phases (tool.call + tool.result committed to the store)" "$(f "$p" '%.0f µs')" \
	"bare gRPC unary $(f "$r" '%.0f µs')" "$(ratio "$p" "$r")" "" ""
row "… the same until its tool.result is committed (the run goes on before)" "$(f "$w" '%.0f µs')" "bare gRPC unary $(f "$r" '%.0f µs')" "$(ratio "$w" "$r")" "" ""
row "… the same with events dropped instead of stored" "$(f "$n" '%.0f µs')" "bare gRPC unary $(f "$r" '%.0f µs')" "$(ratio "$n" "$r")" "" ""
row "… the tool's raw Execute stream over go-plugin, no harness code" "" "bare Execute $(f "$e" '%.0f µs')" "" "" ""
for c in memory read_file; do
	p=$(m BenchmarkCall64KiB/$c phases-p50-us) r=$(m BenchmarkCall64KiB/$c bare-p50-us) n=$(m BenchmarkCall64KiB/$c phases-nostore-p50-us)
	w=$(m BenchmarkCall64KiB/$c phases+commit-p50-us)
	what="a tool returning 64 KiB from memory"
	[ $c = read_file ] && what="read_file of a 64 KiB file"
	row "$what, through all phases" "$(f "$p" '%.0f µs')" "bare go-plugin call $(f "$r" '%.0f µs')" "$(ratio "$p" "$r")" \
		"≤ 1.2× bare" "$(verdict "x <= 1.2 * y" "$p" "$r")"
	row "… the same until its tool.result is committed (the run goes on before)" "$(f "$w" '%.0f µs')" "bare go-plugin call $(f "$r" '%.0f µs')" "$(ratio "$w" "$r")" "" ""
	row "… the same with events dropped instead of stored" "$(f "$n" '%.0f µs')" "bare go-plugin call $(f "$r" '%.0f µs')" "$(ratio "$n" "$r")" "" ""
done
for c in small 64KiB; do
	p=$(m BenchmarkMCPCall/$c phases-p50-us) r=$(m BenchmarkMCPCall/$c bare-p50-us) n=$(m BenchmarkMCPCall/$c phases-nostore-p50-us)
	what='MCP server-everything `echo`, through the bridge and all phases'
	[ $c = 64KiB ] && what='MCP `echo` of 64 KiB, through the bridge and all phases'
	if [ -z "$p" ]; then
		row "$what" "not measured: server-everything or node missing" "" "" "" ""
	else
		row "$what" "$(f "$p" '%.0f µs')" "MCP Go SDK client alone $(f "$r" '%.0f µs')" "$(ratio "$p" "$r")" "" ""
		w=$(m BenchmarkMCPCall/$c phases+commit-p50-us)
		row "… the same until its tool.result is committed (the run goes on before)" "$(f "$w" '%.0f µs')" "MCP Go SDK client alone $(f "$r" '%.0f µs')" "$(ratio "$w" "$r")" "" ""
		row "… the same with events dropped instead of stored" "$(f "$n" '%.0f µs')" "MCP Go SDK client alone $(f "$r" '%.0f µs')" "$(ratio "$n" "$r")" "" ""
	fi
done
p=$(m BenchmarkProviderStream harness-chunk-p50-us) r=$(m BenchmarkProviderStream bare-chunk-p50-us) s=$(m BenchmarkProviderStream harness+store-chunk-p50-us)
row "provider stream per chunk: fake DeepSeek → HTTP, SSE, translation → plugin gRPC → assembler" "$(f "$p" '%.1f µs')" \
	"bare gRPC stream $(f "$r" '%.1f µs')" "$(ratio "$p" "$r")" "≤ 2× bare" "$(verdict "x <= 2 * y" "$p" "$r")"
row "… plus each delta committed as an assistant.chunk event, as a run does" "$(f "$s" '%.1f µs')" \
	"bare gRPC stream $(f "$r" '%.1f µs')" "$(ratio "$s" "$r")" "" ""
d=$(m plugins/provider-deepseek:BenchmarkDecodePerChunk ns/chunk) t=$(m plugins/provider-deepseek:BenchmarkHTTPOnly ns/chunk)
row "… of which SSE parsing + translation in memory / HTTP transport alone (means)" "$(fs "$d" 1e3 '%.1f µs')" \
	"HTTP only $(fs "$t" 1e3 '%.1f µs')" "" "" ""
a=$(m core/session:BenchmarkAppend/sqlite ns/op) g=$(m core/session:BenchmarkAppendAll4/sqlite ns/op)
row "session store: one committed event (core/session bench, SQLite, mean)" "$(fs "$a" 1e3 '%.0f µs')" "" "" "" ""
row "… four events in one transaction (AppendAll, as the loop commits a request's closing events), per event" "$(fs "$g" 4e3 '%.0f µs')" \
	"one per transaction $(fs "$a" 1e3 '%.0f µs')" "$(ratio "$(awk -v g="$g" 'BEGIN { if (g) print g / 4 }')" "$a")" "" ""
crush() { if [ -n "$crush_bin" ]; then printf 'Crush %s' "$(f "$1" "$2")"; else printf 'Crush: not measured'; fi; }
for t in 2 100; do
	n="BenchmarkSession/turns=$t"
	hw=$(m "$n" harness-wall-p50-ms) cw=$(m "$n" crush-wall-p50-ms) hc=$(m "$n" harness-cpu-p50-ms) cc=$(m "$n" crush-cpu-p50-ms)
	what="the 2-turn session (read one file, answer), fake DeepSeek server, one process start: wall"
	wt="≤ 25 ms" wv=$(verdict "x <= 25" "$hw") ct="≤ 30 ms" cv=$(verdict "x <= 30" "$hc")
	if [ "$t" = 100 ]; then
		what="the 100-turn session (99 reads, answer): wall" wt="" wv="" ct="" cv=""
	fi
	row "$what" "$(f "$hw" '%.1f ms')" "$(crush "$cw" '%.1f ms')" "$(ratio "$hw" "$cw")" "$wt" "$wv"
	row "… CPU, user + system of the process tree" "$(f "$hc" '%.1f ms')" "$(crush "$cc" '%.1f ms')" "$(ratio "$hc" "$cc")" "$ct" "$cv"
done
hl=$(m BenchmarkSession/turns=100 harness-last-turn-p50-us) cl=$(m BenchmarkSession/turns=100 crush-last-turn-p50-us)
row "… the client's own time at turn 100 (the answer asking for read 99 sent → its result's request in)" "$(fs "$hl" 1e3 '%.2f ms')" \
	"$(crush "$(awk -v v="$cl" 'BEGIN { if (v != "") print v / 1e3 }')" '%.2f ms')" "$(ratio "$hl" "$cl")" "≤ 1 ms" "$(verdict "x <= 1000" "$hl")"
[ -n "$crush_why" ] && row "Crush" "$crush_why" "" "" "" ""
q=$(m interleaved:quickstart us) v=$(m interleaved:version us)
row "offline quickstart wall time (median of 31, interleaved with version)" "$(fs "$q" 1e3 '%.0f ms')" \
	"\`harness version\` $(fs "$v" 1e3 '%.1f ms')" "$(ratio "$q" "$v")" "≤ 100 ms" "$(verdict "x <= 100000" "$q")"
i=$(m inittrace:version ms)
row "summed package-init time of one process (GODEBUG=inittrace=1 harness version, median of 21)" "$(f "$i" '%.1f ms')" "" "" "" ""
t=$(m BenchmarkQuickstartRSS core+plugins-MiB) c=$(m BenchmarkQuickstartRSS core-MiB) p=$(m BenchmarkQuickstartRSS plugins-MiB)
x=$(m BenchmarkQuickstartRSS helpers-MiB) s=$(m BenchmarkQuickstartRSS pss-MiB)
row "quickstart peak RSS, core + its plugin processes summed (VmHWM of each process)" "$(f "$t" '%.1f MiB')" \
	"core $(f "$c" '%.1f') + plugins $(f "$p" '%.1f') MiB" "" "≤ 60 MiB" "$(verdict "x <= 60" "$t")"
row "… peak of the summed PSS of the whole tree (shared binary pages counted once)" "$(f "$s" '%.1f MiB')" \
	"terminal supervisor + commands: VmHWM $(f "$x" '%.1f') MiB" "" "≤ 40 MiB" "$(verdict "x <= 40" "$s")"
