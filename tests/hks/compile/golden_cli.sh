#!/bin/sh
# `gsvm hks compile` itself against hksc: test_hks_compile_golden compares
# all 557 golden chunks in one process through gsvm_hks_compile; this runs
# the CLI (the path a user types, source name "@" + the path as given) on
# three programs in every target/variant directory of
# ../shared/corpus/hks-hksc and compares the bytes, so the two stay one.
gsvm=${GSVM_BIN:?}
SRC=${GSVM_SOURCE_DIR:-$(pwd)}
. "$SRC/tests/cli_test.sh" # need, and the scratch directory $T
corpus=${GSVM_SHARED_DIR:-$SRC/../shared}/corpus/hks-hksc
need "$corpus/src"
case $gsvm in /*) ;; *) gsvm=$(pwd)/$gsvm ;; esac
fail=0; n=0
for tv in sekiro-be:sekiro sow-le:sow iw6:ghosts doubles-be:doubles t6:bo2 t7:bo3; do
    dir=${tv%%:*}; target=${tv#*:}
    for variant in debug profile strip; do
        [ -d "$corpus/$dir/$variant" ] || continue
        case $variant in debug) dbg=full ;; profile) dbg=profile ;; strip) dbg=none ;; esac
        for name in 10_closures 32_json 37_iw6_hdelete 34_hks_struct; do
            golden=$corpus/$dir/$variant/$name.luac
            [ -f "$golden" ] || continue
            n=$((n + 1))
            # hksc ran inside src/ with the bare name: so does this
            (cd "$corpus/src" && "$gsvm" hks compile "$name.lua" --target "$target" \
                --debug "$dbg" -o "$T/out.luac") >"$T/err" 2>&1
            if ! cmp -s "$T/out.luac" "$golden"; then
                echo "FAIL: $dir/$variant/$name: the CLI differs from hksc's chunk $(head -c 300 "$T/err")"
                fail=1
            fi
            rm -f "$T/out.luac"
        done
    done
done
# the default target is sekiro and the default debug level full
(cd "$corpus/src" && "$gsvm" hks compile 10_closures.lua -o "$T/d.luac") &&
    cmp -s "$T/d.luac" "$corpus/sekiro-be/debug/10_closures.luac" ||
    { echo "FAIL: the defaults are not sekiro-be/debug"; fail=1; }
# the single switches make each preset out of another one
single() { # GOLDEN SRC SWITCHES...
    g=$1; f=$2; shift 2
    (cd "$corpus/src" && "$gsvm" hks compile "$f" "$@" -o "$T/s.luac") &&
        cmp -s "$T/s.luac" "$corpus/$g" || { echo "FAIL: $* does not give $g"; fail=1; }
}
single sekiro-be/debug/10_closures.luac 10_closures.lua --target sow --endian big
single doubles-be/debug/10_closures.luac 10_closures.lua --target sekiro --number float64 \
    --build-flags 11
single t7/strip/36_t7_bitops.luac 36_t7_bitops.lua --target sow --profile bo3 --hash-debug t7 \
    --arg-table no --build-flags 0 --debug none
single t6/strip/10_closures.luac 10_closures.lua --target bo3 --format 13 --hash-debug t6 \
    --profile base
single iw6/debug/37_iw6_hdelete.luac 37_iw6_hdelete.lua --target sow --profile ghosts
# stdin with the golden name given by --chunkname, to stdout
"$gsvm" hks compile - --target sow --chunkname @32_json.lua -o - <"$corpus/src/32_json.lua" \
    >"$T/o.luac" && cmp -s "$T/o.luac" "$corpus/sow-le/debug/32_json.luac" ||
    { echo "FAIL: - with --chunkname to -o -"; fail=1; }
echo "CLI: $n golden chunks compared"
exit $fail
