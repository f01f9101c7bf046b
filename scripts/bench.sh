#!/usr/bin/env bash
# `npm run bench`: benchmarks (filled in by the engine issues; see bench/RESULTS.md when present).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d "$HOME/.cargo/bin" ] && export PATH="$HOME/.cargo/bin:$PATH"
if [ -d benches ] || grep -q '^\[\[bench\]\]' Cargo.toml crates/*/Cargo.toml 2>/dev/null; then
  cargo bench --workspace "$@"
else
  echo "[bench] no benchmarks defined yet"
fi
