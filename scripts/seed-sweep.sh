#!/usr/bin/env bash
# Seed sweep: runs every randomized test over many seeds in one sitting (`npm run sweep`).
#
#   bash scripts/seed-sweep.sh [SEEDS] [NAME...]
#   bash scripts/seed-sweep.sh --list
#
# The randomized tests are found by their one seed helper: every Rust source file that calls
# `bitlens_testseed::` (crates/testseed: BITLENS_SEED, else a fresh seed, printed either way).
# An integration test file (tests/*.rs, crates/*/tests/*.rs) is run as its test target; a
# source file (src/**, crates/*/src/**) holds unit tests, run as its package's library tests
# filtered to the file's module (`rdb::lzf::` for src/rdb/lzf.rs). `--list` prints the swept
# source files, one path a line, and exits.
#
# SEEDS (default 50) seeds per file. NAME keeps only the files whose path contains it
# (`bitmap_diff`, `src/rdb/lzf.rs`). Seeds are fresh 64-bit numbers from /dev/urandom (so each
# sweep tries new ones), or BITLENS_SWEEP_SEEDS="1 2 3" to give them. Each test binary is built
# once (debug, as `npm test` runs it; BITLENS_SWEEP_PROFILE=release for a release build) and run
# once per seed, `BITLENS_SWEEP_JOBS` seeds at a time (default 1; the difftests start their own
# servers on free ports, so runs do not share state). A failing seed prints its replay line
# and keeps its log in test-artifacts/sweep/. The exit status is non-zero when any seed failed.
set -uo pipefail
cd "$(dirname "$0")/.."
[ -d "$HOME/.cargo/bin" ] && export PATH="$HOME/.cargo/bin:$PATH"
export BITLENS_SERVERS_DIR=${BITLENS_SERVERS_DIR:-$PWD/.servers}

# Every source file with a randomized test, sorted (the helper's own crate excluded).
swept_files() {
  grep -rlE --include='*.rs' 'bitlens_testseed::' src tests crates 2>/dev/null |
    grep -v '^crates/testseed/' | LC_ALL=C sort
}

if [ "${1:-}" = "--list" ]; then
  swept_files
  exit 0
fi

seeds_per_test=${1:-50}
shift || true
case "$seeds_per_test" in '' | *[!0-9]*)
  echo "usage: $0 [SEEDS] [NAME...] | --list" >&2
  exit 2
  ;;
esac
jobs=${BITLENS_SWEEP_JOBS:-1}
profile=${BITLENS_SWEEP_PROFILE:-dev}
out=test-artifacts/sweep
mkdir -p "$out"

# The package that owns a path: the nearest Cargo.toml above it.
package_of() {
  local d
  d=$(dirname "$1")
  while [ ! -f "$d/Cargo.toml" ]; do d=$(dirname "$d"); done
  awk -F'"' '/^name = /{print $2; exit}' "$d/Cargo.toml"
}

# One sweep entry per file: <file> <package> <cargo target args> <test filter>.
entries=()
while read -r f; do
  [ -n "$f" ] || continue
  if [ $# -gt 0 ]; then
    keep=0
    for n in "$@"; do case "$f" in *"$n"*) keep=1 ;; esac; done
    [ "$keep" = 1 ] || continue
  fi
  pkg=$(package_of "$f")
  case "$f" in
  tests/*.rs | crates/*/tests/*.rs)
    entries+=("$f $pkg --test=$(basename "$f" .rs) -")
    ;;
  *)
    # Module path of a source file: under its crate's src/, without .rs, mod.rs and lib.rs.
    rel=${f#*src/}
    rel=${rel%.rs}
    rel=${rel%/mod}
    [ "$rel" = lib ] && rel=""
    filter=${rel//\//::}
    entries+=("$f $pkg --lib ${filter:+$filter::}")
    [ -n "$filter" ] || entries[-1]="$f $pkg --lib -"
    ;;
  esac
done < <(swept_files)
if [ ${#entries[@]} -eq 0 ]; then
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

run_one() {
  local seed=$1 log
  log="$out/$tag.$seed.log"
  # shellcheck disable=SC2086
  if BITLENS_SEED=$seed "$bin" $filter >"$log" 2>&1; then
    rm -f "$log"
  else
    echo "$seed"
  fi
}
export -f run_one

failed=0
total=0
for e in "${entries[@]}"; do
  read -r f pkg target filter <<<"$e"
  [ "$filter" = - ] && filter=""
  tag=$(printf '%s' "$f" | tr '/.' '__')
  # Build once; the JSON message names the test binary.
  bin=$(cargo test --profile "$profile" -p "$pkg" "$target" --no-run --message-format=json 2>"$out/$tag.build.log" |
    python3 -c 'import json,sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["profile"]["test"]:
        print(m["executable"])' | tail -1)
  if [ -z "$bin" ]; then
    echo "$f: build failed (see $out/$tag.build.log)"
    failed=$((failed + 1))
    continue
  fi
  start=$(date +%s)
  export bin filter out tag
  mapfile -t fails < <(printf '%s\n' "${seeds[@]}" | xargs -P "$jobs" -I{} bash -c 'run_one {}')
  secs=$(($(date +%s) - start))
  total=$((total + ${#seeds[@]}))
  if [ ${#fails[@]} -eq 0 ]; then
    printf '%-44s %3d seeds ok (%ds)\n' "$f" "${#seeds[@]}" "$secs"
  else
    printf '%-44s %3d of %d seeds FAILED (%ds)\n' "$f" "${#fails[@]}" "${#seeds[@]}" "$secs"
    for s in "${fails[@]}"; do
      echo "  BITLENS_SEED=$s cargo test -p $pkg $target $filter   (log: $out/$tag.$s.log)"
    done
    failed=$((failed + ${#fails[@]}))
  fi
done
echo "seed sweep: ${#entries[@]} files, $total runs, $failed failed"
[ "$failed" = 0 ]
