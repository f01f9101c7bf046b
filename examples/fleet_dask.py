"""A fleet of snapshot files analysed on Dask.distributed: each task scans one RDB file with
``bitlens.scan`` (Arrow record batches, one row per key) and reduces it to a few totals; the
engine combines the partial totals (a tree reduction of ``dask.bag``), so each worker holds
one file's batch at a time and the client only the final figures.

    python examples/fleet_dask.py shard-*.rdb                 # a LocalCluster, 2 workers
    python examples/fleet_dask.py --scheduler tcp://host:8786 /backups/*.rdb

Prints one JSON document: keys, memory (the MEMORY USAGE estimate of ``bitlens inspect``),
keys with an expiry, and per type, per database and per instance the same three figures.
"""

import argparse
import json


def _empty():
    return {"keys": 0, "memory": 0, "expires": 0}


def _add(into, keys, memory, expires):
    into["keys"] += keys
    into["memory"] += memory
    into["expires"] += expires


def shard_totals(task):
    """One file's totals (runs on a worker); ``task`` is (path, instance name)."""
    import bitlens
    import pyarrow.compute as pc

    path, instance = task
    out = {"total": _empty(), "by_type": {}, "by_db": {}, "by_instance": {}}
    for batch in bitlens.scan(path, instance=instance):
        mem = pc.fill_null(batch.column("memory"), 0)
        exp = pc.invert(pc.is_null(batch.column("expire_at")))
        _add(out["total"], batch.num_rows, pc.sum(mem).as_py() or 0, pc.sum(exp).as_py() or 0)
        for col, name in (("type", "by_type"), ("db", "by_db"), ("instance", "by_instance")):
            values = batch.column(col)
            for v in pc.unique(values).to_pylist():
                mask = pc.equal(values, v)
                _add(
                    out[name].setdefault(str(v), _empty()),
                    pc.sum(mask).as_py(),
                    pc.sum(pc.filter(mem, mask)).as_py() or 0,
                    pc.sum(pc.filter(exp, mask)).as_py() or 0,
                )
    return out


def merge(a, b):
    """Two partial totals as one (associative, so the engine may combine in any tree)."""
    out = {"total": _empty(), "by_type": {}, "by_db": {}, "by_instance": {}}
    for part in (a, b):
        _add(out["total"], **part["total"])
        for name in ("by_type", "by_db", "by_instance"):
            for k, v in part[name].items():
                _add(out[name].setdefault(k, _empty()), **v)
    return out


def fleet_totals(paths, client, timeout=None):
    """The fleet's totals computed on the cluster behind ``client`` (``timeout`` seconds at
    most; None: no limit). The workers need ``bitlens`` installed; this file is shipped to
    them when it was imported as a module rather than run."""
    import dask.bag as db

    if __name__ != "__main__":
        client.upload_file(__file__)
    import bitlens

    # Named together, as `bitlens export` names them: every node's dump.rdb by its folder.
    names = bitlens.instance_names(paths)
    tasks = [(str(p), n) for p, n in zip(paths, names)]
    bag = db.from_sequence(tasks, npartitions=len(tasks))
    empty = {"total": _empty(), "by_type": {}, "by_db": {}, "by_instance": {}}
    return client.compute(bag.map(shard_totals).fold(merge, initial=empty)).result(timeout=timeout)


def local_cluster(workers=2):
    """A LocalCluster of ``workers`` worker processes on 127.0.0.1, no dashboard."""
    from dask.distributed import LocalCluster

    return LocalCluster(
        n_workers=workers,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
    )


def main():
    from dask.distributed import Client

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--scheduler", help="a running scheduler's address (default: LocalCluster)")
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    if args.scheduler:
        with Client(args.scheduler) as client:
            totals = fleet_totals(args.files, client)
    else:
        with local_cluster(args.workers) as cluster, Client(cluster) as client:
            totals = fleet_totals(args.files, client)
    print(json.dumps(totals, indent=2, sort_keys=True))


if __name__ == "__main__":
    main()
