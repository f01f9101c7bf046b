#!/usr/bin/env bash
# `npm test` (and .ci/run): installs what is missing, builds, then runs
#   1. cargo test --workspace --no-fail-fast     Rust unit, conformance and differential tests
#   2. wasm-bindgen tests (crates/wasm/tests/wasm_*.rs)       the JS API, in headless Chromium
#   3. cargo test --release (load test)          100 concurrent 50 MiB snapshot downloads
#   4. node --test tests/e2e/*.test.mjs           real Redis -> bitlens serve -> panel in Chromium
#   5. scripts/python-test.sh                     the Python package (wheel, pytest: conformance
#                                                 replay, scan, DuckDB, the Dask fleet example)
# Every step runs even when an earlier one failed (except what needs a successful build); a
# summary with the test counts is printed at the end and the exit status is non-zero when any
# step failed. Logs go to test-artifacts/logs/, screenshots to test-artifacts/.
set -uo pipefail
cd "$(dirname "$0")/.."
[ -d "$HOME/.cargo/bin" ] && export PATH="$HOME/.cargo/bin:$PATH"
# One build per run: incremental caches would only add about 1.3 GB of disk (CI's disk is shared).
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"

logs=test-artifacts/logs
mkdir -p "$logs"
declare -a names=() results=()
passed_total=0
failed_total=0

# run NAME CMD...: runs CMD, tees its output to $logs/NAME.log, records the outcome.
run() {
  local name=$1
  shift
  printf '\n=== %s: %s\n' "$name" "$*"
  "$@" 2>&1 | tee "$logs/$name.log"
  local rc=${PIPESTATUS[0]}
  names+=("$name")
  if [ "$rc" = 0 ]; then results+=("ok"); else results+=("FAILED (exit $rc)"); fi
  # Test counts: cargo / wasm-bindgen-test ("test result: ... N passed; M failed") and
  # node's test runner ("# pass N" / "# fail N", or "ℹ pass N" with the spec reporter).
  local p f
  p=$(grep -aoE 'test result: [a-zA-Z]+\. [0-9]+ passed' "$logs/$name.log" | awk '{s+=$4} END {print s+0}')
  f=$(grep -aoE '[0-9]+ passed; [0-9]+ failed' "$logs/$name.log" | awk '{s+=$3} END {print s+0}')
  p=$((p + $(grep -aE '^(# |ℹ )pass [0-9]+$' "$logs/$name.log" | awk '{s+=$3} END {print s+0}')))
  f=$((f + $(grep -aE '^(# |ℹ )fail [0-9]+$' "$logs/$name.log" | awk '{s+=$3} END {print s+0}')))
  # pytest ("== 12 passed, 1 failed in 3.2s ==").
  p=$((p + $(grep -aoE '^=+ ([0-9]+ failed, )?[0-9]+ passed' "$logs/$name.log" | grep -oE '[0-9]+ passed' | awk '{s+=$1} END {print s+0}')))
  f=$((f + $(grep -aoE '^=+ [0-9]+ failed' "$logs/$name.log" | grep -oE '[0-9]+' | awk '{s+=$1} END {print s+0}')))
  passed_total=$((passed_total + p))
  failed_total=$((failed_total + f))
  return "$rc"
}

build_ok=1
run setup bash scripts/setup.sh || build_ok=0
if [ "$build_ok" = 1 ]; then
  run build bash scripts/build.sh || build_ok=0
fi

run module-graph python3 scripts/module-graph.py
# --no-fail-fast: every failing test binary is reported in one log, not only the first.
run cargo-test cargo test --workspace --no-fail-fast

wasm_tests=$(ls crates/wasm/tests/wasm_*.rs 2>/dev/null | sed -E 's#crates/wasm/tests/(.*)\.rs#--test \1#' | tr '\n' ' ')
if [ -n "$wasm_tests" ]; then
  # shellcheck disable=SC2086
  run wasm-test cargo test --release --target wasm32-unknown-unknown -p bitlens-wasm $wasm_tests
  run wasm-charts-test cargo test --release --target wasm32-unknown-unknown -p bitlens-wasm-charts --test wasm_charts
fi

# The full load test of issue 9 (100 concurrent downloads of a 50 MiB keyspace, peak RSS and
# throughput printed), in a release build so it moves its ~5 GB in minutes; it has its own
# watchdog. The debug `cargo test` step above runs the smaller 100 x 8 MiB variant.
run load-test cargo test --release -p bitlens-cli --test load -- --ignored --nocapture

# Fuzz smoke: every cargo-fuzz target for a few seconds, seeded from the committed fixtures
# (the long runs are `bash scripts/fuzz.sh 600`).
run fuzz-smoke bash scripts/fuzz.sh "${BITLENS_FUZZ_SECONDS:-15}"

if [ "$build_ok" = 1 ]; then
  # A watchdog: a test file that never exits fails the step instead of the whole CI run.
  run e2e timeout --kill-after=30 "${BITLENS_E2E_TIMEOUT:-2700}" node --test tests/e2e/
else
  names+=("e2e")
  results+=("SKIPPED (build failed)")
  failed_total=$((failed_total + 1))
fi

# The Python package: its venv, wheel and pytest (scripts/python-test.sh).
run python-test bash scripts/python-test.sh

printf '\n=== summary\n'
status=0
for i in "${!names[@]}"; do
  printf '  %-12s %s\n' "${names[$i]}" "${results[$i]}"
  case "${results[$i]}" in ok) ;; *) status=1 ;; esac
done
echo "logs in $logs/, screenshots in test-artifacts/"
echo "tests: $passed_total passed, $failed_total failed"
exit $status
