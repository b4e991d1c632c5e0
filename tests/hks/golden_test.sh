#!/bin/sh
# Golden outputs of gsvm hks: listings of our own chunks (assembled from
# examples/hks/*.hksl) and of two short corpus chunks, verify reports, stats
# and a control-flow graph.  With GSVM_UPDATE_GOLDEN=1 the files are rewritten
# (read the diff before committing).
G=${GSVM_BIN:?}; SRC=${GSVM_SOURCE_DIR:-$(pwd)}; GOLD=$SRC/tests/hks/golden
SHARED=${GSVM_SHARED_DIR:-$SRC/../shared}
pass=0; fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# check NAME WANT_RC CMD...: runs CMD in $tmp, compares stdout with $GOLD/NAME
check() {
    name=$1; want=$2; shift 2
    (cd "$tmp" && "$@") >"$tmp/out" 2>"$tmp/err"; rc=$?
    if [ "${GSVM_UPDATE_GOLDEN:-}" = 1 ]; then cp "$tmp/out" "$GOLD/$name"; echo "updated $name"; fi
    if [ "$rc" != "$want" ]; then
        fail=$((fail+1)); echo "FAIL $name: exit $rc, want $want"; cat "$tmp/err"; return
    fi
    if diff -u "$GOLD/$name" "$tmp/out"; then pass=$((pass+1)); else fail=$((fail+1)); echo "FAIL $name differs"; fi
}
for src in "$SRC"/examples/hks/*.hksl; do
    n=$(basename "$src" .hksl)
    if ! "$G" hks asm "$src" -o "$tmp/$n.hksc"; then fail=$((fail+1)); echo "FAIL asm $n"; continue; fi
    check "$n.list" 0 "$G" hks list "$n.hksc"
    "$G" hks list "$tmp/$n.hksc" -o "$tmp/$n.list"
    "$G" hks asm "$tmp/$n.list" -o "$tmp/$n.again"
    if cmp -s "$tmp/$n.hksc" "$tmp/$n.again"; then pass=$((pass+1)); else fail=$((fail+1)); echo "FAIL $n: list -> asm differs"; fi
    want=0; [ "$n" = broken ] && want=1
    check "$n.verify" $want "$G" hks verify "$n.hksc"
done
if [ -f "$SHARED/corpus/hks/havok-doubles/compiled.luac" ]; then
    cp "$SHARED/corpus/hks/havok-doubles/compiled.luac" "$SHARED/corpus/hks/halo/hinf_luas.luas" "$tmp/"
    check doubles.list 0 "$G" hks list compiled.luac
    check hinf_luas.list 0 "$G" hks list --scan hinf_luas.luas
    check doubles.stats.json 0 "$G" hks stats --json compiled.luac
    check doubles.cfg.dot 0 "$G" hks cfg compiled.luac --function 0/0
elif [ "${CI:-}" = true ]; then
    fail=$((fail+1)); echo "FAIL: shared corpus missing under CI"
else
    echo "skipped corpus goldens: $SHARED/corpus/hks not found"
fi
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
