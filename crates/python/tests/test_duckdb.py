"""The README's DuckDB queries, run on the Parquet `bitlens export` writes, each result equal
to the matching `bitlens inspect --json` figure."""

import duckdb
import pytest

from conftest import CONFORMANCE, SERVERS, inspect_json, run

# The README's queries (section "With your data tools"), over the hive tree at ? (a glob).
TOP_KEYS = """
SELECT db, key, key_display, type, memory
FROM read_parquet($glob, hive_partitioning = true)
WHERE cluster = 'prod' AND batch = $batch AND instance = $instance
ORDER BY memory DESC, db, key
LIMIT 20"""

MEMORY_PER_PREFIX = """
SELECT split_part(key::VARCHAR, ':', 1) || ':' AS prefix, count(*) AS keys, sum(memory) AS memory
FROM read_parquet($glob, hive_partitioning = true)
WHERE batch = $batch AND instance = $instance AND contains(key::VARCHAR, ':')
GROUP BY prefix ORDER BY memory DESC"""

NO_TTL_PER_PREFIX = """
SELECT split_part(key::VARCHAR, ':', 1) || ':' AS prefix, count(*) AS keys, sum(memory) AS memory
FROM read_parquet($glob, hive_partitioning = true)
WHERE batch = $batch AND instance = $instance AND expire_at IS NULL
  AND contains(key::VARCHAR, ':')
GROUP BY prefix ORDER BY keys DESC"""

MEMORY_PER_SLOT = """
SELECT slot, count(*) AS keys, sum(memory) AS memory
FROM read_parquet($glob, hive_partitioning = true)
WHERE batch = $batch AND instance = $instance
GROUP BY slot ORDER BY slot"""

MEMORY_PER_INSTANCE = """
SELECT instance, count(*) AS keys, coalesce(sum(memory), 0) AS memory
FROM read_parquet($glob, hive_partitioning = true)
WHERE batch = $batch
GROUP BY instance ORDER BY instance"""

GROWTH = """
WITH per AS (
  SELECT batch, split_part(key::VARCHAR, ':', 1) || ':' AS prefix, sum(memory) AS memory
  FROM read_parquet($glob, hive_partitioning = true)
  WHERE instance = 'node-1' AND contains(key::VARCHAR, ':')
  GROUP BY ALL)
SELECT prefix, coalesce(b.memory, 0) - coalesce(a.memory, 0) AS growth
FROM (SELECT * FROM per WHERE batch = $old) a
FULL JOIN (SELECT * FROM per WHERE batch = $new) b USING (prefix)
ORDER BY growth DESC"""


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    """Batch 'b1': every server's snapshot as one instance each; batch 'b2' adds node-1 again
    from another snapshot (redis-7.4.1 after redis-7.0.15) for the growth query."""
    out = tmp_path_factory.mktemp("parquet")
    for s in SERVERS:
        run("export", CONFORMANCE / s / "dump.rdb", "--out", out, "--cluster", "prod",
            "--batch", "b1", "--instance", s)
    run("export", CONFORMANCE / "redis-7.0.15" / "dump.rdb", "--out", out, "--cluster", "prod",
        "--batch", "b1", "--instance", "node-1")
    run("export", CONFORMANCE / "redis-7.4.1" / "dump.rdb", "--out", out, "--cluster", "prod",
        "--batch", "b2", "--instance", "node-1")
    return str(out / "**" / "*.parquet")


def q(sql, **params):
    return duckdb.execute(sql, params).fetchall()


def _ascii_prefixes(doc, depth=1):
    """inspect's prefixes of a depth whose name is printable ASCII without a backslash."""
    return {
        p["prefix"]: (p["keys"], p["memory"])
        for p in doc["prefixes"]
        if p["depth"] == depth and isinstance(p["prefix"], str)
        and all(0x20 <= ord(c) < 0x7F and c != "\\" for c in p["prefix"])
    }


@pytest.mark.parametrize("server", SERVERS)
def test_top_keys(tree, server):
    doc = inspect_json(CONFORMANCE / server / "dump.rdb")
    rows = q(TOP_KEYS, glob=tree, batch="b1", instance=server)
    top = doc["top"][:20]
    assert [r[4] for r in rows] == [t["memory"] for t in top]
    assert [(r[0], r[3]) for r in rows] == [(t["db"], t["type"]) for t in top]
    for r, t in zip(rows, top):
        if isinstance(t["key"], str):
            assert bytes(r[1]) == t["key"].encode()


@pytest.mark.parametrize("server", SERVERS)
def test_memory_and_no_ttl_per_prefix(tree, server):
    path = CONFORMANCE / server / "dump.rdb"
    want = _ascii_prefixes(inspect_json(path))
    got = {p: (k, m) for p, k, m in q(MEMORY_PER_PREFIX, glob=tree, batch="b1", instance=server)}
    assert want and all(got[p] == v for p, v in want.items()), (want, got)
    want = _ascii_prefixes(__import__("json").loads(run("inspect", "--json", "--ttl", "none", path)))
    got = {p: (k, m) for p, k, m in q(NO_TTL_PER_PREFIX, glob=tree, batch="b1", instance=server)}
    assert want and all(got[p] == v for p, v in want.items()), (want, got)


@pytest.mark.parametrize("server", SERVERS)
def test_memory_per_slot(tree, server):
    import json

    doc = json.loads(run("inspect", "--json", "--slots", CONFORMANCE / server / "dump.rdb"))
    got = q(MEMORY_PER_SLOT, glob=tree, batch="b1", instance=server)
    assert [(s["slot"], s["keys"], s["memory"]) for s in doc["slots"]] == got


def test_memory_per_instance(tree):
    got = dict((i, (k, m)) for i, k, m in q(MEMORY_PER_INSTANCE, glob=tree, batch="b1"))
    for s in SERVERS:
        doc = inspect_json(CONFORMANCE / s / "dump.rdb")
        assert got[s] == (doc["keys"], doc["memory"]), s
    assert len(got) == len(SERVERS) + 1  # every server, and the shard node-1


def test_growth_between_two_batches(tree):
    old = _ascii_prefixes(inspect_json(CONFORMANCE / "redis-7.0.15" / "dump.rdb"))
    new = _ascii_prefixes(inspect_json(CONFORMANCE / "redis-7.4.1" / "dump.rdb"))
    got = dict(q(GROWTH, glob=tree, old="b1", new="b2"))
    for p in set(old) | set(new):
        if p in old and p in new:
            assert got[p] == new[p][1] - old[p][1], p
    total = q(
        "SELECT batch, sum(memory) FROM read_parquet($glob, hive_partitioning = true) "
        "WHERE instance = 'node-1' GROUP BY batch ORDER BY batch",
        glob=tree,
    )
    assert [m for _, m in total] == [
        inspect_json(CONFORMANCE / "redis-7.0.15" / "dump.rdb")["memory"],
        inspect_json(CONFORMANCE / "redis-7.4.1" / "dump.rdb")["memory"],
    ]
