#!/bin/sh
# refresh.sh replaces prices.json and LICENSE with the price data of a
# pinned release of pydantic's genai-prices, as shipped in the npm package
# @pydantic/genai-prices (MIT). The package bundles its data in its
# JavaScript; its public waitForUpdate() resolves to that bundled provider
# list until someone asks it to fetch newer data, which this never does,
# so what is written is exactly what the release ships.
#
# Usage: pricing/refresh.sh [VERSION]   (run from anywhere; needs npm, node)
# Bump VERSION below (or pass one), run, review the diff, run the tests.
set -eu

VERSION="${1:-0.1.8}"
here="$(cd "$(dirname "$0")" && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

(cd "$tmp" && npm pack --silent "@pydantic/genai-prices@$VERSION" >/dev/null)
tar -xzf "$tmp"/pydantic-genai-prices-"$VERSION".tgz -C "$tmp"

node --input-type=module -e '
const { waitForUpdate } = await import(process.argv[1]);
const providers = await waitForUpdate();
if (!Array.isArray(providers) || providers.length === 0) {
  console.error("refresh.sh: the package holds no provider list");
  process.exit(1);
}
const out = { source: "@pydantic/genai-prices", version: process.argv[2], providers };
process.stdout.write(JSON.stringify(out, null, 1) + "\n");
' "$tmp/package/dist/index.js" "$VERSION" >"$tmp/prices.json"

cp "$tmp/prices.json" "$here/prices.json"
cp "$tmp/package/LICENSE" "$here/LICENSE"
echo "pricing: prices.json and LICENSE from @pydantic/genai-prices@$VERSION" >&2
