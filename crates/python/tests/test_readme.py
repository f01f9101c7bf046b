"""The README's Python, DuckDB and Dask code blocks, run as written.

The blocks are read from README.md itself (the sections "SQL without a server: DuckDB",
"Python" and "A fleet on Dask"), so an edit of the README is tested as it is published. They
run in a temporary folder holding the files they name, written by a real Redis 7.4.1
(`dump.rdb` with `stats:active:20240520`, `board` and `user:1`; `a.rdb`, `b.rdb`,
`node-1.rdb`... `node-3.rdb`; `a/dump.rdb`, `b/dump.rdb`) and, for the SQL, the Parquet tree
`fleet/` that `bitlens export` writes of instance `node-7` at the two batches the queries
name.

- Python: each statement runs in order; a statement followed by a comment that is a Python
  literal (`# 131245`, `# None`) must give that value, one whose comment starts with
  `raises X` must raise X, and a comment naming a list's first items (`# [b'ann', b'12', ...]`)
  must match those items. The `pip install` block is not run here (the suite runs on the wheel
  it built).
- DuckDB: every statement of the SQL block runs through DuckDB's Python package, and every
  SELECT returns rows.
- Dask: `python examples/fleet_dask.py /backups/*.rdb` runs with `/backups` being a folder of
  the test's files; the `--scheduler tcp://scheduler:8786` line needs a scheduler host of that
  name and is not run (`test_fleet.py` runs the same script on a LocalCluster).
"""

import ast
import glob
import json
import os
import pathlib
import re
import subprocess
import sys

import pytest

redis = pytest.importorskip("redis")
duckdb = pytest.importorskip("duckdb")

import bitlens  # noqa: E402
from conftest import REPO, bitlens_bin  # noqa: E402
from test_resp_redis_py import Server, manifest  # noqa: E402

SECTIONS = ("SQL without a server: DuckDB", "Python", "A fleet on Dask")


def readme_blocks():
    """{section: [(language, code)]} of the README's sections named in SECTIONS."""
    out, section, lang, code = {}, None, None, None
    for line in (REPO / "README.md").read_text().splitlines():
        if code is not None:
            if line.startswith("```"):
                out.setdefault(section, []).append((lang, "\n".join(code)))
                code = None
            else:
                code.append(line)
        elif line.startswith("#"):
            title = line.lstrip("#").strip()
            section = title if title in SECTIONS else None
        elif line.startswith("```") and section:
            lang, code = line[3:].strip(), []
    return out


def snapshot(server, path, fill):
    """Writes keys with `fill(r)` on a fresh `server`, SAVEs, copies the file to `path`."""
    srv = Server(server)
    try:
        r = redis.Redis(port=srv.port, protocol=2)
        fill(r)
        r.save()
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(pathlib.Path(srv.dir, "dump.rdb").read_bytes())
    finally:
        srv.stop()


def main_file(r):
    # 131,245 set bits: 16,405 bytes of 0xff and the 5 high bits of the next.
    r.set("stats:active:20240520", b"\xff" * 16405 + b"\xf8")
    r.zadd("board", {"ann": 12, "bob": 15, "cy": 20, "dee": 31})
    r.hset("user:1", mapping={"name": "ann", "plan": "pro"})
    r.set("user:2", "bo")


def shard_file(i):
    def fill(r):
        for j in range(50):
            r.set(f"user:{i}:{j}", "x" * j)
            r.setbit(f"seen:{i}:{j}", j * 7, 1)
        r.expire(f"user:{i}:0", 10**8)
    return fill


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    servers = manifest()
    if "redis-7.4.1" not in servers:
        pytest.skip("redis-7.4.1 is not installed (scripts/servers.sh)")
    entry = servers["redis-7.4.1"]
    d = tmp_path_factory.mktemp("readme")
    snapshot(entry, d / "dump.rdb", main_file)
    for name, i in (("a.rdb", 1), ("b.rdb", 2), ("a/dump.rdb", 3), ("b/dump.rdb", 4)):
        snapshot(entry, d / name, shard_file(i))
    for i in (1, 2, 3):
        snapshot(entry, d / f"node-{i}.rdb", shard_file(10 + i))
    # The SQL's tree: instance node-7 at the two batches the queries name.
    for batch, src in (("1764658800", "node-1.rdb"), ("1764745200", "node-2.rdb")):
        subprocess.run([bitlens_bin(), "export", "--out", str(d / "fleet"), "--batch", batch,
                        "--instance", "node-7", str(d / src)], check=True, capture_output=True)
    (d / "backups").mkdir()
    for i in (1, 2, 3):
        (d / "backups" / f"node-{i}.rdb").write_bytes((d / f"node-{i}.rdb").read_bytes())
    return d


def expectation(comment):
    """What a statement's trailing comment says of its result: ("raises", name),
    ("value", literal), ("prefix", [items]) or None."""
    c = comment.strip()
    m = re.match(r"raises ([\w.]+)", c)
    if m:
        return ("raises", m.group(1).rsplit(".", 1)[-1])
    m = re.match(r"(\[.*?), \.\.\.\]", c)
    if m:
        try:
            return ("prefix", ast.literal_eval(m.group(1) + "]"))
        except (ValueError, SyntaxError):
            return None
    try:
        return ("value", ast.literal_eval(c))
    except (ValueError, SyntaxError):
        return None


def test_python_block(workdir, monkeypatch):
    blocks = [code for lang, code in readme_blocks()["Python"] if lang == "python"]
    assert blocks, "no python block in the README's Python section"
    monkeypatch.chdir(workdir)
    source = "\n".join(blocks)
    lines = source.splitlines()
    env = {}
    checked = 0
    for stmt in ast.parse(source).body:
        code = compile(ast.Module([stmt], []), "README.md", "exec")
        line = lines[stmt.end_lineno - 1]
        comment = line.split("#", 1)[1] if "#" in line and not line.strip().startswith("#") else ""
        want = expectation(comment)
        if want and want[0] == "raises":
            with pytest.raises(Exception) as e:
                exec(code, env)
            names = [c.__name__ for c in type(e.value).__mro__]
            assert want[1] in names, f"{line!r}: raised {names}"
            checked += 1
            continue
        if isinstance(stmt, ast.Expr):
            got = eval(compile(ast.Expression(stmt.value), "README.md", "eval"), env)
            if want and want[0] == "value":
                assert got == want[1], f"{line!r}: {got!r}"
                checked += 1
            elif want and want[0] == "prefix":
                assert list(got)[: len(want[1])] == want[1], f"{line!r}: {got!r}"
                checked += 1
        else:
            exec(code, env)
    assert checked >= 5, f"only {checked} commented results checked"


def test_duckdb_block(workdir, monkeypatch):
    blocks = [code for lang, code in readme_blocks()["SQL without a server: DuckDB"] if lang == "sql"]
    assert blocks
    monkeypatch.chdir(workdir)
    con = duckdb.connect()
    sql = "\n".join(l for l in "\n".join(blocks).splitlines() if not l.strip().startswith("--"))
    statements = [s.strip() for s in sql.split(";") if s.strip()]
    assert len(statements) >= 6
    for s in statements:
        rows = con.sql(s)
        if s.upper().startswith(("SELECT", "WITH")):
            got = rows.fetchall()
            assert got, f"no rows: {s}"


def test_dask_block(workdir):
    pytest.importorskip("dask.distributed")
    blocks = [code for lang, code in readme_blocks()["A fleet on Dask"] if lang == "sh"]
    assert blocks
    ran = 0
    for line in "\n".join(blocks).splitlines():
        cmd = line.split("#", 1)[0].strip()
        if not cmd.startswith("python ") or "--scheduler" in cmd:
            continue
        files = sorted(glob.glob(str(workdir / "backups" / "*.rdb")))
        argv = [sys.executable, str(REPO / cmd.split()[1])] + files
        assert cmd.split()[2:] == ["/backups/*.rdb"], cmd
        out = subprocess.run(argv, check=True, capture_output=True, text=True, timeout=600,
                             env=dict(os.environ, BITLENS_BIN=bitlens_bin()))
        doc = json.loads(out.stdout)
        want = sum(bitlens.open(f).command("DBSIZE") for f in files)
        assert doc["total"]["keys"] == want, doc
        ran += 1
    assert ran == 1
