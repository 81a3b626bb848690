#!/usr/bin/env bash
# Builds SeaweedFS (the `weed` binary, Apache-2.0), a real S3-compatible
# server for the bucket tests, from the Go module proxy, for machines
# without Docker, and prints the binary's path on stdout.
#
#   deploy/seaweedfs/build.sh                 # -> ~/.cache/agenttrace/seaweedfs-<version>/weed
#   AGENTTRACE_S3_SERVER=$(deploy/seaweedfs/build.sh)
#   weed mini -dir=DIR -ip=127.0.0.1 -ip.bind=127.0.0.1 -bucket=NAME   # S3 on 127.0.0.1:8333
#
# `go install module@version` refuses SeaweedFS because its go.mod has
# replace directives, so the module is downloaded, copied out of the
# read-only module cache and built inside its own tree, where its replace
# directives apply.
#
# Idempotent: a binary already in the cache directory is reused when
# `go version -m` says it was built from this version. A cold build takes
# about 13 minutes on 2 cores (a 233 MB binary); with a warm Go build
# cache, seconds.
#
# Environment: AGENTTRACE_CACHE (default ~/.cache/agenttrace) is where the
# source and binary live; SEAWEEDFS_VERSION overrides the pinned version.
set -euo pipefail
export PATH="/usr/local/go/bin:$HOME/go/bin:$PATH"

version="${SEAWEEDFS_VERSION:-v0.0.0-20261109003541-7506e5f91cd6}"
module=github.com/seaweedfs/seaweedfs
dir="${AGENTTRACE_CACHE:-$HOME/.cache/agenttrace}/seaweedfs-$version"
bin="$dir/weed"

built() {
  # Built in its own tree, the main module is SeaweedFS itself ("mod"
  # line, version "(devel)"); the stamp file says which version the tree is.
  [ -x "$bin" ] && [ "$(cat "$dir/VERSION" 2>/dev/null)" = "$version" ] &&
    go version -m "$bin" 2>/dev/null | awk -v m="$module" '$1 == "mod" && $2 == m { found = 1 } END { exit !found }'
}

if built; then
  echo "$bin"
  exit 0
fi

mkdir -p "$dir"
info=$(go mod download -json "$module@$version") || true
moddir=$(printf '%s\n' "$info" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')
if [ -z "$moddir" ] || [ ! -f "$moddir/go.mod" ]; then
  echo "build.sh: could not download $module@$version:" >&2
  printf '%s\n' "$info" >&2
  exit 1
fi
# A fresh copy each time, so an interrupted attempt leaves nothing behind.
rm -rf "$dir/src"
cp -r "$moddir" "$dir/src"
chmod -R u+w "$dir/src"
# Build next to the target and rename, so that an interrupted build never
# leaves a truncated binary that looks reusable.
(cd "$dir/src" && GOFLAGS="${GOFLAGS:-} -mod=mod" go build -trimpath -o "$bin.tmp" ./weed >&2)
mv "$bin.tmp" "$bin"
echo "$version" > "$dir/VERSION"
rm -rf "$dir/src"
built || { echo "build.sh: $bin was not built from $module" >&2; exit 1; }
echo "$bin"
