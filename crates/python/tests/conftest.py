"""Shared paths and helpers of the Python package's tests."""

import json
import os
import pathlib
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[3]
CONFORMANCE = REPO / "tests" / "data" / "conformance"
SERVERS = ["redis-6.0.9", "redis-6.2.14", "redis-7.0.15", "redis-7.4.1", "redis-8.0.2",
           "valkey-8.1.1", "valkey-8.1.8", "valkey-9.1.2"]


def bitlens_bin():
    """The CLI built by cargo (BITLENS_BIN, else target/debug or target/release)."""
    env = os.environ.get("BITLENS_BIN")
    if env:
        return env
    for profile in ("debug", "release"):
        p = REPO / "target" / profile / "bitlens"
        if p.exists():
            return str(p)
    pytest.skip("no bitlens binary: run `cargo build -p bitlens-cli` or set BITLENS_BIN")


def run(*args):
    out = subprocess.run([bitlens_bin(), *map(str, args)], check=True, capture_output=True)
    return out.stdout


def inspect_json(path):
    return json.loads(run("inspect", "--json", "--top", "100000", path))


@pytest.fixture(scope="session")
def shards(tmp_path_factory):
    """Six shard files: the conformance snapshots of the six servers, one per shard."""
    d = tmp_path_factory.mktemp("shards")
    out = []
    for i, s in enumerate(SERVERS):
        p = d / f"shard-{i}.rdb"
        p.write_bytes((CONFORMANCE / s / "dump.rdb").read_bytes())
        out.append(p)
    return out
