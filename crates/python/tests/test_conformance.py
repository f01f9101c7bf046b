"""Every recorded conformance case of Redis 7.4.1 replayed through Snapshot.command() and
compared with the value redis-py's own RESP2 parser gives for the recorded reply bytes (no
response callbacks, no decoding), errors as bitlens.ReplyError with the server's text."""

import json
import socket

import pytest

import bitlens
from conftest import CONFORMANCE

from redis._parsers import Encoder, _RESP2Parser
from redis.exceptions import ResponseError


class _Conn:
    """The little of a redis-py connection its parser reads."""

    def __init__(self, sock):
        self._sock = sock
        self.socket_timeout = 5
        self.encoder = Encoder("utf-8", "strict", False)


class RedisPyParser:
    """redis-py's RESP2 parser reading the recorded bytes from a socket pair."""

    def __init__(self):
        self.a, self.b = socket.socketpair()
        self.p = _RESP2Parser(socket_read_size=65536)
        self.p.on_connect(_Conn(self.b))

    def parse(self, resp):
        self.a.sendall(resp)
        return self.p.read_response()


def _norm(v):
    """redis-py's value with its error instances as (class, text) for comparison."""
    if isinstance(v, list):
        return [_norm(x) for x in v]
    if isinstance(v, BaseException):
        return ("error", str(v))
    return v


def _norm_ours(v):
    if isinstance(v, list):
        return [_norm_ours(x) for x in v]
    if isinstance(v, bitlens.ReplyError):
        return ("error", str(v))
    return v


def _cases(server):
    for line in (CONFORMANCE / server / "cases.jsonl").read_text().splitlines():
        if line.strip():
            yield json.loads(line)


def _argv(case):
    if "argv_hex" in case:
        return [bytes.fromhex(h) for h in case["argv_hex"]]
    return [a.encode() for a in case["argv"]]


def _resp(case):
    if "resp_hex" in case:
        return bytes.fromhex(case["resp_hex"])
    return case["resp"].encode()


def _unordered(v, k, scan):
    """A reply in hash-table order as the multiset of its elements, `k` at a time (the
    array after the cursor for *SCAN), as tests/server_conformance.rs compares them."""
    items, head = v, None
    if scan and isinstance(v, list) and len(v) == 2:
        head, items = v[0], v[1]
    if not isinstance(items, list) or len(items) % k:
        return v
    chunks = sorted((repr(items[i : i + k]) for i in range(0, len(items), k)))
    return (head, chunks)


def test_every_redis_7_4_1_case_through_command():
    server = "redis-7.4.1"
    snap = bitlens.open(CONFORMANCE / server / "dump.rdb")
    parser = RedisPyParser()
    passed, failures = 0, []
    for case in _cases(server):
        argv = _argv(case)
        resp = _resp(case)
        want = parser.parse(resp)
        # The case's database, selected as redis-py's `db=` does.
        assert snap.command("SELECT", case.get("db", 0)) == b"OK"
        try:
            got = snap.command(*argv)
        except bitlens.ReplyError as e:
            # A top-level error: redis-py returns the ResponseError (execute_command raises
            # it); its text drops a leading "ERR " (redis-py's parse_error), ours keeps the
            # server's whole line.
            ok = isinstance(want, ResponseError) and resp.startswith(b"-") and (
                str(e).encode() == resp[1:].rstrip(b"\r\n")
            )
        else:
            note = case.get("note", "")
            k = 2 if "order: hash table (pairs)" in note else 1 if "order: hash table" in note else 0
            scan = argv[0].upper().endswith(b"SCAN")
            g, w = _norm_ours(got), _norm(want)
            if k:
                g, w = _unordered(g, k, scan), _unordered(w, k, scan)
            ok = not isinstance(want, BaseException) and type(got) is type(want) and g == w
        if ok:
            passed += 1
        else:
            failures.append((case["id"], argv, resp[:200]))
    for f in failures[:8]:
        print("FAIL", f)
    print(f"{server}: {passed}/{passed + len(failures)} cases through Snapshot.command()")
    assert passed > 2500
    assert not failures, failures[:10]


def test_values_are_redis_py_types():
    snap = bitlens.open(CONFORMANCE / "redis-7.4.1" / "dump.rdb")
    assert snap.command("EXISTS", "bm:random") == 1
    assert snap.command("TYPE", "bm:random") == b"string"
    assert snap.command("OBJECT", "ENCODING", "bm:random") == b"raw"
    assert snap.command("GET", "no such key") is None
    assert isinstance(snap.command("KEYS", "*"), list)
    with pytest.raises(bitlens.ReplyError) as e:
        snap.command("LLEN", "bm:random")
    assert str(e.value) == "WRONGTYPE Operation against a key holding the wrong kind of value"
    with pytest.raises(bitlens.ReplyError) as e:
        snap.command("GET")
    assert str(e.value) == "ERR wrong number of arguments for 'get' command"
    with pytest.raises(TypeError):
        snap.command("GET", True)
