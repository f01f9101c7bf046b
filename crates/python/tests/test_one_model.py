"""One way in, one way out (issue 51): the CLI and Python open snapshots through the engine's
one opening API and serialise the views crate's one inspect model.

- Every conformance snapshot's ``inspect`` document is the same through ``bitlens inspect
  --json`` and ``bitlens.open(...).inspect()``, ``schema_version`` included.
- (The same bad inputs' same refusal from the CLI and Python: test_errors.py, over the table
  ``tests/errors.json`` that JavaScript's test reads too.)
"""

import json
import subprocess

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
