"""bitlens.open of several files: a cluster's shards as one keyspace, as `bitlens query --rdb A
--rdb B` builds it; a key in two files raises DuplicateKeyError unless on_duplicate says which
file's entry to keep."""

import pytest

import bitlens
from conftest import CONFORMANCE, run


def _len(n):
    assert n < 64
    return bytes([n])


def write_rdb(path, db_keys):
    """A minimal RDB 9 file: {db: [(key, value)]} of plain strings, no checksum (0, which
    Redis' loader and bitlens skip)."""
    out = bytearray(b"REDIS0009")
    for db, keys in db_keys.items():
        out += b"\xfe" + _len(db)
        for k, v in keys:
            out += b"\x00" + _len(len(k)) + k + _len(len(v)) + v
    out += b"\xff" + bytes(8)
    path.write_bytes(bytes(out))
    return path


def test_shards_are_one_keyspace(tmp_path):
    a = write_rdb(tmp_path / "a.rdb", {0: [(b"user:1", b"ann"), (b"user:2", b"bob")], 3: [(b"x", b"1")]})
    b = write_rdb(tmp_path / "b.rdb", {0: [(b"user:3", b"cy")], 3: [(b"y", b"22")]})
    snap = bitlens.open(a, b)
    assert snap.command("DBSIZE") == 3
    assert sorted(snap.command("KEYS", "*")) == [b"user:1", b"user:2", b"user:3"]
    assert [snap.command("GET", k) for k in ("user:1", "user:3", "nope")] == [b"ann", b"cy", None]
    assert snap.command("SELECT", 3) == b"OK"
    assert snap.command("DBSIZE") == 2 and snap.command("GET", "y") == b"22"
    # The same keyspace `bitlens query` builds from the same files.
    out = run("query", "--rdb", a, "--rdb", b, "-n", "3", "DBSIZE")
    assert out.strip() == b"2"


def test_a_key_in_two_files(tmp_path):
    a = write_rdb(tmp_path / "a.rdb", {0: [(b"k", b"one"), (b"m", b"x")], 1: [(b"z", b"a")]})
    b = write_rdb(tmp_path / "b.rdb", {0: [(b"k", b"two"), (b"n", b"y")], 1: [(b"z", b"b")]})
    with pytest.raises(bitlens.DuplicateKeyError) as e:
        bitlens.open(a, b)
    err = e.value
    assert isinstance(err, bitlens.SnapshotError) and err.code == err.kind == "duplicate-key"
    # The smallest (database, key) pair is named, with both files and the count.
    assert (err.db, err.key, err.count) == (0, b"k", 2)
    assert (err.first_path, err.path, err.offset) == (str(a), str(b), None)
    assert str(a) in str(err) and str(b) in str(err) and "on_duplicate" in str(err)
    first = bitlens.open(a, b, on_duplicate="first")
    last = bitlens.open(a, b, on_duplicate="last")
    for snap, k, z in ((first, b"one", b"a"), (last, b"two", b"b")):
        assert snap.command("DBSIZE") == 3
        assert snap.command("GET", "k") == k
        assert snap.command("SELECT", 1) == b"OK" and snap.command("GET", "z") == z
    with pytest.raises(ValueError, match="on_duplicate"):
        bitlens.open(a, b, on_duplicate="newest")


def test_servers_files_share_keys_and_bad_files_are_named(tmp_path):
    a = CONFORMANCE / "redis-7.4.1" / "dump.rdb"
    b = CONFORMANCE / "valkey-9.1.2" / "dump.rdb"
    with pytest.raises(bitlens.DuplicateKeyError) as e:
        bitlens.open(a, b)
    assert e.value.count > 0
    # The first bad file in the order given is named, whichever thread decoded it first.
    cut = tmp_path / "cut.rdb"
    data = b.read_bytes()
    cut.write_bytes(data[: len(data) // 2])
    junk = tmp_path / "junk.rdb"
    junk.write_bytes(b"")
    with pytest.raises(bitlens.TruncatedError) as e:
        bitlens.open(a, cut, junk)
    assert e.value.path == str(cut) and e.value.code == "truncated"
    with pytest.raises(bitlens.EmptyFileError) as e:
        bitlens.open(a, junk, cut)
    assert e.value.path == str(junk) and "empty file" in str(e.value) and e.value.code == "empty"
    with pytest.raises(bitlens.SnapshotError) as e:
        bitlens.open(a, tmp_path / "missing.rdb")
    assert e.value.code == "not-found" and e.value.offset is None


def test_inspect_of_several_files_is_the_cli_union(tmp_path):
    a = write_rdb(tmp_path / "a.rdb", {0: [(b"user:1", b"ann"), (b"user:2", b"bob")]})
    b = write_rdb(tmp_path / "b.rdb", {0: [(b"user:3", b"cy")], 2: [(b"y", b"22")]})
    # (The files record no ctime: the clock is given, or both would read their own "now".)
    snap = bitlens.open(a, b, clock=1_700_000_000_000)
    doc = snap.inspect(top=100)
    assert doc == inspect_json_of("--clock", "1700000000000", a, b)
    assert doc["keys"] == 4 and [f["keys"] for f in doc["files"]] == [2, 2]
    assert [f["path"] for f in doc["files"]] == [str(a), str(b)]
    info = snap.info()
    assert info["files"] == doc["files"] and "top" not in info
    # One file: no files table, as the CLI's one-file report.
    assert "files" not in bitlens.open(a).inspect()
    # A duplicate decided by open() is decided the same way in the report.
    c = write_rdb(tmp_path / "c.rdb", {0: [(b"user:1", b"other")]})
    last = bitlens.open(a, c, on_duplicate="last").inspect()
    assert last["keys"] == 2 and [f["shadowed"] for f in last["files"]] == [1, 0]


def inspect_json_of(*paths):
    import json

    return json.loads(run("inspect", "--json", "--top", "100", *paths))


def test_checksum_paths_and_clock_arguments(tmp_path):
    a = write_rdb(tmp_path / "a.rdb", {0: [(b"k", b"v")]})
    # A wrong CRC-64 trailer: refused with Python's way to skip the check; checksum=False loads.
    bad = tmp_path / "bad.rdb"
    data = bytearray(a.read_bytes())
    data[-8:] = b"\x01" * 8
    bad.write_bytes(bytes(data))
    with pytest.raises(bitlens.ChecksumError) as e:
        bitlens.open(bad)
    assert e.value.code == "checksum" and e.value.offset == len(data) - 8
    assert str(e.value).endswith("the check can be skipped: checksum=False") and "--no-checksum" not in str(e.value)
    assert bitlens.open(bad, checksum=False).command("GET", "k") == b"v"
    # Paths as str, bytes and os.PathLike.
    for p in (str(a), bytes(a), a):
        assert bitlens.open(p).command("DBSIZE") == 1
    # A bad clock names the argument, not a CLI flag.
    with pytest.raises(ValueError) as e:
        bitlens.open(a, clock="yesterday")
    assert str(e.value).startswith("clock: expected now, snapshot or Unix milliseconds")
