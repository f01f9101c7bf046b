from os import PathLike
from typing import Any, Dict, List, Literal, Optional, Union

import pyarrow

_Path = Union[str, bytes, "PathLike[str]", "PathLike[bytes]"]
_Arg = Union[bytes, str, int, float]
Reply = Union[int, bytes, None, List["Reply"], "ReplyError"]

SCHEMA_VERSION: str

class ReplyError(Exception): ...

class SnapshotError(Exception):
    path: str
    offset: Optional[int]
    key: Optional[bytes]
    kind: str
    def __init__(
        self, message: str, path: str, offset: Optional[int], key: Optional[bytes], kind: str
    ) -> None: ...

class DuplicateKeyError(SnapshotError):
    first_path: str
    db: int
    count: int
    key: bytes
    def __init__(
        self, message: str, first_path: str, path: str, db: int, key: bytes, count: int
    ) -> None: ...

class SnapshotNotFoundError(SnapshotError, FileNotFoundError):
    def __init__(self, message: str, path: str) -> None: ...

class SnapshotIsADirectoryError(SnapshotError, IsADirectoryError):
    def __init__(self, message: str, path: str) -> None: ...

class Snapshot:
    def command(self, name: _Arg, *args: _Arg, resp: Literal[2, 3] = 2) -> Reply: ...
    def inspect(self, top: int = 20) -> Dict[str, Any]: ...
    def info(self) -> Dict[str, Any]: ...

def open(
    *paths: _Path,
    compat: Optional[str] = None,
    clock: Union[None, str, int] = None,
    on_duplicate: Literal["error", "first", "last"] = "error",
    checksum: bool = True,
) -> Snapshot: ...
def schema() -> pyarrow.Schema: ...
def scan(
    *paths: _Path,
    cluster: str = "default",
    batch: Optional[str] = None,
    instance: Optional[str] = None,
    batch_rows: int = 65536,
    instance_from: Literal["auto", "file", "parent"] = "auto",
    match: Union[None, str, bytes, List[Union[str, bytes]]] = None,
    db: Optional[int] = None,
) -> pyarrow.RecordBatchReader: ...
def instance_names(
    paths: List[_Path], instance_from: Literal["auto", "file", "parent"] = "auto"
) -> List[str]: ...
def to_pandas(data: Union[pyarrow.RecordBatchReader, pyarrow.Table]) -> Any: ...
def redis(
    *paths: _Path,
    protocol: Optional[int] = None,
    compat: Optional[str] = None,
    clock: Union[None, str, int] = None,
    on_duplicate: Literal["error", "first", "last"] = "error",
    checksum: bool = True,
    password: Optional[str] = None,
    **redis_kwargs: Any,
) -> Any: ...
