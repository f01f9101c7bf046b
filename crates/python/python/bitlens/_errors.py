"""The exceptions of bitlens (raised by the native module too).

A snapshot that cannot be opened or decoded raises a :class:`SnapshotError` subclass chosen by
the error's stable ``code`` (the one the CLI prints as ``error[CODE]`` and JavaScript's
``EngineError.code`` holds; see the README's error section): one class per code, listed in
:data:`BY_CODE`. Paths that do not exist or are directories raise classes that are also
``FileNotFoundError`` / ``IsADirectoryError``.
"""

import errno as _errno
import os as _os


class ReplyError(Exception):
    """An error reply: ``str(e)`` is the server's text, code included
    (``WRONGTYPE Operation against a key holding the wrong kind of value``)."""


class SnapshotError(Exception):
    """A snapshot that cannot be opened or decoded.

    Attributes: ``code`` (the stable code, e.g. ``"truncated"``, ``"checksum"``,
    ``"not-found"``; each code has its subclass), ``path`` (str), ``offset`` (byte offset in
    the file where the problem was found; None for a file that could not be read and for a
    :class:`DuplicateKeyError`), ``key`` (bytes of the key concerned, or None), ``kind`` (the
    same as ``code``)."""

    code = "io"

    def __init__(self, message, path, offset=None, key=None, code=None):
        super().__init__(message)
        self.code = code or type(self).code
        self.kind = self.code
        self.path = path
        self.offset = offset
        self.key = key


def _oserror(self, number, path):
    # The OSError fields of a path error (errno, strerror, filename), as open() sets them.
    self.errno = number
    self.strerror = _os.strerror(number)
    self.filename = path


class SnapshotNotFoundError(SnapshotError, FileNotFoundError):
    """``not-found``: a path that does not exist; also a ``FileNotFoundError`` (``errno``
    ENOENT, ``filename`` the path), so ``except FileNotFoundError`` catches it."""

    code = "not-found"

    def __init__(self, message, path, offset=None, key=None, code=None):
        SnapshotError.__init__(self, message, path, offset, key, code)
        _oserror(self, _errno.ENOENT, path)


class SnapshotIsADirectoryError(SnapshotError, IsADirectoryError):
    """``is-a-directory``: a directory given as a snapshot; also an ``IsADirectoryError``
    (``errno`` EISDIR, ``filename`` the path)."""

    code = "is-a-directory"

    def __init__(self, message, path, offset=None, key=None, code=None):
        SnapshotError.__init__(self, message, path, offset, key, code)
        _oserror(self, _errno.EISDIR, path)


class SnapshotPermissionError(SnapshotError, PermissionError):
    """``permission-denied``: a file this process may not read; also a ``PermissionError``."""

    code = "permission-denied"

    def __init__(self, message, path, offset=None, key=None, code=None):
        SnapshotError.__init__(self, message, path, offset, key, code)
        _oserror(self, _errno.EACCES, path)


class NotARegularFileError(SnapshotError):
    """``not-a-regular-file``: a FIFO, socket or device, refused at once (never opened for
    reading, so a FIFO cannot block)."""

    code = "not-a-regular-file"


class EmptyFileError(SnapshotError):
    """``empty``: a file of 0 bytes (offset 0)."""

    code = "empty"


class TruncatedError(SnapshotError):
    """``truncated``: the file ends inside a structure (cut short, or still being written)."""

    code = "truncated"


class UnsupportedVersionError(SnapshotError):
    """``unsupported-version``: not an RDB header bitlens reads (no RDB file at all, a DUMP
    payload, or an RDB version it does not know)."""

    code = "unsupported-version"


class ChecksumError(SnapshotError):
    """``checksum``: the CRC-64 trailer does not match the content (``checksum=False`` skips
    the check)."""

    code = "checksum"


class UnknownTypeError(SnapshotError):
    """``unknown-type``: a value type byte the file's format does not define."""

    code = "unknown-type"


class UnsupportedError(SnapshotError):
    """``unsupported``: a record or encoding bitlens knows of but does not read."""

    code = "unsupported"


class CorruptError(SnapshotError):
    """``corrupt``: a structure the format does not allow."""

    code = "corrupt"


class IncompatibleError(SnapshotError):
    """``incompatible``: a DUMP payload whose format cannot go into the file written."""

    code = "incompatible"


class ReadError(SnapshotError):
    """``read``: the file failed while it was read."""

    code = "read"


class WriteError(SnapshotError):
    """``write``: writing an output failed."""

    code = "write"


class CancelledError(SnapshotError):
    """``cancelled``: the load was stopped (by its progress callback or its consumer)."""

    code = "cancelled"


class TooLargeError(SnapshotError):
    """``too-large``: a string longer than the limit on one value (``max_value_bytes=``)."""

    code = "too-large"


class DuplicateKeyError(SnapshotError):
    """``duplicate-key``: a key held by two of the files given to ``open()`` (shards of one
    cluster never share a key, so files of different clusters or times were mixed); ``open(...,
    on_duplicate="first"|"last")`` keeps one instead.

    Attributes: ``path`` (the second file holding it), ``first_path`` (the first), ``db``
    (int), ``key`` (bytes: the smallest such key of the smallest database), ``count`` (how
    many copies of keys repeat an earlier file's), ``offset`` None."""

    code = "duplicate-key"

    def __init__(self, message, first_path, path, db, key, count):
        super().__init__(message, path, None, key)
        self.first_path = first_path
        self.db = db
        self.count = count


#: The class raised for each code.
BY_CODE = {
    cls.code: cls
    for cls in (
        SnapshotNotFoundError,
        SnapshotIsADirectoryError,
        SnapshotPermissionError,
        NotARegularFileError,
        SnapshotError,
        EmptyFileError,
        DuplicateKeyError,
        TruncatedError,
        UnsupportedVersionError,
        ChecksumError,
        UnknownTypeError,
        UnsupportedError,
        CorruptError,
        IncompatibleError,
        ReadError,
        WriteError,
        CancelledError,
        TooLargeError,
    )
}


def _make(code, message, path, offset, key):
    """The exception of ``code`` (the native module's one way to build one; an unknown code
    gives a plain :class:`SnapshotError` of that code)."""
    cls = BY_CODE.get(code, SnapshotError)
    return cls(message, path, offset, key, code)
