#!/usr/bin/env bash
# Runs every cargo-fuzz target under fuzz/ for SECONDS each (default 60), seeded from the
# committed fixtures (whole files, one-key files, DUMP payloads and their embedded blobs).
# Needs a nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz`; scripts/setup.sh
# installs both). When either is missing it says so and exits 0 on a developer's machine, but
# fails under CI=true (a smoke step that fuzzed nothing must not pass in CI).
# Exit status is non-zero when a target finds a crash (artifacts under fuzz/artifacts/).
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH=${1:-60}
if ! cargo +nightly --version >/dev/null 2>&1 || ! cargo +nightly fuzz --version >/dev/null 2>&1; then
  if [ "${CI:-}" = true ]; then
    echo "fuzz: nightly toolchain or cargo-fuzz missing: FAILED (CI=true; npm run setup installs them)"
    exit 1
  fi
  echo "fuzz: nightly toolchain or cargo-fuzz missing; skipped"
  exit 0
fi
SEEDS=$(mktemp -d)
trap 'rm -rf "$SEEDS"' EXIT
python3 - "$SEEDS" <<'PY'
import glob, json, os, sys
out = sys.argv[1]
for d in ("rdb", "dump", "blobs", "hll", "resp"):
    os.makedirs(os.path.join(out, d), exist_ok=True)
fx = "tests/data/fixtures"
# Requests as clients send them (a flag byte first: its high bit unset means authenticated,
# the rest the read size), multibulk, inline, pipelined, a big bulk and protocol errors.
for i, wire in enumerate([
    b"*2\r\n$4\r\nPING\r\n$3\r\nabc\r\n*1\r\n$6\r\nDBSIZE\r\n",
    b"GET \"a b\" 'c'\r\nPING\n\r\n",
    b"*3\r\n$4\r\nECHO\r\n$1\r\nx\r\n$40000\r\n" + b"y" * 40000 + b"\r\n",
    b"*1\r\n+x\r\n", b"*x\r\n", b"*1\r\n$-5\r\n", b"*11\r\n",
]):
    open(os.path.join(out, "resp", "seed%d" % i), "wb").write(bytes([i * 37 % 256]) + wire)
for f in glob.glob(fx + "/*.rdb"):
    if os.path.getsize(f) < 64 * 1024:
        open(os.path.join(out, "rdb", os.path.basename(f)), "wb").write(open(f, "rb").read())
for f in glob.glob(fx + "/*.json"):
    d = json.load(open(f))
    stem = os.path.basename(f)[:-5]
    for k in d["keys"]:
        name = stem + "-" + k["key_hex"][:40]
        if k.get("value_hex", "").startswith("48594c4c"):  # "HYLL"
            open(os.path.join(out, "hll", name), "wb").write(bytes.fromhex(k["value_hex"]))
        if "dump_hex" not in k:
            continue
        p = bytes.fromhex(k["dump_hex"])
        open(os.path.join(out, "dump", name), "wb").write(p)
        open(os.path.join(out, "dump", name + "-body"), "wb").write(p[:-10])
        key = bytes.fromhex(k["key_hex"])[:60]
        magic = (b"VALKEY%03d" if d.get("magic", "").startswith("VALKEY") else b"REDIS%04d") % d["rdb_version"]
        rdb = (magic + b"\xfe\x00" + bytes([p[0], len(key)]) + key
               + p[1:-10] + b"\xff" + b"\0" * 8)  # zero trailer: checksum not computed
        open(os.path.join(out, "rdb", name), "wb").write(rdb)
        body = p[1:-10]
        if p[0] in (9, 10, 11, 12, 13, 16, 17, 20) and body:
            b = body[0]
            if b >> 6 == 0:
                blob = body[1:1 + (b & 63)]
            elif b >> 6 == 1:
                blob = body[2:2 + (((b & 63) << 8) | body[1])]
            else:
                continue
            open(os.path.join(out, "blobs", name), "wb").write(blob)
PY
status=0
# FUZZ_TARGETS (e.g. "rdb_reader:rdb dump_payload:dump") runs a subset: target:seed-folder.
for spec in ${FUZZ_TARGETS:-rdb_reader:rdb rdb_push:rdb dump_payload:dump blobs:blobs hll_string:hll probabilistic:dump vectorset:dump resp_requests:resp}; do
  target=${spec%%:*}; seeds=$SEEDS/${spec##*:}
  mkdir -p "fuzz/corpus/$target"
  echo "fuzz: $target for ${SECONDS_EACH}s"
  set +e
  cargo +nightly fuzz run -O -s none "$target" "fuzz/corpus/$target" "$seeds" -- \
    -max_total_time="$SECONDS_EACH" -max_len=65536 -rss_limit_mb=2048 -timeout=10 \
    -print_final_stats=1 > "fuzz/$target.log" 2>&1
  rc=$?
  set -e
  grep -E "^(stat::number_of_executed_units|stat::peak_rss_mb|Done)" "fuzz/$target.log" || true
  if [ $rc != 0 ]; then
    grep -E "panicked|ERROR|SUMMARY|artifact" "fuzz/$target.log" | head -5
    echo "fuzz: $target FAILED (log fuzz/$target.log, inputs fuzz/artifacts/$target)"; status=1
  fi
done
exit $status
