"""redis-py on the recorded conformance files of every server.

For each server of the matrix with a recording (``tests/data/conformance/<server>/``), the
server that wrote ``dump.rdb`` loads it at start-up, and bitlens opens the same file. Every
recorded case (``cases.jsonl``: the commands, in their databases) then runs through redis-py
against the server and against bitlens, three ways, and the results must be equal:

- ``Snapshot.command(*argv, resp=2)`` and ``resp=3`` against redis-py's raw parser on
  ``protocol=2`` and ``protocol=3`` (response callbacks cleared: the values redis-py's
  parser gives, maps as dicts, doubles as floats, sets as lists);
- ``bitlens.redis(path, protocol=...)`` against ``redis.Redis(protocol=...)``, both with
  redis-py's own callbacks (``execute_command``), errors compared by class and text.

Errors are compared by text without redis-py's stripped ``ERR`` prefix. Cases whose reply
the server gives in its hash-table order (the recording's ``order: hash table`` note) are
compared as multisets. SELECT cases (which change the connection) are left out.
"""

import json
import os
import shutil
import subprocess
import tempfile
import time

import pytest

redis = pytest.importorskip("redis")

import bitlens  # noqa: E402
from conftest import CONFORMANCE, SERVERS  # noqa: E402
from test_resp_redis_py import free_port, manifest  # noqa: E402


class Loaded:
    """A real server that loaded `rdb` at start-up."""

    def __init__(self, entry, rdb):
        self.dir = tempfile.mkdtemp(prefix="bitlens-conf-")
        shutil.copy(rdb, os.path.join(self.dir, "dump.rdb"))
        self.port = free_port()
        env = dict(os.environ, **(entry.get("env") or {}))
        self.proc = subprocess.Popen(
            [entry["server"], "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--dir", self.dir, "--dbfilename", "dump.rdb"],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        deadline = time.time() + 20
        while True:
            try:
                if redis.Redis(port=self.port, protocol=2).ping():
                    return
            except (redis.exceptions.ConnectionError, redis.exceptions.BusyLoadingError):
                pass
            if time.time() > deadline:
                raise TimeoutError(f"{entry['server']} did not start")
            time.sleep(0.05)

    def stop(self):
        self.proc.kill()
        self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


def cases(server):
    """(db, argv as bytes, note) of every recorded case but SELECT."""
    out = []
    for line in (CONFORMANCE / server / "cases.jsonl").read_text().splitlines():
        if not line.strip():
            continue
        c = json.loads(line)
        if "argv_hex" in c:
            argv = [bytes.fromhex(a) for a in c["argv_hex"]]
        else:
            argv = [a.encode() for a in c["argv"]]
        if argv[0].upper() == b"SELECT":
            continue
        out.append((c.get("db", 0), argv, c.get("note") or ""))
    return out


def text_of(e):
    """An error's text without the ``ERR `` prefix redis-py strips."""
    t = str(e)
    return t[4:] if t.startswith("ERR ") else t


def outcome(call):
    """The call's value, or ("error", class name for redis-py's classes, text)."""
    try:
        return call()
    except bitlens.ReplyError as e:
        return ("error", text_of(e))
    except redis.exceptions.ResponseError as e:
        return ("error", text_of(e))


def unordered(v):
    """A value with its lists (and sets and dicts' items) sorted, recursively."""
    if isinstance(v, (list, tuple, set)):
        return sorted((unordered(x) for x in v), key=repr)
    if isinstance(v, dict):
        return sorted(((unordered(k), unordered(x)) for k, x in v.items()), key=repr)
    return v


def raw_client(port, db, protocol):
    r = redis.Redis(port=port, db=db, protocol=protocol)
    r.response_callbacks.clear()
    return r


SERVERS_HERE = [s for s in SERVERS if s in manifest() and (CONFORMANCE / s / "dump.rdb").exists()]


@pytest.fixture(scope="module", params=SERVERS_HERE)
def loaded(request):
    server = request.param
    rdb = CONFORMANCE / server / "dump.rdb"
    real = Loaded(manifest()[server], rdb)
    yield server, rdb, real
    real.stop()


@pytest.mark.parametrize("protocol", [2, 3])
def test_command_equals_redis_py_parser(loaded, protocol):
    server, rdb, real = loaded
    snap = bitlens.open(rdb)
    clients = {}
    diffs, n = [], 0
    for db, argv, note in cases(server):
        r = clients.setdefault(db, raw_client(real.port, db, protocol))
        snap.command("SELECT", db)
        want = outcome(lambda: r.execute_command(*argv))
        got = outcome(lambda: snap.command(*argv, resp=protocol))
        if "order: hash table" in note:
            want, got = unordered(want), unordered(got)
        n += 1
        if want != got:
            diffs.append(f"db {db} {argv!r}:\n  server:  {want!r}\n  bitlens: {got!r}")
    print(f"{server} RESP{protocol}: {n - len(diffs)}/{n} cases equal")
    assert not diffs, f"{server} RESP{protocol}: {len(diffs)} of {n} differ:\n" + "\n".join(diffs[:20])


@pytest.mark.parametrize("protocol", [2, 3])
def test_bitlens_redis_equals_server(loaded, protocol):
    server, rdb, real = loaded
    diffs, n = [], 0
    by_db = {}
    for db, argv, note in cases(server):
        by_db.setdefault(db, []).append((argv, note))
    for db, items in sorted(by_db.items()):
        theirs = redis.Redis(port=real.port, db=db, protocol=protocol)
        ours = bitlens.redis(rdb, protocol=protocol, db=db)
        for argv, note in items:
            want = outcome(lambda: theirs.execute_command(*argv))
            got = outcome(lambda: ours.execute_command(*argv))
            if "order: hash table" in note:
                want, got = unordered(want), unordered(got)
            n += 1
            if want != got:
                diffs.append(f"db {db} {argv!r}:\n  server:  {want!r}\n  bitlens: {got!r}")
        ours.close()
    print(f"{server} redis-py RESP{protocol}: {n - len(diffs)}/{n} cases equal")
    assert not diffs, f"{server} RESP{protocol}: {len(diffs)} of {n} differ:\n" + "\n".join(diffs[:20])
