#!/usr/bin/env python3
"""The scheduler's log at the default level stays readable on a long backlog.

A 600-virtual-second run of `caldera run` on a small cluster with a backlog that never
drains (jobs arriving every second, gangs too big to start for minutes, gangs that never
fit) must log under 1,000 lines at the default level (issue 18): one line per change of a
job (bound, evicted, a phase it was not expected to reach, a new kind of reason to wait),
not one per session. Its first 60 seconds with -v 3 log every session, which shows that
the level is what keeps the default log short; and the default log still names every job
that started and why each waiting job waits. The same run with --logging-format json and
text gives one JSON object per line and klog's layout; -v 5 adds every plugin's score of
every node, -v 10 every node's filter verdict, as kube-scheduler's levels do.

    backlog_log_test.py CALDERA_BINARY
"""
import json
import os
import re
import subprocess
import sys
import tempfile

CLUSTER = """
[[queues]]
name = "a"
weight = 2
[[queues]]
name = "b"
weight = 1
"""
for i in range(8):
    CLUSTER += f"""
[[nodes]]
name = "n{i}"
allocatable = {{ cpu = "16", memory = "64Gi", pods = 110 }}
"""


def workload():
    out = []
    for i in range(600):
        queue = "a" if i % 3 else "b"
        # Most jobs: 2 to 5 pods of 2 cpu for 20 to 80 s. Every 25th: a gang of 40 (80 cpu
        # of the 128) that waits for room; every 100th: a gang of 80 that never fits.
        replicas, cpu, duration = 2 + i % 4, 2, 20 + (i * 7) % 60
        if i % 100 == 50:
            replicas = 80
        elif i % 25 == 0:
            replicas = 40
        out.append(f"""
[[jobs]]
name = "j{i:03d}"
namespace = "ns-{queue}"
queue = "{queue}"
arrival = {i}
min_member = {replicas}
[[jobs.tasks]]
role = "w"
replicas = {replicas}
requests = {{ cpu = "{cpu}", memory = "4Gi" }}
duration = {duration}
""")
    return "".join(out)


def run(caldera, work, until, *extra):
    cmd = [caldera, *extra, "run", "--cluster", os.path.join(work, "cluster.toml"),
           "--workload", os.path.join(work, "workload.toml"), "--until", str(until)]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        sys.exit(f"FAIL: {' '.join(cmd)} exited {p.returncode}:\n{p.stderr[-3000:]}")
    return p.stderr.splitlines()


def main():
    caldera = sys.argv[1]
    with tempfile.TemporaryDirectory(prefix="caldera-logs-") as work:
        with open(os.path.join(work, "cluster.toml"), "w") as f:
            f.write(CLUSTER)
        with open(os.path.join(work, "workload.toml"), "w") as f:
            f.write(workload())
        lines = run(caldera, work, 600)
        # -v 3 logs every waiting job every session: the first 60 seconds show it.
        verbose = run(caldera, work, 60, "-v", "3")
        # The other layouts (--logging-format): the same lines as JSON objects, and klog's.
        as_json = run(caldera, work, 60, "-v", "3", "--logging-format", "json")
        as_klog = run(caldera, work, 60, "--logging-format", "text")

    sessions = re.compile(r"session +\d+:")

    def summary(log):
        m = re.search(r"summary: (\d+) sessions up to t=(\d+)s; (\d+) jobs arrived, (\d+) started",
                      "\n".join(l for l in log if "summary:" in l))
        if not m:
            sys.exit("FAIL: no summary line:\n" + "\n".join(log[-20:]))
        return int(m.group(1)), int(m.group(2)), int(m.group(4))

    n_sessions, until, started = summary(lines)
    verbose_sessions_run = summary(verbose)[0]
    bound_jobs = {re.search(r" (ns-\w/j\d+): bound", l).group(1)
                  for l in lines if re.search(r" ns-\w/j\d+: bound", l)}
    waits = [l for l in lines if re.search(r" ns-\w/j\d+ waits: ", l)]
    per_session = [l for l in lines if sessions.search(l)]
    verbose_sessions = [l for l in verbose if sessions.search(l)]
    print(f"{len(lines)} lines at the default level over {n_sessions} sessions up to "
          f"t={until}s ({started} jobs started, {len(waits)} wait lines); "
          f"{len(verbose)} lines with -v 3 ({len(verbose_sessions)} session lines)")
    problems = []
    if until < 590:
        problems.append(f"the run stopped at t={until}s, not 600 s")
    if len(lines) >= 1000:
        problems.append(f"{len(lines)} lines at the default level (limit 1,000)")
    if per_session:
        problems.append(f"per-session lines at the default level: {per_session[:3]}")
    if len(bound_jobs) != started:
        problems.append(f"{started} jobs started but {len(bound_jobs)} have a 'bound' line")
    never = {f"ns-{'a' if i % 3 else 'b'}/j{i:03d}" for i in range(600) if i % 100 == 50}
    for job in sorted(never):
        if not any(f" {job} waits: " in l for l in waits):
            problems.append(f"{job} never fits but no line says why it waits")
    if len(verbose_sessions) < verbose_sessions_run:
        problems.append(f"-v 3 shows {len(verbose_sessions)} session lines for "
                        f"{verbose_sessions_run} sessions")
    # JSON: every line an object with ts, v, level and msg, and the same messages as the
    # default layout (the sessions and the summary).
    objs = []
    for l in as_json:
        try:
            o = json.loads(l)
        except ValueError:
            problems.append(f"--logging-format json: not JSON: {l[:200]}")
            break
        if sorted(o) != ["level", "msg", "ts", "v"] or not isinstance(o["ts"], float):
            problems.append(f"--logging-format json: wrong fields: {l[:200]}")
            break
        objs.append(o)
    if objs and sum(1 for o in objs if sessions.search(o["msg"])) != len(verbose_sessions):
        problems.append("--logging-format json: not the same session lines as the default layout")
    if objs and not any(o["level"] == "debug" and o["v"] == 3 for o in objs):
        problems.append("--logging-format json: no debug line marked v 3 at -v 3")
    klog = re.compile(r"^[IWEDTC]\d{4} \d\d:\d\d:\d\d\.\d{6} +\d+ caldera\] ")
    bad = [l for l in as_klog if not klog.match(l)]
    if bad or not as_klog:
        problems.append(f"--logging-format text: not klog's layout: {bad[:2]}")
    # kube-scheduler's verbosity: every plugin's scores per node from -v 5, every node's
    # filter verdict from -v 10; neither at -v 3.
    scenario = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scenarios",
                            "nodegroup-queues-bound-to-groups.toml")
    def levels(v):
        p = subprocess.run([caldera, "-v", str(v), "scenario", "run", scenario],
                           capture_output=True, text=True, timeout=120)
        return (sum("scores of nodegroup for task" in l for l in p.stderr.splitlines()),
                sum(" filter: task " in l for l in p.stderr.splitlines()))
    v3, v5, v10 = levels(3), levels(5), levels(10)
    # A layout that does not exist is refused, naming the choices.
    bad = subprocess.run([caldera, "--logging-format", "xml", "scenario", "run", scenario],
                         capture_output=True, text=True, timeout=60)
    if bad.returncode == 0 or "--logging-format: xml not in {caldera,text,json}" not in bad.stderr:
        problems.append(f"--logging-format xml not refused as expected: {bad.stderr[-300:]}")
    if v3 != (0, 0) or v5[0] == 0 or v5[1] != 0 or v10[1] < 16:
        problems.append(f"(score lines, verdict lines) at -v 3, 5, 10: {v3}, {v5}, {v10}; "
                        "expected none at 3, scores from 5, a verdict per node and task at 10")
    if problems:
        sys.exit("FAIL:\n  " + "\n  ".join(problems))
    print("ok")


if __name__ == "__main__":
    main()
