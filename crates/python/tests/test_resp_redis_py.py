"""redis-py against `bitlens resp`: the same results as against the Redis that wrote the file.

Each server of the matrix (the manifest of scripts/servers.sh) is filled with keys of every
type through redis-py, SAVEs, and becomes a read-only replica of an unreachable master (it keeps
its data and refuses writes, which is what `bitlens resp` stands for). `bitlens resp` serves the
saved file. Every read method below is then called through redis-py on both, with
``protocol=2`` and ``protocol=3`` (redis-py's own reply parsing and callbacks, dicts, sets,
floats), and the results, or the exception class and text, must be equal. Writes must raise
redis-py's ``ReadOnlyError`` on both. Orders that come from a server's randomly seeded hash
table (HKEYS, HVALS, KEYS of a hash table) are compared sorted.
"""

import json
import os
import pathlib
import shutil
import socket
import subprocess
import tempfile
import time

import pytest

redis = pytest.importorskip("redis")

from conftest import REPO, bitlens_bin  # noqa: E402


def manifest():
    """The servers of scripts/servers.sh's manifest (none when it is missing: the tests are
    then reported as skipped with an empty parameter set)."""
    d = pathlib.Path(os.environ.get("BITLENS_SERVERS_DIR", REPO / ".servers"))
    p = d / "servers.json"
    if not p.exists():
        return {}
    return json.loads(p.read_text())["servers"]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """A real server of the manifest, started in a temporary folder."""

    def __init__(self, entry):
        self.dir = tempfile.mkdtemp(prefix="bitlens-redispy-")
        self.port = free_port()
        env = dict(os.environ, **(entry.get("env") or {}))
        self.proc = subprocess.Popen(
            [entry["server"], "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--dir", self.dir],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        deadline = time.time() + 20
        while True:
            try:
                redis.Redis(port=self.port, protocol=2).ping()
                return
            except redis.exceptions.ConnectionError:
                if time.time() > deadline:
                    raise
                time.sleep(0.05)

    def stop(self):
        self.proc.kill()
        self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


class Resp:
    """`bitlens resp FILE --bind 127.0.0.1:0`."""

    def __init__(self, path):
        self.proc = subprocess.Popen(
            [bitlens_bin(), "resp", str(path), "--bind", "127.0.0.1:0"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        )
        line = self.proc.stdout.readline().strip()
        assert line.startswith("listening on 127.0.0.1:"), line
        self.port = int(line.rsplit(":", 1)[1])

    def stop(self):
        self.proc.kill()
        self.proc.wait()


def fill(r):
    r.set("s:plain", "hello")
    r.set("s:int", 12345)
    r.set("s:ttl", "v", ex=100000)
    r.setbit("b:days", 7, 1)
    r.setbit("b:days", 100, 1)
    r.pfadd("h:uv", *"abcde")
    r.hset("hs:small", mapping={"f1": "v1", "f2": "v2"})
    r.hset("hs:big", mapping={f"f{i}": "x" * (i % 70) for i in range(200)})
    r.rpush("l:small", "a", "b", "c", "b")
    r.rpush("l:big", *[f"item:{i}" for i in range(300)])
    r.sadd("st:int", 1, 2, 3)
    r.sadd("st:small", "x", "y")
    r.sadd("st:big", *[f"member:{i}" for i in range(200)])
    r.zadd("z:small", {"a": 1, "b": 2.5, "c": 3})
    r.zadd("z:big", {f"m{i}": i / 8 for i in range(200)})
    r.geoadd("g:shops", [13.361389, 38.115556, "palermo", 15.087269, 37.502669, "catania"])
    r.xadd("x:s", {"k": "v"}, id="1-1")
    r.xadd("x:s", {"k": "w"}, id="2-1")
    r.xgroup_create("x:s", "grp", id="0")
    r.xreadgroup("grp", "alice", {"x:s": ">"}, count=1)
    r.execute_command("SELECT", 3)
    r.set("other:k", "in-db-3")
    r.execute_command("SELECT", 0)


# name, call, sorted: whether the result's order is a hash table's.
READS = [
    ("ping", lambda r: r.ping(), False),
    ("echo", lambda r: r.echo("hi"), False),
    ("get", lambda r: r.get("s:plain"), False),
    ("get missing", lambda r: r.get("nosuch"), False),
    ("get wrongtype", lambda r: r.get("hs:small"), False),
    ("strlen", lambda r: r.strlen("s:int"), False),
    ("getrange", lambda r: r.getrange("s:plain", 1, 3), False),
    ("getbit", lambda r: r.getbit("b:days", 7), False),
    ("bitcount", lambda r: r.bitcount("b:days"), False),
    ("bitcount range", lambda r: r.bitcount("b:days", 0, 1), False),
    ("bitpos", lambda r: r.bitpos("b:days", 1), False),
    ("bitfield_ro", lambda r: r.bitfield_ro("b:days", "u8", 0), False),
    ("pfcount", lambda r: r.pfcount("h:uv"), False),
    ("hget", lambda r: r.hget("hs:small", "f2"), False),
    ("hmget", lambda r: r.hmget("hs:small", ["f1", "nosuch"]), False),
    ("hgetall small", lambda r: r.hgetall("hs:small"), False),
    ("hgetall big", lambda r: r.hgetall("hs:big"), False),
    ("hkeys", lambda r: r.hkeys("hs:big"), True),
    ("hvals", lambda r: r.hvals("hs:big"), True),
    ("hlen", lambda r: r.hlen("hs:big"), False),
    ("hexists", lambda r: r.hexists("hs:small", "f1"), False),
    ("hstrlen", lambda r: r.hstrlen("hs:small", "f1"), False),
    ("lrange", lambda r: r.lrange("l:big", 0, -1), False),
    ("llen", lambda r: r.llen("l:small"), False),
    ("lindex", lambda r: r.lindex("l:big", 150), False),
    ("lpos", lambda r: r.lpos("l:small", "b"), False),
    ("lpos count", lambda r: r.lpos("l:small", "b", count=0), False),
    ("smembers", lambda r: r.smembers("st:big"), False),
    ("sismember", lambda r: r.sismember("st:int", 2), False),
    ("smismember", lambda r: r.smismember("st:int", [1, 9]), False),
    ("scard", lambda r: r.scard("st:big"), False),
    ("sinter", lambda r: r.sinter("st:int", "st:int"), False),
    ("sunion", lambda r: r.sunion("st:small", "st:int"), False),
    ("sdiff", lambda r: r.sdiff("st:big", "st:small"), False),
    ("sintercard", lambda r: r.sintercard(2, ["st:int", "st:int"]), False),
    ("zrange", lambda r: r.zrange("z:big", 0, -1), False),
    ("zrange withscores", lambda r: r.zrange("z:small", 0, -1, withscores=True), False),
    ("zrangebyscore", lambda r: r.zrangebyscore("z:big", 1, 2, withscores=True), False),
    ("zscore", lambda r: r.zscore("z:small", "b"), False),
    ("zscore missing", lambda r: r.zscore("z:small", "nosuch"), False),
    ("zmscore", lambda r: r.zmscore("z:small", ["a", "nosuch"]), False),
    ("zcard", lambda r: r.zcard("z:big"), False),
    ("zcount", lambda r: r.zcount("z:big", 1, 5), False),
    ("zrank", lambda r: r.zrank("z:big", "m7"), False),
    ("zrank withscore", lambda r: r.zrank("z:big", "m7", withscore=True), False),
    ("zrevrank", lambda r: r.zrevrank("z:big", "m7"), False),
    ("geopos", lambda r: r.geopos("g:shops", "palermo", "nosuch"), False),
    ("geodist", lambda r: r.geodist("g:shops", "palermo", "catania", unit="km"), False),
    ("geohash", lambda r: r.geohash("g:shops", "palermo"), False),
    ("geosearch", lambda r: r.geosearch("g:shops", longitude=15, latitude=37, radius=200,
                                        unit="km", sort="ASC", withcoord=True, withdist=True,
                                        withhash=True), False),
    ("xlen", lambda r: r.xlen("x:s"), False),
    ("xrange", lambda r: r.xrange("x:s"), False),
    ("xrevrange", lambda r: r.xrevrange("x:s"), False),
    ("xinfo_stream", lambda r: r.xinfo_stream("x:s"), False),
    ("xinfo_stream full", lambda r: r.xinfo_stream("x:s", full=True), False),
    ("xinfo_groups", lambda r: r.xinfo_groups("x:s"), False),
    ("type", lambda r: r.type("z:big"), False),
    ("exists", lambda r: r.exists("s:plain", "nosuch", "hs:small"), False),
    ("expiretime", lambda r: r.expiretime("s:ttl"), False),
    ("object encoding", lambda r: r.object("encoding", "st:int"), False),
    ("dbsize", lambda r: r.dbsize(), False),
    ("keys", lambda r: r.keys("s:*"), True),
    ("unknown command", lambda r: r.execute_command("NOSUCHCOMMAND", "a"), False),
    ("mget", lambda r: r.mget(["s:plain", "nosuch", "s:int"]), False),
    ("zrevrange", lambda r: r.zrevrange("z:big", 0, 9, withscores=True), False),
    ("zrevrangebyscore", lambda r: r.zrevrangebyscore("z:big", 5, 1, withscores=True), False),
    ("zrangebylex", lambda r: r.zrangebylex("z:small", "-", "+"), False),
    ("zlexcount", lambda r: r.zlexcount("z:small", "-", "+"), False),
    ("zunion", lambda r: r.zunion(["z:small", "z:big"], withscores=True), False),
    ("zinter", lambda r: r.zinter(["z:small", "z:small"], withscores=True), False),
    ("zdiff", lambda r: r.zdiff(["z:big", "z:small"]), False),
    ("lcs", lambda r: r.lcs("s:plain", "s:int"), False),
    ("sort_ro", lambda r: r.sort_ro("l:small", alpha=True), False),
    ("xpending", lambda r: r.xpending("x:s", "grp")["pending"], False),
    ("xread", lambda r: r.xread({"x:s": "0"}), False),
    ("srandmember size", lambda r: len(r.srandmember("st:big", 5)), False),
]

WRITES = [
    ("set", lambda r: r.set("a", "b")),
    ("delete", lambda r: r.delete("s:plain")),
    ("setbit", lambda r: r.setbit("b:days", 1, 1)),
    ("pfadd", lambda r: r.pfadd("h:uv", "z")),
    ("hset", lambda r: r.hset("hs:small", "f", "v")),
    ("zadd", lambda r: r.zadd("z:small", {"q": 1})),
    ("xadd", lambda r: r.xadd("x:s", {"a": "b"})),
    ("expire", lambda r: r.expire("s:plain", 10)),
    ("flushall", lambda r: r.flushall()),
]


def outcome(call, r, unordered):
    try:
        v = call(r)
    except redis.exceptions.RedisError as e:
        return ("error", type(e).__name__, str(e))
    if unordered and isinstance(v, list):
        v = sorted(v)
    return ("ok", v)


@pytest.fixture(scope="module", params=sorted(manifest()))
def pair(request):
    """(name, the server's port, bitlens resp's port, the saved file)."""
    entry = manifest()[request.param]
    server = Server(entry)
    try:
        fill(redis.Redis(port=server.port, protocol=2))
        redis.Redis(port=server.port, protocol=2).save()
        rdb = pathlib.Path(server.dir) / "dump.rdb"
        saved = pathlib.Path(tempfile.mkdtemp(prefix="bitlens-redispy-rdb-")) / "dump.rdb"
        shutil.copy(rdb, saved)
        redis.Redis(port=server.port, protocol=2).replicaof("127.0.0.1", 1)
        ours = Resp(saved)
        try:
            yield request.param, server.port, ours.port, saved
        finally:
            ours.stop()
            shutil.rmtree(saved.parent, ignore_errors=True)
    finally:
        server.stop()


@pytest.mark.parametrize("protocol", [2, 3])
def test_reads_match(pair, protocol):
    name, real_port, our_port, _ = pair
    real = redis.Redis(port=real_port, protocol=protocol)
    ours = redis.Redis(port=our_port, protocol=protocol)
    diffs = []
    for label, call, unordered in READS:
        want, got = outcome(call, real, unordered), outcome(call, ours, unordered)
        if want != got:
            diffs.append(f"{name} RESP{protocol} {label}:\n  server:  {want!r}\n  bitlens: {got!r}")
    assert not diffs, "\n".join(diffs)


@pytest.mark.parametrize("protocol", [2, 3])
def test_writes_are_refused(pair, protocol):
    name, real_port, our_port, _ = pair
    real = redis.Redis(port=real_port, protocol=protocol)
    ours = redis.Redis(port=our_port, protocol=protocol)
    for label, call in WRITES:
        want, got = outcome(call, real, False), outcome(call, ours, False)
        assert want == got, f"{name} RESP{protocol} {label}: {want!r} vs {got!r}"
        assert got[:2] == ("error", "ReadOnlyError"), f"{name} {label}: {got!r}"


@pytest.mark.parametrize("protocol", [2, 3])
def test_databases_and_pipelines(pair, protocol):
    name, real_port, our_port, _ = pair
    results = []
    for port in (real_port, our_port):
        r = redis.Redis(port=port, protocol=protocol, db=3)
        pipe = r.pipeline(transaction=False)
        pipe.get("other:k").dbsize().get("s:plain")
        tx = r.pipeline(transaction=True)
        tx.get("other:k").exists("other:k")
        results.append((pipe.execute(), tx.execute()))
    assert results[0] == results[1], f"{name} RESP{protocol}: {results!r}"


@pytest.mark.parametrize("protocol", [2, 3])
def test_in_process_client(pair, protocol):
    """``bitlens.redis(file)``: the same server in-process (a socket pair, no port), through
    redis-py's own connection stack."""
    bitlens = pytest.importorskip("bitlens")
    name, real_port, _, saved = pair
    real = redis.Redis(port=real_port, protocol=protocol)
    ours = bitlens.redis(saved, protocol=protocol)
    diffs = []
    for label, call, unordered in READS:
        want, got = outcome(call, real, unordered), outcome(call, ours, unordered)
        if want != got:
            diffs.append(f"{name} RESP{protocol} {label}:\n  server:  {want!r}\n  bitlens: {got!r}")
    for label, call in WRITES:
        got = outcome(call, ours, False)
        if got[:2] != ("error", "ReadOnlyError"):
            diffs.append(f"{name} RESP{protocol} {label}: {got!r}")
    three = bitlens.redis(saved, protocol=protocol, db=3)
    if three.get("other:k") != b"in-db-3":
        diffs.append(f"{name}: db=3 {three.get('other:k')!r}")
    assert not diffs, "\n".join(diffs)
