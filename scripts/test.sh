#!/usr/bin/env bash
# The README's test command: runs every test of the module on a machine that
# has Go and Node.js, installing or starting what the tests need first and
# stopping whatever it started when it exits.
#
#   scripts/test.sh                          # go test -race -count=1 -timeout 40m ./...
#   scripts/test.sh -run TestRun ./cmd/...   # extra go test flags; packages (./…) replace ./...
#
# .ci/run calls it. To add a service a test needs (a database, a browser, a
# trace collector), write a `need_NAME` function below that installs or
# starts it when it is missing, exports what the tests read to find it, and
# registers its stop with `at_exit`; then add NAME to `services`.
set -euo pipefail
cd "$(dirname "$0")/.."

# ---- cleanup: every step registers its own undo; they run in reverse order.
cleanups=()
at_exit() { cleanups+=("$1"); }
run_cleanups() {
  local i
  for ((i = ${#cleanups[@]} - 1; i >= 0; i--)); do
    eval "${cleanups[i]}" || echo "scripts/test.sh: cleanup failed: ${cleanups[i]}" >&2
  done
  cleanups=()
}
trap run_cleanups EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

say() { echo "== $*"; }
die() { echo "scripts/test.sh: $*" >&2; exit 1; }

# ---- services the tests need -------------------------------------------

# The MCP servers the MCP bridge tests run, pinned in .ci/npm (the tests look
# for them in .ci/npm/node_modules/.bin).
need_mcp_servers() {
  export HARNESS_TEST_MCP=required # the MCP tests fail instead of skipping
  local bin=.ci/npm/node_modules/.bin stamp=.ci/npm/node_modules/.package-lock.json
  if [ -x "$bin/mcp-server-everything" ] && [ -x "$bin/mcp-server-filesystem" ] &&
    [ -f "$stamp" ] && [ ! .ci/npm/package-lock.json -nt "$stamp" ]; then
    return 0
  fi
  command -v npm >/dev/null 2>&1 ||
    die "npm is not on PATH: the MCP tests run Node.js MCP servers; install Node.js 18 or later (it ships npm) and rerun"
  say "installing the MCP servers pinned in .ci/npm (npm ci)"
  npm ci --prefix .ci/npm --no-audit --no-fund --loglevel=error
}

# The npm dependencies of the Node.js example plugin, pinned by its
# package-lock.json (the end-to-end test in cmd/harness runs it).
need_node_plugin() {
  export HARNESS_TEST_NODE=required # the Node.js plugin test fails instead of skipping
  local dir=examples/plugins/node-wordcount stamp=examples/plugins/node-wordcount/node_modules/.package-lock.json
  if [ -d "$dir/node_modules/@grpc/grpc-js" ] && [ -f "$stamp" ] && [ ! "$dir/package-lock.json" -nt "$stamp" ]; then
    return 0
  fi
  command -v npm >/dev/null 2>&1 ||
    die "npm is not on PATH: the Node.js plugin test runs examples/plugins/node-wordcount; install Node.js 18 or later (it ships npm) and rerun"
  say "installing the Node.js example plugin's dependencies (npm ci --prefix $dir)"
  npm ci --prefix "$dir" --no-audit --no-fund --loglevel=error
}

# Headless Chromium from the OS packages, for the browser tests of
# `harness sessions view` (internal/browsertest finds it on PATH).
need_chromium() {
  export HARNESS_TEST_BROWSER=required # the browser tests fail instead of skipping
  if [ -n "${HARNESS_CHROMIUM:-}" ] || command -v chromium >/dev/null 2>&1 ||
    command -v chromium-browser >/dev/null 2>&1 || command -v google-chrome >/dev/null 2>&1; then
    return 0
  fi
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    say "installing Chromium for the browser tests (apt-get install chromium)"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
    return 0
  fi
  die "no Chromium on PATH: the browser tests of sessions view need it; install the chromium package (or set HARNESS_CHROMIUM to a Chrome binary) and rerun"
}

# Jaeger v2, the OpenTelemetry backend the telemetry test exports to
# (internal/jaegertest starts it on free ports). Built once from the module
# proxy into the cache, in a module of its own, so go.mod does not carry
# Jaeger's dependencies.
need_jaeger() {
  export HARNESS_TEST_JAEGER=required # the telemetry test fails instead of skipping
  local version=v1.76.0
  local dir="${XDG_CACHE_HOME:-$HOME/.cache}/harness-test/jaeger-$version"
  if [ -n "${HARNESS_JAEGER:-}" ]; then
    [ -x "$HARNESS_JAEGER" ] || die "HARNESS_JAEGER=$HARNESS_JAEGER is not an executable: point it at a jaeger v2 binary, or unset it"
    return 0
  fi
  export HARNESS_JAEGER="$dir/jaeger"
  [ -x "$HARNESS_JAEGER" ] && return 0
  say "building Jaeger $version for the telemetry test, once, into $dir (a few minutes)"
  local mod
  mod="$(mktemp -d)"
  at_exit "rm -rf '$mod'"
  mkdir -p "$dir"
  (
    cd "$mod" &&
      go mod init harness-test/jaeger >/dev/null 2>&1 &&
      go get -tool "github.com/jaegertracing/jaeger/cmd/jaeger@$version" &&
      go build -o "$dir/jaeger.partial" github.com/jaegertracing/jaeger/cmd/jaeger
  ) || die "could not build Jaeger $version (needs the Go module proxy); set HARNESS_JAEGER to a jaeger v2 binary and rerun"
  mv "$dir/jaeger.partial" "$HARNESS_JAEGER"
}

# A throwaway PostgreSQL cluster for the PostgreSQL session store tests
# (core/session and the fleet tests read HARNESS_TEST_POSTGRES). Installed
# from the OS packages when missing; initdb into a temporary folder, served
# on a Unix socket in that folder only (no TCP port), as an unprivileged user
# (postgres refuses to run as root), stopped and deleted at exit. A database
# of the developer's own is never touched. HARNESS_TEST_POSTGRES set by the
# caller is used as it is (tests create and drop schemas of their own in it).
need_postgres() {
  if [ -n "${HARNESS_TEST_POSTGRES:-}" ]; then
    return 0
  fi
  local bin
  bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)"
  if [ -z "$bin" ] && ! command -v initdb >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
      say "installing PostgreSQL for the session store tests (apt-get install postgresql)"
      DEBIAN_FRONTEND=noninteractive apt-get update -qq
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
      bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)"
    else
      echo "scripts/test.sh: no PostgreSQL (initdb) found and not root: the PostgreSQL store tests will skip; install the postgresql package to run them" >&2
      return 0
    fi
  fi
  [ -n "$bin" ] || bin="$(dirname "$(command -v initdb)")"
  local dir user=""
  dir="$(mktemp -d /tmp/harness-pg.XXXXXX)"
  at_exit "rm -rf '$dir'"
  if [ "$(id -u)" = 0 ]; then
    user=postgres
    id -u "$user" >/dev/null 2>&1 || user=nobody
    chown "$user" "$dir"
  fi
  local as_pg=()
  [ -z "$user" ] || as_pg=(runuser -u "$user" --)
  say "starting a throwaway PostgreSQL cluster in $dir ($("$bin/postgres" --version))"
  "${as_pg[@]}" "$bin/initdb" -D "$dir/data" -U harness -A trust --no-sync -E UTF8 >"$dir/initdb.log" 2>&1 ||
    die "initdb failed: $(cat "$dir/initdb.log")"
  "${as_pg[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -o "-c listen_addresses='' -k $dir -c fsync=off -c max_connections=200" start >/dev/null ||
    die "PostgreSQL did not start: $(cat "$dir/server.log")"
  at_exit "${as_pg[*]} '$bin/pg_ctl' -D '$dir/data' -m immediate -w stop >/dev/null"
  export HARNESS_TEST_POSTGRES="postgres://harness@/postgres?host=$dir&sslmode=disable"
}

# The Temporal CLI, whose dev server the Temporal engine's end-to-end tests
# (cmd/harness temporal_test.go) start on free local ports, in memory, and
# stop. Built once from the module proxy into the cache (about 7 minutes on
# two cores, a 250 MB binary); go install of a version leaves go.mod alone.
need_temporal() {
  export HARNESS_TEST_TEMPORAL=required # the Temporal tests fail instead of skipping
  local version=v1.5.1
  local dir="${XDG_CACHE_HOME:-$HOME/.cache}/harness-test/temporal-bin"
  if [ -n "${HARNESS_TEMPORAL:-}" ]; then
    [ -x "$HARNESS_TEMPORAL" ] || die "HARNESS_TEMPORAL=$HARNESS_TEMPORAL is not an executable: point it at a temporal CLI binary, or unset it"
    return 0
  fi
  export HARNESS_TEMPORAL="$dir/temporal"
  [ -x "$HARNESS_TEMPORAL" ] && return 0
  say "building the Temporal CLI $version for the Temporal engine tests, once, into $dir (several minutes)"
  mkdir -p "$dir"
  GOBIN="$dir" go install "github.com/temporalio/cli/cmd/temporal@$version" ||
    die "could not build the Temporal CLI $version (needs the Go module proxy); set HARNESS_TEMPORAL to a temporal CLI binary and rerun"
}

services=(mcp_servers node_plugin chromium jaeger postgres temporal)

# ---- go test -------------------------------------------------------------

flags=(-race -count=1 -timeout 40m) # a later -timeout in the arguments wins
pkgs=()
for arg in "$@"; do
  case "$arg" in
    ./* | ../*) pkgs+=("$arg") ;;
    *) flags+=("$arg") ;;
  esac
done
[ ${#pkgs[@]} -gt 0 ] || pkgs=(./...)

command -v go >/dev/null 2>&1 || die "go is not on PATH: install Go (see go.mod for the version) and rerun"
for s in "${services[@]}"; do
  "need_$s"
done

say "go test ${flags[*]} ${pkgs[*]}"
go test "${flags[@]}" "${pkgs[@]}"

# The SDK on a 32-bit build: the protocol's counts are uint32 and uint64,
# which an int of 32 bits does not hold (a whole run, without arguments).
if [ $# -eq 0 ]; then
  say "GOARCH=386 go test -count=1 ./sdk/"
  GOARCH=386 go test -count=1 ./sdk/
fi
