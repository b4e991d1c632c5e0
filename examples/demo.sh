#!/bin/sh
# make demo: a short showcase of what works today.  Each engine adds its part
# in examples/demo_<engine>.sh; this runs them in order.
GSVM=${1:-build/release/gsvm}
export GSVM
echo "\$ gsvm --help"; "$GSVM" --help
for part in examples/demo_*.sh; do
    [ -f "$part" ] || continue
    echo; echo "=== $(basename "$part" .sh | sed 's/demo_//')"
    sh "$part" || { echo "demo part $part failed"; exit 1; }
done
