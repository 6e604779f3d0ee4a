#!/usr/bin/env python3
"""What a job with a hard network topology that can never fit costs the other jobs.

Writes two scenario files of the same cluster -- NODES nodes of 4 cpu behind leaf
HyperNodes of LEAF nodes (tier 1), groups of GROUP leaves (tier 2) and one root (tier 3) --
with JOBS gang jobs of 4 x 1 cpu (half of them hard, highest tier 1) and, in the second
file only, a hard job of LEAF + 8 pods of 4 cpu at highest tier 1 (no leaf can ever hold
it), then runs each with `caldera scenario run` REPEAT times and prints the median wall
time of each, their difference, and what the impossible job's pods were told.

    bench/hypernode_bench.py BUILD/host/caldera [--nodes 1024] [--leaf 32] [--group 8]
                             [--jobs 200] [--repeat 5]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

CONFIG = """
[config]
[config.scheduler]
actions = ["enqueue", "allocate", "backfill"]
[[config.tiers]]
[[config.tiers.plugins]]
name = "priority"
[[config.tiers.plugins]]
name = "gang"
disable = ["preemptable"]
[[config.tiers.plugins]]
name = "conformance"
[[config.tiers]]
[[config.tiers.plugins]]
name = "drf"
disable = ["preemptable"]
[[config.tiers.plugins]]
name = "predicates"
[[config.tiers.plugins]]
name = "proportion"
[[config.tiers.plugins]]
name = "nodeorder"
[[config.tiers.plugins]]
name = "binpack"
[[config.tiers.plugins]]
name = "network-topology-aware"
"""


def scenario(args, impossible):
    out = ['name = "hypernode bench"', CONFIG]
    for i in range(args.nodes):
        out.append(f'[[nodes]]\nname = "n{i:05d}"\nallocatable = {{ cpu = "4", memory = "16Gi", pods = 110 }}')
    leaves = (args.nodes + args.leaf - 1) // args.leaf
    for l in range(leaves):
        lo, hi = l * args.leaf, min(args.nodes, (l + 1) * args.leaf)
        members = ", ".join(f'{{ type = "Node", exact_match = "n{i:05d}" }}' for i in range(lo, hi))
        out.append(f'[[hypernodes]]\nname = "leaf{l:04d}"\ntier = 1\nmembers = [{members}]')
    groups = (leaves + args.group - 1) // args.group
    for g in range(groups):
        members = ", ".join(f'{{ type = "HyperNode", exact_match = "leaf{l:04d}" }}'
                            for l in range(g * args.group, min(leaves, (g + 1) * args.group)))
        out.append(f'[[hypernodes]]\nname = "group{g:03d}"\ntier = 2\nmembers = [{members}]')
    members = ", ".join(f'{{ type = "HyperNode", exact_match = "group{g:03d}" }}' for g in range(groups))
    out.append(f'[[hypernodes]]\nname = "root"\ntier = 3\nmembers = [{members}]')
    for j in range(args.jobs):
        topo = '\nnetwork_topology = { mode = "hard", highest_tier_allowed = 1 }' if j % 2 else ""
        out.append(f'[[podgroups]]\nname = "job{j:04d}"\nmin_member = 4\nphase = "Inqueue"\ncreated = {j + 1}{topo}')
        for t in range(4):
            out.append(f'[[pods]]\nname = "job{j:04d}-{t}"\npodgroup = "job{j:04d}"\n'
                       f'requests = {{ cpu = "1", memory = "1Gi" }}')
    if impossible:
        out.append('[[podgroups]]\nname = "huge"\nmin_member = {}\nphase = "Inqueue"\ncreated = 0\n'
                   'network_topology = {{ mode = "hard", highest_tier_allowed = 1 }}'.format(args.leaf + 8))
        for t in range(args.leaf + 8):
            out.append(f'[[pods]]\nname = "huge-{t}"\npodgroup = "huge"\nrequests = {{ cpu = "4", memory = "1Gi" }}')
    return "\n".join(out) + "\n"


def run(caldera, path, repeat):
    times, last = [], None
    for _ in range(repeat):
        t0 = time.monotonic()
        p = subprocess.run([caldera, "scenario", "run", "--json", path], capture_output=True, text=True)
        times.append(time.monotonic() - t0)
        if p.returncode not in (0, 1):
            sys.exit(f"caldera failed on {path}: {p.stderr}")
        last = json.loads(p.stdout.splitlines()[0])
    return statistics.median(times), last


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("caldera")
    ap.add_argument("--nodes", type=int, default=1024)
    ap.add_argument("--leaf", type=int, default=32)
    ap.add_argument("--group", type=int, default=8)
    ap.add_argument("--jobs", type=int, default=200)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        base, worst = os.path.join(d, "base.toml"), os.path.join(d, "impossible.toml")
        with open(base, "w") as f:
            f.write(scenario(args, False))
        with open(worst, "w") as f:
            f.write(scenario(args, True))
        t_base, r_base = run(args.caldera, base, args.repeat)
        t_worst, r_worst = run(args.caldera, worst, args.repeat)
    print(f"cluster: {args.nodes} nodes, leaves of {args.leaf}, groups of {args.group} leaves; "
          f"{args.jobs} jobs of 4 pods (half hard, tier 1); one session; median of {args.repeat}")
    print(f"without the impossible job: {t_base:.3f} s, {len(r_base['binds'])} binds")
    print(f"with it ({args.leaf + 8} x 4 cpu, hard tier 1): {t_worst:.3f} s, "
          f"{len(r_worst['binds'])} binds (+{t_worst - t_base:.3f} s)")
    print(f"huge-0: {r_worst['pending'].get('default/huge-0', '(not pending)')}")
    same = sorted(r_base["binds"].items()) == sorted(r_worst["binds"].items())
    print(f"the other jobs' binds are {'the same' if same else 'DIFFERENT'} in both runs")


if __name__ == "__main__":
    main()
