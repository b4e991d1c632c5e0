#!/bin/sh
# make bench, hks compiler part: gsvm hks compile vs Debian's luac5.1 on the
# same sources, each file in its own process for both (as a user runs a
# compiler), both writing a real output file.  CPU seconds of the compiler
# processes alone (user + system, bench/hks/compile_race.py), median of
# interleaved rounds; the order of the two alternates from round to round,
# so neither always runs on a warm cache.
#   ROUNDS   rounds of the golden-set programs and the 1 MB one (7)
#   SROUNDS  rounds of each shape and size (5)
#   SHAPES   the shapes of bench/hks/gen_lua.py to time (all)
#   SIZES    of "20x5kB 300kB 1MB" (all)
GSVM=${GSVM:-build/release/gsvm}
export GSVM
SHARED=${GSVM_SHARED_DIR:-$(pwd)/../shared}
SRCS=$SHARED/corpus/hks-hksc/src
if ! command -v luac5.1 >/dev/null; then
    echo "hks compile: skipped, luac5.1 not installed (apt-get install lua5.1)"; exit 0
fi
if [ ! -d "$SRCS" ]; then echo "hks compile: skipped, $SRCS not found"; exit 0; fi
tmp=${TMPDIR:-/tmp}/gsvm_hks_compile_bench.$$
mkdir -p "$tmp" || exit 1
trap 'rm -rf "$tmp"' EXIT
# ROUNDS interleaved rounds of gsvm and luac5.1 on FILE...
# (bench/hks/compile_race.py); the medians of their CPU seconds go to $g and $l.
race() { # ROUNDS FILE...
    r=$(python3 bench/hks/compile_race.py "$@" "$tmp") || return 1
    g=${r% *} l=${r#* }
}

# The Lua 5.1 programs of the golden set (34-38 use HKS extensions that
# luac5.1 refuses) and a generated 1 MB program.
python3 bench/hks/gen_lua.py 1000000 >"$tmp/big.lua"
progs="$(ls "$SRCS"/*.lua | grep -v -e 34_hks -e 35_hks -e 36_t7 -e 37_iw6 -e 38_hks)"
ROUNDS=${ROUNDS:-7}
race "$ROUNDS" $progs || exit 1
gc=$g lc=$l
race "$ROUNDS" "$tmp/big.lua" || exit 1
awk -v n="$(echo $progs | wc -w)" -v b="$(cat $progs | wc -c)" -v gc="$gc" -v lc="$lc" -v gb="$g" -v lb="$l" -v r="$ROUNDS" 'BEGIN {
    printf "hks compile: CPU seconds, median of %d interleaved rounds, output to a file:\n", r
    printf "  %d golden-set programs (%.0f kB), one process each: gsvm %.3f s, luac5.1 %.3f s: ratio gsvm/luac %.2f (target <= 1.0: %s)\n", n, b / 1e3, gc, lc, gc / lc, (gc <= lc) ? "met" : "NOT met"
    printf "  a generated 1 MB program:                     gsvm %.3f s, luac5.1 %.3f s: ratio gsvm/luac %.2f (target <= 1.0: %s)\n", gb, lb, gb / lb, (gb <= lb) ? "met" : "NOT met"
}'

# Every shape of bench/hks/gen_lua.py at three sizes: 20 files of 5 kB
# (one process each), one of 300 kB (3 processes) and one of 1 MB.
SROUNDS=${SROUNDS:-5}
SIZES=${SIZES:-"20x5kB 300kB 1MB"}
for shape in ${SHAPES:-mixed funcs deep tables data locals elseif concat strings arith}; do
    for size in $SIZES; do
        case $size in
        20x5kB)
            set --
            for k in $(seq 20); do
                python3 bench/hks/gen_lua.py $((5000 + k)) $shape >"$tmp/$shape.$k.lua" || exit 1
                set -- "$@" "$tmp/$shape.$k.lua"
            done ;;
        300kB)
            python3 bench/hks/gen_lua.py 300000 $shape >"$tmp/$shape.300k.lua" || exit 1
            set -- "$tmp/$shape.300k.lua" "$tmp/$shape.300k.lua" "$tmp/$shape.300k.lua" ;;
        1MB)
            python3 bench/hks/gen_lua.py 1000000 $shape >"$tmp/$shape.1m.lua" || exit 1
            set -- "$tmp/$shape.1m.lua" ;;
        *) echo "hks compile: unknown size $size"; exit 1 ;;
        esac
        race "$SROUNDS" "$@" || { echo "hks compile: shape $shape $size failed"; exit 1; }
        awk -v shape="$shape" -v size="$size" -v r="$SROUNDS" -v g="$g" -v l="$l" 'BEGIN {
            printf "  shape %-7s %-7s ratio gsvm/luac %.2f (%.3f / %.3f s, median of %d; <= 1.0: %s)\n", shape, size, g / l, g, l, r, (g <= l) ? "met" : "NOT met"
        }'
    done
done
