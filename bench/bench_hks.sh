#!/bin/sh
# make bench, hks part: load, list and reassemble the whole HavokScript corpus
# (313 chunks, 14.5 MB) with gsvm, and list it with a Python reference
# disassembler (bench/hks/ref_disasm.py) that prints the very same listing
# (checked below, byte for byte).  Times are CPU seconds (user + system, see
# bench/hks/timed.py), medians of several runs; MB are chunk bytes (1e6).
GSVM=${GSVM:-build/release/gsvm}
export GSVM
SHARED=${GSVM_SHARED_DIR:-$(pwd)/../shared}
CORPUS=$SHARED/corpus/hks
PYRUNS=${PYRUNS:-5}
if [ ! -d "$CORPUS" ]; then echo "hks: skipped, $CORPUS not found"; exit 0; fi
files=$(ls "$CORPUS"/*/* | grep -v '\.md$')
nfiles=$(echo $files | wc -w)
bytes=$(cat $files | wc -c)
tmp=${TMPDIR:-/tmp}/gsvm_hks_bench.$$
mkdir -p "$tmp" || exit 1
trap 'rm -rf "$tmp"' EXIT
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
timed() { python3 bench/hks/timed.py "$@"; }

# gsvm: every file loaded, listed, assembled and compared, in one process;
# --timing adds the CPU time of each phase (last line of the output).
# Python: read and list every file, output to a file.  The runs alternate
# (GSVM_PER_PY gsvm runs, then one Python run) so that both see the same
# load on a shared machine.
GSVM_PER_PY=${GSVM_PER_PY:-3}
for i in $(seq "$PYRUNS"); do
    for j in $(seq "$GSVM_PER_PY"); do
        timed "$tmp/rt.out" "$GSVM" hks roundtrip --timing $files >>"$tmp/rt.times" ||
            { cat "$tmp/rt.out"; echo "hks: gsvm roundtrip failed"; exit 1; }
        tail -1 "$tmp/rt.out" >>"$tmp/rt.split"
    done
    timed "$tmp/py.out" python3 bench/hks/ref_disasm.py $files >>"$tmp/py.times" ||
        { echo "python reference failed"; exit 1; }
    # "... bytes of listing, list S s": its own CPU time for decoding + listing
    sed -n 's/.*, list \([0-9.]*\) s$/\1/p' "$tmp/py.out.err" >>"$tmp/py.list"
done
head -1 "$tmp/rt.out"

# like for like: the Python listing must be gsvm's listing, byte for byte
for f in $files; do "$GSVM" hks list "$f"; done >"$tmp/gsvm.out"
if cmp -s "$tmp/gsvm.out" "$tmp/py.out"; then
    same="identical ($(wc -c <"$tmp/py.out") bytes)"
else
    same="DIFFERENT (the ratios below do not compare like with like)"
fi

rt_cpu=$(awk '{print $2}' "$tmp/rt.times" | median)
rt_wall=$(awk '{print $1}' "$tmp/rt.times" | median)
# "load L s, list T s, asm+dump A s, total ..."
load=$(awk '{print $2}' "$tmp/rt.split" | median)
list=$(awk '{print $2 + $5}' "$tmp/rt.split" | median)
asm=$(awk '{print $8}' "$tmp/rt.split" | median)
py_cpu=$(awk '{print $2}' "$tmp/py.times" | median)
py_list=$(median <"$tmp/py.list")
py_wall=$(awk '{print $1}' "$tmp/py.times" | median)
awk -v b="$bytes" -v n="$nfiles" -v pyruns="$PYRUNS" -v same="$same" \
    -v runs="$((PYRUNS * GSVM_PER_PY))" -v rt="$rt_cpu" -v rtw="$rt_wall" -v load="$load" -v list="$list" -v asm="$asm" \
    -v py="$py_cpu" -v pyw="$py_wall" -v pyl="$py_list" 'BEGIN {
    mb = b / 1e6
    printf "corpus: %d files, %.1f MB; python listing vs gsvm listing: %s\n", n, mb, same
    printf "CPU seconds, median of %d (gsvm) and %d (python) runs:\n", runs, pyruns
    printf "  gsvm load            %6.3f s  %7.1f MB/s\n", load, mb / load
    printf "  gsvm load+list       %6.3f s  %7.1f MB/s\n", list, mb / list
    printf "  gsvm asm+dump        %6.3f s  %7.1f MB/s\n", asm, mb / asm
    printf "  gsvm round trip      %6.3f s  %7.1f MB/s  (whole process: load, list, asm, compare; wall %.3f s; target < 2 s: %s)\n", rt, mb / rt, rtw, (rt < 2 && rtw < 2) ? "met" : "NOT met"
    printf "  python load+list     %6.3f s  %7.1f MB/s  (its own timer around decoding + listing)\n", pyl, mb / pyl
    printf "  python whole process %6.3f s  %7.1f MB/s  (with start-up, reading, writing; wall %.3f s)\n", py, mb / py, pyw
    printf "ratio python / gsvm, load+list (like for like): %.1fx (target >= 50x: %s)\n", pyl / list, (pyl / list >= 50) ? "met" : "NOT met"
    printf "ratio python listing / gsvm whole round trip:   %.1fx (gsvm also reassembles and compares)\n", py / rt
}'

# the compiler vs luac5.1 (bench/hks/bench_compile.sh)
sh bench/hks/bench_compile.sh || exit 1
# The decompiler: every chunk of the corpus to Lua source, one process per
# chunk (as a user runs it), CPU seconds of the whole loop, median of 3
# (target: under 10 s on one core).
for i in 1 2 3; do
    timed "$tmp/dc.out" sh -c 'for f in "$@"; do "$0" hks decompile "$f" -o /dev/null || exit 1; done' "$GSVM" $files >>"$tmp/dc.times" ||
        { echo "decompile failed"; cat "$tmp/dc.out.err"; exit 1; }
done
dc_cpu=$(awk '{print $2}' "$tmp/dc.times" | median)
dc_wall=$(awk '{print $1}' "$tmp/dc.times" | median)
awk -v c="$dc_cpu" -v w="$dc_wall" -v n="$nfiles" 'BEGIN {
    printf "  gsvm decompile       %6.3f s  (%d chunks to Lua source, one process each; wall %.3f s; target < 10 s: %s)\n", c, n, w, c < 10 ? "met" : "NOT met"
}'
# decompile, recompile, compare (--check): the verdicts per corpus folder and
# for the hksc golden set (all targets and variants)
for d in "$CORPUS"/*/ "$SHARED/corpus/hks-hksc"; do
    case $d in */hks-hksc) set -- "$d"/*/*/*.luac ;; *) set -- $(ls "$d"* | grep -v '\.md$') ;; esac
    printf "  decompile --check %-14s %s\n" "$(basename "$d"):" "$("$GSVM" hks decompile --check "$@" 2>/dev/null | tail -1)"
done
sh bench/hks/bench_vm.sh
