#!/usr/bin/env python3
"""usage: compile_race.py ROUNDS FILE... OUTDIR: compiles FILE... with
`$GSVM hks compile --target sekiro` and with Debian's `luac5.1`, each file
in its own process (as a user runs a compiler) into a real file in OUTDIR,
in ROUNDS interleaved rounds (the order of the two alternates from round to
round).  Prints "GSVM LUAC": the median over the rounds of the CPU seconds
(user + system) the compiler processes used, and nothing else's: the
timer is this process's getrusage of its children, read around each run.
Exits 1 if a compile fails."""
import os
import resource
import statistics
import subprocess
import sys

rounds, files, outdir = int(sys.argv[1]), sys.argv[2:-1], sys.argv[-1]
gsvm = os.environ.get("GSVM", "build/release/gsvm")
tools = [
    lambda f: [gsvm, "hks", "compile", f, "--target", "sekiro", "-o", os.path.join(outdir, "gsvm.out")],
    lambda f: ["luac5.1", "-o", os.path.join(outdir, "luac.out"), f],
]


def cpu(cmd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    if subprocess.run(cmd, stdout=subprocess.DEVNULL).returncode != 0:
        sys.exit("compile failed: " + " ".join(cmd))
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


times = [[], []]
for r in range(rounds):
    for t in (0, 1) if r % 2 == 0 else (1, 0):
        times[t].append(sum(cpu(tools[t](f)) for f in files))
print("%.4f %.4f" % tuple(statistics.median(x) for x in times))
