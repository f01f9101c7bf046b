#!/usr/bin/env bash
# The Python package's tests (`npm test` runs this as a step): creates the venv .venv-py if
# missing, installs what is missing of maturin, pytest, pyarrow, duckdb, pandas,
# dask[distributed], dask[dataframe]
# and redis (redis-py: its RESP2 parser is the reference of Snapshot.command()), builds the
# wheel of crates/python (maturin, into the workspace's target/), installs it, builds the CLI
# the tests compare with, and runs pytest over crates/python/tests (the conformance replay,
# scan, the DuckDB queries, the Dask fleet example).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d "$HOME/.cargo/bin" ] && export PATH="$HOME/.cargo/bin:$PATH"
venv=$(realpath -m "${BITLENS_VENV:-.venv-py}")
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
py="$venv/bin/python"
missing=()
for spec in maturin:maturin pytest:pytest pyarrow:pyarrow duckdb:duckdb pandas:pandas \
  "dask[distributed]:distributed" "dask[dataframe]:dask.dataframe" redis:redis; do
  mod=${spec##*:}
  "$py" -c "import $mod" 2>/dev/null || missing+=("${spec%:*}")
done
if [ "${#missing[@]}" -gt 0 ]; then
  "$py" -m pip install -q "${missing[@]}"
fi
# The CLI the tests compare with (the debug build `cargo test` made, when there is one).
cargo build -q -p bitlens-cli
export BITLENS_BIN="$PWD/target/debug/bitlens"
# The wheel of the native module (abi3, Python >= 3.9), in the dev profile: it reuses what
# `cargo test` built (`pip install ./crates/python` builds the release wheel users get).
rm -rf target/wheels
"$venv/bin/maturin" build -q --profile dev -m crates/python/Cargo.toml -i "$py"
"$py" -m pip install -q --force-reinstall --no-deps target/wheels/bitlens-*.whl
cd crates/python/tests
"$py" -m pytest -p no:cacheprovider "$@"
