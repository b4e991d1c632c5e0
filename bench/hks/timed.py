#!/usr/bin/env python3
"""Runs a command with its standard output sent to a file (its standard
error to OUTFILE.err) and prints
"WALL CPU": the wall-clock seconds and the CPU seconds (user + system) the
command used.  CPU time is what bench_hks.sh compares, because it says what
each program costs on one core even when the machine is busy.

usage: timed.py OUTFILE COMMAND [ARG...]
"""
import resource
import subprocess
import sys
import time

out = sys.argv[1]
before = resource.getrusage(resource.RUSAGE_CHILDREN)
t0 = time.monotonic()
with open(out, "wb") as f, open(out + ".err", "wb") as e:
    rc = subprocess.run(sys.argv[2:], stdout=f, stderr=e).returncode
wall = time.monotonic() - t0
after = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
print("%.4f %.4f" % (wall, cpu))
sys.exit(rc)
