"""The same error everywhere (issue 51, item 4), Python's part: every case of the shared table
``tests/errors.json`` (read by the CLI's ``crates/cli/tests/errors.rs`` and JavaScript's
``tests/e2e/errors.test.mjs`` too: a missing path, a directory, a FIFO, an empty file, a
truncated file, random bytes, a bad checksum, a key in two files) raises, from ``bitlens.open``
and ``bitlens.scan`` alike, the exception class of the table's ``code`` (``bitlens.BY_CODE``:
one ``SnapshotError`` subclass per code; ``FileNotFoundError`` and ``IsADirectoryError`` for
paths) with that ``code``, the table's offset when it fixes one, and the words the CLI prints
after its ``error[CODE]: cannot read [snapshot] PATH: `` (each front end's own option names in
the hints). A FIFO is refused at once: it runs in a child process killed after 20 s.
"""

import json
import os
import subprocess
import sys
import time

import pytest

import bitlens
from conftest import REPO, bitlens_bin

TABLE = json.loads((REPO / "tests" / "errors.json").read_text())
SNAPSHOT = REPO / TABLE["snapshot"]

# The hints name each front end's own options; with them swapped, the words are the same.
PY_TO_CLI = [
    ("checksum=False", "--no-checksum"),
    ("open(..., on_duplicate='first'|'last') keeps one", "--on-duplicate first|last keeps one"),
]


def make_input(d, spec):
    """The paths of a case's input, made in ``d`` as the table's ``about`` says."""
    if spec.get("missing"):
        return [d / "missing.rdb"]
    if spec.get("directory"):
        (d / "a-directory").mkdir()
        return [d / "a-directory"]
    if spec.get("fifo"):
        os.mkfifo(d / "a-fifo")
        return [d / "a-fifo"]
    if "bytes_hex" in spec:
        data = bytes.fromhex(spec["bytes_hex"])
    else:
        assert spec["from"] == "snapshot"
        data = bytearray(SNAPSHOT.read_bytes())
        if "keep" in spec:
            data = data[: spec["keep"]]
        if spec.get("flip_last"):
            data[-1] ^= 0xFF
    f = d / "input.rdb"
    f.write_bytes(bytes(data))
    if spec.get("twice"):
        return [f, f]
    return [f]


def want_offset(case):
    off = case.get("offset")
    if off is not None and off < 0:
        return SNAPSHOT.stat().st_size + off
    return off


def cli_refusal(paths, command):
    """The CLI's one stderr line as (exit status, code, words after ``cannot read [snapshot]
    PATH: ``), failing if it takes more than 20 s (a FIFO must not block)."""
    if command == "query":
        argv = [bitlens_bin(), "query", *[a for p in paths for a in ("--rdb", str(p))], "PING"]
    else:
        argv = [bitlens_bin(), "inspect", "--json", *map(str, paths)]
    out = subprocess.run(argv, capture_output=True, timeout=20)
    lines = [l for l in out.stderr.decode().splitlines() if not l.startswith("bitlens: warning")]
    assert len(lines) == 1, lines
    rest = lines[0].removeprefix("bitlens: error[")
    code, words = rest.split("]: ", 1)
    for prefix in ("cannot read snapshot ", "cannot read "):
        if words.startswith(prefix):
            words = words[len(prefix):]
            break
    return out.returncode, code, words


def py_words(text):
    for py, cli in PY_TO_CLI:
        text = text.replace(py, cli)
    return text


def test_the_table_has_the_eight_bad_inputs():
    assert [c["name"] for c in TABLE["cases"]] == [
        "missing path", "directory", "fifo", "empty file", "truncated file", "random bytes",
        "bad checksum", "a key in two files",
    ]


def test_every_code_has_its_class():
    for code, cls in bitlens.BY_CODE.items():
        assert issubclass(cls, bitlens.SnapshotError)
        assert cls.code == code
    assert issubclass(bitlens.BY_CODE["not-found"], FileNotFoundError)
    assert issubclass(bitlens.BY_CODE["is-a-directory"], IsADirectoryError)
    assert bitlens.BY_CODE["duplicate-key"] is bitlens.DuplicateKeyError


@pytest.mark.parametrize("case", TABLE["cases"], ids=lambda c: c["name"])
def test_the_same_error_everywhere(tmp_path, case):
    paths = make_input(tmp_path, case["input"])
    cls = bitlens.BY_CODE[case["code"]]
    raised = {}
    # In a child process, so that a regression (a FIFO waited on) fails instead of hanging.
    code = (
        "import json, sys, bitlens\n"
        "paths = sys.argv[1:]\n"
        "for f in (lambda: bitlens.open(*paths), lambda: bitlens.scan(*paths).read_all()):\n"
        "    try:\n"
        "        f()\n"
        "    except bitlens.SnapshotError as e:\n"
        "        print(json.dumps([type(e).__name__, e.code, e.kind, e.offset, e.path, e.args[0],\n"
        "                          isinstance(e, FileNotFoundError), isinstance(e, IsADirectoryError)]))\n"
    )
    start = time.monotonic()
    out = subprocess.run(
        [sys.executable, "-c", code, *map(str, paths)], capture_output=True, timeout=20
    )
    assert time.monotonic() - start < 20
    lines = out.stdout.decode().splitlines()
    assert len(lines) == 2, (lines, out.stderr)
    for name, line in zip(("open", "scan"), lines):
        cls_name, got, kind, offset, path, message, not_found, is_dir = json.loads(line)
        assert (cls_name, got, kind) == (cls.__name__, case["code"], case["code"]), name
        if want_offset(case) is not None:
            assert offset == want_offset(case), name
        assert path == str(paths[-1]), name
        assert not_found == (case["code"] == "not-found"), name
        assert is_dir == (case["code"] == "is-a-directory"), name
        raised[name] = py_words(message)
    assert raised["open"] == raised["scan"]
    for command in ("query", "inspect"):
        status, got, words = cli_refusal(paths, command)
        assert status == 1, (command, words)
        assert got == case["code"], command
        assert words == raised["open"], command


def test_exceptions_carry_their_fields_in_process(tmp_path):
    # The classes themselves, raised in this process (not only printed by a child).
    (tmp_path / "e.rdb").write_bytes(b"")
    with pytest.raises(bitlens.EmptyFileError) as e:
        bitlens.open(tmp_path / "e.rdb")
    assert (e.value.code, e.value.offset, e.value.key) == ("empty", 0, None)
    with pytest.raises(FileNotFoundError) as e:
        bitlens.scan(tmp_path / "nope.rdb")
    assert isinstance(e.value, bitlens.SnapshotNotFoundError)
    assert (e.value.code, e.value.filename) == ("not-found", str(tmp_path / "nope.rdb"))
