#!/bin/sh
# make bench: runs every bench/bench_<engine>.sh with the optimized gsvm.
# Each prints its figures as ratios against reference interpreters.
GSVM=${1:-build/release/gsvm}
export GSVM
status=0
for part in bench/bench_*.sh; do
    [ -f "$part" ] || continue
    echo "=== $(basename "$part" .sh | sed 's/bench_//')"
    sh "$part" || status=1
done
exit $status
