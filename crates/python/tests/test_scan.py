"""bitlens.scan: the export schema's rows through pyarrow, equal to `bitlens inspect --csv`
and to the Parquet `bitlens export` writes; SnapshotError on bad files; inspect() as the
CLI's JSON."""

import csv
import io

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import bitlens
from conftest import CONFORMANCE, SERVERS, inspect_json, run


def _iso(ts):
    return ts.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ts.microsecond // 1000:03d}Z"


@pytest.mark.parametrize("server", SERVERS)
def test_scan_equals_inspect_csv(server):
    path = CONFORMANCE / server / "dump.rdb"
    reader = bitlens.scan(path, cluster="c1", instance=server)
    assert isinstance(reader, pa.RecordBatchReader)
    assert reader.schema.metadata[b"bitlens.schema_version"] == bitlens.SCHEMA_VERSION.encode()
    table = reader.read_all()
    rows = table.to_pylist()
    want = list(csv.reader(io.StringIO(run("inspect", "--csv", path).decode())))[1:]
    assert len(rows) == len(want) > 50
    for r, w in zip(rows, want):
        assert str(r["db"]) == w[0] and r["type"] == w[1]
        assert ("" if r["memory"] is None else str(r["memory"])) == w[3]
        assert (r["encoding"] or "?") == w[4]
        assert str(r["elements"]) == w[5] and str(r["largest_element"]) == w[6]
        assert ("" if r["expire_at"] is None else _iso(r["expire_at"])) == w[7]
        assert r["cluster"] == "c1" and r["instance"] == server


def test_scan_equals_export_parquet(tmp_path):
    path = CONFORMANCE / "redis-7.4.1" / "dump.rdb"
    run("export", path, "--out", tmp_path, "--batch", "b")
    (part,) = list(tmp_path.rglob("*.parquet"))
    # The file holds the columns without the partition (its values are in the path).
    from_file = pq.read_table(part)
    from_scan = bitlens.scan(path, batch="b", batch_rows=10).read_all()
    assert from_scan.num_rows == from_file.num_rows
    assert from_file.column_names == from_scan.column_names[3:]
    assert "cluster=default/batch=b/instance=dump.rdb/" in part.as_posix()
    rows = from_scan.select(from_file.column_names)
    assert rows.equals(from_file.cast(rows.schema))


def test_scan_of_several_files_and_bad_ones(tmp_path):
    a = CONFORMANCE / "redis-6.0.9" / "dump.rdb"
    b = CONFORMANCE / "valkey-9.1.2" / "dump.rdb"
    t = bitlens.scan(a, b).read_all()
    assert t.num_rows == bitlens.scan(a).read_all().num_rows + bitlens.scan(b).read_all().num_rows
    # Both files are called dump.rdb: each is named by its folder, as export names them.
    assert set(t.column("instance").to_pylist()) == {"redis-6.0.9", "valkey-9.1.2"}
    # Not a snapshot: refused when scan() is called.
    junk = tmp_path / "junk.rdb"
    junk.write_bytes(b"hello world, no RDB here")
    with pytest.raises(bitlens.SnapshotError) as e:
        bitlens.scan(junk)
    assert e.value.code == "unsupported-version" and e.value.offset == 0
    # Cut in half: the header is fine, the error comes while reading, with its offset.
    data = b.read_bytes()
    cut = tmp_path / "cut.rdb"
    cut.write_bytes(data[: len(data) // 2])
    reader = bitlens.scan(cut, batch_rows=5)
    with pytest.raises(bitlens.SnapshotError) as e:
        reader.read_all()
    assert e.value.code == "truncated"
    assert 0 < e.value.offset <= len(data) // 2
    with pytest.raises(bitlens.SnapshotError) as e:
        bitlens.open(cut)
    assert e.value.code == "truncated" and e.value.path == str(cut)


def test_inspect_is_the_cli_json():
    path = CONFORMANCE / "valkey-8.1.8" / "dump.rdb"
    assert bitlens.open(path).inspect(top=100000) == inspect_json(path)
    doc = inspect_json(path)
    info = bitlens.open(path).info()
    assert set(info) == {
        "schema_version", "version", "writer", "module_aux", "aux", "stored_checksum", "checksum_verified",
        "file_bytes", "profile", "clock_ms", "allocator", "file_keys", "file_databases", "keys",
        "memory", "databases",
    }
    for k, v in info.items():
        if k == "databases":
            assert v == [{x: d[x] for x in d if x != "groups"} for d in doc["databases"]]
        else:
            assert v == doc[k], k
    assert info["profile"]["writer"] is True and info["profile"]["name"].startswith("valkey-8")
    compat = bitlens.open(path, compat="redis-7.4").info()["profile"]
    assert compat["name"] == "redis-7.4" and compat["writer"] is False
