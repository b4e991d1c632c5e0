#!/bin/sh
# make bench, hks part: load, list and reassemble the whole HavokScript corpus
# (313 chunks, ~14.5 MB) with gsvm, and decode + list it with a small Python
# reference disassembler (bench/hks/ref_disasm.py) doing the same decode work.
# Prints medians of several runs, MB/s and the speed ratio.
GSVM=${GSVM:-build/release/gsvm}
SHARED=${GSVM_SHARED_DIR:-$(pwd)/../shared}
CORPUS=$SHARED/corpus/hks
RUNS=${RUNS:-5}
if [ ! -d "$CORPUS" ]; then echo "hks: skipped, $CORPUS not found"; exit 0; fi
files=$(ls "$CORPUS"/*/* | grep -v '\.md$')
bytes=$(cat $files | wc -c)
now() { date +%s.%N; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# gsvm: every file loaded, listed, assembled and compared, in one process
: >/tmp/gsvm_hks_bench.$$
for i in $(seq "$RUNS"); do
    t0=$(now)
    "$GSVM" hks roundtrip --timing $files >/tmp/gsvm_hks_out.$$ || { cat /tmp/gsvm_hks_out.$$; exit 1; }
    t1=$(now)
    echo "$t0 $t1" | awk '{printf "%.4f\n", $2 - $1}' >>/tmp/gsvm_hks_bench.$$
    # internal split: load, list, asm (last line of the output)
    tail -1 /tmp/gsvm_hks_out.$$ >>/tmp/gsvm_hks_split.$$
done
g=$(median </tmp/gsvm_hks_bench.$$)
g_list=$(awk '{print $2 + $5}' /tmp/gsvm_hks_split.$$ | median)   # load + list seconds
head -1 /tmp/gsvm_hks_out.$$

# Python: decode + list every file (no reassembly)
: >/tmp/py_hks_bench.$$
pyruns=$(( RUNS < 3 ? RUNS : 3 ))
for i in $(seq "$pyruns"); do
    t0=$(now)
    python3 bench/hks/ref_disasm.py $files >/dev/null 2>&1 || { echo "python reference failed"; exit 1; }
    t1=$(now)
    echo "$t0 $t1" | awk '{printf "%.4f\n", $2 - $1}' >>/tmp/py_hks_bench.$$
done
p=$(median </tmp/py_hks_bench.$$)
rm -f /tmp/gsvm_hks_bench.$$ /tmp/gsvm_hks_split.$$ /tmp/gsvm_hks_out.$$ /tmp/py_hks_bench.$$
awk -v b="$bytes" -v g="$g" -v gl="$g_list" -v p="$p" -v runs="$RUNS" -v n="$(echo $files | wc -w)" 'BEGIN {
    mb = b / 1e6; full = p / g; like = p / gl
    printf "corpus: %d files, %.1f MB\n", n, mb
    printf "gsvm load+list+asm+compare (whole process, median of %d): %.3f s = %.1f MB/s (target < 2 s: %s)\n", runs, g, mb / g, (g < 2) ? "met" : "NOT met"
    printf "gsvm load+list only (in-process timer):                  %.3f s = %.1f MB/s\n", gl, mb / gl
    printf "python reference decode+list (median):                   %.3f s = %.1f MB/s\n", p, mb / p
    printf "ratio python / gsvm (python lists; gsvm lists and reassembles): %.1fx (target >= 50x: %s)\n", full, (full >= 50) ? "met" : "NOT met"
    printf "ratio python / gsvm, like for like (load + list):               %.1fx\n", like
}'
