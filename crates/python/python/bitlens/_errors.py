"""The exceptions of bitlens (raised by the native module too)."""

import errno as _errno
import os as _os


class ReplyError(Exception):
    """An error reply: ``str(e)`` is the server's text, code included
    (``WRONGTYPE Operation against a key holding the wrong kind of value``)."""


class SnapshotError(Exception):
    """A snapshot that cannot be decoded (or read).

    Attributes: ``path`` (str), ``offset`` (byte offset in the file where the problem was
    found; None for a file that could not be read and for a :class:`DuplicateKeyError`), ``key`` (bytes of the key being decoded, or None), ``kind`` (``Truncated``,
    ``Corrupt``, ``Checksum``, ``UnsupportedVersion``, ``UnknownType``, ``Unsupported``,
    ``Io``, ``DuplicateKey``...)."""

    def __init__(self, message, path, offset, key, kind):
        super().__init__(message)
        self.path = path
        self.offset = offset
        self.key = key
        self.kind = kind


class DuplicateKeyError(SnapshotError):
    """A key held by two of the files given to ``open()`` (shards of one cluster never share
    a key, so files of different clusters or times were mixed); ``open(...,
    on_duplicate="first"|"last")`` keeps one instead.

    Attributes: ``path`` (the second file holding it), ``first_path`` (the first), ``db``
    (int), ``key`` (bytes: the smallest such key of the smallest database), ``count`` (how
    many copies of keys repeat an earlier file's), ``offset`` None, ``kind`` ``"DuplicateKey"``."""

    def __init__(self, message, first_path, path, db, key, count):
        super().__init__(message, path, None, key, "DuplicateKey")
        self.first_path = first_path
        self.db = db
        self.count = count


class SnapshotNotFoundError(SnapshotError, FileNotFoundError):
    """A path given to ``open()`` or ``scan()`` that does not exist: both a
    :class:`SnapshotError` (``kind`` ``"Io"``, ``offset`` None) and a ``FileNotFoundError``
    (``errno`` ENOENT, ``filename`` the path), so ``except FileNotFoundError`` catches it."""

    def __init__(self, message, path):
        SnapshotError.__init__(self, message, path, None, None, "Io")
        self.errno = _errno.ENOENT
        self.strerror = _os.strerror(_errno.ENOENT)
        self.filename = path


class SnapshotIsADirectoryError(SnapshotError, IsADirectoryError):
    """A directory given to ``open()`` or ``scan()`` as a snapshot: both a
    :class:`SnapshotError` (``kind`` ``"Io"``, ``offset`` None) and an ``IsADirectoryError``
    (``errno`` EISDIR, ``filename`` the path)."""

    def __init__(self, message, path):
        SnapshotError.__init__(self, message, path, None, None, "Io")
        self.errno = _errno.EISDIR
        self.strerror = _os.strerror(_errno.EISDIR)
        self.filename = path
