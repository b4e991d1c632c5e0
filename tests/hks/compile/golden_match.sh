#!/bin/sh
# gsvm hks compile against hksc: compiles every program of
# ../shared/corpus/hks-hksc/src for each golden target/variant and compares
# the bytes with hksc's chunk.  Prints matched/total per target/variant.
# Fails when a chunk differs that expected_mismatches.txt does not list, or
# when a listed one now matches (so the list stays exact).
#   GSVM_BIN=gsvm sh golden_match.sh        (ctest sets GSVM_BIN, GSVM_SHARED_DIR)
gsvm=${GSVM_BIN:?}
SRC=${GSVM_SOURCE_DIR:-$(pwd)}
corpus=${GSVM_SHARED_DIR:-$SRC/../shared}/corpus/hks-hksc
expected=$SRC/tests/hks/compile/expected_mismatches.txt
if [ ! -d "$corpus/src" ]; then
    if [ "${CI:-}" = true ]; then
        echo "FAIL: $corpus is absent under CI=true"; exit 1
    fi
    echo "SKIP: $corpus is absent (the shared HKS golden corpus)"; exit 0
fi
case $gsvm in /*) ;; *) gsvm=$(pwd)/$gsvm ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0; total=0; matched=0
for tv in sekiro-be:sekiro sow-le:sow iw6:ghosts doubles-be:doubles t6:bo2 t7:bo3; do
    dir=${tv%%:*}; target=${tv#*:}
    for variant in debug profile strip; do
        [ -d "$corpus/$dir/$variant" ] || continue
        case $variant in debug) dbg=full ;; profile) dbg=profile ;; strip) dbg=none ;; esac
        n=0; ok=0
        for golden in "$corpus/$dir/$variant"/*.luac; do
            name=$(basename "$golden" .luac)
            n=$((n + 1)); key="$dir/$variant/$name"
            # hksc ran inside src/ with the bare name: so does this
            (cd "$corpus/src" && "$gsvm" hks compile "$name.lua" --target "$target" \
                --debug "$dbg" -o "$tmp/out.luac") >"$tmp/err" 2>&1
            listed=no
            grep -q "^$key " "$expected" 2>/dev/null && listed=yes
            if cmp -s "$tmp/out.luac" "$golden"; then
                ok=$((ok + 1))
                if [ $listed = yes ]; then
                    echo "FAIL: $key matches now: remove it from expected_mismatches.txt"; fail=1
                fi
            elif [ $listed = no ]; then
                echo "FAIL: $key differs from hksc's chunk $(head -c 300 "$tmp/err")"; fail=1
            fi
            rm -f "$tmp/out.luac"
        done
        echo "$dir/$variant: $ok/$n"
        total=$((total + n)); matched=$((matched + ok))
    done
done
echo "total: $matched/$total byte-identical (the rest listed in expected_mismatches.txt)"
exit $fail
