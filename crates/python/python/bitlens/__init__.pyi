from os import PathLike
from typing import Any, Dict, List, Optional, Union

import pyarrow

_Path = Union[str, "PathLike[str]"]
_Arg = Union[bytes, str, int, float]
Reply = Union[int, bytes, None, List["Reply"], "ReplyError"]

SCHEMA_VERSION: str

class ReplyError(Exception): ...

class SnapshotError(Exception):
    path: str
    offset: int
    key: Optional[bytes]
    kind: str
    def __init__(
        self, message: str, path: str, offset: int, key: Optional[bytes], kind: str
    ) -> None: ...

class Snapshot:
    def command(self, name: _Arg, *args: _Arg) -> Reply: ...
    def inspect(self, top: int = 20) -> Union[Dict[str, Any], List[Dict[str, Any]]]: ...
    def info(self) -> Union[Dict[str, Any], List[Dict[str, Any]]]: ...

def open(
    *paths: _Path, compat: Optional[str] = None, clock: Union[None, str, int] = None
) -> Snapshot: ...
def schema() -> pyarrow.Schema: ...
def scan(
    *paths: _Path,
    cluster: str = "default",
    batch: Optional[str] = None,
    instance: Optional[str] = None,
    batch_rows: int = 65536,
) -> pyarrow.RecordBatchReader: ...
