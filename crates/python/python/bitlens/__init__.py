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
    BY_CODE,
    CancelledError,
    ChecksumError,
    CorruptError,
    DuplicateKeyError,
    EmptyFileError,
    IncompatibleError,
    NotARegularFileError,
    ReadError,
    ReplyError,
    SnapshotError,
    SnapshotIsADirectoryError,
    SnapshotNotFoundError,
    SnapshotPermissionError,
    TooLargeError,
    TruncatedError,
    UnknownTypeError,
    UnsupportedError,
    UnsupportedVersionError,
    WriteError,
)
from ._native import SCHEMA_VERSION, Snapshot

__all__ = [
    "open",
    "scan",
    "redis",
    "to_pandas",
    "instance_names",
    "schema",
    "Snapshot",
    "ReplyError",
    "SnapshotError",
    "BY_CODE",
    "SnapshotNotFoundError",
    "SnapshotIsADirectoryError",
    "SnapshotPermissionError",
    "NotARegularFileError",
    "EmptyFileError",
    "DuplicateKeyError",
    "TruncatedError",
    "UnsupportedVersionError",
    "ChecksumError",
    "UnknownTypeError",
    "UnsupportedError",
    "CorruptError",
    "IncompatibleError",
    "ReadError",
    "WriteError",
    "CancelledError",
    "TooLargeError",
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
    the :class:`SnapshotError` subclass of the error's ``code`` on a bad file (the first in
    the order given; :data:`BY_CODE`): :class:`SnapshotNotFoundError` (a
    ``FileNotFoundError``) for a missing path, :class:`SnapshotIsADirectoryError` (an
    ``IsADirectoryError``) for a directory, :class:`NotARegularFileError` for a FIFO or device
    (refused at once), :class:`EmptyFileError`, :class:`TruncatedError`,
    :class:`ChecksumError`... Files written by different servers warn
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


def scan(*paths, cluster="default", batch=None, instance=None, batch_rows=65536,
         instance_from="auto", match=None, db=None):
    """The rows of the RDB files ``paths`` (one per key, in file order) as a
    ``pyarrow.RecordBatchReader`` of :func:`schema`. The files are decoded by a native
    thread at most two batches ahead of the reader. A file that is not a snapshot raises
    :class:`SnapshotError` here, as :func:`open` raises it (missing, a directory, a FIFO, an
    empty file); one that turns out corrupt raises it while reading. Files are the rows of
    their instances (keys may repeat across them), but one file given twice raises the
    :class:`DuplicateKeyError` :func:`open` raises.

    ``instance`` names every file's ``instance`` column; without it each file is named as
    ``bitlens export`` names it (``instance_from="auto"``: the file name, or the folder where
    file names collide, so three nodes' ``dump.rdb`` stay three instances; ``"file"``,
    ``"parent"``). ``match``: a glob or a list of globs (KEYS rules, str or bytes): only the
    keys matching one are read, the others' values skipped unread. ``db``: only that
    database's keys."""
    if match is None:
        patterns = []
    elif isinstance(match, (str, bytes)):
        patterns = [match]
    else:
        patterns = list(match)
    patterns = [p.encode() if isinstance(p, str) else bytes(p) for p in patterns]
    it = _native.Scan([_os.fsdecode(p) for p in paths], cluster, batch, instance, batch_rows,
                      instance_from, patterns, db)
    return _pa.RecordBatchReader.from_batches(schema(), (_pa.record_batch(b) for b in it))


def instance_names(paths, instance_from="auto"):
    """The ``instance`` of each of ``paths`` as ``bitlens export`` (and :func:`scan`) names
    them together: ``"auto"`` the file name, or the folder where file names collide (three
    nodes' ``dump.rdb``); ``"file"``; ``"parent"``."""
    return _native.instance_names([_os.fsdecode(p) for p in paths], instance_from)


def to_pandas(data):
    """A ``pandas.DataFrame`` of ``data`` (what :func:`scan` returns, or a ``pyarrow.Table``)
    with pandas' nullable dtypes: integer columns with nulls (``memory``, ``idle_s``,
    ``bits_set``...) stay integers (``Int64``), booleans ``boolean``, text ``string``, where
    the default conversion turns nullable integers into float64."""
    import pandas as pd

    if hasattr(data, "read_all"):
        data = data.read_all()
    mapping = {
        _pa.int8(): pd.Int8Dtype(),
        _pa.int16(): pd.Int16Dtype(),
        _pa.int32(): pd.Int32Dtype(),
        _pa.int64(): pd.Int64Dtype(),
        _pa.bool_(): pd.BooleanDtype(),
        _pa.string(): pd.StringDtype(),
        _pa.float64(): pd.Float64Dtype(),
    }
    return data.to_pandas(types_mapper=mapping.get)


def redis(*paths, protocol=None, compat=None, clock=None, on_duplicate="error", checksum=True,
          password=None, **redis_kwargs):
    """A ``redis.Redis`` (redis-py) answering from the snapshot files ``paths`` in-process, as
    the server that wrote them would as a read-only replica: ``r.hgetall()``,
    ``r.zrange(..., withscores=True)``, ``r.xrange()``, pipelines and transactions behave as
    on a live server, over RESP2 or RESP3 (``protocol``: redis-py's default when ``None``),
    and errors raise redis-py's own exception classes (writes: ``redis.exceptions.
    ReadOnlyError``). Each connection of its pool runs :mod:`bitlens`' server (the one of
    ``bitlens resp``) over a socket pair in a daemon thread; no port is opened. The files
    are opened as :func:`open` opens them (``compat``, ``clock``, ``on_duplicate``,
    ``checksum``); ``password`` sets ``requirepass`` (and the client's password). Other
    keyword arguments go to ``redis.ConnectionPool`` (``db``, ``decode_responses``...).
    Needs redis-py (``pip install redis``)."""
    import redis as _redis

    server = _native.resp_server(
        *[_os.fsdecode(p) for p in paths],
        compat=compat,
        clock=clock,
        on_duplicate=on_duplicate,
        checksum=checksum,
        requirepass=password,
    )
    kwargs = dict(redis_kwargs)
    if protocol is not None:
        kwargs["protocol"] = protocol
    if password is not None:
        kwargs.setdefault("password", password)
    pool = _redis.ConnectionPool(
        connection_class=_snapshot_connection_class(_redis),
        bitlens_server=server,
        **kwargs,
    )
    return _redis.Redis(connection_pool=pool)


_CONNECTION_CLASS = None


def _snapshot_connection_class(_redis):
    """The redis-py connection class whose socket is one end of a socket pair served by a
    thread feeding :class:`bitlens._native.RespConnection`."""
    global _CONNECTION_CLASS
    if _CONNECTION_CLASS is not None:
        return _CONNECTION_CLASS
    import socket as _socket
    import threading as _threading

    def serve(sock, conn):
        with sock:
            while True:
                try:
                    data = sock.recv(1 << 16)
                except OSError:
                    return
                if not data:
                    return
                out, close = conn.feed(data)
                try:
                    if out:
                        sock.sendall(out)
                except OSError:
                    return
                if close:
                    return

    class SnapshotConnection(_redis.connection.Connection):
        def __init__(self, *, bitlens_server, **kwargs):
            self._bitlens_server = bitlens_server
            super().__init__(**kwargs)

        def _connect(self):
            client, served = _socket.socketpair()
            conn = self._bitlens_server.connect("in-process")
            _threading.Thread(target=serve, args=(served, conn), daemon=True).start()
            return client

        def _host_error(self):
            return "bitlens snapshot (in-process)"

        def repr_pieces(self):
            return [("bitlens", "snapshot"), ("db", self.db)]

    _CONNECTION_CLASS = SnapshotConnection
    return SnapshotConnection
