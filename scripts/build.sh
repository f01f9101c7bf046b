#!/usr/bin/env bash
# Builds everything `bitlens serve` and the panel need:
#   target/release/bitlens            native CLI and server (cargo build --release --workspace)
#   pkg/bitlens.js, pkg/bitlens_bg.wasm  the wasm engine (cargo --profile wasm, see Cargo.toml;
#                                        wasm-bindgen --target web; wasm-opt -O3)
# Cargo rebuilds only what changed; wasm-bindgen and wasm-opt run only when the wasm changed.
# Usage: scripts/build.sh [--native-only | --wasm-only]
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d "$HOME/.cargo/bin" ] && export PATH="$HOME/.cargo/bin:$PATH"

say() { printf '[build] %s\n' "$*"; }
what=${1:-all}

if [ "$what" != "--wasm-only" ]; then
  say "cargo build --release --workspace"
  cargo build --release --workspace
fi

if [ "$what" != "--native-only" ]; then
  # The wasm tools come from `npm run setup` (the wasm32 target, wasm-bindgen-cli at the
  # Cargo.lock version, npm's binaryen): on a fresh clone, run it first (it skips what is there).
  if ! command -v wasm-bindgen >/dev/null 2>&1 || [ ! -x node_modules/.bin/wasm-opt ] ||
    { command -v rustup >/dev/null 2>&1 && ! rustup target list --installed | grep -qx wasm32-unknown-unknown; }; then
    say "the wasm tools are missing: running scripts/setup.sh first"
    bash scripts/setup.sh
  fi
  # A failed step leaves no half-written pkg.tmp/ behind.
  trap 'rm -rf pkg.tmp' EXIT
  # simd128 comes from .cargo/config.toml ([target.wasm32-unknown-unknown] rustflags).
  # The `wasm` profile (Cargo.toml): release with fat LTO and one codegen unit, for size.
  # The glue crate (crates/wasm) over the engine; its module keeps the name pkg/bitlens*.
  say "cargo build --profile wasm --target wasm32-unknown-unknown -p bitlens-wasm"
  cargo build --profile wasm --target wasm32-unknown-unknown -p bitlens-wasm
  wasm=target/wasm32-unknown-unknown/wasm/bitlens_wasm.wasm
  if [ ! -f pkg/bitlens_bg.wasm ] || [ ! -f pkg/bitlens.js ] || [ "$wasm" -nt pkg/bitlens_bg.wasm ]; then
    say "wasm-bindgen --target web --out-dir pkg"
    rm -rf pkg.tmp
    wasm-bindgen --target web --out-dir pkg.tmp --out-name bitlens "$wasm"
    # npm binaryen's wasm-opt (never Debian's: its old version writes modules that fail to load).
    # The feature flags are those rustc enables for wasm32 by default, plus simd128.
    # -O3 rather than -Oz: on this module -Oz is no smaller after gzip and slower.
    wasm_opt=node_modules/.bin/wasm-opt
    [ -x "$wasm_opt" ] || wasm_opt=node_modules/binaryen/bin/wasm-opt
    say "wasm-opt -O3"
    "$wasm_opt" -O3 --strip-debug --strip-producers \
      --enable-simd --enable-bulk-memory --enable-sign-ext --enable-mutable-globals \
      --enable-nontrapping-float-to-int --enable-reference-types --enable-multivalue \
      pkg.tmp/bitlens_bg.wasm -o pkg.tmp/bitlens_bg.opt.wasm
    mv pkg.tmp/bitlens_bg.opt.wasm pkg.tmp/bitlens_bg.wasm
    rm -rf pkg
    mv pkg.tmp pkg
    say "pkg/bitlens_bg.wasm: $(wc -c <pkg/bitlens_bg.wasm) bytes, $(gzip -9c pkg/bitlens_bg.wasm | wc -c) gzip -9;" \
      "pkg/bitlens.js: $(gzip -9c pkg/bitlens.js | wc -c) gzip -9"
  else
    say "pkg/ is up to date"
  fi
fi
