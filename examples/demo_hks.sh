#!/bin/sh
# make demo, hks part: assemble a hand-written HavokScript chunk, list it,
# verify it (and a broken one), and take a real corpus chunk apart and put it
# back together byte for byte.
GSVM=${GSVM:-build/release/gsvm}
SHARED=${GSVM_SHARED_DIR:-$(pwd)/../shared}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
run() { echo "\$ $*" | sed "s#$tmp/##g; s#$GSVM#gsvm#"; "$@"; }

run "$GSVM" hks asm examples/hks/counter.hksl -o "$tmp/counter.hksc" || exit 1
run "$GSVM" hks list "$tmp/counter.hksc" | sed -n '7,30p'
echo "  ..."
run "$GSVM" hks verify "$tmp/counter.hksc" || exit 1
"$GSVM" hks asm examples/hks/broken.hksl -o "$tmp/broken.hksc" || exit 1
run "$GSVM" hks verify "$tmp/broken.hksc" | sed "s#$tmp/##g" | head -4
echo "  ..."
run "$GSVM" hks verify --hypothesis swap-ab "$tmp/counter.hksc" | sed "s#$tmp/##g"
run "$GSVM" hks scri pack "$tmp/counter.hksc" -o "$tmp/counter.scri" || exit 1
run "$GSVM" hks scri unpack "$tmp/counter.scri" -o "$tmp/body" 2>&1 | sed "s#$tmp/##g"
cmp -s "$tmp/body" "$tmp/counter.hksc" && echo "(the body is the chunk again)"
if [ -d "$SHARED/corpus/hks" ]; then
    c=$SHARED/corpus/hks/halo/hinf_luas.luas
    echo; echo "# a Halo Infinite chunk inside a tag file (it starts at byte 548):"
    run "$GSVM" hks list "$c" -o "$tmp/hinf.hksl" || exit 1
    run "$GSVM" hks asm "$tmp/hinf.hksl" -o "$tmp/hinf.again" || exit 1
    cmp "$c" "$tmp/hinf.again" && echo "(identical, tag bytes before and after the chunk included)"
    echo; echo "# the whole corpus (313 chunks: Sekiro, Ghosts, Halo Infinite, a float64 build):"
    all=$(ls "$SHARED"/corpus/hks/*/* | grep -v '\.md$')
    echo "\$ gsvm hks roundtrip corpus/hks/*/*"
    "$GSVM" hks roundtrip $all || exit 1
    echo "\$ gsvm hks verify corpus/hks/*/*"
    "$GSVM" hks verify $all || exit 1
    echo "\$ gsvm hks verify --hypothesis op-low-bit corpus/hks/*/*"
    "$GSVM" hks verify --hypothesis op-low-bit $all
    echo "\$ gsvm hks stats corpus/hks/*/* | head -12"
    "$GSVM" hks stats $all | head -12
fi

echo; echo "# the VM: a world layer with two sleeping threads, a bound event and a native"
echo "# that needs the running-script stack, called right and wrong (one handler faults: exit 3)"
L=examples/hks/layer
run "$GSVM" hks run $L/keep.lua --world $L/keep.world.json --events $L/keep.timeline.jsonl
rc=$?
[ $rc = 3 ] || { echo "unexpected exit $rc"; exit 1; }
echo "(exit 3: the OnTaunt handler passed a string where a DBAlignments record belongs)"
