#!/usr/bin/env bash
# Builds the `bitlens` npm package:
#   dist/npm/                    the package directory (scripts/package.mjs: pkg/ + www/ + types/ + npm/)
#   dist/bitlens-<version>.tgz   its tarball (`npm pack`), installable with `npm install FILE`
# The wasm is built first (scripts/build.sh --wasm-only) unless --no-build is given.
# Usage: scripts/package.sh [--no-build]
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-}" != "--no-build" ]; then
  bash scripts/build.sh --wasm-only
fi
node scripts/package.mjs dist/npm
tarball=$(cd dist && npm pack ./npm --silent --pack-destination . | tail -n 1)
echo "[package] dist/$tarball: $(wc -c <"dist/$tarball") bytes"
