"""The export tree of a fleet, read by every engine with its defaults.

Three nodes' snapshots, each saved as ``<node>/dump.rdb`` (the name every Redis gives its file),
are exported together with ``bitlens export`` (the CLI the Python package ships with): each
node gets its own ``instance=<node>`` partition (never refused, never merged), and pandas,
pyarrow datasets and Dask read the tree with their defaults (hive partitioning inferred from
the paths) and get every key once. The ``expired`` column agrees with DBSIZE per database.
"""

import collections
import shutil
import subprocess

import pytest

from conftest import CONFORMANCE, bitlens_bin

pd = pytest.importorskip("pandas")
ds = pytest.importorskip("pyarrow.dataset")

# "%6Eode-a" percent-decodes to "node-a": the readers decode hive partition values, so the
# export must write its `%` as `%25` or the two instances would read back as one.
NODES = {"node-a": "redis-7.4.1", "%6Eode-a": "valkey-9.1.2", "node-c": "redis-6.2.14"}


@pytest.fixture(scope="module")
def fleet(tmp_path_factory):
    root = tmp_path_factory.mktemp("fleet")
    files = []
    for node, server in NODES.items():
        (root / node).mkdir()
        dst = root / node / "dump.rdb"
        shutil.copy(CONFORMANCE / server / "dump.rdb", dst)
        files.append(dst)
    out = root / "out"
    subprocess.run([bitlens_bin(), "export", "--out", str(out), *map(str, files)], check=True,
                   capture_output=True)
    want = {}
    for node, f in zip(NODES, files):
        inspect = subprocess.run([bitlens_bin(), "inspect", "--csv", str(f)], check=True,
                                 capture_output=True).stdout.decode().splitlines()
        want[node] = len(inspect) - 1
    return out, files, want


def check(df, want, engine):
    counts = collections.Counter(df["instance"].astype(str))
    assert dict(counts) == want, f"{engine}: rows per instance {dict(counts)} != {want}"
    dup = df.assign(instance=df["instance"].astype(str)).duplicated(["instance", "db", "key"])
    assert not dup.any(), f"{engine}: a key read twice"
    assert set(df["cluster"].astype(str)) == {"default"}, engine


def test_pandas_reads_the_tree(fleet):
    out, _, want = fleet
    check(pd.read_parquet(out), want, "pandas")


def test_pyarrow_dataset_hive(fleet):
    out, _, want = fleet
    check(ds.dataset(out, partitioning="hive").to_table().to_pandas(), want, "pyarrow")


def test_dask_reads_the_tree(fleet):
    dd = pytest.importorskip("dask.dataframe")
    out, _, want = fleet
    check(dd.read_parquet(out).compute(), want, "dask")


def test_expired_agrees_with_dbsize(fleet):
    out, files, _ = fleet
    df = pd.read_parquet(out)
    for node, f in zip(NODES, files):
        rows = df[(df["instance"].astype(str) == node) & (~df["expired"])]
        for db, n in rows.groupby("db").size().items():
            dbsize = subprocess.run(
                [bitlens_bin(), "query", "--rdb", str(f), "-n", str(db), "DBSIZE"], check=True,
                capture_output=True,
            ).stdout.decode().strip()
            assert int(dbsize) == n, f"{node} db {db}: {n} unexpired rows, DBSIZE {dbsize}"


def test_scan_names_filters_and_dtypes(fleet):
    """``bitlens.scan`` names the nodes' ``dump.rdb`` as export does, reads only the keys a
    ``match`` glob or a ``db`` selects, and ``to_pandas`` keeps nullable integers integers."""
    bitlens = pytest.importorskip("bitlens")
    out, files, want = fleet
    t = bitlens.scan(*files).read_all()
    assert collections.Counter(t.column("instance").to_pylist()) == want
    assert set(bitlens.scan(*files, instance_from="file").read_all().column("instance").to_pylist()) == {"dump.rdb"}
    every = t.to_pandas()
    some = bitlens.scan(*files, match=["hll:*", b"geo:*"]).read_all().to_pandas()
    wanted = sum(1 for k in every["key"] if bytes(k).startswith((b"hll:", b"geo:")))
    assert len(some) == wanted
    assert len(some) > 0
    db0 = bitlens.scan(*files, db=0).read_all().to_pandas()
    assert len(db0) == int((every["db"] == 0).sum()) and set(db0["db"]) == {0}
    df = bitlens.to_pandas(bitlens.scan(*files))
    assert str(df["memory"].dtype) == "Int64" and str(df["bits_set"].dtype) == "Int64"
    assert df["bits_set"].isna().any() and str(df["expired"].dtype) == "boolean"
