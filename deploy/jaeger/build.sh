#!/usr/bin/env bash
# Builds Jaeger v2 (the all-in-one `jaeger` binary) from the Go module proxy,
# for machines without Docker, and prints the binary's path on stdout.
#
#   deploy/jaeger/build.sh                    # -> ~/.cache/agenttrace/jaeger-v1.76.0/jaeger
#   AGENTTRACE_JAEGER=$(deploy/jaeger/build.sh)
#
# Jaeger v2.13.0 is the Go module github.com/jaegertracing/jaeger v1.76.0 (the
# module keeps v1 version numbers). `go install module@version` refuses it
# because its go.mod has a `replace` directive, so the binary is built from a
# small wrapper module that requires Jaeger and repeats that replace.
#
# Idempotent: a binary already in the cache directory is reused when
# `go version -m` says it was built from this Jaeger version. A cold build
# takes about 10 minutes on 2 cores; with a warm Go build cache, seconds.
#
# Environment: AGENTTRACE_CACHE (default ~/.cache/agenttrace) is where the
# wrapper module and binary live; JAEGER_MODULE_VERSION overrides v1.76.0.
set -euo pipefail
export PATH="/usr/local/go/bin:$HOME/go/bin:$PATH"

version="${JAEGER_MODULE_VERSION:-v1.76.0}"
module=github.com/jaegertracing/jaeger
dir="${AGENTTRACE_CACHE:-$HOME/.cache/agenttrace}/jaeger-$version"
bin="$dir/jaeger"

built_from_version() {
  # `go version -m` lists the modules linked into the binary; Jaeger's is
  # the "mod" line, since the main package comes from it.
  [ -x "$bin" ] && go version -m "$bin" 2>/dev/null |
    awk -v m="$module" -v v="$version" '($1 == "mod" || $1 == "dep") && $2 == m && $3 == v { found = 1 } END { exit !found }'
}

if built_from_version; then
  echo "$bin"
  exit 0
fi

mkdir -p "$dir"
cd "$dir"
# Start from a fresh wrapper each time so that an interrupted earlier attempt
# (or a different version) leaves nothing behind that changes the result.
rm -f go.mod go.sum tools.go
go mod init jaegerwrap >&2

# Jaeger's own go.sum lists every module its build needs. Seeding the
# wrapper's go.sum with it means no checksum database lookups, which some
# proxies (and offline caches) do not answer.
# On failure `go mod download -json` still prints the JSON, with an Error.
info=$(go mod download -json "$module@$version") || true
moddir=$(printf '%s\n' "$info" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')
sum=$(printf '%s\n' "$info" | sed -n 's/^[[:space:]]*"Sum": "\(.*\)",\{0,1\}$/\1/p')
gomodsum=$(printf '%s\n' "$info" | sed -n 's/^[[:space:]]*"GoModSum": "\(.*\)",\{0,1\}$/\1/p')
if [ -z "$moddir" ] || [ ! -f "$moddir/go.sum" ] || [ -z "$sum" ] || [ -z "$gomodsum" ]; then
  echo "build.sh: could not download $module@$version:" >&2
  printf '%s\n' "$info" >&2
  exit 1
fi
{
  cat "$moddir/go.sum"
  echo "$module $version $sum"
  echo "$module $version/go.mod $gomodsum"
} > go.sum

# Repeat the replace from Jaeger's go.mod: the replace directives of a
# dependency are ignored, and without it the build would take the sarama
# version Jaeger requires but never builds with (and whose checksums its
# go.sum does not have).
replace=$(awk '$1 == "replace" && $2 == "github.com/Shopify/sarama" { print $4 "@" $5 }' "$moddir/go.mod")
go mod edit -require "$module@$version" -replace "github.com/Shopify/sarama=${replace:-github.com/Shopify/sarama@v1.33.0}"
cat > tools.go <<'GO'
//go:build tools

// Package jaegerwrap only exists to build Jaeger's binary: this import
// keeps Jaeger a requirement of the wrapper module.
package jaegerwrap

import _ "github.com/jaegertracing/jaeger/cmd/jaeger"
GO

# -mod=mod lets the build fill in the wrapper's go.mod from Jaeger's
# requirements. Build next to the target and rename, so that an interrupted
# build never leaves a truncated binary that looks reusable.
GOFLAGS="${GOFLAGS:-} -mod=mod" go build -trimpath -o "$bin.tmp" "$module/cmd/jaeger" >&2
mv "$bin.tmp" "$bin"
built_from_version || { echo "build.sh: $bin does not report $module $version" >&2; exit 1; }
echo "$bin"
