"""One way in, one way out (issue 51): the CLI and Python open snapshots through the engine's
one opening API and serialise the views crate's one inspect model.

- Every conformance snapshot's ``inspect`` document is the same through ``bitlens inspect
  --json`` and ``bitlens.open(...).inspect()``, ``schema_version`` included.
- The same bad inputs get the same refusal from the CLI (``query --rdb``, ``inspect``) and
  Python (``open``, ``scan``): the same words (each front end's own option names in the
  hints) and, in Python, the same exception class and ``kind``.
"""

import json
import os
import subprocess
import sys
import time

import pytest

import bitlens
from conftest import CONFORMANCE, bitlens_bin, inspect_json

SNAPSHOTS = sorted(p for p in CONFORMANCE.rglob("*.rdb"))


def test_there_are_conformance_snapshots():
    # (The comparison below must not pass by comparing nothing.)
    assert len(SNAPSHOTS) >= 8, SNAPSHOTS


@pytest.mark.parametrize("path", SNAPSHOTS, ids=lambda p: str(p.relative_to(CONFORMANCE)))
def test_inspect_document_is_the_clis(path):
    cli = inspect_json(path)
    py = bitlens.open(path).inspect(top=100000)
    assert cli["schema_version"] == 1
    assert py == cli


def test_inspect_document_of_several_files_is_the_clis(shards):
    # (The six servers' files share keys: the last file's entry counts, in both.)
    cli = json.loads(
        subprocess.run(
            [bitlens_bin(), "inspect", "--json", "--top", "100000", "--on-duplicate", "last",
             *map(str, shards)],
            check=True,
            capture_output=True,
        ).stdout
    )
    with pytest.warns(UserWarning, match="the files' writers differ"):
        snap = bitlens.open(*shards, on_duplicate="last")
    assert snap.inspect(top=100000) == cli
    assert len(cli["files"]) == len(shards)


# The hints name each front end's own options; with them swapped, the words are the same.
PY_TO_CLI = [
    ("checksum=False", "--no-checksum"),
    ("open(..., on_duplicate='first'|'last') keeps one", "--on-duplicate first|last keeps one"),
]


def cli_words(path_args, *, command):
    """The CLI's refusal (stderr's one line, less `bitlens: ` and `cannot read [snapshot]
    PATH: `) and its exit status, failing if it takes more than 20 s (a FIFO must not
    block)."""
    if command == "query":
        args = [a for p in path_args for a in ("--rdb", str(p))] + ["PING"]
        argv = [bitlens_bin(), "query", *args]
    else:
        argv = [bitlens_bin(), "inspect", "--json", *map(str, path_args)]
    out = subprocess.run(argv, capture_output=True, timeout=20)
    lines = [l for l in out.stderr.decode().splitlines() if not l.startswith("bitlens: warning")]
    assert len(lines) == 1, lines
    line = lines[0].removeprefix("bitlens: ")
    for prefix in ("cannot read snapshot ", "cannot read "):
        if line.startswith(prefix):
            line = line[len(prefix):]
            break
    return out.returncode, line


def py_words(e):
    text = e.args[0]
    for py, cli in PY_TO_CLI:
        text = text.replace(py, cli)
    return text


def make_inputs(tmp_path):
    good = CONFORMANCE / "redis-7.4.1" / "dump.rdb"
    data = good.read_bytes()
    d = tmp_path / "a-directory"
    d.mkdir()
    fifo = tmp_path / "a-fifo"
    os.mkfifo(fifo)
    empty = tmp_path / "empty.rdb"
    empty.write_bytes(b"")
    cut = tmp_path / "cut.rdb"
    cut.write_bytes(data[: len(data) // 2])
    noise = tmp_path / "noise.rdb"
    noise.write_bytes(bytes((i * 97 + 13) % 251 for i in range(4096)))
    bad_crc = tmp_path / "bad-crc.rdb"
    bad_crc.write_bytes(data[:-1] + bytes([data[-1] ^ 0xFF]))
    return {
        # name: (paths, Python exception class, kind, offset: None, an int, or "any")
        "missing path": ([tmp_path / "missing.rdb"], bitlens.SnapshotNotFoundError, "Io", None),
        "directory": ([d], bitlens.SnapshotIsADirectoryError, "Io", None),
        "fifo": ([fifo], bitlens.SnapshotError, "Io", None),
        "empty file": ([empty], bitlens.SnapshotError, "Truncated", 0),
        "truncated file": ([cut], bitlens.SnapshotError, "Truncated", "any"),
        "random bytes": ([noise], bitlens.SnapshotError, "UnsupportedVersion", 0),
        "bad checksum": ([bad_crc], bitlens.SnapshotError, "Checksum", len(data) - 8),
        "one file twice": ([good, good], bitlens.DuplicateKeyError, "DuplicateKey", None),
    }


CASES = [
    "missing path",
    "directory",
    "fifo",
    "empty file",
    "truncated file",
    "random bytes",
    "bad checksum",
    "one file twice",
]


@pytest.mark.parametrize("case", CASES)
def test_the_same_refusal_everywhere(tmp_path, case):
    paths, cls, kind, offset = make_inputs(tmp_path)[case]
    raised = {}
    if case == "fifo":
        # In a child process, so that a regression (a FIFO waited on) fails instead of hanging.
        code = (
            "import sys, bitlens\n"
            "for f in (lambda p: bitlens.open(p), lambda p: bitlens.scan(p).read_all()):\n"
            "    try:\n"
            "        f(sys.argv[1])\n"
            "    except bitlens.SnapshotError as e:\n"
            "        print(type(e).__name__, e.kind, e.offset, e.args[0], sep='|')\n"
        )
        start = time.monotonic()
        out = subprocess.run(
            [sys.executable, "-c", code, str(paths[0])], capture_output=True, timeout=20
        )
        assert time.monotonic() - start < 20
        lines = out.stdout.decode().splitlines()
        assert len(lines) == 2, (lines, out.stderr)
        for name, line in zip(("open", "scan"), lines):
            cls_name, k, off, msg = line.split("|", 3)
            assert (cls_name, k, off) == ("SnapshotError", "Io", "None"), name
            raised[name] = msg
    else:
        for name, call in (
            ("open", lambda: bitlens.open(*paths)),
            ("scan", lambda: bitlens.scan(*paths).read_all()),
        ):
            with pytest.raises(cls) as e:
                call()
            assert type(e.value) is cls, name
            assert e.value.kind == kind, name
            if offset == "any":
                assert isinstance(e.value.offset, int) and e.value.offset > 0, name
            else:
                assert e.value.offset == offset, name
            raised[name] = py_words(e.value)
    if case == "missing path":
        assert issubclass(cls, FileNotFoundError)
    if case == "directory":
        assert issubclass(cls, IsADirectoryError)
    assert raised["open"] == raised["scan"]
    for command in ("query", "inspect"):
        status, words = cli_words(paths, command=command)
        assert status == 1, (command, words)
        assert words == raised["open"], command
