#!/usr/bin/env bash
# `npm run bench`: installs and builds what is missing, then runs bench/run.mjs, which times
# bitlens (wasm in Node, and native) against a real redis-server on the same data and writes
# the table to bench/RESULTS.md. Criterion micro-benchmarks of single kernels: `cargo bench`.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d "$HOME/.cargo/bin" ] && export PATH="$HOME/.cargo/bin:$PATH"
bash scripts/setup.sh
bash scripts/build.sh
node bench/run.mjs "$@"
