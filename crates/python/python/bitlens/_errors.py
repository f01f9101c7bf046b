"""The exceptions of bitlens (raised by the native module too)."""


class ReplyError(Exception):
    """An error reply: ``str(e)`` is the server's text, code included
    (``WRONGTYPE Operation against a key holding the wrong kind of value``)."""


class SnapshotError(Exception):
    """A snapshot that cannot be decoded (or read).

    Attributes: ``path`` (str), ``offset`` (byte offset in the file where the problem was
    found), ``key`` (bytes of the key being decoded, or None), ``kind`` (``Truncated``,
    ``Corrupt``, ``Checksum``, ``UnsupportedVersion``, ``UnknownType``, ``Unsupported``,
    ``Io``...)."""

    def __init__(self, message, path, offset, key, kind):
        super().__init__(message)
        self.path = path
        self.offset = offset
        self.key = key
        self.kind = kind
