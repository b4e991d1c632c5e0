#!/bin/sh
# Compiles every program of ../shared/corpus/hks-hksc/src for each golden
# target/variant and compares the bytes with hksc's chunk.
#   golden_match.sh GSVM CORPUS [EXPECTED_MISMATCHES]
# Prints one line per target/variant (matched/total) and the mismatches;
# exits 1 when a chunk differs that the expected-mismatch file does not list,
# or when a listed one now matches (so the list stays exact).
gsvm=$1
corpus=$2
expected=${3:-}
if [ ! -d "$corpus/src" ]; then
    if [ "${CI:-}" = true ]; then
        echo "FAIL: $corpus is absent under CI=true"; exit 1
    fi
    echo "SKIP: $corpus is absent (the shared HKS golden corpus)"; exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
total=0
matched=0
for tv in sekiro-be:sekiro sow-le:sow iw6:ghosts doubles-be:doubles t6:bo2 t7:bo3; do
    dir=${tv%%:*}
    target=${tv#*:}
    for variant in debug profile strip; do
        [ -d "$corpus/$dir/$variant" ] || continue
        case $variant in debug) dbg=full ;; profile) dbg=profile ;; strip) dbg=none ;; esac
        n=0; ok=0
        for golden in "$corpus/$dir/$variant"/*.luac; do
            name=$(basename "$golden" .luac)
            n=$((n + 1))
            key="$dir/$variant/$name"
            (cd "$corpus/src" && "$gsvm" hks compile "$name.lua" --target "$target" \
                --debug "$dbg" -o "$tmp/out.luac") >"$tmp/err" 2>&1
            if cmp -s "$tmp/out.luac" "$golden"; then
                ok=$((ok + 1))
                if [ -n "$expected" ] && grep -q "^$key " "$expected"; then
                    echo "UNEXPECTED MATCH (remove it from $(basename "$expected")): $key"
                    fail=1
                fi
            else
                if [ -n "$expected" ] && grep -q "^$key " "$expected"; then
                    :
                else
                    echo "MISMATCH: $key $(head -c 200 "$tmp/err")"
                    fail=1
                fi
            fi
            rm -f "$tmp/out.luac"
        done
        echo "$dir/$variant: $ok/$n"
        total=$((total + n)); matched=$((matched + ok))
    done
done
echo "total: $matched/$total"
exit $fail
