"""examples/fleet_dask.py on a Dask LocalCluster (2 worker processes on 127.0.0.1) over six
shard files: its totals equal `bitlens inspect --json` of the same files."""

import importlib.util
import sys

from conftest import REPO, inspect_json


def _example():
    spec = importlib.util.spec_from_file_location("fleet_dask", REPO / "examples" / "fleet_dask.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["fleet_dask"] = mod
    spec.loader.exec_module(mod)
    return mod


def test_fleet_totals_equal_inspect(shards):
    from dask.distributed import Client

    fleet = _example()
    with fleet.local_cluster(2) as cluster, Client(cluster) as client:
        assert len(client.scheduler_info()["workers"]) == 2
        assert all(w.startswith("tcp://127.0.0.1:") for w in client.scheduler_info()["workers"])
        totals = fleet.fleet_totals(shards, client, timeout=300)
    want = {"keys": 0, "memory": 0, "expires": 0}
    by_db, by_type = {}, {}
    for p in shards:
        doc = inspect_json(p)
        inst = totals["by_instance"][p.name]
        assert inst["keys"] == doc["keys"] and inst["memory"] == doc["memory"], p.name
        assert inst["expires"] == sum(d["expires"] for d in doc["databases"]), p.name
        want["keys"] += doc["keys"]
        want["memory"] += doc["memory"]
        for d in doc["databases"]:
            want["expires"] += d["expires"]
            e = by_db.setdefault(str(d["db"]), {"keys": 0, "memory": 0, "expires": 0})
            e["keys"] += d["keys"]
            e["memory"] += d["memory"]
            e["expires"] += d["expires"]
        for t in doc["by_type"]:
            ty = t["name"].split("/")[0]
            e = by_type.setdefault(ty, {"keys": 0, "memory": 0})
            e["keys"] += t["keys"]
            e["memory"] += t["memory"]
    assert totals["total"] == want
    assert totals["by_db"] == by_db
    assert {k: {"keys": v["keys"], "memory": v["memory"]} for k, v in totals["by_type"].items()} == by_type
    assert want["keys"] > 300
