#!/bin/sh
# make bench, patho toolchain part: load, list, assemble and compare the
# whole Pathologic corpus (43 scripts, ~50 KB) with `gsvm patho roundtrip`,
# and do the same decode -> listing text -> parse -> encode -> compare work
# with two small Python references (the community's own tools cannot be
# vendored):
#   bench/patho/ref_list.py       table-driven, as fast as plain Python gets
#   bench/patho/ref_community.py  built like the community's tools: an object
#                                 and an f-string per instruction, a cascade
#                                 of regular expressions to assemble
# All are timed in CPU seconds of the whole process (user + sys) so that
# other load on the machine skews them less, start-up taken out; medians of
# several runs; the figures are the ratios.
GSVM=${GSVM:-build/release/gsvm}
SHARED=${GSVM_SHARED_DIR:-$(pwd)/../shared}
CORPUS=$SHARED/corpus/pathologic/bin
RUNS=${RUNS:-5}
GREPEAT=${GREPEAT:-400}   # corpus passes per gsvm run
PREPEAT=${PREPEAT:-10}    # corpus passes per python run
if [ ! -d "$CORPUS" ]; then echo "patho: skipped, $CORPUS not found"; exit 0; fi
command -v python3 >/dev/null 2>&1 || { echo "patho: skipped, python3 not found"; exit 0; }
files=$(ls "$CORPUS"/*/*.bin)
bytes=$(cat $files | wc -c)
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# cpu CMD...: CPU seconds the command used (it must succeed).
cpu() {
    python3 -c 'import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=True)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print(r.ru_utime + r.ru_stime)' "$@"
}

# both must round-trip every file before they are timed
"$GSVM" patho roundtrip $files | tail -1 | grep -q ': 43 identical, 0 not' ||
    { echo "patho: gsvm roundtrip failed"; "$GSVM" patho roundtrip $files | tail -3; exit 1; }
python3 bench/patho/ref_list.py $files | grep -q ', 0 differ' || { echo "patho: python reference failed"; exit 1; }
python3 bench/patho/ref_community.py $files | grep -q ', 0 differ' || { echo "patho: community-style reference failed"; exit 1; }

g=$(for i in $(seq "$RUNS"); do cpu "$GSVM" patho roundtrip --repeat "$GREPEAT" $files || exit 1; done | median)
p=$(for i in $(seq 3); do cpu python3 bench/patho/ref_list.py --repeat "$PREPEAT" $files || exit 1; done | median)
# process start-up, measured on one pass, is taken out of both
g1=$(for i in $(seq "$RUNS"); do cpu "$GSVM" patho roundtrip --repeat 1 $files; done | median)
p1=$(for i in $(seq 3); do cpu python3 bench/patho/ref_list.py --repeat 1 $files; done | median)
c=$(for i in $(seq 3); do cpu python3 bench/patho/ref_community.py --repeat "$PREPEAT" $files || exit 1; done | median)
c1=$(for i in $(seq 3); do cpu python3 bench/patho/ref_community.py --repeat 1 $files; done | median)
awk -v b="$bytes" -v g="$g" -v p="$p" -v c="$c" -v g1="$g1" -v p1="$p1" -v c1="$c1" -v gr="$GREPEAT" -v pr="$PREPEAT" 'BEGIN {
    mb = b / 1e6
    gs = (g - g1) / (gr - 1); ps = (p - p1) / (pr - 1); cs = (c - c1) / (pr - 1)   # seconds per pass
    if (gs <= 0) gs = g / gr
    if (ps <= 0) ps = p / pr
    if (cs <= 0) cs = c / pr
    printf "corpus: 43 files, %.3f MB; one pass = load + list + assemble + save + compare\n", mb
    printf "gsvm patho roundtrip:          %6.2f ms per pass = %5.1f MB/s  (CPU, median, %d passes a run)\n", gs * 1e3, mb / gs, gr
    printf "python, table-driven:          %6.2f ms per pass = %5.2f MB/s  (CPU, median, %d passes a run)\n", ps * 1e3, mb / ps, pr
    printf "python, community-tool style:  %6.2f ms per pass = %5.2f MB/s  (CPU, median, %d passes a run)\n", cs * 1e3, mb / cs, pr
    printf "ratio vs table-driven python:  %.1fx (target >= 50x: %s)\n", ps / gs, (ps / gs >= 50) ? "met" : "NOT met"
    printf "ratio vs community-style:      %.1fx (target >= 50x: %s)\n", cs / gs, (cs / gs >= 50) ? "met" : "NOT met"
}'
