#!/usr/bin/env python3
"""Random small cluster states as scenario files (../../../shared/SCENARIOS.md), for the
differential comparison with Volcano's oracle (compare.py).

  generate.py --out DIR --seeds A..B [--family NAME ...]

One file per seed and family: DIR/<family>-<seed>.toml. The same seed and family give the
same file. Families are config variants (Volcano's default policy and the ones with preempt,
reclaim, capacity); the state is drawn from the seed alone, so each family sees the same
clusters.
"""
import argparse
import os
import random

DEFAULT_TIERS = [
    [("priority", {}), ("gang", {"disable": ["preemptable"]}), ("conformance", {})],
    [("overcommit", {}), ("drf", {"disable": ["preemptable"]}), ("predicates", {}),
     ("proportion", {}), ("nodeorder", {}), ("binpack", {})],
]
FAMILIES = {
    "default": (["enqueue", "allocate", "backfill"], DEFAULT_TIERS),
    "preempt": (["enqueue", "allocate", "preempt", "backfill"], DEFAULT_TIERS),
    "reclaim": (["enqueue", "allocate", "reclaim", "backfill"], DEFAULT_TIERS),
    "capacity": (["enqueue", "allocate", "reclaim", "backfill"],
                 [[("priority", {}), ("gang", {}), ("conformance", {})],
                  [("drf", {}), ("predicates", {}), ("capacity", {}), ("nodeorder", {})]]),
    "hierarchy": (["enqueue", "allocate", "reclaim", "backfill"],
                  [[("priority", {}), ("gang", {}), ("conformance", {})],
                   [("drf", {}), ("predicates", {}),
                    ("capacity", {"hierarchy": True}), ("nodeorder", {})]]),
    # The families below add plugins and arguments to the default policy; their tiers and
    # their extra state are drawn per seed (variant()).
    "args": (["enqueue", "allocate", "backfill"], None),
    "sla": (["enqueue", "allocate", "backfill"], None),
    "tdm": (["enqueue", "allocate", "preempt", "backfill", "shuffle"], None),
    "task-topology": (["enqueue", "allocate", "backfill"], None),
    "resource-strategy-fit": (["enqueue", "allocate", "backfill"], None),
}
GPU = "nvidia.com/gpu"


def toml_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{toml_value(k)} = {toml_value(x)}" for k, x in v.items()) + " }"
    raise TypeError(v)


def table(name, fields):
    lines = [f"[[{name}]]"]
    for k, v in fields.items():
        lines.append(f"{k} = {toml_value(v)}")
    return "\n".join(lines)


def cpu_text(m):
    return f"{m}m" if m % 1000 else str(m // 1000)


def state(seed):
    """Nodes, queues, priority classes, podgroups and pods drawn from the seed, over every key
    both schedulers read: taints and tolerations, node selectors, unschedulable nodes, queue
    capability / deserved / guarantee / reclaimable / priority / state, min_resources, roles
    (task-spec labels and min_task_member), preemption policies, pod priorities, best-effort
    pods, finished and releasing pods, and two sessions."""
    r = random.Random(seed)
    nodes = []
    for i in range(r.randint(1, 6)):
        n = {"name": f"n{i + 1}", "cpu": r.choice([2000, 4000, 8000, 16000]),
             "mem": r.choice([4, 8, 16, 32]), "pods": r.choice([110, 110, 4]),
             "labels": {"zone": r.choice(["a", "b"])}}
        if r.random() < 0.15:
            n["taints"] = [{"key": "dedicated", "value": "gpu",
                            "effect": r.choice(["NoSchedule", "PreferNoSchedule"])}]
        if r.random() < 0.05:
            n["unschedulable"] = True
        nodes.append(n)
    queues = []
    for i in range(r.randint(1, 3)):
        q = {"name": f"q{i + 1}", "weight": r.randint(1, 4)}
        if r.random() < 0.2:
            q["capability"] = {"cpu": cpu_text(r.choice([2000, 4000, 8000])),
                               "memory": f"{r.choice([4, 8, 16])}Gi"}
        if r.random() < 0.5:
            q["deserved"] = {"cpu": cpu_text(r.choice([1000, 2000, 4000])),
                             "memory": f"{r.choice([2, 4, 8])}Gi"}
        if r.random() < 0.1:
            q["guarantee"] = {"cpu": cpu_text(r.choice([500, 1000])), "memory": "1Gi"}
        if r.random() < 0.15:
            q["reclaimable"] = False
        if r.random() < 0.15:
            q["priority"] = r.randint(1, 3)
        if r.random() < 0.05:
            q["state"] = "Closed"
        queues.append(q)
    prios = [("low", 10), ("mid", 100), ("high", 1000)]
    groups, pods = [], []
    free = {n["name"]: [n["cpu"], n["mem"] * 1024, n["pods"]] for n in nodes}
    tainted = any("taints" in n for n in nodes)
    t = 0
    for g in range(r.randint(1, 6)):
        name = f"j{g + 1}"
        tasks = r.randint(1, 4)
        min_member = r.randint(1, tasks)
        running = r.random() < 0.35
        pc = r.choice(prios + [None])
        t += 1
        group = {"name": name, "namespace": "ns", "queue": r.choice(queues)["name"],
                 "min_member": min_member, "created": t,
                 "phase": "Running" if running else r.choice(["Pending", "Inqueue"])}
        if pc:
            group["priority_class"] = pc[0]
        groups.append(group)
        best_effort = r.random() < 0.08
        cpu = r.choice([250, 500, 1000, 2000, 3000])
        mem = r.choice([256, 512, 1024, 2048, 4096])
        roles = tasks >= 2 and r.random() < 0.25
        if roles:
            group["min_task_member"] = {"master": 1, "worker": r.randint(0, tasks - 1)}
        if r.random() < 0.2 and not best_effort:
            k = r.randint(1, min_member)
            group["min_resources"] = {"cpu": cpu_text(cpu * k), "memory": f"{mem * k}Mi"}
        selector = {"zone": r.choice(["a", "b"])} if r.random() < 0.1 else None
        tolerate = tainted and r.random() < 0.5
        never = r.random() < 0.1
        placed = 0
        for k in range(tasks):
            pod = {"name": f"{name}-{k}", "namespace": "ns", "podgroup": name, "created": t}
            if not best_effort:
                pod["requests"] = {"cpu": cpu_text(cpu), "memory": f"{mem}Mi"}
            if pc:
                pod["priority_class"] = pc[0]
            if r.random() < 0.05:
                pod["priority"] = r.choice([5, 50, 500, 5000])
            if roles:
                pod["labels"] = {"volcano.sh/task-spec": "master" if k == 0 else "worker"}
            if selector:
                pod["node_selector"] = selector
            if tolerate:
                pod["tolerations"] = [{"key": "dedicated", "operator": "Equal", "value": "gpu",
                                       "effect": "NoSchedule"}]
            if never:
                pod["preemption_policy"] = "Never"
            if running:
                fits = [n for n, f in free.items() if f[0] >= cpu and f[1] >= mem and f[2] >= 1]
                if fits:
                    n = r.choice(sorted(fits))
                    pod["node"] = n
                    x = r.random()
                    if x < 0.05:
                        pod["phase"] = "Succeeded"
                    else:
                        pod["phase"] = "Running"
                        if x > 0.95:
                            pod["releasing"] = True
                        free[n][0] -= cpu
                        free[n][1] -= mem
                        free[n][2] -= 1
                        placed += 1
            if r.random() < 0.15:
                pod["annotations"] = {"volcano.sh/preemptable": r.choice(["true", "false"])}
            pods.append(pod)
        if running and placed < min_member:
            group["phase"] = "Inqueue"  # what did not fit stays pending
    sessions = 2 if r.random() < 0.2 else 1
    return sessions, nodes, queues, prios, groups, pods


def hierarchy(queues, groups, seed):
    """For the hierarchy family: the leaf queues under one or two parents of root, each
    parent's capability, deserved and guarantee at least its children's."""
    r = random.Random(seed * 7919)
    parents = [{"name": f"p{i + 1}", "weight": r.randint(1, 4), "parent": "root"}
               for i in range(r.randint(1, 2))]
    for q in queues:
        q["parent"] = r.choice(parents)["name"]
    for p in parents:
        kids = [q for q in queues if q["parent"] == p["name"]]
        for key in ("capability", "deserved", "guarantee"):
            if kids and all(key in q for q in kids):
                p[key] = {"cpu": cpu_text(sum(cpu_milli(q[key]["cpu"]) for q in kids)),
                          "memory": f"{sum(int(q[key]['memory'][:-2]) for q in kids)}Gi"}
    return parents + queues


def variant(family, seed, nodes, groups, pods):
    """The tiers of a family that varies the default policy, with what its plugins read
    added to the state: plugin arguments and GPUs (args), waiting times and jobs created
    long ago (sla; times far from any waiting time, as the oracle's clock is the wall
    clock), revocable nodes in a zone whose window never closes (tdm), task roles with
    affinity and anti-affinity between them (task-topology)."""
    r = random.Random(seed * 104729 + len(family))
    tiers = [list(t) for t in DEFAULT_TIERS]
    if family in ("args", "resource-strategy-fit"):
        for n in nodes:
            if r.random() < 0.4:
                n["gpu"] = r.choice([1, 2, 4, 8])
        for g in groups:
            if g["phase"] != "Running" and r.random() < 0.3:
                want = r.choice([1, 2])
                for p in pods:
                    if p["podgroup"] == g["name"] and "requests" in p:
                        p["requests"][GPU] = want
    if family == "resource-strategy-fit":
        # The oracle takes flat arguments only (its TOML arguments are not Volcano's nested
        # maps), so `resources`, `sra` and `proportional` stay unset; a pod's own strategy
        # (annotations) covers MostAllocated and scalar resources.
        extra = {"arguments": {"resourceStrategyFitWeight": r.choice([0, 1, 10, 25])}} \
            if r.random() < 0.7 else {}
        tiers[1].append(("resource-strategy-fit", extra))
        for g in groups:
            if r.random() < 0.4:
                kind = r.choice(["MostAllocated", "LeastAllocated"])
                weights = {k: r.choice([1, 2, 5]) for k in ("cpu", "memory", GPU)
                           if r.random() < 0.7}
                text = "{" + ", ".join(f'"{k}": {v}' for k, v in weights.items()) + "}"
                for p in pods:
                    if p["podgroup"] == g["name"]:
                        p.setdefault("annotations", {}).update({
                            "volcano.sh/resource-strategy-scoring-type": kind,
                            "volcano.sh/resource-strategy-weight": text})
        return tiers
        pick = lambda *xs: r.choice(xs)
        args = {
            "overcommit": {"overcommit-factor": pick(1.0, 1.2, 1.5, 3.0)},
            "predicates": {"predicate.ProportionalEnable": pick(False, True),
                           "predicate.resources": GPU,
                           f"predicate.resources.{GPU}.cpu": pick(1, 2),
                           f"predicate.resources.{GPU}.memory": pick(1, 4)},
            "nodeorder": {"leastrequested.weight": pick(0, 1, 2),
                          "mostrequested.weight": pick(0, 0, 1, 3),
                          "balancedresource.weight": pick(0, 1, 2),
                          "tainttoleration.weight": pick(0, 3, 5)},
            "binpack": {"binpack.weight": pick(0, 1, 5, 10), "binpack.cpu": pick(0, 1, 3),
                        "binpack.memory": pick(0, 1, 2), "binpack.resources": GPU,
                        f"binpack.resources.{GPU}": pick(1, 2, 5)},
        }
        for tier in tiers:
            for i, (name, extra) in enumerate(tier):
                if name in args and r.random() < 0.8:
                    kept = {k: v for k, v in args[name].items() if r.random() < 0.7}
                    if kept:
                        tier[i] = (name, dict(extra, arguments=kept))
    elif family == "sla":
        sla = {}
        if r.random() < 0.5:
            sla["arguments"] = {"sla-waiting-time": r.choice(["1m", "10m", "1h"])}
        tiers[0].append(("sla", sla))
        for g in groups:
            if r.random() < 0.4:
                g["created"] -= 7200  # waited longer than any waiting time here
            if r.random() < 0.4:
                key = r.choice(["sla-waiting-time", "volcano.sh/sla-waiting-time"])
                g["annotations"] = {key: r.choice(["1m", "10m", "1h", "2h30m"])}
    elif family == "tdm":
        tiers[0].append(("tdm", {"arguments": {"tdm.revocable-zone.rz1": "00:00-23:59"}}))
        for n in nodes:
            if r.random() < 0.4:
                n["labels"]["volcano.sh/revocable-zone"] = "rz1"
        for p in pods:
            if "node" not in p and r.random() < 0.3:
                p.setdefault("annotations", {})["volcano.sh/preemptable"] = "true"
    elif family == "task-topology":
        tiers[1].append(("task-topology", {"arguments": {"task-topology.weight": r.choice([1, 3, 10])}}))
        for g in groups:
            mine = [p for p in pods if p["podgroup"] == g["name"]]
            if len(mine) < 2 or g["phase"] == "Running":
                continue
            for k, p in enumerate(mine):
                role = "ps" if k == 0 or (k == 1 and r.random() < 0.3) else "worker"
                p.setdefault("annotations", {})["volcano.sh/task-spec"] = role
                p.pop("labels", None)
            g.pop("min_task_member", None)
            ann = {}
            x = r.random()
            if x < 0.4:
                ann["volcano.sh/task-topology-affinity"] = r.choice(["ps,worker", "worker"])
            if x > 0.3:
                ann["volcano.sh/task-topology-anti-affinity"] = r.choice(["ps", "worker", "ps,worker"])
            if r.random() < 0.3:
                ann["volcano.sh/task-topology-task-order"] = r.choice(["ps,worker", "worker,ps"])
            if ann:
                g["annotations"] = ann
    return tiers


def cpu_milli(text):
    return int(text[:-1]) if text.endswith("m") else int(text) * 1000


def scenario(seed, family):
    actions, tiers = FAMILIES[family]
    sessions, nodes, queues, prios, groups, pods = state(seed)
    if family == "hierarchy":
        queues = hierarchy(queues, groups, seed)
    if tiers is None:
        tiers = variant(family, seed, nodes, groups, pods)
    out = [f'name = "differential {family} seed {seed}"']
    if sessions > 1:
        out.append(f"sessions = {sessions}")
    out += ["", "[config]", "[config.scheduler]", f"actions = {toml_value(actions)}"]
    for tier in tiers:
        out.append("[[config.tiers]]")
        for name, extra in tier:
            out.append("[[config.tiers.plugins]]")
            out.append(f"name = {toml_value(name)}")
            for k, v in extra.items():
                out.append(f"{k} = {toml_value(v)}")
    out.append("")
    for name, value in prios:
        out.append(table("priority_classes", {"name": name, "value": value}))
    for q in queues:
        out.append(table("queues", q))
    for n in nodes:
        fields = {"name": n["name"], "allocatable": {
            "cpu": cpu_text(n["cpu"]), "memory": f"{n['mem']}Gi", "pods": n["pods"]}}
        if "gpu" in n:
            fields["allocatable"][GPU] = n["gpu"]
        fields.update({k: n[k] for k in ("labels", "taints", "unschedulable") if k in n})
        out.append(table("nodes", fields))
    for g in groups:
        out.append(table("podgroups", g))
    for p in pods:
        out.append(table("pods", p))
    return "\n\n".join(x for x in "\n".join(out).split("\n\n")) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--seeds", default="1..100", help="A..B, both included")
    ap.add_argument("--family", action="append", choices=sorted(FAMILIES))
    a = ap.parse_args()
    lo, hi = (int(x) for x in a.seeds.split(".."))
    os.makedirs(a.out, exist_ok=True)
    for family in a.family or sorted(FAMILIES):
        for seed in range(lo, hi + 1):
            with open(os.path.join(a.out, f"{family}-{seed}.toml"), "w") as f:
                f.write(scenario(seed, family))


if __name__ == "__main__":
    main()
