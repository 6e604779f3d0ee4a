#!/usr/bin/env python3
"""The differential suite: random states (generate.py) through Volcano's oracle and Caldera
(compare.py), decisions compared exactly.

  run.py --caldera BIN [--seeds A..B] [--family NAME ...] [--keep DIR] [--no-pending]

Pending tasks' messages are compared too unless --no-pending.
`meson test differential` runs every family on a fixed seed range (1..60);
a long run (`--seeds 1..2000`, every family) reports the rest. Exits 77 (skip) with the
reason when ../shared/volcano is absent.
"""
import argparse
import glob
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--caldera", required=True)
    ap.add_argument("--seeds", default="1..100")
    ap.add_argument("--family", action="append")
    ap.add_argument("--keep", help="write the files here and keep them")
    ap.add_argument("--no-pending", action="store_true",
                    help="compare decisions only, not the pending tasks' messages")
    a = ap.parse_args()
    out = a.keep or tempfile.mkdtemp(prefix="caldera-differential-")
    try:
        gen = [sys.executable, os.path.join(HERE, "generate.py"), "--out", out, "--seeds", a.seeds]
        for f in a.family or []:
            gen += ["--family", f]
        subprocess.run(gen, check=True)
        files = sorted(glob.glob(os.path.join(out, "*.toml")))
        print(f"{len(files)} files, seeds {a.seeds}, families {', '.join(a.family or ['all'])}",
              flush=True)
        compare = [sys.executable, os.path.join(HERE, "compare.py"), "--caldera", a.caldera]
        if not a.no_pending:
            compare.append("--pending")
        return subprocess.run(compare + files).returncode
    finally:
        if not a.keep:
            shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
