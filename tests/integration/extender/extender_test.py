#!/usr/bin/env python3
"""The extender plugin against a real HTTP extender (meson test extender).

  extender_test.py CALDERA_BINARY

A small extender runs on loopback (http.server, one thread per call); each case writes a
scenario whose config points the extender plugin at it, with the server's behaviour for
that case, runs `caldera scenario run --json`, and checks the decisions and what the server
was sent. Cases: predicate refusals with codes, prioritize scores, managed resources (a task
that asks for none is never sent), preemptable victims chosen by the extender, enqueue
rejected, and the faults: HTTP 500, an answer that is not JSON, a score that is not a
number, a victim that is not an evictee, a server slower than extender.httpTimeout, an
extender that is down; each without and with extender.ignorable.
Prints "N passed, M failed"; exits 1 on any failure.
"""
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

CALDERA = os.path.abspath(sys.argv[1])

# What the server does per verb for the current case: a function(request) -> (code, body),
# body a JSON-able value or bytes. Calls are recorded as (verb, request).
behaviour = {}
calls = []
lock = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        verb = self.path.strip("/").split("/")[-1]
        length = int(self.headers.get("Content-Length", 0))
        request = json.loads(self.rfile.read(length) or b"{}")
        with lock:
            calls.append((verb, request))
        fn = behaviour.get(verb)
        code, body = fn(request) if fn else (200, {})
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        try:
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (the timeout cases)

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
PORT = server.server_address[1]
threading.Thread(target=server.serve_forever, daemon=True).start()

# What both clusters have: the default queue and two priority classes.
COMMON = """
[[queues]]
name = "default"
[[priority_classes]]
name = "high"
value = 1000
[[priority_classes]]
name = "low"
value = 1
"""

CLUSTER = COMMON + """[[nodes]]
name = "n1"
allocatable = { cpu = "4", memory = "8Gi", "nvidia.com/gpu" = 2 }
[[nodes]]
name = "n2"
allocatable = { cpu = "4", memory = "8Gi" }
[[nodes]]
name = "n3"
allocatable = { cpu = "4", memory = "8Gi" }
[[podgroups]]
name = "pg"
namespace = "c1"
[[pods]]
name = "p"
namespace = "c1"
podgroup = "pg"
requests = { cpu = "1", memory = "1Gi" }
"""

PREEMPT_CLUSTER = COMMON + """[[nodes]]
name = "n1"
allocatable = { cpu = "2", memory = "4Gi" }
[[podgroups]]
name = "low"
namespace = "c1"
min_member = 0
phase = "Running"
priority_class = "low"
[[podgroups]]
name = "high"
namespace = "c1"
phase = "Inqueue"
priority_class = "high"
[[pods]]
name = "a"
namespace = "c1"
podgroup = "low"
requests = { cpu = "1", memory = "1Gi" }
phase = "Running"
node = "n1"
[[pods]]
name = "b"
namespace = "c1"
podgroup = "low"
requests = { cpu = "1", memory = "1Gi" }
phase = "Running"
node = "n1"
[[pods]]
name = "hi"
namespace = "c1"
podgroup = "high"
requests = { cpu = "1", memory = "1Gi" }
"""


def run(args, actions=("enqueue", "allocate"), cluster=CLUSTER, url=None):
    """Runs one scenario with the extender plugin and `args`; returns caldera's JSON line."""
    arguments = {"extender.urlPrefix": url or f"http://127.0.0.1:{PORT}"}
    arguments.update(args)
    args_toml = ", ".join(f'"{k}" = {json.dumps(v)}' for k, v in arguments.items())
    text = f"""name = "extender"
[config]
[config.scheduler]
actions = {json.dumps(list(actions))}
[[config.tiers]]
[[config.tiers.plugins]]
name = "priority"
[[config.tiers.plugins]]
name = "gang"
[[config.tiers.plugins]]
name = "extender"
arguments = {{ {args_toml} }}
[[config.tiers]]
[[config.tiers.plugins]]
name = "predicates"
[[config.tiers.plugins]]
name = "nodeorder"
{cluster}"""
    with tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False) as f:
        f.write(text)
        path = f.name
    try:
        with lock:
            calls.clear()
        started = time.monotonic()
        out = subprocess.run([CALDERA, "scenario", "run", "--json", path], capture_output=True,
                             text=True, timeout=120)
        line = next((l for l in out.stdout.splitlines() if l.startswith("{")), None)
        if line is None:
            raise AssertionError(f"no JSON from caldera (exit {out.returncode}): {out.stderr[-2000:]}")
        result = json.loads(line)
        result["_seconds"] = time.monotonic() - started
        result["_log"] = out.stderr
        return result
    finally:
        os.unlink(path)


def sent(verb):
    with lock:
        return [r for v, r in calls if v == verb]


passed = failed = 0


def case(name, fn):
    global passed, failed
    behaviour.clear()
    try:
        fn()
        print(f"  ok: {name}")
        passed += 1
    except AssertionError as e:
        print(f"FAIL: {name}: {e}")
        failed += 1


def eq(got, want, what):
    if got != want:
        raise AssertionError(f"{what}: got {got!r}, want {want!r}")


def refuse_except(node):
    return lambda req: (200, {"status": "" if req["node"]["Name"] == node else "no room here",
                              "code": 3})


def predicate_refuses():
    # n1 and n2 refused (UnschedulableAndUnresolvable): p goes to n3; the node and task are
    # sent as Volcano's NodeInfo / TaskInfo (Go field names).
    behaviour["predicate"] = refuse_except("n3")
    r = run({"extender.predicateVerb": "predicate"})
    eq(r["binds"], {"c1/p": "n3"}, "binds")
    reqs = sent("predicate")
    eq(sorted(q["node"]["Name"] for q in reqs), ["n1", "n2", "n3"], "nodes sent")
    t = reqs[0]["task"]
    eq((t["UID"], t["Name"], t["Namespace"], t["Job"], t["Resreq"]["MilliCPU"], t["Status"]),
       ("c1/p", "p", "c1", "c1/pg", 1000, 1), "task fields")
    eq(reqs[0]["node"]["Allocatable"]["MilliCPU"], 4000, "node allocatable")


def predicate_refuses_everywhere():
    behaviour["predicate"] = lambda req: (200, {"status": "gpu driver missing", "code": 2})
    r = run({"extender.predicateVerb": "predicate"})
    eq(r["binds"], {}, "binds")
    eq(r["pending"].get("c1/p"), "0/3 nodes are unavailable: 3 gpu driver missing.", "pending")


def prioritize():
    behaviour["prioritize"] = lambda req: (200, {"nodeScore": {"n2": 1000, "n1": 5}})
    r = run({"extender.prioritizeVerb": "prioritize"})
    eq(r["binds"], {"c1/p": "n2"}, "binds")
    eq(len(sent("prioritize")[0]["nodes"]), 3, "nodes sent")


def managed_resources():
    # Only GPU tasks are sent; p asks for none: never sent, placed as without the extender.
    behaviour["predicate"] = refuse_except("n3")
    r = run({"extender.predicateVerb": "predicate", "extender.managedResources": "nvidia.com/gpu"})
    eq(len(sent("predicate")), 0, "calls")
    eq(r["bind_count"] if "bind_count" in r else len(r["binds"]), 1, "binds")


def preemptable_victims():
    # The extender allows only b: b is evicted for hi.
    behaviour["preemptable"] = lambda req: (200, {
        "status": 1, "victims": [e for e in req["evictees"] if e["Name"] == "b"]})
    r = run({"extender.preemptableVerb": "preemptable"}, actions=("preempt",),
            cluster=PREEMPT_CLUSTER)
    eq(r["evictions"], ["c1/b"], "evictions")
    eq(sorted(e["Name"] for e in sent("preemptable")[0]["evictees"]), ["a", "b"], "evictees")


def enqueue_rejected():
    # Enqueue asks the plugins only about a job with minResources (Volcano's enqueue).
    behaviour["jobEnqueueable"] = lambda req: (200, {"status": -1})
    cluster = CLUSTER.replace('name = "pg"\nnamespace = "c1"',
                              'name = "pg"\nnamespace = "c1"\nmin_resources = { cpu = "1" }')
    r = run({"extender.jobEnqueueableVerb": "jobEnqueueable"}, cluster=cluster)
    eq(r["binds"], {}, "binds")
    eq(r["podgroup_phases"]["c1/pg"], "Pending", "phase")
    eq(sent("jobEnqueueable")[0]["job"]["UID"], "c1/pg", "job sent")


def fault(kind, ignorable):
    """A failed predicate call: without ignorable every node is refused with the error;
    with it the call is ignored and p is placed."""
    def check():
        args = {"extender.predicateVerb": "predicate", "extender.ignorable": ignorable,
                "extender.httpTimeout": "300ms"}
        url = None
        if kind == "500":
            behaviour["predicate"] = lambda req: (500, {"status": ""})
        elif kind == "not JSON":
            behaviour["predicate"] = lambda req: (200, b"<html>oops</html>")
        elif kind == "wrong type":
            behaviour["predicate"] = lambda req: (200, {"status": 42})
        elif kind == "slow":
            behaviour["predicate"] = lambda req: (time.sleep(1.0), (200, {"status": ""}))[1]
        elif kind == "down":
            url = "http://127.0.0.1:9"  # discard port: nothing listens
        r = run(args, url=url)
        if ignorable:
            eq(len(r["binds"]), 1, "binds (ignored failure)")
        else:
            eq(r["binds"], {}, "binds")
            if "c1/p" not in r["pending"]:
                raise AssertionError(f"p not pending: {r}")
        if "predicate failed" not in r["_log"]:
            raise AssertionError("the failure is not logged")
        if kind == "slow" and r["_seconds"] > 30:
            raise AssertionError(f"took {r['_seconds']:.1f} s: the timeout did not hold")
    return check


def bad_answers():
    # A score that is not a number: no scores from the extender (default placement, n1 by
    # name among equals after nodeorder); a victim that is not an evictee: reject, no victims.
    behaviour["prioritize"] = lambda req: (200, {"nodeScore": {"n3": "high"}})
    r = run({"extender.prioritizeVerb": "prioritize"})
    eq(len(r["binds"]), 1, "binds")
    if "nodeScore[n3] is not a finite number" not in r["_log"]:
        raise AssertionError("bad score not named in the log")
    behaviour["preemptable"] = lambda req: (200, {"status": 1, "victims": [{"UID": "c1/nobody"}]})
    r = run({"extender.preemptableVerb": "preemptable"}, actions=("preempt",),
            cluster=PREEMPT_CLUSTER)
    eq(r["evictions"], [], "evictions")
    if "victim 'c1/nobody' is not one of the evictees" not in r["_log"]:
        raise AssertionError("bad victim not named in the log")


def refused_config():
    with tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False) as f:
        f.write(f"""[scheduler]
actions = ["allocate"]
[[tiers]]
[[tiers.plugins]]
name = "extender"
arguments = {{ "extender.urlPrefix" = "127.0.0.1:{PORT}" }}
""")
    out = subprocess.run([CALDERA, "check-config", f.name], capture_output=True, text=True,
                         timeout=60)
    os.unlink(f.name)
    if out.returncode == 0 or "extender.urlPrefix must be an http:// or https:// address" not in out.stderr:
        raise AssertionError(f"not refused: {out.stderr[-500:]}")


case("predicate refuses two nodes; Volcano's task and node fields sent", predicate_refuses)
case("predicate refuses every node: the pending message", predicate_refuses_everywhere)
case("prioritize scores decide the node", prioritize)
case("managedResources: a task without them is not sent", managed_resources)
case("preemptable: the extender's victims", preemptable_victims)
case("jobEnqueueable rejects: the job stays Pending", enqueue_rejected)
for kind in ("500", "not JSON", "wrong type", "slow", "down"):
    case(f"fault '{kind}', not ignorable: every node refused", fault(kind, False))
    case(f"fault '{kind}', ignorable: ignored", fault(kind, True))
case("bad answers: a non-number score, a victim not among the evictees", bad_answers)
case("a urlPrefix that is no http address is refused at load", refused_config)
server.shutdown()
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
