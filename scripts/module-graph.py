#!/usr/bin/env python3
"""The workspace's crate graph, then the core crate's module dependency graph, from its `crate::` paths (use lines and inline
paths), without test code (`#[cfg(test)]` modules, the files of modules declared under
`#[cfg(test)]`, and the `tests.rs` files).

Usage: python3 scripts/module-graph.py [--files]
Prints one line per top-level module: `module -> dependencies`, then the cycles found (strongly
connected components of more than one module) and any import from rdb/* into command/*.
The crate graph comes from `cargo metadata` (workspace members and their path dependencies
among each other); each crate has a layer (engine 0, views / charts 1, export 2, glue and the CLI 3,
Python, tests and benches 4) and may depend only on lower layers.
Exits 1 when there is a cycle, such an import or an upward crate edge. `--files` prints the file-level edges too.
"""
import json
import os
import re
import subprocess
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")


def module_of(path):
    rel = os.path.relpath(path, ROOT)[:-3].split(os.sep)
    if rel[-1] in ("mod", "lib"):
        rel = rel[:-1]
    return rel


def code_without_tests(text):
    """Drops comments and everything from a `#[cfg(test)]` module on."""
    out = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.strip() == "#[cfg(test)]" and i + 1 < len(lines) and re.match(
            r"\s*(pub(\(crate\))? )?mod \w+", lines[i + 1]
        ):
            if lines[i + 1].rstrip().endswith(";"):
                i += 2
                continue
            # A test module block: skip to its matching closing brace.
            depth = 0
            j = i + 1
            while j < len(lines):
                depth += lines[j].count("{") - lines[j].count("}")
                if depth <= 0 and "{" in "".join(lines[i + 1 : j + 1]):
                    break
                j += 1
            i = j + 1
            continue
        out.append(re.sub(r"//.*", "", line))
        i += 1
    return "\n".join(out)


def refs(code):
    """Top-level and second-level module names referenced through `crate::`."""
    found = set()
    for m in re.finditer(r"crate::\{([^}]*)\}", code):
        for part in m.group(1).split(","):
            part = part.strip()
            if part:
                segs = re.findall(r"[a-z_][a-z0-9_]*", part)
                if segs:
                    found.add(tuple(segs[:2]))
    for m in re.finditer(r"crate::([a-z_][a-z0-9_]*)(?:::([a-z_][a-z0-9_]*))?", code):
        found.add(tuple(x for x in m.groups() if x))
    return found


def test_only_files():
    """Files of modules declared `#[cfg(test)] mod name;` (test support such as rdb/mutate.rs)."""
    out = set()
    for d, _, names in os.walk(ROOT):
        for n in names:
            if not n.endswith(".rs"):
                continue
            path = os.path.join(d, n)
            base = d if n in ("mod.rs", "lib.rs") else os.path.join(d, n[:-3])
            text = open(path, encoding="utf-8").read()
            for m in re.finditer(r"#\[cfg\(test\)\]\s*(?:pub(?:\(crate\))? )?mod (\w+);", text):
                for cand in (os.path.join(base, m.group(1) + ".rs"), os.path.join(base, m.group(1), "mod.rs")):
                    out.add(os.path.normpath(cand))
    return out


def main():
    files = []
    skip = test_only_files()
    for d, _, names in os.walk(ROOT):
        for n in names:
            path = os.path.normpath(os.path.join(d, n))
            if n.endswith(".rs") and n != "tests.rs" and path not in skip:
                files.append(path)
    top = {}
    file_edges = []
    for f in sorted(files):
        mod = module_of(f)
        if not mod:
            continue
        code = code_without_tests(open(f, encoding="utf-8").read())
        for r in refs(code):
            if r[0] == mod[0] or r[0] in ("Value", "Keyspace", "Reply", "execute"):
                # Same top-level module, or a crate-root re-export.
                continue
            top.setdefault(mod[0], set()).add(r[0])
            file_edges.append(("::".join(mod), "::".join(r)))
        top.setdefault(mod[0], set())
    for m in sorted(top):
        print(f"{m} -> {', '.join(sorted(top[m])) or '(nothing)'}")
    if "--files" in sys.argv:
        for a, b in sorted(set(file_edges)):
            print(f"  {a} -> {b}")
    # Tarjan's strongly connected components.
    index, low, stack, on, sccs = {}, {}, [], set(), []
    counter = [0]

    def strong(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in top.get(v, ()):
            if w not in top:
                continue
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                sccs.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(top):
        if v not in index:
            strong(v)
    bad = False
    for c in sccs:
        print("cycle:", " <-> ".join(c))
        bad = True
    for a, b in file_edges:
        if a.startswith("rdb") and b.startswith("command"):
            print(f"file format imports the interpreter: {a} -> {b}")
            bad = True
    if not bad:
        print("no cycles; no import from rdb/* into command/*")
    crates_bad = crate_graph()
    sys.exit(1 if bad or crates_bad else 0)


# The crates' layers: a crate may depend only on crates of a lower layer.
LAYERS = {
    "bitlens": 0,
    "bitlens-views": 1,
    "bitlens-charts": 1,
    "bitlens-export": 2,
    # Reading JS options objects, for both wasm glue crates (no bitlens crate below it).
    "bitlens-wasm-options": 2,
    "bitlens-cli": 3,
    "bitlens-wasm": 3,
    "bitlens-wasm-charts": 3,
    # The Python module opens files through the engine's `open` and reports through the views
    # crate, as the CLI does: a front end beside it, never above it (issue 51).
    "bitlens-python": 3,
    "bitlens-difftest": 4,
    "bitlens-bench": 4,
    # The seed of every randomized test (a dev-dependency of the crates above; no bitlens
    # crate below it).
    "bitlens-testseed": 0,
}


def crate_graph():
    """Prints the workspace crates' edges; True when one is upward, sideways or unknown."""
    try:
        out = subprocess.run(
            ["cargo", "metadata", "--no-deps", "--format-version", "1"],
            cwd=os.path.join(ROOT, ".."), capture_output=True, text=True, check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"cargo metadata failed: {e}")
        return True
    members = {p["name"]: p for p in json.loads(out)["packages"]}
    bad = False
    print("crates:")
    for name in sorted(members, key=lambda n: (LAYERS.get(n, 99), n)):
        deps = sorted({d["name"] for d in members[name]["dependencies"]
                       if d["name"] in members and d.get("kind") in (None, "normal")})
        print(f"  {name} (layer {LAYERS.get(name, '?')}) -> {', '.join(deps) or '(nothing)'}")
        if name not in LAYERS:
            print(f"  {name} has no layer in scripts/module-graph.py")
            bad = True
            continue
        for d in deps:
            if LAYERS.get(d, 99) >= LAYERS[name]:
                print(f"  upward or sideways crate edge: {name} -> {d}")
                bad = True
    if not bad:
        print("no upward crate edges")
    return bad


if __name__ == "__main__":
    main()
