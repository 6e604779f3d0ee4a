#!/usr/bin/env python3
"""Runs scenario files through Volcano's oracle and through Caldera and compares decisions.

  compare.py --caldera BIN [--oracle BIN] [--pending] [--dir DIR] FILE...

Decisions compared exactly: binds, evictions, pipelined tasks, PodGroup phases (and, with
--pending, the pending tasks' messages). A file the oracle reports unsupported, or on which
two oracle runs disagree (Volcano's own non-determinism, see ../shared/volcano/README.md),
is counted apart, never as agreement; so is a file where Caldera differs and one of
--reruns further oracle runs differs from the first (a Go map walk can agree twice). Prints one line per differing file and a summary;
exits 0 when every comparable file agrees, 1 otherwise, 77 (skip) when the oracle is absent.
"""
import argparse
import json
import os
import subprocess
import sys

FIELDS = ("binds", "evictions", "pipelined", "podgroup_phases")
HERE = os.path.dirname(os.path.abspath(__file__))
SHARED = os.path.normpath(os.path.join(HERE, "..", "..", "..", "shared", "volcano"))


def oracle_path(given):
    if given:
        return given
    unpack = os.path.join(SHARED, "unpack.sh")
    if not os.path.exists(unpack):
        return None
    out = subprocess.run([unpack], capture_output=True, text=True)
    if out.returncode != 0:
        return None
    return os.path.join(out.stdout.strip().splitlines()[-1], "volcano-oracle")


def toml_value_of(v):
    """v (str, list of str, dict of str) as a one-line TOML value."""
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(toml_value_of(x) for x in v) + "]"
    if isinstance(v, dict):
        if not v:
            return "{}"
        return "{ " + ", ".join(f"{json.dumps(k)} = {toml_value_of(x)}"
                                for k, x in sorted(v.items())) + " }"
    raise TypeError(v)


def run_json(cmd, files):
    """One JSON object per file, by file name."""
    out = {}
    p = subprocess.run(cmd + files, capture_output=True, text=True)
    for line in p.stdout.splitlines():
        line = line.strip()
        if line.startswith("{"):
            d = json.loads(line)
            out[d["file"]] = d
    return out


def decisions(d, pending):
    r = {k: d.get(k, {} if k in ("binds", "podgroup_phases") else []) for k in FIELDS}
    r["evictions"] = sorted(r["evictions"])
    r["pipelined"] = sorted(r["pipelined"])
    if pending:
        r["pending"] = d.get("pending", {})
    return r


def unstable_runs(oracle, f, first, pending, reruns):
    """The number of the first of `reruns` further oracle runs of f whose decisions differ
    from `first`, or 0 when they all agree."""
    for k in range(reruns):
        again = run_json([oracle], [f]).get(f, {})
        if decisions(again, pending) != first:
            return k + 3
    return 0


def diff_text(a, b):
    parts = []
    for k in a:
        if a[k] == b[k]:
            continue
        if isinstance(a[k], dict):
            keys = sorted(set(a[k]) | set(b[k]))
            d = [f"{x}: volcano {a[k].get(x)!r} caldera {b[k].get(x)!r}" for x in keys
                 if a[k].get(x) != b[k].get(x)]
            parts.append(f"{k} {{{'; '.join(d)}}}")
        else:
            parts.append(f"{k} volcano {a[k]} caldera {b[k]}")
    return "; ".join(parts)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--caldera", required=True)
    ap.add_argument("--oracle")
    ap.add_argument("--pending", action="store_true")
    ap.add_argument("--batch", type=int, default=200)
    # A run costs ~50 ms and only differing files pay it. 100: a Go map walk seen taking its
    # rarer branch 4 times in 30 (a job's Allocated tasks dispatched in map order, one of
    # them refused by the node) slipped past 20 reruns once (p = 0.87^22 = 4%); 0.87^102 is
    # under 1e-6.
    ap.add_argument("--reruns", type=int, default=100,
                    help="further oracle runs of a differing file, to tell Volcano's own "
                         "randomness from a difference")
    ap.add_argument("--dir", action="append", default=[],
                    help="also every *.toml of this folder (skip when it is absent)")
    ap.add_argument("files", nargs="*")
    a = ap.parse_args()
    for d in a.dir:
        if not os.path.isdir(d):
            print(f"SKIP: {d} is absent")
            return 77
        a.files += sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith(".toml"))
    if not a.files:
        ap.error("no scenario files")
    oracle = oracle_path(a.oracle)
    if not oracle or not os.path.exists(oracle):
        print(f"SKIP: Volcano's oracle is not available ({SHARED} absent or unpack failed)")
        return 77
    agree = differ = unsupported = unstable = errors = 0
    for i in range(0, len(a.files), a.batch):
        files = a.files[i:i + a.batch]
        v1 = run_json([oracle], files)
        v2 = run_json([oracle], files)
        c = run_json([a.caldera, "scenario", "run", "--json"], files)
        for f in files:
            o = v1.get(f)
            if o is None or "error" in o:
                errors += 1
                print(f"ERROR {f}: oracle: {o.get('error') if o else 'no output'}")
                continue
            if "unsupported" in o:
                unsupported += 1
                continue
            if decisions(o, a.pending) != decisions(v2.get(f, {}), a.pending):
                unstable += 1
                print(f"UNSTABLE {f}: two oracle runs differ")
                continue
            if f not in c or "error" in c[f]:
                errors += 1
                print(f"ERROR {f}: caldera: {c[f]['error'] if f in c else 'no result'}")
                continue
            dv, dc = decisions(o, a.pending), decisions(c[f], a.pending)
            if dv == dc:
                agree += 1
                continue
            # Before calling it a difference, look harder for Volcano's own randomness (a
            # victim taken from a Go map walk can agree twice by chance): more oracle runs
            # of this file, any of which differing from the first makes it unstable.
            runs = unstable_runs(oracle, f, dv, a.pending, a.reruns)
            if runs:
                unstable += 1
                print(f"UNSTABLE {f}: oracle run {runs} of {a.reruns + 2} differs from the first")
                continue
            differ += 1
            print(f"DIFF {f}: {diff_text(dv, dc)}")
    total = agree + differ
    print(f"{agree} of {total} agree ({100.0 * agree / max(total, 1):.1f}%); {unsupported} "
          f"unsupported by the oracle, {unstable} where Volcano itself is not deterministic, "
          f"{errors} errors")
    return 0 if differ == 0 and errors == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
