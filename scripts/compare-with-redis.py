#!/usr/bin/env python3
"""Loads each given RDB file into a real Redis 7.4.1 (`--dir`/`--dbfilename` on a copy) and
compares bitlens' answers on the same file with that server's, key by key: DBSIZE per
database, TYPE, GET, ZRANGE WITHSCORES, PEXPIRETIME. For checking snapshots from elsewhere
(other projects' test files, production dumps) locally; nothing is written.

Usage: scripts/compare-with-redis.py [--compat PROFILE] FILE.rdb...
  --compat PROFILE  passed to `bitlens query` (default redis-7.4: answer as the server that
                    loaded the file, not as the file's writer), with --clock now.
Needs target/debug/bitlens (cargo build -p bitlens-cli) and the servers manifest
($BITLENS_SERVERS_DIR/servers.json, see scripts/servers.sh). Prints one line per file: OK,
the differences, or that Redis refused the file (with what bitlens did).
"""

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
spec = importlib.util.spec_from_file_location("mf", os.path.join(ROOT, "scripts", "make-fixtures.py"))
mf = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mf)
BL = os.path.join(ROOT, "target", "debug", "bitlens")


def main():
    args = sys.argv[1:]
    compat = "redis-7.4"
    if args[:1] == ["--compat"]:
        compat, args = args[1], args[2:]
    with open(os.path.join(mf.servers_dir(), "servers.json")) as f:
        s = json.load(f)["servers"]["redis-7.4.1"]

    def bl(path, db, *cmd):
        p = subprocess.run([BL, "query", "--compat", compat, "--clock", "now", "--rdb", path,
                            "-n", str(db), *cmd], capture_output=True)
        return p.stdout, p.stderr.decode().strip()

    for f in args:
        d = tempfile.mkdtemp(prefix="bitlens-compare-")
        shutil.copy(f, os.path.join(d, "in.rdb"))
        port = mf.free_port()
        proc = subprocess.Popen([s["server"], "--port", str(port), "--bind", "127.0.0.1",
                                 "--dir", d, "--dbfilename", "in.rdb", "--save", ""],
                                env=dict(os.environ, **s["env"]), stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        try:
            r = None
            for _ in range(60):
                try:
                    r = mf.Conn(port)
                    r("PING")
                    break
                except (OSError, RuntimeError):
                    r = None
                    time.sleep(0.05)
            name = os.path.basename(f)
            if r is None:
                out, err = bl(f, 0, "DBSIZE")
                print("%-45s Redis refused it; bitlens: %s" % (name, (err or out.decode().strip())[:120]))
                continue
            bad = []
            info = r("INFO", "keyspace").decode()
            for db in [int(l.split(":")[0][2:]) for l in info.split("\r\n") if l.startswith("db")]:
                r("SELECT", db)
                n = r("DBSIZE")
                o, e = bl(f, db, "DBSIZE")
                if o.decode().strip() != str(n):
                    bad.append("db%d DBSIZE %s vs %r %s" % (db, n, o, e[:80]))
                for k in r("KEYS", "*")[:500]:
                    t = r("TYPE", k)
                    o, _ = bl(f, db, "TYPE", k)
                    if o.decode().strip() != t:
                        bad.append("TYPE %r: %s vs %r" % (k[:40], t, o[:40]))
                        continue
                    if t == "string":
                        v = r("GET", k)
                        o, _ = bl(f, db, "GET", k)
                        if o.rstrip(b"\n") != v:
                            bad.append("GET %r" % k[:40])
                    if t == "zset":
                        z = r("ZRANGE", k, 0, -1, "WITHSCORES")
                        o, _ = bl(f, db, "ZRANGE", k, "0", "-1", "WITHSCORES")
                        got = o.rstrip(b"\n").split(b"\n") if o.strip() else []
                        diff = [(a, b) for a, b in zip(z, got) if a != b]
                        if len(z) != len(got) or diff:
                            bad.append("ZRANGE %r: %r" % (k[:40], diff[:2] or (len(z), len(got))))
                    pt = r("PEXPIRETIME", k)
                    o, _ = bl(f, db, "PEXPIRETIME", k)
                    if o.strip() != str(pt).encode():
                        bad.append("PEXPIRETIME %r: %s vs %r" % (k[:40], pt, o[:30]))
            print("%-45s %s" % (name, "OK" if not bad else "%d differences: %s" % (len(bad), "; ".join(bad[:3]))))
        finally:
            proc.kill()
            proc.wait()
            shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
