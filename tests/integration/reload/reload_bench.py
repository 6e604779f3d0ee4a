#!/usr/bin/env python3
"""Reload benchmark (docs/RELOAD.md): prints figures, asserts nothing about timing.

1. Latency: the time from a change on disk (a plugin build renamed over nodeprefer.so, or a
   config edit) to the first session that uses the new policy, read from the status file
   (last_reload.noticed_at / finished_at, first_session_at), over --latency-rounds changes,
   with the breakdown: inotify delivery, settling, canary + load, waiting for the next tick.
2. Memory: the scheduler's RSS (VmRSS of /proc/PID/status) at start, then after 10, 100 and
   --reloads reloads that alternate two builds of nodeprefer.so (each accepted: the new
   file is held as a sealed memfd, the one two reloads back released), plus the plugin
   files held and the plugin code mapped in the scheduler at the end (none: sessions load
   plugins in their workers).

  reload_bench.py --caldera BIN --builtin-plugins DIR --test-plugins DIR --abi-plugins DIR
                  --data DIR [--reloads 1000] [--latency-rounds 20] [--period 100ms]
                  [--settle 20ms]
"""

import argparse
import json
import os
import shutil
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reload_test as rt  # noqa: E402


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def wait_accepted(s, attempts_before, timeout=30):
    """Waits for the next accepted reload; returns the status."""
    def done():
        st = s.status()
        last = st.get("last_reload") or {}
        if last.get("attempt", 0) > attempts_before and not st["reloads"]["trial_running"]:
            return st
        return None
    st = s.wait(done, timeout, "a reload decision")
    last = st["last_reload"]
    if last["result"] != "accepted":
        raise rt.TestFailure(f"reload #{last['attempt']} {last['result']}: {last['reason']}")
    return st


def wait_first_session(s, timeout=30):
    return s.wait(lambda: (lambda st: st if st.get("first_session_at") else None)(s.status()),
                  timeout, "the first session with the new policy")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--caldera", required=True)
    ap.add_argument("--builtin-plugins", required=True)
    ap.add_argument("--test-plugins", required=True)
    ap.add_argument("--abi-plugins", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--reloads", type=int, default=1000)
    ap.add_argument("--latency-rounds", type=int, default=20)
    ap.add_argument("--period", default="100ms")
    ap.add_argument("--settle", default="20ms")
    args = ap.parse_args()

    s = rt.Scheduler(args, "bench")
    extra = f'reload_settle = "{args.settle}"'
    cfg = lambda **kw: rt.config_text(args.builtin_plugins, period=args.period, **kw).replace(
        'reload_settle = "100ms"', extra)
    builds = [s.build("nodeprefer_asc"), s.build("nodeprefer_desc")]
    blobs = []
    for b in builds:
        with open(b, "rb") as f:
            blobs.append(f.read())
    target = os.path.join(s.plugins, "nodeprefer.so")
    rt.write_atomic(target, blobs[0])
    rt.write_atomic(s.config, cfg())
    s.start()
    s.expect_binds(0, "n1")
    pid = s.proc.pid
    print(f"caldera pid {pid}, period {args.period}, reload_settle {args.settle}")

    # --- 1. latency ---------------------------------------------------------------------
    rows = []
    for i in range(args.latency_rounds):
        time.sleep(0.35)  # land at a random point of the period
        before = s.status()["reloads"]["attempts"]
        if i % 2 == 0:
            kind = "plugin"
            t0 = time.time()
            rt.write_atomic(target, blobs[(i // 2 + 1) % 2])
        else:
            kind = "config"
            t0 = time.time()
            rt.write_atomic(s.config, cfg(binpack_weight=1 + (i % 4)))
        wait_accepted(s, before)
        st = wait_first_session(s)
        last = st["last_reload"]
        rows.append({
            "kind": kind,
            "notice": last["noticed_at"] - t0,
            "settle": last["started_at"] - last["noticed_at"],
            "trial": last["trial_seconds"],
            "decide": last["finished_at"] - last["started_at"],
            "to_session": st["first_session_at"] - last["finished_at"],
            "total": st["first_session_at"] - t0,
        })
    print("\nchange on disk -> first session using it (ms), over "
          f"{len(rows)} changes (plugin replacements and config edits alternating):")
    print(f"  {'':10} {'notice':>8} {'settle':>8} {'canary':>8} {'decide':>8} {'->tick':>8} {'total':>8}")
    for label, fn in [("median", statistics.median), ("max", max), ("min", min)]:
        vals = [fn([r[k] * 1000 for r in rows]) for k in
                ("notice", "settle", "trial", "decide", "to_session", "total")]
        print(f"  {label:10} " + " ".join(f"{v:8.1f}" for v in vals))
    for kind in ("plugin", "config"):
        tot = [r["total"] * 1000 for r in rows if r["kind"] == kind]
        if tot:
            print(f"  {kind:10} total median {statistics.median(tot):.1f} ms, max {max(tot):.1f} ms")

    # --- 2. memory over many reloads ----------------------------------------------------
    rt.write_atomic(s.config, cfg())
    time.sleep(1.0)
    checkpoints = {10, 100, args.reloads}
    rss = [("start", 0, rss_kib(pid))]
    t_start = time.time()
    for i in range(1, args.reloads + 1):
        before = s.status()["reloads"]["attempts"]
        rt.write_atomic(target, blobs[i % 2])
        wait_accepted(s, before)
        if i in checkpoints:
            rss.append((f"after {i}", i, rss_kib(pid)))
    elapsed = time.time() - t_start
    time.sleep(0.5)
    st = s.status()
    with open(f"/proc/{pid}/maps") as f:
        copies = [line for line in f if "memfd:caldera-plugin:" in line]
    held = []
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            if os.readlink(f"/proc/{pid}/fd/{fd}").startswith("/memfd:caldera-plugin:"):
                held.append(fd)
        except OSError:
            pass
    print(f"\nRSS over {args.reloads} accepted reloads alternating two nodeprefer builds "
          f"({elapsed:.1f} s, {elapsed / args.reloads * 1000:.1f} ms per reload):")
    for label, _, kib in rss:
        print(f"  {label:>12}: {kib / 1024:8.1f} MiB")
    print(f"  plugin files held at the end: {len(held)}; plugin code mapped in the scheduler: "
          f"{len(copies)}")
    print(f"  reloads: {st['reloads']['attempts']} attempts, {st['reloads']['accepted']} accepted,"
          f" {st['reloads']['refused']} refused, {st['reloads']['unchanged']} unchanged; "
          f"{st['sessions']['count']} sessions")
    s.stop()
    shutil.rmtree(s.tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
