#!/usr/bin/env python3
"""Keeps a state as a scenario test: runs FILE through Volcano's oracle (twice, refusing a
file on which the runs differ) and writes OUT with an [expect] table of the oracle's
decisions (binds, bind_count, evictions, pipelined, PodGroup phases; with --pending also
each pending task's message, whole), after a comment that says what the file shows.

  keep.py FILE OUT --why "what Volcano does here and why" [--pending] [--oracle BIN]

Used for each kind of difference the differential suite finds (tests/scenarios/).
"""
import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import oracle_path, toml_value_of  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("out")
    ap.add_argument("--why", required=True)
    ap.add_argument("--oracle")
    ap.add_argument("--pending", action="store_true",
                    help="also expect each pending task's message as the oracle words it")
    a = ap.parse_args()
    oracle = oracle_path(a.oracle)
    if not oracle:
        sys.exit("Volcano's oracle is not available")
    runs = []
    for _ in range(2):
        p = subprocess.run([oracle, a.file], capture_output=True, text=True, check=True)
        runs.append(json.loads(p.stdout.strip().splitlines()[-1]))
    keys = ("binds", "evictions", "pipelined", "podgroup_phases") + (
        ("pending",) if a.pending else ())
    if any(runs[0].get(k) != runs[1].get(k) for k in keys):
        sys.exit(f"{a.file}: two oracle runs differ; not a test")
    d = runs[0]
    if "error" in d or "unsupported" in d:
        sys.exit(f"{a.file}: {d.get('error') or d.get('unsupported')}")
    with open(a.file) as f:
        body = f.read()
    if "[expect]" in body:
        body = body[:body.index("[expect]")]
    head = "".join(f"# {line}\n" if line else "#\n" for line in a.why.strip().split("\n"))
    head += "# Expectations: volcano-oracle's output on this file.\n"
    expect = ["[expect]",
              f"binds = {toml_value_of(d.get('binds', {}))}",
              f"bind_count = {len(d.get('binds', {}))}",
              f"evictions = {toml_value_of(sorted(d.get('evictions', [])))}",
              f"pipelined = {toml_value_of(sorted(d.get('pipelined', [])))}",
              f"podgroup_phases = {toml_value_of(d.get('podgroup_phases', {}))}"]
    if a.pending and d.get("pending"):
        expect.append(f"pending = {toml_value_of(d['pending'])}")
    with open(a.out, "w") as f:
        f.write(head + body.rstrip() + "\n\n" + "\n".join(expect) + "\n")


if __name__ == "__main__":
    main()
