"""bitlens: Redis/Valkey snapshots (RDB files) in Python.

- ``open(*paths, compat=None, clock=None, on_duplicate="error")``: a :class:`Snapshot`
  (several files: a cluster's shards as one keyspace) whose ``command()`` answers as the
  server that wrote the files, with the values redis-py returns on a RESP2 connection
  without response callbacks; ``inspect()`` is ``bitlens inspect --json`` as a dict.
- ``scan(*paths)``: a ``pyarrow.RecordBatchReader`` of the export schema (one row per key,
  the columns of ``bitlens export``), handed over through the Arrow C data interface.
"""

import os as _os

import pyarrow as _pa

from . import _native
from ._errors import (
    DuplicateKeyError,
    ReplyError,
    SnapshotError,
    SnapshotIsADirectoryError,
    SnapshotNotFoundError,
)
from ._native import SCHEMA_VERSION, Snapshot

__all__ = [
    "open",
    "scan",
    "schema",
    "Snapshot",
    "ReplyError",
    "SnapshotError",
    "DuplicateKeyError",
    "SnapshotNotFoundError",
    "SnapshotIsADirectoryError",
    "SCHEMA_VERSION",
]


def open(*paths, compat=None, clock=None, on_duplicate="error", checksum=True):  # noqa: A001 (the API's name)
    """The RDB files ``paths`` as one snapshot, decoded at once on every core, as ``bitlens
    query --rdb A --rdb B`` builds it: every database of every file, a cluster's shards as
    one keyspace. A key in two files raises :class:`DuplicateKeyError` naming both, unless
    ``on_duplicate`` is ``"first"`` or ``"last"`` (the file, in the order given, whose entry
    is kept). ``compat``: answer as this profile (``"redis-7.4"``...) instead of the first
    file's writer, refusing what its loader refuses; ``clock``: ``None``/``"snapshot"`` (the
    first file's ctime), ``"now"``, or Unix milliseconds; ``checksum=False`` skips the CRC-64
    check (as ``--no-checksum``). Paths are str, bytes or os.PathLike. Raises
    :class:`SnapshotError` on a bad file (the first in the order given):
    :class:`SnapshotNotFoundError` (a ``FileNotFoundError``) for a missing path,
    :class:`SnapshotIsADirectoryError` (an ``IsADirectoryError``) for a directory; a FIFO or
    device is refused at once (kind ``Io``). Files written by different servers warn
    (``UserWarning``: the replies follow the first file's), as the CLI does."""
    return _native.open(
        *[_os.fsdecode(p) for p in paths],
        compat=compat,
        clock=clock,
        on_duplicate=on_duplicate,
        checksum=checksum,
    )


def schema():
    """The export schema (``pyarrow.Schema``, version in ``metadata[b"bitlens.schema_version"]``)."""
    return _pa.schema(_native.ExportSchema())


def scan(*paths, cluster="default", batch=None, instance=None, batch_rows=65536):
    """The rows of the RDB files ``paths`` (one per key, in file order) as a
    ``pyarrow.RecordBatchReader`` of :func:`schema`. The files are decoded by a native
    thread at most two batches ahead of the reader. A file that is not a snapshot raises
    :class:`SnapshotError` here, as :func:`open` raises it (missing, a directory, a FIFO, an
    empty file); one that turns out corrupt raises it while reading. Files are the rows of
    their instances (keys may repeat across them), but one file given twice raises the
    :class:`DuplicateKeyError` :func:`open` raises."""
    it = _native.Scan([_os.fsdecode(p) for p in paths], cluster, batch, instance, batch_rows)
    return _pa.RecordBatchReader.from_batches(schema(), (_pa.record_batch(b) for b in it))
