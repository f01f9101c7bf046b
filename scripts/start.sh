#!/usr/bin/env bash
# `npm start [-- ARGS]`: installs what is missing, builds what is missing or stale, then runs
# `target/release/bitlens serve ARGS` from the repository root (it serves index.html, www/, pkg/).
#   npm start                                   demo data on http://127.0.0.1:8080
#   npm start -- --redis redis://host:6379      live data from your Redis (read commands only)
#   npm start -- --bind 0.0.0.0:9000            another address
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
exec target/release/bitlens serve "$@"
