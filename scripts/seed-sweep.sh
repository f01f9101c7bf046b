#!/usr/bin/env bash
# Seed sweep: runs every randomized test over many seeds in one sitting (`npm run sweep`).
#
#   bash scripts/seed-sweep.sh [SEEDS] [TEST...]
#
# SEEDS (default 50) seeds per test. The randomized tests are the Rust test targets that call
# `seed_from_env` (crates/difftest's harness: they read BITLENS_SEED, else the clock); without
# TEST names every one of them is swept, else only those named (`bitmap_diff types_diff`).
# Seeds are fresh 64-bit numbers from /dev/urandom (so each sweep tries new ones), or
# BITLENS_SWEEP_SEEDS="1 2 3" to give them. Each target is built once (debug, as `npm test`
# runs it; BITLENS_SWEEP_PROFILE=release for a release build) and its binary run once per seed,
# `BITLENS_SWEEP_JOBS` seeds at a time (default 1; the difftests start their own servers on
# free ports, so runs do not share state). A failing seed prints the replay line
# `BITLENS_SEED=<seed> cargo test -p <package> --test <name>` and keeps its log in
# test-artifacts/sweep/. The exit status is non-zero when any seed failed.
set -uo pipefail
cd "$(dirname "$0")/.."
[ -d "$HOME/.cargo/bin" ] && export PATH="$HOME/.cargo/bin:$PATH"
export BITLENS_SERVERS_DIR=${BITLENS_SERVERS_DIR:-$PWD/.servers}

seeds_per_test=${1:-50}
shift || true
case "$seeds_per_test" in '' | *[!0-9]*)
  echo "usage: $0 [SEEDS] [TEST...]" >&2
  exit 2
  ;;
esac
jobs=${BITLENS_SWEEP_JOBS:-1}
profile=${BITLENS_SWEEP_PROFILE:-dev}
out=test-artifacts/sweep
mkdir -p "$out"

# The randomized targets: <package> <target name>, one per line.
targets=()
for f in crates/*/tests/*.rs tests/*.rs; do
  [ -f "$f" ] || continue
  grep -q 'seed_from_env' "$f" || continue
  name=$(basename "$f" .rs)
  if [ $# -gt 0 ] && ! printf '%s\n' "$@" | grep -qx "$name"; then continue; fi
  pkg=$(awk -F'"' '/^name = /{print $2; exit}' "$(dirname "$(dirname "$f")")/Cargo.toml")
  targets+=("$pkg $name")
done
if [ ${#targets[@]} -eq 0 ]; then
  echo "no randomized test matches: $*" >&2
  exit 2
fi

seeds=()
if [ -n "${BITLENS_SWEEP_SEEDS:-}" ]; then
  read -r -a seeds <<<"$BITLENS_SWEEP_SEEDS"
else
  while [ ${#seeds[@]} -lt "$seeds_per_test" ]; do
    seeds+=("$(od -An -N8 -tu8 /dev/urandom | tr -d ' ')")
  done
fi

failed=0
total=0
for t in "${targets[@]}"; do
  read -r pkg name <<<"$t"
  # Build once; the JSON message names the test binary.
  bin=$(cargo test --profile "$profile" -p "$pkg" --test "$name" --no-run --message-format=json 2>"$out/$name.build.log" |
    python3 -c 'import json,sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["kind"] == ["test"]:
        print(m["executable"])' | tail -1)
  if [ -z "$bin" ]; then
    echo "$pkg/$name: build failed (see $out/$name.build.log)"
    failed=$((failed + 1))
    continue
  fi
  start=$(date +%s)
  fails=()
  run_one() {
    local seed=$1
    if BITLENS_SEED=$seed "$bin" >"$out/$name.$seed.log" 2>&1; then
      rm -f "$out/$name.$seed.log"
    else
      echo "$seed"
    fi
  }
  export -f run_one
  export bin name out
  mapfile -t fails < <(printf '%s\n' "${seeds[@]}" | xargs -P "$jobs" -I{} bash -c 'run_one {}')
  secs=$(($(date +%s) - start))
  total=$((total + ${#seeds[@]}))
  if [ ${#fails[@]} -eq 0 ]; then
    printf '%-22s %3d seeds ok (%ds)\n' "$name" "${#seeds[@]}" "$secs"
  else
    printf '%-22s %3d of %d seeds FAILED (%ds)\n' "$name" "${#fails[@]}" "${#seeds[@]}" "$secs"
    for s in "${fails[@]}"; do
      echo "  BITLENS_SEED=$s cargo test -p $pkg --test $name   (log: $out/$name.$s.log)"
    done
    failed=$((failed + ${#fails[@]}))
  fi
done
echo "seed sweep: ${#targets[@]} tests, $total runs, $failed failed"
[ "$failed" = 0 ]
