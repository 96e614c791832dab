#!/usr/bin/env bash
# Regenerates the committed Go code of plugin protocol v1 from the .proto files.
# Usage: sdk/proto/gen.sh            (installs protoc and the Go generators when missing)
#        sdk/proto/gen.sh --check    (fails when the committed code is stale)
set -euo pipefail
cd "$(dirname "$0")"

PROTOC_GEN_GO_VERSION=v1.36.12
PROTOC_GEN_GO_GRPC_VERSION=v1.6.0

if ! command -v protoc >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq && apt-get install -y -qq protobuf-compiler >/dev/null
  else
    echo "gen.sh: protoc is missing; install it (Debian: apt-get install protobuf-compiler)" >&2
    exit 1
  fi
fi
bin="$(mktemp -d)"
trap 'rm -rf "$bin"' EXIT
GOBIN="$bin" go install "google.golang.org/protobuf/cmd/protoc-gen-go@${PROTOC_GEN_GO_VERSION}"
GOBIN="$bin" go install "google.golang.org/grpc/cmd/protoc-gen-go-grpc@${PROTOC_GEN_GO_GRPC_VERSION}"

out="."
if [ "${1:-}" = "--check" ]; then
  out="$(mktemp -d)"
fi
protos=(commonv1/common.proto toolv1/tool.proto providerv1/provider.proto hookv1/hook.proto)
PATH="$bin:$PATH" protoc -I . \
  --go_out="$out" --go_opt=paths=source_relative \
  --go-grpc_out="$out" --go-grpc_opt=paths=source_relative \
  "${protos[@]}"

if [ "${1:-}" = "--check" ]; then
  stale=0
  for f in $(cd "$out" && find . -name '*.go' | sort); do
    if ! cmp -s "$out/$f" "$f"; then
      echo "gen.sh: $f is stale; run sdk/proto/gen.sh and commit the result" >&2
      stale=1
    fi
  done
  rm -rf "$out"
  exit "$stale"
fi
