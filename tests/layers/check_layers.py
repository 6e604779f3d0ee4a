#!/usr/bin/env python3
"""The host's layers, checked on its #include lines.

Each folder of host/, actions/ and sdk/ belongs to one layer; a file may include headers of
its own layer and of layers below it, never of a layer above it or beside it (two backends
know nothing of each other). The order is the one host/meson.build links in:

    sdk < util < toml < model < config < cache < scenario < session < actions < plugins
        < scheduler < supervisor < backend/sim | backend/kubernetes | metrics < results
        < reload | replay < cli < host (main.cpp)

It also refuses a cycle of includes between files (which the layer order alone would allow
inside one layer), an #include of a host file that does not exist, and a file that belongs
to no layer (a new folder must be given its place here).

    check_layers.py ROOT        check the tree at ROOT; exit 1 and list every problem
    check_layers.py --self-test show that each kind of problem is caught (exit 1 if not)
"""
import os
import re
import sys
import tempfile

# Rank of each layer; layers of one rank may not include each other.
LAYERS = [
    ("sdk", 0),
    ("util", 1),
    ("toml", 2),
    ("model", 3),
    ("config", 4),
    ("cache", 5),
    ("scenario", 6),
    ("session", 7),
    ("actions", 8),
    ("plugins", 9),
    ("scheduler", 10),
    ("supervisor", 11),
    ("backend/sim", 12),
    ("backend/kubernetes", 12),
    ("metrics", 12),
    ("results", 13),
    ("reload", 14),
    ("replay", 14),
    ("cli", 15),
    ("host", 16),
]
RANK = dict(LAYERS)
SOURCE = re.compile(r"\.(c|cc|cpp|h|hpp)$")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def layer_of(path):
    """The layer of a path relative to the root, or None."""
    parts = path.split("/")
    if parts[0] == "sdk":
        return "sdk"
    if parts[0] == "actions":
        return "actions"
    if parts[0] != "host":
        return None
    if len(parts) == 2:
        return "host"
    if parts[1] == "backend" and len(parts) > 3:
        name = "backend/" + parts[2]
    else:
        name = parts[1]
    return name if name in RANK else None


def resolve(root, including, inc):
    """The included file, relative to root, or None when it is not a file of the tree."""
    candidates = [
        os.path.normpath(os.path.join(os.path.dirname(including), inc)),
        inc,
        "sdk/c-abi/" + inc,
        "sdk/include/" + inc,
    ]
    for c in candidates:
        if os.path.isfile(os.path.join(root, c)):
            return c
    return None


def sources(root):
    for top in ("host", "actions", "sdk"):
        for folder, _, names in os.walk(os.path.join(root, top)):
            for n in sorted(names):
                if SOURCE.search(n):
                    yield os.path.relpath(os.path.join(folder, n), root).replace(os.sep, "/")


def check(root):
    """Every problem of the tree at root, as 'FILE:LINE: text' lines."""
    problems = []
    graph = {}
    for f in sorted(sources(root)):
        here = layer_of(f)
        if here is None:
            problems.append(f"{f}: belongs to no layer (give its folder a place in "
                            f"tests/layers/check_layers.py and host/meson.build)")
            continue
        graph[f] = []
        with open(os.path.join(root, f), encoding="utf-8", errors="replace") as fh:
            for n, line in enumerate(fh, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                inc = m.group(1)
                target = resolve(root, f, inc)
                if target is None:
                    if inc.startswith(("host/", "actions/")):
                        problems.append(f"{f}:{n}: includes \"{inc}\", which does not exist")
                    continue
                graph[f].append((target, n))
                there = layer_of(target)
                if there is None or there == here:
                    continue
                if RANK[there] > RANK[here]:
                    problems.append(f"{f}:{n}: layer {here} includes \"{inc}\" of layer "
                                    f"{there}, which is above it")
                elif RANK[there] == RANK[here]:
                    problems.append(f"{f}:{n}: layer {here} includes \"{inc}\" of layer "
                                    f"{there}, beside it (neither may know the other)")
    problems += cycles(graph)
    return problems


def cycles(graph):
    """One line per include cycle found (depth-first, each cycle reported once)."""
    out, state, stack = [], {}, []

    def visit(f):
        state[f] = 1
        stack.append(f)
        for target, _ in graph.get(f, []):
            if state.get(target) == 1:
                loop = stack[stack.index(target):] + [target]
                out.append("include cycle: " + " -> ".join(loop))
            elif target not in state:
                visit(target)
        stack.pop()
        state[f] = 2

    sys.setrecursionlimit(10000)
    for f in sorted(graph):
        if f not in state:
            visit(f)
    return out


def self_test():
    """Builds small trees with one problem each and checks that check() names it."""
    cases = {
        "upward include": (
            {"host/model/a.hpp": '#include "host/session/b.hpp"\n',
             "host/session/b.hpp": "\n"},
            'host/model/a.hpp:1: layer model includes "host/session/b.hpp" of layer session, '
            "which is above it"),
        "sideways include": (
            {"host/backend/sim/a.hpp": '#include "host/backend/kubernetes/b.hpp"\n',
             "host/backend/kubernetes/b.hpp": "\n"},
            "of layer backend/kubernetes, beside it"),
        "cycle": (
            {"host/session/a.hpp": '#include "host/session/b.hpp"\n',
             "host/session/b.hpp": '#include "host/session/a.hpp"\n'},
            "include cycle: host/session/a.hpp -> host/session/b.hpp -> host/session/a.hpp"),
        "missing header": (
            {"host/cache/a.hpp": '#include "host/cache/gone.hpp"\n'},
            'host/cache/a.hpp:1: includes "host/cache/gone.hpp", which does not exist'),
        "unknown folder": (
            {"host/misc/a.hpp": "\n"},
            "host/misc/a.hpp: belongs to no layer"),
    }
    failed = 0
    for name, (files, expected) in cases.items():
        with tempfile.TemporaryDirectory() as d:
            for rel, text in files.items():
                os.makedirs(os.path.dirname(os.path.join(d, rel)), exist_ok=True)
                with open(os.path.join(d, rel), "w") as fh:
                    fh.write(text)
            found = check(d)
            ok = any(expected in p for p in found)
            print(f"{'PASS' if ok else 'FAIL'} {name}: {found}")
            failed += not ok
    # And a clean tree passes: a downward include is fine.
    with tempfile.TemporaryDirectory() as d:
        for rel, text in {"host/session/a.hpp": '#include "host/model/b.hpp"\n',
                          "host/model/b.hpp": '#include "caldera/plugin.h"\n',
                          "sdk/c-abi/caldera/plugin.h": "\n"}.items():
            os.makedirs(os.path.dirname(os.path.join(d, rel)), exist_ok=True)
            with open(os.path.join(d, rel), "w") as fh:
                fh.write(text)
        found = check(d)
        print(f"{'PASS' if not found else 'FAIL'} downward includes pass: {found}")
        failed += bool(found)
    print(f"{6 - failed} passed, {failed} failed")
    return 1 if failed else 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    problems = check(argv[1])
    for p in problems:
        print(p)
    n = sum(1 for _ in sources(argv[1]))
    print(f"layers: {n} files, {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
