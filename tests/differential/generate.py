#!/usr/bin/env python3
"""Random small cluster states as scenario files (../../../shared/SCENARIOS.md), for the
differential comparison with Volcano's oracle (compare.py).

  generate.py --out DIR --seeds A..B [--family NAME ...]

One file per seed and family: DIR/<family>-<seed>.toml. The same seed and family give the
same file. Families are config variants (Volcano's default policy and the ones with preempt,
reclaim, capacity); the state is drawn from the seed alone, so each family sees the same
clusters. Families args, sla, tdm, task-topology, resource-strategy-fit, policies and constraints
add plugins, arguments and state to that cluster, drawn from the seed too; constraints gives it
Kubernetes scheduling constraints (zones, node labels and images, node affinity, pod
affinity and anti-affinity, topology spread constraints, host ports, container images);
volumes gives it storage (StorageClasses, PersistentVolumes, claims, pod volumes).
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
    # Volcano's namespace and queue policies as far as the oracle's format carries their
    # inputs: nodegroup over node group labels (queues without affinity), pdb with no
    # budgets (a pod without labels is never its victim), cdp's cooldown labels (no pod has a
    # PodScheduled time there), resourcequota with no quotas.
    "policies": (["enqueue", "allocate", "preempt", "backfill"], None),
    # Actions (preempt sometimes) and tiers drawn per seed (constraints()).
    "constraints": (["enqueue", "allocate", "backfill"], None),
    # The same, with storage: classes, PVs, claims (volumes()).
    "volumes": (["enqueue", "allocate", "backfill"], None),
}
# Families written only when named (--family), not by default (run.py, and with it meson
# test differential, runs the default set). None today.
OPT_IN = ()
GPU = "nvidia.com/gpu"
# Keys of a pod written as TOML tables (headers) rather than inline, and, inside them, the
# keys whose values are tables again; everything else stays inline, on one line.
SUBTABLES = ("affinity", "topology_spread_constraints")
HEADERS = ("nodeAffinity", "podAffinity", "podAntiAffinity",
           "requiredDuringSchedulingIgnoredDuringExecution",
           "preferredDuringSchedulingIgnoredDuringExecution")


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
        if k not in SUBTABLES:
            lines.append(f"{k} = {toml_value(v)}")
    for k in SUBTABLES:
        if k in fields:
            lines += subtables(f"{name}.{k}", fields[k])
    return "\n".join(lines)


def subtables(path, v):
    """v under path as TOML tables: a list as an array of tables, a dict as a table (its
    header left out when only tables follow); inside, the values of HEADERS keys again as
    tables, the others inline."""
    items = v if isinstance(v, list) else [v]
    lines = []
    for d in items:
        flat = [f"{k} = {toml_value(x)}" for k, x in d.items() if k not in HEADERS]
        if isinstance(v, list):
            lines.append(f"[[{path}]]")
        elif flat:
            lines.append(f"[{path}]")
        lines += flat
        for k, x in d.items():
            if k in HEADERS:
                lines += subtables(f"{path}.{k}", x)
    return lines


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
    elif family == "policies":
        tiers[0] += [("pdb", {}), ("cdp", {})]
        tiers[1].append(("nodegroup", {"arguments": {
            "strict": r.random() < 0.3, "enablePreferredOrder": r.random() < 0.5}}))
        tiers[1].append(("resourcequota", {}))
        for n in nodes:
            if r.random() < 0.5:
                n["labels"]["volcano.sh/nodegroup-name"] = r.choice(["g1", "g2"])
        for p in pods:
            if "node" in p and r.random() < 0.4:
                p.setdefault("labels", {})["volcano.sh/cooldown-time"] = r.choice(["1h", "10s", "x"])
            elif r.random() < 0.3:
                p.setdefault("labels", {})["app"] = "web"
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


ZONE = "topology.kubernetes.io/zone"
HOST = "kubernetes.io/hostname"
APPS = ["a", "b", "c"]
TIER_LABELS = ["web", "db"]
MB = 1000 * 1000
# Images some nodes hold (NodeStatus names are normalized, tag included) and the names pods
# give them: "registry/c" is "registry/c:latest"; "registry/e:9" is on no node.
NODE_IMAGES = ["registry/a:1", "registry/b:2", "registry/c:latest", "registry/d:3"]
POD_IMAGES = ["registry/a:1", "registry/b:2", "registry/c", "registry/c:latest", "registry/d:3",
              "registry/e:9"]
HOST_PORTS = [8080, 8443, 9000]
PREDICATE_FLAGS = ["predicate.NodeAffinityEnable", "predicate.PodAffinityEnable",
                   "predicate.PodTopologySpreadEnable", "predicate.NodePortsEnable",
                   "predicate.TaintTolerationEnable"]
NODEORDER_WEIGHTS = {"nodeaffinity.weight": 2, "podaffinity.weight": 2,
                     "podtopologyspread.weight": 2, "imagelocality.weight": 1,
                     "tainttoleration.weight": 3, "leastrequested.weight": 1,
                     "balancedresource.weight": 1}


def label_selector(r, own):
    """A labelSelector: the job's own labels, an app, a set of apps, the tier key."""
    x = r.random()
    if x < 0.3:
        return {"matchLabels": dict(own)}
    if x < 0.55:
        return {"matchLabels": {"app": r.choice(APPS)}}
    if x < 0.75:
        return {"matchExpressions": [{"key": "app", "operator": "In",
                                      "values": sorted(r.sample(APPS, r.randint(1, 2)))}]}
    if x < 0.85:
        return {"matchExpressions": [{"key": "tier",
                                      "operator": r.choice(["Exists", "DoesNotExist"])}]}
    return {"matchLabels": {"tier": r.choice(TIER_LABELS)},
            "matchExpressions": [{"key": "app", "operator": "NotIn", "values": [r.choice(APPS)]}]}


def pod_term(r, own):
    """A PodAffinityTerm, in the pod's namespace or in others (namespaceSelector {} is every
    namespace)."""
    term = {"labelSelector": label_selector(r, own),
            "topologyKey": r.choice([HOST, ZONE, ZONE])}
    x = r.random()
    if x < 0.15:
        term["namespaces"] = r.choice([["web"], ["ns", "web"]])
    elif x < 0.3:
        term["namespaceSelector"] = {}
    return term


def pod_affinity(r, own, required):
    a = {}
    if r.random() < required:
        a["requiredDuringSchedulingIgnoredDuringExecution"] = [
            pod_term(r, own) for _ in range(r.choice([1, 1, 2]))]
    if r.random() < 0.5 or not a:
        a["preferredDuringSchedulingIgnoredDuringExecution"] = [
            {"weight": r.randint(1, 100), "podAffinityTerm": pod_term(r, own)}
            for _ in range(r.choice([1, 1, 2]))]
    return a


def node_expression(r, zones, keys):
    kind = r.choice(["zone", "zone", "zone-not", "exists"] + keys)
    if kind == "zone":
        return {"key": ZONE, "operator": "In", "values": sorted(r.sample(zones, r.randint(1, 2)))}
    if kind == "zone-not":
        return {"key": ZONE, "operator": "NotIn", "values": [r.choice(zones)]}
    if kind == "exists":
        return {"key": r.choice([ZONE, "disk"]), "operator": r.choice(["Exists", "DoesNotExist"])}
    if kind == "disk":
        return {"key": "disk", "operator": r.choice(["In", "In", "NotIn"]), "values": ["ssd"]}
    return {"key": "gen", "operator": r.choice(["Gt", "Lt"]), "values": [str(r.randint(1, 5))]}


def node_affinity(r, zones, keys, names):
    a = {}
    if r.random() < 0.7:
        terms = []
        for _ in range(r.choice([1, 1, 2])):
            term = {}
            if r.random() < 0.85:
                term["matchExpressions"] = [node_expression(r, zones, keys)
                                            for _ in range(r.choice([1, 1, 2]))]
            if r.random() < 0.15 or not term:
                # One value: the API server refuses a node field requirement with more.
                term["matchFields"] = [{"key": "metadata.name",
                                        "operator": r.choice(["In", "NotIn"]),
                                        "values": [r.choice(names)]}]
            terms.append(term)
        a["requiredDuringSchedulingIgnoredDuringExecution"] = {"nodeSelectorTerms": terms}
    if r.random() < 0.5 or not a:
        a["preferredDuringSchedulingIgnoredDuringExecution"] = [
            {"weight": r.randint(1, 100),
             "preference": {"matchExpressions": [node_expression(r, zones, keys)]}}
            for _ in range(r.choice([1, 1, 2]))]
    return a


def spread(r, own, zones, nodes, key=None, when=None):
    c = {"maxSkew": r.choice([1, 1, 1, 2, 3]), "topologyKey": key or r.choice([ZONE, ZONE, HOST]),
         "whenUnsatisfiable": when or r.choice(["DoNotSchedule"] * 3 + ["ScheduleAnyway"]),
         "labelSelector": label_selector(r, own) if key is None else {"matchLabels": dict(own)}}
    if c["whenUnsatisfiable"] == "DoNotSchedule" and r.random() < 0.25:
        c["minDomains"] = r.randint(1, (len(zones) if c["topologyKey"] == ZONE else nodes) + 2)
    if r.random() < 0.2:
        c["nodeAffinityPolicy"] = r.choice(["Honor", "Ignore"])
    if r.random() < 0.2:
        c["nodeTaintsPolicy"] = r.choice(["Honor", "Ignore"])
    selector_keys = {e["key"] for e in c["labelSelector"].get("matchExpressions", [])}
    selector_keys |= set(c["labelSelector"].get("matchLabels", {}))
    if "job" not in selector_keys and r.random() < 0.15:
        c["matchLabelKeys"] = ["job"]
    return c


def host_ports(r):
    ports, seen = [], set()
    for _ in range(r.choice([1, 1, 2])):
        p = {"containerPort": r.choice([80, 443, 9000]), "hostPort": r.choice(HOST_PORTS)}
        if r.random() < 0.7:
            p["protocol"] = r.choice(["TCP", "TCP", "UDP"])
        if r.random() < 0.15:
            p["hostIP"] = r.choice(["127.0.0.1", "10.0.0.1", "0.0.0.0"])
        if (p["hostPort"], p.get("protocol", "TCP")) not in seen:
            seen.add((p["hostPort"], p.get("protocol", "TCP")))
            ports.append(p)
    return ports


def constraints(seed, nodes, queues, groups, pods):
    """The constraints family: the state's nodes (more of them, up to 30) in 2-4 zones
    (topology.kubernetes.io/zone, some nodes without), some with disk / gen labels and
    images; running jobs in two namespaces with app / tier labels, host ports and
    anti-affinity; each pending job one pod template with some of node affinity, pod affinity
    and anti-affinity, topology spread constraints, host ports and images; often a gang job
    one pod per node (required anti-affinity on the hostname) and one spread over zones. The
    predicates' filters and nodeorder's weights vary, preempt runs sometimes."""
    r = random.Random(seed * 104729 + len("constraints"))
    actions = ["enqueue", "allocate", "preempt", "backfill"] if r.random() < 0.2 \
        else ["enqueue", "allocate", "backfill"]
    tiers = [list(t) for t in DEFAULT_TIERS]
    pred = {k: r.random() < 0.85 for k in PREDICATE_FLAGS if r.random() < 0.4}
    order = {k: (v if r.random() < 0.5 else r.randint(0, 5))
             for k, v in NODEORDER_WEIGHTS.items() if r.random() < 0.35}
    for i, (name, extra) in enumerate(tiers[1]):
        if name == "predicates" and pred:
            tiers[1][i] = (name, {"arguments": pred})
        if name == "nodeorder" and order:
            tiers[1][i] = (name, {"arguments": order})

    # Nodes: zones, labels, images.
    for i in range(len(nodes), min(30, len(nodes) + r.choice([0, 1, 2, 3, 4, 5, 6, 8, 12, 24]))):
        n = {"name": f"n{i + 1}", "cpu": r.choice([4000, 8000, 16000]),
             "mem": r.choice([8, 16, 32]), "pods": 110, "labels": {"zone": r.choice(["a", "b"])}}
        if r.random() < 0.15:
            n["taints"] = [{"key": "dedicated", "value": "gpu",
                            "effect": r.choice(["NoSchedule", "PreferNoSchedule"])}]
        nodes.append(n)
    names = [n["name"] for n in nodes]
    zones = [f"zone-{c}" for c in "abcd"[:r.randint(2, 4)]]
    keys = []
    for n in nodes:
        if r.random() < 0.9:
            n["labels"][ZONE] = r.choice(zones)
    if r.random() < 0.6:
        keys.append("disk")
        for n in nodes:
            if r.random() < 0.8:
                n["labels"]["disk"] = r.choice(["ssd", "hdd"])
    if r.random() < 0.5:
        keys.append("gen")
        for n in nodes:
            if r.random() < 0.85:
                n["labels"]["gen"] = str(r.randint(1, 5))
    size = {img: r.choice([10, 30, 100, 300, 800, 1500, 3000]) * MB for img in NODE_IMAGES}
    for n in nodes:
        if r.random() < 0.5:
            held = [{"names": [img], "sizeBytes": size[img]} for img in NODE_IMAGES
                    if r.random() < 0.5]
            if held:
                n["images"] = held

    # What is left on each node by the running pods.
    free = {n["name"]: [n["cpu"], n["mem"] * 1024, n["pods"]] for n in nodes}
    for p in pods:
        if p.get("phase") == "Running" and "requests" in p:
            f = free[p["node"]]
            f[0] -= cpu_milli(p["requests"]["cpu"])
            f[1] -= int(p["requests"]["memory"][:-2])
            f[2] -= 1
        elif p.get("phase") == "Running":
            free[p["node"]][2] -= 1

    # Labels for the state's jobs; running jobs in namespaces ns and web.
    t = max(g["created"] for g in groups)
    for g in groups:
        own = {"app": r.choice(APPS)}
        if r.random() < 0.4:
            own["tier"] = r.choice(TIER_LABELS)
        g["labels"] = own
    for i in range(r.choice([0, 1, 1, 2, 2, 3])):
        t += 1
        name = f"j{len(groups) + 1}"
        ns = r.choice(["ns", "ns", "web"])
        group = {"name": name, "namespace": ns, "queue": r.choice(queues)["name"],
                 "min_member": 1, "created": t, "phase": "Running",
                 "labels": {"app": r.choice(APPS), "tier": r.choice(TIER_LABELS)}}
        groups.append(group)
        cpu, mem = r.choice([250, 500, 1000]), r.choice([256, 512, 1024])
        anti = r.random() < 0.3
        ports = host_ports(r) if r.random() < 0.4 else None
        for k in range(r.randint(1, 4)):
            fits = sorted(n for n, f in free.items() if f[0] >= cpu and f[1] >= mem and f[2] >= 1)
            if not fits:
                break
            n = r.choice(fits)
            free[n][0] -= cpu
            free[n][1] -= mem
            free[n][2] -= 1
            pod = {"name": f"{name}-{k}", "namespace": ns, "podgroup": name, "created": t,
                   "requests": {"cpu": cpu_text(cpu), "memory": f"{mem}Mi"},
                   "node": n, "phase": "Running"}
            if ports:
                pod["ports"] = ports
            if anti:
                pod["affinity"] = {"podAntiAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": [
                        {"labelSelector": {"matchLabels": {"app": r.choice(APPS)}},
                         "topologyKey": r.choice([HOST, HOST, ZONE])}]}}
            pods.append(pod)

    # Pending jobs: a gang one pod per node, a job spread over zones.
    specs = {}
    for kind in ("one-per-node", "zone-spread"):
        if r.random() < (0.6 if kind == "one-per-node" else 0.5):
            t += 1
            name = f"j{len(groups) + 1}"
            tasks = r.randint(2, min(6, len(nodes) + 2))
            group = {"name": name, "namespace": "ns", "queue": r.choice(queues)["name"],
                     "min_member": tasks if r.random() < 0.7 else r.randint(2, tasks),
                     "created": t, "phase": r.choice(["Pending", "Inqueue"]),
                     "labels": {"app": r.choice(APPS), "job": name}}
            groups.append(group)
            cpu, mem = r.choice([250, 500, 1000]), r.choice([256, 512, 1024])
            for k in range(tasks):
                pods.append({"name": f"{name}-{k}", "namespace": "ns", "podgroup": name,
                             "created": t,
                             "requests": {"cpu": cpu_text(cpu), "memory": f"{mem}Mi"}})
            if kind == "one-per-node":
                term = {"labelSelector": {"matchLabels": {"job": name}}, "topologyKey": HOST}
                specs[name] = {"affinity": {"podAntiAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": [term]}}}
            else:
                specs[name] = {"topology_spread_constraints": [
                    spread(r, {"job": name}, zones, len(nodes), ZONE, "DoNotSchedule")]}

    # Every job's pod template: labels, then constraints for the pending ones.
    for g in groups:
        own = g.pop("labels")
        mine = [p for p in pods if p["podgroup"] == g["name"]]
        spec = specs.get(g["name"], {})
        if all("node" in p for p in mine):
            if g["phase"] == "Running" and r.random() < 0.3:
                spec["ports"] = host_ports(r)
        else:
            if r.random() < 0.35:
                spec.setdefault("affinity", {})["nodeAffinity"] = node_affinity(r, zones, keys, names)
            if r.random() < 0.3:
                spec.setdefault("affinity", {})["podAffinity"] = pod_affinity(r, own, 0.5)
            if r.random() < 0.3:
                spec.setdefault("affinity", {}).setdefault(
                    "podAntiAffinity", pod_affinity(r, own, 0.6))
            if r.random() < 0.35:
                spec.setdefault("topology_spread_constraints", []).extend(
                    spread(r, own, zones, len(nodes)) for _ in range(r.choice([1, 1, 2])))
            if r.random() < 0.35:
                spec["ports"] = host_ports(r)
            if r.random() < 0.4:
                spec["images"] = r.sample(POD_IMAGES, r.choice([1, 1, 2]))
        for p in mine:
            p["labels"] = dict(p.get("labels", {}), **own)
            for k in ("ports", "images", "affinity", "topology_spread_constraints"):
                if k in spec and k not in p:
                    p[k] = spec[k]
    return actions, tiers


VOLUME_FLAGS = ["predicate.VolumeBindingEnable", "predicate.VolumeZoneEnable",
                "predicate.NodeVolumeLimitsEnable"]
NO_PROVISIONER = "attachable-volumes-csi-kubernetes.io-no-provisioner"
EBS = "attachable-volumes-csi-ebs.csi.aws.com"


def volumes(seed, nodes, queues, groups, pods):
    """The volumes family: nodes in 2-3 zones, most offering the CSI attach resources Volcano
    counts claims in (some not: Volcano issue 3271); StorageClasses local (no provisioner,
    WaitForFirstConsumer), dyn (rancher.io/local-path, WaitForFirstConsumer, sometimes
    allowed topologies), fast (a CSI driver, Immediate) and csi-wffc; local PVs on nodes or
    zones with distinct sizes, some with labels or prebound, CSI PVs with zone labels bound to
    claims; claims for pending and running pods (own or shared, some bound, some missing,
    selectors, access modes). The volume filters are switched off sometimes, preempt runs
    sometimes."""
    r = random.Random(seed * 7919 + len("volumes"))
    actions = ["enqueue", "allocate", "preempt", "backfill"] if r.random() < 0.15 \
        else ["enqueue", "allocate", "backfill"]
    tiers = [list(t) for t in DEFAULT_TIERS]
    pred = {k: r.random() < 0.8 for k in VOLUME_FLAGS if r.random() < 0.3}
    if pred:
        for i, (name, extra) in enumerate(tiers[1]):
            if name == "predicates":
                tiers[1][i] = (name, {"arguments": pred})
    for i in range(len(nodes), min(12, len(nodes) + r.choice([0, 1, 2, 3, 5]))):
        nodes.append({"name": f"n{i + 1}", "cpu": r.choice([4000, 8000, 16000]),
                      "mem": r.choice([8, 16, 32]), "pods": 110, "labels": {}})
    zones = [f"zone-{c}" for c in "abc"[:r.randint(2, 3)]]
    for n in nodes:
        if r.random() < 0.9:
            n["labels"][ZONE] = r.choice(zones)
        extra = {}
        if r.random() < 0.85:
            extra[NO_PROVISIONER] = r.choice([1, 2, 10])
        if r.random() < 0.8:
            extra[EBS] = r.choice([1, 3, 10])
        if extra:
            n["extra"] = extra
    names = [n["name"] for n in nodes]

    classes = [
        {"name": "local", "provisioner": "kubernetes.io/no-provisioner",
         "volumeBindingMode": "WaitForFirstConsumer"},
        {"name": "fast", "provisioner": "ebs.csi.aws.com"},
        {"name": "csi-wffc", "provisioner": "ebs.csi.aws.com",
         "volumeBindingMode": "WaitForFirstConsumer"},
    ]
    dyn = {"name": "dyn", "provisioner": "rancher.io/local-path",
           "volumeBindingMode": "WaitForFirstConsumer"}
    if r.random() < 0.4:
        dyn["allowedTopologies"] = [{"matchLabelExpressions": [
            {"key": ZONE, "values": r.sample(zones, 1)}]}]
    classes.append(dyn)

    sizes = r.sample(range(1, 60), 40)  # distinct: Kubernetes breaks ties between PVs at random
    volumes_, claims = [], []

    def local_pv(claim=None):
        name = f"pv-{len(volumes_) + 1}"
        where = r.random()
        if where < 0.7:
            term = {"matchExpressions": [{"key": HOST, "operator": "In",
                                          "values": [r.choice(names)]}]}
        else:
            term = {"matchExpressions": [{"key": ZONE, "operator": "In",
                                          "values": [r.choice(zones)]}]}
        spec = {"capacity": {"storage": f"{sizes.pop()}Gi"},
                "accessModes": r.choice([["ReadWriteOnce"], ["ReadWriteOnce"],
                                         ["ReadWriteOnce", "ReadOnlyMany"], ["ReadWriteMany"]]),
                "storageClassName": "local", "local": {"path": f"/mnt/{name}"},
                "nodeAffinity": {"required": {"nodeSelectorTerms": [term]}}}
        if r.random() < 0.05:
            spec["volumeMode"] = "Block"
        pv = {"name": name, "spec": spec}
        if r.random() < 0.3:
            pv["metadata"] = {"labels": {"tier": r.choice(TIER_LABELS)}}
        if claim is not None:
            spec["claimRef"] = {"namespace": claim[0], "name": claim[1]}
        volumes_.append(pv)
        return name

    for _ in range(r.randint(1, 10)):
        local_pv()

    def claim(ns, name, kind):
        c = {"name": name, "namespace": ns,
             "spec": {"accessModes": r.choice([["ReadWriteOnce"], ["ReadWriteOnce"],
                                               ["ReadOnlyMany"], ["ReadWriteMany"]]),
                      "resources": {"requests": {"storage": f"{r.randint(1, 40)}Gi"}}}}
        spec = c["spec"]
        if kind == "bound":
            pv = f"pv-{len(volumes_) + 1}"
            volumes_.append({"name": pv,
                             "metadata": {"labels": {ZONE: r.choice(zones + ["zone-x"])}},
                             "spec": {"capacity": {"storage": "100Gi"},
                                      "accessModes": ["ReadWriteOnce"],
                                      "storageClassName": "fast",
                                      "csi": {"driver": "ebs.csi.aws.com",
                                              "volumeHandle": f"vol-{pv}"}}})
            spec["storageClassName"] = "fast"
            spec["volumeName"] = pv
            spec["accessModes"] = ["ReadWriteOnce"]
        else:
            spec["storageClassName"] = kind
            if kind == "local" and r.random() < 0.15:
                spec["selector"] = {"matchLabels": {"tier": r.choice(TIER_LABELS)}}
            if kind == "local" and r.random() < 0.1:
                local_pv((ns, name))  # a PV prebound to this claim
            if r.random() < 0.05:
                spec["volumeMode"] = "Block"
        claims.append(c)
        return name

    kinds = ["local", "local", "local", "dyn", "csi-wffc", "bound", "fast"]
    for g in groups:
        mine = [p for p in pods if p["podgroup"] == g["name"]]
        running = all("node" in p for p in mine)
        if r.random() > (0.2 if running else 0.6):
            continue
        ns = g.get("namespace", "default")
        shared = None
        if r.random() < 0.2:
            shared = claim(ns, f"{g['name']}-shared",
                           "bound" if running else r.choice(kinds))
        for p in mine:
            if shared is not None:
                cname = shared
            elif r.random() < 0.04:
                cname = f"{p['name']}-missing"
            elif running:
                cname = claim(ns, f"{p['name']}-data", "bound")
            else:
                cname = claim(ns, f"{p['name']}-data", r.choice(kinds))
            p["volumes"] = [{"name": "data", "persistentVolumeClaim": {"claimName": cname}}]
    return actions, tiers, {"storage_classes": classes, "persistent_volumes": volumes_,
                            "persistent_volume_claims": claims}


def cpu_milli(text):
    return int(text[:-1]) if text.endswith("m") else int(text) * 1000


def scenario(seed, family):
    actions, tiers = FAMILIES[family]
    sessions, nodes, queues, prios, groups, pods = state(seed)
    if family == "hierarchy":
        queues = hierarchy(queues, groups, seed)
    storage = {}
    if family == "constraints":
        actions, tiers = constraints(seed, nodes, queues, groups, pods)
    elif family == "volumes":
        actions, tiers, storage = volumes(seed, nodes, queues, groups, pods)
    elif tiers is None:
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
        fields["allocatable"].update(n.get("extra", {}))
        fields.update({k: n[k] for k in ("labels", "taints", "unschedulable", "images")
                       if k in n})
        out.append(table("nodes", fields))
    for g in groups:
        out.append(table("podgroups", g))
    for p in pods:
        out.append(table("pods", p))
    for kind, objects in storage.items():
        for o in objects:
            out.append(table(kind, o))
    return "\n\n".join(x for x in "\n".join(out).split("\n\n")) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--seeds", default="1..100", help="A..B, both included")
    ap.add_argument("--family", action="append", choices=sorted(FAMILIES),
                    help="default: every family" + (" but " + ", ".join(OPT_IN) if OPT_IN else ""))
    a = ap.parse_args()
    lo, hi = (int(x) for x in a.seeds.split(".."))
    os.makedirs(a.out, exist_ok=True)
    for family in a.family or sorted(f for f in FAMILIES if f not in OPT_IN):
        for seed in range(lo, hi + 1):
            with open(os.path.join(a.out, f"{family}-{seed}.toml"), "w") as f:
                f.write(scenario(seed, family))


if __name__ == "__main__":
    main()
