#!/usr/bin/env bash
# Builds everything `bitlens serve` and the panel need:
#   target/release/bitlens            native CLI and server (cargo build --release --workspace)
#   pkg/bitlens.js, pkg/bitlens_bg.wasm  the worker's engine module (cargo --profile wasm, see
#                                        Cargo.toml; wasm-bindgen --target web; wasm-opt -O3)
#   pkg/bitlens_charts.js, pkg/bitlens_charts_bg.wasm  the page's chart module (--profile
#                                        wasm-charts; wasm-opt -Oz)
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
  # Two modules, each wasm-bindgen'd into pkg/ under its own name:
  #   pkg/bitlens*         the engine module (crates/wasm): the worker's engine, no plotters;
  #                        profile `wasm` (opt-level 3, fat LTO: the kernels stay fast).
  #   pkg/bitlens_charts*  the page's chart module (crates/wasm-charts): the chart functions
  #                        and the user-id rule, no engine; profile `wasm-charts` (built small).
  # simd128 comes from .cargo/config.toml ([target.wasm32-unknown-unknown] rustflags).
  # npm binaryen's wasm-opt (never Debian's: its old version writes modules that fail to load).
  wasm_opt=node_modules/.bin/wasm-opt
  [ -x "$wasm_opt" ] || wasm_opt=node_modules/binaryen/bin/wasm-opt
  # module CRATE PROFILE OUT_NAME OPT: builds CRATE, then wasm-bindgen and wasm-opt OPT into
  # pkg/OUT_NAME.js and pkg/OUT_NAME_bg.wasm when the wasm changed (other pkg/ files are kept).
  module() {
    local crate=$1 profile=$2 name=$3 opt=$4
    say "cargo build --profile $profile --target wasm32-unknown-unknown -p $crate"
    cargo build --profile "$profile" --target wasm32-unknown-unknown -p "$crate"
    local wasm="target/wasm32-unknown-unknown/$profile/${crate//-/_}.wasm"
    if [ -f "pkg/${name}_bg.wasm" ] && [ -f "pkg/$name.js" ] && [ ! "$wasm" -nt "pkg/${name}_bg.wasm" ]; then
      say "pkg/$name is up to date"
      return
    fi
    say "wasm-bindgen --target web --out-name $name"
    rm -rf pkg.tmp
    wasm-bindgen --target web --out-dir pkg.tmp --out-name "$name" "$wasm"
    # The declarations name `Symbol.dispose` (wasm-bindgen's classes are disposable): a lib
    # reference makes them type-check in projects whose `lib` predates ESNext (TS >= 5.2).
    if grep -q 'Symbol.dispose' "pkg.tmp/$name.d.ts"; then
      { echo '/// <reference lib="esnext.disposable" />'; cat "pkg.tmp/$name.d.ts"; } >"pkg.tmp/$name.d.ts.new"
      mv "pkg.tmp/$name.d.ts.new" "pkg.tmp/$name.d.ts"
    fi
    # The feature flags are those rustc enables for wasm32 by default, plus simd128.
    say "wasm-opt $opt"
    "$wasm_opt" "$opt" --strip-debug --strip-producers \
      --enable-simd --enable-bulk-memory --enable-sign-ext --enable-mutable-globals \
      --enable-nontrapping-float-to-int --enable-reference-types --enable-multivalue \
      "pkg.tmp/${name}_bg.wasm" -o "pkg.tmp/${name}_bg.opt.wasm"
    mv "pkg.tmp/${name}_bg.opt.wasm" "pkg.tmp/${name}_bg.wasm"
    mkdir -p pkg
    rm -f "pkg/$name.js" "pkg/$name.d.ts" "pkg/${name}_bg.wasm" "pkg/${name}_bg.wasm.d.ts"
    # JS the module imports (wasm_bindgen(module = ...): the engine's www/engine-error.js)
    # lives in pkg/snippets/CRATE-HASH/: the crate's old ones go, the others stay.
    if [ -d pkg.tmp/snippets ]; then
      mkdir -p pkg/snippets
      rm -rf pkg/snippets/"$crate"-*
      mv pkg.tmp/snippets/* pkg/snippets/
      rmdir pkg.tmp/snippets
    fi
    mv pkg.tmp/* pkg/
    rm -rf pkg.tmp
    say "pkg/${name}_bg.wasm: $(wc -c <"pkg/${name}_bg.wasm") bytes, $(gzip -9c "pkg/${name}_bg.wasm" | wc -c) gzip -9;" \
      "pkg/$name.js: $(gzip -9c "pkg/$name.js" | wc -c) gzip -9"
  }
  # -O3 rather than -Oz for the engine: on it -Oz is no smaller after gzip and slower.
  module bitlens-wasm wasm bitlens -O3
  module bitlens-wasm-charts wasm-charts bitlens_charts -Oz
fi
