#!/usr/bin/env python3
"""Generates the RDB fixtures under tests/data/fixtures/ from real Redis servers.

For every Redis version scripts/servers.sh installs (6.0.9, 6.2.14, 7.0.15, 7.4.1; see the
table at the top of that script) and two configurations:

  default     rdbcompression yes, rdbchecksum yes, maxmemory-policy allkeys-lru (IDLE opcodes)
  plain       rdbcompression no,  rdbchecksum no,  maxmemory-policy allkeys-lfu (FREQ opcodes)

it starts the server on 127.0.0.1 (free port, temporary --dir), writes keys of every type and
encoding that version has into databases 0, 1 and 5 (expiries in the far future), SAVEs, copies
dump.rdb to tests/data/fixtures/redis-<version>-<config>.rdb and records what that Redis
answers in redis-<version>-<config>.json:

  {"redis_version", "rdb_version", "config", "dbsize": {db: n},
   "keys": [{"db", "key_hex", "type", "encoding", "pexpireat", "strlen"?, "value_hex"?,
             "zrange"?: [[member_hex, score_text], ...], "dump_hex"?}]}

Usage: scripts/make-fixtures.py   (the servers are the ones scripts/servers.sh installs into
$BITLENS_SERVERS_DIR, else <repo>/.servers; it is run first when its servers.json is missing).
The server is stopped by its pid; nothing is left running.
"""

import json
import os
import shutil
import socket
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "tests", "data", "fixtures")
FAR_MS = 4102444800000  # 2100-01-01T00:00:00Z: keys stay alive


# ---------------------------------------------------------------- binaries

def servers_dir():
    """The servers scripts/servers.sh installs (running it when its manifest is missing)."""
    d = os.environ.get("BITLENS_SERVERS_DIR") or os.path.join(ROOT, ".servers")
    if not os.path.exists(os.path.join(d, "servers.json")):
        subprocess.check_call(["bash", os.path.join(ROOT, "scripts", "servers.sh")],
                              env=dict(os.environ, BITLENS_SERVERS_DIR=d))
    return d


def servers():
    """(label, argv prefix, env) for every Redis of the manifest (Valkey is not a fixture here)."""
    with open(os.path.join(servers_dir(), "servers.json")) as f:
        manifest = json.load(f)["servers"]
    return [(s["version"], [s["server"]], s["env"])
            for name, s in sorted(manifest.items()) if name.startswith("redis-")]


# ---------------------------------------------------------------- RESP client

class Conn:
    def __init__(self, port):
        self.s = socket.create_connection(("127.0.0.1", port))
        self.f = self.s.makefile("rb")

    def __call__(self, *args):
        out = b"*%d\r\n" % len(args)
        for a in args:
            a = a if isinstance(a, bytes) else str(a).encode()
            out += b"$%d\r\n%s\r\n" % (len(a), a)
        self.s.sendall(out)
        return self.read()

    def read(self):
        line = self.f.readline()[:-2]
        t, rest = line[:1], line[1:]
        if t == b"+":
            return rest.decode()
        if t == b"-":
            raise RuntimeError(rest.decode())
        if t == b":":
            return int(rest)
        if t == b"$":
            n = int(rest)
            if n < 0:
                return None
            data = self.f.read(n + 2)[:-2]
            return data
        if t == b"*":
            n = int(rest)
            return None if n < 0 else [self.read() for _ in range(n)]
        raise RuntimeError("bad reply %r" % line)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ---------------------------------------------------------------- data set

def populate(r, version):
    major = tuple(int(x) for x in version.split("."))
    r("SELECT", 0)
    # Strings: raw, int-encoded, LZF-compressible, binary, empty; bitmaps; HyperLogLogs.
    r("SET", "str:short", "hello")
    r("SET", "str:int", "12345")
    r("SET", "str:negint", "-7")
    r("SET", "str:bigint", "12345678901234")
    r("SET", "str:long", "abcdefgh" * 100)
    r("SET", "str:binary", bytes(range(256)))
    r("SET", "str:empty", "")
    r("SETBIT", "stats:active:20240501", 100000, 1)
    for uid in range(0, 4000, 7):
        r("SETBIT", "stats:active:20240502", uid, 1)
    for day in (1, 2, 5, 6, 7, 20):
        r("SETBIT", "sign:1001:202405", day - 1, 1)
    r("PFADD", "uv:page:index:20240501", *["u%d" % i for i in range(50)])  # sparse
    r("PFADD", "uv:page:index:20240502", *["u%d" % i for i in range(3000)])  # dense
    r("PFCOUNT", "uv:page:index:20240501")  # caches the cardinality in the header
    r("PEXPIREAT", "str:short", FAR_MS)
    r("EXPIREAT", "str:int", FAR_MS // 1000)
    # Lists: small (ziplist / listpack node), many nodes, a huge element (plain node in 7.0+).
    r("RPUSH", "list:small", "a", "1", "b", "-2", "300000")
    r("RPUSH", "list:big", *["element-%d" % i for i in range(1500)])
    r("RPUSH", "list:hugeelem", "x" * 20000, "y")
    # Sets: intset, small strings (listpack in 7.2+), big hashtable.
    r("SADD", "set:ints", 1, 2, 3, 70000, -5)
    r("SADD", "set:small", "a", "b", "c")
    r("SADD", "set:big", *["member-%d" % i for i in range(600)])
    # Hashes: small (ziplist / listpack), big (hashtable).
    r("HSET", "hash:small", "f1", "v1", "f2", "2", "f3", "three")
    r("HSET", "hash:big", *sum([["field-%d" % i, "value-%d" % i] for i in range(600)], []))
    # Sorted sets: small (ziplist / listpack) with int, float and infinite scores; skiplist.
    r("ZADD", "zset:small", 1, "one", 2.5, "two.5", "-inf", "neg", "+inf", "pos", -3, "minus3")
    r("ZADD", "zset:big", *sum([[i * 0.5, "m%d" % i] for i in range(300)], []))
    r("GEOADD", "shop:geo:cafe", 13.361389, 38.115556, "Palermo", 15.087269, 37.502669, "Catania")
    r("GEOADD", "shop:geo:food", *sum([[116.3 + i * 0.001, 39.9 + i * 0.0007, "shop%d" % i]
                                       for i in range(200)], []))
    # Streams: entries, a deletion, consumer groups with pending entries and consumers.
    for i in range(1, 30):
        r("XADD", "stream:events", "%d-1" % i, "field", "v%d" % i, "n", i)
    r("XDEL", "stream:events", "3-1")
    r("XGROUP", "CREATE", "stream:events", "g1", "0")
    r("XGROUP", "CREATE", "stream:events", "g2", "$")
    r("XREADGROUP", "GROUP", "g1", "alice", "COUNT", 3, "STREAMS", "stream:events", ">")
    r("XREADGROUP", "GROUP", "g1", "bob", "COUNT", 2, "STREAMS", "stream:events", ">")
    r("XADD", "stream:empty", "1-1", "a", "b")
    r("XDEL", "stream:empty", "1-1")
    if major >= (7, 4):
        # Hash field expiry: listpack with TTLs, and a big one (hashtable with metadata).
        r("HSET", "hash:fe:small", "a", "1", "b", "2")
        r("HPEXPIREAT", "hash:fe:small", FAR_MS, "FIELDS", 1, "a")
        r("HSET", "hash:fe:big", *sum([["f%d" % i, "v%d" % i] for i in range(600)], []))
        r("HPEXPIREAT", "hash:fe:big", FAR_MS + 5, "FIELDS", 2, "f1", "f2")
    if major >= (7, 0):
        r("FUNCTION", "LOAD",
          "#!lua name=fixturelib\nredis.register_function('fixture_fn', "
          "function(keys, args) return 1 end)")
    r("SELECT", 1)
    r("SET", "db1:key", "in db 1")
    r("ZADD", "db1:zset", 1, "a")
    r("PEXPIREAT", "db1:key", FAR_MS + 1)
    r("SELECT", 5)
    r("SETBIT", "db5:bitmap", 7, 1)
    r("RPUSH", "db5:list", "x")


def record(r, version):
    major = tuple(int(x) for x in version.split("."))
    dbsize, keys = {}, []
    for db in (0, 1, 5):
        r("SELECT", db)
        dbsize[db] = r("DBSIZE")
        for k in sorted(r("KEYS", "*")):
            t = r("TYPE", k)
            e = {"db": db, "key_hex": k.hex(), "type": t,
                 "encoding": r("OBJECT", "ENCODING", k).decode()}
            if major >= (7, 0):
                e["pexpireat"] = r("PEXPIRETIME", k)
            else:
                ttl = r("PTTL", k)
                e["pexpireat"] = -1 if ttl < 0 else None  # absolute time only known on 7.0+
            if t == "string":
                e["strlen"] = r("STRLEN", k)
                e["value_hex"] = r("GET", k).hex()
            if t == "zset":
                z = r("ZRANGE", k, 0, -1, "WITHSCORES")
                e["zrange"] = [[z[i].hex(), z[i + 1].decode()] for i in range(0, len(z), 2)]
            d = r("DUMP", k)
            if len(d) <= 4096:
                e["dump_hex"] = d.hex()
            keys.append(e)
    return dbsize, keys


def run(label, argv, env, config):
    d = tempfile.mkdtemp(prefix="bitlens-fixture-")
    port = free_port()
    opts = {"default": ["--rdbcompression", "yes", "--rdbchecksum", "yes",
                        "--maxmemory-policy", "allkeys-lru"],
            "plain": ["--rdbcompression", "no", "--rdbchecksum", "no",
                      "--maxmemory-policy", "allkeys-lfu"]}[config]
    proc = subprocess.Popen(argv + ["--port", str(port), "--bind", "127.0.0.1", "--dir", d,
                                    "--save", "", "--appendonly", "no"] + opts,
                            env=dict(os.environ, **env), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            try:
                r = Conn(port)
                r("PING")
                break
            except OSError:
                time.sleep(0.05)
        else:
            raise RuntimeError("redis %s did not start" % label)
        version = r("INFO", "server").decode()
        version = [l.split(":")[1] for l in version.split("\r\n") if l.startswith("redis_version:")][0]
        populate(r, version)
        r("SAVE")
        dbsize, keys = record(r, version)
        rdb = open(os.path.join(d, "dump.rdb"), "rb").read()
        name = "redis-%s-%s" % (version, config)
        open(os.path.join(OUT, name + ".rdb"), "wb").write(rdb)
        with open(os.path.join(OUT, name + ".json"), "w") as f:
            json.dump({"redis_version": version, "rdb_version": int(rdb[5:9]), "config": config,
                       "dbsize": dbsize, "keys": keys}, f, indent=0, sort_keys=True)
            f.write("\n")
        print("%s: %d bytes, RDB %s, %d keys" % (name, len(rdb), rdb[5:9].decode(), len(keys)))
    finally:
        proc.kill()
        proc.wait()
        shutil.rmtree(d, ignore_errors=True)


def main():
    os.makedirs(OUT, exist_ok=True)
    for label, argv, env in servers():
        for config in ("default", "plain"):
            run(label, argv, env, config)


if __name__ == "__main__":
    main()
