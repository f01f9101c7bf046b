#!/usr/bin/env python3
"""Records conformance cases from every real server into tests/data/conformance/<server>/.

For each server that scripts/servers.sh installs (redis-6.0.9, redis-6.2.14, redis-7.0.15,
redis-7.4.1, redis-8.0.2, valkey-8.1.1, valkey-8.1.8, valkey-9.1.2; manifest <servers dir>/servers.json), and once more for
redis-7.4.1 with RedisBloom 2.8.2 loaded (folder redis-7.4.1-bloom), it:

 1. starts the server on 127.0.0.1 (free port, temporary --dir, active expiry off with
    DEBUG SET-ACTIVE-EXPIRE 0), writes a fixed data set (fixed seed, see populate()):
    bitmaps, HyperLogLogs, GEO sets, lists, sets, hashes (with field TTLs where the server has
    HPEXPIREAT), sorted sets, streams, in databases 0, 1 and 5; keys with far-future absolute
    expiries; keys (and hash fields) given PEXPIRE 1 and left 1.2 s to expire before SAVE, so
    the file holds them already expired, also at its own `ctime` (seconds);
 2. SAVEs, keeps the file as dump.rdb, stops the server;
 3. starts a fresh server of the same kind that loads dump.rdb at startup (the server whose
    answers bitlens reproduces from the file: encodings and expiry are as after a load), and
    runs every case (build_cases()) once over a raw RESP2 connection (exact reply bytes) and
    once with that server's own cli (`<cli> -h 127.0.0.1 -p PORT -n DB argv...`, stdout not a
    terminal), writing keys.tsv, cases.jsonl, server_config.json, VERSION and README.md;
 4. checks determinism on a second server process that loaded the same file (another
    hash-table seed): a case whose replies differ beyond the "order: hash table" rule below
    (a SCAN from a cursor inside the table, say) is left out and printed; a reply in
    hash-table order that is not marked stops the recording.

The case format is ../shared/conformance/README.md's, with two additions:
  "db": N          the case runs in database N (the RESP connection SELECTs N first; the cli
                   gets `-n N`); absent means database 0.
  note "order: hash table"
                   the server emitted the elements in its hash-table order (a random seed per
                   process): compare the reply array as a multiset; for *SCAN replies, the
                   second element ([cursor, elements]); "order: hash table (pairs)" means the
                   elements are field/value (member/score) pairs that stay together. The cli
                   output then compares as a multiset of lines (of line pairs).
A note starting "issue 14:" marks the cases of issue 14's difference table and the commands
and options that exist only from some version; they read keys that every server's data set
holds with the same content, so tests/server_conformance.rs also runs them on every other
server's file with `--compat <this server>`.
TTL/PTTL/HTTL/HPTTL depend on the clock: they are recorded only where the reply does not (no
expiry: -1, missing or expired: -2); keys with a far-future expiry are read with EXPIRETIME,
PEXPIRETIME, HEXPIRETIME and HPEXPIRETIME, whose replies are absolute. keys.tsv adds a last
column, db, to the shared format's (key type encoding length pexpiretime_ms).

Deterministic: the data and the cases depend only on the seed (SEED) and the server; replies
differ only where a server's output is in hash-table order (marked as above).

Usage: BITLENS_SERVERS_DIR=/work/servers scripts/record-conformance.py [server-name ...]
(default: all, plus redis-7.4.1-bloom). Each server is stopped by its pid; nothing is left
running.
"""

import json
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "tests", "data", "conformance")
SEED = 20261201
FAR_MS = 4102444800000  # 2100-01-01T00:00:00Z
BLOOM = "redis-7.4.1-bloom"
FAR_KEYS = (b"exp:far:str", b"exp:far:set", b"db1:key")  # the keys with a far-future expiry


# ---------------------------------------------------------------- servers

def manifest():
    d = os.environ.get("BITLENS_SERVERS_DIR") or os.path.join(ROOT, ".servers")
    path = os.path.join(d, "servers.json")
    if not os.path.exists(path):
        subprocess.check_call(["bash", os.path.join(ROOT, "scripts", "servers.sh")],
                              env=dict(os.environ, BITLENS_SERVERS_DIR=d))
    with open(path) as f:
        return json.load(f)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """A server process on a free loopback port; stopped by pid in stop()."""

    def __init__(self, entry, d, extra=()):
        self.entry = entry
        self.env = dict(os.environ, **entry["env"])
        self.port = free_port()
        self.proc = subprocess.Popen(
            [entry["server"], "--port", str(self.port), "--bind", "127.0.0.1", "--dir", d,
             "--save", "", "--appendonly", "no", *extra],
            env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(200):
            try:
                c = Conn(self.port)
                if c.raw("PING") == b"+PONG\r\n":
                    self.conn = c
                    return
            except OSError:
                pass
            if self.proc.poll() is not None:
                raise RuntimeError("%s exited at startup" % entry["server"])
            time.sleep(0.05)
        self.stop()
        raise RuntimeError("%s did not start" % entry["server"])

    def cli(self, db, argv):
        out = subprocess.run([self.entry["cli"], "-h", "127.0.0.1", "-p", str(self.port),
                              "-n", str(db), *argv], env=self.env, stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        return out.stdout

    def stop(self):
        self.proc.kill()
        self.proc.wait()


def enc(a):
    return a if isinstance(a, bytes) else str(a).encode()


class Conn:
    """A RESP2 connection returning each reply's exact bytes (raw) or parsed (__call__)."""

    def __init__(self, port):
        self.s = socket.create_connection(("127.0.0.1", port))
        self.f = self.s.makefile("rb")

    def send(self, args):
        out = b"*%d\r\n" % len(args)
        for a in args:
            a = enc(a)
            out += b"$%d\r\n%s\r\n" % (len(a), a)
        self.s.sendall(out)

    def raw(self, *args):
        self.send(args)
        buf = bytearray()
        self._read(buf)
        return bytes(buf)

    def _read(self, buf):
        line = self.f.readline()
        buf += line
        t, n = line[:1], line[1:-2]
        if t == b"$" and int(n) >= 0:
            buf += self.f.read(int(n) + 2)
        elif t == b"*" and int(n) > 0:
            for _ in range(int(n)):
                self._read(buf)

    def __call__(self, *args):
        reply, _ = parse(self.raw(*args), 0)
        if isinstance(reply, dict) and "error" in reply:
            raise RuntimeError("%r: %s" % (args, reply["error"]))
        return reply

    def close(self):
        self.s.close()


def text_or_hex(b, key):
    try:
        return {key: b.decode("utf-8")}
    except UnicodeDecodeError:
        return {key + "_hex": b.hex()}


def parse(b, i):
    """RESP2 bytes -> the shared format's JSON reply, and the index after it."""
    j = b.index(b"\r\n", i)
    t, rest = b[i:i + 1], b[i + 1:j]
    i = j + 2
    if t == b"+":
        return {"status": rest.decode("utf-8", "replace")}, i
    if t == b"-":
        return {"error": rest.decode("utf-8", "replace")}, i
    if t == b":":
        return int(rest), i
    if t == b"$":
        n = int(rest)
        if n < 0:
            return None, i
        data = b[i:i + n]
        d = text_or_hex(data, "bulk")
        return d, i + n + 2
    if t == b"*":
        n = int(rest)
        if n < 0:
            return None, i
        items = []
        for _ in range(n):
            v, i = parse(b, i)
            items.append(v)
        return items, i
    raise ValueError("bad RESP %r" % b[i - 3:i + 20])


def bulk_text(v):
    return v["bulk"].encode() if "bulk" in v else bytes.fromhex(v["bulk_hex"])


# ---------------------------------------------------------------- data set

def has(r, *argv):
    """True when the server knows the command (probed on a scratch key, then deleted)."""
    try:
        r(*argv)
        return True
    except RuntimeError as e:
        return "unknown command" not in str(e) and "unknown subcommand" not in str(e)
    finally:
        r("DEL", "probe:tmp")


def populate(r, rng):
    """Writes the fixed data set; returns the keys given PEXPIRE 1 (expired in the file)."""
    gone = []
    r("SELECT", 0)
    # Strings and bitmaps.
    r("SET", "str:plain", "hello world")
    r("SET", "str:int", "12345")
    r("SET", "str:empty", "")
    r("SET", "str:binary", bytes(range(256)))
    r("SET", "str:long", "abcdefgh" * 40)
    r("SETBIT", "bm:small", 7, 1)
    r("SETBIT", "bm:small", 8, 1)
    r("SETBIT", "bm:small", 21, 1)
    for uid in range(0, 4000, 7):
        r("SETBIT", "bm:users", uid, 1)
    for i in range(40):
        r("SETBIT", "bm:random", rng.randrange(0, 8 * 1024), 1)
    # HyperLogLogs: sparse and dense.
    r("PFADD", "hll:sparse", *["u%d" % i for i in range(50)])
    r("PFADD", "hll:dense", *["u%d" % i for i in range(3000)])
    # GEO sets: listpack/ziplist and skiplist.
    r("GEOADD", "geo:sicily", 13.361389, 38.115556, "Palermo", 15.087269, 37.502669, "Catania")
    r("GEOADD", "geo:shops", *sum([[round(116.3 + rng.random() * 0.2, 6),
                                    round(39.8 + rng.random() * 0.2, 6), "shop%d" % i]
                                   for i in range(200)], []))
    # Lists: small (ziplist/listpack), many nodes with repeats (LPOS), a huge element.
    r("RPUSH", "list:small", "a", "1", "b", "-2", "300000", "a", "c", "a")
    r("RPUSH", "list:big", *["element-%d" % (i % 100) for i in range(1500)])
    r("RPUSH", "list:huge", "x" * 20000, "y", "x")
    r("RPUSH", "list:ints", *[rng.randrange(-1000, 1000) for _ in range(50)])
    # Sets: intset, small strings, big hashtable, big intset, sets for algebra.
    r("SADD", "set:ints", 1, 2, 3, 70000, -5)
    r("SADD", "set:small", "a", "b", "c", "d")
    r("SADD", "set:big", *["member-%d" % i for i in range(600)])
    r("SADD", "set:bigints", *rng.sample(range(-100000, 100000), 300))
    r("SADD", "set:manyints", *range(0, 2000, 2))
    r("SADD", "set:a", "x", "y", "z", "w", "1", "2")
    r("SADD", "set:b", "y", "z", "q", "2", "3")
    r("SADD", "set:c", "z", "2", "r")
    # Hashes: small, big (hashtable), long values (hashtable).
    r("HSET", "hash:small", "f1", "v1", "f2", "2", "f3", "three", "empty", "")
    r("HSET", "hash:big", *sum([["field-%d" % i, "value-%d" % i] for i in range(600)], []))
    r("HSET", "hash:longval", "a", "v" * 100, "b", "short")
    # Sorted sets: small with int, float, 1.618, infinite scores; lex; big skiplist.
    r("ZADD", "zset:small", 1, "one", 2.5, "two.5", "-inf", "neg", "+inf", "pos", -3, "minus3",
      1.618, "phi", 0.1, "tenth")
    r("ZADD", "zset:phi", 1.618, "a")
    r("ZADD", "zset:lex", *sum([[0, m] for m in "abcdefghij"], []))
    r("ZADD", "zset:big", *sum([[round(rng.uniform(-1000, 1000), 3), "m%d" % i]
                               for i in range(300)], []))
    r("ZADD", "zset:ties", 5, "b", 5, "a", 5, "c", 1, "z")
    # Encoding thresholds (defaults: 128 set/zset listpack entries, 512 hash listpack and
    # intset entries, 64-byte listpack values, 8 KiB list listpack nodes): one key on each
    # side of each.
    for n in (128, 129):
        r("SADD", "th:set:%d" % n, *["s%d" % i for i in range(n)])
        r("ZADD", "th:zset:%d" % n, *sum([[i, "z%d" % i] for i in range(n)], []))
    for n in (512, 513):
        r("SADD", "th:intset:%d" % n, *range(n))
        r("HSET", "th:hash:%d" % n, *sum([["f%d" % i, "v"] for i in range(n)], []))
    for n in (70, 90):  # elements of 100 bytes: about 7 KiB and 9 KiB
        r("RPUSH", "th:list:%d" % n, *["%03d" % i + "e" * 97 for i in range(n)])
    for n in (64, 65):
        r("SADD", "th:setval:%d" % n, "x" * n, "y")
        r("HSET", "th:hashval:%d" % n, "f", "x" * n)
        r("ZADD", "th:zsetval:%d" % n, 1, "x" * n)
    # Streams: entries, a deletion, groups; an emptied one.
    for i in range(1, 30):
        r("XADD", "stream:events", "%d-1" % i, "field", "v%d" % i, "n", i)
    r("XDEL", "stream:events", "3-1")
    r("XGROUP", "CREATE", "stream:events", "g1", "0")
    r("XGROUP", "CREATE", "stream:events", "g2", "$")
    r("XREADGROUP", "GROUP", "g1", "alice", "COUNT", 3, "STREAMS", "stream:events", ">")
    r("XADD", "stream:empty", "1-1", "a", "b")
    r("XDEL", "stream:empty", "1-1")
    r("XADD", "stream:small", "100-0", "k", "v")
    r("XADD", "stream:small", "100-5", "k2", "v2", "k3", "v3")
    # Vector sets (Redis 8's built-in vectorset module): each quantization, REDUCE and
    # attributes, on the servers that have VADD.
    if has(r, "VCARD", "probe:tmp"):
        years = (1969, 1984, 1999, 2001, 2015, 2024)
        for i in range(60):
            v = [round(rng.uniform(-1, 1), 4) for _ in range(3)]
            r("VADD", "vset:q8", "VALUES", 3, *v, "e%d" % i,
              "SETATTR", '{"year": %d, "name": "e%d"}' % (years[i % 6], i))
            r("VADD", "vset:fp32", "VALUES", 3, *v, "e%d" % i, "NOQUANT")
            r("VADD", "vset:bin", "VALUES", 3, *v, "e%d" % i, "BIN")
        for i in range(40):
            v = [round(rng.uniform(-1, 1), 4) for _ in range(8)]
            r("VADD", "vset:reduce", "REDUCE", 2, "VALUES", 8, *v, "r%d" % i)
        r("VADD", "vset:one", "VALUES", 2, 0.5, -0.25, "only", "SETATTR", '{"k": "v"}')
    # Hash field expiry (Redis 7.4+, Valkey 9).
    if has(r, "HPEXPIRETIME", "probe:tmp", "FIELDS", 1, "a"):
        r("HSET", "hash:fe", "keep", "1", "far", "2", "farther", "3", "gone", "4")
        r("HPEXPIREAT", "hash:fe", FAR_MS, "FIELDS", 1, "far")
        r("HPEXPIREAT", "hash:fe", FAR_MS + 1234, "FIELDS", 1, "farther")
        r("HPEXPIRE", "hash:fe", 1, "FIELDS", 1, "gone")
        r("HSET", "hash:fe:big", *sum([["f%d" % i, "v%d" % i] for i in range(600)], []))
        r("HPEXPIREAT", "hash:fe:big", FAR_MS + 5, "FIELDS", 2, "f1", "f2")
        r("HPEXPIRE", "hash:fe:big", 1, "FIELDS", 1, "f3")
        r("HSET", "hash:fe:allgone", "x", "1")
        r("HPEXPIRE", "hash:fe:allgone", 1, "FIELDS", 1, "x")
        gone.append((0, "hash:fe:allgone"))  # every field expired: the key is gone too
    # Key expiry: far future (absolute) and already expired in the file.
    r("SET", "exp:far:str", "lives")
    r("PEXPIREAT", "exp:far:str", FAR_MS)
    r("SADD", "exp:far:set", "m")
    r("EXPIREAT", "exp:far:set", FAR_MS // 1000 + 60)
    for k, args in (("exp:gone:str", ("SET", "exp:gone:str", "dead")),
                    ("exp:gone:hash", ("HSET", "exp:gone:hash", "f", "v")),
                    ("exp:gone:bm", ("SETBIT", "exp:gone:bm", 3, 1))):
        r(*args)
        r("PEXPIRE", k, 1)
        gone.append((0, k))
    r("SET", "shared:name", "a string in db 0")
    # Database 1.
    r("SELECT", 1)
    r("SET", "db1:key", "in db 1")
    r("PEXPIREAT", "db1:key", FAR_MS + 1)
    r("ZADD", "db1:zset", 1, "a", 2, "b")
    r("SADD", "shared:name", "a set in db 1")
    r("RPUSH", "db1:list", "p", "q")
    r("SET", "db1:gone", "x")
    r("PEXPIRE", "db1:gone", 1)
    gone.append((1, "db1:gone"))
    # Database 5.
    r("SELECT", 5)
    r("SETBIT", "db5:bitmap", 7, 1)
    r("RPUSH", "db5:list", "x", "y", "z")
    r("HSET", "db5:hash", "h", "1")
    r("SELECT", 0)
    return gone


def populate_bloom(r, rng):
    """RedisBloom 2.8.2 values (module type 7 in the file) next to a few core keys."""
    r("SET", "str:plain", "hello")
    r("BF.RESERVE", "bf:small", 0.01, 100)
    r("BF.MADD", "bf:small", *["item%d" % i for i in range(50)])
    r("BF.RESERVE", "bf:scaling", 0.001, 50, "EXPANSION", 2)
    r("BF.MADD", "bf:scaling", *["user%d" % i for i in range(300)])
    r("BF.ADD", "bf:default", "only")
    r("CF.RESERVE", "cf:small", 64)
    for i in range(40):
        r("CF.ADD", "cf:small", "c%d" % (i % 30))
    r("CF.ADDNX", "cf:small", "unique")
    r("CMS.INITBYDIM", "cms:dim", 200, 5)
    r("CMS.INCRBY", "cms:dim", *sum([["w%d" % i, rng.randrange(1, 50)] for i in range(30)], []))
    r("CMS.INITBYPROB", "cms:prob", 0.001, 0.01)
    r("CMS.INCRBY", "cms:prob", "a", 5, "b", 7)
    r("TOPK.RESERVE", "topk:k5", 5, 50, 4, 0.9)
    words = ["w%d" % (int(rng.paretovariate(1.2)) % 40) for _ in range(500)]
    for i in range(0, len(words), 50):
        r("TOPK.ADD", "topk:k5", *words[i:i + 50])
    r("TDIGEST.CREATE", "td:lat", "COMPRESSION", 100)
    r("TDIGEST.ADD", "td:lat", *[round(rng.lognormvariate(3, 0.5), 3) for _ in range(500)])
    r("TDIGEST.CREATE", "td:empty")
    r("TDIGEST.CREATE", "td:small")
    r("TDIGEST.ADD", "td:small", 1, 2, 3, 4, 5, 10)
    return []


# ---------------------------------------------------------------- cases

class Cases:
    def __init__(self):
        self.items = []  # (argv, db, note, group)

    def add(self, *argv, db=0, note=None):
        self.items.append(([enc(a) for a in argv], db, note))


HASH_ORDER = "order: hash table"
HASH_PAIRS = "order: hash table (pairs)"


def inventory(r):
    """{db: [(key, type, encoding)]} as the loading server sees it."""
    inv = {}
    for db in (0, 1, 5):
        r("SELECT", db)
        keys = sorted(bulk_text(k) for k in r("KEYS", "*"))
        inv[db] = [(k, r("TYPE", k)["status"], bulk_text(r("OBJECT", "ENCODING", k)).decode())
                   for k in keys]
    r("SELECT", 0)
    return inv


def build_cases(inv, gone):
    c = Cases()
    enc_of = {(db, k): e for db, ks in inv.items() for k, _, e in ks}
    type_of = {(db, k): t for db, ks in inv.items() for k, t, _ in ks}
    every = sorted(set(enc_of) | set((db, k.encode()) for db, k in gone))

    def of_type(t):
        return [(db, k) for (db, k), ty in sorted(type_of.items()) if ty == t]

    def hashed(db, k):
        return enc_of.get((db, k)) in ("hashtable", "skiplist")

    # ---- keyspace commands on every key (and the expired and a missing one).
    for db, k in every + [(0, b"missing"), (1, b"missing"), (1, b"str:plain")]:
        c.add("TYPE", k, db=db)
        c.add("EXISTS", k, db=db)
        c.add("OBJECT", "ENCODING", k, db=db)
        c.add("EXPIRETIME", k, db=db)
        c.add("PEXPIRETIME", k, db=db)
        if k not in FAR_KEYS:
            c.add("TTL", k, db=db, note="TTL/PTTL depend on the clock; recorded only where "
                                         "the key has no expiry or is missing/expired")
            c.add("PTTL", k, db=db, note="TTL/PTTL depend on the clock; recorded only where "
                                          "the key has no expiry or is missing/expired")
    for db in (0, 1, 5, 2):
        c.add("DBSIZE", db=db)
        c.add("KEYS", "*", db=db, note=HASH_ORDER)
        c.add("SCAN", 0, "COUNT", 10000, db=db, note=HASH_ORDER)
    for pat in ("list:*", "*:big", "h?sh:*", "[sz]set:*", "exp:*", "nomatch*", "*", "set:[^b]*"):
        c.add("KEYS", pat, note=HASH_ORDER)
        c.add("SCAN", 0, "MATCH", pat, "COUNT", 10000, note=HASH_ORDER)
    for t in ("string", "list", "set", "zset", "hash", "stream", "none", "bogus"):
        c.add("SCAN", 0, "COUNT", 10000, "TYPE", t, note=HASH_ORDER)
        c.add("SCAN", 0, "TYPE", t, "MATCH", "*:s*", "COUNT", 10000, note=HASH_ORDER)
    c.add("EXISTS", "str:plain", "str:plain", "missing", "list:small")
    c.add("EXISTS", "shared:name", "db1:key", db=1)
    for a in (["SCAN", "abc"], ["SCAN", "0", "COUNT", "0"], ["SCAN", "0", "COUNT", "abc"],
              ["SCAN", "0", "TYPE"], ["SCAN", "0", "MATCH"], ["SCAN", "0", "FOO", "1"],
              ["SCAN", "-1"], ["SCAN"], ["TYPE"], ["TYPE", "a", "b"], ["EXISTS"], ["DBSIZE", "x"],
              ["KEYS"], ["OBJECT", "ENCODING"], ["OBJECT", "FOO", "k"], ["OBJECT"],
              ["EXPIRETIME"], ["PEXPIRETIME", "a", "b"], ["TTL"], ["PTTL", "a", "b"]):
        c.add(*a)
    for a in ("0", "1", "5", "15", "16", "-1", "abc", "1.5", ""):
        c.add("SELECT", a, note="SELECT on its own connection")
    c.add("SELECT")
    c.add("SELECT", "1", "2")

    # ---- issue 14's difference table, and commands/options that exist only from some
    # version. Each note starts "issue 14:": these cases read keys every server's data set has,
    # with the same content and encoding-independent replies, so a runner can also check them
    # on another server's file with this server's --compat profile.
    def d14(*argv, note):
        c.add(*argv, note="issue 14: " + note)

    d14("ZSCORE", "zset:phi", "a", note="score 1.618: 17 digits or shortest")
    d14("ZSCORE", "zset:small", "tenth", note="score 0.1: 17 digits or shortest")
    d14("ZRANGE", "zset:small", 0, -1, "WITHSCORES", note="score formats")
    d14("BITCOUNT", "bm:users", 100, -100, "BIT", note="BIT option (7.0+)")
    d14("BITCOUNT", "bm:users", 2, note="start without end")
    d14("BITCOUNT", "missing", 2, note="start without end, missing key")
    d14("GEOSEARCH", "geo:sicily", "FROMMEMBER", "missing", "BYRADIUS", 10, "km",
        note="FROMMEMBER missing member")
    d14("GEOSEARCH", "geo:sicily", "FROMLONLAT", 15, 37, "BYRADIUS", 200, "km", "ASC",
        note="GEOSEARCH exists from 6.2")
    d14("GEOSEARCH", "geo:sicily", "FROMMEMBER", "Palermo", "BYBOX", 400, 400, "km", "ASC",
        "WITHDIST", "WITHCOORD", note="GEOSEARCH exists from 6.2; coordinate format")
    d14("EXPIRETIME", "str:plain", note="EXPIRETIME exists from 7.0")
    d14("FOOBAR", "a", "b", note="unknown command text")
    d14("FOOBAR", note="unknown command text, no args")
    d14("BITCOUNT", "missing", 0, -1, "BIT", note="BIT on a missing key")
    d14("BITCOUNT", "bm:small", 0, -1, "BIT", note="BIT on an existing key")
    d14("BITCOUNT", "missing", 0, -1, "FOO", note="bad option on a missing key")
    d14("BITCOUNT", "bm:small", 0, -1, "FOO", note="bad option on an existing key")
    d14("BITPOS", "missing", 1, 0, -1, "FOO", note="bad option on a missing key")
    d14("BITPOS", "bm:small", 1, 0, -1, "BIT", note="BIT option (7.0+)")
    d14("BITPOS", "bm:small", 1, 2, note="start without end")
    d14("SMISMEMBER", "set:small", "a", "nope", note="SMISMEMBER exists from 6.2")
    d14("ZMSCORE", "zset:small", "one", "nope", note="ZMSCORE exists from 6.2")
    d14("SINTERCARD", 2, "set:a", "set:b", note="SINTERCARD exists from 7.0")
    d14("ZRANK", "zset:small", "one", "WITHSCORE", note="ZRANK WITHSCORE from 7.2")
    d14("HSCAN", "hash:small", 0, "NOVALUES", note="HSCAN NOVALUES from 7.4 / Valkey 8")
    d14("HTTL", "hash:small", "FIELDS", 1, "f1", note="field expiry from 7.4 / Valkey 9")
    d14("HPEXPIRETIME", "hash:small", "FIELDS", 1, "f1",
        note="field expiry from 7.4 / Valkey 9")
    d14("XRANGE", "stream:events", "(5-1", "+", "COUNT", 2, note="exclusive ranges from 6.2")
    d14("LPOS", "list:small", "a", "RANK", -1, note="LPOS")
    # A few reads of the analytic types, and wrong types.
    for k in ("bm:small", "bm:users", "bm:random", "str:int", "missing", "list:small"):
        c.add("BITCOUNT", k)
        c.add("GETBIT", k, 7)
        c.add("BITPOS", k, 1)
        c.add("STRLEN", k)
        c.add("GET", k)
    for k in ("hll:sparse", "hll:dense", "missing", "str:plain", "set:small"):
        c.add("PFCOUNT", k)
    c.add("GEOPOS", "geo:sicily", "Palermo", "nope")
    c.add("GEODIST", "geo:sicily", "Palermo", "Catania", "km")
    c.add("GEOPOS", "list:small", "a")

    # ---- lists.
    lists = of_type("list")
    for db, k in lists + [(0, b"missing")]:
        c.add("LLEN", k, db=db)
        for i in (0, 1, -1, -2, 2, 100, -100, 99999, -99999):
            c.add("LINDEX", k, i, db=db)
        for a, b in ((0, -1), (0, 10), (-5, -1), (5, 2), (100, 200), (-1000, 1000), (1, 1),
                     (1490, 1510), (-3, 2)):
            c.add("LRANGE", k, a, b, db=db)
    for k, el in (("list:small", "a"), ("list:big", "element-7"), ("list:huge", "x"),
                  ("list:ints", "nope"), ("missing", "a")):
        c.add("LPOS", k, el)
        for opts in (["RANK", 2], ["RANK", -1], ["RANK", -2, "COUNT", 0], ["COUNT", 0],
                     ["COUNT", 3], ["MAXLEN", 10], ["COUNT", 0, "MAXLEN", 500],
                     ["RANK", 3, "COUNT", 2, "MAXLEN", 1000], ["RANK", 100], ["RANK", 0],
                     ["COUNT", -1], ["MAXLEN", -1], ["RANK"], ["FOO", 1], ["RANK", "x"]):
            c.add("LPOS", k, el, *opts)
    c.add("LPOS", "list:ints", "-2")
    for a in (["LINDEX", "list:small", "abc"], ["LINDEX", "list:small", "1.5"],
              ["LRANGE", "list:small", "a", "1"], ["LRANGE", "list:small", "0", "b"],
              ["LLEN"], ["LINDEX", "list:small"], ["LRANGE", "list:small", "0"], ["LPOS", "k"]):
        c.add(*a)
    for cmd in (["LLEN"], ["LINDEX", 0], ["LRANGE", 0, -1], ["LPOS", "a"]):
        c.add(cmd[0], "str:plain", *cmd[1:], note="wrong type")
        c.add(cmd[0], "set:small", *cmd[1:], note="wrong type")

    # ---- sets.
    sets = of_type("set")
    for db, k in sets + [(0, b"missing")]:
        h = hashed(db, k)
        c.add("SCARD", k, db=db)
        for m in ("a", "1", "member-5", "70000", "-5", "nope", "z"):
            c.add("SISMEMBER", k, m, db=db)
        c.add("SMISMEMBER", k, "a", "nope", "1", "member-599", "2", db=db)
        c.add("SMEMBERS", k, db=db, note=HASH_ORDER if h else None)
        c.add("SSCAN", k, 0, "COUNT", 10000, db=db, note=HASH_ORDER if h else None)
        c.add("SSCAN", k, 0, "MATCH", "*1*", "COUNT", 10000, db=db,
              note=HASH_ORDER if h else None)
        if not h:
            c.add("SSCAN", k, 0, db=db)
            c.add("SSCAN", k, 0, "COUNT", 1, db=db)
            c.add("SSCAN", k, 0, "MATCH", "[ab]", db=db)
    combos = [("set:a", "set:b"), ("set:a", "set:b", "set:c"), ("set:a", "missing"),
              ("set:ints", "set:a"), ("set:small", "set:a"), ("set:big", "set:a"),
              ("set:manyints", "set:bigints"), ("set:ints",), ("missing",),
              ("set:manyints", "set:ints")]
    for ks in combos:
        for cmd in ("SINTER", "SUNION", "SDIFF"):
            c.add(cmd, *ks, note=HASH_ORDER)
        c.add("SINTERCARD", len(ks), *ks)
        c.add("SINTERCARD", len(ks), *ks, "LIMIT", 1)
        c.add("SINTERCARD", len(ks), *ks, "LIMIT", 0)
    for a in (["SINTERCARD", 0, "set:a"], ["SINTERCARD", 3, "set:a", "set:b"],
              ["SINTERCARD", "x", "set:a"], ["SINTERCARD", 1, "set:a", "LIMIT", -1],
              ["SINTERCARD", 1, "set:a", "LIMIT"], ["SINTERCARD", 1, "set:a", "FOO", 1],
              ["SINTERCARD", -1, "set:a"], ["SINTERCARD", 2, "set:a", "str:plain"],
              ["SSCAN", "set:small", "abc"], ["SSCAN", "set:small", 0, "COUNT", 0],
              ["SSCAN", "set:small", 0, "COUNT", "x"], ["SSCAN", "set:small", 0, "FOO"],
              ["SSCAN", "missing", 0], ["SSCAN", "set:small"], ["SCARD"], ["SISMEMBER", "k"],
              ["SMISMEMBER", "k"], ["SMEMBERS"], ["SINTER"], ["SUNION"], ["SDIFF"],
              ["SINTER", "set:a", "str:plain"], ["SUNION", "set:a", "str:plain"],
              ["SDIFF", "set:a", "str:plain"], ["SDIFF", "missing", "str:plain"],
              ["SINTER", "missing", "str:plain"]):
        c.add(*a)
    for cmd in (["SCARD"], ["SISMEMBER", "a"], ["SMISMEMBER", "a"], ["SMEMBERS"],
                ["SSCAN", 0]):
        c.add(cmd[0], "str:plain", *cmd[1:], note="wrong type")
        c.add(cmd[0], "hash:small", *cmd[1:], note="wrong type")

    # ---- hashes.
    hashes = of_type("hash")
    for db, k in hashes + [(0, b"missing")]:
        h = hashed(db, k)
        c.add("HLEN", k, db=db)
        for f in ("f1", "f2", "empty", "field-17", "a", "keep", "far", "gone", "nope", "h"):
            c.add("HGET", k, f, db=db)
            c.add("HEXISTS", k, f, db=db)
            c.add("HSTRLEN", k, f, db=db)
        c.add("HMGET", k, "f1", "nope", "field-3", "a", "gone", "keep", db=db)
        c.add("HKEYS", k, db=db, note=HASH_ORDER if h else None)
        c.add("HVALS", k, db=db, note=HASH_ORDER if h else None)
        c.add("HGETALL", k, db=db, note=HASH_PAIRS if h else None)
        c.add("HSCAN", k, 0, "COUNT", 10000, db=db, note=HASH_PAIRS if h else None)
        c.add("HSCAN", k, 0, "MATCH", "f*", "COUNT", 10000, db=db,
              note=HASH_PAIRS if h else None)
        c.add("HSCAN", k, 0, "NOVALUES", "COUNT", 10000, db=db, note=HASH_ORDER if h else None)
        if not h:
            c.add("HSCAN", k, 0, db=db)
            c.add("HSCAN", k, 0, "COUNT", 1, db=db)
        fields = ["keep", "far", "farther", "gone", "nope", "f1", "f2", "f3", "f4"]
        note_t = "HTTL/HPTTL depend on the clock; recorded only on fields without TTL"
        for cmd in ("HEXPIRETIME", "HPEXPIRETIME"):
            c.add(cmd, k, "FIELDS", len(fields), *fields, db=db)
            c.add(cmd, k, "FIELDS", 1, "keep", db=db)
        for cmd in ("HTTL", "HPTTL"):
            c.add(cmd, k, "FIELDS", 4, "keep", "gone", "nope", "f4", db=db, note=note_t)
    for cmd in ("HTTL", "HPTTL", "HEXPIRETIME", "HPEXPIRETIME"):
        for a in (["FIELDS", 0], ["FIELDS", 2, "a"], ["FIELDS", 1, "a", "b"], ["FIELDS", -1, "a"],
                  ["FIELDS", "x", "a"], ["FIELD", 1, "a"], ["FIELDS"], []):
            c.add(cmd, "hash:small", *a)
        c.add(cmd, "str:plain", "FIELDS", 1, "a", note="wrong type")
        c.add(cmd, "missing", "FIELDS", 1, "a")
    for a in (["HSCAN", "hash:small", "abc"], ["HSCAN", "hash:small", 0, "COUNT", 0],
              ["HSCAN", "hash:small", 0, "NOVALUES", "x"], ["HSCAN", "missing", 0],
              ["HGET", "k"], ["HMGET", "k"], ["HLEN"], ["HEXISTS", "k"], ["HSTRLEN", "k"],
              ["HKEYS"], ["HVALS", "a", "b"], ["HGETALL"], ["HSCAN", "k"]):
        c.add(*a)
    for cmd in (["HGET", "a"], ["HMGET", "a"], ["HLEN"], ["HEXISTS", "a"], ["HSTRLEN", "a"],
                ["HKEYS"], ["HVALS"], ["HGETALL"], ["HSCAN", 0]):
        c.add(cmd[0], "str:plain", *cmd[1:], note="wrong type")
        c.add(cmd[0], "zset:small", *cmd[1:], note="wrong type")

    # ---- sorted sets.
    zsets = of_type("zset")
    for db, k in zsets + [(0, b"missing")]:
        h = hashed(db, k)
        c.add("ZCARD", k, db=db)
        for m in ("one", "phi", "a", "m7", "Palermo", "nope", "pos", "neg"):
            c.add("ZSCORE", k, m, db=db)
            c.add("ZRANK", k, m, db=db)
            c.add("ZREVRANK", k, m, db=db)
        c.add("ZRANK", k, "a", "WITHSCORE", db=db)
        c.add("ZREVRANK", k, "one", "WITHSCORE", db=db)
        c.add("ZMSCORE", k, "one", "nope", "a", "m3", "tenth", db=db)
        for lo, hi in (("-inf", "+inf"), ("(1", "5"), ("1", "(2.5"), ("0", "0"), ("5", "1"),
                       ("-100", "100"), ("(-inf", "(+inf")):
            c.add("ZCOUNT", k, lo, hi, db=db)
        c.add("ZRANGE", k, 0, -1, db=db)
        c.add("ZRANGE", k, 0, -1, "WITHSCORES", db=db)
        c.add("ZRANGE", k, 2, 5, "REV", "WITHSCORES", db=db)
        c.add("ZRANGE", k, -3, -1, db=db)
        c.add("ZRANGE", k, 5, 1, db=db)
        c.add("ZRANGE", k, "-inf", "+inf", "BYSCORE", "WITHSCORES", db=db)
        c.add("ZRANGE", k, "(1", "100", "BYSCORE", "LIMIT", 1, 3, db=db)
        c.add("ZRANGE", k, "+inf", "-inf", "BYSCORE", "REV", "LIMIT", 0, 2, "WITHSCORES", db=db)
        c.add("ZRANGE", k, 0, 100, "BYSCORE", "LIMIT", 2, -1, db=db)
        c.add("ZRANGE", k, "-", "+", "BYLEX", db=db)
        c.add("ZRANGE", k, "[b", "(f", "BYLEX", "LIMIT", 1, 2, db=db)
        c.add("ZRANGE", k, "+", "[c", "BYLEX", "REV", db=db)
        c.add("ZRANGEBYSCORE", k, "-inf", "+inf", "WITHSCORES", "LIMIT", 1, 2, db=db)
        c.add("ZRANGEBYSCORE", k, "(0", "(10", db=db)
        c.add("ZRANGEBYSCORE", k, 1, 1, "WITHSCORES", db=db)
        c.add("ZSCAN", k, 0, "COUNT", 10000, db=db, note=HASH_PAIRS if h else None)
        c.add("ZSCAN", k, 0, "MATCH", "m1*", "COUNT", 10000, db=db,
              note=HASH_PAIRS if h else None)
        if not h:
            c.add("ZSCAN", k, 0, db=db)
    for a in (["ZRANGE", "zset:small", "a", "b"], ["ZRANGE", "zset:small", 0, -1, "LIMIT", 0, 1],
              ["ZRANGE", "zset:small", "x", "y", "BYSCORE"],
              ["ZRANGE", "zset:small", "a", "b", "BYLEX"],
              ["ZRANGE", "zset:small", 0, 1, "BYSCORE", "BYLEX"],
              ["ZRANGE", "zset:small", 0, 1, "LIMIT", 1],
              ["ZRANGE", "zset:lex", "-", "+", "BYLEX", "WITHSCORES"],
              ["ZRANGE", "zset:small", 0, -1, "FOO"], ["ZCOUNT", "zset:small", "a", "1"],
              ["ZCOUNT", "zset:small", "1", "(x"], ["ZRANGEBYSCORE", "zset:small", "a", "b"],
              ["ZRANGEBYSCORE", "zset:small", 0, 1, "LIMIT", "x", 1],
              ["ZRANK", "zset:small", "one", "FOO"], ["ZSCAN", "zset:small", "x"],
              ["ZSCAN", "zset:small", 0, "COUNT", 0], ["ZSCORE", "k"], ["ZMSCORE", "k"],
              ["ZCARD"], ["ZRANK", "k"], ["ZCOUNT", "k", 1], ["ZRANGE", "k", 1],
              ["ZRANGEBYSCORE", "k", 1]):
        c.add(*a)
    for cmd in (["ZCARD"], ["ZSCORE", "a"], ["ZMSCORE", "a"], ["ZRANK", "a"], ["ZREVRANK", "a"],
                ["ZCOUNT", 0, 1], ["ZRANGE", 0, -1], ["ZRANGEBYSCORE", 0, 1], ["ZSCAN", 0]):
        c.add(cmd[0], "str:plain", *cmd[1:], note="wrong type")
        c.add(cmd[0], "set:small", *cmd[1:], note="wrong type")

    # ---- streams.
    for db, k in of_type("stream") + [(0, b"missing")]:
        c.add("XLEN", k, db=db)
        c.add("XRANGE", k, "-", "+", db=db)
        c.add("XRANGE", k, "-", "+", "COUNT", 3, db=db)
        c.add("XRANGE", k, 5, 10, db=db)
        c.add("XRANGE", k, "(5-1", "+", "COUNT", 2, db=db)
        c.add("XRANGE", k, "100-1", "100", db=db)
        c.add("XRANGE", k, "2", "4-0", db=db)
        c.add("XRANGE", k, "-", "+", "COUNT", 0, db=db)
        c.add("XREVRANGE", k, "+", "-", db=db)
        c.add("XREVRANGE", k, "+", "-", "COUNT", 2, db=db)
        c.add("XREVRANGE", k, "10", "(5", db=db)
        c.add("XINFO", "STREAM", k, db=db)
    for a in (["XRANGE", "stream:events", "a", "+"], ["XRANGE", "stream:events", "-", "+", "FOO"],
              ["XRANGE", "stream:events", "-", "+", "COUNT"],
              ["XRANGE", "stream:events", "-", "+", "COUNT", "x"],
              ["XRANGE", "stream:events", "(-", "+"], ["XREVRANGE", "stream:events", "-", "+"],
              ["XRANGE", "stream:events", "-", "+", "COUNT", -1],
              ["XINFO", "STREAM"], ["XINFO", "FOO", "stream:events"], ["XINFO"], ["XLEN"],
              ["XRANGE", "k", "-"], ["XINFO", "STREAM", "stream:events", "FOO"]):
        c.add(*a)
    for cmd in (["XLEN"], ["XRANGE", "-", "+"], ["XREVRANGE", "+", "-"]):
        c.add(cmd[0], "str:plain", *cmd[1:], note="wrong type")
        c.add(cmd[0], "list:small", *cmd[1:], note="wrong type")
    c.add("XINFO", "STREAM", "str:plain", note="wrong type")
    # ---- vector sets (where the server has them).
    vsets = of_type("vectorset")
    for db, k in vsets:
        c.add("VCARD", k, db=db)
        c.add("VDIM", k, db=db)
        c.add("VINFO", k, db=db)
        for e in ("e0", "e7", "r3", "only", "nope"):
            c.add("VISMEMBER", k, e, db=db)
            c.add("VEMB", k, e, db=db)
            c.add("VEMB", k, e, "RAW", db=db)
            c.add("VGETATTR", k, e, db=db)
            c.add("VLINKS", k, e, db=db)
            c.add("VLINKS", k, e, "WITHSCORES", db=db)
            c.add("VSIM", k, "ELE", e, "COUNT", 5, "WITHSCORES", db=db)
        first = "e0" if k != b"vset:reduce" and k != b"vset:one" else (
            "r0" if k == b"vset:reduce" else "only")
        dim = 8 if k == b"vset:reduce" else (2 if k == b"vset:one" else 3)
        q = [round(0.3 * (i + 1) - 0.7, 2) for i in range(dim)]
        c.add("VSIM", k, "VALUES", dim, *q, db=db)
        c.add("VSIM", k, "VALUES", dim, *q, "COUNT", 20, "WITHSCORES", db=db)
        c.add("VSIM", k, "VALUES", dim, *q, "COUNT", 7, "EF", 200, "WITHSCORES", db=db)
        c.add("VSIM", k, "VALUES", dim, *q, "COUNT", 100, "TRUTH", "WITHSCORES", db=db)
        c.add("VSIM", k, "VALUES", dim, *q, "COUNT", 10, "NOTHREAD", db=db)
        c.add("VSIM", k, "VALUES", dim, *q, "COUNT", 10, "EPSILON", 0.5, "WITHSCORES", db=db)
        c.add("VSIM", k, "ELE", first, "FILTER", ".year > 1990 and .year < 2020",
              "COUNT", 10, "WITHSCORES", db=db)
        c.add("VSIM", k, "ELE", first, "FILTER", '.name == "e5" or !(.year >= 2000)',
              "FILTER-EF", 500, db=db)
        c.add("VSIM", k, "ELE", first, "WITHATTRIBS", db=db, note="WITHATTRIBS: after 8.0")
        c.add("VRANDMEMBER", k, 0, db=db)
    if vsets:
        for a in (["VCARD"], ["VCARD", "missing"], ["VDIM", "missing"], ["VINFO", "missing"],
                  ["VEMB", "missing", "a"], ["VGETATTR", "missing", "a"],
                  ["VISMEMBER", "missing", "a"], ["VLINKS", "missing", "a"],
                  ["VSIM", "missing", "ELE", "a"], ["VRANDMEMBER", "missing"],
                  ["VRANDMEMBER", "missing", 3], ["VSIM", "vset:q8", "ELE"],
                  ["VSIM", "vset:q8", "VALUES", 2, 1, 0], ["VSIM", "vset:q8", "VALUES", 3, 1, 0],
                  ["VSIM", "vset:q8", "ELE", "e0", "COUNT", 0],
                  ["VSIM", "vset:q8", "ELE", "e0", "COUNT", "x"],
                  ["VSIM", "vset:q8", "ELE", "e0", "EF", 0],
                  ["VSIM", "vset:q8", "ELE", "e0", "FILTER", ".year >"],
                  ["VSIM", "vset:q8", "ELE", "e0", "FOO"],
                  ["VSIM", "vset:q8", "FP32", "abc"], ["VEMB", "vset:q8"],
                  ["VLINKS", "vset:q8", "e0", "FOO"]):
            c.add(*a)
        for cmd in (["VCARD"], ["VDIM"], ["VINFO"], ["VEMB", "a"], ["VSIM", "ELE", "a"]):
            c.add(cmd[0], "str:plain", *cmd[1:], note="wrong type")
    return c


def build_bloom_cases(inv):
    c = Cases()
    keys = [k for k, _, _ in inv[0]] + [b"missing"]
    for k in keys:
        c.add("TYPE", k)
        c.add("EXISTS", k)
        c.add("OBJECT", "ENCODING", k)
    c.add("DBSIZE")
    c.add("KEYS", "*", note=HASH_ORDER)
    items = ["item1", "item49", "item50", "user7", "user299", "only", "c3", "unique", "nope"]
    for k in ("bf:small", "bf:scaling", "bf:default", "missing", "str:plain", "cf:small"):
        for it in items:
            c.add("BF.EXISTS", k, it)
        c.add("BF.MEXISTS", k, *items)
        c.add("BF.CARD", k)
        c.add("BF.INFO", k)
        for f in ("CAPACITY", "SIZE", "FILTERS", "ITEMS", "EXPANSION", "FOO"):
            c.add("BF.INFO", k, f)
    for k in ("cf:small", "missing", "str:plain", "bf:small"):
        for it in ("c1", "c29", "unique", "nope"):
            c.add("CF.EXISTS", k, it)
            c.add("CF.COUNT", k, it)
        c.add("CF.MEXISTS", k, "c1", "c2", "nope", "unique")
        c.add("CF.INFO", k)
    for k in ("cms:dim", "cms:prob", "missing", "str:plain", "topk:k5"):
        c.add("CMS.QUERY", k, "w1", "w5", "a", "b", "nope")
        c.add("CMS.INFO", k)
    for k in ("topk:k5", "missing", "str:plain", "cms:dim"):
        c.add("TOPK.QUERY", k, "w1", "w2", "w30", "nope")
        c.add("TOPK.LIST", k)
        c.add("TOPK.LIST", k, "WITHCOUNT")
        c.add("TOPK.INFO", k)
    c.add("TOPK.COUNT", "topk:k5", "w1", "w2")
    for k in ("td:lat", "td:empty", "td:small", "missing", "str:plain"):
        c.add("TDIGEST.INFO", k)
        c.add("TDIGEST.MIN", k)
        c.add("TDIGEST.MAX", k)
        c.add("TDIGEST.QUANTILE", k, 0, 0.1, 0.5, 0.9, 0.99, 1)
        c.add("TDIGEST.CDF", k, 0, 5, 20, 1000)
        c.add("TDIGEST.RANK", k, 0, 5, 20, 1000)
        c.add("TDIGEST.REVRANK", k, 0, 5, 20, 1000)
        c.add("TDIGEST.BYRANK", k, 0, 1, 3, 100, 10000)
        c.add("TDIGEST.BYREVRANK", k, 0, 1, 3, 100, 10000)
        c.add("TDIGEST.TRIMMED_MEAN", k, 0.1, 0.9)
    for a in (["BF.EXISTS", "bf:small"], ["BF.MEXISTS", "bf:small"], ["BF.INFO"],
              ["CF.EXISTS", "cf:small"], ["CMS.QUERY", "cms:dim"], ["TOPK.LIST", "topk:k5", "X"],
              ["TDIGEST.QUANTILE", "td:lat", "x"], ["TDIGEST.QUANTILE", "td:lat", 2],
              ["TDIGEST.TRIMMED_MEAN", "td:lat", 0.9, 0.1], ["TDIGEST.BYRANK", "td:lat", -1],
              ["TDIGEST.CDF", "td:lat"]):
        c.add(*a)
    return c


# ---------------------------------------------------------------- recording

def argv_json(argv):
    try:
        return {"argv": [a.decode("utf-8") for a in argv]}
    except UnicodeDecodeError:
        return {"argv": [a.decode("utf-8", "replace") for a in argv],
                "argv_hex": [a.hex() for a in argv]}


def resp_items(b, i=0):
    """(end, element byte strings or None) of the RESP2 value at `i` of `b`."""
    j = b.index(b"\r\n", i) + 2
    t, n = b[i:i + 1], b[i + 1:j - 2]
    if t == b"$":
        return (j + int(n) + 2 if int(n) >= 0 else j), None
    if t == b"*":
        items, k = [], j
        for _ in range(max(int(n), 0)):
            e, _ = resp_items(b, k)
            items.append(b[k:e])
            k = e
        return k, items
    return j, None


def comparable(resp, note, argv):
    """A reply as a runner compares it: its bytes, or, for an "order: hash table" case, the
    multiset of its elements (of pairs, for "(pairs)"; of the second element for *SCAN)."""
    if not note or HASH_ORDER not in note:
        return resp
    k = 2 if note == HASH_PAIRS else 1
    _, items = resp_items(resp)
    head = b""
    if items is not None and argv[0].upper().endswith(b"SCAN") and len(items) == 2:
        head = items[0]
        _, items = resp_items(items[1])
    if items is None:
        return resp
    return head, tuple(sorted(b"".join(items[i:i + k]) for i in range(0, len(items), k)))


def record_cases(srv, twin, cases, folder):
    """Runs every case on `srv` (RESP bytes and cli output) and, as a determinism check, on
    `twin`, a second process that loaded the same file (its hash-table seed differs). A case
    whose replies differ even as compared (see comparable()) depends on the hash table (a
    partial SCAN, say) and is left out; one that differs only in order but is not marked
    "order: hash table" is a recorder bug and stops the recording."""
    conns = {}

    def conn(server, db):
        if (server.port, db) not in conns:
            c = Conn(server.port)
            if db:
                assert c.raw("SELECT", db) == b"+OK\r\n"
            conns[(server.port, db)] = c
        return conns[(server.port, db)]

    def query(server, db, argv):
        if argv[0] == b"SELECT":
            one = Conn(server.port)
            resp = one.raw(*argv)
            one.close()
            return resp
        return conn(server, db).raw(*argv)

    lines, dropped, unmarked = [], [], []
    for n, (argv, db, note) in enumerate(cases.items):
        resp = query(srv, db, argv)
        again = query(twin, db, argv)
        if comparable(resp, note, argv) != comparable(again, note, argv):
            dropped.append(argv)
            continue
        if resp != again and not note:
            unmarked.append(argv)
        cli = srv.cli(db, argv)
        cid = "%s/%05d" % (folder, n)
        case = {"id": cid, "group": cid}
        if db:
            case["db"] = db
        case.update(argv_json(argv))
        case["reply"] = parse(resp, 0)[0]
        case.update(text_or_hex(resp, "resp"))
        case.update(text_or_hex(cli, "redis_cli"))
        if note:
            case["note"] = note
        lines.append(json.dumps(case, ensure_ascii=False, separators=(",", ":")))
    for c in conns.values():
        c.close()
    for argv in dropped:
        print("  left out (depends on the hash table): %r" % b" ".join(argv)[:120])
    if unmarked:
        raise RuntimeError("replies in hash-table order not marked: %r" % unmarked[:5])
    return lines


def keys_tsv(r, inv, pexpiretime):
    rows = ["key\ttype\tencoding\tlength\tpexpiretime_ms\tdb"]
    length_cmd = {"string": "STRLEN", "list": "LLEN", "set": "SCARD", "zset": "ZCARD",
                  "hash": "HLEN", "stream": "XLEN"}
    for db, ks in inv.items():
        r("SELECT", db)
        for k, t, e in ks:
            n = r(length_cmd[t], k) if t in length_cmd else ""
            rows.append("%s\t%s\t%s\t%s\t%s\t%d" % (urllib.parse.quote(k, safe=""), t, e, n,
                                                   pexpiretime.get((db, k), -1), db))
    r("SELECT", 0)
    return rows


def record(name, entry, bloom_module=None):
    folder = os.path.join(OUT, name)
    extra = ["--loadmodule", bloom_module] if bloom_module else []
    if not name.startswith("redis-6"):
        extra += ["--enable-debug-command", "yes"]
    rng = random.Random(SEED)
    d = tempfile.mkdtemp(prefix="bitlens-conf-")
    try:
        srv = Server(entry, d, extra)
        try:
            r = srv.conn
            r("DEBUG", "SET-ACTIVE-EXPIRE", 0)
            gone = (populate_bloom if bloom_module else populate)(r, rng)
            # Absolute expiries, read before SAVE (6.x has no PEXPIRETIME: the PEXPIREAT values
            # written above are used; the expired keys are not listed in keys.tsv).
            pexp = {}
            if not bloom_module:
                pexp = {(0, b"exp:far:str"): FAR_MS, (0, b"exp:far:set"): FAR_MS + 60000,
                        (1, b"db1:key"): FAR_MS + 1}
            time.sleep(1.2)  # PEXPIRE 1 keys are then expired also at the file's ctime (s)
            assert r("SAVE") == {"status": "OK"}
            rdb = open(os.path.join(d, "dump.rdb"), "rb").read()
        finally:
            srv.stop()
        extra = [a for a in extra if a not in ("--enable-debug-command", "yes")]
        srv = Server(entry, d, extra)  # loads dump.rdb from --dir
        d2 = tempfile.mkdtemp(prefix="bitlens-conf-twin-")
        shutil.copy(os.path.join(d, "dump.rdb"), d2)
        try:
            twin = Server(entry, d2, extra)
        except Exception:
            srv.stop()
            raise
        try:
            r = srv.conn
            info = bulk_text(r("INFO", "server")).decode()
            fields = dict(l.split(":", 1) for l in info.split("\r\n") if ":" in l)
            version = fields.get("valkey_version", fields["redis_version"])
            inv = inventory(r)
            cases = build_bloom_cases(inv) if bloom_module else build_cases(inv, gone)
            lines = record_cases(srv, twin, cases, name)
            tsv = keys_tsv(r, inv, pexp)
            config = {}
            for p in ("rdbchecksum", "rdbcompression", "sanitize-dump-payload",
                      "set-max-intset-entries", "set-max-listpack-entries",
                      "hash-max-listpack-entries", "hash-max-ziplist-entries",
                      "zset-max-listpack-entries", "zset-max-ziplist-entries",
                      "list-max-listpack-size", "list-max-ziplist-size", "hll-sparse-max-bytes"):
                v = r("CONFIG", "GET", p)
                if v:
                    config[p] = bulk_text(v[1]).decode()
        finally:
            srv.stop()
            twin.stop()
            shutil.rmtree(d2, ignore_errors=True)
    finally:
        shutil.rmtree(d, ignore_errors=True)
    if os.path.isdir(folder):
        shutil.rmtree(folder)
    os.makedirs(folder)
    with open(os.path.join(folder, "dump.rdb"), "wb") as f:
        f.write(rdb)
    with open(os.path.join(folder, "cases.jsonl"), "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.join(folder, "keys.tsv"), "w") as f:
        f.write("\n".join(tsv) + "\n")
    with open(os.path.join(folder, "VERSION"), "w") as f:
        f.write(version + "\n")
    with open(os.path.join(folder, "server_config.json"), "w") as f:
        json.dump({"server": name, "version": version, "rdb_magic": rdb[:9].decode(),
                   "modules": ["redisbloom 2.8.2"] if bloom_module else [],
                   "config": config, "seed": SEED,
                   "redis_cli_cmd": [os.path.basename(entry["cli"]), "-h", "127.0.0.1", "-p",
                                     "<PORT>", "-n", "<DB>", "<argv...>"],
                   "cli_version": subprocess.run([entry["cli"], "--version"], env=srv.env,
                                                 capture_output=True).stdout.decode().strip()},
                  f, indent=1, sort_keys=True)
        f.write("\n")
    with open(os.path.join(folder, "README.md"), "w") as f:
        f.write("# Cases recorded from %s\n\n" % name +
                "Written by `scripts/record-conformance.py` (its header describes the data set, "
                "the recording and the two additions to `../shared/conformance/README.md`'s "
                "format: a `db` field and the `order: hash table` note). Re-run with\n"
                "`BITLENS_SERVERS_DIR=/work/servers scripts/record-conformance.py %s`.\n" % name)
    print("%s: %s, %d bytes, %d keys, %d cases" % (name, rdb[:9].decode(), len(rdb),
                                                    len(tsv) - 1, len(lines)))


def main():
    m = manifest()
    want = sys.argv[1:] or sorted(m["servers"]) + [BLOOM]
    for name in want:
        if name == BLOOM:
            record(name, m["servers"]["redis-7.4.1"], m["modules"]["redisbloom"]["path"])
        else:
            record(name, m["servers"][name])


if __name__ == "__main__":
    main()
