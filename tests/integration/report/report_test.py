#!/usr/bin/env python3
"""The HTML report renders in headless Chromium (docs/RESULTS.md).

Runs the bundled demo in virtual time with `caldera run --results DIR`, then opens
DIR/report.html in headless Chromium twice, from a file URL with the network features off:

  --dump-dom    the DOM Chromium built holds every plot (svg#plot-...), each with drawn data
                (line paths with many points, heatmap cells, job bars) and a legend; each
                queue's deserved share beside its allocated one; the demo's evictions marked
                on the job timeline by action (preempt and reclaim); binds, evictions and
                unschedulable tasks on charts of their own; the wait percentiles per queue
  --screenshot  a PNG of 1280x2800 (decoded here with zlib), in which the plots' colours
                are drawn: the queue and resource line colours, the heatmaps' dark cells and
                the job bars, and the plot area is not blank

The screenshot is kept as OUT/report-chromium.png for a person to look at.

  report_test.py CALDERA SOURCE_ROOT OUT_DIR

Exit 77 (SKIP) with the reason when no Chromium is installed (scripts/setup.sh installs
Debian's `chromium`).
"""

import collections
import html.parser
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

WIDTH, HEIGHT = 1280, 2800
HEATMAPS = ["plot-node-utilisation-cpu", "plot-node-utilisation-memory",
            "plot-node-utilisation-gpu"]
SESSION_COUNTS = ["plot-binds", "plot-evictions", "plot-unschedulable"]
PLOTS = ["plot-queue-share", "plot-cluster-utilisation", "plot-job-times"] + SESSION_COUNTS + HEATMAPS


def fail(msg):
    print(f"FAIL: {msg}")
    sys.exit(1)


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def chromium(binary, args, timeout=90):
    profile = tempfile.mkdtemp(prefix="caldera-chromium-")
    cmd = [binary, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
           "--no-first-run", "--disable-background-networking", "--disable-component-update",
           "--disable-sync", f"--user-data-dir={profile}"] + args
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        fail(f"chromium did not finish in {timeout}s: {' '.join(cmd)}")
    finally:
        shutil.rmtree(profile, ignore_errors=True)


class Plots(html.parser.HTMLParser):
    """Counts, per plot id, the data elements inside it."""

    def __init__(self):
        super().__init__()
        self.current = None
        self.found = {}

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "svg" and "plot" in (a.get("class") or "").split():
            self.current = a.get("id")
            self.found[self.current] = {"paths": [], "cells": 0, "runs": 0, "waits": 0,
                                        "marks": [], "legend": 0, "axis_labels": 0}
            return
        if self.current is None:
            return
        f = self.found[self.current]
        cls = (a.get("class") or "").split()
        if tag == "path" and "series" in cls:
            f["paths"].append((a.get("data-name"), a.get("d") or ""))
        elif tag == "rect" and "cell" in cls:
            f["cells"] += 1
        elif tag == "rect" and "run" in cls:
            f["runs"] += 1
        elif tag == "line" and "wait" in cls:
            f["waits"] += 1
        elif tag == "path" and "mark" in cls:
            f["marks"].append(a.get("data-kind"))
        elif tag == "g" and "legend-item" in cls:
            f["legend"] += 1
        elif tag == "text" and "axis-label" in cls:
            f["axis_labels"] += 1

    def handle_endtag(self, tag):
        if tag == "svg":
            self.current = None


def check_dom(dom):
    p = Plots()
    p.feed(dom)
    for pid in PLOTS:
        if pid not in p.found:
            fail(f"the rendered DOM has no svg#{pid}")
        f = p.found[pid]
        if f["axis_labels"] < 1:
            fail(f"{pid}: no axis label")
        if f["legend"] < 1:
            fail(f"{pid}: no legend")
    qs = p.found["plot-queue-share"]
    names = sorted(n for n, _ in qs["paths"])
    want = sorted(q + s for q in ("batch", "prod", "research") for s in ("", " deserved"))
    if names != want:
        fail(f"plot-queue-share: series {names}, want the demo's queues batch, prod, research "
             "and each one's deserved share (proportion reports it)")
    for pid in ["plot-queue-share", "plot-cluster-utilisation"] + SESSION_COUNTS:
        for name, d in p.found[pid]["paths"]:
            if d.count("L") < 5:
                fail(f"{pid}: series {name} has almost no points: d={d[:80]}")
    for pid in SESSION_COUNTS:
        if len(p.found[pid]["paths"]) != 1:
            fail(f"{pid}: {len(p.found[pid]['paths'])} series, want one (its own scale)")
    # The deserved line of a queue with jobs is not flat at 0: proportion gave it a share.
    flat = [n for n, d in qs["paths"] if n.endswith(" deserved") and
            len({pt.split(",")[1] for pt in d.replace("M", "").split(" L")}) < 2]
    if len(flat) == 3:
        fail("plot-queue-share: every deserved line is flat")
    for pid in HEATMAPS:
        if p.found[pid]["cells"] < 10:
            fail(f"{pid}: {p.found[pid]['cells']} heatmap cells")
    jobs = p.found["plot-job-times"]
    if jobs["runs"] != 7 or jobs["waits"] != 7:
        fail(f"plot-job-times: {jobs['runs']} run bars and {jobs['waits']} wait lines, want the "
             "demo's 7 jobs")
    # The demo preempts 8 sweep trials at t=6 and reclaims for batch later (conf/demo-workload.toml).
    kinds = collections.Counter(jobs["marks"])
    if kinds["preempt"] < 1 or kinds["reclaim"] < 1:
        fail(f"plot-job-times: eviction marks by kind {dict(kinds)}, want preempt and reclaim")
    for table in ("table-counts", "table-wait", "table-jobs"):
        if table not in dom:
            fail(f"the table {table} is missing")
    for q in ("batch", "prod", "research"):
        if f"<td class=\"name\">{q}</td>" not in dom.split("table-wait", 1)[1].split("</table>", 1)[0]:
            fail(f"table-wait: no row for queue {q}")
    print(f"DOM: {len(PLOTS)} plots, {sum(len(f['paths']) for f in p.found.values())} line "
          f"series, {sum(f['cells'] for f in p.found.values())} heatmap cells, eviction marks "
          f"{dict(kinds)}")


def decode_png(data):
    """RGB(A) 8-bit PNG -> (width, height, rows of (r, g, b) tuples' flat bytes, channels)."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail("the screenshot is not a PNG")
    pos, idat, width = 8, b"", None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        if zlib.crc32(kind + body) != struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])[0]:
            fail(f"PNG chunk {kind} has a bad CRC")
        if kind == b"IHDR":
            width, height, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or ctype not in (2, 6) or interlace != 0:
                fail(f"unexpected PNG format: depth {depth}, colour type {ctype}, interlace {interlace}")
            channels = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
        pos += 12 + length
    if width is None:
        fail("PNG without IHDR")
    raw = zlib.decompress(idat)
    stride = width * channels
    # Byte-wise addition without carries on whole rows at once (for the Up filter).
    m7 = int.from_bytes(b"\x7f" * stride, "big")
    m8 = int.from_bytes(b"\x80" * stride, "big")
    rows, prev = [], bytearray(stride)
    for y in range(height):
        off = y * (stride + 1)
        ftype, line = raw[off], bytearray(raw[off + 1:off + 1 + stride])
        if ftype == 1:  # Sub
            for i in range(channels, stride):
                line[i] = (line[i] + line[i - channels]) & 255
        elif ftype == 2:  # Up
            x, p = int.from_bytes(line, "big"), int.from_bytes(prev, "big")
            line = bytearray((((x & m7) + (p & m7)) ^ ((x ^ p) & m8)).to_bytes(stride, "big"))
        elif ftype == 3:  # Average
            for i in range(stride):
                a = line[i - channels] if i >= channels else 0
                line[i] = (line[i] + ((a + prev[i]) >> 1)) & 255
        elif ftype == 4:  # Paeth
            for i in range(channels):
                line[i] = (line[i] + prev[i]) & 255
            for i in range(channels, stride):
                a, b, c = line[i - channels], prev[i], prev[i - channels]
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else (b if pb <= pc else c))) & 255
        elif ftype != 0:
            fail(f"PNG row {y}: unknown filter {ftype}")
        rows.append(bytes(line))
        prev = line
    return width, height, rows, channels


def check_screenshot(path):
    with open(path, "rb") as f:
        width, height, rows, ch = decode_png(f.read())
    if (width, height) != (WIDTH, HEIGHT):
        fail(f"screenshot is {width}x{height}, want {WIDTH}x{HEIGHT}")

    def near(px, rgb, tol=40):
        return all(abs(px[i] - rgb[i]) <= tol for i in range(3))

    wanted = {  # the colours the plots draw with (host/results/svg_charts.cpp)
        "blue lines and job bars #4e79a7": (0x4e, 0x79, 0xa7),
        "orange lines and wait lines #f28e2b": (0xf2, 0x8e, 0x2b),
        "red lines #e15759": (0xe1, 0x57, 0x59),
        "dark heatmap cells #08306b": (0x08, 0x30, 0x6b),
    }
    # Colours of every other pixel of the plot area, counted once each.
    seen = collections.Counter()
    plot_rows = range(300, 2500)  # where the plot grid lies on a 1280-wide page
    step = ch * 2
    for y in plot_rows:
        row = rows[y]
        seen.update(row[x:x + 3] for x in range(0, width * ch, step))
    counts = {k: sum(n for px, n in seen.items() if near(px, rgb)) for k, rgb in wanted.items()}
    background = sum(n for px, n in seen.items() if min(px) >= 245)
    sampled = sum(seen.values())
    drawn = 1 - background / sampled
    for k, n in counts.items():
        if n < 200:
            fail(f"screenshot: only {n} pixels of the {k} (the plots were not drawn?)")
    if drawn < 0.08:
        fail(f"screenshot: the plot area is {drawn:.1%} drawn, nearly blank")
    print(f"screenshot {width}x{height}: plot area {drawn:.0%} non-white; "
          + ", ".join(f"{n} px {k.split(' #')[0]}" for k, n in counts.items()))


def main():
    if len(sys.argv) != 4:
        print(__doc__)
        return 2
    caldera, root, out = sys.argv[1:]
    binary = find_chromium()
    if not binary:
        print("SKIP: no chromium installed (scripts/setup.sh installs Debian's chromium)")
        return 77
    os.makedirs(out, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="caldera-report-") as tmp:
        results = os.path.join(tmp, "results")
        run = subprocess.run([caldera, "run", "--config", os.path.join(root, "conf", "demo.toml"),
                              "--results", results], capture_output=True, text=True, timeout=120)
        if run.returncode != 0:
            fail(f"caldera run exited {run.returncode}:\n{run.stderr[-3000:]}")
        report = os.path.join(results, "report.html")
        dom = chromium(binary, ["--dump-dom", "file://" + report])
        if dom.returncode != 0 or "<svg" not in dom.stdout:
            fail(f"chromium --dump-dom exited {dom.returncode}:\n{dom.stderr[-3000:]}")
        check_dom(dom.stdout)
        shot = os.path.join(out, "report-chromium.png")
        if os.path.exists(shot):
            os.remove(shot)
        r = chromium(binary, [f"--screenshot={shot}", f"--window-size={WIDTH},{HEIGHT}",
                              "--hide-scrollbars", "file://" + report])
        if r.returncode != 0 or not os.path.exists(shot):
            fail(f"chromium --screenshot exited {r.returncode}, no {shot}:\n{r.stderr[-3000:]}")
        check_screenshot(shot)
    print(f"PASS: the report renders with its plots ({shot})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
