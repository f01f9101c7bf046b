#!/usr/bin/env bash
# Installs what building and testing bitlens needs, skipping whatever is already present:
#   - the Rust target wasm32-unknown-unknown,
#   - wasm-bindgen-cli at exactly the wasm-bindgen version in Cargo.lock,
#   - Debian's chromium, chromium-driver, redis-server, redis-tools, strace (only when missing),
#   - the real Redis/Valkey servers of the differential tests (scripts/servers.sh),
#   - the npm devDependencies (playwright-core, binaryen) from package-lock.json.
# Idempotent: a second run on a ready machine takes about a second.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf '[setup] %s\n' "$*"; }

# --- Rust ------------------------------------------------------------------------------------
if [ -d "$HOME/.cargo/bin" ]; then
  export PATH="$HOME/.cargo/bin:$PATH"
fi
if ! command -v cargo >/dev/null 2>&1; then
  say "cargo not found: install Rust (rustup) first" >&2
  exit 1
fi
if command -v rustup >/dev/null 2>&1; then
  if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
    say "adding Rust target wasm32-unknown-unknown"
    rustup target add wasm32-unknown-unknown
  fi
else
  say "rustup not found; assuming the wasm32-unknown-unknown target is installed"
fi

# --- wasm-bindgen-cli (must equal the wasm-bindgen crate version in Cargo.lock) ---------------
WBG_VERSION=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
if [ -z "$WBG_VERSION" ]; then
  say "cannot find the wasm-bindgen version in Cargo.lock" >&2
  exit 1
fi
have_wbg=""
if command -v wasm-bindgen >/dev/null 2>&1 && command -v wasm-bindgen-test-runner >/dev/null 2>&1; then
  have_wbg=$(wasm-bindgen --version | awk '{print $2}')
fi
if [ "$have_wbg" != "$WBG_VERSION" ]; then
  say "installing wasm-bindgen-cli $WBG_VERSION (about 2 minutes)"
  # --locked fails when a locked dependency version is not served by the registry: fall back.
  cargo install wasm-bindgen-cli --version "$WBG_VERSION" --locked ||
    cargo install wasm-bindgen-cli --version "$WBG_VERSION"
fi

# --- Debian packages: browser, chromedriver, Redis --------------------------------------------
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
[ -x /usr/bin/chromedriver ] || missing+=(chromium-driver)
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
command -v redis-cli >/dev/null 2>&1 || missing+=(redis-tools)
# strace: crates/cli/tests/hostile_files.rs counts the files `bitlens export` opens.
command -v strace >/dev/null 2>&1 || missing+=(strace)
# A CJK font so that headless Chromium renders the Chinese labels in test screenshots.
dpkg -s fonts-wqy-microhei >/dev/null 2>&1 || [ -n "$(fc-list :lang=zh 2>/dev/null)" ] || missing+=(fonts-wqy-microhei)
if [ ${#missing[@]} -gt 0 ]; then
  say "installing Debian packages: ${missing[*]}"
  SUDO=""
  if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update
  # Never Debian's binaryen: its old wasm-opt writes modules that fail to load. npm's is used.
  $SUDO apt-get install -y --no-install-recommends "${missing[@]}"
  # The Debian package starts a system redis-server; the tests start their own on free ports.
fi

# --- real servers for the differential tests (into ${BITLENS_SERVERS_DIR:-.servers}) ---------
bash scripts/servers.sh

# --- fuzzing: a nightly toolchain and cargo-fuzz, for the fuzz smoke step of `npm test` -------
# Only when BITLENS_FUZZ is not 0. Best effort: without them scripts/fuzz.sh says it skipped.
if [ "${BITLENS_FUZZ:-1}" != 0 ] && command -v rustup >/dev/null 2>&1; then
  if ! cargo +nightly --version >/dev/null 2>&1; then
    say "installing the nightly toolchain (for cargo fuzz)"
    rustup toolchain install nightly --profile minimal || say "nightly toolchain not installed"
  fi
  if cargo +nightly --version >/dev/null 2>&1 && ! cargo fuzz --version >/dev/null 2>&1; then
    say "installing cargo-fuzz"
    cargo install cargo-fuzz --locked || cargo install cargo-fuzz || say "cargo-fuzz not installed"
  fi
fi

# --- npm devDependencies ----------------------------------------------------------------------
if ! command -v npm >/dev/null 2>&1; then
  say "npm not found: install Node.js 20+ first" >&2
  exit 1
fi
if [ ! -f node_modules/.package-lock.json ] ||
  [ ! -x node_modules/.bin/wasm-opt ] ||
  [ ! -d node_modules/playwright-core ] ||
  [ package-lock.json -nt node_modules/.package-lock.json ]; then
  say "installing npm packages"
  if [ -f package-lock.json ]; then npm ci --no-audit --no-fund; else npm install --no-audit --no-fund; fi
fi

say "ready (wasm-bindgen $WBG_VERSION, node $(node --version), redis-server $(redis-server --version | sed -E 's/.* v=([^ ]+).*/\1/'))"
